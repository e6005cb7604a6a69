"""Conformance checks for single-agent text envs: ``check_text_env``.

Run them on your own envs as on ours::

    from turngym.testing import check_text_env
    check_text_env("turngym/Wordle-v0")          # raises ConformanceError on failure
    report = check_text_env(MyEnv, raise_on_failure=False)
    print(report.table())

The checks (ARCHITECTURE.md section 9): Gymnasium's ``check_env``; seed
determinism; reset-safety (a reused env equals a fresh one over many episodes);
fuzzed actions (random unicode, empty, huge, near-legal, legal, non-strings, and
oversized literals such as 5,000-digit numbers, ``1e999999`` and deep brackets) with
no exception and ``invalid_action`` set correctly; well-formed ``legal_actions``;
``render_mode="ansi"`` text; and the registered expert reaching success. With
``cross_process=True``, also that seeds replay in fresh interpreters under other hash
seeds and empty caches (``turngym.testing.replay``: it starts two interpreters, so it is
off by default).
"""

from __future__ import annotations

import math
import traceback
import warnings
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

from turngym.core import normalize_action
from turngym.testing.base import (
    CheckReport,
    CheckResult,
    ConformanceError,
    EnvSource,
    StepProblem,
    case_clashes,
    env_maker,
    first_difference,
    fuzz_actions,
    mixed_policy,
    near_legal,
    oversized_actions,
    run_check,
)

__all__ = ["CheckReport", "CheckResult", "ConformanceError", "check_text_env"]


_MAX_EPISODE_STEPS = 200  # cap per rollout in the determinism checks


# -- building envs -----------------------------------------------------------------


# -- actions -----------------------------------------------------------------------


def _action_universe(env: Any) -> tuple[str, ...]:
    """An env's fixed action names, or a game view's game's; () when it has none."""
    inner = getattr(env, "unwrapped", env)
    names = getattr(inner, "action_names", None) or getattr(
        getattr(inner, "game", None), "action_names", None
    )
    return tuple(names) if isinstance(names, (tuple, list)) else ()


# -- one step, validated -----------------------------------------------------------


def _validate_step(env: gym.Env, out: Any, *, where: str) -> tuple[Any, float, bool, bool, dict]:
    if not (isinstance(out, tuple) and len(out) == 5):
        raise StepProblem(f"{where}: step must return a 5-tuple, got {type(out).__name__}")
    obs, reward, terminated, truncated, info = out
    if not env.observation_space.contains(obs):
        raise StepProblem(f"{where}: observation {str(obs)[:60]!r} not in {env.observation_space}")
    if not isinstance(reward, (int, float, np.floating)) or not math.isfinite(float(reward)):
        raise StepProblem(f"{where}: reward must be a finite float, got {reward!r}")
    if not isinstance(terminated, (bool, np.bool_)) or not isinstance(truncated, (bool, np.bool_)):
        raise StepProblem(f"{where}: terminated/truncated must be bools")
    if not isinstance(info, dict):
        raise StepProblem(f"{where}: info must be a dict")
    if not isinstance(info.get("invalid_action"), bool):
        raise StepProblem(f"{where}: info['invalid_action'] must be a bool on every step")
    if (terminated or truncated) and not isinstance(info.get("success"), bool):
        raise StepProblem(f"{where}: info['success'] must be a bool when the episode ends")
    _validate_info(env, info, where=where, done=bool(terminated or truncated))
    return obs, float(reward), bool(terminated), bool(truncated), info


