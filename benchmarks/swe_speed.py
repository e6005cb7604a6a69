"""SWE env speed: reset, one ``bash("ls")`` and grading, per sandbox backend, as JSON lines.

On the bundled tasks (``SWE-v0``), for each backend:
- ``reset_ms``: ``env.reset`` with the task's base already prepared (a fresh copy of the
  repository at its base commit, the sandbox ready), median over tasks;
- ``bash_ls_ms``: one ``bash("ls")`` step (sandbox start, the command, the observation),
  median over ``--calls`` calls per task;
- ``grade_ms``: grading the reference patch (fresh copy, ``git apply`` of the patch,
  test infrastructure put back, the test patch, the FAIL_TO_PASS and PASS_TO_PASS test
  files under pytest with turngym's signed-outcome plugin), median over tasks; every
  grade must resolve.

Backends: ``bwrap`` (turngym's default: bubblewrap, no network, limits), ``local`` (a
plain subprocess with rlimits and no isolation: what an unsandboxed harness such as
mini-swe-agent's local environment costs), and ``docker`` when an engine answers (the
papers' setup; skipped with the reason otherwise). ``raw-bwrap`` is the floor: one
``bwrap ... ls`` subprocess with nothing around it. The summary line checks the issue's
targets (bwrap: reset <= 50 ms, ``bash("ls")`` <= 30 ms, grading <= 500 ms).

    python benchmarks/swe_speed.py [--calls 20] [--tasks 0]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from turngym.agents.experts.swe import patch_actions
from turngym.envs.swe.env import SWEEnv
from turngym.envs.swe.tasks import bundled_tasks
from turngym.host.sandbox import bwrap_available, docker_available


def emit(**fields: Any) -> None:
    """Print one JSON measurement line."""
    print(json.dumps({"bench": "swe_speed", **fields}), flush=True)


def summary(values: list[float]) -> dict[str, float]:
    """Median, 90th percentile and count of milliseconds."""
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return {"median": round(statistics.median(ordered), 2), "p90": round(p90, 2), "n": len(values)}


def measure(backend: str, tasks: list[Any], calls: int) -> dict[str, dict[str, float]]:
    """Reset, ``bash("ls")`` and grading times (ms) of one backend over the tasks."""
    env = SWEEnv(tasks=tasks, sandbox=backend)
    resets, lss, grades = [], [], []
    try:
        for task in tasks:
            env.reset(options={"task": task.instance_id})  # warm: base prepared once
            start = time.perf_counter()
            env.reset(options={"task": task.instance_id})
            resets.append((time.perf_counter() - start) * 1000)
            for _ in range(calls):
                start = time.perf_counter()
                obs, *_ = env.step('bash("ls")')
                lss.append((time.perf_counter() - start) * 1000)
            assert "(exit code 0)" in obs, obs
            for action in patch_actions(task.patch):
                env.step(action)
            start = time.perf_counter()
            *_, info = env.step("submit()")
            grades.append((time.perf_counter() - start) * 1000)
            if not info["resolved"]:
                raise SystemExit(f"{backend}: the reference patch of {task.instance_id} failed")
    finally:
        env.close()
    return {"reset_ms": summary(resets), "bash_ls_ms": summary(lss), "grade_ms": summary(grades)}


def raw_bwrap(calls: int) -> dict[str, float]:
    """One bare ``bwrap`` running ``ls``: the floor of any bubblewrap sandbox."""
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        subprocess.run(
            ["bwrap", "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin",
             "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
             "--proc", "/proc", "--dev", "/dev", "--unshare-all", "--die-with-parent",
             "ls", "/"],
            check=True, capture_output=True,
        )  # fmt: skip
        times.append((time.perf_counter() - start) * 1000)
    return summary(times)


def main() -> None:
    """Run every backend that is available and print the JSON lines."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20, help='bash("ls") calls per task')
    parser.add_argument("--tasks", type=int, default=0, help="first N bundled tasks (0: all)")
    args = parser.parse_args()
    tasks = list(bundled_tasks())[: args.tasks or None]
    emit(
        kind="machine",
        python=platform.python_version(),
        cpus=os.cpu_count(),
        tasks=len(tasks),
        calls=args.calls,
    )
    results: dict[str, dict[str, dict[str, float]]] = {}
    ok, why = bwrap_available()
    if ok:
        emit(kind="floor", backend="raw-bwrap", bash_ls_ms=raw_bwrap(args.calls * 5))
    backends = [("bwrap", ok, why), ("local", True, ""), ("docker", *docker_available())]
    for backend, available, reason in backends:
        if backend == "docker" and available:
            reason, available = "the bundled tasks have no images; pass a SWE-bench set", False
        if not available:
            emit(kind="backend", backend=backend, skipped=reason)
            continue
        results[backend] = measure(backend, tasks, args.calls)
        emit(kind="backend", backend=backend, **results[backend])
    if "bwrap" in results:
        got = {metric: results["bwrap"][metric]["median"] for metric in results["bwrap"]}
        targets = {"reset_ms": 50.0, "bash_ls_ms": 30.0, "grade_ms": 500.0}
        emit(
            kind="summary",
            bwrap=got,
            targets=targets,
            meets_targets=all(got[m] <= targets[m] for m in targets),
            isolation_cost_vs_local={
                m: round(got[m] / results["local"][m]["median"], 2) for m in targets
            }
            if "local" in results
            else None,
        )


if __name__ == "__main__":
    main()
