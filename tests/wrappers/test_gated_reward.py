"""GatedReward: dense rewards are paid at the end, and only past the outcome gate."""

from __future__ import annotations

import math
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import turngym  # noqa: F401
from turngym.agents import make_expert
from turngym.core import Invalid, Outcome, TextEnv, match_action
from turngym.testing import check_text_env
from turngym.wrappers.gated_reward import GatedReward, RewardGate

ENV_IDS = [
    "turngym/Wordle-v0",
    "turngym/Sokoban-v0",
    "turngym/ToolUse-v0",
    "turngym/FrozenLake-v0",
    "turngym/Taxi-v0",
    "turngym/CliffWalking-v0",
    "turngym/Countdown-v0",
    "turngym/Bandit-v0",
    "turngym/TicTacToe-v0",
]


class Climb(TextEnv[str]):
    """Toy env with named reward parts: each ``climb`` pays 1.0 of progress; ``stop`` ends.

    The summit is reached after ``height`` climbs (outcome 1.0); stopping early fails.
    """

    max_turns = 20

    def __init__(self, height: int = 3, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.height = height

    def _reset(self, options: dict[str, Any]) -> str:
        self.level = 0
        return f"Climb {self.height} times to the summit, or stop."

    def _parse(self, action: str) -> str | Invalid:
        move = match_action(action, {"climb": "climb", "stop": "stop"})
        return Invalid("say climb or stop") if move is None else move

    def _apply(self, action: str) -> Outcome:
        if action == "stop":
            parts = {"progress": 0.0, "outcome": 0.0}
            return Outcome("You stopped.", 0.0, terminated=True, info={"reward_parts": parts})
        self.level += 1
        won = self.level >= self.height
        parts = {"progress": 1.0, "outcome": 1.0 if won else 0.0}
        return Outcome(
            f"Level {self.level}.",
            sum(parts.values()),
            terminated=won,
            success=won,
            info={"reward_parts": parts},
        )

    def _legal_actions(self) -> list[str]:
        return ["climb", "stop"]

    def _render(self) -> str:
        return f"level {self.level}/{self.height}"


def run(env: gym.Env, seed: int, actions: list[str]) -> tuple[list[float], list[dict]]:
    env.reset(seed=seed)
    rewards, infos = [], []
    for a in actions:
        _, r, term, trunc, info = env.step(a)
        rewards.append(r)
        infos.append(info)
        if term or trunc:
            break
    return rewards, infos


# -- the gate -------------------------------------------------------------------------


def test_failed_outcome_earns_only_the_outcome_reward():
    plain = sum(run(Climb(height=5), 0, ["climb"] * 4 + ["stop"])[0])
    rewards, infos = run(GatedReward(Climb(height=5), gate=1.0), 0, ["climb"] * 4 + ["stop"])
    assert plain == 4.0  # high step rewards without the wrapper...
    assert rewards == [0.0] * 5  # ...but a failed outcome pays only the outcome (0)
    assert infos[-1]["gated"] is True
    assert infos[-1]["dense_accumulated"] == 4.0
    assert infos[-1]["outcome_accumulated"] == 0.0
    assert [i["dense_accumulated"] for i in infos] == [1.0, 2.0, 3.0, 4.0, 4.0]
    assert infos[0]["reward_parts"] == {"progress": 1.0, "outcome": 0.0}


def test_successful_outcome_earns_outcome_plus_dense():
    rewards, infos = run(GatedReward(Climb(height=3), gate=1.0), 0, ["climb"] * 3)
    assert rewards == [0.0, 0.0, 4.0]  # outcome 1 + progress 3, paid at the end
    assert infos[-1]["gated"] is False
    assert infos[-1]["success"] is True
    assert sum(rewards) == sum(run(Climb(height=3), 0, ["climb"] * 3)[0])


def test_gate_threshold_is_inclusive_and_can_block_a_success():
    assert sum(run(GatedReward(Climb(), gate=1.0), 0, ["climb"] * 3)[0]) == 4.0
    assert sum(run(GatedReward(Climb(), gate=1.5), 0, ["climb"] * 3)[0]) == 1.0


def test_truncation_also_closes_the_gate():
    # Invalid actions until max_invalid_actions truncates: the outcome was never reached.
    env = GatedReward(Climb(height=5, max_invalid_actions=2), gate=1.0)
    rewards, infos = run(env, 0, ["climb", "climb", "jump", "jump"])
    assert rewards == [0.0] * 4 and infos[-1]["gated"] is True
    assert infos[-1]["dense_accumulated"] == 2.0


def test_steps_after_the_end_pass_through_and_reset_is_clean():
    env = GatedReward(Climb(height=1), gate=1.0)
    env.reset(seed=0)
    assert env.step("climb")[1] == 2.0
    _, r, term, _, info = env.step("climb")  # TextEnv: "episode is over", reward 0
    assert r == 0.0 and term and info["dense_accumulated"] == 1.0
    env.reset(seed=1)
    _, r, _, _, info = env.step("stop")
    assert r == 0.0 and info["dense_accumulated"] == 0.0 and info["gated"] is True


def test_wordle_shaping_is_withheld_from_a_failed_game():
    env_id, kwargs = "turngym/Wordle-v0", {"shaping": 0.5, "max_guesses": 3}
    plain = gym.make(env_id, **kwargs)
    wrapped = GatedReward(gym.make(env_id, **kwargs), gate=1.0)
    _, info = plain.reset(seed=3)
    answer = plain.unwrapped.answer
    # Guesses that share letters in place with the answer earn shaping, but never solve it.
    words = [w for w in info["legal_actions"] if w != answer]
    close = sorted(words, key=lambda w: -sum(a == b for a, b in zip(w, answer, strict=True)))[:3]
    shaped, _ = run(plain, 3, close)
    gated, infos = run(wrapped, 3, close)
    assert sum(shaped) > 0 and infos[-1]["success"] is False
    assert gated == [0.0, 0.0, 0.0] and infos[-1]["gated"] is True
    # Solving pays the outcome and the shaping.
    shaped, _ = run(plain, 3, [*close[:2], answer])
    gated, infos = run(wrapped, 3, [*close[:2], answer])
    assert math.isclose(sum(gated), sum(shaped)) and sum(gated) > 1.0
    assert infos[-1]["gated"] is False


def test_sokoban_expert_keeps_its_return_random_play_keeps_nothing():
    plain, wrapped = gym.make("turngym/Sokoban-v0"), GatedReward(gym.make("turngym/Sokoban-v0"))
    expert = make_expert(plain, "turngym/Sokoban-v0")
    obs, info = plain.reset(seed=0)
    actions = []
    done = False
    while not done:
        actions.append(expert.act(obs, info))
        obs, _, term, trunc, info = plain.step(actions[-1])
        done = term or trunc
    assert info["success"]
    shaped, _ = run(gym.make("turngym/Sokoban-v0"), 0, actions)
    gated, infos = run(wrapped, 0, actions)
    assert math.isclose(sum(gated), sum(shaped)) and infos[-1]["gated"] is False
    # Walking into walls for the whole TimeLimit: step penalties are dense, so withheld.
    gated, infos = run(wrapped, 0, ["up", "down"] * 100)
    assert infos[-1]["success"] is False and sum(gated) == 0.0
    assert infos[-1]["dense_accumulated"] < 0


def test_envs_without_reward_parts_treat_the_last_reward_as_outcome():
    # Taxi: -1 per move, +20 for the drop-off; no reward_parts.
    env = GatedReward(gym.make("turngym/Taxi-v0"), gate=20.0)
    expert = make_expert(env, "turngym/Taxi-v0")
    obs, info = env.reset(seed=0)
    total, done = 0.0, False
    while not done:
        obs, r, term, trunc, info = env.step(expert.act(obs, info))
        total += r
        done = term or trunc
    assert info["outcome_accumulated"] == 20.0 and info["gated"] is False
    assert total == 20.0 + info["dense_accumulated"]


def test_outcome_callable():
    def half(reward, terminated, truncated, info):
        return reward / 2

    rewards, infos = run(GatedReward(Climb(), gate=100.0, outcome=half), 0, ["climb"] * 3)
    assert rewards == [0.5, 0.5, 1.0] and infos[-1]["gated"] is True


@pytest.mark.parametrize(
    "kwargs",
    [{"gate": "high"}, {"gate": float("nan")}, {"outcome": []}, {"outcome": 3}, {"gate": True}],
)
def test_bad_arguments_say_what_to_change(kwargs):
    with pytest.raises(ValueError, match=r"gate|outcome"):
        GatedReward(Climb(), **kwargs)


def test_core_is_usable_alone():
    gate = RewardGate(gate=1.0, outcome="outcome")
    gate.reset()
    assert gate.split(3.0, False, False, {"reward_parts": {"outcome": 1.0, "x": 2.0}}) == (1.0, 2.0)
    assert gate.split(3.0, True, False, {}) == (3.0, 0.0)
    assert gate.split(3.0, False, False, {}) == (0.0, 3.0)


# -- across registered envs -----------------------------------------------------------


def _mixed_actions(rng: np.random.Generator, info: dict) -> str:
    legal = info.get("legal_actions")
    if legal and rng.random() < 0.9:
        return str(legal[int(rng.integers(len(legal)))])
    return str(rng.choice(["1 + 2", "answer[x]", "fly", "", "up"]))


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_open_gate_preserves_returns_and_closed_gate_pays_outcome_only(env_id):
    for seed in range(4):
        plain = gym.make(env_id)
        opened = GatedReward(gym.make(env_id), gate=-math.inf)
        closed = GatedReward(gym.make(env_id), gate=math.inf)
        rng = np.random.default_rng(seed)
        _, info = plain.reset(seed=seed)
        opened.reset(seed=seed)
        closed.reset(seed=seed)
        totals = [0.0, 0.0, 0.0]
        for _ in range(300):
            action = _mixed_actions(rng, info)
            outs = [e.step(action) for e in (plain, opened, closed)]
            for k, out in enumerate(outs):
                totals[k] += out[1]
            assert outs[0][0] == outs[1][0] == outs[2][0]  # observations untouched
            assert outs[0][2:4] == outs[1][2:4] == outs[2][2:4]
            info = outs[0][4]
            if outs[0][2] or outs[0][3]:
                break
        assert outs[1][4]["gated"] is False and outs[2][4]["gated"] is True
        assert math.isclose(totals[1], totals[0], abs_tol=1e-9)
        assert math.isclose(totals[2], outs[2][4]["outcome_accumulated"], abs_tol=1e-9)
        assert math.isclose(
            outs[2][4]["outcome_accumulated"] + outs[2][4]["dense_accumulated"],
            totals[0],
            abs_tol=1e-9,
        )


@pytest.mark.parametrize(
    "env_id", ["turngym/Wordle-v0", "turngym/Sokoban-v0", "turngym/FrozenLake-v0"]
)
def test_conformance_with_the_wrapper(env_id):
    def make(**kwargs):
        return GatedReward(gym.make(env_id, **kwargs), gate=1.0)

    check_text_env(make, n_fuzz=1000, reset_episodes=10, expert=lambda e: make_expert(e, env_id))


def test_conformance_on_a_toy_env():
    check_text_env(lambda **kw: GatedReward(Climb(**kw)), n_fuzz=1000, reset_episodes=10)
