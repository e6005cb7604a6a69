"""NetHack (NLE) and MiniHack as turngym text envs: registration, text, seeds, resources."""

from __future__ import annotations

import importlib.util
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import turngym  # noqa: F401  (registers the ids)
from tests.sampling import sample_ids
from turngym.envs.adapters.nethack_tasks import MINIHACK_LEFT_OUT, MINIHACK_TASKS, minihack_task
from turngym.registry import select
from turngym.testing import check_text_env

pytest.importorskip("nle", reason="needs turngym[nethack] (nle)")
if sys.platform != "linux":  # pragma: no cover - NLE builds for Linux and macOS only
    pytest.skip("the resource checks read /proc", allow_module_level=True)

MINIHACK_IDS = [f"turngym/minihack.{minihack_task(t)}-v0" for t in MINIHACK_TASKS]


def _minihack() -> None:
    # not importorskip: importing minihack by hand fails without pkg_resources
    if importlib.util.find_spec("minihack") is None:
        pytest.skip("needs turngym[nethack] (minihack)")


def _play(env_id: str, seed: int, actions: list[str]) -> list[str]:
    env = gym.make(env_id)
    try:
        obs, _ = env.reset(seed=seed)
        seen = [obs]
        for action in actions:
            obs, reward, terminated, truncated, _ = env.step(action)
            seen.append(f"{obs}|{reward}|{terminated}|{truncated}")
            if terminated or truncated:
                break
    finally:
        env.close()
    return seen


def test_every_row_is_in_the_nethack_suite() -> None:
    rows = select(families=["nethack"])
    assert [r.id for r in rows] == ["turngym/nethack-v0", *MINIHACK_IDS]
    assert all(r.extra == "nethack" and r.finite_actions for r in rows)


def test_the_static_task_list_is_what_minihack_registers() -> None:
    _minihack()
    from turngym.envs.adapters.nethack import _import_minihack

    _import_minihack()
    registered = {k.removeprefix("MiniHack-") for k in gym.registry if k.startswith("MiniHack-")}
    left_out = {t for t in registered if t.startswith(tuple(MINIHACK_LEFT_OUT))}
    assert set(MINIHACK_TASKS) == registered - left_out
    assert left_out, "the left-out groups no longer match any MiniHack id"


def test_every_minihack_id_resets_and_steps() -> None:
    _minihack()
    failed = []
    for env_id in MINIHACK_IDS:
        env = gym.make(env_id)
        try:
            _, info = env.reset(seed=1)
            legal = info["legal_actions"]
            for k in range(3):
                *_, terminated, truncated, info = env.step(legal[k % len(legal)])
                if info["invalid_action"] or terminated or truncated:
                    break
        except Exception as error:  # collect them all, then fail once
            failed.append(f"{env_id}: {error!r}")
        finally:
            env.close()
    assert not failed, failed


# WoD-Medium-Restricted always: its monster kills the hero within a few random moves, and
# NetHack then lists the top-ten scores, where a reused env once showed its past games.
_ALWAYS = ["turngym/minihack.WoD-Medium-Restricted-v0"]


@pytest.mark.parametrize(
    "env_id", ["turngym/nethack-v0", *sample_ids(MINIHACK_IDS, 3, always=_ALWAYS)]
)
def test_conformance(env_id: str) -> None:
    if env_id != "turngym/nethack-v0":
        _minihack()
    check_text_env(env_id, reset_episodes=8)


def test_nethack_observation_and_action_names() -> None:
    from nle import nethack

    env = gym.make("turngym/nethack-v0", render_mode="ansi")
    try:
        obs, info = env.reset(seed=3)
        assert len(info["legal_actions"]) == len(nethack.ACTIONS) == 121
        assert {"north", "far east", "search", "pickup", "esc", "more"} <= set(
            info["legal_actions"]
        )
        for part in ("Message: ", "\nMap:\n", "\nStatus:\n", "\nInventory:\n", "Dlvl:1"):
            assert part in obs
        assert "@" in obs.split("\nMap:\n", 1)[1]
        obs, reward, *_, info = env.step("Fly Up")
        assert info["invalid_action"] and "legal_actions" in obs and reward == 0.0
        obs, *_, info = env.step(" SEARCH ")
        assert not info["invalid_action"] and obs == env.render()
        # the Challenge's reward: a look at the inventory (no game time) costs nothing
        obs, reward, *_ = env.step("inventory")
        assert reward == 0.0 and "Weapons" in obs
    finally:
        env.close()


