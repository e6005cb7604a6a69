"""Tests of the textworld.<kind>-v0 adapter: conformance, walkthroughs, commands, the cache.

Games are made once per test session into the session's ``TURNGYM_CACHE`` (see
tests/conftest.py): the conformance checks play game 0 of each kind (``num_games=1``)
and the walkthrough test games 0 and 1, so six games are generated in all, plus one
cheap treasure hunt in a cache of its own.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

pytest.importorskip("textworld")

from turngym.agents.experts.textworld import TextWorldWalkthrough
from turngym.envs.adapters import textworld_games
from turngym.envs.adapters.textworld_env import KINDS, TextWorldEnv
from turngym.registry import select
from turngym.testing import check_text_env

IDS = [f"turngym/textworld.{kind}-v0" for kind in KINDS]


def test_registered_rows_and_light_registration() -> None:
    assert [e.id for e in select(families=["textworld"])] == IDS
    assert all(e.extra == "textworld" and e.finite_actions for e in select(IDS))
    code = (
        "import sys, gymnasium as gym, turngym\n"
        "gym.spec('turngym/textworld.cooking-v0')\n"
        "assert 'textworld' not in sys.modules, 'registration imported textworld'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("env_id", IDS)
def test_conformance(env_id: str) -> None:
    report = check_text_env(env_id, n_fuzz=1000, reset_episodes=5, make_kwargs={"num_games": 1})
    assert report.passed, report.table()


@pytest.mark.parametrize("kind", KINDS)
def test_the_walkthrough_wins_every_game(kind: str) -> None:
    env = gym.make(f"turngym/textworld.{kind}-v0")
    for game in (0, 1):
        obs, info = env.reset(options={"game_seed": game})
        walkthrough = env.unwrapped.walkthrough
        assert walkthrough and obs.startswith(info["instruction"])
        total = 0.0
        for command in walkthrough:
            assert command in info["legal_actions"]
            obs, reward, terminated, _truncated, info = env.step(command)
            total += reward
        assert terminated and info["success"], (kind, game, obs)
        assert total == info["max_score"] == info["score"] > 0


@pytest.mark.parametrize("track_policy", [False, True])
def test_the_expert_recovers_after_a_detour(track_policy: bool) -> None:
    """Looking around is no detour; a wrong turn needs TextWorld's tracked policy."""
    env = gym.make("turngym/textworld.coin_collector-v0", num_games=1, track_policy=track_policy)
    obs, info = env.reset(seed=0)
    expert, walkthrough = TextWorldWalkthrough(env), env.unwrapped.walkthrough
    for command in ["look", walkthrough[0], "inventory"]:
        obs, _, _, _, info = env.step(command)
    if track_policy:  # a wrong turn
        wrong = next(
            c for c in info["legal_actions"] if c.startswith("go ") and c != walkthrough[1]
        )
        obs, _, _, _, info = env.step(wrong)
        assert not info["invalid_action"]
    for _ in range(50):
        obs, _, terminated, truncated, info = env.step(expert.act(obs, info))
        if terminated or truncated:
            break
    assert info["success"] and not info["invalid_action"]


@pytest.mark.parametrize("command", ["undo", "restart", "xyzzy", "take all", "score"])
def test_commands_outside_the_admissible_ones_never_reach_the_game(command: str) -> None:
    env = gym.make("turngym/textworld.treasure_hunter-v0", num_games=1)
    obs, info = env.reset(seed=0)
    inner = env.unwrapped
    first = info["legal_actions"]
    obs, reward, terminated, _truncated, info = env.step(command)
    assert info["invalid_action"] and reward == 0.0 and not terminated
    assert "admissible commands" in obs and inner.played == [] and info["legal_actions"] == first
    # a legal command is matched leniently and played in its canonical form
    obs, _, _, _, info = env.step(f"  {inner.walkthrough[0].upper()} ")
    assert not info["invalid_action"] and inner.played == [inner.walkthrough[0]]


def test_observe_adds_the_room_and_the_inventory() -> None:
    env = gym.make("turngym/textworld.treasure_hunter-v0", num_games=1, observe=OBSERVED)
    obs, _ = env.reset(seed=0)
    assert "\n\nRoom:\n-= " in obs and "\n\nInventory:\nYou are carrying" in obs
    plain, _ = gym.make("turngym/textworld.treasure_hunter-v0", num_games=1).reset(seed=0)
    assert obs.startswith(plain) and "Inventory:" not in plain


OBSERVED = ("description", "inventory")


