"""Steps per second of each adapted library alone against turngym's adapter over it.

Issue 30: turngym wraps OpenSpiel, minigrid's BabyAI, Crafter, NLE/MiniHack, TextWorld and
Reasoning Gym. For each suite, ``benchmarks/overhead_<suite>.py`` gives pairs of players
(``pairs(quick)``): the library's own env, and the turngym env over it, both playing
uniformly random legal moves from the same seeds (resetting at each episode's end), the
native one calling the library's own text rendering where it has one. In ONE run each
pair is timed ``--repeat`` times, its two sides interleaved round-robin, and the fastest
pass of each side is kept, so a noisy neighbour slows neither side more than the other.
One JSON line per pair: steps/s of both and the adapter's overhead per step (target:
<= 15%, where the native env is not itself text-free).

    .venv/bin/python benchmarks/adapter_overhead.py                # every installed suite
    .venv/bin/python benchmarks/adapter_overhead.py --suites openspiel --steps 20000
    .venv/bin/python benchmarks/adapter_overhead.py --quick        # a smoke run
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import platform
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


def _line(**fields: object) -> None:
    print(json.dumps({"bench": "adapter_overhead", **fields}), flush=True)


def _time(side: Side, steps: int, seed: int) -> float:
    """Steps per second of one pass (what the libraries print goes to stderr)."""
    with contextlib.redirect_stdout(sys.stderr):  # minigrid prints "Sampling rejected"
        start = time.perf_counter()
        done = side(steps, seed)
        return done / (time.perf_counter() - start)


def measure(name: str, native: Side, adapter: Side, steps: int, repeat: int) -> dict[str, object]:
    """The fastest of ``repeat`` interleaved passes of each side, and the overhead."""
    _time(native, min(steps, 50), 0)  # warm caches and imports outside the timing
    _time(adapter, min(steps, 50), 0)
    best = {"native": 0.0, "adapter": 0.0}
    for r in range(repeat):
        best["native"] = max(best["native"], _time(native, steps, r))
        best["adapter"] = max(best["adapter"], _time(adapter, steps, r))
    overhead = best["native"] / best["adapter"] - 1  # extra time per step, relative
    return {
        "pair": name,
        "steps": steps,
        "repeat": repeat,
        "native_steps_per_s": round(best["native"], 1),
        "adapter_steps_per_s": round(best["adapter"], 1),
        "overhead": round(overhead, 4),
        "target_met": overhead <= 0.15,
    }


def main() -> None:
    """Time every pair of the chosen suites, one JSON line each."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suites", default=",".join(SUITES), help="comma list of suites")
    parser.add_argument("--steps", type=int, default=2000, help="steps per timed pass")
    parser.add_argument("--repeat", type=int, default=5, help="timed passes per side")
    parser.add_argument("--quick", action="store_true", help="few steps, the quick pairs")
    args = parser.parse_args()
    suites = [s.strip() for s in args.suites.split(",") if s.strip()]
    unknown = [s for s in suites if s not in SUITES]
    if unknown:
        parser.error(f"--suites takes {', '.join(SUITES)}; got {unknown[0]!r}")
    if args.steps < 1 or args.repeat < 1:
        parser.error("--steps and --repeat must be at least 1")
    steps, repeat = (50, 1) if args.quick else (args.steps, args.repeat)
    sys.path.insert(0, str(Path(__file__).parent))
    _line(python=platform.python_version(), machine=platform.machine(), suites=suites)
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
        for name, native, adapter in pairs:
            _line(module=module_name, **measure(name, native, adapter, steps, repeat))


if __name__ == "__main__":
    main()
