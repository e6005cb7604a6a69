"""RayVectorEnv on a local Ray cluster: same results as a local vector env, actors that die."""

from __future__ import annotations

import os
import signal
import time

import gymnasium as gym
import numpy as np
import pytest

import turngym  # noqa: F401  (registers the ids)

ray = pytest.importorskip("ray", reason="needs the ray extra (pip install 'turngym[ray]')")

from turngym.sdk.distributed import RayRolloutWorkers, RayVectorEnv  # noqa: E402

MOVES = ["left", "down", "right", "up"]


def make_lake() -> gym.Env:
    return gym.make("turngym/FrozenLake-v0", size=4, map="random")


@pytest.fixture(scope="module", autouse=True)
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def run(envs, steps: int, seed: int = 0):
    """Play the same random moves on ``envs``; every step's batch."""
    rng = np.random.default_rng(seed)
    trace = [envs.reset(seed=seed)]
    for _ in range(steps):
        actions = [MOVES[k] for k in rng.integers(4, size=envs.num_envs)]
        trace.append(envs.step(actions))
    return trace


def same(a, b) -> bool:
    return repr(a) == repr(b)


def test_four_actors_give_what_a_local_vector_env_gives():
    remote = RayVectorEnv([make_lake] * 4, num_cpus=0.5)
    local = gym.vector.SyncVectorEnv([make_lake] * 4)
    try:
        assert remote.single_observation_space == local.single_observation_space
        assert len(set(remote.actor_pids())) == 4 and os.getpid() not in remote.actor_pids()
        ours, theirs = run(remote, 30), run(local, 30)
        assert any(t[2].any() or t[3].any() for t in ours[1:])  # episodes ended and autoreset
        for k, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            assert same(a, b), f"step {k} differs"
    finally:
        remote.close()
        local.close()


def test_a_killed_actor_truncates_its_episode_and_nothing_else_is_lost():
    remote = RayVectorEnv([make_lake] * 4, num_cpus=0.5)
    local = gym.vector.SyncVectorEnv([make_lake] * 4)
    try:
        rng = np.random.default_rng(1)
        remote.reset(seed=10)
        local.reset(seed=10)
        for _ in range(3):
            actions = [MOVES[k] for k in rng.integers(4, size=4)]
            remote.step(actions)
            local.step(actions)
        victim = 2
        os.kill(remote.actor_pids()[victim], signal.SIGKILL)
        time.sleep(0.5)
        actions = [MOVES[k] for k in rng.integers(4, size=4)]
        obs, rewards, terminated, truncated, infos = remote.step(actions)
        want = local.step(actions)
        assert truncated[victim] and not terminated[victim] and rewards[victim] == 0.0
        assert infos["actor_restarted"][victim] and infos["_actor_restarted"].sum() == 1
        assert "actor" in infos["actor_error"][victim].lower()
        others = [i for i in range(4) if i != victim]
        assert same([obs[i] for i in others], [want[0][i] for i in others])
        assert (rewards[others] == want[1][others]).all()
        assert remote.restarts == [0, 0, 1, 0]
        # The next step starts a fresh episode on the new actor; the others go on.
        obs, rewards, terminated, truncated, infos = remote.step(["down"] * 4)
        assert infos["turn"][victim] == 0 and not truncated[victim]  # a first observation
        assert obs[victim] and obs[victim] != want[0][victim]
        assert len(set(remote.actor_pids())) == 4
    finally:
        remote.close()
        local.close()


def test_an_env_that_keeps_dying_raises_after_max_restarts():
    remote = RayVectorEnv([make_lake] * 2, num_cpus=0.5, max_restarts=1)
    try:
        remote.reset(seed=0)
        for expected_restarts in (1, 2):
            os.kill(remote.actor_pids()[0], signal.SIGKILL)
            time.sleep(0.5)
            if expected_restarts == 1:
                *_, truncated, _ = remote.step(["left", "left"])
                assert truncated[0]
            else:
                with pytest.raises(RuntimeError, match="max_restarts=1"):
                    remote.step(["left", "left"])
    finally:
        remote.close()


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="at least one env"):
        RayVectorEnv([])
    with pytest.raises(ValueError, match="max_restarts"):
        RayVectorEnv([make_lake], max_restarts=-1)


def _summary(episodes):
    return [
        (ep.index, ep.group, ep.seed, [t.action for t in ep.turns], ep.returns, ep.success)
        for ep in episodes
    ]


def test_rollout_workers_against_turngym_serve_match_local_collection():
    from tests.serving import shared_server
    from turngym.sdk.rollout import collect

    agent = f"openai:{shared_server().url}"
    workers = RayRolloutWorkers(
        "turngym/FrozenLake-v0",
        agent,
        num_workers=2,
        envs_per_worker=2,
        max_turns=4,
        num_cpus=0.5,
    )
    try:
        remote = workers.collect(6, seed=3, group_size=2)
        local = collect(
            "turngym/FrozenLake-v0", agent, episodes=6, seed=3, group_size=2, max_turns=4
        )
        assert [ep.index for ep in remote] == list(range(6))
        assert [ep.seed for ep in remote] == [3, 3, 4, 4, 5, 5]
        assert all(ep.turns and ep.turns[0].action_ids for ep in remote)  # the model acted
        assert _summary(remote) == _summary(local)
    finally:
        workers.close()


def test_a_rollout_worker_that_dies_is_replaced_and_its_groups_played_again():
    workers = RayRolloutWorkers(
        "turngym/FrozenLake-v0", "expert", num_workers=2, envs_per_worker=1, num_cpus=0.5
    )
    try:
        first = workers.collect(4, seed=0, group_size=1)
        ray.kill(workers.workers[1], no_restart=True)
        again = workers.collect(4, seed=0, group_size=1)
        assert workers.restarts == [0, 1]
        assert _summary(again) == _summary(first) and all(ep.success for ep in again)
        with pytest.raises(ValueError, match="make_agent name"):
            RayRolloutWorkers("turngym/FrozenLake-v0", object())  # type: ignore[arg-type]
    finally:
        workers.close()
