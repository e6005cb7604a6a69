"""InternalState (MEM1): state extraction, a constant-size context, and wrapped envs."""

from __future__ import annotations

import pytest

import turngym
from tests.toy_envs import LongWalk
from turngym.agents import make_expert
from turngym.testing import check_text_env
from turngym.wrappers.internal_state import InternalState

ENVS = [
    "turngym/FrozenLake-v0",
    "turngym/Wordle-v0",
    "turngym/Sokoban-v0",
    "turngym/Maze-v0",
    "turngym/Countdown-v0",
    "turngym/TextNav-v0",
]


@pytest.mark.parametrize("env_id", ENVS)
def test_expert_with_a_state_plays_as_without(env_id):
    plain, wrapped = turngym.make(env_id), InternalState(turngym.make(env_id))
    expert = make_expert(plain, env_id)
    for seed in range(2):
        expert.reset(seed=seed)
        obs_p, info_p = plain.reset(seed=seed)
        obs_w, _ = wrapped.reset(seed=seed)
        assert obs_w.startswith(obs_p) and "<state>" in obs_w
        done, turn = False, 0
        while not done:
            action = expert.act(obs_p, info_p)
            obs_p, r_p, term, trunc, info_p = plain.step(action)
            note = f"turn {turn}: played {action}"
            obs_w, r_w, term_w, trunc_w, info_w = wrapped.step(f"<state>{note}</state>\n{action}")
            assert (r_w, term_w, trunc_w) == (r_p, term, trunc)
            assert obs_w.endswith(obs_p) and f"<state>{note}</state>" in obs_w
            assert obs_w.count("<state>turn ") == 1 and info_w["segment"] == turn + 1
            assert f"Your latest action: {action}\n\n" in obs_w
            assert info_w["context_event"] == "evict" and not info_w["state_missing"]
            done = term or trunc
            turn += 1
        assert info_w.get("success") == info_p.get("success")


def test_context_is_task_state_latest_action_and_observation_as_in_mem1():
    plain = turngym.make("turngym/FrozenLake-v0")
    env = InternalState(turngym.make("turngym/FrozenLake-v0"))
    task, _ = plain.reset(seed=0)
    first, _ = env.reset(seed=0)
    assert first == f"{task}\n\n{env.instruction}"
    for note, action in [("NOTE-ONE", "right"), ("NOTE-TWO", "down")]:
        seen, *_ = plain.step(action)
        obs, *_ = env.step(f"<state>{note}</state>\n{action}")
        # MEM1 keeps the task (with how to write the state), the latest internal state,
        # the latest action and the latest observation; nothing older.
        assert obs == (
            f"{task}\n\n{env.instruction}\n\n<state>{note}</state>\n\n"
            f"Your latest action: {action}\n\n{seen}"
        )
    assert "NOTE-ONE" not in obs and "Your latest action: right" not in obs


@pytest.mark.parametrize("env_id", ENVS[:5])
def test_conformance_with_the_wrapper(env_id):
    check_text_env(
        lambda: InternalState(turngym.make(env_id)),
        n_fuzz=1000,
        reset_episodes=5,
        expert=lambda env: make_expert(env, env_id),
    )


@pytest.mark.parametrize(
    ("action", "env_action", "state"),
    [
        ("<state>a</state> down", "down", "a"),
        ("down <state>a</state>", "down", "a"),
        ("<STATE>one</STATE><state> two </state>\n down ", "down", "two"),
        ("<state>multi\nline</state>left", "left", "multi\nline"),
        ("left <state>cut off by max tokens", "left", "cut off by max tokens"),
        ("left", "left", None),
    ],
)
def test_state_and_action_are_split(action, env_action, state):
    env = InternalState(turngym.make("turngym/FrozenLake-v0"))
    assert env._split(action) == (env_action, state)


