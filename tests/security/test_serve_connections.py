"""`turngym serve` under hostile connections: each test is one attack on a real server
subprocess on 127.0.0.1 (the tiny model of tests/serving.py).

Half-open connections (a client that sends part of a request and waits) are closed at
their deadline, and while they wait the newest connections push out the oldest, so they
can neither run the server out of file descriptors nor lock out an honest client. A
loopback server answers only its loopback names (DNS rebinding) and JSON POSTs (a
browser page's cross-site ``text/plain`` POST needs no CORS preflight).

No test measures time: a client waits far longer than any honest cost, and "closed at the
deadline" is shown by events (the server closes the socket) and counts (a dribbling
client is cut off long before its bytes run out).
"""

from __future__ import annotations

import contextlib
import resource
import select
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

httpx = pytest.importorskip(
    "httpx", reason="turngym serve needs httpx: pip install 'turngym[serve]'"
)
pytest.importorskip("fastapi", reason="turngym serve needs fastapi: pip install 'turngym[serve]'")
pytest.importorskip("torch", reason="the tiny model needs torch")
pytest.importorskip("transformers", reason="the tiny model needs transformers")

from tests.serving import Served, build_model, start_server  # noqa: E402

KEY = "test-key-0123456789"
PATIENCE = 120.0  # seconds a client waits: far above any honest request here, even under load
INHERITED_FDS = 256  # the servers start with this soft file-descriptor limit
HOSTILE = 320  # half-open connections: more than INHERITED_FDS, over twice --max-connections
MAX_CONNECTIONS = 64


