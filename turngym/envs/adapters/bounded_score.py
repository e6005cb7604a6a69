"""``BoundedScorer``: Reasoning Gym's ``score_answer`` run in a worker process under time bounds.

Some scorers do unbounded work on an answer the agent wrote: ``sympy.simplify`` on
``exp(exp(exp(...)))`` or on nested squares of sums, ``rubiks_cube`` repeating a move
``R99999999`` times. An RL policy finds such answers, and a scorer that runs for minutes
stalls the whole rollout. So an env scores through a worker process of its own:

- the answer goes over a socket; the worker has ``seconds`` of wall time to reply, and a
  CPU rlimit of about as much per answer (SIGXCPU kills it even when no one waits) and an
  address-space rlimit of ``memory_mb`` above what it holds when it starts;
- past the bound the worker is killed (by a pidfd: never another process that reused its
  pid) and the answer scores as a failure with the reason; the next answer gets a fresh
  worker.

Workers start in milliseconds: each is forked from a *zygote*, one per process, that
imported ``reasoning_gym`` once (1-2 s) and does nothing but fork on request. The zygote
is started with `turngym.host.reaper.spawn`, and its workers stay in its process group,
so the reaper kills them all when this process ends in any way; an idle worker also
exits when its socket closes (its env closed, or this process died).

The zygote runs under ``PYTHONHASHSEED=0``, so it also makes the entries of the datasets
whose entries follow the hash seed (``run_in_zygote``, called by
``reasoning_gym_entries``, which hands it the function to run): a process forked for one
call makes it, sends the result back and exits. This module knows no entry code: what a
fork runs comes to it as a function, so the arrows run one way.
"""

from __future__ import annotations

import atexit
import contextlib
import math
import os
import pickle
import resource
import select
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable, Mapping
from typing import Any

from turngym.host import reaper

__all__ = [
    "ENTRY_TIMEOUT",
    "START_TIMEOUT",
    "BoundedScorer",
    "EntryMaker",
    "Verdict",
    "run_in_zygote",
    "score_here",
]

START_TIMEOUT = 120.0
"""Seconds a worker may take to start (the zygote's first import of ``reasoning_gym``)."""

ENTRY_TIMEOUT = 600.0
"""Seconds ``run_in_zygote`` waits for a result (the zygote's start included)."""

_HEADER = struct.Struct("!Q")

Verdict = tuple[float | None, str | None]
"""``(score, None)`` when the scorer answered, ``(None, why)`` when it failed or was stopped."""

EntryMaker = Callable[[str, int, Mapping[str, Any]], tuple[Any, Mapping[str, Any]]]
"""``(task, seed, config) -> (dataset, entry)``: how a worker makes an entry itself."""


# --------------------------------------------------------------------------- framing


def _send(sock: socket.socket, message: Any) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    sock.sendall(_HEADER.pack(len(data)) + data)