def _message_and_hint(obs: str) -> tuple[str, str]:
    lines = obs.split("\n")
    at = next(k for k, line in enumerate(lines) if line.startswith("Message: "))
    hint = lines[at + 1] if lines[at + 1].startswith("Prompt keys") else ""
    return lines[at], hint


def test_a_prompt_says_which_action_answers_each_of_its_keys() -> None:
    """Real prompts of a real game: each key in the brackets is named by its action."""
    env = gym.make("turngym/nethack-v0", character="wiz-hum-neu-mal")
    try:
        obs, _ = env.reset(seed=0)
        assert _message_and_hint(obs)[1] == ""  # no prompt, no hint
        obs, *_ = env.step("zap")
        message, hint = _message_and_hint(obs)
        assert message == "Message: What do you want to zap? [c or ?*]"
        assert hint == "Prompt keys as actions: c = close, * = seeall; ? has none; esc cancels."
        obs, *_, info = env.step("close")  # the wand, item c
        assert not info["invalid_action"]
        assert "zap" not in _message_and_hint(obs)[0] and "Never mind" not in obs
        env.step("esc")
        env.step("esc")
        obs, *_ = env.step("drop")
        message, hint = _message_and_hint(obs)
        assert message == "Message: What do you want to drop? [a-m or ?*]"
        assert hint.startswith("Prompt keys as actions: a = apply, b = southwest, c = close,")
        assert "m = move, * = seeall;" in hint
        env.step("esc")
        obs, *_ = env.step("pray")
        message, hint = _message_and_hint(obs)
        assert message == "Message: Are you sure you want to pray? [yn] (n)"
        assert hint == "Prompt keys as actions: y = northwest, n = southeast; esc cancels."
        obs, *_ = env.step("southeast")  # n: no prayer
        # the message line still shows the answered prompt: NetHack waits no more, no hint
        assert _message_and_hint(obs) == (message, "")
        obs, *_ = env.step("pray")
        obs, *_ = env.step("northwest")  # y
        message, hint = _message_and_hint(obs)
        assert message.startswith("Message: You begin praying") and message.endswith("--More--")
        assert hint == "Prompt keys as actions: --More-- = more; esc cancels."
    finally:
        env.close()


@pytest.mark.parametrize(
    ("env_id", "inventory"), [("turngym/nethack-v0", True), ("minihack", False)]
)
def test_the_cached_text_is_render_text_over_whole_games(env_id: str, inventory: bool) -> None:
    # The adapter keeps the last terminal's and inventory's lines (_TextCache); every
    # observation must still be exactly what render_text makes of NLE's arrays.
    from turngym.envs.adapters.nethack import render_text

    if env_id == "minihack":
        _minihack()
        env = gym.make("turngym/minihack.Zap-v0", inventory=inventory)
    else:
        env = gym.make(env_id)
    native = env.unwrapped._native
    rng = random.Random(3)
    try:
        for seed in range(3):
            obs, info = env.reset(seed=seed)
            for _ in range(150):
                raw = native.last_observation
                keys = native._observation_keys
                arrays = {k: raw[keys.index(k)] for k in ("tty_chars", "inv_letters", "inv_strs")}
                letters, strs = (
                    (arrays["inv_letters"], arrays["inv_strs"]) if inventory else (None, None)
                )
                # a waiting prompt's observation adds its hint line after the message
                lines = env.unwrapped._text.split("\n")
                shown = "\n".join(x for x in lines if not x.startswith("Prompt keys as actions:"))
                assert shown == render_text(arrays["tty_chars"], letters, strs)
                obs, _, terminated, truncated, info = env.step(rng.choice(info["legal_actions"]))
                assert obs.endswith(env.unwrapped._text)
                if terminated or truncated:
                    break
    finally:
        env.close()


