"""`turngym list`: the registered envs as a table or JSON lines, and what each needs."""

from __future__ import annotations

import argparse
import json
from typing import Any

from turngym.cli.args import FAMILIES_HELP, CliError

__all__ = ["add_list_parser", "cmd_list"]


def add_list_parser(sub: Any, formatter: type[argparse.HelpFormatter]) -> None:
    """Add ``list`` to the ``turngym`` command's subparsers."""
    p = sub.add_parser("list", help="list the registered envs", formatter_class=formatter)
    p.add_argument("--family", help=f"only this family: {FAMILIES_HELP}")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.set_defaults(fn=cmd_list)


def cmd_list(args: argparse.Namespace) -> int:
    """Run ``turngym list``; returns the exit status."""
    from turngym.registry import select
    from turngym.tables import format_table

    try:
        rows = select(families=[args.family] if args.family else [])
    except ValueError as error:
        raise CliError(f"--{error}") from None
    by_needs: dict[tuple[str | None, tuple[str, ...]], str | None] = {}
    for e in rows:  # looked up once per kind of need, not per env
        if (e.extra, e.system) not in by_needs:
            by_needs[e.extra, e.system] = e.unavailable()
    missing = {e.id: by_needs[e.extra, e.system] for e in rows}
    if args.json:
        for e in rows:
            print(
                json.dumps(
                    {
                        "id": e.id,
                        "family": e.family,
                        "finite_actions": e.finite_actions,
                        "max_episode_steps": e.max_episode_steps,
                        "expert": e.expert is not None,
                        "extra": e.extra,
                        "system": list(e.system),
                        "installed": missing[e.id] is None,
                        "missing": missing[e.id],
                        "description": e.description,
                    }
                )
            )
        return 0
    table = [
        [
            e.id,
            e.family,
            "yes" if e.finite_actions else "no",
            e.max_episode_steps or "-",
            "yes" if e.expert else "no",
            e.extra or "-",
            "yes" if missing[e.id] is None else "no",
            e.description,
        ]
        for e in rows
    ]
    headers = ["id", "family", "finite actions", "max steps", "expert", "extra", "installed"]
    print(format_table([*headers, "description"], table))
    fixes = {(e.extra, missing[e.id]) for e in rows if missing[e.id] is not None}
    for extra, fix in sorted(fixes, key=str):
        print(f"{extra} envs need: {fix}")
    return 0
