"""Conformance checks for multi-agent games (PettingZoo AEC): ``check_game``.

The checks (ARCHITECTURE.md section 9): PettingZoo's ``api_test`` and ``seed_test``;
reset-safety (a reused game replays a fresh one byte for byte); fuzzed actions
(random unicode, empty, huge, near-legal, legal, non-strings, oversized literals)
with no exception and ``invalid_action`` set correctly; ``legal_actions`` that agree
with the ``action_mask``; property tests over many random games (hypothesis drives the
choices when installed; free-form games play their ``sample_action``): zero-sum
rewards at every step for zero-sum games, finite rewards, every game ending, and
the game's own invariants (``check_invariants``, e.g. chips conserved in poker);
``render`` text; and the registered expert playing only legal actions. With
``cross_process=True``, also that seeds deal and play the same games in fresh
interpreters under other hash seeds (``turngym.testing.replay``: it starts two
interpreters, so it is off by default).
"""

from __future__ import annotations

import contextlib
import io
import math
import traceback
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from turngym.core import normalize_action
from turngym.testing.base import (
    FREE_TEXT,
    CheckReport,
    CheckResult,
    ConformanceError,
    GameSource,
    StepProblem,
    case_clashes,
    fuzz_actions,
    game_maker,
    mixed_policy,
    near_legal,
    oversized_actions,
    run_check,
)

__all__ = ["check_game"]

_MAX_GAME_STEPS = 2_000
"""A game longer than this (invalid actions included) counts as one that never ends."""


def _trace_step(game: Any) -> str:
    """Everything an agent loop can see after a step, as one comparable string."""
    agent = game.agent_selection
    obs = game.observe(agent) if game.agents else None
    mask = obs.get("action_mask") if isinstance(obs, dict) else None
    return repr(
        (
            agent,
            obs.get("text") if isinstance(obs, dict) else None,
            None if mask is None else mask.tolist(),
            sorted(game.rewards.items()),
            sorted(game._cumulative_rewards.items()),
            sorted(game.terminations.items()),
            sorted(game.truncations.items()),
            sorted((a, sorted(i.items())) for a, i in game.infos.items()),
        )
    )


def _play(game: Any, seed: int, choose: Callable[[dict], Any] | list[Any]) -> tuple[list, list]:
    """Play one game; ``choose(info)`` picks actions, or a list replays them."""
    game.reset(seed=seed)
    record = [_trace_step(game)]
    actions: list[Any] = []
    for t in range(_MAX_GAME_STEPS):
        if not game.agents:
            break
        agent = game.agent_selection
        if game.terminations[agent] or game.truncations[agent]:
            action = None
        elif isinstance(choose, list):
            if t >= len(choose):
                break
            action = choose[t]
        else:
            action = choose(game.infos[agent])
        actions.append(action)
        game.step(action)
        record.append(_trace_step(game))
    return record, actions


# -- the checks ------------------------------------------------------------------------


def _check_api(make: Callable[..., Any]) -> str:
    from pettingzoo.test import api_test

    game = make()
    out = io.StringIO()
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(out):
        warnings.simplefilter("always")
        api_test(game, num_cycles=1000)
    game.close()
    notes = sorted({str(w.message).split(".")[0] for w in caught})
    return "passed" + (f" ({len(notes)} advisory warnings)" if notes else "")


def _check_seed(make: Callable[..., Any]) -> str:
    from pettingzoo.test import seed_test

    with contextlib.redirect_stdout(io.StringIO()):
        seed_test(make, num_cycles=500)
    return "passed"


def _check_reset_safety(make: Callable[..., Any], seed: int, games: int) -> str:
    reused = make()
    steps = 0
    for k in range(games):
        s = seed + 1000 + k
        old, actions = _play(reused, s, mixed_policy(np.random.default_rng(s), free_text=FREE_TEXT))
        fresh = make()
        new, _ = _play(fresh, s, actions)
        fresh.close()
        if old != new:
            first = next(
                (j for j, (x, y) in enumerate(zip(old, new, strict=False)) if x != y),
                min(len(old), len(new)),
            )
            raise StepProblem(
                f"game {k} (seed {s}): reused differs from fresh at step {first}: "
                f"{old[first][:150] if first < len(old) else '(ended)'}"
            )
        steps += len(actions)
    reused.close()
    return f"{games} games, {steps} steps: reused == fresh"


def _check_legal(game: Any, agent: str, where: str) -> list[str]:
    info = game.infos[agent]
    if not game.action_names:  # free-form: nothing to list
        if "legal_actions" in info:
            raise StepProblem(f"{where}: a free-form game lists legal_actions")
        return []
    legal = info.get("legal_actions")
    if not isinstance(legal, list) or not all(isinstance(a, str) for a in legal):
        raise StepProblem(f"{where}: infos[{agent}]['legal_actions'] must be a list of str")
    if len(set(legal)) != len(legal):
        raise StepProblem(f"{where}: legal_actions has duplicates: {legal}")
    names = tuple(game.action_names)
    if names:
        unknown = [a for a in legal if a not in names]
        if unknown:
            raise StepProblem(f"{where}: legal actions {unknown} are not in action_names")
        mask = game.observe(agent)["action_mask"]
        if sorted(names[k] for k in np.flatnonzero(mask)) != sorted(legal):
            raise StepProblem(f"{where}: action_mask disagrees with legal_actions {legal}")
    return legal


