"""ReplayBuffer: transitions from episodes, FIFO, seeded sampling, resume, hindsight relabelling."""

from __future__ import annotations

import collections

import pytest

from turngym.sdk.records import Episode, Turn
from turngym.sdk.replay import ReplayBuffer, ReplayTransition, episode_transitions, relabel

LEGAL = ["left", "right", "stay"]


def same(achieved: str, goal: str) -> float:
    return 1.0 if achieved and achieved == goal else 0.0


def goal_episode(achieved: list[str], goal: str = "reach A", success: bool = False) -> Episode:
    """A hand-made goal-conditioned episode: turn k observes "s{k}" and achieves ``achieved[k]``."""
    turns = []
    for k, got in enumerate(achieved):
        last = k == len(achieved) - 1
        obs = f"Mission: {goal}. s{k}" if k == 0 else f"s{k}"
        turns.append(
            Turn(
                obs=obs,
                action=LEGAL[k % 3],
                reward=1.0 if success and last else 0.0,
                terminated=success and last,
                truncated=not success and last,
                candidates=list(LEGAL),
                info={"goal": goal, "achieved_goal": got, "legal_actions": list(LEGAL)},
            )
        )
    return Episode(
        "Demo", turns=turns, success=success, final_obs={"agent": f"s{len(achieved)} ({goal})"}
    )


def test_transitions_carry_obs_goal_candidates_and_ends():
    ep = goal_episode(["", "reach B", ""])
    ts = episode_transitions(ep)
    assert [t.obs for t in ts] == ["Mission: reach A. s0", "s1", "s2"]
    assert [t.next_obs for t in ts] == ["s1", "s2", "s3 (reach A)"]
    assert [t.action for t in ts] == ["left", "right", "stay"]
    assert all(t.goal == "reach A" and t.candidates == tuple(LEGAL) for t in ts)
    assert [t.achieved_goal for t in ts] == ["", "reach B", ""]
    assert [t.done for t in ts] == [False, False, True]
    # truncated, not terminated: the last step still bootstraps, so s' keeps its actions
    assert [t.terminated for t in ts] == [False, False, False]
    assert ts[-1].next_candidates == tuple(LEGAL)
    won = episode_transitions(goal_episode(["", "reach A"], success=True))
    assert won[-1].terminated and won[-1].next_candidates == () and won[-1].reward == 1.0


def test_fifo_eviction_and_counts():
    buffer = ReplayBuffer(capacity=3, seed=0)
    for k in range(5):
        buffer.add(ReplayTransition(f"s{k}", None, ("a",), "a", float(k), "x", ()))
    assert len(buffer) == 3
    assert [buffer[i].reward for i in range(3)] == [2.0, 3.0, 4.0]
    assert buffer.added == 5


def test_sampling_is_uniform_and_seeded():
    def filled(seed: int) -> ReplayBuffer:
        buffer = ReplayBuffer(capacity=10, seed=seed)
        for k in range(4):
            buffer.add(ReplayTransition(f"s{k}", None, ("a",), "a", float(k), "x", ()))
        return buffer

    a, b, c = filled(7), filled(7), filled(8)
    draws = [t.reward for t in a.sample(4000)]
    assert draws[:50] == [t.reward for t in b.sample(50)]
    assert draws[:50] != [t.reward for t in c.sample(50)]
    counts = collections.Counter(draws)
    assert set(counts) == {0.0, 1.0, 2.0, 3.0}
    assert all(abs(n / 4000 - 0.25) < 0.03 for n in counts.values())


def test_state_dict_resumes_exactly():
    buffer = ReplayBuffer(capacity=5, seed=3, relabel="future", relabel_k=2, compute_reward=same)
    buffer.add_episode(goal_episode(["", "reach B", "reach C"]))
    buffer.sample(3)
    state = buffer.state_dict()
    other = ReplayBuffer(capacity=5, seed=99, relabel="future", relabel_k=2, compute_reward=same)
    other.load_state_dict(state)
    assert [other[i] for i in range(len(other))] == [buffer[i] for i in range(len(buffer))]
    assert other.added == buffer.added
    assert other.sample(20) == buffer.sample(20)
    ep = goal_episode(["reach D", ""])
    assert other.add_episode(ep) == buffer.add_episode(ep)
    assert [other[i] for i in range(len(other))] == [buffer[i] for i in range(len(buffer))]
    with pytest.raises(ValueError, match="capacity"):
        ReplayBuffer(capacity=6).load_state_dict(state)


