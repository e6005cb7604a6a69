"""`turngym serve` under hostile requests: each test is one attack on a real server
subprocess (a tiny model whose context is 2,048 tokens), and the server keeps serving
honest requests afterwards.

No test measures time: "at once" means the reply comes while a client timeout far above
the honest cost has not run out, and fairness is shown by the order replies arrive in.
"""

from __future__ import annotations

import http.client
import json
import os
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

httpx = pytest.importorskip(
    "httpx", reason="turngym serve needs httpx: pip install 'turngym[serve]'"
)
pytest.importorskip("fastapi", reason="turngym serve needs fastapi: pip install 'turngym[serve]'")
torch = pytest.importorskip("torch", reason="the tiny model needs torch")
pytest.importorskip("transformers", reason="the tiny model needs transformers")

from tests.serving import Served, build_model, start_server  # noqa: E402

CONTEXT = 2048  # build_tiny_model's max_positions
KEY = "test-key-0123456789"
PATIENCE = 300.0  # seconds a client waits: far above any honest request here, even under load


def _root(served: Served) -> str:
    return served.url.removesuffix("/v1")


def _health(served: Served, key: str | None = None) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    reply = httpx.get(_root(served) + "/health", headers=headers, timeout=PATIENCE)
    assert reply.status_code == 200, reply.text
    return reply.json()


def _wait_for(condition: Any, what: str, limit: float = PATIENCE) -> None:
    """Poll ``condition()`` until true (the limit only stops a broken server hanging CI)."""
    deadline = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.01)


def _error(reply: httpx.Response) -> dict[str, Any]:
    error = reply.json()["error"]
    assert set(error) >= {"message", "type", "param", "code"}
    return error


def _address(served: Served) -> tuple[str, int]:
    host, port = _root(served).removeprefix("http://").rsplit(":", 1)
    return host, int(port)


def _send_raw(served: Served, head: str, body: bytes = b"") -> socket.socket:
    sock = socket.create_connection(_address(served), timeout=PATIENCE)
    sock.sendall(head.encode() + body)
    return sock


def _status_of(sock: socket.socket) -> int:
    """The status code of the reply on ``sock`` (its first line)."""
    data = b""
    while b"\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    assert data.startswith(b"HTTP/1.1 "), data[:200]
    return int(data.split()[1])


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shared tiny model with its end-of-text logits pinned to 0, so that greedy
    decoding never stops before max_tokens: a long generation is a long generation."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = build_model(tmp_path_factory.mktemp("hostile") / "tiny")
    model = AutoModelForCausalLM.from_pretrained(path)
    tokenizer = AutoTokenizer.from_pretrained(path)
    ends = tokenizer.convert_tokens_to_ids(["<|endoftext|>", "<|im_end|>"])
    with torch.no_grad():
        model.get_output_embeddings().weight[ends] = 0.0
    model.save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def served(model_dir: Path) -> Iterator[Served]:
    """A loopback server without a key, as `turngym serve --model DIR` starts one."""
    server = start_server(model_dir, "--batch-wait-ms", "20", threads=1)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def keyed(model_dir: Path) -> Iterator[Served]:
    """A server started with TURNGYM_API_KEY that takes weight updates."""
    server = start_server(model_dir, "--accept-weight-updates", api_key=KEY, threads=1)
    yield server
    server.stop()


@pytest.fixture
def client(served: Served) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=served.url, timeout=PATIENCE) as c:
        yield c


@pytest.fixture
def authed(keyed: Served) -> Iterator[httpx.Client]:
    headers = {"Authorization": f"Bearer {KEY}"}
    with httpx.Client(base_url=keyed.url, timeout=PATIENCE, headers=headers) as c:
        yield c


def _honest(client: httpx.Client) -> None:
    """An honest request still gets its completion."""
    reply = client.post("/completions", json={"prompt": "Move left", "max_tokens": 3})
    assert reply.status_code == 200, reply.text
    assert len(reply.json()["choices"][0]["token_ids"]) == 3


def _model_calls(served: Served) -> int:
    return int(_health(served)["batching"]["calls"])