def _validate_info(env: gym.Env, info: dict, *, where: str, done: bool) -> None:
    if "turn" in info and not isinstance(info["turn"], (int, np.integer)):
        raise StepProblem(f"{where}: info['turn'] must be an int")
    if "state_key" in info:
        hash(info["state_key"])
    legal = info.get("legal_actions")
    if legal is None:
        return
    if not isinstance(legal, list) or not all(isinstance(a, str) for a in legal):
        raise StepProblem(f"{where}: legal_actions must be a list of str")
    if not done and not legal:
        raise StepProblem(f"{where}: legal_actions is empty but the episode goes on")
    # Large lists (Wordle: ~4,700 words) repeat step after step: check each content once.
    key = (repr(env.action_space), tuple(legal))
    if key in _CHECKED_LEGAL:
        return
    if len(set(legal)) != len(legal):
        raise StepProblem(f"{where}: legal_actions has duplicates")
    for a in legal:
        if not env.action_space.contains(a):
            raise StepProblem(f"{where}: legal action {a!r} is not in the action space")
    if len(_CHECKED_LEGAL) > 4096:
        _CHECKED_LEGAL.clear()
    _CHECKED_LEGAL.add(key)


_CHECKED_LEGAL: set[tuple[str, tuple[str, ...]]] = set()


# -- trajectories ------------------------------------------------------------------


def _play(env: gym.Env, seed: int, choose: Callable[[dict], Any] | list[Any]) -> tuple[list, list]:
    """Run one episode; ``choose`` picks actions from info, or is a fixed list to replay."""
    obs, info = env.reset(seed=seed)
    record = [repr((obs, info))]
    actions: list[Any] = []
    for t in range(_MAX_EPISODE_STEPS):
        if isinstance(choose, list):
            if t >= len(choose):
                break
            action = choose[t]
        else:
            action = choose(info)
        actions.append(action)
        obs, reward, terminated, truncated, info = env.step(action)
        record.append(repr((obs, reward, terminated, truncated, info)))
        if terminated or truncated:
            break
    return record, actions


# -- the checks --------------------------------------------------------------------


def _check_gymnasium(make: Callable[..., gym.Env]) -> str:
    from gymnasium.utils.env_checker import check_env

    env = make()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_env(env.unwrapped, skip_render_check=True)
        problems = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
        if problems:
            raise StepProblem("; ".join(problems)[:300])
    finally:
        env.close()
    return "gymnasium.utils.env_checker.check_env"


def _check_determinism(make: Callable[..., gym.Env], seed: int) -> str:
    env = make()
    try:
        obs1, info1 = env.reset(seed=seed)
        obs2, info2 = env.reset(seed=seed)
        if repr((obs1, info1)) != repr((obs2, info2)):
            raise StepProblem("two resets with one seed gave different obs/info")
        n = 0
        for k in range(5):
            first, actions = _play(env, seed + k, mixed_policy(np.random.default_rng(seed + k)))
            again, _ = _play(env, seed + k, actions)
            if first != again:
                raise StepProblem(
                    f"seed {seed + k} replayed differently: " + first_difference(first, again)
                )
            n += len(actions)
    finally:
        env.close()
    return f"5 seeds, {n} steps replayed identically"


def _check_reset_safety(make: Callable[..., gym.Env], seed: int, episodes: int) -> str:
    reused = make()
    steps = 0
    try:
        for k in range(episodes):
            s = seed + 1000 + k
            old, actions = _play(reused, s, mixed_policy(np.random.default_rng(s)))
            fresh = make()
            try:
                new, _ = _play(fresh, s, actions)
            finally:
                fresh.close()
            if old != new:
                raise StepProblem(
                    f"episode {k} (seed {s}): reused env differs from a fresh one: "
                    + first_difference(old, new)
                )
            steps += len(actions)
    finally:
        reused.close()
    return f"{episodes} episodes, {steps} steps: reused == fresh"


