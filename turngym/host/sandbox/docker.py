"""`DockerSandbox`: an agent's commands in a container, through the docker SDK.

For SWE-bench and SWE-Gym images, which hold the repository at ``/testbed``. The SDK is
imported only when a sandbox is made (``pip install 'turngym[swe]'``); `make_sandbox` and
``turngym.host.sandbox.DockerSandbox`` lead here.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from turngym.host.sandbox.base import (
    WORKDIR,
    ExecResult,
    Limits,
    OutputCap,
    check_call,
    check_workspace,
    exec_result,
    rlimits_script,
)


def docker_available(timeout: float = 1.0) -> tuple[bool, str]:
    """Whether a Docker engine answers: ``(ok, reason)``. Fast when there is none.

    >>> ok, reason = docker_available(timeout=0.5)
    >>> isinstance(ok, bool) and bool(reason)
    True
    """
    import importlib.util

    if importlib.util.find_spec("docker") is None:
        return False, "the docker Python package is not installed (pip install 'turngym[swe]')"
    host = os.environ.get("DOCKER_HOST", "")
    socket = Path(host[len("unix://") :] if host.startswith("unix://") else "/var/run/docker.sock")
    if (not host or host.startswith("unix://")) and not socket.exists():
        # known without importing the SDK, which takes a tenth of a second
        return (
            False,
            f"no Docker engine: {socket} does not exist (start dockerd or set DOCKER_HOST)",
        )
    try:
        import docker

        client = docker.from_env(timeout=max(1, round(timeout)))
        try:
            client.ping()
        finally:
            client.close()
    except Exception as exc:  # the SDK raises several types for "no engine"
        return False, f"no Docker engine answered at {host or socket}: {exc}"
    return True, f"a Docker engine answers at {host or socket}"


class DockerSandbox:
    """Runs commands in a container of ``image`` (docker SDK), the workspace at /testbed.

    The container (no network; memory, swap and pids capped) lives until `close`; each
    call is a ``docker exec`` under ``timeout`` and ``ulimit -t``, after which every
    process but the container's init is killed, so calls stay stateless.

    Args:
        workspace: bind-mounted read-write at /testbed; None uses the image's /testbed
            (SWE-bench and SWE-Gym images hold the repository there).
        image: the image to run, e.g. ``"swebench/sweb.eval.x86_64.astropy_1776_astropy-12907"``.
        limits: per-call limits.

    """

    name = "docker"
    isolated = True

    def __init__(
        self,
        workspace: Path | None,
        *,
        image: str,
        limits: Limits = Limits(),
        extra_ro: Sequence[Path] = (),
    ) -> None:
        if not image or not isinstance(image, str):
            raise ValueError("DockerSandbox needs image='name:tag' (e.g. a SWE-bench image)")
        self.workspace = None if workspace is None else check_workspace(workspace)
        self.limits = limits
        self.workdir = WORKDIR
        self._closed = False
        ok, why = docker_available(timeout=5.0)
        if not ok:
            raise RuntimeError(f"DockerSandbox cannot run here: {why}")
        import docker

        self._client = docker.from_env()
        volumes: dict[str, dict[str, str]] = {
            str(Path(p).resolve()): {"bind": str(Path(p).resolve()), "mode": "ro"} for p in extra_ro
        }
        if self.workspace is not None:
            volumes[str(self.workspace)] = {"bind": WORKDIR, "mode": "rw"}
        memory = f"{limits.memory_mb}m"
        self._container = self._client.containers.run(
            image,
            entrypoint=["sleep", "infinity"],
            detach=True,
            working_dir=WORKDIR,
            volumes=volumes or None,
            network_disabled=True,
            mem_limit=memory,
            memswap_limit=memory,  # equal: no swap beyond the memory limit
            pids_limit=limits.processes,
            labels={"turngym.sandbox": "1"},
        )
        self._finalizer = weakref.finalize(self, _remove_container, self._client, self._container)
        self._lock = threading.Lock()

    def _kill_leftovers(self) -> None:
        # kill(-1) reaches every process but the caller and the container's init (sleep)
        self._client.api.exec_start(
            self._client.api.exec_create(self._container.id, ["sh", "-c", "kill -9 -1; true"])
        )

    def run(
        self,
        command: str,
        *,
        timeout: float | None = None,
        stdin: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> ExecResult:
        """Run ``bash -c command`` in /testbed of the container; never raises for the command.

        ``stdin`` travels in an environment variable, so it is limited to about 128 kB.
        """
        check_call(self._closed, command, timeout, stdin, env)
        wall = timeout if timeout is not None else self.limits.wall_s
        feed = 'printf %s "$TURNGYM_STDIN" |' if stdin is not None else "</dev/null"
        script = rlimits_script(self.limits, cpu=True, memory=False, processes=False)
        script += f"{feed} timeout -s KILL {wall:g} bash -c {shlex.quote(command)}"
        variables = {**(env or {}), **({"TURNGYM_STDIN": stdin} if stdin is not None else {})}
        api = self._client.api
        with self._lock:
            start = time.monotonic()
            exec_id = api.exec_create(
                self._container.id, ["sh", "-c", script], workdir=WORKDIR, environment=variables
            )
            # a watchdog in case the image's `timeout` is missing or the stream hangs
            watchdog = threading.Timer(wall + 5.0, self._kill_leftovers)
            watchdog.start()
            cap = OutputCap(self.limits.output_bytes)
            try:
                for chunk in api.exec_start(exec_id, stream=True):
                    cap.feed(chunk)
            finally:
                watchdog.cancel()
            rc = api.exec_inspect(exec_id)["ExitCode"]
            self._kill_leftovers()
        seconds = time.monotonic() - start
        killed = "wall" if rc in (124, 137) and seconds >= wall else None
        return exec_result(cap, -signal.SIGKILL if killed else rc, killed, start, self.limits)

    def close(self) -> None:
        """Remove the container; calling it again does nothing."""
        self._closed = True
        if hasattr(self, "_finalizer"):
            self._finalizer()

    def __enter__(self) -> DockerSandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _remove_container(client: Any, container: Any) -> None:
    with contextlib.suppress(Exception):  # already gone, or the engine went away
        container.remove(force=True)
    with contextlib.suppress(Exception):
        client.close()
