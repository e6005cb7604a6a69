"""Replay across processes: ``check_replay`` and ``replay_differences`` (issue 42).

``check_text_env`` checks that a seed replays inside one process. A seed must also
replay in another process, on another machine and after the cache is cleared: an env
whose content comes from the iteration order of a set of strings (which follows
``PYTHONHASHSEED``), from the global ``random`` module, or from a cached file made
under either, passes the in-process check and still gives another episode elsewhere.

The check plays the same episodes, ``reset(seed=s)`` then a few steps with actions
picked by a seeded rule from ``info`` (mostly legal actions, some fuzz), and again with
the registered expert's actions (which come from what the env hides: a walkthrough,
the answer), for a few seeds ``s``, in this process and at the same time in fresh
interpreters (``python -m turngym.testing.replay``), one per hash seed in
``hash_seeds``, each with an empty ``TURNGYM_CACHE`` of its own; every action,
observation, reward, flag and info must be the same everywhere (arrays, screenshots,
element for element), save info keys ending in ``_seconds``: durations the clock
measured, such as the SWE envs' ``grade_seconds``. One interpreter plays
many ids, so a whole suite costs a few interpreter starts, not two per id::

    from turngym.testing.replay import check_replay, replay_differences
    check_replay("turngym/textworld.cooking-v0")          # raises ConformanceError
    replay_differences(["turngym/Wordle-v0", "turngym/Sokoban-v0"])  # {} when all replay

PettingZoo AEC games (``games=True``: ids through ``turngym.make_game``, or factories of
games) are played by every seat, with the seeded rule and in the expert's self-play,
and every agent's observation, reward, flags and info, and ``render()`` (the hidden
deal), are compared after every move::

    check_replay("turngym/openspiel.pig-v0", games=True)
    replay_differences(["turngym/KuhnPoker-v0", "turngym/LiarsDice-v0"], games=True)

An env made by a factory replays elsewhere only if the factory pickles (an importable
class or function); ``check_text_env(..., cross_process=True)`` and
``check_game(..., cross_process=True)`` run this check too.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from turngym.testing.base import (
    CheckReport,
    CheckResult,
    ConformanceError,
    EnvSource,
    StepProblem,
    env_maker,
    first_difference,
    mixed_policy,
    run_check,
)

__all__ = [
    "REPLAY_HASH_SEEDS",
    "check_replay",
    "game_record",
    "replay_differences",
    "replay_record",
]

REPLAY_HASH_SEEDS = (1, 2)
"""The ``PYTHONHASHSEED`` of each fresh interpreter the episodes are replayed in."""

_MEASURED = "_seconds"  # an info key of a duration the clock measured: left out
_STEPS = 5  # steps of an episode replayed, by default
_GAME_MOVES = 40  # moves of a game replayed, by default: chance decides moves (pig's dice) too
_FREE_TEXT = "0"  # what free-form envs hear on half their turns: an answer of the right form
_SHOWN = 300  # characters of a step kept readable in a record (the digest covers it all)


def replay_record(make: Callable[..., gym.Env], seeds: Sequence[int], steps: int) -> list[str]:
    """The episodes of ``seeds`` (``steps`` steps at most each) of one env, as text.

    Each entry is a digest of one reset's or step's whole output and its first
    characters. Each seed is played twice: with actions picked from ``info`` by a
    generator seeded with the seed, and by the registered expert, if any, whose actions
    come from what the env hides (a walkthrough, the answer), so that a difference
    there shows too. The same env gives the same record in any process.
    """
    from turngym.agents import make_expert

    env = make()
    record: list[str] = []
    try:
        try:
            expert = make_expert(env)
        except (KeyError, ValueError):  # no expert registered: the seeded rule only
            expert = None
        for s in seeds:
            choose = mixed_policy(np.random.default_rng(s), free_text=_FREE_TEXT)
            record += _episode(env, s, steps, "", _from_info(choose))
            if expert is not None:
                expert.reset(seed=s)
                record += _episode(env, s, steps, "expert ", expert.act)
    finally:
        env.close()
    return record


def _from_info(choose: Callable[[dict], Any]) -> Callable[[Any, dict], Any]:
    return lambda obs, info: choose(info)


def _episode(
    env: gym.Env, seed: int, steps: int, who: str, act: Callable[[Any, dict], Any]
) -> list[str]:
    obs, info = env.reset(seed=seed)
    record = [_entry(f"{who}reset({seed})", (obs, info))]
    for t in range(steps):
        action = act(obs, info)
        out = env.step(action)
        record.append(_entry(f"{who}seed {seed} step {t}", (action, *out)))
        obs, info = out[0], out[4]
        if out[2] or out[3]:
            break
    return record


def game_record(
    make: Callable[..., Any], seeds: Sequence[int], steps: int, game_id: str | None = None
) -> list[str]:
    """The games of ``seeds`` (``steps`` moves at most each) of one AEC game, as text.

    Every seat plays: each seed once with moves picked from the acting agent's info by
    a generator seeded with the seed (mostly legal, some fuzz), and once in self-play
    by the expert registered for ``game_id``, if any. Each entry (after the reset and
    after every move) holds every agent's observation, reward, cumulative reward,
    termination, truncation and info, and the full state as ``render()`` shows it
    (hidden cards and dice too).
    """
    from turngym.testing.base import FREE_TEXT as GAME_TEXT

    game = make(render_mode="ansi")
    record: list[str] = []
    try:
        expert = _game_expert(game, game_id)
        for s in seeds:
            choose = mixed_policy(np.random.default_rng(s), free_text=GAME_TEXT)
            record += _game(game, s, steps, "", _from_info(choose))
            if expert is not None:
                expert.reset(seed=s)
                record += _game(game, s, steps, "expert ", expert.act)
    finally:
        game.close()
    return record


def _game_expert(game: Any, game_id: str | None) -> Any:
    """The expert registered for ``game_id`` (None for none), built as ``check_game`` does."""
    from turngym.registry import entry, load

    try:
        path = entry(game_id).expert if game_id else None
    except KeyError:  # a factory's name, not an id
        path = None
    return None if path is None else load(path)(game)


def _game(game: Any, seed: int, steps: int, who: str, act: Callable[[Any, dict], Any]) -> list[str]:
    game.reset(seed=seed)
    record = [_entry(f"{who}reset({seed})", _game_state(game))]
    for t in range(steps):
        if not game.agents:
            break
        agent = game.agent_selection
        if game.terminations[agent] or game.truncations[agent]:
            action = None  # PettingZoo's step of an agent that is done
        else:
            action = act(game.observe(agent)["text"], game.infos[agent])
        game.step(action)
        record.append(_entry(f"{who}seed {seed} move {t} ({agent})", (action, _game_state(game))))
    return record


def _game_state(game: Any) -> tuple[Any, ...]:
    """What every agent can read now, and the whole state (``render``)."""
    seats: list[tuple[Any, ...]] = []
    for agent in game.possible_agents:
        if agent not in game.agents:
            seats.append((agent, "gone"))
            continue
        obs = game.observe(agent)
        seats.append(
            (
                agent,
                {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in obs.items()},
                game.rewards[agent],
                game._cumulative_rewards[agent],
                game.terminations[agent],
                game.truncations[agent],
                game.infos[agent],
            )
        )
    return game.agent_selection, seats, game.render()


def _entry(where: str, value: Any) -> str:
    text = repr(_whole(value))
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{where} [{digest}] {text[:_SHOWN]}"


class _Pixels:
    """An array as its shape, dtype and a digest of every element.

    ``repr`` of a big array shows its corners only; a screenshot must replay pixel for pixel.
    """

    def __init__(self, array: np.ndarray) -> None:
        digest = hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()[:16]
        self.text = f"array(shape={array.shape}, dtype={array.dtype}, sha256={digest})"

    def __repr__(self) -> str:
        return self.text


def _whole(value: Any) -> Any:
    """``value`` as compared: big arrays as digests, and no durations the clock measured.

    Keys ending in ``_seconds`` (the SWE envs' ``grade_seconds``) are the run's, not the
    episode's.
    """
    if isinstance(value, np.ndarray) and value.size > 16:
        return _Pixels(value)
    if isinstance(value, tuple | list):
        return type(value)(_whole(v) for v in value)
    if isinstance(value, dict):
        return {
            k: _whole(v)
            for k, v in value.items()
            if not (isinstance(k, str) and k.endswith(_MEASURED))
        }
    return value


def _maker(
    source: Any, make_kwargs: dict[str, Any], games: bool = False
) -> tuple[Callable[..., Any], str]:
    if games:
        from turngym.testing.base import game_maker as game_factory

        return game_factory(source, make_kwargs)
    if isinstance(source, gym.envs.registration.EnvSpec):
        return (lambda **extra: gym.make(source, **make_kwargs, **extra)), source.id
    return env_maker(source, make_kwargs)


def _portable(source: EnvSource) -> Any:
    """What another interpreter can rebuild the env from: an id, a spec or the factory."""
    if isinstance(source, gym.Env):
        if source.spec is None:
            raise TypeError(
                "an env instance without a spec cannot be rebuilt in another process; "
                "pass its registered id or its class"
            )
        return source.spec
    return source


_Job = tuple[Any, dict[str, Any], bool]
"""What a fresh interpreter rebuilds an env from: its source, kwargs, and whether it is
an AEC game (``turngym.make_game``, played by ``game_record``)."""


def _records(jobs: list[_Job], seeds: Sequence[int], steps: int) -> list[list[str]]:
    """Each job's record, or a one-line record of the exception it raised."""
    out = []
    for source, make_kwargs, games in jobs:
        try:
            make, name = _maker(source, make_kwargs, games)
            if games:
                out.append(game_record(make, seeds, steps, name))
            else:
                out.append(replay_record(make, seeds, steps))
        except Exception as error:  # reported, as the env's own verdict, not the run's
            out.append([f"raised {type(error).__name__}: {str(error)[:_SHOWN]}"])
    return out


def _records_elsewhere(
    jobs: list[_Job],
    seeds: Sequence[int],
    steps: int,
    hash_seed: int,
    timeout: float,
) -> list[list[str]]:
    """``_records`` in a fresh interpreter under ``PYTHONHASHSEED=hash_seed``, empty cache."""
    with tempfile.TemporaryDirectory(prefix="turngym-replay-") as folder:
        work = Path(folder)
        (work / "jobs.pkl").write_bytes(pickle.dumps((jobs, list(seeds), steps)))
        env = dict(os.environ, PYTHONHASHSEED=str(hash_seed), TURNGYM_CACHE=str(work / "cache"))
        # the same imports as here (a test's or a notebook's sys.path too)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        command = [sys.executable, "-m", "turngym.testing.replay", str(work)]
        try:
            done = subprocess.run(
                command, env=env, capture_output=True, text=True, timeout=timeout, check=False
            )
        except subprocess.TimeoutExpired:
            raise AssertionError(
                f"the replay under PYTHONHASHSEED={hash_seed} took over {timeout:g} s"
            ) from None
        result = work / "records.json"
        if done.returncode != 0 or not result.is_file():
            tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-5:])
            raise AssertionError(f"the replay under PYTHONHASHSEED={hash_seed} failed: {tail}")
        records: list[list[str]] = json.loads(result.read_text())
        return records