def test_missing_state_keeps_the_last_one_and_long_states_are_cut():
    env = InternalState(turngym.make("turngym/FrozenLake-v0"), max_state_chars=10)
    env.reset(seed=0)
    obs, *_, info = env.step("<state>0123456789abc</state> right")
    assert info["state_truncated"] and "<state>0123456789</state>" in obs
    obs, *_, info = env.step("down")
    assert info["state_missing"] and "<state>0123456789</state>" in obs
    obs, _ = env.reset(seed=0)
    assert env.state == "" and "0123456789" not in obs


def test_a_200_turn_episode_keeps_a_constant_size_context():
    # a real tokenizer: the tiny model's (turngym.sdk.models imports transformers lazily)
    pytest.importorskip("transformers", reason="the tokenizer needs the llm extra")
    from transformers import AutoTokenizer

    from turngym.sdk.models import build_tiny_model as tokenizer

    def count(text: str) -> int:
        return len(tok.encode(text))

    import tempfile

    tok = AutoTokenizer.from_pretrained(tokenizer(tempfile.mkdtemp()))
    env = InternalState(LongWalk(), max_state_chars=400)
    obs, _ = env.reset(seed=0)
    sizes, heads = [count(obs)], []
    for turn in range(200):
        obs, _, terminated, truncated, _ = env.step(f"<state>{'notes ' * turn}</state> right")
        assert not (terminated or truncated)
        sizes.append(count(obs))
        heads.append(count(obs.split("Your latest action")[0]))  # the context before the action
    # The task and instruction, a state cut to 400 characters, the action and the
    # longest observation LongWalk makes.
    state = "<state>" + ("notes " * 67)[:400] + "</state>"
    longest_obs = "Step 200: you are at 200. You see " + " ".join(["tiles"] * 59) + "."
    action = "Your latest action: right"
    parts = [env._task, env.instruction, state, action, longest_obs]
    bound = sum(count(part) for part in parts) + 12  # + separators
    assert max(sizes) <= bound, (max(sizes), bound)
    assert len(set(heads[70:])) == 1  # once the state is at its cap, no growth at all


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"tag": "<state>"}, "tag must be a word"),
        ({"max_state_chars": 0}, "max_state_chars must be an int >= 1"),
        ({"instruction": 3}, "instruction must be a string or None"),
    ],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        InternalState(turngym.make("turngym/FrozenLake-v0"), **kwargs)


@pytest.mark.filterwarnings("ignore:.*(NumPy array|all zeros).*:UserWarning")  # api_test
@pytest.mark.parametrize("game_id", ["turngym/TicTacToe-v0", "turngym/KuhnPoker-v0"])
def test_games_keep_a_state_per_player(game_id):
    from pettingzoo.test import api_test

    from turngym.wrappers.internal_state import InternalStateGame

    api_test(InternalStateGame(turngym.make_game(game_id)), num_cycles=10)
    game = InternalStateGame(turngym.make_game(game_id))
    game.reset(seed=0)
    moves = dict.fromkeys(game.possible_agents, 0)
    last, tasks = {}, {}
    for agent in game.agent_iter(40):
        obs, _, terminated, truncated, info = game.last()
        if moves[agent]:
            assert f"<state>{agent} moved {moves[agent]} times</state>" in obs["text"]
            assert f"Your latest action: {last[agent]}\n\n" in obs["text"]
            assert obs["text"].startswith(f"{tasks[agent]}\n\n{game._core.instruction}\n\n")
        else:
            tasks[agent] = game.unwrapped.observe(agent)["text"]
        assert game.unwrapped.observe(agent)["text"] in obs["text"]
        if terminated or truncated:
            game.step(None)
            continue
        moves[agent] += 1
        last[agent] = legal = info["legal_actions"][0]
        game.step(f"<state>{agent} moved {moves[agent]} times</state> {legal}")
        assert not game.infos.get(agent, {}).get("invalid_action")
    assert sum(moves.values()) >= 2