def _check_fuzz(make: Callable[..., Any], seed: int, n_fuzz: int) -> str:
    game = make()
    rng = np.random.default_rng(seed)
    counts: dict[str, int] = {}
    game.reset(seed=seed)
    games = 0
    oversized = oversized_actions(_check_legal(game, game.agent_selection, "reset"))
    for i in range(len(oversized) + n_fuzz):
        if not game.agents:
            games += 1
            game.reset(seed=seed + games)
        agent = game.agent_selection
        if game.terminations[agent] or game.truncations[agent]:
            game.step(None)
            continue
        legal = _check_legal(game, agent, f"fuzz step {i}")
        if i < len(oversized):
            kind, action = "oversized", oversized[i]
        else:
            kind, action = next(fuzz_actions(rng, legal))
        must_accept = kind == "legal"
        if kind == "near":
            clashes = case_clashes([*game.action_names, *legal])
            action, must_accept = near_legal(rng, action, clashes)
        counts[kind] = counts.get(kind, 0) + 1
        where = f"fuzz step {i} ({kind} action {str(action)[:40]!r})"
        try:
            game.step(action)
        except Exception as error:
            tb = traceback.format_exc(limit=-3)
            raise StepProblem(f"{where} raised {error!r}\n{tb}") from error
        if agent not in game.infos:
            continue
        invalid = game.infos[agent].get("invalid_action")
        if not isinstance(invalid, bool):
            raise StepProblem(f"{where}: infos[agent]['invalid_action'] must be a bool")
        if must_accept and invalid:
            reason = game.infos[agent].get("invalid_reason", "")
            raise StepProblem(f"{where}: a legal action was marked invalid ({reason})")
        if kind == "nonstr" and not invalid:
            raise StepProblem(f"{where}: a non-string action was accepted")
        garbage = kind in ("random", "empty", "huge", "oversized")
        if game.action_names and garbage and not invalid:
            normal = {normalize_action(a) for a in legal}
            if normalize_action(str(action)) not in normal:
                raise StepProblem(f"{where}: garbage was accepted by a finite-action game")
    game.close()
    summary = ", ".join(f"{k}={v}" for k, v in sorted(counts.items()))
    return f"{sum(counts.values())} actions ({summary}), 0 exceptions"


def _check_properties(make: Callable[..., Any], seed: int, n_games: int) -> str:
    game = make()
    zero_sum = bool(getattr(game, "zero_sum", False))
    stats = {"games": 0, "steps": 0, "invalid": 0, "draw": 0, "decided": 0}

    def play_one(game_seed: int, choices: list[int]) -> None:
        """One random game: ``choices`` pick the actions (then a seeded RNG takes over)."""
        rng = np.random.default_rng(game_seed)
        feed = iter(choices)

        def pick(n: int) -> int:
            value = next(feed, None)
            return (int(rng.integers(1 << 16)) if value is None else value) % n

        game.reset(seed=game_seed)
        totals = dict.fromkeys(game.agents, 0.0)
        for _ in range(_MAX_GAME_STEPS):
            if not game.agents:
                break
            agent = game.agent_selection
            if game.terminations[agent] or game.truncations[agent]:
                game.step(None)
                continue
            legal = game.infos[agent].get("legal_actions")
            roll = pick(100)
            if roll < 3:  # now and then an invalid one, so penalties and forfeits are covered
                action: Any = "[this is not a legal action" if roll % 2 else 17
                stats["invalid"] += 1
            elif legal:
                action = legal[pick(len(legal))]
            else:  # free-form: the game's own random well-formed actions
                action = game.sample_action(rng)
            game.step(action)
            stats["steps"] += 1
            rewards = list(game.rewards.values())
            where = f"seed {game_seed}, step {stats['steps']}"
            if not all(math.isfinite(r) for r in rewards):
                raise StepProblem(f"{where}: non-finite reward {rewards}")
            if zero_sum and abs(sum(rewards)) > 1e-9:
                raise StepProblem(f"{where}: step rewards sum to {sum(rewards)}, not 0")
            for a, r in game.rewards.items():
                totals[a] += r
            problem = game.check_invariants() if hasattr(game, "check_invariants") else None
            if problem:
                raise StepProblem(f"{where}: {problem}")
        else:
            raise StepProblem(f"seed {game_seed}: no end after {_MAX_GAME_STEPS} steps")
        best = max(totals.values())
        stats["draw" if all(v == best for v in totals.values()) else "decided"] += 1
        stats["games"] += 1

    try:
        from hypothesis import HealthCheck, given, settings
        from hypothesis import strategies as st
    except ImportError:
        rng = np.random.default_rng(seed)
        for _ in range(n_games):
            play_one(int(rng.integers(2**31)), [])
        driver = "numpy RNG"
    else:
        property_test = settings(
            max_examples=n_games,
            deadline=None,
            database=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
        )(
            given(st.integers(0, 2**31 - 1), st.lists(st.integers(0, 1 << 16), max_size=64))(
                play_one
            )
        )
        property_test()
        driver = "hypothesis"
    game.close()
    what = "zero-sum at every step, " if zero_sum else ""
    return (
        f"{stats['games']} random games ({driver}), {stats['steps']} steps "
        f"({stats['invalid']} invalid): {what}finite rewards, invariants held, all ended "
        f"(decided {stats['decided']}, draw {stats['draw']})"
    )