# -- sizes ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/completions", {"prompt": "x " * 1_000_000, "max_tokens": 4}),
        ("/completions", {"prompt": [5] * 3000, "max_tokens": 4}),
        ("/completions", {"prompt": ["Move left", [5] * CONTEXT], "max_tokens": 1}),
        ("/chat/completions", {"messages": [{"role": "user", "content": "x " * 1_000_000}]}),
    ],
    ids=["2M-characters", "3000-token-ids", "no-room-to-generate", "2M-character-message"],
)
def test_a_prompt_longer_than_the_context_is_refused_at_once(served, client, path, body):
    before = _model_calls(served)
    reply = client.post(path, json=body)
    assert reply.status_code == 400, reply.text[:300]
    error = _error(reply)
    assert "context" in error["message"] and str(CONTEXT) in error["message"]
    assert _model_calls(served) == before  # refused before the model saw it
    _honest(client)


def test_a_huge_prompt_does_not_hold_up_a_normal_request(served, client):
    host, port = _address(served)
    hostile = http.client.HTTPConnection(host, port, timeout=PATIENCE)
    body = json.dumps({"prompt": "You are in a frozen lake. " * 80_000, "max_tokens": 16})
    assert len(body) > 2_000_000
    # request() returns once the kernel took the 2 MB: the server is reading it.
    before = _model_calls(served)
    hostile.request("POST", "/v1/completions", body, {"Content-Type": "application/json"})
    _honest(client)  # within PATIENCE, not after the minutes the big prompt would take
    assert hostile.getresponse().status == 400
    hostile.close()
    assert _model_calls(served) == before + 1  # the honest call only: no work on the big one


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("max_tokens", 200_000),
        ("max_tokens", 10**9),
        ("max_tokens", CONTEXT - 2),  # with a 3-token prompt: one past the context
        ("max_completion_tokens", 200_000),
    ],
)
def test_max_tokens_beyond_the_context_is_refused_at_once(served, client, key, value):
    completion = {"prompt": [5, 6, 7], key: value, "temperature": 1.0}
    if key == "max_completion_tokens":
        completion = {"messages": [{"role": "user", "content": "Hi"}], key: value}
    path = "/completions" if "prompt" in completion else "/chat/completions"
    before = _model_calls(served)
    reply = client.post(path, json=completion)
    assert reply.status_code == 400, reply.text[:300]
    error = _error(reply)
    assert error["param"] == key and key in error["message"]
    assert _model_calls(served) == before  # refused before the model saw it
    _honest(client)


def test_the_prompts_of_one_request_are_capped(served, client):
    before = _model_calls(served)
    reply = client.post("/completions", json={"prompt": [[5, 6]] * 1000, "max_tokens": 1})
    assert reply.status_code == 400, reply.text[:300]
    error = _error(reply)
    assert error["param"] == "prompt" and "at most" in error["message"]
    assert _model_calls(served) == before
    _honest(client)


@pytest.mark.parametrize(
    ("field", "message"),
    [
        ({"guided_choice": ["left"] * 8193}, "at most 8192"),
        ({"structured_outputs": {"choice": ["x" * 1000] * 300}}, "at most 262,144"),
        ({"guided_choice": [" ".join(f"w{i}" for i in range(1500))]}, "longest choice"),
    ],
    ids=["8193-choices", "300k-characters", "a-choice-past-the-context"],
)
def test_hostile_guided_choice_is_refused_at_once(served, client, field, message):
    before = _model_calls(served)
    reply = client.post("/completions", json={"prompt": "Move left", "max_tokens": 1, **field})
    assert reply.status_code == 400, reply.text[:300]
    error = _error(reply)
    assert error["param"] == next(iter(field)) and message in error["message"]
    assert _model_calls(served) == before  # refused before the model saw it
    _honest(client)