def _watch_generation(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    calls: list[list[str]] = []
    real = subprocess.run

    def run(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess:
        calls.append(command)
        return real(command, **kwargs)

    monkeypatch.setattr(textworld_games.subprocess, "run", run)
    return calls


def test_a_game_is_made_once_inside_the_cache_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache, tmp = tmp_path / "cache", tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TURNGYM_CACHE", str(cache))
    monkeypatch.setenv("TMPDIR", str(tmp))  # where TextWorld's compiler would write
    monkeypatch.setenv("TEXTWORLD_DEBUG", "1")  # TextWorld then keeps its temporary folders
    calls = _watch_generation(monkeypatch)
    env = TextWorldEnv("treasure_hunter", level=1)
    first, _ = env.reset(seed=3)
    again, _ = TextWorldEnv("treasure_hunter", level=1).reset(seed=3)
    assert first == again and len(calls) == 1  # the second reset made nothing
    assert list(tmp.iterdir()) == []
    [folder] = (cache / "textworld").iterdir()  # no temporary folder is left behind
    assert folder.name.startswith("treasure_hunter-") and folder.name.endswith(f"-{env.game_seed}")
    assert {p.name for p in folder.iterdir()} >= {"game.z8", "game.json"}


def test_two_makers_of_one_game_both_get_a_complete_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loser of the race keeps the winner's folder and throws its own away."""
    monkeypatch.setenv("TURNGYM_CACHE", str(tmp_path))
    settings = {"level": 1}
    final = tmp_path / "textworld" / textworld_games.game_key("coin_collector", settings, 9, "v")

    def racing(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess:
        out = Path(command[-1])
        for folder, text in ((final, "winner"), (out, "loser")):  # the other maker wins
            folder.mkdir(parents=True)
            (folder / "game.z8").write_text(text)
            (folder / "game.json").write_text(text)
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(textworld_games.subprocess, "run", racing)
    game = textworld_games.game_file("coin_collector", settings, 9, "v")
    assert game == final / "game.z8" and game.read_text() == "winner"
    assert [p.name for p in (tmp_path / "textworld").iterdir()] == [final.name]


def test_a_failed_generation_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TURNGYM_CACHE", str(tmp_path))

    def failing(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess:
        return subprocess.CompletedProcess(command, 1, "", "Traceback...\nValueError: nope")

    monkeypatch.setattr(textworld_games.subprocess, "run", failing)
    with pytest.raises(RuntimeError, match=r"could not make cooking game 4: (.|\n)*nope"):
        textworld_games.game_file("cooking", {"recipe": 1}, 4, "v")
    assert list((tmp_path / "textworld").iterdir()) == []


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"kind": "simple"}, "kind must be one of"),
        ({"kind": "treasure_hunter", "level": 31}, r"level must be an int in \[1, 30\]"),
        ({"kind": "coin_collector", "level": 250}, "more than 100 rooms"),
        ({"kind": "coin_collector", "recipe": 2}, "recipe is a cooking setting"),
        ({"kind": "cooking", "level": 2}, "level is for treasure_hunter"),
        ({"kind": "cooking", "recipe": 6}, r"recipe \(ingredients\) must be an int in \[1, 5\]"),
        ({"kind": "cooking", "recipe": 2, "take": 3}, r"take must be an int in \[0, recipe=2\]"),
        ({"kind": "cooking", "go": 7}, "go .rooms. must be 1, 6, 9 or 12"),
        ({"kind": "cooking", "cut": "yes"}, "cut must be True or False"),
        ({"kind": "cooking", "split": "dev"}, "split must be None"),
        ({"kind": "cooking", "num_games": 0}, "num_games must be None or an int >= 1"),
        ({"kind": "cooking", "observe": "inventory"}, "observe must be a sequence"),
        ({"kind": "cooking", "track_policy": 1}, "track_policy must be True or False"),
    ],
)
def test_bad_arguments(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        TextWorldEnv(**kwargs)


def test_a_bad_game_seed_option() -> None:
    env = TextWorldEnv("treasure_hunter", num_games=2)
    with pytest.raises(ValueError, match=r"options\['game_seed'\] must be an int in \[0, 2\)"):
        env.reset(options={"game_seed": 2})


def test_overhead_benchmark_pairs_play_the_steps_asked() -> None:
    import importlib.util

    path = Path(__file__).resolve().parents[3] / "benchmarks" / "overhead_textworld.py"
    spec = importlib.util.spec_from_file_location("overhead_textworld", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    pairs = module.pairs(quick=True)  # coin_collector's game 0, made for the conformance
    assert [name for name, _, _ in pairs] == [
        "textworld.coin_collector",
        "reasoning_gym.basic_arithmetic",
    ]
    for name, native, adapter in pairs:
        assert native(60, 1) == 60 and adapter(60, 1) == 60, name


def test_a_seed_makes_one_game_whatever_the_makers_hash_seed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """TextWorld's cooking generator iterates over sets of strings: the game it makes must
    not depend on the ``PYTHONHASHSEED`` of the process that happened to make it (a
    cleared cache or another machine would get another game file: its quests' failure
    events in another order)."""
    import json

    import textworld

    settings = TextWorldEnv("cooking").settings
    games = []
    for hash_seed in ("1", "2"):
        monkeypatch.setenv("TURNGYM_CACHE", str(tmp_path / hash_seed))  # an empty cache
        monkeypatch.setenv("PYTHONHASHSEED", hash_seed)
        game = textworld_games.game_file("cooking", settings, 0, textworld.__version__)
        games.append((json.loads((game.parent / "game.json").read_text()), game.read_bytes()))
    assert games[0][0] == games[1][0]  # the recipe, the quests, the world
    assert games[0][1] == games[1][1]  # the compiled game