def _recv_exactly(sock: socket.socket, n: int, deadline: float | None) -> bytes | None:
    """``n`` bytes, or None at EOF or past ``deadline`` (``time.monotonic`` seconds)."""
    chunks: list[bytes] = []
    while n:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([sock], [], [], left)[0]:
                return None
        chunk = sock.recv(min(n, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _recv(sock: socket.socket, deadline: float | None) -> tuple[bool, Any]:
    """``(True, message)``, or ``(False, None)`` at EOF or past ``deadline``."""
    header = _recv_exactly(sock, _HEADER.size, deadline)
    if header is None:
        return False, None
    data = _recv_exactly(sock, _HEADER.unpack(header)[0], deadline)
    if data is None:
        return False, None
    return True, pickle.loads(data)


# --------------------------------------------------------------------------- the zygote


class _Zygote:
    """The process that workers are forked from; one per process, started on first use."""

    def __init__(self) -> None:
        # SOCK_SEQPACKET: one request, one message, its socket attached to it
        here, there = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = dict(os.environ)
        # the same imports as here (a test's or a notebook's sys.path too); one BLAS
        # thread: the zygote forks, and a fork keeps only the forking thread
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        env.update({"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"})
        # one hash seed for the entries made here, whatever this process's is
        env["PYTHONHASHSEED"] = "0"
        code = f"from {__name__} import _zygote_main; _zygote_main({there.fileno()})"
        try:
            self.proc = reaper.spawn(
                [sys.executable, "-c", code],
                pass_fds=(there.fileno(),),
                stdin=subprocess.DEVNULL,
                env=env,
            )
        finally:
            there.close()
        self.sock = here
        self.pid = os.getpid()

    def fork(self, job: tuple[Any, ...]) -> socket.socket:
        """A new worker's end of its socket (the worker says when it is ready)."""
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            payload = pickle.dumps(job)
            socket.send_fds(self.sock, [payload], [theirs.fileno()])
        finally:
            theirs.close()
        return mine

    def alive(self) -> bool:
        return self.pid == os.getpid() and self.proc.poll() is None

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()
        if self.proc.poll() is None:
            with contextlib.suppress(OSError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        reaper.forget(self.proc.pid)


_zygote: _Zygote | None = None
_zygote_lock = threading.Lock()


def _the_zygote() -> _Zygote:
    global _zygote
    with _zygote_lock:
        if _zygote is None or not _zygote.alive():
            if _zygote is not None and _zygote.pid == os.getpid():
                _zygote.stop()
            _zygote = _Zygote()
        return _zygote


def _forget_zygote_after_fork() -> None:
    # A forked child (a vector env's worker) starts a zygote of its own when it needs one.
    global _zygote
    _zygote = None


def _stop_zygote() -> None:
    global _zygote
    with _zygote_lock:
        if _zygote is not None and _zygote.pid == os.getpid():
            _zygote.stop()
        _zygote = None


os.register_at_fork(after_in_child=_forget_zygote_after_fork)
atexit.register(_stop_zygote)


def _zygote_main(fd: int) -> None:
    """The zygote: import ``reasoning_gym``, then fork a worker per socket it is sent."""
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps the workers
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import reasoning_gym  # noqa: F401  (once here, not once per worker)

    control = socket.socket(fileno=fd)
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(control, 1 << 16, 1)
        except InterruptedError:
            continue
        if not data:
            os._exit(0)  # this process's owner is gone
        if not fds:
            continue
        if os.fork() == 0:
            control.close()
            kind, *job = pickle.loads(data)
            (_call_main if kind == "call" else _worker_main)(socket.socket(fileno=fds[0]), *job)
            os._exit(0)
        os.close(fds[0])


# --------------------------------------------------------------------------- the worker


def _cpu_used() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _worker_main(
    sock: socket.socket,
    task: str,
    config: dict[str, Any],
    seconds: float,
    memory_mb: int,
    make_entry: EntryMaker | None,
) -> None:
    """Score answers for ``task`` sent on ``sock`` until it closes; each under a CPU rlimit."""
    import reasoning_gym

    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGXCPU, signal.SIG_DFL)  # past the CPU bound: die
    # score_answer reads the dataset's config, never its seed: one dataset, made before
    # the first answer (outside its bound), serves every entry
    dataset = reasoning_gym.create_dataset(task, seed=0, size=1, **config)
    pages = int(open("/proc/self/statm").read().split()[0])  # noqa: SIM115
    room = pages * os.sysconf("SC_PAGE_SIZE") + memory_mb * 2**20
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (room, room))
    _, hard_cpu = resource.getrlimit(resource.RLIMIT_CPU)
    _send(sock, ("ready", os.getpid()))
    while True:
        ok, request = _recv(sock, None)
        if not ok:
            return
        seed, entry, answer = request
        soft = math.ceil(_cpu_used() + seconds) + 1
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_CPU, (soft, hard_cpu))
        scorer = dataset
        try:
            if entry is None:  # it did not pickle: make it here
                if make_entry is None:
                    raise RuntimeError("the entry did not pickle and no entry maker was given")
                scorer, entry = make_entry(task, seed, config)
        except Exception as error:
            reply: tuple[str, Any] = ("error", f"the scorer failed: {type(error).__name__}")
        else:
            value, why = score_here(scorer, entry, answer, memory_mb)
            reply = ("score", value) if why is None else ("error", why)
        _send(sock, reply)


def score_here(scorer: Any, entry: Mapping[str, Any], answer: str, memory_mb: int) -> Verdict:
    """``scorer.score_answer(answer, entry)`` in this process, as a worker reports it.

    The worker scores with it, and so does an env for the answers it scores in-process
    (``safe_shapes``): both give the same verdict, failures included.
    """
    try:
        return float(scorer.score_answer(answer, entry)), None
    except MemoryError:
        return None, f"the scorer ran past its {memory_mb} MiB memory bound"
    except Exception as error:
        return None, f"the scorer failed: {type(error).__name__}"