@pytest.mark.parametrize(
    "body",
    [
        b"[" * 100_000 + b"]" * 100_000,
        b'{"prompt": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        b'{"prompt": "x", "user": ' + b'{"a": ' * 50_000 + b"1" + b"}" * 50_001,
        b'{"prompt": "x", "user": ' + b"[" * 200 + b"]" * 200 + b"}",
    ],
    ids=["array", "prompt", "object", "200-deep"],
)
def test_deeply_nested_json_is_a_400(client, body):
    reply = client.post("/completions", content=body, headers={"Content-Type": "application/json"})
    assert reply.status_code == 400, reply.text[:300]
    assert "nested" in _error(reply)["message"]
    _honest(client)


def test_an_oversized_body_is_refused_before_it_is_read(served, client):
    head = (
        "POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {1 << 31}\r\n\r\n"
    )
    declared = _send_raw(served, head, b'{"prompt": "' + b"x" * 1000)
    assert _status_of(declared) == 413  # the other 2 GB were never asked for
    declared.close()
    # Chunked, no length given: refused once the bytes that came pass the cap.
    head = (
        "POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"
    )
    streamed = _send_raw(served, head)
    chunk = b"%x\r\n%s\r\n" % (1 << 20, b"x" * (1 << 20))
    for _ in range(64):  # 64 MiB at most; the chunked body is never finished
        if select.select([streamed], [], [], 0)[0]:
            break  # the server answered
        streamed.sendall(chunk)
    assert _status_of(streamed) == 413
    streamed.close()
    _honest(client)


# -- work whose client left ---------------------------------------------------------------


def _post_and_hold(served: Served, body: dict[str, Any]) -> http.client.HTTPConnection:
    host, port = _address(served)
    conn = http.client.HTTPConnection(host, port, timeout=PATIENCE)
    conn.request("POST", "/v1/completions", json.dumps(body), {"Content-Type": "application/json"})
    return conn


def _arrived(served: Served) -> int:
    """Requests (or parts) that reached the batcher: the calls made plus those queued.

    Starting a call moves one from queued to calls, so only an arrival changes the sum.
    (A server that reports no queue counts calls only.)
    """
    batching = _health(served)["batching"]
    return int(batching["calls"]) + int(batching.get("queued", 0))


def test_a_client_that_leaves_stops_its_running_generation(served, client):
    before = _health(served)["batching"]
    rows, steps = 32, CONTEXT - 8  # one call of the default --max-batch-size
    conn = _post_and_hold(
        served, {"prompt": [[5, 6, 7]] * rows, "max_tokens": steps, "temperature": 0}
    )
    _wait_for(lambda: _health(served)["batching"]["calls"] > before["calls"], "the call")
    conn.close()  # the client leaves while its generation runs
    _honest(client)
    after = _health(served)["batching"]
    assert after["cancelled"] - before["cancelled"] == 1
    produced = after["generated_tokens"] - before["generated_tokens"] - 3  # 3: _honest's
    assert produced < rows * steps, "the generation ran to the end after its client left"


def test_a_client_that_leaves_drops_its_queued_request(served, client):
    before = _health(served)["batching"]
    # A backlog: 256 long generations, served 32 prompts (--max-batch-size) a call.
    backlog = {"prompt": [[5, 6, 7]] * 256, "max_tokens": CONTEXT - 8, "temperature": 0}
    running = _post_and_hold(served, backlog)
    _wait_for(lambda: _health(served)["batching"]["calls"] > before["calls"], "the first call")
    arrived = _arrived(served)
    queued = _post_and_hold(served, {"prompt": [[9, 9]] * 3, "max_tokens": 5})
    _wait_for(lambda: _arrived(served) > arrived, "the request to queue")
    queued.close()  # it leaves while it waits behind the backlog...
    running.close()  # ...and so does the backlog's client
    _honest(client)
    after = _health(served)["batching"]
    calls = after["calls"] - before["calls"]
    prompts = [batch["prompts"] for batch in after["recent_batches"][-calls:]]
    assert 3 not in prompts, f"the request whose client left still ran: batches {prompts}"
    assert after["cancelled"] - before["cancelled"] == 2


# -- fairness ------------------------------------------------------------------------------


def test_one_client_cannot_starve_another(served):
    """Four long generations from one client, then a short one from another: the short
    one waits for the generation already running, not for the whole backlog."""
    before = _arrived(served)
    finished: list[str] = []

    def send(address: str, body: dict[str, Any], name: str) -> None:
        transport = httpx.HTTPTransport(local_address=address)
        with httpx.Client(base_url=served.url, transport=transport, timeout=PATIENCE) as c:
            reply = c.post("/completions", json=body)
        assert reply.status_code == 200, reply.text
        finished.append(name)

    with ThreadPoolExecutor(5) as pool:
        heavy = [
            pool.submit(
                send,
                "127.0.0.2",
                {"prompt": [[5, 6, 7]], "max_tokens": 1200 + i, "temperature": 0},
                f"heavy{i}",
            )
            for i in range(4)  # different max_tokens: four calls, not one merged call
        ]
        _wait_for(lambda: _arrived(served) == before + 4, "the long requests to arrive")
        light = pool.submit(send, "127.0.0.3", {"prompt": "Move left", "max_tokens": 4}, "light")
        for future in [*heavy, light]:
            future.result()
    ahead = finished.index("light")
    assert ahead <= 2, f"the short request waited for {ahead} long ones: {finished}"


# -- keys ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/health"),
        ("GET", "/v1/models"),
        ("POST", "/v1/completions"),
        ("POST", "/v1/chat/completions"),
        ("POST", "/v1/update_weights"),
        ("GET", "/docs"),
        ("GET", "/openapi.json"),
        ("GET", "/nowhere"),
    ],
)
def test_an_api_key_guards_every_endpoint(keyed, method, path):
    body = {"prompt": "Move left", "max_tokens": 2, "path": "/etc/hostname"}
    for headers in (
        {},
        {"Authorization": "Bearer wrong-key"},
        {"Authorization": f"Bearer {KEY}x"},
        {"Authorization": f"Basic {KEY}"},
        {"Authorization": KEY},
        {"X-Api-Key": KEY},
    ):
        reply = httpx.request(
            method, _root(keyed) + path, json=body, headers=headers, timeout=PATIENCE
        )
        assert reply.status_code == 401, (headers, reply.text[:300])
        assert "TURNGYM_API_KEY" not in reply.text and KEY not in reply.text
        assert _error(reply)["code"] == "invalid_api_key"
    assert _health(keyed, KEY)["status"] == "ok"