def test_prompt_keys_expand_ranges_and_name_every_action_of_a_key() -> None:
    from nle import nethack

    from turngym.envs.adapters.nethack import action_name, prompt_hint

    names: dict[str, list[str]] = {}
    for action in nethack.ACTIONS:
        names.setdefault(chr(int(action)), []).append(action_name(action))
    assert prompt_hint("What do you want to zap? [f or ?*]", names) == (
        "Prompt keys as actions: f = fire, * = seeall; ? has none; esc cancels."
    )
    assert prompt_hint("What do you want to wield? [- a-c or ?*]", names) == (
        "Prompt keys as actions: - = minus, a = apply, b = southwest, c = close, * = seeall; "
        "? has none; esc cancels."
    )
    assert prompt_hint("Pay? [$ or ?*]", names).startswith(  # type: ignore[union-attr]
        "Prompt keys as actions: $ = seegold or dollar,"
    )
    assert prompt_hint("You see here a dagger [sic].  The dog bites!", names) is None
    assert prompt_hint("Hello Agent, welcome to NetHack!--More--", names) == (
        "Prompt keys as actions: --More-- = more; esc cancels."
    )
    # a restricted action set (MiniHack's): the keys it lacks are said to have none
    few = {"f": ["fire"], "k": ["north"]}
    assert prompt_hint("What do you want to zap? [fg or ?*]", few) == (
        "Prompt keys as actions: f = fire; g, ?, * have none."
    )
    assert prompt_hint("Really quit? [yn] (n)", few) == (
        "Prompt keys as actions: none; y, n have none."
    )


def test_one_seed_replays_one_game_and_seeds_differ() -> None:
    moves = ["search", "north", "east", "far south", "west", "esc", "pickup", "more"] * 12
    first = _play("turngym/nethack-v0", 11, moves)
    assert _play("turngym/nethack-v0", 11, moves) == first
    assert _play("turngym/nethack-v0", 12, moves)[0] != first[0]


