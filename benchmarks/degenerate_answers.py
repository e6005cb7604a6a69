"""Degenerate answers against every answer-graded env: one JSON line per (id, answer).

ARCHITECTURE.md section 10: no answer that reads no question (``nan``, ``0``, nothing,
the question copied back, a prefix of the right answer) may win more often than a
random agent. This runs ``turngym.testing.check_degenerate_answers`` over every id
whose registry row has an ``answer_action`` (``turngym.testing.answer_graded_ids``),
on ``--seeds`` seeds each, and prints one JSON line per measurement: the random
agent's and each degenerate answer's success rate on one id. The CI test
(``tests/testing/test_degenerate.py``) runs the same probe on a small sample.

    .venv/bin/python benchmarks/degenerate_answers.py                      # all, 100 seeds
    .venv/bin/python benchmarks/degenerate_answers.py --ids 'reasoning_gym.*' --seeds 20
    .venv/bin/python benchmarks/degenerate_answers.py --markdown table.md  # the summary table
    .venv/bin/python benchmarks/degenerate_answers.py --from-jsonl run.jsonl --markdown t.md

An id that cannot run here (an extra or a system package missing) prints a
``skipped`` line; one whose probe raised prints an ``error`` line; the script exits 1
when any id failed or raised.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from turngym.progress import progress
from turngym.registry import entry, select
from turngym.testing import answer_graded_ids, check_degenerate_answers
from turngym.testing.degenerate import wilson_bounds

_OUT = sys.stdout
"""Where the JSON lines go; ``main`` points it at a copy of stdout's descriptor."""


def _line(**fields: Any) -> dict[str, Any]:
    line = {"bench": "degenerate_answers", **fields}
    print(json.dumps(line), file=_OUT, flush=True)
    return line


@contextlib.contextmanager
def _stray_output_to_stderr() -> Iterator[None]:
    """Send what else writes to stdout to stderr, file descriptor 1 included.

    Some generators and scorers print (``bf``'s dots, ``tower_of_hanoi``'s "Error
    validating move"), some in the scorer's worker process, which writes to the
    descriptor itself: only the JSON lines may reach stdout.
    """
    global _OUT
    sys.stdout.flush()
    kept = os.dup(1)
    os.dup2(2, 1)
    _OUT = os.fdopen(kept, "w")
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        _OUT.flush()
        os.dup2(kept, 1)
        _OUT.close()
        _OUT = sys.stdout


def _ids(patterns: list[str]) -> list[str]:
    graded = answer_graded_ids()
    if not patterns:
        return graded
    chosen = {e.id for e in select(patterns)}
    return [i for i in graded if i in chosen]


def _markdown(lines: list[dict[str, Any]]) -> str:
    """One row per id from the JSON lines: the random agent, the best degenerate answer."""
    by_id: dict[str, list[dict[str, Any]]] = {}
    for line in lines:
        by_id.setdefault(line["id"], []).append(line)
    out = [
        "| id | random agent | best degenerate answer | its wins | bar | result |",
        "|---|---|---|---|---|---|",
    ]
    for env_id, rows in by_id.items():
        name = f"`{env_id.removeprefix('turngym/')}`"
        if "skipped" in rows[0] or "error" in rows[0]:
            why = rows[0].get("skipped") or rows[0]["error"]
            kind = "skipped" if "skipped" in rows[0] else "**error**"
            out.append(f"| {name} | | | | | {kind}: {why.replace('|', '/')} |")
            continue
        random = next(r for r in rows if r["random"])
        answers = [r for r in rows if not r["random"]]
        best = max(answers, key=lambda r: (r["rate"], r["mean_return"]))
        shown = best["example"].strip("'").replace("|", "/").replace("`", "'")
        chance = f" (chance {best['chance']:g})" if best.get("chance") else ""
        verdict = "**FAIL**" if any(r["failed"] for r in answers) else "pass"
        out.append(
            f"| {name} | {random['successes']}/{random['episodes']} "
            f"| {best['answer']} (`{shown}`) | {best['successes']}/{best['episodes']} "
            f"| {best['bar']:.3f}{chance} | {verdict} |"
        )
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Run the probe over the chosen ids; 1 when any failed or raised."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ids", nargs="*", default=[], help="ids or globs (default: all)")
    parser.add_argument("--seeds", type=int, default=100, help="episodes per answer and id")
    parser.add_argument("--seed", type=int, default=0, help="the first seed")
    parser.add_argument("--z", type=float, default=3.0, help="Wilson interval width")
    parser.add_argument("--markdown", type=Path, help="also write the summary table here")
    parser.add_argument("--all-answers", action="store_true", help="a line per answer too")
    parser.add_argument("--from-jsonl", type=Path, help="only rebuild --markdown from these lines")
    args = parser.parse_args(argv)
    if args.from_jsonl is not None:
        if args.markdown is None:
            parser.error("--from-jsonl rebuilds the table: give --markdown too")
        saved = [json.loads(t) for t in args.from_jsonl.read_text().splitlines() if t.strip()]
        args.markdown.write_text(_markdown(saved))
        return 0
    with _stray_output_to_stderr():
        lines, bad = _run(args)
    if args.markdown is not None:
        args.markdown.write_text(_markdown(lines))
    return 1 if bad else 0


def _run(args: argparse.Namespace) -> tuple[list[dict[str, Any]], int]:
    """Probe every chosen id: the JSON lines, and how many ids failed or raised."""
    ids = _ids(args.ids)
    lines: list[dict[str, Any]] = []
    bad = 0
    for env_id in progress(ids, total=len(ids), desc="degenerate answers", plain_every=30.0):
        missing = entry(env_id).unavailable()
        if missing:
            lines.append(_line(id=env_id, skipped=missing))
            continue
        try:
            report = check_degenerate_answers(
                env_id, args.seeds, seed=args.seed, z=args.z, raise_on_failure=False
            )
        except Exception as error:  # one id's crash is a line, not the end of the run
            bad += 1
            lines.append(_line(id=env_id, error=f"{type(error).__name__}: {error}"[:500]))
            continue
        bad += not report.passed
        rows = [report.random, *report.results]
        if not args.all_answers:  # the random agent, the failures and the best answer
            rows = [report.random, *(r for r in report.results if r.failed)]
            if report.worst is not None and report.worst not in rows:
                rows.append(report.worst)
        for row in rows:
            low, high = wilson_bounds(row.successes, row.episodes, args.z)
            lines.append(
                _line(
                    id=env_id,
                    answer=row.label,
                    example=row.example,
                    successes=row.successes,
                    episodes=row.episodes,
                    rate=round(row.rate, 4),
                    rate_bounds=[round(low, 4), round(high, 4)],
                    mean_return=round(row.mean_return, 4),
                    random=row is report.random,
                    failed=row.failed,
                    bar=round(report.bar, 4),
                    chance=report.chance,
                    seconds=round(report.seconds, 2),
                    python=platform.python_version(),
                )
            )
    return lines, bad


if __name__ == "__main__":
    sys.exit(main())
