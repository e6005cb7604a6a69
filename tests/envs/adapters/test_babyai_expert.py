"""The BabyAI expert on the levels minigrid's bot cannot solve (turngym's own planners)."""

from __future__ import annotations

import gymnasium as gym
import pytest

pytest.importorskip("minigrid", reason="the BabyAI adapter needs the babyai extra (minigrid)")

import turngym  # noqa: F401
from turngym.agents.experts.babyai_bot import BabyAIBotExpert
from turngym.registry import entry

PLANNED = ["PutNextS5N2Carrying", "PutNextS6N3Carrying", "PutNextS7N4Carrying", "KeyInBox"]


def play(level: str, seed: int, **kwargs: bool) -> tuple[bool, BabyAIBotExpert, list[str]]:
    """(success, the expert, its actions) of one episode of ``level`` with the expert."""
    env = gym.make(f"turngym/babyai.{level}-v0")
    expert = BabyAIBotExpert(env, **kwargs)
    obs, info = env.reset(seed=seed)
    actions: list[str] = []
    done = False
    while not done:
        actions.append(expert.act(obs, info))
        obs, _, terminated, truncated, info = env.step(actions[-1])
        assert not info["invalid_action"]
        done = terminated or truncated
    return bool(info["success"]), expert, actions


@pytest.mark.parametrize("level", PLANNED)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_planner_solves_levels_the_bot_cannot(level, seed):
    # minigrid's bot raises on every seed of these levels
    won, expert, _ = play(level, seed)
    assert won and expert.planner and not expert.gave_up


@pytest.mark.parametrize("seed", [4, 7, 18])
def test_unlock_to_unlock_where_the_bot_loops(seed):
    # seeds 4 and 7: minigrid's bot replans forever; 18: the red key lies in the only
    # cell that faces the red door, so the door is out of reach until the key is taken
    assert not play("UnlockToUnlock", seed, planner=False)[0]
    won, expert, _ = play("UnlockToUnlock", seed)
    assert won and not expert.gave_up


def test_the_planned_levels_register_the_expert():
    for level in [*PLANNED, "UnlockToUnlock"]:
        assert entry(f"babyai.{level}-v0").expert == (
            "turngym.agents.experts.babyai_bot:BabyAIBotExpert"
        )


def test_a_planner_with_no_way_on_gives_up_with_done():
    # PutNextS7N4Carrying seed 87: every cell beside the yellow key is taken
    won, expert, actions = play("PutNextS7N4Carrying", 87)
    assert not won and expert.gave_up and set(actions) == {"done"}


def test_planner_must_be_a_bool():
    env = gym.make("turngym/babyai.KeyInBox-v0")
    with pytest.raises(ValueError, match="planner must be True or False"):
        BabyAIBotExpert(env, planner="yes")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("level", "seed"), [("OpenDoorsOrderN2Debug", 1), ("OpenDoorsOrderN4Debug", 0)]
)
def test_right_play_loses_a_two_door_debug_mission(level, seed):
    # Why these levels are left out (LEFT_OUT in babyai_levels.py), on minigrid's own env:
    # its strict After/BeforeInstr also checks the toggle that opens the first named door
    # against the second door's OpenInstr, which sees a wrong door and fails the episode.
    # If minigrid fixes this, this test fails: then the levels can be registered again
    # (with a planner, or the bot if it does as well as on the others: benchmarks/babyai_bot.py).
    import minigrid  # noqa: F401  (registers the BabyAI ids)

    from turngym.agents.experts.babyai_planner import TOGGLE, _cells, _face_then

    native = gym.make(f"BabyAI-{level}-v0", disable_env_checker=True).unwrapped
    native.reset(seed=seed)
    instrs = native.instrs
    assert type(instrs).__name__ in ("AfterInstr", "BeforeInstr")
    first = instrs.instr_b if type(instrs).__name__ == "AfterInstr" else instrs.instr_a
    door = first.desc.obj_set[0]
    action = -1
    for _ in range(native.max_steps):
        action = _face_then(native, _cells(native, lambda obj: obj is door), TOGGLE)
        assert action is not None, "the first named door is out of reach"
        _, reward, terminated, truncated, _ = native.step(action)
        if action == TOGGLE or terminated or truncated:
            break
    assert action == TOGGLE and door.is_open and terminated and reward == 0
