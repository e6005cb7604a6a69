"""One env's tab: a guarded browser context, its accessibility-tree view, and the actions.

``WebPage`` owns a Playwright browser context with one page and one CDP session on it.
Every request the page makes goes through a route guard that lets through only the
env's own origins (``allowed``) and aborts the rest, so a page cannot reach the network.
What the guard does not see (WebRTC's TCP, WebTransport, speculative prefetches, a shared
worker's fetches) meets the context's proxy settings: everything but the allowed origins,
loopback included, goes to the host's dead-end proxy. An init script also takes WebRTC
and WebTransport away from the page (the browser's flags keep them off the network
anyway; see ``browser.CHROMIUM_ARGS``).
An observation is one CDP ``Accessibility.getFullAXTree`` call rendered by ``AXText``;
actions go through CDP too (``DOM.getContentQuads`` then a mouse press at the box
centre, ``Input.insertText``...), a few messages each and no fixed sleeps. When an
action starts a navigation (seen from CDP's ``Page.frameStartedLoading``), the page waits
for the new document's load and for its requests to finish, and only then reads it.
All methods are coroutines run on the ``BrowserHost`` loop.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import inspect
import io
import re
import urllib.parse
from collections.abc import Iterable
from typing import Any

import numpy as np

from turngym.envs.web.actions import WebAction, is_loopback_url
from turngym.envs.web.axtree import ACTIONABLE_ROLES, AXText
from turngym.envs.web.browser import BrowserError, BrowserHost

__all__ = ["LOAD_TIMEOUT_S", "CDPChannel", "WebPage"]

_MAY_NAVIGATE = frozenset({"click", "mouse_click", "press", "select", "fill"})
_COPY_CHORDS = frozenset({"control+c", "control+x", "meta+c", "meta+x"})
_PASTE_CHORDS = frozenset({"control+v", "meta+v", "shift+insert"})
# The text a copy would take: a text field's selected part, else the page's selection.
_SELECTION = """(() => {
  const e = document.activeElement;
  if (e && typeof e.selectionStart === 'number' && typeof e.value === 'string')
    return e.value.substring(e.selectionStart, e.selectionEnd);
  return String(window.getSelection());
})()"""
LOAD_TIMEOUT_S = 10.0
"""How long a navigation may take before the action reports an error."""

_FILL = """function (text) {
  const tag = this.tagName;
  const editable = this.isContentEditable ||
    tag === 'TEXTAREA' || (tag === 'INPUT' && !['checkbox', 'radio', 'submit', 'button',
      'reset', 'file', 'image', 'hidden', 'range', 'color'].includes(this.type));
  if (!editable) return 'element is not a text field (' + tag.toLowerCase() + ')';
  if (this.disabled || this.readOnly) return 'the field is disabled or read-only';
  this.focus();
  if (this.isContentEditable) { document.execCommand('selectAll'); }
  else { this.select(); }
  if (text === '') { document.execCommand('delete'); }
  return '';
}"""

_SELECT = """function (wanted) {
  if (this.tagName !== 'SELECT') return 'element is not a drop-down (' +
    this.tagName.toLowerCase() + '); click it instead';
  if (this.disabled) return 'the drop-down is disabled';
  const norm = s => s.replace(/\\s+/g, ' ').trim().toLowerCase();
  const opts = Array.from(this.options);
  const hit = opts.find(o => norm(o.label || o.text) === norm(wanted)) ||
              opts.find(o => o.value === wanted);
  if (!hit) return 'no option ' + JSON.stringify(wanted) + '; options: ' +
    opts.map(o => JSON.stringify((o.label || o.text).trim())).join(', ');
  this.value = hit.value;
  this.dispatchEvent(new Event('input', {bubbles: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
  return '';
}"""


# Run in every document before its own scripts. One tab per env: links and window.open()
# that would open another tab open in this one.
_INIT_SCRIPT = """
document.addEventListener('click', e => {
  const a = e.target instanceof Element && e.target.closest('a[target], area[target]');
  if (a) a.target = '_self';
}, true);
window.open = function (url) { if (url) location.href = url; return window; };
// The Navigation API's navigate event fires in the page itself, in order with its
// scripts, whenever this document starts a navigation (a link, a form, location=...).
window.__turngymNavigating = false;
if (window.navigation) window.navigation.addEventListener('navigate', e => {
  if (!e.hashChange && !e.downloadRequest) window.__turngymNavigating = true;
});
// No site of a web env needs peer-to-peer connections or HTTP/3 sessions: gone, so a page
// that looks for them finds nothing (the browser's flags and proxy stop their traffic
// even where a page gets them back, e.g. from a worker).
for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection', 'WebTransport'])
  delete window[name];
"""


class CDPChannel:
    """A Playwright CDP session whose replies skip Playwright's result conversion.

    Playwright's public ``CDPSession.send`` walks every value of a reply in Python to
    swap internal objects for API ones; CDP replies hold none, and for a 50 KB
    accessibility tree that walk costs 2-3 ms of CPU a step. The session's own
    implementation object answers the same call without it; where a Playwright release
    renames it, the public method is used (slower, same result).
    """

    def __init__(self, session: Any) -> None:
        self.session = session
        impl = getattr(session, "_impl_obj", None)
        send = getattr(impl, "send", None)
        try:
            params = list(inspect.signature(send).parameters) if send is not None else []
        except (TypeError, ValueError):
            params = []
        self.fast = params[:2] == ["method", "params"]
        self._send = send if self.fast else None
        self._with_timeout = "timeout" in params

    async def send(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """One CDP command's reply (a dict)."""
        if self._send is None:
            return await self.session.send(method, params)
        if self._with_timeout:
            return await self._send(method, params, None)
        return await self._send(method, params)

    def on(self, event: str, handler: Any) -> None:
        """Call ``handler(params)`` on each CDP ``event``."""
        self.session.on(event, handler)


def _origin(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def _bypass(origins: Iterable[str]) -> str:
    """Chromium proxy-bypass rules: the ``origins`` (host and port) go direct, nothing else.

    ``<-loopback>`` takes back Chromium's implicit rule that loopback never uses a proxy,
    so the page's other loopback ports (other envs, an inference server) go to the dead
    end too.
    """
    rules = ["<-loopback>"]
    for origin in sorted(origins):
        parts = urllib.parse.urlsplit(origin)
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
        if parts.hostname and port:
            host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
            rules.append(f"{host}:{port}")
    return ",".join(rules)


class WebPage:
    """One browser context and page, limited to the ``allowed`` origins.

    Args:
        host: the process's ``BrowserHost``.
        allowed: origins (``http://127.0.0.1:8123``) the page may load; all else is aborted.
        viewport: page size in CSS pixels (width, height).

    """

    def __init__(
        self, host: BrowserHost, allowed: Iterable[str], viewport: tuple[int, int] = (1024, 768)
    ) -> None:
        self.host = host
        self.allowed = {_origin(u) for u in allowed}
        self.viewport = viewport
        self.ax = AXText()
        self.blocked: list[str] = []
        """URLs the guard aborted (for the info dict and the tests)"""
        self.dialogs: list[str] = []
        self._context: Any = None
        self._page: Any = None
        self._cdp: CDPChannel | Any = None
        self._frame: str | None = None
        self._loaded = asyncio.Event()
        self._loaded.set()
        self._inflight = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._crashed = False
        self._abandoned: str | None = None
        self._launch = -1  # the host's launch number of the browser this page lives in
        self._loads = 0  # documents loaded in the main frame (Page.loadEventFired)
        self._load_seen = asyncio.Event()
        self.settle_script: str | None = None
        """a JavaScript promise awaited after each input (MiniWoB: animations ending)"""
        self.probe: str | None = None
        """a JavaScript expression read with each observation (MiniWoB's reward)"""
        self.probe_value: Any = None
        self.marks: dict[int, tuple[tuple[int, int, int, int], tuple[float, ...]]] = {}
        """the last marked screenshot's ids: each one's tag rectangle (x0, y0, x1, y1)
        and its element's box (x, y, w, h)"""
        self._popups: list[str] = []
        self._clipboard = ""  # this tab's own: the browser's is shared by every env on it
        self._refused: list[str] = []  # navigations the guard stopped during this action
        self._tasks: set[asyncio.Future[Any]] = set()

    # -- lifetime ------------------------------------------------------------------

    @property
    def usable(self) -> bool:
        """Whether the page and its browser are still alive."""
        return self._page is not None and self.failure() is None

    def failure(self) -> str | None:
        """Why the page is gone (its renderer, Chromium or the driver died), or None."""
        reason = self.host.failure(self._launch)
        if reason is None and self._crashed:
            return "the page crashed (its renderer was killed or ran out of memory)"
        return reason or self._abandoned

    def abandon(self, reason: str) -> None:
        """Give the page up (it stopped answering): ``usable`` turns False, for good."""
        self._abandoned = reason

    async def open(self) -> None:
        """Create the context, page and CDP session (launching Chromium if needed)."""
        browser = await self.host.ensure_browser()
        self._launch = self.host.launches
        width, height = self.viewport
        self._context = await browser.new_context(
            viewport={"width": width, "height": height},
            service_workers="block",  # so every request goes through the guard
            accept_downloads=False,
            proxy={"server": self.host.proxy, "bypass": _bypass(self.allowed)},
        )
        await self._context.add_init_script(_INIT_SCRIPT)
        await self._context.route("**/*", self._guard)
        await self._context.route_web_socket(re.compile(".*"), self._guard_socket)
        page = self._page = await self._context.new_page()
        page.on("request", self._on_request)
        page.on("requestfinished", self._on_request_done)
        page.on("requestfailed", self._on_request_done)
        page.on("crash", self._on_crash)
        page.on("dialog", self._on_dialog)
        page.on("popup", self._on_popup)
        cdp = self._cdp = CDPChannel(await self._context.new_cdp_session(page))
        for domain in ("Page", "DOM", "Accessibility"):
            await cdp.send(f"{domain}.enable")
        tree = await cdp.send("Page.getFrameTree")
        self._frame = tree["frameTree"]["frame"]["id"]
        cdp.on("Page.frameRequestedNavigation", self._on_started)
        cdp.on("Page.frameStartedLoading", self._on_started)
        cdp.on("Page.frameStoppedLoading", self._on_stopped)
        cdp.on("Page.loadEventFired", self._on_load)

    async def close(self) -> None:
        """Close the context (and its renderer)."""
        context, self._context = self._context, None
        self._page = self._cdp = None
        if context is not None and self.host.failure(self._launch) is None:
            # A dead context is closed enough; closing one whose page spins in a script
            # kills its renderer, but a browser that does not answer is left to time out.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(context.close(), LOAD_TIMEOUT_S)

    # -- events --------------------------------------------------------------------

    async def _guard(self, route: Any) -> None:
        url = route.request.url
        if _origin(url) in self.allowed:
            await route.continue_()
            return
        self.blocked.append(url)
        if route.request.is_navigation_request():
            # "aborted" commits no error page: the tab stays on the page it was on.
            self._refused.append(url)
            await route.abort("aborted")
        else:
            await route.abort("blockedbyclient")

    def _guard_socket(self, socket: Any) -> None:
        if _origin(socket.url.replace("ws", "http", 1)) in self.allowed:
            socket.connect_to_server()
        else:
            self.blocked.append(socket.url)
            self._spawn(socket.close())

    def _spawn(self, work: Any) -> None:
        # Event handlers cannot await; keep a reference so the task is not collected early.
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _on_request(self, request: Any) -> None:
        self._inflight += 1
        self._idle.clear()

    def _on_request_done(self, request: Any) -> None:
        self._inflight = max(0, self._inflight - 1)
        if not self._inflight:
            self._idle.set()

    def _on_started(self, event: dict[str, Any]) -> None:
        if event.get("frameId") == self._frame:
            self._loaded.clear()

    def _on_stopped(self, event: dict[str, Any]) -> None:
        if event.get("frameId") == self._frame:
            self._loaded.set()

    def _on_load(self, event: dict[str, Any]) -> None:
        self._loads += 1
        self._load_seen.set()

    def _on_crash(self, page: Any) -> None:
        self._crashed = True

    def _on_dialog(self, dialog: Any) -> None:
        # alert()/confirm() would block the page forever: accept and report them.
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        self._spawn(dialog.accept())

    def _on_popup(self, popup: Any) -> None:
        # One tab per env: a link that opens a new tab opens in this one instead.
        self._popups.append(popup.url)
        self._spawn(popup.close())

    # -- navigation ------------------------------------------------------------------

    @property
    def url(self) -> str:
        """The page's current URL."""
        return str(self._page.url) if self._page is not None else ""

    async def goto(self, url: str) -> str | None:
        """Open ``url`` (an allowed origin only); an error message or None."""
        base = self.url if _origin(self.url) in self.allowed else min(self.allowed, default="")
        target = urllib.parse.urljoin(base + "/" if base == _origin(base) else base, url)
        if _origin(target) not in self.allowed or not is_loopback_url(target):
            shown = ", ".join(sorted(self.allowed))
            return f"goto: only this site's pages can be opened ({shown}), not {url!r}"
        try:
            await self._page.goto(target, wait_until="load", timeout=LOAD_TIMEOUT_S * 1000)
        except Exception as exc:
            self._check_alive()
            return f"goto: the page did not load ({str(exc).splitlines()[0]})"
        await self._settle()
        return None

    async def start(self, path: str) -> str | None:
        """Open the episode's first page with an empty history (``back`` cannot leave it)."""
        error = await self.goto(path)
        if error is None:
            await self._cdp.send("Page.resetNavigationHistory")
            # Chromium builds an element's accessibility object on the first tree read
            # and keeps the role it found then: an <svg> a task fills after loading reads
            # as "image" or not depending on whether a read came first. Reading the
            # loaded document once here makes that the same every episode.
            await self._cdp.send("Accessibility.getFullAXTree")
        return error

    async def evaluate(self, expression: str) -> Any:
        """The JSON value of a JavaScript expression in the page (awaiting a promise).

        Raises:
            BrowserError: the script threw, or Chromium exited.

        """
        try:
            reply = await self._cdp.send(
                "Runtime.evaluate",
                {"expression": expression, "returnByValue": True, "awaitPromise": True},
            )
        except Exception as exc:
            self._check_alive()
            raise BrowserError(f"page script failed: {str(exc).splitlines()[0]}") from exc
        if "exceptionDetails" in reply:
            details = reply["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise BrowserError(f"page script failed: {str(text).splitlines()[0]}")
        return reply.get("result", {}).get("value")

    async def _flush(self) -> bool:
        """Run what the last input scheduled; whether the document started a navigation.

        A form submits in a later task, so the page first runs one task turn (and the
        ``settle_script``). The answer comes from the page's own ``navigate`` event (see
        ``_INIT_SCRIPT``), so it does not depend on when the browser process reports it.
        """
        settle = f"await ({self.settle_script});" if self.settle_script else ""
        reply = await self._cdp.send(
            "Runtime.evaluate",
            {
                "expression": "(async () => { await new Promise(r => setTimeout(r, 0)); "
                f"{settle} return window.__turngymNavigating === true; }})()",
                "awaitPromise": True,
                "returnByValue": True,
            },
        )
        return bool(reply.get("result", {}).get("value"))

    async def _await_load(self, loads_before: int) -> None:
        """Wait until a document loads after ``loads_before`` (or the guard refused it)."""
        deadline = asyncio.get_running_loop().time() + LOAD_TIMEOUT_S
        while self._loads == loads_before and not self._refused:
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                return
            self._load_seen.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._load_seen.wait(), min(left, 0.05))

    async def _settle(self) -> None:
        """Wait for a navigation the last action started, and for the page's requests."""
        if self._popups:
            url = self._popups.pop()
            self._popups.clear()
            if _origin(url) in self.allowed:
                await self._page.goto(url, wait_until="load", timeout=LOAD_TIMEOUT_S * 1000)
        try:
            await asyncio.wait_for(self._loaded.wait(), LOAD_TIMEOUT_S)
            await asyncio.wait_for(self._idle.wait(), LOAD_TIMEOUT_S)
        except TimeoutError:
            pass  # a page that never finishes loading is still observed as it is

    def _check_alive(self) -> None:
        reason = self.failure()
        if reason is not None:
            raise BrowserError(reason)

    # -- observation -----------------------------------------------------------------

    async def observe(self, flush: bool = False, loads_before: int | None = None) -> str:
        """The page's accessibility tree as text (``AXText``), once no load is under way.

        After an input (``flush``) it first lets the page run what the input scheduled and,
        if the document started a navigation, waits for the next document's load. The
        tree is asked for together with the document's ``readyState``; these run in order
        in the renderer, so a tree is kept only when its document had finished loading.
        Otherwise it waits for the load and reads again.
        """
        nodes: Any = None
        if flush:
            try:
                navigating = await self._flush()
            except Exception:  # the document went away mid-call: a navigation
                self._check_alive()
                navigating = True
            if navigating and loads_before is not None:
                await self._await_load(loads_before)
        for _attempt in range(4):
            await self._settle()
            calls = [
                self._cdp.send("Accessibility.getFullAXTree"),
                self._cdp.send(
                    "Runtime.evaluate",
                    {
                        "expression": f"[document.readyState, {self.probe or 'null'}]",
                        "returnByValue": True,
                    },
                ),
            ]
            replies: list[Any] = await asyncio.gather(*calls, return_exceptions=True)
            if any(isinstance(r, BaseException) for r in replies):
                self._check_alive()  # the document went away mid-call: wait and read again
            else:
                nodes = replies[-2]["nodes"]
                state, self.probe_value = replies[-1].get("result", {}).get("value") or (None, None)
                if state == "complete" and self._loaded.is_set() and not self._popups:
                    return self.ax.render(nodes)
            with contextlib.suppress(Exception):
                await self._page.wait_for_load_state("load", timeout=LOAD_TIMEOUT_S * 1000)
        if nodes is None:
            raise BrowserError("could not read the page: it kept navigating")
        return self.ax.render(nodes)

    async def screenshot(self, marks: bool = False) -> np.ndarray:
        """The viewport as an ``(H, W, 3)`` uint8 array; ``marks`` draws the ``[N]`` ids.

        The ids marked are those of the last observation an action can target
        (``ACTIONABLE_ROLES`` or a click handler), each tag outside its element's box
        (``turngym.envs.marks``); ``self.marks`` then holds each one's tag and box.
        """
        from PIL import Image

        shot = await self._cdp.send("Page.captureScreenshot", {"format": "png"})
        image = np.asarray(
            Image.open(io.BytesIO(base64.b64decode(shot["data"]))).convert("RGB"), dtype=np.uint8
        )
        self.marks = {}
        if marks:
            from turngym.envs.marks import draw_marks

            boxes = await self._boxes()
            image, tags = draw_marks(image, boxes)
            self.marks = {k: (tags[k], boxes[k]) for k in boxes}
        return image

    async def _boxes(self) -> dict[int, tuple[float, float, float, float]]:
        """Viewport boxes of the actionable ids shown in the last observation.

        One DOMSnapshot call: its layout gives the boxes, its ``isClickable`` the nodes
        with a click handler (or a link's default action).
        """
        snap = await self._cdp.send("DOMSnapshot.captureSnapshot", {"computedStyles": []})
        doc = snap["documents"][0]
        backend = doc["nodes"]["backendNodeId"]
        clickable = set(doc["nodes"].get("isClickable", {}).get("index", ()))
        by_backend = {self.ax.backend_id(i): i for i in self.ax.shown_ids}
        sx, sy = doc.get("scrollOffsetX", 0.0), doc.get("scrollOffsetY", 0.0)
        width, height = self.viewport
        boxes: dict[int, tuple[float, float, float, float]] = {}
        layout = doc["layout"]
        for node_index, (x, y, w, h) in zip(layout["nodeIndex"], layout["bounds"], strict=False):
            element_id = by_backend.get(backend[node_index])
            if element_id is None or element_id in boxes or w <= 0 or h <= 0:
                continue
            if self.ax.role(element_id) not in ACTIONABLE_ROLES and node_index not in clickable:
                continue
            x, y = x - sx, y - sy
            if x + w > 0 and y + h > 0 and x < width and y < height:
                boxes[element_id] = (x, y, w, h)
        return boxes

    # -- actions ---------------------------------------------------------------------

    async def execute(self, action: WebAction) -> str | None:
        """Apply a parsed action (not ``answer``); an error message, or None if it worked.

        Raises:
            BrowserError: Chromium exited.

        """
        self.dialogs.clear()
        self._refused.clear()
        try:
            error = await self._execute(action)
        except BrowserError:
            raise
        except Exception as exc:
            self._check_alive()
            error = f"{action.name}: {str(exc).splitlines()[0]}"
        return error

    async def act(self, action: WebAction) -> tuple[str | None, str]:
        """``execute`` then ``observe`` in one trip to the browser thread: (error, tree)."""
        loads = self._loads
        error = await self.execute(action)
        flush = error is None and action.name in _MAY_NAVIGATE
        tree = await self.observe(flush=flush, loads_before=loads)
        if error is None and self._refused:
            error = (
                f"{action.name}: the page tried to open {self._refused[0]}, which is not "
                "this site; it was blocked"
            )
        return error, tree

    async def _press(self, key: str) -> str | None:
        """Press a key or chord; copy, cut and paste use this tab's own clipboard.

        Chromium's clipboard is one for the whole browser, so envs stepped at once on one
        browser would paste each other's text: the selection a copy or cut chord takes is
        kept here, and a paste chord types it (``Input.insertText``) instead.
        """
        chord = key.replace(" ", "").lower()
        if chord in _PASTE_CHORDS:
            await self._cdp.send("Input.insertText", {"text": self._clipboard})
            return None
        if chord in _COPY_CHORDS:
            evaluated = await self._cdp.send(
                "Runtime.evaluate", {"expression": _SELECTION, "returnByValue": True}
            )
            self._clipboard = str(evaluated.get("result", {}).get("value") or "")
        await self._page.keyboard.press(key)
        return None

    async def _execute(self, action: WebAction) -> str | None:
        name, args = action.name, action.args
        if name == "noop":
            return None
        if name == "goto":
            return await self.goto(args[0])
        if name == "back":
            history = await self._cdp.send("Page.getNavigationHistory")
            if history["currentIndex"] < 1:
                return "back: there is no earlier page in this episode"
            await self._page.go_back(wait_until="load", timeout=LOAD_TIMEOUT_S * 1000)
            await self._settle()
            return None
        if name == "press":
            return await self._press(args[0])
        if name == "scroll":
            await self._cdp.send(
                "Runtime.evaluate", {"expression": f"window.scrollBy({args[0]}, {args[1]})"}
            )
            return None
        if name == "mouse_click":
            x, y = args
            width, height = self.viewport
            if not (0 <= x < width and 0 <= y < height):
                return f"mouse_click: ({x:g}, {y:g}) is outside the {width}x{height} page"
            await self._click_at(x, y)
            return None
        backend = self.ax.backend_id(args[0])
        if backend is None:
            return f"{name}: no element [{args[0]}] on this page"
        if name == "click":
            point = await self._centre(backend)
            if isinstance(point, str):
                return f"click: element [{args[0]}] {point}"
            await self._click_at(*point)
            return None
        target = await self._cdp.send("DOM.resolveNode", {"backendNodeId": backend})
        object_id = target["object"]["objectId"]
        script = _FILL if name == "fill" else _SELECT
        result = await self._cdp.send(
            "Runtime.callFunctionOn",
            {
                "objectId": object_id,
                "functionDeclaration": script,
                "arguments": [{"value": args[1]}],
                "returnByValue": True,
            },
        )
        message = result.get("result", {}).get("value") or ""
        if message:
            return f"{name}: element [{args[0]}]: {message}"
        if name == "fill" and args[1]:
            await self._cdp.send("Input.insertText", {"text": args[1]})
        return None

    async def _centre(self, backend: int) -> tuple[float, float] | str:
        """The centre of the element's first box on screen (scrolled into view), or why not.

        The element is scrolled into view first (nothing moves when it is in view): one
        inside a scrolled box (an inbox's list) may have its box inside the viewport yet
        be clipped by the box, and a click at its centre would land on something else.
        """
        try:
            await self._cdp.send("DOM.scrollIntoViewIfNeeded", {"backendNodeId": backend})
        except Exception:  # "Node is detached from document" and the like
            self._check_alive()
            return "is not visible (no box on screen)"
        point = await self._box_centre(backend)
        return point if point is not None else "is not visible (no box on screen)"

    async def _box_centre(self, backend: int) -> tuple[float, float] | None:
        """The centre of the element's first box with an area inside the viewport."""
        try:
            reply = await self._cdp.send("DOM.getContentQuads", {"backendNodeId": backend})
        except Exception:  # CDP says "Could not compute content quads": not rendered
            self._check_alive()
            return None
        width, height = self.viewport
        for quad in reply["quads"]:
            xs, ys = quad[0::2], quad[1::2]
            x, y = sum(xs) / 4, sum(ys) / 4
            has_area = max(xs) - min(xs) >= 1 and max(ys) - min(ys) >= 1
            if has_area and 0 <= x < width and 0 <= y < height:
                return x, y
        return None

    async def _click_at(self, x: float, y: float) -> None:
        event = {"x": x, "y": y, "button": "left", "clickCount": 1}
        # Sent back to back: CDP handles one session's messages in order.
        await asyncio.gather(
            self._cdp.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y}),
            self._cdp.send("Input.dispatchMouseEvent", {"type": "mousePressed", **event}),
            self._cdp.send("Input.dispatchMouseEvent", {"type": "mouseReleased", **event}),
        )