@pytest.mark.parametrize(
    "args",
    [["--host", "0.0.0.0"], ["--accept-weight-updates"]],
    ids=["beyond-loopback", "weight-updates"],
)
def test_a_server_others_can_reach_or_change_needs_a_key(model_dir, args):
    env = {k: v for k, v in os.environ.items() if k != "TURNGYM_API_KEY"}
    cmd = [sys.executable, "-m", "turngym.cli", "serve", "--model", str(model_dir)]
    proc = subprocess.Popen(
        [*cmd, "--port", "0", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    try:
        assert proc.stdout is not None and proc.stderr is not None
        started = proc.stdout.readline()  # a server that starts says so; a refusal exits
        assert not started, f"the server started without a key: {started!r}"
        assert proc.wait(timeout=PATIENCE) != 0
        error = proc.stderr.read().decode()
        assert error.count("\n") == 1 and "Traceback" not in error
        assert "--api-key" in error and "TURNGYM_API_KEY" in error
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


# -- weight updates ------------------------------------------------------------------------


def _state(model_dir: Path) -> dict[str, Any]:
    from safetensors.torch import load_file

    return load_file(str(model_dir / "model.safetensors"))


def _prompt_logprobs(client: httpx.Client) -> list[float]:
    body = {"prompt": [5, 6, 7, 8, 9, 10], "max_tokens": 0, "echo": True, "logprobs": 1}
    reply = client.post("/completions", json=body)
    assert reply.status_code == 200, reply.text
    return reply.json()["choices"][0]["logprobs"]["token_logprobs"][1:]


def _weights_dir(client: httpx.Client) -> Path:
    reply = client.get("/update_weights")
    assert reply.status_code == 200, reply.text
    return Path(reply.json()["weights_dir"])


def test_weights_load_only_from_the_weights_dir(authed, model_dir, tmp_path):
    from safetensors.torch import save_file

    state = _state(model_dir)
    name = next(k for k in state if k.endswith("embed_tokens.weight"))
    changed = {name: state[name] + 0.5}
    outside = tmp_path / f"outside-{os.getpid()}-{tmp_path.name}.safetensors"
    save_file(changed, str(outside))
    before = _prompt_logprobs(authed)
    reply = authed.post("/update_weights", json={"path": str(outside)})
    assert reply.status_code == 400, reply.text
    assert _prompt_logprobs(authed) == before
    inside = _weights_dir(authed)
    (inside / "sub").mkdir(exist_ok=True)
    (inside / "link.safetensors").unlink(missing_ok=True)
    (inside / "link.safetensors").symlink_to(outside)
    for path in [
        f"{inside}/../{outside.name}",
        f"{inside}/sub/../../{outside.name}",
        str(inside / "link.safetensors"),
        os.path.relpath(outside, inside),
    ]:
        (inside.parent / outside.name).write_bytes(outside.read_bytes())
        reply = authed.post("/update_weights", json={"path": path})
        assert reply.status_code == 400, (path, reply.text)
        (inside.parent / outside.name).unlink()
    assert _prompt_logprobs(authed) == before
    # The same file inside the dir is loaded: honest use still works.
    save_file(changed, str(inside / "update.safetensors"))
    reply = authed.post("/update_weights", json={"path": str(inside / "update.safetensors")})
    assert reply.status_code == 200, reply.text
    assert _prompt_logprobs(authed) != before
    save_file({name: state[name]}, str(inside / "undo.safetensors"))
    assert authed.post("/update_weights", json={"path": "undo.safetensors"}).status_code == 200
    assert _prompt_logprobs(authed) == pytest.approx(before, abs=1e-6)
    _honest(authed)


def test_a_missing_and_an_unreadable_weights_file_get_the_same_answer(authed, tmp_path):
    (tmp_path / "exists.safetensors").write_bytes(b"\0" * 64)
    answers = {}

    def ask(path: str) -> None:
        reply = authed.post("/update_weights", json={"path": path})
        answers[path] = (reply.status_code, reply.text.replace(path, "PATH"))

    for path in [
        str(tmp_path / "missing.safetensors"),
        str(tmp_path / "exists.safetensors"),
        "/etc/hostname",
        "/etc",
        "/proc/self/environ",
        "/dev/zero",
    ]:
        ask(path)
    assert len(set(answers.values())) == 1, answers
    # The same inside the weights dir for anything but a regular file.
    inside = _weights_dir(authed)
    os.mkfifo(inside / "fifo")
    (inside / "dir").mkdir()
    (inside / "to-hostname").symlink_to("/etc/hostname")
    (inside / "to-nowhere").symlink_to(tmp_path / "missing.safetensors")
    for name in ("fifo", "dir", "to-hostname", "to-nowhere", "absent"):
        ask(str(inside / name))
    assert len(set(answers.values())) == 1, answers
    ((status, _),) = set(answers.values())
    assert status == 400
    _honest(authed)


def test_weights_that_do_not_fit_leave_the_model_as_it_was(authed, model_dir):
    from safetensors.torch import save_file

    state = _state(model_dir)
    first, second = sorted(state)[:2]
    inside = _weights_dir(authed)
    nan = state[first].clone()
    nan.view(-1)[0] = float("nan")
    inf = state[first].clone()
    inf.view(-1)[-1] = float("inf")
    bad = {
        "nan": ({first: nan}, "finite"),
        "inf": ({first: inf}, "finite"),
        # a good first tensor, then a bad one: nothing of it may be loaded
        "half": ({first: state[first] + 1, second: torch.zeros(3, 3)}, "shape"),
        "unknown": ({first: state[first] + 1, "lm_head.extra": torch.zeros(2)}, "no weight"),
        "ints": ({first: state[first].to(torch.int64)}, "float"),
    }
    before = _prompt_logprobs(authed)
    for name, (tensors, reason) in bad.items():
        save_file(tensors, str(inside / f"{name}.safetensors"))
        reply = authed.post("/update_weights", json={"path": f"{name}.safetensors"})
        assert reply.status_code == 400, (name, reply.text)
        assert reason in _error(reply)["message"], (name, reply.text)
    (inside / "junk.safetensors").write_bytes(b"\xff" * 1000)
    reply = authed.post("/update_weights", json={"path": "junk.safetensors"})
    assert reply.status_code == 400 and "safetensors" in _error(reply)["message"]
    assert _prompt_logprobs(authed) == before
    _honest(authed)
