"""Sandboxes that run an agent's shell commands on a repository: bubblewrap, Docker or local.

Every sandbox runs ``bash -c command`` in its ``workdir`` (the repository), statelessly per
call like mini-swe-agent (no shell survives between calls), and returns an `ExecResult`;
a failing or timing-out command never raises. `Limits` bounds each call.

- `BwrapSandbox`: bubblewrap. A read-only view of the system and of the Python the tests
  run with, nothing private of the host (``/root``, ``/home``, ``/work``, ``/tmp``,
  ``/var``...), the workspace read-write at ``/testbed``, a private ``/tmp``, no network
  (not even the host's loopback), fresh ``/dev`` and ``/proc``; turngym's own package
  (its SWE tasks' hidden tests and fixes) hidden even where the Python shown holds it.
  Of ``/etc`` only what programs need (`ETC_ALLOWED`), and nothing shown that only root
  may read (the sandbox's uid 0 is host root). Limits: cgroups (v1 or v2,
  `turngym.host.cgroups`) where they can be made, rlimits otherwise; the
  workspace's disk quota (`turngym.host.quota`), a sized ``/tmp`` and ``/dev/shm``
  (the rest of ``/dev`` read-only) and ``RLIMIT_FSIZE``.
- `DockerSandbox`: a container of an image (SWE-bench/SWE-Gym images hold the repository
  at ``/testbed``), through the docker SDK, imported only here.
- `LocalSandbox` (``local_sandbox.py``): the host itself, for trusted code only, when
  asked for by name (``kind="local"``): it warns that it isolates nothing.

`make_sandbox` picks one: Docker when an image is given and an engine answers, else
bubblewrap; where bubblewrap cannot run, ``"auto"`` refuses with one line naming the fix
(install bubblewrap, or choose ``"local"``): isolation never degrades in silence.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from turngym.host.sandbox.base import WORKDIR, ExecResult, Limits, Sandbox
from turngym.host.sandbox.bwrap import BwrapSandbox, bwrap_available, bwrap_command
from turngym.host.sandbox.docker import DockerSandbox, docker_available
from turngym.host.sandbox.local import LocalSandbox

__all__ = [
    "KINDS",
    "WORKDIR",
    "BwrapSandbox",
    "DockerSandbox",
    "ExecResult",
    "Limits",
    "LocalSandbox",
    "Sandbox",
    "bwrap_available",
    "bwrap_command",
    "docker_available",
    "make_sandbox",
    "no_sandbox_message",
]

KINDS = ("auto", "bwrap", "docker", "local")
"""The values `make_sandbox` accepts for ``kind``."""


def no_sandbox_message(
    why: str, option: str = "sandbox='local'", what: str = "no sandbox can run here"
) -> str:
    """The one line refusing to run without a sandbox: what, why, and the two fixes."""
    why = " ".join(why.split())  # bwrap's stderr may span lines
    return (
        f"{what}: {why}. Fix it (apt-get install bubblewrap; allow user "
        f"namespaces), or pass {option} to run the agent's commands unsandboxed on this "
        "host (trusted code only)"
    )


def make_sandbox(
    workspace: Path,
    *,
    kind: str = "auto",
    limits: Limits = Limits(),
    image: str | None = None,
    python: Path | None = None,
    extra_ro: Sequence[Path] = (),
) -> Sandbox:
    """The best sandbox for ``workspace``: see the module docstring for the order.

    ``"auto"`` never falls back on the host: where neither Docker (with an image) nor
    bubblewrap can run, it raises, naming the fix; ``kind="local"`` is that choice.

    Args:
        workspace: the repository directory.
        kind: "auto", "bwrap", "docker" or "local" (unsandboxed: trusted code only).
        limits: per-call limits.
        image: a Docker image ("docker" needs one; "auto" uses Docker only with one).
        python: the interpreter tests run with (bwrap and local).
        extra_ro: more host paths to show read-only at the same place (bwrap, docker).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as repo:
    ...     try:
    ...         box = make_sandbox(Path(repo))
    ...     except RuntimeError as refused:  # no bubblewrap here: it says what to do
    ...         print("sandbox='local'" in str(refused))
    ...     else:
    ...         print(box.name == "bwrap")
    ...         box.close()
    True

    """
    if kind not in KINDS:
        raise ValueError(f"unknown sandbox kind {kind!r}: choose one of {', '.join(KINDS)}")
    if kind == "docker" and not image:
        raise ValueError("kind='docker' needs image='name:tag' (e.g. a SWE-bench image)")
    if kind == "docker" or (kind == "auto" and image and docker_available()[0]):
        assert image is not None
        return DockerSandbox(workspace, image=image, limits=limits, extra_ro=extra_ro)
    if kind == "auto":
        ok, why = bwrap_available()
        if not ok:
            raise RuntimeError(no_sandbox_message(why))
    if kind in ("auto", "bwrap"):
        return BwrapSandbox(workspace, limits=limits, python=python, extra_ro=extra_ro)
    return LocalSandbox(workspace, limits=limits, python=python)