def _check_fuzz(make: Callable[..., gym.Env], seed: int, n_fuzz: int, notes: list[str]) -> str:
    """Fuzz the env; on success append the legal-actions verdict to ``notes``."""
    env = make()
    rng = np.random.default_rng(seed)
    counts: dict[str, int] = {}
    try:
        _, info = env.reset(seed=seed)
        _validate_info(env, info, where="reset", done=False)
        finite = info.get("legal_actions") is not None
        oversized = oversized_actions(info.get("legal_actions"))
        universe = _action_universe(env)
        episode = 0
        for i in range(len(oversized) + n_fuzz):
            legal = info.get("legal_actions")
            if finite and legal is None:
                raise StepProblem(f"fuzz step {i}: legal_actions vanished from info")
            if i < len(oversized):
                kind, action = "oversized", oversized[i]
            else:
                kind, action = next(fuzz_actions(rng, legal))
            must_accept = kind == "legal"
            if kind == "near":
                clashes = case_clashes([*universe, *(legal or ())])
                action, must_accept = near_legal(rng, action, clashes)
            counts[kind] = counts.get(kind, 0) + 1
            where = f"fuzz step {i} ({kind} action {str(action)[:40]!r})"
            try:
                out = env.step(action)
            except Exception as error:
                tb = traceback.format_exc(limit=-3)
                raise StepProblem(f"{where} raised {error!r}\n{tb}") from error
            _, _, terminated, truncated, info = _validate_step(env, out, where=where)
            invalid = info["invalid_action"]
            if must_accept and invalid:
                raise StepProblem(
                    f"{where}: a legal action was marked invalid ({info.get('invalid_reason', '')})"
                )
            if kind == "nonstr" and not invalid:
                raise StepProblem(f"{where}: a non-string action was accepted")
            # A wrapper turn (a summary, a memory call) takes free text the env never
            # sees, so only the env's own turns must turn garbage down.
            wrapper_turn = bool(info.get("wrapper_turn"))
            garbage = kind in ("random", "empty", "huge", "oversized")
            if finite and garbage and not invalid and not wrapper_turn:
                normal = {normalize_action(a) for a in legal or []}
                if not isinstance(action, str) or normalize_action(action) not in normal:
                    raise StepProblem(f"{where}: garbage was accepted by a finite-action env")
            if terminated or truncated:
                episode += 1
                _, info = env.reset(seed=seed + episode)
                _validate_info(env, info, where="reset", done=False)
    finally:
        env.close()
    summary = ", ".join(f"{k}={v}" for k, v in sorted(counts.items()))
    notes.append(
        "listed, unique, in the action space and accepted, on every step"
        if finite
        else "free-form actions (no legal_actions)"
    )
    return f"{sum(counts.values())} actions ({summary}), 0 exceptions"


def _check_expert(
    make: Callable[..., gym.Env],
    env_id: str,
    seed: int,
    episodes: int,
    expert: Callable[[gym.Env], Any] | None,
) -> CheckResult | str:
    from turngym.agents import make_expert

    env = make()
    try:
        try:
            agent = expert(env) if expert is not None else make_expert(env, env_id)
        except KeyError:
            return CheckResult(
                "expert", True, f"no expert registered for {env_id}; pass expert=", skipped=True
            )
        except ValueError as error:
            return CheckResult("expert", True, str(error), skipped=True)
        wins, expert_return = _score(env, agent, seed, episodes, check_valid=True)
        if wins:
            return f"success in {wins}/{episodes} episodes"
        if not getattr(getattr(env.unwrapped, "game", None), "cooperative", False):
            raise StepProblem(f"the expert never succeeded in {episodes} episodes")
        # A cooperative game's success is a perfect team score, which a good expert may
        # not reach in a few games (MiniHanabi): it must then at least beat chance.
        from turngym.agents import RandomAgent

        _, random_return = _score(env, RandomAgent(env), seed, episodes, check_valid=False)
    finally:
        env.close()
    if expert_return <= random_return:
        raise StepProblem(
            f"the expert never succeeded in {episodes} episodes, and its mean return "
            f"{expert_return:.3g} is no better than a random agent's {random_return:.3g}"
        )
    return (
        f"no full success in {episodes} episodes; mean return {expert_return:.3g} against "
        f"a random agent's {random_return:.3g}"
    )


def _score(
    env: gym.Env, agent: Any, seed: int, episodes: int, check_valid: bool
) -> tuple[int, float]:
    """``agent`` on seeds ``seed``.. : (successes, mean return)."""
    wins, total = 0, 0.0
    for k in range(episodes):
        agent.reset(seed=seed + k)
        obs, info = env.reset(seed=seed + k)
        done = False
        while not done:
            obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
            total += float(reward)
            if check_valid and info.get("invalid_action"):
                raise StepProblem(
                    f"the expert played an invalid action on seed {seed + k}: "
                    f"{info.get('invalid_reason', obs[:80])}"
                )
            done = terminated or truncated
        wins += bool(info.get("success"))
    return wins, total / episodes