def _call_main(sock: socket.socket, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    """Run ``fn(*args)`` (in a process forked from the zygote) and send its result back."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    try:
        reply: tuple[str, Any] = ("result", fn(*args))
    except Exception as error:
        reply = ("error", f"{type(error).__name__}: {error}")
    _send(sock, reply)


def run_in_zygote(fn: Callable[..., Any], *args: Any, timeout: float = ENTRY_TIMEOUT) -> Any:
    """The result of ``fn(*args)``, run in a process forked from the zygote.

    The zygote runs under ``PYTHONHASHSEED=0``. ``fn`` travels by reference, so it must
    be an importable function, and its result must pickle.

    Raises:
        RuntimeError: ``fn`` raised (its reason), or no result came back within
            ``timeout`` seconds.

    """
    job = ("call", fn, args)
    try:
        sock = _the_zygote().fork(job)
    except OSError:  # the zygote died (killed from outside): start another
        _stop_zygote()
        sock = _the_zygote().fork(job)
    with sock:
        ok, reply = _recv(sock, time.monotonic() + timeout)
    if not ok:
        raise RuntimeError(f"no result of {fn.__name__} came back from the zygote's fork")
    kind, value = reply
    if kind != "result":
        raise RuntimeError(str(value))
    return value


# --------------------------------------------------------------------------- the handle


def _kill(pidfd: int) -> None:
    """SIGKILL the process behind ``pidfd`` and wait until it has exited."""
    with contextlib.suppress(OSError):
        signal.pidfd_send_signal(pidfd, signal.SIGKILL)
    with contextlib.suppress(OSError):
        select.select([pidfd], [], [], 10.0)  # readable once it has exited
    os.close(pidfd)


def _close(sock: socket.socket, pidfd: int) -> None:
    with contextlib.suppress(OSError):
        sock.close()
    _kill(pidfd)


class BoundedScorer:
    """A worker process that scores answers within ``seconds`` of wall time, or is killed.

    Args:
        task: the Reasoning Gym dataset whose scorer it runs.
        config: the dataset's config (as ``create_dataset`` takes it).
        seconds: the wall-time bound of one answer's scoring (the CPU rlimit is the same,
            rounded up); past it the worker is killed and the answer fails.
        memory_mb: the memory the worker may take beyond what it holds at its start.
        make_entry: ``(task, seed, config) -> (dataset, entry)``, run in the worker when an
            entry does not pickle.

    Example:
        >>> import reasoning_gym  # doctest: +SKIP
        >>> scorer = BoundedScorer("countdown", {}, seconds=2.0)  # doctest: +SKIP
        >>> data = reasoning_gym.create_dataset("countdown", seed=5, size=1)  # doctest: +SKIP
        >>> scorer.score(5, data[0], data[0]["answer"])  # doctest: +SKIP
        (1.0, None)
        >>> scorer.close()  # doctest: +SKIP

    """

    def __init__(
        self,
        task: str,
        config: Mapping[str, Any],
        seconds: float = 2.0,
        memory_mb: int = 2048,
        make_entry: EntryMaker | None = None,
    ) -> None:
        self.task = task
        self.make_entry = make_entry
        """Makes ``(dataset, entry)`` from ``(task, seed, config)`` in the worker, for an
        entry that does not pickle (an importable function; None: such entries fail)."""
        self.config = dict(config)
        self.seconds = seconds
        self.memory_mb = memory_mb
        self.kills = 0
        """Workers killed at the bound so far."""
        self.starts = 0
        """Workers started so far (the first one, and one after each kill)."""
        self.pid: int | None = None
        """The current worker's process id (None before the first answer and after close)."""
        self._sock: socket.socket | None = None
        self._pidfd = -1
        self._finalizer: weakref.finalize[Any, Any] | None = None

    def _start(self) -> socket.socket:
        job = ("score", self.task, self.config, self.seconds, self.memory_mb, self.make_entry)
        try:
            sock = _the_zygote().fork(job)
        except OSError:  # the zygote died (killed from outside): start another
            _stop_zygote()
            sock = _the_zygote().fork(job)
        ok, message = _recv(sock, time.monotonic() + START_TIMEOUT)
        if not ok or message[0] != "ready":
            sock.close()
            raise RuntimeError(
                "the Reasoning Gym scorer's worker process did not start; "
                "check that `import reasoning_gym` works in a fresh interpreter"
            )
        self.pid = int(message[1])
        # the worker waits for its first request, so it is alive: the pidfd is its own
        self._pidfd = os.pidfd_open(self.pid)
        self._sock = sock
        self.starts += 1
        self._finalizer = weakref.finalize(self, _close, sock, self._pidfd)
        return sock

    def score(self, seed: int, entry: Mapping[str, Any], answer: str) -> Verdict:
        """Score ``answer`` for ``entry`` (the first of the dataset built with ``seed``)."""
        try:
            request = pickle.dumps((seed, entry, answer))
        except Exception:  # an entry that does not pickle: the worker builds its own
            request = pickle.dumps((seed, None, answer))
        sock = self._sock if self._sock is not None else self._start()
        try:
            sock.sendall(_HEADER.pack(len(request)) + request)
        except OSError:  # the worker died between answers (killed from outside)
            self.close()
            sock = self._start()
            sock.sendall(_HEADER.pack(len(request)) + request)
        ok, reply = _recv(sock, time.monotonic() + self.seconds)
        if ok:
            kind, value = reply
            return (float(value), None) if kind == "score" else (None, str(value))
        self.kills += 1
        self.close()
        return None, f"the scorer ran past its {self.seconds:g} s bound and was killed"

    def close(self) -> None:
        """Kill the worker (if any) and wait for it to exit; the next answer starts one."""
        if self._finalizer is not None:
            self._finalizer()  # closes the socket, kills, waits
        self._finalizer = None
        self._sock = None
        self._pidfd = -1
        self.pid = None
