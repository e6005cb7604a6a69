"""One Chromium per process, driven by Playwright from a background thread.

``BrowserHost.shared()`` is the process's browser: Playwright's async API runs on an
event loop in a daemon thread, and envs hand it coroutines with ``run()``. This keeps
the envs' own API synchronous (it also works inside Jupyter or any running asyncio loop,
where Playwright's sync API refuses to start), and it lets a vector env step many pages
at once (``run_all``), which is where the throughput comes from: while one page's
renderer works, the others do too.

Each env holds a reference (``acquire``/``release``); the last release closes Chromium
and the thread, so ``env.close()`` leaves no browser processes. A forked worker process
starts its own host. When Chromium dies (killed, out of memory) the host notices, calls
fail with ``BrowserError``, and the next ``ensure_browser()`` launches a new one.

Pages reach nothing but their own site: the flags below route everything that is not
loopback to a dead end, resolve no host name (no DNS query leaves), and keep WebRTC off
UDP; each context's own proxy settings (``WebPage``) send loopback to the dead end too,
except the env's site.

Chromium is found by ``find_chromium()``: ``$TURNGYM_CHROMIUM``, then Debian's
``/usr/bin/chromium``, then Playwright's own download.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import threading
from collections.abc import Awaitable, Sequence
from typing import Any, ClassVar, TypeVar

__all__ = ["CHROMIUM_ARGS", "BrowserError", "BrowserHost", "find_chromium"]

T = TypeVar("T")

_DISABLED_FEATURES = (
    # New-headless Chromium preloads the omnibox popup's WebUI in a renderer of its own
    # for every window, i.e. for every env: ~40-80 MB each for a UI nobody sees.
    "WebUIOmniboxPopup",
    "WebUIOmniboxAimPopup",
    # Chromium keeps only the last --disable-features, so Playwright's own list (1.65)
    # is repeated here: routes stay on HTTP, no paint holding, nothing phones home.
    "AvoidUnnecessaryBeforeUnloadCheckSync",
    "DestroyProfileOnBrowserClose",
    "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable",
    "LensOverlay",
    "MediaRouter",
    "PaintHolding",
    "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect",
    "OptimizationHints",
    "NetworkTimeServiceQuerying",
    "AimEnabled",
    "PreconnectToSearch",
)

CHROMIUM_ARGS = (
    f"--disable-features={','.join(_DISABLED_FEATURES)}",
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--disable-breakpad",
    "--metrics-recording-only",
    "--mute-audio",
    "--disable-dev-shm-usage",
    # Fences behind the per-context route guard, which sees only what Playwright
    # intercepts. WebRTC may use UDP only through a proxy, and there is none for UDP: no
    # STUN, no media, no ICE over UDP (the older --force-webrtc-ip-handling-policy is
    # ignored by current Chromium).
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    # No host name resolves, so no DNS query carries data out (a TURN server named
    # <secret>.attacker.example would); the sites are served on 127.0.0.1.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
)
"""Flags for a headless server: nothing phones home, nothing leaves loopback.

