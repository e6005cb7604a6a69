"""Reasoning Gym scorers run under a time bound: an answer cannot stall the rollout.

Each stall class below is real: the dataset's own ``score_answer`` (what the env called
in-process before the bound) is run in a forked child with a CPU rlimit of
`PROOF_CPU_SECONDS`, and must be killed by it. Then the env, with a 1 s bound, must
score the answer as wrong, say why in ``info["score_error"]``, kill its worker, and
score the next answer with a new one. No test reads a clock: they count kills, starts
and processes.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

reasoning_gym = pytest.importorskip("reasoning_gym")

from turngym.envs.adapters.reasoning_gym import ReasoningGymEnv  # noqa: E402

PROOF_CPU_SECONDS = 2
"""CPU seconds the raw scorer gets to prove an answer stalls it (it needs far more)."""

_REPO = Path(__file__).resolve().parents[2]


def _nest(outer: str, inner: str, depth: int, close: str = ")") -> str:
    return outer * depth + inner + close * depth


# (task, answer with V for the entry's variable): each of these takes the dataset's own
# scorer tens of seconds to minutes of CPU, and the answer guard admits all of them.
STALLS = {
    # sympy.simplify of the derivative of nested transcendental calls
    "nested-exp": ("simple_integration", _nest("exp(", "V", 12)),
    "nested-sin": ("intermediate_integration", _nest("sin(", "V", 16)),
    # a power of a sum that simplify expands: ((V+1)**2 + ...)**2 nested, degree 4096
    "power-of-a-sum": ("simple_integration", _nest("(", "V+1", 12, close=")**2")),
    # the move count is a repeat count: ten million quarter turns of a simulated cube
    "repeated-move": ("rubiks_cube", "R9999999"),
}


def _env(task: str, **kwargs: object) -> tuple[ReasoningGymEnv, str]:
    env = ReasoningGymEnv(task, attempts=1, score_seconds=1.0, **kwargs)  # type: ignore[arg-type]
    env.reset(seed=0)
    return env, env.entry.get("metadata", {}).get("variable", "x")


def _raw_scorer_is_stopped_by_its_cpu_limit(env: ReasoningGymEnv, answer: str) -> bool:
    """Whether the dataset's own scorer, in a forked child, is killed at its CPU rlimit."""
    pid = os.fork()
    if pid == 0:  # the child: score, and report finishing by its exit status
        try:
            resource.setrlimit(resource.RLIMIT_CPU, (PROOF_CPU_SECONDS, PROOF_CPU_SECONDS + 1))
            env._dataset.score_answer(answer, env.entry)
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    return os.WIFSIGNALED(status) and os.WTERMSIG(status) in (signal.SIGXCPU, signal.SIGKILL)


@pytest.mark.parametrize("stall", list(STALLS))
def test_a_stalling_answer_scores_zero_and_the_worker_is_replaced(stall: str) -> None:
    task, template = STALLS[stall]
    env, variable = _env(task)
    answer = template.replace("V", variable)
    assert _raw_scorer_is_stopped_by_its_cpu_limit(env, answer), "not a stall: pick a harder one"

    _, reward, terminated, _, info = env.step(answer)
    assert (reward, terminated, info["success"]) == (0.0, True, False)
    assert info["score"] == 0.0
    assert "ran past its 1 s bound" in info["score_error"]
    assert (env.scorer.kills, env.scorer.starts, env.scorer.pid) == (1, 1, None)

    # the next answer gets a new worker, and a right answer is still paid
    env.reset(seed=0)
    if env.entry["answer"] is not None:
        _, reward, _, _, info = env.step(env.entry["answer"])
        assert (reward, info["success"], "score_error" in info) == (1.0, True, False)
        assert (env.scorer.kills, env.scorer.starts) == (1, 2)
    env.close()


def test_a_stall_on_an_early_attempt_says_why_and_leaves_attempts() -> None:
    env = ReasoningGymEnv("simple_integration", attempts=2, score_seconds=1.0)
    env.reset(seed=0)
    variable = env.entry["metadata"]["variable"]
    _, reward, terminated, _, info = env.step(_nest("exp(", variable, 12))
    assert (reward, terminated, info["attempts_left"]) == (0.0, False, 1)
    assert "bound" in info["score_error"]
    _, reward, terminated, _, info = env.step(env.entry["answer"])
    assert (reward, terminated, info["success"]) == (1.0, True, True)
    env.close()


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def _poll(predicate: Callable[[], bool], polls: int = 300, every: float = 0.1) -> bool:
    for _ in range(polls):
        if predicate():
            return True
        time.sleep(every)
    return predicate()


def test_the_worker_is_gone_after_close() -> None:
    env, _ = _env("countdown")
    env.step(env.entry["answer"])
    pid = env.scorer.pid
    assert pid is not None and _alive(pid)
    env.close()
    assert env.scorer.pid is None
    assert _poll(lambda: not _alive(pid))


@pytest.mark.parametrize("busy", [False, True], ids=["idle", "mid-stall"])
def test_the_worker_dies_with_the_envs_process(busy: bool) -> None:
    """SIGKILL the env's process, its worker idle or stalled: no scorer process is left."""
    code = (
        "import json, os, time\n"
        "from turngym.envs.adapters import bounded_score\n"
        "from turngym.envs.adapters.reasoning_gym import ReasoningGymEnv\n"
        "env = ReasoningGymEnv('simple_integration', attempts=3, score_seconds=600.0)\n"
        "env.reset(seed=0)\n"
        "env.step('x')  # wrong: the worker starts, the episode goes on\n"
        "zygote = bounded_score._zygote.proc.pid\n"
        "print(json.dumps([env.scorer.pid, zygote]), flush=True)\n"
        "v = env.entry['metadata']['variable']\n"
        f"if {busy}:\n"
        "    env.step('exp(' * 14 + v + ')' * 14)\n"
        "time.sleep(600)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        text=True,
        cwd=_REPO,
        env={**os.environ, "PYTHONPATH": str(_REPO)},
    )
    pids: list[int] = []
    try:
        assert proc.stdout is not None
        pids = json.loads(proc.stdout.readline())
        worker, zygote = pids
        assert _alive(worker) and _alive(zygote)
        if busy:  # wait until the worker is scoring the stall (its CPU time grows)
            assert _poll(lambda: _cpu_ticks(worker) > 20)
        proc.kill()
        proc.wait()
        assert _poll(lambda: not _alive(worker) and not _alive(zygote)), "a scorer outlived its env"
    finally:
        proc.kill()
        proc.wait()
        for pid in pids:
            with contextlib.suppress(OSError):
                if _alive(pid):
                    os.kill(pid, signal.SIGKILL)


def _cpu_ticks(pid: int) -> int:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])  # utime + stime, fields 14 and 15


def test_pickled_env_scores_with_a_worker_of_its_own() -> None:
    import pickle

    env, _ = _env("countdown")
    env.step(env.entry["answer"])
    copy = pickle.loads(pickle.dumps(env))
    assert copy.scorer.pid is None and copy.scorer.seconds == 1.0
    copy.reset(seed=1)
    reward = copy.step(copy.entry["answer"])[1]
    assert reward == 1.0 and copy.scorer.pid not in (None, env.scorer.pid)
    copy.close()
    env.close()
