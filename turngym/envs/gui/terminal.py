"""``Terminal``: an ``xterm`` on the env's display whose shell runs in a sandbox, with limits.

The shell is ``bash`` inside bubblewrap (the SWE envs' ``BwrapSandbox`` command line):
read-only system, no network, a private ``/tmp``, and only the episode's folder
writable, at ``/testbed`` (the shell starts there). Where bubblewrap cannot run the
terminal refuses to start, naming the fix; ``sandbox="local"`` runs the shell on the host
in the episode's folder instead, and warns each time a terminal starts. The terminal is
started fresh on every reset, so no shell state carries over between episodes.

`TerminalLimits` bounds what the shell and everything it starts may use, as the SWE
sandbox bounds a call: processes and memory for the whole terminal (cgroups, v1 or v2,
where they can be made, else ``RLIMIT_NPROC`` and ``RLIMIT_AS``), CPU time and file size
per process (``RLIMIT_CPU``, ``RLIMIT_FSIZE``: a write past it fails with ``EFBIG``),
and wall-clock time per foreground command: a watchdog thread on the host reads the
terminal's foreground process group from ``/proc`` and, once a command has held the
terminal for ``wall_s``, interrupts it as Ctrl+C would, then kills it. The agent is
told what was stopped and why (``notices``). Closing the terminal kills every process
left in its cgroups.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import threading
import time
import warnings
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from turngym.envs.gui.display import Display, DisplayError

__all__ = ["SANDBOXES", "Terminal", "TerminalLimits", "terminal_available"]

SANDBOXES = ("bwrap", "local")
"""Where the terminal's shell may run: bubblewrap, or (asked for by name) the host."""

log = logging.getLogger(__name__)

FONT_PX = (8, 15)
"""xterm's cell size (width, height) in pixels with DejaVu Sans Mono at size 9 (Xvfb's
default 75 dpi); the window's real size is read back once it is up."""
START_TIMEOUT = 10.0
POLL_S = 0.1
"""How often the watchdog reads the terminal's foreground process group."""
GRACE_S = 2.0
"""How long an interrupted (Ctrl+C) command gets to stop before it is killed."""
_BASH = shutil.which("bash") or "/bin/bash"
_SETUP_FAILED = '{ echo "turngym: the terminal\'s limits could not be set" >&2; exit 125; }'


@dataclass(frozen=True)
class TerminalLimits:
    """What the terminal's shell and everything it starts may use.

    >>> TerminalLimits(wall_s=5).wall_s
    5
    """

    wall_s: float = 60.0
    """wall-clock seconds a foreground command may hold the terminal (then Ctrl+C, then
    SIGKILL); background jobs are bounded by the other limits"""
    cpu_s: float = 60.0
    """CPU seconds per process (RLIMIT_CPU: SIGXCPU at this, SIGKILL a second later)"""
    memory_mb: int = 1024
    """memory of the whole terminal (memory cgroup), else address space per process"""
    processes: int = 128
    """processes of the whole terminal at once (pids cgroup), else RLIMIT_NPROC (which
    does not bind root)"""
    file_mb: int = 64
    """largest file a process may write (RLIMIT_FSIZE); a larger write fails (EFBIG)"""
    disk_mb: int = 256
    """disk of the episode's folder (a tmpfs of that size where the host may mount one:
    ``turngym.host.quota``) and of the shell's private /tmp"""

    def __post_init__(self) -> None:
        for field in ("wall_s", "cpu_s", "memory_mb", "processes", "file_mb", "disk_mb"):
            value = getattr(self, field)
            if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
                raise ValueError(f"TerminalLimits.{field} must be a number > 0, got {value!r}")


def terminal_available() -> bool:
    """Whether ``xterm`` is installed (Debian: ``apt-get install xterm``)."""
    return shutil.which("xterm") is not None


