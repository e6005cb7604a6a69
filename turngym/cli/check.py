"""`turngym check`: the conformance checks of named envs (or all), as a pass/fail table."""

from __future__ import annotations

import argparse
from typing import Any

from turngym.cli.args import SET_HELP, CliError, parse_sets, selected

__all__ = ["add_check_parser", "cmd_check"]


def add_check_parser(sub: Any, formatter: type[argparse.HelpFormatter]) -> None:
    """Add ``check`` to the ``turngym`` command's subparsers."""
    p = sub.add_parser(
        "check",
        help="run the conformance checks and print a pass/fail table",
        formatter_class=formatter,
    )
    p.add_argument("env", nargs="*", help="env ids or globs, e.g. 'turngym/*Poker*'")
    p.add_argument("--all", action="store_true", help="check every text env and game")
    p.add_argument("--n-fuzz", type=int, default=1000, help="fuzzed actions per env")
    p.add_argument("--reset-episodes", type=int, default=50, help="reused-vs-fresh episodes")
    p.add_argument("--seed", type=int, default=0, help="the first seed of every check")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help=SET_HELP)
    p.set_defaults(fn=cmd_check)


def cmd_check(args: argparse.Namespace) -> int:
    """Run ``turngym check``; returns the exit status (1: an env failed)."""
    from turngym.registry import ENVS, entry
    from turngym.testing import check_game, check_text_env

    ids = (
        [e.id for e in ENVS if e.family in ("text", "classic", "games")]
        if args.all
        else [e.id for e in selected(args.env, [])]
        if args.env
        else []
    )
    if not ids:
        raise CliError("name at least one env id, or pass --all")
    kwargs = parse_sets(args.set)
    # --all skips what this install cannot run; an env named on purpose is an error
    missing = {env_id: entry(env_id).unavailable() for env_id in ids}
    for env_id, reason in missing.items():
        if reason is not None and not args.all:
            raise CliError(f"{entry(env_id).name} cannot run here: {reason}")
    failed = 0
    for env_id in ids:
        if missing[env_id] is not None:
            print(f"skipped {env_id}: {missing[env_id]}\n")
            continue
        if entry(env_id).game is not None:
            report = check_game(
                env_id,
                n_fuzz=args.n_fuzz,
                reset_games=args.reset_episodes,
                seed=args.seed,
                make_kwargs=kwargs,
                raise_on_failure=False,
            )
        else:
            report = check_text_env(
                env_id,
                n_fuzz=args.n_fuzz,
                reset_episodes=args.reset_episodes,
                seed=args.seed,
                make_kwargs=kwargs,
                raise_on_failure=False,
            )
        print(report.table())
        print("PASS\n" if report.passed else "FAIL\n")
        failed += not report.passed
    checked = sum(reason is None for reason in missing.values())
    if len(ids) > 1:
        skipped = len(ids) - checked
        note = f" ({skipped} skipped: extras not installed)" if skipped else ""
        print(f"{checked - failed}/{checked} envs pass{note}")
    return 1 if failed else 0
