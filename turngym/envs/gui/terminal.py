"""``Terminal``: an ``xterm`` on the env's display whose shell runs in a sandbox.

The shell is ``bash`` inside bubblewrap (the SWE envs' ``BwrapSandbox`` command line):
read-only system, no network, a private ``/tmp``, and only the episode's folder
writable, at ``/testbed`` (the shell starts there). Without bubblewrap the shell runs
on the host in the episode's folder, with a warning. The terminal is started fresh on
every reset, so no shell state carries over between episodes.
"""

from __future__ import annotations

import shutil
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from turngym.envs.gui.display import Display, DisplayError

__all__ = ["Terminal", "terminal_available"]

FONT_PX = (8, 15)
"""xterm's cell size (width, height) in pixels with DejaVu Sans Mono at size 9 (Xvfb's
default 75 dpi); the window's real size is read back once it is up."""
START_TIMEOUT = 10.0


def terminal_available() -> bool:
    """Whether ``xterm`` is installed (Debian: ``apt-get install xterm``)."""
    return shutil.which("xterm") is not None


class Terminal:
    """An xterm at ``box`` (x, y, w, h) with a sandboxed shell in ``workdir``."""

    def __init__(self, display: Display, workdir: Path, box: tuple[int, int, int, int]) -> None:
        if not terminal_available():
            raise DisplayError("xterm is not installed; install it with `apt-get install xterm`")
        self.display = display
        self.box = box
        x, y, w, h = box
        shell, env, cwd = self._shell(workdir)
        cols, rows = max(20, (w - 6) // FONT_PX[0]), max(5, (h - 6) // FONT_PX[1])
        command = ["xterm", "-fa", "DejaVu Sans Mono", "-fs", "9", "+sb", "-bg", "white"]
        command += ["-fg", "black", "-geometry", f"{cols}x{rows}+{x}+{y}", "-T", "Terminal"]
        command += ["-xrm", "XTerm*allowSendEvents: false", "-e", *shell]
        self.proc = display.spawn(command, cwd=cwd, env=env)
        self._wait_mapped()

    @staticmethod
    def _shell(workdir: Path) -> tuple[list[str], dict[str, str], str]:
        """The shell's command line, its environment, and where xterm starts."""
        bash = ["bash", "--norc", "--noprofile", "-i"]
        env = {"PS1": "$ ", "TERM": "xterm", "HISTFILE": "/dev/null"}
        from turngym.envs.swe.sandbox import bwrap_available, bwrap_command

        if bwrap_available()[0]:
            argv, inner = bwrap_command(workdir)
            # bwrap's --new-session keeps a sandbox from pushing input into its caller's
            # terminal; here the terminal is the sandboxed shell's own, and keeping it
            # gives the shell job control (Ctrl+C, Ctrl+Z).
            argv = [a for a in argv if a != "--new-session"]
            variables = [f"{k}={v}" for k, v in {**inner, **env}.items()]
            return [*argv, "env", "-i", *variables, *bash], {}, "/"
        warnings.warn(
            "Terminal: bubblewrap is unavailable, so the terminal's shell runs unsandboxed "
            "on this host (install it with `apt-get install bubblewrap`)",
            RuntimeWarning,
            stacklevel=3,
        )
        return bash, {**env, "HOME": str(workdir)}, str(workdir)

    def _wait_mapped(self) -> None:
        """Wait until xterm's window is on screen (so the first screenshot shows it)."""
        from Xlib import X, display

        dpy = display.Display(self.display.name)
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
        """How xterm ended (for error messages)."""
        code = self.proc.poll()
        if code is None:
            return "still running"
        return f"killed by signal {-code}" if code < 0 else f"exit code {code}"

    def close(self) -> None:
        """Stop xterm and its shell."""
        self.display.stop(self.proc)