def _check_render(make: Callable[..., gym.Env], seed: int) -> str | CheckResult:
    try:
        env = make(render_mode="ansi")
    except TypeError as error:
        if "render_mode" not in str(error):
            raise
        return CheckResult("render ansi", True, "the factory takes no render_mode", skipped=True)
    try:
        _, info = env.reset(seed=seed)
        frames = [env.render()]
        rng = np.random.default_rng(seed)
        for _ in range(3):
            legal = info.get("legal_actions") or ["?"]
            *_, terminated, truncated, info = env.step(legal[int(rng.integers(len(legal)))])
            frames.append(env.render())
            if terminated or truncated:
                break
    finally:
        env.close()
    bad = [f for f in frames if not isinstance(f, str) or not f.strip()]
    if bad:
        raise StepProblem(f"render() in 'ansi' mode must return non-empty text, got {bad[0]!r}")
    return f"{len(frames)} frames of text"


def check_text_env(
    env_or_id: EnvSource,
    n_fuzz: int = 1000,
    *,
    seed: int = 0,
    reset_episodes: int = 50,
    expert_episodes: int = 5,
    expert: Callable[[gym.Env], Any] | None = None,
    make_kwargs: dict[str, Any] | None = None,
    cross_process: bool = False,
    raise_on_failure: bool = True,
) -> CheckReport:
    """Run every conformance check on a single-agent text env.

    Args:
        env_or_id: a registered id, an env made by ``gym.make`` (fresh copies come from
            its spec), or a zero-argument factory (e.g. the env class).
        n_fuzz: random fuzzed actions to send after a dozen oversized literals (at
            least 1,000 in turngym's own tests).
        seed: base seed for every check.
        reset_episodes: episodes compared between a reused and a fresh env.
        expert_episodes: episodes the expert plays; it must succeed at least once.
        expert: build the expert as ``expert(env)``; default: the registered one.
        make_kwargs: kwargs for ``gym.make`` / the factory.
        cross_process: also replay seeds ``seed`` and ``seed + 1`` in two fresh
            interpreters with other hash seeds and empty caches
            (``turngym.testing.replay.check_replay``); for envs that generate content.
        raise_on_failure: raise ``ConformanceError`` (with the table) if a check fails.

    Returns:
        The report; ``report.table()`` prints it.

    Example:
        >>> from turngym.testing import check_text_env
        >>> check_text_env("turngym/Bandit-v0", n_fuzz=50, reset_episodes=3).passed
        True

    """
    make, env_id = env_maker(env_or_id, dict(make_kwargs or {}))
    report = CheckReport(env_id)
    report.results.append(run_check("gymnasium check_env", lambda: _check_gymnasium(make)))
    report.results.append(run_check("seed determinism", lambda: _check_determinism(make, seed)))
    report.results.append(
        run_check("reset safety", lambda: _check_reset_safety(make, seed, reset_episodes))
    )
    notes: list[str] = []
    report.results.append(
        run_check("fuzzed actions", lambda: _check_fuzz(make, seed, n_fuzz, notes))
    )
    report.results.append(
        CheckResult("legal actions", bool(notes), notes[0] if notes else "see fuzzed actions")
    )
    report.results.append(run_check("render ansi", lambda: _check_render(make, seed)))
    report.results.append(
        run_check("expert", lambda: _check_expert(make, env_id, seed, expert_episodes, expert))
    )
    if cross_process:
        from turngym.testing.replay import _check_cross_process

        report.results.append(
            run_check(
                "cross-process replay",
                lambda: _check_cross_process(env_or_id, seed, make_kwargs=make_kwargs),
            )
        )
    if raise_on_failure and not report.passed:
        raise ConformanceError(report.table())
    return report
