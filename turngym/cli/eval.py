"""`turngym eval`: agents over many seeds of many envs, one row per pair as it finishes."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from typing import Any

from turngym.cli.args import (
    FAMILIES_HELP,
    OPPONENT_HELP,
    SET_HELP,
    WRAPPERS_HELP,
    CliError,
    agent_for,
    check_kwargs,
    game_options,
    parse_sets,
    selected,
    wrappers_for,
)
from turngym.registry import EnvEntry
from turngym.sdk.agents import MODEL_KINDS
from turngym.sdk.evaluation import EvalJob
from turngym.tables import TableStream

__all__ = ["add_eval_parser", "cmd_eval"]


def add_eval_parser(sub: Any, formatter: type[argparse.HelpFormatter]) -> None:
    """Add ``eval`` to the ``turngym`` command's subparsers."""
    p = sub.add_parser(
        "eval",
        help="play agents over many seeds and print a success table",
        description="Play agents over seeds SEED..SEED+EPISODES-1 of each env and print one "
        "row (or JSON line) per (env, agent) as soon as it is done. Envs whose extra or "
        "system package is missing are skipped, with the reason.",
        formatter_class=formatter,
    )
    p.add_argument("env", nargs="*", help="env ids or globs, e.g. Wordle-v0 'turngym/*Poker*'")
    p.add_argument("--all", action="store_true", help="every registered env")
    p.add_argument("--family", help=f"only these families (comma list): {FAMILIES_HELP}")
    p.add_argument("--agents", default="expert,random", help="comma list: expert, random")
    p.add_argument(
        "--agent",
        action="append",
        metavar="KIND",
        help="an agent to evaluate (repeatable; replaces --agents): expert, random, "
        "hf:MODEL_DIR (a local transformers model) or openai:URL (an OpenAI-compatible server)",
    )
    p.add_argument("--episodes", type=int, default=100, help="episodes per (env, agent)")
    p.add_argument("--seed", type=int, default=0, help="episode k is reset with seed SEED + k")
    p.add_argument("--json", action="store_true", help="one JSON line per (env, agent)")
    p.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="worker processes for expert and random agents (each env in one process, "
        "with its own browser or X server); a model agent plays in the main process",
    )
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help=SET_HELP)
    p.add_argument("--opponent", choices=["random", "expert"], help=OPPONENT_HELP)
    p.add_argument("--seat", help="games: the evaluated agent's seat (default: 0)")
    p.add_argument("--wrappers", metavar="SPECS", help=WRAPPERS_HELP)
    p.set_defaults(fn=cmd_eval)


def eval_jobs(
    args: argparse.Namespace, rows: list[EnvEntry], agents: list[str]
) -> tuple[list[EvalJob], list[tuple[str, str | None, str]]]:
    """The (env, agent) jobs to run, and the pairs skipped: (env, agent or None, why)."""
    kwargs = parse_sets(args.set)
    if (args.opponent or args.seat) is not None and all(row.game is None for row in rows):
        raise CliError("--opponent and --seat are for games; no game is among the envs")
    stacks = {kind: wrappers_for(kind, getattr(args, "wrappers", None)) for kind in agents}
    jobs: list[EvalJob] = []
    skipped: list[tuple[str, str | None, str]] = []
    needs: dict[tuple[str | None, tuple[str, ...]], str | None] = {}
    for row in rows:
        if (row.extra, row.system) not in needs:  # looked up once per kind of need
            needs[row.extra, row.system] = row.unavailable()
        reason = needs[row.extra, row.system]
        if reason is not None:
            skipped.append((row.id, None, reason))
            continue
        env_kwargs = dict(kwargs)
        if kwargs:
            check_kwargs(row.id, kwargs)
        if row.game is not None:
            game_options(row.id, args, env_kwargs)
        for kind in agents:
            if kind == "expert" and row.expert is None:
                skipped.append((row.id, kind, "no scripted expert"))
                continue
            wrappers = stacks[kind]
            jobs.append(EvalJob(row.id, kind, args.episodes, args.seed, env_kwargs, wrappers))
    return jobs, skipped