@contextlib.contextmanager
def _soft_fd_limit(limit: int) -> Iterator[None]:
    """This process's soft RLIMIT_NOFILE lowered to ``limit`` (a child started now keeps it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(limit, soft), hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def _need_fds(count: int) -> None:
    """Raise this process's soft fd limit to ``count`` or skip the test."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= count:
        return
    if hard != resource.RLIM_INFINITY and hard < count:
        pytest.skip(f"the test needs {count} file descriptors; ulimit -Hn is {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (count, hard))


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_model(tmp_path_factory.mktemp("connections") / "tiny")


@pytest.fixture(scope="module")
def quick(model_dir: Path) -> Iterator[Served]:
    """A keyless loopback server with one-second deadlines, started with a low fd limit."""
    args = ["--header-timeout", "1", "--body-timeout", "1", "--keep-alive-timeout", "1"]
    with _soft_fd_limit(INHERITED_FDS):
        server = start_server(
            model_dir, *args, "--max-connections", str(MAX_CONNECTIONS), threads=1
        )
    yield server
    server.stop()


@pytest.fixture(scope="module")
def patient(model_dir: Path) -> Iterator[Served]:
    """A keyed loopback server whose deadlines are far off: only the cap can free slots."""
    args = ["--header-timeout", "600", "--body-timeout", "600", "--keep-alive-timeout", "600"]
    with _soft_fd_limit(INHERITED_FDS):
        server = start_server(
            model_dir, *args, "--max-connections", str(MAX_CONNECTIONS), api_key=KEY, threads=1
        )
    yield server
    server.stop()


def _address(served: Served) -> tuple[str, int]:
    host, port = served.url.removeprefix("http://").removesuffix("/v1").rsplit(":", 1)
    return host, int(port)


def _connect(served: Served, data: bytes = b"") -> socket.socket:
    sock = socket.create_connection(_address(served), timeout=PATIENCE)
    if data:
        sock.sendall(data)
    return sock


def _closed_by_server(sock: socket.socket, limit: float = PATIENCE) -> bool:
    """Whether the server closes ``sock`` (any reply is read and dropped) within ``limit``."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if not select.select([sock], [], [], deadline - time.monotonic())[0]:
            return False
        try:
            if not sock.recv(65536):
                return True
        except (ConnectionResetError, BrokenPipeError):
            return True
    return False


def _head(served: Served, method: str = "GET", path: str = "/health", **headers: str) -> str:
    host, port = _address(served)
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}:{port}"]
    lines += [f"{k.replace('_', '-')}: {v}" for k, v in headers.items()]
    return "\r\n".join(lines) + "\r\n"


def _half_open(served: Served, kind: int) -> socket.socket:
    """A connection that sends part of a request and waits (five kinds, by ``kind % 5``)."""
    post = _head(served, "POST", "/v1/completions", Content_Type="application/json")
    return _connect(
        served,
        [
            b"",  # connects and says nothing
            b"GET /health HTT",  # part of the request line
            _head(served).encode(),  # every header but not the blank line after them
            (post + "Content-Length: 1000\r\n\r\n").encode() + b'{"prompt":',  # part of a body
            (post + "Transfer-Encoding: chunked\r\n\r\n5\r\n").encode(),  # part of a chunk
        ][kind % 5],
    )


def _auth(key: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"} if key else {}


def _honest(served: Served, key: str | None = None) -> None:
    """An honest client is answered: its health check and a completion."""
    root = served.url.removesuffix("/v1")
    health = httpx.get(root + "/health", headers=_auth(key), timeout=PATIENCE)
    assert health.status_code == 200, health.text
    body = {"prompt": "Move left", "max_tokens": 2}
    reply = httpx.post(served.url + "/completions", json=body, headers=_auth(key), timeout=PATIENCE)
    assert reply.status_code == 200, reply.text


# -- half-open connections -----------------------------------------------------------------


def test_half_open_connections_are_closed_at_their_deadline(quick):
    sockets = [_half_open(quick, kind) for kind in range(10)]
    # A finished request, then silence: the keep-alive deadline closes it.
    idle = _connect(quick, (_head(quick) + "\r\n").encode())
    try:
        for i, sock in enumerate(sockets):
            assert _closed_by_server(sock), f"half-open connection {i} (kind {i % 5}) kept open"
        assert _closed_by_server(idle), "an idle keep-alive connection kept open"
    finally:
        for sock in [*sockets, idle]:
            sock.close()
    _honest(quick)


@pytest.mark.parametrize("phase", ["headers", "body"])
def test_a_dribbling_client_is_cut_off_at_the_deadline(quick, phase):
    """A byte now and then never lets the deadline restart: it bounds the whole request."""
    start = b""
    if phase == "body":
        start = (
            _head(quick, "POST", "/v1/completions", Content_Type="application/json")
            + "Content-Length: 100000\r\n\r\n"
        ).encode()
    sock = _connect(quick, start)
    try:
        for _ in range(1000):  # 100 s of dribbling: far past the one-second deadline
            if select.select([sock], [], [], 0.1)[0]:
                break  # the server answered or closed
            try:
                sock.sendall(b"X" if phase == "headers" else b" ")
            except (ConnectionResetError, BrokenPipeError):
                break
        else:
            pytest.fail(f"a client dribbling its {phase} was never cut off")
        assert _closed_by_server(sock)
    finally:
        sock.close()
    _honest(quick)


@pytest.mark.parametrize("key", [None, KEY], ids=["keyless", "keyed"])
def test_half_open_connections_cannot_lock_out_a_client(quick, patient, key):
    """More half-open connections than the server's inherited fd limit, and over twice
    ``--max-connections``: an honest client still gets in, and the oldest half-open ones
    are closed to make room (on the patient server, long before their deadline)."""
    served = patient if key else quick
    _need_fds(HOSTILE + 64)
    sockets = []
    try:
        for i in range(HOSTILE):
            sockets.append(_half_open(served, i))
        _honest(served, key)
        pushed_out = HOSTILE - MAX_CONNECTIONS
        for i, sock in enumerate(sockets[:pushed_out]):
            assert _closed_by_server(sock), f"half-open connection {i} of {HOSTILE} kept open"
    finally:
        for sock in sockets:
            sock.close()
    _honest(served, key)


def test_a_connection_ages_from_its_connect_not_from_its_headers(patient):
    """A client that finishes its headers late is no younger for it: the cap pushes out the
    connection that has waited on its client longest, counted from its connect (under load
    the server may read a half-open client's bytes after later clients connect, which made
    the pushed-out set depend on timing)."""
    _need_fds(MAX_CONNECTIONS + 64)
    _honest(patient, KEY)  # the server has caught up with earlier tests' closed sockets
    late, early = _connect(patient), _connect(patient)
    post = _head(patient, "POST", "/v1/completions", Content_Type="application/json")
    late.sendall((post + f"Authorization: Bearer {KEY}\r\nContent-Length: 1000\r\n\r\n{{").encode())
    _honest(patient, KEY)  # the server has read the late headers
    others = []
    try:
        # late, early and these fill the cap, one more than it holds
        for _ in range(MAX_CONNECTIONS - 1):
            others.append(_connect(patient))
        assert _closed_by_server(late), "the connection that connected first was kept"
    finally:
        for sock in [late, early, *others]:
            sock.close()
    _honest(patient, KEY)


def _max_open_files(pid: int) -> tuple[int, int]:
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            soft, hard = line.split()[3:5]
            return int(soft), int(hard) if hard.isdigit() else resource.RLIM_INFINITY
    raise AssertionError("no Max open files line in /proc/PID/limits")


@pytest.mark.skipif(not Path("/proc/self/limits").exists(), reason="reads /proc/PID/limits")
def test_the_server_raises_its_file_descriptor_limit(quick):
    soft, hard = _max_open_files(quick.proc.pid)
    assert soft > INHERITED_FDS, f"the server kept the soft fd limit it inherited ({soft})"
    assert soft == hard or soft >= 10_000, (soft, hard)


# -- browsers: DNS rebinding and cross-site POSTs ------------------------------------------


def _status(reply: httpx.Response) -> int:
    return reply.status_code


@pytest.mark.parametrize(
    "host",
    [
        "evil.example",
        "evil.example:{port}",
        "127.0.0.1.evil.example:{port}",
        "localhost.evil.example",
        "10.1.2.3:{port}",
        "",
    ],
)
@pytest.mark.parametrize("key", [None, KEY], ids=["keyless", "keyed"])
def test_a_loopback_server_refuses_other_host_names(quick, patient, key, host):
    served = patient if key else quick
    port = _address(served)[1]
    headers = {**_auth(key), "Host": host.format(port=port)}
    root = served.url.removesuffix("/v1")
    for reply in (
        httpx.get(root + "/health", headers=headers, timeout=PATIENCE),
        httpx.get(served.url + "/models", headers=headers, timeout=PATIENCE),
        httpx.post(
            served.url + "/completions",
            json={"prompt": "Move left", "max_tokens": 2},
            headers=headers,
            timeout=PATIENCE,
        ),
    ):
        assert _status(reply) in (400, 403), (host, reply.status_code, reply.text[:200])
        assert "choices" not in reply.text and "batching" not in reply.text
    for name in ("127.0.0.1", "localhost", "[::1]", "LOCALHOST"):
        # its loopback names, with any port (an ssh -L tunnel may forward another one)
        for shown in (f"{name}:{port}", f"{name}:9999", name):
            reply = httpx.get(
                root + "/health", headers={**_auth(key), "Host": shown}, timeout=PATIENCE
            )
            assert reply.status_code == 200, (shown, reply.text[:200])


@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "text/plain;charset=UTF-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        None,
        "application/json-patch+json",
        "text/json",
    ],
)
@pytest.mark.parametrize("key", [None, KEY], ids=["keyless", "keyed"])
def test_a_post_that_is_not_json_is_refused_with_415(quick, patient, key, content_type):
    served = patient if key else quick
    root = served.url.removesuffix("/v1")
    calls = _calls(served, key)
    headers = {**_auth(key), **({"Content-Type": content_type} if content_type else {})}
    body = b'{"prompt": "Move left", "max_tokens": 2}'
    reply = httpx.post(served.url + "/completions", content=body, headers=headers, timeout=60)
    assert reply.status_code == 415, (content_type, reply.text[:200])
    assert "application/json" in reply.json()["error"]["message"]
    assert _calls(served, key) == calls  # the model never saw it
    for kind in ("application/json", "application/json; charset=utf-8", "Application/JSON"):
        reply = httpx.post(
            served.url + "/completions",
            content=body,
            headers={**_auth(key), "Content-Type": kind},
            timeout=PATIENCE,
        )
        assert reply.status_code == 200, (kind, reply.text[:200])
    assert httpx.get(root + "/health", headers=_auth(key), timeout=PATIENCE).status_code == 200


def _calls(served: Served, key: str | None) -> Any:
    root = served.url.removesuffix("/v1")
    reply = httpx.get(root + "/health", headers=_auth(key), timeout=PATIENCE)
    assert reply.status_code == 200, reply.text
    return reply.json()["batching"]["calls"]


# -- settings ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "field",
    [
        {"header_timeout": 0},
        {"body_timeout": float("inf")},
        {"keep_alive_timeout": float("nan")},
        {"header_timeout": True},
        {"max_connections": 0},
    ],
)
def test_a_setting_that_would_leave_connections_unbounded_is_refused(field):
    from turngym.sdk.serve.connections import ServeConnections

    name = next(iter(field))
    with pytest.raises(ValueError, match=name):
        ServeConnections(**field)


def test_the_cap_is_lowered_to_fit_the_fd_limit(monkeypatch):
    from turngym.sdk.serve import app
    from turngym.sdk.serve.connections import FD_RESERVE, ServeConnections

    said: list[str] = []
    monkeypatch.setattr(app, "raise_fd_limit", lambda: FD_RESERVE + 200)
    fitted = app._fitted(ServeConnections(max_connections=1024), said.append)
    assert fitted.max_connections == 100
    assert len(said) == 1 and "100" in said[0] and "ulimit -Hn" in said[0]
    monkeypatch.setattr(app, "raise_fd_limit", lambda: 1 << 20)
    assert app._fitted(ServeConnections(), said.append) == ServeConnections()
    assert len(said) == 1