``BrowserHost`` adds ``--proxy-server`` (a dead end: a loopback port bound and never
listened on, so every connection to it is refused)."""

DEFAULT_TIMEOUT_S = 30.0


class BrowserError(RuntimeError):
    """Chromium could not be started, or it exited while an env was using it."""


def find_chromium() -> str | None:
    """The Chromium binary to launch: ``$TURNGYM_CHROMIUM``, ``/usr/bin/chromium``, or None.

    None means Playwright's own browser (``playwright install chromium``).

    Raises:
        BrowserError: ``$TURNGYM_CHROMIUM`` names a file that is not there.

    """
    named = os.environ.get("TURNGYM_CHROMIUM")
    if named:
        path = shutil.which(named) or (named if os.path.isfile(named) else None)
        if path is None:
            raise BrowserError(f"TURNGYM_CHROMIUM={named!r} is not an executable; fix or unset it")
        return path
    for candidate in ("/usr/bin/chromium", "/usr/bin/chromium-browser"):
        if os.path.isfile(candidate):
            return candidate
    return None


class BrowserHost:
    """The process's Chromium, its Playwright driver, and the event loop thread they run on.

    Use ``BrowserHost.shared()``, not the constructor, so envs share one browser.

    Example:
        >>> host = BrowserHost.shared()  # doctest: +SKIP
        >>> host.acquire()  # doctest: +SKIP
        >>> browser = host.run(host.ensure_browser())  # doctest: +SKIP
        >>> host.release()  # the last one closes Chromium  # doctest: +SKIP

    """

    _shared: ClassVar[dict[int, BrowserHost]] = {}
    _shared_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._playwright: Any = None
        self._browser: Any = None
        self._dead_end: socket.socket | None = None
        self._users = 0
        self._lock = threading.Lock()
        # Envs reset from several threads at once must not each launch a Chromium.
        self._launching = asyncio.Lock()
        self.launches = 0
        """how many times Chromium was started (a crash recovery adds one)"""

    @classmethod
    def shared(cls) -> BrowserHost:
        """The host of this process (a forked child gets a fresh one, never its parent's)."""
        with cls._shared_lock:
            host = cls._shared.get(os.getpid())
            if host is None:
                host = cls._shared[os.getpid()] = cls()
            return host

    # -- lifetime ------------------------------------------------------------------

    def acquire(self) -> None:
        """Count one more user (an env); starts the loop thread on first use."""
        with self._lock:
            self._users += 1
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=loop.run_forever, name="turngym-browser", daemon=True
                )
                thread.start()
                self._loop, self._thread = loop, thread
                # An asyncio lock belongs to the loop it is first used on: a new loop
                # (after the last env closed the old one) needs a new lock.
                self._launching = asyncio.Lock()

    def release(self) -> None:
        """Count one user less; the last one closes Chromium, Playwright and the thread."""
        with self._lock:
            self._users = max(0, self._users - 1)
            if self._users or self._loop is None:
                return
            loop, thread = self._loop, self._thread
            # A dead browser must not stop close().
            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(DEFAULT_TIMEOUT_S)
            loop.call_soon_threadsafe(loop.stop)
            if thread is not None:
                thread.join(timeout=5)
            loop.close()
            self._loop = self._thread = None
            if self._dead_end is not None:
                self._dead_end.close()
                self._dead_end = None

    async def _shutdown(self) -> None:
        browser, playwright = self._browser, self._playwright
        self._browser = self._playwright = None
        if browser is not None:
            with contextlib.suppress(Exception):  # already gone
                await browser.close()
        if playwright is not None:
            await playwright.stop()

    # -- running work on the loop ----------------------------------------------------

    def run(self, work: Awaitable[T], timeout: float | None = DEFAULT_TIMEOUT_S) -> T:
        """Run a coroutine on the browser thread and wait for its result.

        Raises:
            BrowserError: the host is not acquired, or the work outlived ``timeout``.

        """
        loop = self._loop
        if loop is None:
            if asyncio.iscoroutine(work):
                work.close()
            raise BrowserError("the browser host is closed; reset() the env to start it again")
        if threading.current_thread() is self._thread:
            raise BrowserError("run() called from the browser thread itself (await instead)")
        future = asyncio.run_coroutine_threadsafe(_as_coroutine(work), loop)
        try:
            return future.result(timeout)
        except TimeoutError as exc:
            future.cancel()
            raise BrowserError(f"the browser did not answer within {timeout:g} s") from exc

    def run_all(
        self, works: Sequence[Awaitable[T]], timeout: float | None = DEFAULT_TIMEOUT_S
    ) -> list[T | BaseException]:
        """Run coroutines concurrently; each result, or the exception it raised, in order."""

        async def gather() -> list[T | BaseException]:
            return list(await asyncio.gather(*works, return_exceptions=True))

        return self.run(gather(), timeout)

    # -- the browser -----------------------------------------------------------------

    @property
    def alive(self) -> bool:
        """Whether Chromium is running and connected."""
        browser = self._browser
        return browser is not None and browser.is_connected()

    @property
    def proxy(self) -> str:
        """The dead-end proxy (``http://127.0.0.1:<port>``) that non-site traffic goes to."""
        if self._dead_end is None:
            # Bound, never listened on: a connection to it is refused, and no other
            # program can take the port while Chromium is told to use it.
            self._dead_end = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self._dead_end.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{self._dead_end.getsockname()[1]}"

    async def ensure_browser(self) -> Any:
        """The running Chromium (``playwright.async_api.Browser``), launched if needed.

        Raises:
            BrowserError: Playwright is not installed or Chromium does not start (the
                message says what to install).

        """
        if self.alive:
            return self._browser
        async with self._launching:
            if self.alive:  # another env launched it while this one waited
                return self._browser
            return await self._launch()

    async def _launch(self) -> Any:
        if self._browser is not None:  # it crashed: drop what is left of it
            dead, self._browser = self._browser, None
            with contextlib.suppress(Exception):  # already gone
                await dead.close()
        if self._playwright is None:
            try:
                from playwright.async_api import async_playwright
            except ImportError as exc:
                raise BrowserError(
                    "web envs need Playwright: pip install 'turngym[web]' (and Chromium: "
                    "apt-get install chromium, or `playwright install chromium`)"
                ) from exc
            self._playwright = await async_playwright().start()
        executable = find_chromium()
        args = [*CHROMIUM_ARGS, f"--proxy-server={self.proxy}"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.append("--no-sandbox")  # Chromium refuses to sandbox as root
        try:
            self._browser = await self._playwright.chromium.launch(
                executable_path=executable, headless=True, args=args
            )
        except Exception as exc:
            where = executable or "Playwright's own Chromium"
            raise BrowserError(
                f"could not start Chromium ({where}): {str(exc).splitlines()[0]}. Install it "
                "(apt-get install chromium) or point TURNGYM_CHROMIUM at a Chromium binary"
            ) from exc
        self.launches += 1
        return self._browser


async def _as_coroutine(work: Awaitable[T]) -> T:
    return await work