def test_a_minihack_episode_ends_with_success_and_the_task_reward() -> None:
    """Walk to the stairs of the lit 5x5 room by reading '@' and '>' off the map."""
    _minihack()
    env = gym.make("turngym/minihack.Room-5x5-v0")
    try:
        obs, info = env.reset(seed=5)
        assert "Reach the staircase down" in obs and info["legal_actions"][0] == "north"
        total, done = 0.0, False
        for _ in range(20):
            rows = obs.split("\nMap:\n", 1)[1].split("\nStatus:\n", 1)[0].splitlines()
            at = next((r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "@")
            to = next((r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == ">")
            dr, dc = (to[0] > at[0]) - (to[0] < at[0]), (to[1] > at[1]) - (to[1] < at[1])
            move = {-1: "north", 0: "", 1: "south"}[dr] + {-1: "west", 0: "", 1: "east"}[dc]
            obs, reward, done, truncated, info = env.step(move)
            total += reward
            if done or truncated:
                break
        assert done and info["success"] and info["end_status"] == "task_successful"
        assert total > 0.9  # MiniHack's reward of 1 for the stairs, less its small step costs
    finally:
        env.close()


def _levels_and_statements(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, Any, str]]:
    """(task, des-file text, reward manager, statement) for every MiniHack id.

    The des-file is caught on its way to MiniHack's level compiler: MiniHack keeps no
    copy of it, and it is the one place that says what the level holds.
    """
    from turngym.envs.adapters.nethack import MiniHackEnv, _import_minihack

    _import_minihack()
    import minihack.base

    caught: list[str] = []
    patch = minihack.base.MiniHack._patch_nhdat

    def catch(native: Any, des_file: str) -> None:
        caught.append(des_file)
        patch(native, des_file)

    monkeypatch.setattr(minihack.base.MiniHack, "_patch_nhdat", catch)
    found = []
    for task in map(minihack_task, MINIHACK_TASKS):
        env = MiniHackEnv(task)
        try:
            des = caught[-1]
            if des.endswith(".des"):  # a file of MiniHack's, else the text itself
                des = (Path(minihack.base.PATH_DAT_DIR) / des).read_text()
            found.append((task, des, env._native.reward_manager, env.instruction))
        finally:
            env.close()
    return found


def _has_stairs_down(des: str) -> bool:
    """A des-file places a staircase down: a ``STAIR:...,down`` line or ``>`` on its map."""
    if re.search(r"^\s*STAIR\s*:.*\bdown\s*$", des, re.MULTILINE):
        return True
    maps = re.findall(r"^MAP\n(.*?)^ENDMAP", des, re.MULTILINE | re.DOTALL)
    return any(">" in m for m in maps)


def test_a_statement_names_the_staircase_only_where_the_level_has_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _minihack()
    wrong = [
        f"{task}: {'has' if stairs else 'lacks'} a staircase down, told {statement!r}"
        for task, des, _, statement in _levels_and_statements(monkeypatch)
        if (stairs := _has_stairs_down(des)) != ("staircase down" in statement)
    ]
    assert not wrong, wrong


# What each of MiniHack's message events stands for: the words a statement must hold.
# A message missing here fails the test below, so a new MiniHack task cannot slip by.
_MESSAGE_GOALS = {
    "This apple is delicious": ("eat", "apple"),
    "amulet (being worn).": ("put on", "amulet"),
    "You are now wearing a robe": ("wear", "robe"),
    "dagger (weapon in hand)": ("wield", "dagger"),
    "The feeling subsides.": ("zap", "wand"),
    "This scroll seems to be blank.": ("read", "scroll"),
    "The bolt of cold bounces!": ("bolt of cold", "bounce"),
    "You float up": ("levitat",),
    "squeak": ("squeak",),
}
_CUSTOM_GOALS = {"stairs_reward_function": ("staircase down",)}


def test_a_statement_names_what_the_reward_manager_rewards(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each id's goal against the reward manager MiniHack's env class builds."""
    _minihack()
    from minihack.reward_manager import LocActionEvent, MessageEvent

    wrong = []
    for task, _, manager, statement in _levels_and_statements(monkeypatch):
        told = statement.lower()
        if manager is None:  # MiniHack's default goal: the staircase down
            needed = [("staircase down",)]
        else:
            needed = [_CUSTOM_GOALS[f.__name__] for f in manager.custom_reward_functions]
            for event in manager.events:
                if isinstance(event, LocActionEvent):
                    needed.append((event.action.name.lower(), event.loc))
                elif isinstance(event, MessageEvent) and event.messages == ["Mission Complete."]:
                    continue  # ExploreMaze's: never said, it only keeps the episode going
                elif isinstance(event, MessageEvent) and event.messages[0].startswith("You kill"):
                    needed.append((event.messages[0].removeprefix("You ").lower(),))
                else:
                    assert isinstance(event, MessageEvent), (task, event)
                    cue = next(m for m in event.messages if m in _MESSAGE_GOALS)
                    needed.append(_MESSAGE_GOALS[cue])
                if event.reward != 1:  # a reward other than MiniHack's usual one is told
                    needed.append((f"{event.reward:+g}",))
        missing = [w for words in needed for w in words if w not in told]
        if missing:
            wrong.append(f"{task}: {statement!r} lacks {missing}")
    assert not wrong, wrong


def test_bad_arguments_are_one_line_value_errors() -> None:
    from turngym.envs.adapters.nethack import MiniHackEnv, NetHackEnv

    with pytest.raises(ValueError, match="task must be one of"):
        MiniHackEnv(task="Room-6x6")
    with pytest.raises(ValueError, match="max_episode_steps"):
        NetHackEnv(max_episode_steps=0)


def _children() -> list[int]:
    me = str(os.getpid())
    kids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        if stat.rsplit(")", 1)[1].split()[1] == me:
            kids.append(int(pid))
    return kids


def test_no_files_outside_a_temp_folder_and_no_leaks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """NLE keeps no ttyrec/xlogfile; its temp folder, fds and children go with close()."""
    _minihack()
    work, temp = tmp_path / "cwd", tmp_path / "tmp"
    work.mkdir()
    temp.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    fds, kids = len(os.listdir("/proc/self/fd")), _children()
    for env_id in ("turngym/nethack-v0", "turngym/minihack.Room-Monster-5x5-v0"):
        for _ in range(3):
            env = gym.make(env_id)
            for seed in range(10):
                _, info = env.reset(seed=seed)
                env.step(info["legal_actions"][seed % 4])
            assert list(temp.iterdir()), "NLE's working folder should be in the temp dir"
            env.close()
    assert list(work.iterdir()) == []  # no nle_data/, ttyrec or log beside the user's files
    assert list(temp.iterdir()) == []
    assert len(os.listdir("/proc/self/fd")) <= fds
    assert _children() == kids


def test_registration_imports_neither_library_and_the_lent_module_is_removed() -> None:
    _minihack()
    code = (
        "import importlib.util, sys, gymnasium as gym, turngym\n"
        "print('nle' in sys.modules, 'minihack' in sys.modules)\n"
        "absent = importlib.util.find_spec('pkg_resources') is None\n"
        "env = gym.make('turngym/minihack.Eat-Fixed-v0'); env.reset(seed=0); env.close()\n"
        "print(absent, 'pkg_resources' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout.split("\n")
    assert out[0] == "False False"
    absent, present = out[1].split()
    if absent == "True":  # setuptools >= 81: the lent module must be gone again
        assert present == "False"


def _ignored_signals() -> set[int]:
    status = Path("/proc/self/status").read_text()
    mask = int(
        next(line for line in status.splitlines() if line.startswith("SigIgn:")).split()[1], 16
    )
    return {n for n in range(1, 65) if mask >> (n - 1) & 1}


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads Linux's /proc")
def test_a_finished_game_leaves_the_hosts_signals_alone():
    # NetHack's end of game sets SIGHUP and SIGXCPU to "ignore" process-wide; children
    # inherit that, so a sandboxed loop would outlive its CPU limit's SIGXCPU.
    before = _ignored_signals() & {signal.SIGHUP, signal.SIGXCPU}
    env = gym.make("turngym/minihack.Room-5x5-v0")
    _, info = env.reset(seed=0)
    rng = random.Random(0)
    ended = False
    for _ in range(400):
        _, _, terminated, truncated, info = env.step(rng.choice(info["legal_actions"]))
        if terminated or truncated:
            ended = True
            break
    assert ended
    assert _ignored_signals() & {signal.SIGHUP, signal.SIGXCPU} == before
    env.reset(seed=1)
    env.close()
    assert _ignored_signals() & {signal.SIGHUP, signal.SIGXCPU} == before
    loop = subprocess.run(
        ["bash", "-c", "ulimit -S -t 1; ulimit -H -t 2; while :; do :; done"], timeout=60
    )
    assert loop.returncode == -signal.SIGXCPU


def test_a_task_missing_from_the_goal_table_is_told_its_rewarded_events() -> None:
    from types import SimpleNamespace

    from turngym.envs.adapters.nethack import minihack_goal

    manager = SimpleNamespace(
        events=[
            SimpleNamespace(messages=["You kill the newt"], reward=1),
            SimpleNamespace(action=SimpleNamespace(name="PRAY"), loc="altar", reward=-0.5),
        ]
    )
    assert minihack_goal("Brand-New-Task", manager) == (
        "Earn the rewards of MiniHack's events: the message 'You kill the newt' (+1); "
        "pray at the altar (-0.5)."
    )
    assert minihack_goal("Brand-New-Task", None) == "Reach the staircase down (>)."


def test_a_penalty_that_ends_a_minihack_episode_is_no_success() -> None:
    """Memento's squeaky board ends the episode with -1, which MiniHack's end status
    calls TASK_SUCCESSFUL (any ending event is); the episode did not solve the task."""
    _minihack()
    env = gym.make("turngym/minihack.Memento-Short-F2-v0")
    try:
        obs, _ = env.reset(seed=0)
        # the blue jelly's half of the des-file: its squeaky board lies at (9, 7)
        assert "j" in obs.split("\nMap:\n", 1)[1]
        for action in ["east"] * 7 + ["south"] * 3 + ["east"]:
            obs, reward, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                break
        assert terminated and reward == -1.0 and info["end_status"] == "task_successful"
        assert info["success"] is False
    finally:
        env.close()