def replay_differences(
    envs: Sequence[EnvSource],
    *,
    seed: int = 0,
    episodes: int = 2,
    steps: int | None = None,
    hash_seeds: Sequence[int] = REPLAY_HASH_SEEDS,
    make_kwargs: dict[str, Any] | None = None,
    in_process: bool = True,
    timeout: float = 1800.0,
    games: bool = False,
) -> dict[str, str]:
    """The envs whose episodes differ between processes, each with its first difference.

    Args:
        envs: registered ids, envs made by ``gym.make`` (rebuilt from their spec), or
            factories that pickle (importable classes or functions); with ``games``,
            game ids (``turngym.make_game``) or factories of AEC games.
        seed: the first seed of the episodes replayed.
        episodes: the episodes replayed, of seeds ``seed .. seed + episodes - 1``: a
            dataset may pick from a set on some seeds only.
        steps: steps per episode at most (default 5; for games 40 moves, of all seats).
        hash_seeds: one fresh interpreter per value, under that ``PYTHONHASHSEED`` and an
            empty ``TURNGYM_CACHE`` of its own.
        make_kwargs: kwargs for ``gym.make`` / the factory, for every env.
        in_process: compare this process's episodes (its hash seed, its cache) too.
        timeout: seconds each interpreter may take for all the envs.
        games: the envs are PettingZoo AEC games, played by every seat (``game_record``).

    Returns:
        ``{name: "where: this != that"}`` for each env that did not replay (or raised
        instead of playing); ``{}`` when all replayed.

    """
    seeds = range(seed, seed + episodes)
    steps = (_GAME_MOVES if games else _STEPS) if steps is None else steps
    jobs: list[_Job] = [
        (source if games else _portable(source), dict(make_kwargs or {}), games) for source in envs
    ]
    names = [_maker(*job)[1] for job in jobs]
    pickle.dumps(jobs)  # fail here, with pickle's own reason, on a factory that cannot travel
    runs: list[tuple[str, list[list[str]]]] = []
    # the interpreters play at the same time as each other and as this process
    with ThreadPoolExecutor(max(1, len(hash_seeds))) as pool:
        elsewhere = [
            (h, pool.submit(_records_elsewhere, jobs, seeds, steps, h, timeout)) for h in hash_seeds
        ]
        if in_process:
            runs.append(("this process", _records(jobs, seeds, steps)))
        runs += [(f"PYTHONHASHSEED={h}", future.result()) for h, future in elsewhere]
    differences = {}
    (first_name, first), *others = runs
    for k, name in enumerate(names):
        if first[k][0].startswith("raised "):  # nothing was replayed: say so
            differences[name] = f"{first_name}: {first[k][0]}"
            continue
        for other_name, other in others:
            if other[k] != first[k]:
                differences[name] = (
                    f"{first_name} vs {other_name}: {first_difference(first[k], other[k])}"
                )
                break
    return differences


