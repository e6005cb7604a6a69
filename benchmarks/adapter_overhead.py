"""Steps per second of each adapted library's own text path against turngym's adapter over it.

Issues 30 and 42: turngym wraps OpenSpiel, minigrid's BabyAI, Crafter, NLE/MiniHack,
TextWorld and Reasoning Gym. For each suite, ``benchmarks/overhead_<suite>.py`` gives
pairs of players (``pairs(quick)``): the library's own env, and the turngym env over it,
both playing uniformly random legal moves from the same seeds (resetting at each
episode's end). The peer (``native``) produces the same information an agent reads from
ours: the library's own text where it has one (OpenSpiel's observation or
information-state string and its legal actions' names, NLE's terminal and inventory as
text, TextWorld's feedback and admissible commands, Reasoning Gym's question and scorer);
minigrid and Crafter have no text, so there the peer is the text-free env. Our side is
what a user gets: ``gym.make`` (its ``TimeLimit``, ``OrderEnforcing`` and
``PassiveEnvChecker`` included) or ``turngym.make_game``. Each side builds its env once
(outside the timing) and resets it at the start of every block.

Timing that survives a loaded machine: each side is timed in this process's CPU time
(a pair whose side works in another process, listed in its module's ``WALL_CLOCK``, in
wall-clock time), and each pair is timed in ``--blocks`` blocks of
``--steps`` steps, the two sides alternating within each block (native first in even
blocks, ours first in odd ones), so a burst of load from a neighbour hits both sides of
a block. Per block the overhead is ``(our time per step) / (native time per step) - 1``;
the figure reported is the median over blocks (with the median steps/s of each side and
the quartiles of the overhead). One JSON line per pair; the target is <= 25%.

    .venv/bin/python benchmarks/adapter_overhead.py                # every installed suite
    .venv/bin/python benchmarks/adapter_overhead.py --suites openspiel --blocks 21
    .venv/bin/python benchmarks/adapter_overhead.py --pairs '*countdown' --steps 200
    .venv/bin/python benchmarks/adapter_overhead.py --quick        # a smoke run
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import importlib
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

SUITES = ("openspiel", "babyai", "crafter", "nethack", "textworld", "reasoning_gym")
"""Each has a ``benchmarks/overhead_<suite>.py`` (suites sharing a module share a file)."""

_MODULES = {"reasoning_gym": "overhead_textworld"}
"""Suites whose pairs live in another suite's module."""

Side = Callable[[int, int], int]
"""Plays ``steps`` random legal steps from ``seed``; returns the steps done."""


TARGET = 0.25
"""The largest overhead per step the adapters aim at (issue 42)."""


def _line(**fields: object) -> None:
    print(json.dumps({"bench": "adapter_overhead", **fields}), flush=True)


def _seconds(side: Side, steps: int, seed: int, clock: Callable[[], float]) -> float:
    """Seconds per step of one block (what the libraries print goes to stderr)."""
    with contextlib.redirect_stdout(sys.stderr):  # minigrid prints "Sampling rejected"
        start = clock()
        done = side(steps, seed)
        return (clock() - start) / done


def _quartiles(values: list[float]) -> tuple[float, float, float]:
    q1, q2, q3 = statistics.quantiles(values, n=4) if len(values) > 1 else values * 3
    return q1, q2, q3


def measure(
    name: str, native: Side, adapter: Side, steps: int, blocks: int, wall: bool = False
) -> dict[str, object]:
    """The median over ``blocks`` alternating blocks of each side's rate and of the overhead.

    Timed in this process's CPU time (time on a CPU: a loaded machine's waits do not
    count), or with ``wall`` in wall-clock time: for pairs whose side runs work in another
    process (``WALL_CLOCK`` of the suite's module), which CPU time would leave out.
    """
    clock = time.perf_counter if wall else time.process_time
    _seconds(native, min(steps, 50), 0, clock)  # build the envs, warm caches untimed
    _seconds(adapter, min(steps, 50), 0, clock)
    times: dict[str, list[float]] = {"native": [], "adapter": []}
    overheads = []
    for block in range(blocks):
        order = [("native", native), ("adapter", adapter)]
        for side, play in order if block % 2 == 0 else order[::-1]:
            times[side].append(_seconds(play, steps, block, clock))
        overheads.append(times["adapter"][-1] / times["native"][-1] - 1)
    q1, overhead, q3 = _quartiles(overheads)
    return {
        "pair": name,
        "steps": steps,
        "blocks": blocks,
        "clock": "wall" if wall else "cpu",
        "native_steps_per_s": round(1 / statistics.median(times["native"]), 1),
        "adapter_steps_per_s": round(1 / statistics.median(times["adapter"]), 1),
        "overhead": round(overhead, 4),
        "overhead_quartiles": [round(q1, 4), round(q3, 4)],
        "target_met": overhead <= TARGET,
    }


def main() -> None:
    """Time every pair of the chosen suites, one JSON line each."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suites", default=",".join(SUITES), help="comma list of suites")
    parser.add_argument("--steps", type=int, default=2000, help="steps per block and side")
    parser.add_argument("--blocks", type=int, default=9, help="alternating blocks per pair")
    parser.add_argument("--quick", action="store_true", help="few steps, the quick pairs")
    parser.add_argument(
        "--pairs", default="*", help="comma list of globs over pair names, e.g. 'openspiel.*'"
    )
    args = parser.parse_args()
    suites = [s.strip() for s in args.suites.split(",") if s.strip()]
    globs = [g.strip() for g in args.pairs.split(",") if g.strip()] or ["*"]
    unknown = [s for s in suites if s not in SUITES]
    if unknown:
        parser.error(f"--suites takes {', '.join(SUITES)}; got {unknown[0]!r}")
    if args.steps < 1 or args.blocks < 1:
        parser.error("--steps and --blocks must be at least 1")
    steps, blocks = (50, 2) if args.quick else (args.steps, args.blocks)
    sys.path.insert(0, str(Path(__file__).parent))
    _line(
        python=platform.python_version(),
        machine=platform.machine(),
        suites=suites,
        load_average=[round(x, 2) for x in os.getloadavg()],
    )
    seen: set[str] = set()
    for suite in suites:
        module_name = _MODULES.get(suite, f"overhead_{suite}")
        if module_name in seen:
            continue
        seen.add(module_name)
        try:
            module = importlib.import_module(module_name)
            pairs = module.pairs(args.quick)
        except ImportError as exc:  # the suite's library (or its module) is not here
            _line(suite=suite, skipped=str(exc))
            continue
        wall_clock = getattr(module, "WALL_CLOCK", frozenset())
        for name, native, adapter in pairs:
            if not any(fnmatch.fnmatchcase(name, glob) for glob in globs):
                continue
            row = measure(name, native, adapter, steps, blocks, wall=name in wall_clock)
            _line(module=module_name, **row)


if __name__ == "__main__":
    main()