def check_sandbox(sandbox: str) -> None:
    """Refuse, in one line naming the fix, a terminal sandbox that cannot run here."""
    if sandbox not in SANDBOXES:
        raise ValueError(f"terminal sandbox must be 'bwrap' or 'local', got {sandbox!r}")
    if sandbox == "bwrap":
        from turngym.host.sandbox import bwrap_available, no_sandbox_message

        ok, why = bwrap_available()
        if not ok:
            raise DisplayError(
                "the terminal's shell cannot be sandboxed: "
                + no_sandbox_message(why, option="terminal_sandbox='local'")
            )


class Terminal:
    """An xterm at ``box`` (x, y, w, h) with a sandboxed shell in ``workdir``, limited.

    ``sandbox`` is ``"bwrap"`` (refused, naming the fix, where bubblewrap cannot run) or
    ``"local"``: the shell on this host, with a warning each time.
    """

    def __init__(
        self,
        display: Display,
        workdir: Path,
        box: tuple[int, int, int, int],
        limits: TerminalLimits = TerminalLimits(),
        *,
        sandbox: str = "bwrap",
    ) -> None:
        if not terminal_available():
            raise DisplayError("xterm is not installed; install it with `apt-get install xterm`")
        check_sandbox(sandbox)
        from turngym.host.cgroups import CgroupSet

        self.sandbox = sandbox

        self.display = display
        self.box = box
        self.limits = limits
        self.notices: deque[str] = deque(maxlen=20)
        """What the limits stopped, for the agent (the env shows and clears them)."""
        self._cgroups = CgroupSet(processes=limits.processes, memory_mb=limits.memory_mb)
        self._watchdog: _Watchdog | None = None
        x, y, w, h = box
        shell, env, cwd = self._shell(workdir)
        prelude = _prelude(limits, self._cgroups.attach_script(_SETUP_FAILED), self._cgroups.dirs)
        # xterm needs the display's cookie (XAUTHORITY); the shell it runs does not.
        shell = [_BASH, "-c", "unset XAUTHORITY; " + prelude + 'exec "$@"', "terminal", *shell]
        cols, rows = max(20, (w - 6) // FONT_PX[0]), max(5, (h - 6) // FONT_PX[1])
        command = ["xterm", "-fa", "DejaVu Sans Mono", "-fs", "9", "+sb", "-bg", "white"]
        command += ["-fg", "black", "-geometry", f"{cols}x{rows}+{x}+{y}", "-T", "Terminal"]
        # xterm runs on the host and reads what the sandbox prints: no escape sequence
        # may make it send events, change windows or run a print command.
        for resource in ("allowSendEvents: false", "allowWindowOps: false", "printerCommand:"):
            command += ["-xrm", f"XTerm*{resource}"]
        # A solid cursor with or without the focus: there is no window manager, so the
        # focus follows the pointer, and a hollow cursor turned solid whenever xterm got to
        # its FocusIn; a screenshot's pixels then depended on timing, not on the episode.
        command += ["-xrm", "XTerm*alwaysHighlight: true"]
        command += ["-e", *shell]
        try:
            self.proc = display.spawn(command, cwd=cwd, env=env)
            self._wait_mapped()
        except BaseException:
            self._cgroups.remove()
            raise
        self._watchdog = _Watchdog(self.proc.pid, limits.wall_s, self.notices)

    def _shell(self, workdir: Path) -> tuple[list[str], dict[str, str], str]:
        """The shell's command line, its environment, and where xterm starts."""
        bash = ["bash", "--norc", "--noprofile", "-i"]
        # SIGXFSZ ignored stays ignored in every process the shell starts: a write past
        # RLIMIT_FSIZE then fails with EFBIG instead of killing the writer (the shell
        # itself included). An interactive bash catches the signal whatever it inherits,
        # so the shell sets it before its first prompt.
        env = {
            "PS1": "$ ",
            "TERM": "xterm",
            "HISTFILE": "/dev/null",
            "PROMPT_COMMAND": "trap '' XFSZ",
        }
        from turngym.host.sandbox import bwrap_command

        if "pids" not in self._cgroups.dirs and os.geteuid() == 0:
            warnings.warn(
                "Terminal: no pids cgroup could be made, and RLIMIT_NPROC does not bind root: "
                "the terminal's process count is not bounded. Run as root with cgroups "
                "mounted read-write (v1, or v2 with a delegated subtree), or as a non-root user.",
                RuntimeWarning,
                stacklevel=3,
            )
        if self.sandbox == "bwrap":
            argv, inner = bwrap_command(workdir, tmp_mb=self.limits.disk_mb)
            # bwrap's --new-session keeps a sandbox from pushing input into its caller's
            # terminal; here the terminal is the sandboxed shell's own, and keeping it
            # gives the shell job control (Ctrl+C, Ctrl+Z).
            argv = [a for a in argv if a != "--new-session"]
            variables = [f"{k}={v}" for k, v in {**inner, **env}.items()]
            return [*argv, "env", "-i", *variables, *bash], {}, "/"
        message = (
            "Terminal: terminal_sandbox='local': the terminal's shell runs UNSANDBOXED on "
            "this host, with its files and network; use 'bwrap' (apt-get install "
            "bubblewrap) unless the agent is trusted"
        )
        warnings.warn(message, RuntimeWarning, stacklevel=3)
        log.warning(message)  # the warnings filter shows one once; the log every episode
        return bash, {**env, "HOME": str(workdir)}, str(workdir)

    def _wait_mapped(self) -> None:
        """Wait until xterm's window is on screen (so the first screenshot shows it)."""
        from Xlib import X

        dpy = self.display.connect()
        try:
            deadline = time.monotonic() + START_TIMEOUT
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    raise DisplayError(f"xterm exited at start ({self.why_dead()})")
                for child in dpy.screen().root.query_tree().children:
                    cls = child.get_wm_class()
                    if (
                        cls
                        and cls[1] == "XTerm"
                        and child.get_attributes().map_state == X.IsViewable
                    ):
                        # The character grid does not fill the box to the pixel: report
                        # the window as it is.
                        g = child.get_geometry()
                        border = 2 * g.border_width
                        self.box = (g.x, g.y, g.width + border, g.height + border)
                        self._wait_prompt(child, deadline)
                        return
                time.sleep(0.01)
            raise DisplayError(f"xterm did not open a window in {START_TIMEOUT:.0f} s")
        finally:
            dpy.close()

    def _wait_prompt(self, window: Any, deadline: float) -> None:
        """Wait until the shell's prompt (``$ ``) is drawn, so the first screenshot has it.

        The prompt moves xterm's cursor box to the third cell of the first line: that
        cell turns from blank to drawn when the shell is ready.
        """
        from Xlib import X

        x = 2 + 2 * FONT_PX[0]  # the internal border, then two cells
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise DisplayError(f"xterm exited at start ({self.why_dead()})")
            raw = window.get_image(x, 2, FONT_PX[0], FONT_PX[1], X.ZPixmap, 0xFFFFFFFF).data
            pixels = np.frombuffer(raw, np.uint8).reshape(-1, 4)[:, :3].astype(np.int32)
            if (pixels.sum(axis=1) < 300).any():
                return
            time.sleep(0.002)
        raise DisplayError(f"the terminal's shell showed no prompt in {START_TIMEOUT:.0f} s")

    @property
    def alive(self) -> bool:
        """Whether xterm is running."""
        return self.proc.poll() is None

    def why_dead(self) -> str:
        """How xterm ended (for error messages), with what the limits stopped last."""
        code = self.proc.poll()
        if code is None:
            return "still running"
        how = f"killed by signal {-code}" if code < 0 else f"exit code {code}"
        return f"{how}; {self.notices[-1]}" if self.notices else how

    def close(self) -> None:
        """Stop the watchdog, xterm and its shell, and every process left in the cgroups."""
        if self._watchdog is not None:
            self._watchdog.stop()
        self.display.stop(self.proc)
        self._cgroups.remove()


def _prelude(limits: TerminalLimits, attach: str, cgroups: dict[str, Any]) -> str:
    """Host-side shell lines run before the sandbox: join the cgroups, set the rlimits."""
    cpu = max(1, round(limits.cpu_s))
    lines = [
        f"ulimit -S -t {cpu}",  # the soft limit first: it may not exceed the hard one
        f"ulimit -H -t {cpu + 1}",
        f"ulimit -f {limits.file_mb * 1024}",  # in 1 KiB blocks
        "ulimit -c 0",  # no core files (a CPU-limited process would dump one in the folder)
    ]
    if "memory" not in cgroups:
        lines.append(f"ulimit -v {limits.memory_mb * 1024}")
    if "pids" not in cgroups:
        lines.append(f"ulimit -u {limits.processes}")
    return attach + "".join(f"{line} || {_SETUP_FAILED}\n" for line in lines)


# --------------------------------------------------------------------------- the watchdog


def _stat(pid: int) -> list[str] | None:
    """The fields of ``/proc/<pid>/stat`` after the command name (state first)."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    return raw[raw.rindex(b")") + 2 :].decode().split()


def _find_shell(root: int) -> int | None:
    """The first ``bash`` below xterm (breadth first): the terminal's interactive shell."""
    children: dict[int, list[int]] = {}
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                fields = _stat(int(entry))
                if fields is not None:
                    children.setdefault(int(fields[1]), []).append(int(entry))
    todo = [root]
    while todo:
        for child in sorted(children.get(todo.pop(0), [])):
            with contextlib.suppress(OSError):
                if Path(f"/proc/{child}/comm").read_text().strip() == "bash":
                    return child
            todo.append(child)
    return None


class _Watchdog:
    """Stops a foreground command that holds the terminal past ``wall_s`` seconds.

    The terminal is idle when the shell waits with the terminal (at its prompt), and
    busy otherwise. A command (a foreground group other than the shell's) is stopped
    once the terminal has been busy for ``wall_s``: that covers a shell loop that runs
    one command after another. The shell itself (a loop of builtins) is stopped once it
    has been running with the terminal for ``wall_s`` without a break (a shell that
    runs for a moment, finishing a command, is not stopped). Stopping is SIGINT (what
    Ctrl+C sends: a shell's loop stops too), then SIGKILL if the group is still there
    `GRACE_S` later. It all runs on the host, out of the sandbox's reach.
    """

    def __init__(self, xterm: int, wall_s: float, notices: deque[str]) -> None:
        self.xterm = xterm
        self.wall_s = wall_s
        self.notices = notices
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="terminal-watchdog", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop watching (before the terminal is closed)."""
        self._stopped.set()
        if self._thread is not threading.current_thread():
            self._thread.join()

    def _run(self) -> None:
        shell: int | None = None
        busy_since: float | None = None  # since the terminal was last idle
        running_since: float | None = None  # since the shell itself runs with the terminal
        signalled: dict[int, tuple[float, int]] = {}
        while not self._stopped.wait(POLL_S):
            if shell is None:
                shell = _find_shell(self.xterm)
                continue
            fields = _stat(shell)
            if fields is None or fields[0] in ("Z", "X"):
                return  # the shell has ended: so has the terminal
            state, group, foreground = fields[0], int(fields[2]), int(fields[5])
            now = time.monotonic()
            if foreground == group and state != "R":
                busy_since = running_since = None
                signalled.clear()
                continue
            busy_since = now if busy_since is None else busy_since
            if foreground == group:
                running_since = now if running_since is None else running_since
                since = running_since
            else:
                running_since = None
                since = busy_since
            if now - since < self.wall_s or foreground <= 0:
                continue
            first, sent = signalled.get(foreground, (now, 0))
            if sent == 0:
                self._signal(foreground, signal.SIGINT, "was interrupted (Ctrl+C)")
                signalled[foreground] = (now, signal.SIGINT)
            elif sent == signal.SIGINT and now - first >= GRACE_S:
                self._signal(foreground, signal.SIGKILL, "did not stop on Ctrl+C and was killed")
                signalled[foreground] = (now, signal.SIGKILL)

    def _signal(self, group: int, sig: int, what: str) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, sig)
            self.notices.append(
                f"the terminal's command ran past the wall-clock limit of {self.wall_s:g} s "
                f"per command and {what}"
            )