def check_replay(
    env_or_id: EnvSource,
    *,
    seed: int = 0,
    episodes: int = 2,
    steps: int | None = None,
    hash_seeds: Sequence[int] = REPLAY_HASH_SEEDS,
    make_kwargs: dict[str, Any] | None = None,
    games: bool = False,
    raise_on_failure: bool = True,
) -> CheckReport:
    """Check that one env's seeds replay in fresh interpreters (``replay_differences``).

    Args:
        env_or_id: a registered id, an env made by ``gym.make``, or a factory that
            pickles; with ``games``, a game id or a factory of AEC games.
        seed: the first seed of the episodes replayed.
        episodes: episodes replayed, of seeds ``seed .. seed + episodes - 1``.
        steps: steps per episode at most (default 5; for games 40 moves).
        hash_seeds: one fresh interpreter per value (``replay_differences``).
        make_kwargs: kwargs for ``gym.make`` / the factory.
        games: ``env_or_id`` is a PettingZoo AEC game, played by every seat.
        raise_on_failure: raise ``ConformanceError`` (with the table) if it fails.

    Returns:
        A report of one check, ``cross-process replay`` (skipped for a factory that
        does not pickle).

    Raises:
        ConformanceError: when ``raise_on_failure`` and the episodes differ.

    Example:
        >>> from turngym.testing.replay import check_replay
        >>> check_replay("turngym/Bandit-v0", steps=3).passed
        True
        >>> check_replay("turngym/KuhnPoker-v0", games=True).passed
        True

    """
    name = _maker(env_or_id, dict(make_kwargs or {}), games)[1]
    report = CheckReport(name)
    report.results.append(
        run_check(
            "cross-process replay",
            lambda: _check_cross_process(
                env_or_id, seed, episodes, steps, hash_seeds, make_kwargs, games
            ),
        )
    )
    if raise_on_failure and not report.passed:
        raise ConformanceError(report.table())
    return report