def test_final_relabels_a_failed_episode_with_its_last_achieved_goal():
    buffer = ReplayBuffer(capacity=100, relabel="final", compute_reward=same)
    # s0 -> achieves B at step 1 -> nothing -> achieves C at step 3 -> nothing (truncated)
    assert buffer.add_episode(goal_episode(["", "reach B", "", "reach C", ""])) == 10
    copies = [buffer[i] for i in range(5, 10)]
    assert all(t.relabelled and t.goal == "reach C" for t in copies)
    assert copies[0].obs == "Mission: reach C. s0"  # the goal in the text is replaced too
    assert copies[-1].next_obs == "s5 (reach C)"
    assert [t.reward for t in copies] == [0.0, 0.0, 0.0, 1.0, 0.0]  # B is not C
    assert [t.terminated for t in copies] == [False, False, False, True, False]
    assert copies[3].done and copies[3].next_candidates == ()
    assert copies[2].next_candidates == tuple(LEGAL)
    # the originals are untouched
    assert [buffer[i].reward for i in range(5)] == [0.0] * 5
    assert all(buffer[i].goal == "reach A" and not buffer[i].relabelled for i in range(5))


def test_successes_and_goalless_episodes_are_not_relabelled():
    buffer = ReplayBuffer(capacity=100, relabel="final", compute_reward=same)
    assert buffer.add_episode(goal_episode(["reach B", "reach A"], success=True)) == 2
    assert buffer.add_episode(goal_episode(["", ""])) == 2  # achieved nothing: no copy
    plain = Episode("Demo", turns=[Turn(obs="s", action="a", truncated=True)], final_obs={})
    assert buffer.add_episode(plain) == 1


def test_future_draws_k_goals_from_the_step_on():
    buffer = ReplayBuffer(capacity=100, seed=0, relabel="future", relabel_k=3, compute_reward=same)
    ep = goal_episode(["reach B", "", "reach C", ""])
    # steps 0-2 have achieved goals at or after them (3 copies each); step 3 has none
    assert buffer.add_episode(ep) == 4 + 3 * 3
    copies = [buffer[i] for i in range(4, 13)]
    assert [t.obs.split(". ")[-1] for t in copies] == ["s0"] * 3 + ["s1"] * 3 + ["s2"] * 3
    assert {t.goal for t in copies[:3]} <= {"reach B", "reach C"}
    assert all(t.goal == "reach C" for t in copies[3:])  # B is behind steps 1 and 2
    for t in copies:
        want = 1.0 if t.achieved_goal == t.goal else 0.0
        assert t.reward == want and t.terminated == (want == 1.0)
    assert copies[6].reward == 1.0  # step 2 achieved C
    # with k=1 and many seeds both earlier-reachable goals turn up at step 0
    goals = set()
    for seed in range(20):
        b = ReplayBuffer(
            capacity=100, seed=seed, relabel="future", relabel_k=1, compute_reward=same
        )
        b.add_episode(ep)
        goals.add(b[4].goal)
    assert goals == {"reach B", "reach C"}


def test_relabel_ratio_relabels_that_share_of_failed_episodes():
    buffer = ReplayBuffer(
        capacity=10_000, seed=1, relabel="final", relabel_ratio=0.25, compute_reward=same
    )
    ep = goal_episode(["reach B", ""])
    added = sum(buffer.add_episode(ep) for _ in range(400))
    relabelled_eps = (added - 800) / 2
    assert 70 <= relabelled_eps <= 130
    none = ReplayBuffer(capacity=100, relabel="final", relabel_ratio=0.0, compute_reward=same)
    assert none.add_episode(ep) == 2


def test_relabel_keeps_original_failure_terminal():
    t = ReplayTransition(
        "s", "g", ("a",), "a", 0.0, "hole", (), achieved_goal="", done=True, terminated=True
    )
    (copy,) = relabel([t], "h", same)
    assert copy.terminated and copy.reward == 0.0 and copy.goal == "h"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"capacity": 0}, "capacity must be an int >= 1"),
        ({"capacity": 5, "relabel": "episode"}, "relabel must be one of none, final, future"),
        ({"capacity": 5, "relabel": "final"}, "needs compute_reward"),
        ({"capacity": 5, "relabel_k": 0}, "relabel_k must be"),
        ({"capacity": 5, "relabel_ratio": 1.5}, "relabel_ratio must be in"),
    ],
)
def test_bad_arguments_say_what_to_fix(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ReplayBuffer(**kwargs)
    with pytest.raises(ValueError, match="empty replay buffer"):
        ReplayBuffer(capacity=3).sample(1)
