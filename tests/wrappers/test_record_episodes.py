"""RecordEpisodes: one JSON line per finished episode, reloadable with load_transcripts."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest

import turngym  # noqa: F401
from turngym.agents import make_expert
from turngym.testing import check_text_env
from turngym.wrappers.record_episodes import RecordEpisodes, json_safe, load_transcripts

ENV_IDS = [
    "turngym/FrozenLake-v0",
    "turngym/Wordle-v0",
    "turngym/Sokoban-v0",
    "turngym/Countdown-v0",
    "turngym/Taxi-v0",
    "turngym/TicTacToe-v0",
    "turngym/SearchQA-v0",
]


def play(env: gym.Env, seed: int, rng: np.random.Generator, limit: int = 300) -> list[tuple]:
    _, info = env.reset(seed=seed)
    steps = []
    for _ in range(limit):
        legal = info.get("legal_actions")
        action = legal[int(rng.integers(len(legal)))] if legal else "answer[x]"
        out = env.step(action)
        steps.append((action, *out))
        if out[2] or out[3]:
            break
    return steps


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_each_finished_episode_is_one_line_that_reloads(env_id, tmp_path):
    path = tmp_path / "runs" / "episodes.jsonl"
    env = RecordEpisodes(gym.make(env_id), path)
    played = [play(env, seed, np.random.default_rng(seed)) for seed in range(3)]
    env.close()
    transcripts = load_transcripts(path)
    assert len(transcripts) == 3 == len(path.read_text().splitlines())
    for seed, (t, steps) in enumerate(zip(transcripts, played, strict=True)):
        assert t["env_id"] == env_id and t["seed"] == seed and t["length"] == len(steps)
        assert t["observation"] == gym.make(env_id).reset(seed=seed)[0]
        for rec, (action, obs, reward, term, trunc, info) in zip(t["steps"], steps, strict=True):
            assert rec["action"] == action and rec["observation"] == obs
            assert rec["reward"] == reward and rec["terminated"] == term
            assert rec["truncated"] == trunc and rec["info"] == json_safe(info)
        assert t["return"] == pytest.approx(sum(s[2] for s in steps))
        assert t["steps"][-1]["terminated"] or t["steps"][-1]["truncated"]


def test_line_is_flushed_at_episode_end_and_survives_a_crash(tmp_path):
    path = tmp_path / "e.jsonl"
    env = RecordEpisodes(gym.make("turngym/FrozenLake-v0"), path)
    play(env, 0, np.random.default_rng(0))
    # Read by another reader before close(): the finished episode is on disk.
    assert len(load_transcripts(path)) == 1
    env.reset(seed=1)
    env.step("up")  # mid-episode: nothing written yet
    assert len(path.read_text().splitlines()) == 1
    # A torn last line (a writer killed mid-write) is skipped; earlier lines stay.
    with path.open("a") as f:
        f.write('{"env_id": "turngym/Froz')
    assert [t["seed"] for t in load_transcripts(path)] == [0]


def test_unfinished_episodes_are_dropped_and_append_mode_keeps_old_lines(tmp_path):
    path = tmp_path / "e.jsonl"
    env = RecordEpisodes(gym.make("turngym/Bandit-v0"), path)
    env.reset(seed=0)  # abandoned: never stepped
    env.reset(seed=1)
    env.step("nonsense")  # abandoned after an invalid step
    play(env, 2, np.random.default_rng(0))
    env.close()
    env = RecordEpisodes(gym.make("turngym/Bandit-v0"), path)  # mode="a"
    play(env, 3, np.random.default_rng(0))
    env.close()
    assert [t["seed"] for t in load_transcripts(path)] == [2, 3]
    env = RecordEpisodes(gym.make("turngym/Bandit-v0"), path, mode="w", fsync=True)
    play(env, 4, np.random.default_rng(0))
    env.close()
    assert [t["seed"] for t in load_transcripts(path)] == [4]


def test_a_corrupt_middle_line_is_reported(tmp_path):
    path = tmp_path / "e.jsonl"
    path.write_text('{"seed": 0}\nnot json\n{"seed": 1}\n')
    with pytest.raises(ValueError, match=r"e.jsonl:2"):
        load_transcripts(path)


def test_json_safe_values():
    value = {
        "arr": np.zeros((2, 2), dtype=np.uint8),
        "f": np.float64(1.5),
        "b": np.bool_(True),
        3: {"nested": (1, 2)},
        "s": {"b", "a"},
        "obj": object,
        "nan": float("nan"),
    }
    safe = json_safe(value)
    text = json.dumps(safe)
    back = json.loads(text)
    assert back["arr"] == [[0, 0], [0, 0]] and back["f"] == 1.5 and back["b"] is True
    assert back["3"] == {"nested": [1, 2]} and back["s"] == ["a", "b"]
    assert back["obj"] == "<class 'object'>" and np.isnan(back["nan"])


def test_options_and_seedless_resets_are_recorded(tmp_path):
    path = tmp_path / "e.jsonl"
    env = RecordEpisodes(gym.make("turngym/FrozenLake-v0"), path)
    env.reset()
    for move in ["up"] * 100:
        *_, term, trunc, _ = env.step(move)
        if term or trunc:
            break
    env.close()
    (t,) = load_transcripts(path)
    assert t["seed"] is None and t["options"] is None and t["steps"][-1]["truncated"]


def test_bad_mode_raises_value_error(tmp_path):
    with pytest.raises(ValueError, match="mode"):
        RecordEpisodes(gym.make("turngym/Bandit-v0"), tmp_path / "e.jsonl", mode="r")


@pytest.mark.parametrize("env_id", ["turngym/FrozenLake-v0", "turngym/Countdown-v0"])
def test_conformance_with_the_wrapper(env_id, tmp_path):
    def make(**kwargs):
        return RecordEpisodes(gym.make(env_id, **kwargs), tmp_path / "c.jsonl")

    check_text_env(make, n_fuzz=1000, reset_episodes=10, expert=lambda e: make_expert(e, env_id))
    assert load_transcripts(tmp_path / "c.jsonl")


def test_odd_unicode_actions_round_trip_exactly(tmp_path):
    path = tmp_path / "e.jsonl"
    env = RecordEpisodes(gym.make("turngym/Bandit-v0", max_invalid_actions=1), path)
    env.reset(seed=0)
    action = "\udfd8 \x00 😆 二"  # a lone surrogate, NUL, emoji, CJK
    *_, truncated, _ = env.step(action)
    env.close()
    assert truncated and load_transcripts(path)[0]["steps"][0]["action"] == action