def _check_cross_process(
    env_or_id: EnvSource,
    seed: int,
    episodes: int = 2,
    steps: int | None = None,
    hash_seeds: Sequence[int] = REPLAY_HASH_SEEDS,
    make_kwargs: dict[str, Any] | None = None,
    games: bool = False,
) -> str | CheckResult:
    """The ``cross-process replay`` check as ``check_text_env`` and ``check_game`` run it.

    A verdict line; a skipped result for a factory that does not pickle; or
    ``StepProblem`` with the first difference.
    """
    try:
        pickle.dumps((env_or_id if games else _portable(env_or_id), dict(make_kwargs or {})))
    except Exception as error:  # a lambda, a local class, an instance without a spec
        why = f"the env cannot be rebuilt in another process: {error}"
        return CheckResult("cross-process replay", True, why, skipped=True)
    try:
        differences = replay_differences(
            [env_or_id],
            seed=seed,
            episodes=episodes,
            steps=steps,
            hash_seeds=hash_seeds,
            make_kwargs=make_kwargs,
            games=games,
        )
    except AssertionError as error:  # an interpreter failed or ran out of time
        raise StepProblem(str(error)) from None
    if differences:
        raise StepProblem(next(iter(differences.values())))
    where = ", ".join(f"PYTHONHASHSEED={h}" for h in hash_seeds)
    last = seed + episodes - 1
    return f"seeds {seed}-{last}: the same here and under {where}, with empty caches"


if __name__ == "__main__":  # the fresh interpreter: python -m turngym.testing.replay FOLDER
    _folder = Path(sys.argv[1])
    _jobs, _seeds, _steps = pickle.loads((_folder / "jobs.pkl").read_bytes())
    (_folder / "records.json").write_text(json.dumps(_records(_jobs, _seeds, _steps)))
