"""One Chromium per process, driven by Playwright from a background thread.

``BrowserHost.shared()`` is the process's browser: Playwright's async API runs on an
event loop in a daemon thread, and envs hand it coroutines with ``run()``. This keeps
the envs' own API synchronous (it also works inside Jupyter or any running asyncio loop,
where Playwright's sync API refuses to start), and it lets a vector env step many pages
at once (``run_all``), which is where the throughput comes from: while one page's
renderer works, the others do too.

Each env holds a reference (``acquire``/``release``); the last release closes Chromium
and the thread, so ``env.close()`` leaves no browser processes. A forked worker process
starts its own host. When Chromium or Playwright's driver (node) dies (killed, out of
memory) the host notices, ``failure()`` says which, and the next ``ensure_browser()``
starts what is missing: a new Chromium, or a new driver and a new Chromium.

Nothing outlives the process, even a SIGKILLed one: the driver runs in a session of its
own with a private ``TMPDIR`` (a ``reaper.temp_dir``, where it and Chromium keep their
profile and temp folders), and the reaper watches the driver's and Chromium's process
groups (``turngym.host.reaper``).

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
import signal
import socket
import threading
from collections.abc import Awaitable, Sequence
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from turngym.host import reaper

__all__ = [
    "CHROMIUM_ARGS",
    "CHROMIUM_EXITED",
    "DRIVER_EXITED",
    "BrowserError",
    "BrowserHost",
    "find_chromium",
]

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
    # A key (End, PageDown) scrolls at once: a smooth scroll is an animation of wall-clock
    # time, so what the next observation showed of it (sign-agreement's field, enabled at
    # the bottom) depended on the machine's load, and a seed did not replay.
    "--disable-smooth-scrolling",
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

CHROMIUM_EXITED = "Chromium exited (killed or crashed) during the episode"
DRIVER_EXITED = "Playwright's driver (node) exited during the episode, and Chromium with it"

DEFAULT_TIMEOUT_S = 30.0


class BrowserError(RuntimeError):
    """Chromium could not be started, or it (or its driver) exited or stopped answering."""


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


class _BrowserLoop(asyncio.SelectorEventLoop):
    """The browser thread's event loop; the one process it starts is Playwright's driver.

    The driver (node) gets:

    - a session of its own: a Ctrl-C or a kill of this process's group does not take it
      down before it has closed Chromium;
    - ``TMPDIR`` = ``tmpdir``: its and Chromium's profile and temp folders land there;
    - the reaper's watch: it dies with this process however this process dies.
    """

    def __init__(self) -> None:
        super().__init__()
        self.tmpdir: Path | None = None
        self.driver: asyncio.SubprocessTransport | None = None

    async def subprocess_exec(
        self, protocol_factory: Any, *args: Any, **kwargs: Any
    ) -> tuple[asyncio.SubprocessTransport, Any]:
        env = dict(kwargs.get("env") or os.environ)
        if self.tmpdir is not None:
            env["TMPDIR"] = str(self.tmpdir)
        kwargs.update(env=env, start_new_session=True)
        transport, protocol = await super().subprocess_exec(protocol_factory, *args, **kwargs)
        reaper.watch(transport.get_pid())
        self.driver = transport
        return transport, protocol


def _quiet_driver_eof(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    # Playwright leaves the error of a driver that went away in a future nobody reads;
    # the step that saw it already reported it (``BrowserHost.failure``).
    if "Connection closed while reading from the driver" in str(context.get("exception")):
        return
    loop.default_exception_handler(context)


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
        self._loop: _BrowserLoop | None = None
        self._thread: threading.Thread | None = None
        self._playwright: Any = None
        self._driver: asyncio.SubprocessTransport | None = None
        self._tmpdir: Path | None = None
        self._browser: Any = None
        self._browser_group: int | None = None
        self._dead_end: socket.socket | None = None
        self._users = 0
        self._lock = threading.Lock()
        # Envs reset from several threads at once must not each launch a Chromium.
        self._launching = asyncio.Lock()
        self._lost: dict[int, str] = {}
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
                loop = _BrowserLoop()
                loop.set_exception_handler(_quiet_driver_eof)
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
            # Whatever a timed-out shutdown left is killed and removed here.
            self._drop_browser()
            self._drop_driver()
            if self._dead_end is not None:
                self._dead_end.close()
                self._dead_end = None

    async def _shutdown(self) -> None:
        browser, playwright = self._browser, self._playwright
        self._browser = self._playwright = None
        if browser is not None:
            with contextlib.suppress(Exception):  # already gone
                await browser.close()
        self._drop_browser()
        if playwright is not None:
            with contextlib.suppress(Exception):  # a dead driver is stopped enough
                await asyncio.wait_for(playwright.stop(), DEFAULT_TIMEOUT_S / 2)
        self._drop_driver()

    def _drop_browser(self) -> None:
        """Kill what is left of Chromium's process group (renderers of a killed browser)."""
        group, self._browser_group = self._browser_group, None
        if group is not None:
            with contextlib.suppress(OSError):  # all gone already
                os.killpg(group, signal.SIGKILL)
            reaper.forget(group)

    def _drop_driver(self) -> None:
        """Kill the driver's process group if it still runs, and remove its temp folder."""
        driver, self._driver = self._driver, None
        if driver is not None:
            with contextlib.suppress(OSError):
                os.killpg(driver.get_pid(), signal.SIGKILL)
            reaper.forget(driver.get_pid())
        folder, self._tmpdir = self._tmpdir, None
        if folder is not None:
            reaper.remove_dir(folder)

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

    def _driver_running(self) -> bool:
        if self._playwright is None:
            return False
        # Playwright marks its connection closed before it fails the calls in flight, so
        # a call that failed because the driver went away sees it here. Where a release
        # renames that attribute, the driver's exit status tells (a moment later).
        impl = getattr(self._playwright, "_impl_obj", None)
        if getattr(getattr(impl, "_connection", None), "_closed_error", None) is not None:
            return False
        return self._driver is None or self._driver.get_returncode() is None

    def failure(self, launch: int | None = None) -> str | None:
        """Why the browser of launch number ``launch`` (default: the last) is gone, or None.

        A page keeps the number of the launch it was opened on: after a recovery, its
        browser is gone even though a new one runs.
        """
        launch = self.launches if launch is None else launch
        if launch != self.launches or self._browser is None:
            return self._lost.get(launch, "the browser was closed")
        if not self._driver_running():
            return DRIVER_EXITED
        if not self._browser.is_connected():
            return CHROMIUM_EXITED
        return None

    @property
    def alive(self) -> bool:
        """Whether Chromium and its driver are running and connected."""
        return self.failure() is None

    @property
    def proxy(self) -> str:
        """The dead-end proxy (``http://127.0.0.1:<port>``) that non-site traffic goes to."""
        if self._dead_end is None:
            # Bound, never listened on: a connection to it is refused, and no other
            # program can take the port while Chromium is told to use it.
            self._dead_end = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self._dead_end.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{self._dead_end.getsockname()[1]}"

    @property
    def driver_pid(self) -> int | None:
        """The process id of Playwright's driver (node), while it runs."""
        return self._driver.get_pid() if self._driver is not None else None

    @property
    def browser_pid(self) -> int | None:
        """The process id of Chromium's browser process, while it runs."""
        return self._browser_group

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
        if self._browser is not None:  # it died: drop what is left of it
            self._lost[self.launches] = self.failure() or CHROMIUM_EXITED
            dead, self._browser = self._browser, None
            if self._driver_running():
                with contextlib.suppress(Exception):  # already gone
                    await dead.close()
            self._drop_browser()
        if self._playwright is not None and not self._driver_running():
            playwright, self._playwright = self._playwright, None
            with contextlib.suppress(Exception):  # it is dead: stop() only tidies up
                await asyncio.wait_for(playwright.stop(), DEFAULT_TIMEOUT_S / 2)
            self._drop_driver()
        if self._playwright is None:
            await self._start_driver()
        executable = find_chromium()
        args = [*CHROMIUM_ARGS, f"--proxy-server={self.proxy}"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.append("--no-sandbox")  # Chromium refuses to sandbox as root
        try:
            browser = await self._playwright.chromium.launch(
                executable_path=executable, headless=True, args=args
            )
        except Exception as exc:
            where = executable or "Playwright's own Chromium"
            raise BrowserError(
                f"could not start Chromium ({where}): {str(exc).splitlines()[0]}. Install it "
                "(apt-get install chromium) or point TURNGYM_CHROMIUM at a Chromium binary"
            ) from exc
        await self._watch_browser(browser)
        self._browser = browser
        self.launches += 1
        return self._browser

    async def _start_driver(self) -> None:
        try:
            from playwright.async_api import async_playwright
        except ImportError as exc:
            raise BrowserError(
                "web envs need Playwright: pip install 'turngym[web]' (and Chromium: "
                "apt-get install chromium, or `playwright install chromium`)"
            ) from exc
        loop = self._loop
        assert loop is not None
        self._tmpdir = loop.tmpdir = _private_tmpdir()
        loop.driver = None
        try:
            self._playwright = await async_playwright().start()
        finally:
            self._driver, loop.driver, loop.tmpdir = loop.driver, None, None
            if self._playwright is None:
                self._drop_driver()

    async def _watch_browser(self, browser: Any) -> None:
        """Have the reaper kill Chromium's process group with this process.

        Playwright starts Chromium as the leader of a session of its own. Were that to
        change, Chromium would still exit when its driver does (it reads the driver's
        pipe), only not when both are frozen.
        """
        session = await browser.new_browser_cdp_session()
        try:
            info = await session.send("SystemInfo.getProcessInfo")
        finally:
            await session.detach()
        pids = [p["id"] for p in info.get("processInfo", []) if p.get("type") == "browser"]
        with contextlib.suppress(OSError):  # it exited already: the next call says so
            if pids and os.getpgid(pids[0]) == pids[0]:
                reaper.watch(pids[0])
                self._browser_group = pids[0]


def _private_tmpdir() -> Path:
    """A ``reaper.temp_dir`` for the driver and Chromium to use as their ``TMPDIR``.

    Chromium binds a socket at ``$TMPDIR/org.chromium.Chromium.XXXXXX/SingletonSocket``
    and aborts when that path does not fit in a socket address (107 bytes): under a long
    ``TMPDIR`` the folder goes to ``/tmp`` instead.
    """
    folder = reaper.temp_dir("turngym-web-")
    if len(os.fsencode(folder)) + len("/org.chromium.Chromium.XXXXXX/SingletonSocket") > 107:
        reaper.remove_dir(folder)
        folder = reaper.temp_dir("turngym-web-", "/tmp")
    return folder


async def _as_coroutine(work: Awaitable[T]) -> T:
    return await work