def cmd_eval(args: argparse.Namespace) -> int:
    """Run ``turngym eval``; exit status 1 when an env raised (its row says why)."""
    from turngym.sdk.evaluation import evaluate_jobs

    if not (args.env or args.all or args.family):
        raise CliError("name at least one env id or glob, or pass --all or --family")
    if args.jobs < 1:
        raise CliError(f"--jobs must be >= 1, got {args.jobs}")
    families = [f.strip() for f in (args.family or "").split(",") if f.strip()]
    rows = selected(args.env, families)
    if not rows:
        raise CliError(f"no env of family {args.family} among {' '.join(args.env)}")
    agents = [a.strip() for a in args.agents.split(",") if a.strip()] if args.agent is None else []
    agents += args.agent or []
    for kind in agents:
        if kind not in ("expert", "random") and not kind.startswith(MODEL_KINDS):
            raise CliError(f"agents are expert, random, hf:DIR or openai:URL, got {kind!r}")
    if not agents:
        raise CliError("name an agent: --agents expert,random or --agent KIND")
    jobs, skipped = eval_jobs(args, rows, agents)
    if args.wrappers is None and not args.json:  # the stacks the jobs took from the models
        trained = {job.agent: job.wrappers for job in jobs if job.wrappers}
        for kind, stack in trained.items():
            print(f"{kind} plays under the wrappers it was trained under: {','.join(stack)}")
    # A model is loaded once, here, and plays every env batched; expert and random
    # agents are built per env, in the workers when --jobs > 1.
    models = {k: agent_for(k, None, seed=args.seed) for k in agents if k.startswith(MODEL_KINDS)}
    table = TableStream(
        [
            "env",
            "agent",
            "episodes",
            "success [95% CI]",
            "mean return",
            "mean steps",
            "invalid/step",
        ],
        widths=[max(len(r.id) for r in rows), max(map(len, agents), default=5), 0, 17],
    )
    for env_id, kind, why in skipped:
        if args.json:
            print(json.dumps({"env": env_id, **({"agent": kind} if kind else {}), "skipped": why}))
        else:
            print(f"skipped {env_id}{' ' + kind if kind else ''}: {why}")
    if not args.json:
        print(f"seeds {args.seed}..{args.seed + args.episodes - 1}\n{table.header()}", flush=True)
    results = evaluate_jobs(
        jobs, workers=args.jobs, agents=models, show_progress=args.jobs == 1, plain_every=30.0
    )
    try:
        return _print_results(results, args, table)
    except KeyboardInterrupt:  # the rows so far are printed
        print("\ninterrupted", file=sys.stderr)
        return 130
    finally:
        results.close()  # stops the workers now, also when the reader went away


def _print_results(results: Iterator[Any], args: argparse.Namespace, table: TableStream) -> int:
    """Print each result as soon as it comes (flushed); 1 if any job raised, else 0."""
    from turngym.sdk.evaluation import EvalFailure

    failed = 0
    for result in results:
        if isinstance(result, EvalFailure):
            failed += 1
            line = {"env": result.env_id, "agent": result.agent, "error": result.error}
            cells = [result.env_id, result.agent, args.episodes, f"error: {result.error}"]
        else:
            line = result.summary()
            low, high = result.success_interval
            cells = [
                result.env_id,
                result.agent,
                len(result.episodes),
                f"{result.success_rate:.2f} [{low:.2f}, {high:.2f}]",
                f"{result.mean_return:+.3f}",
                f"{result.mean_steps:.1f}",
                f"{result.invalid_rate:.2f}",
            ]
        print(json.dumps(line) if args.json else table.row(cells), flush=True)
    return 1 if failed else 0