def _check_render(make: Callable[..., Any], seed: int) -> str:
    game = make(render_mode="ansi")
    game.reset(seed=seed)
    frames = [game.render()]
    rng = np.random.default_rng(seed)
    for _ in range(3):
        if not game.agents:
            break
        legal = game.infos[game.agent_selection].get("legal_actions") or ["hello"]
        game.step(legal[int(rng.integers(len(legal)))])
        frames.append(game.render())
    game.close()
    bad = [f for f in frames if not isinstance(f, str) or not f.strip()]
    if bad:
        raise StepProblem(f"render() in 'ansi' mode must return non-empty text, got {bad[0]!r}")
    return f"{len(frames)} frames of text"


def _check_expert(
    make: Callable[..., Any], game_id: str, seed: int, games: int, expert: Any
) -> CheckResult | str:
    from turngym.registry import entry, load

    if expert is None:
        try:
            path = entry(game_id).expert if isinstance(game_id, str) else None
        except KeyError:
            path = None
        if path is None:
            return CheckResult("expert", True, "no expert registered; pass expert=", skipped=True)
        expert = load(path)
    game = make()
    agent = expert(game)
    moves = 0
    for k in range(games):
        agent.reset(seed=seed + k)
        game.reset(seed=seed + k)
        for _ in range(_MAX_GAME_STEPS):
            if not game.agents:
                break
            name = game.agent_selection
            if game.terminations[name] or game.truncations[name]:
                game.step(None)
                continue
            action = agent.act(game.observe(name)["text"], game.infos[name])
            game.step(action)
            moves += 1
            if game.infos.get(name, {}).get("invalid_action"):
                raise StepProblem(
                    f"the expert played an invalid action {action!r} (seed {seed + k})"
                )
    game.close()
    return f"{games} self-play games, {moves} legal moves"


def check_game(
    game_or_id: GameSource,
    n_fuzz: int = 1000,
    *,
    seed: int = 0,
    n_games: int = 1000,
    reset_games: int = 50,
    expert_games: int = 5,
    expert: Callable[[Any], Any] | None = None,
    make_kwargs: dict[str, Any] | None = None,
    cross_process: bool = False,
    raise_on_failure: bool = True,
) -> CheckReport:
    """Run every conformance check on a turn-based multi-agent game.

    Args:
        game_or_id: a registered game id (built with ``turngym.make_game``) or a
            factory of fresh games (e.g. the class).
        n_fuzz: random fuzzed actions to send after a dozen oversized literals.
        seed: base seed for every check.
        n_games: random games for the property checks (hypothesis draws their seeds
            and choices when installed).
        reset_games: games compared between a reused and a fresh instance.
        expert_games: self-play games of the expert, which must only play legal actions.
        expert: build the expert as ``expert(game)``; default: the registered one.
        make_kwargs: kwargs for the factory.
        cross_process: also play seeds ``seed`` and ``seed + 1`` (every seat, seeded
            moves and the expert's) in two fresh interpreters with other hash seeds and
            compare every agent's observations, rewards, flags and infos
            (``turngym.testing.replay.check_replay(..., games=True)``); for games whose
            deal, board or chance come from the seed.
        raise_on_failure: raise ``ConformanceError`` (with the table) if a check fails.

    Example:
        >>> from turngym.testing import check_game
        >>> check_game("turngym/TicTacToe-v0", n_fuzz=100, n_games=50, reset_games=3).passed
        True

    """
    make, game_id = game_maker(game_or_id, dict(make_kwargs or {}))
    report = CheckReport(game_id)
    report.results.append(run_check("pettingzoo api_test", lambda: _check_api(make)))
    report.results.append(run_check("pettingzoo seed_test", lambda: _check_seed(make)))
    report.results.append(
        run_check("reset safety", lambda: _check_reset_safety(make, seed, reset_games))
    )
    report.results.append(run_check("fuzzed actions", lambda: _check_fuzz(make, seed, n_fuzz)))
    report.results.append(
        run_check("random-game properties", lambda: _check_properties(make, seed, n_games))
    )
    report.results.append(run_check("render ansi", lambda: _check_render(make, seed)))
    report.results.append(
        run_check("expert", lambda: _check_expert(make, game_id, seed, expert_games, expert))
    )
    if cross_process:
        from turngym.testing.replay import _check_cross_process

        report.results.append(
            run_check(
                "cross-process replay",
                lambda: _check_cross_process(game_or_id, seed, make_kwargs=make_kwargs, games=True),
            )
        )
    if raise_on_failure and not report.passed:
        raise ConformanceError(report.table())
    return report
