"""`turngym serve`: the OpenAI-compatible endpoints, request batching and bad input, against
a real server subprocess with a tiny model."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

httpx = pytest.importorskip(
    "httpx", reason="turngym serve needs httpx: pip install 'turngym[serve]'"
)
pytest.importorskip("fastapi", reason="turngym serve needs fastapi: pip install 'turngym[serve]'")


@pytest.fixture(scope="module")
def served():
    pytest.importorskip("transformers", reason="the tiny model needs transformers")
    from tests.serving import shared_server

    return shared_server()


@pytest.fixture(scope="module")
def client(served):
    with httpx.Client(base_url=served.url, timeout=60) as c:
        yield c


def test_models_and_health(served, client):
    (entry,) = client.get("/models").json()["data"]
    assert entry["id"] == served.model_dir.name and entry["object"] == "model"
    assert entry["root"] == str(served.model_dir.resolve())
    assert entry["max_model_len"] == 2048  # the tiny model's context
    health = httpx.get(served.url.removesuffix("/v1") + "/health").json()
    assert health["status"] == "ok" and health["model"] == entry["id"]
    assert health["limits"] == {
        "max_model_len": 2048,
        "max_prompts": 256,
        "max_body_bytes": 16 << 20,
    }
    assert client.get("/update_weights").status_code == 403  # not started to take them


def test_completion_of_a_string_prompt(client):
    reply = client.post(
        "/completions",
        json={"prompt": "Move left", "max_tokens": 5, "temperature": 0, "logprobs": 1},
    ).json()
    (choice,) = reply["choices"]
    assert reply["object"] == "text_completion"
    n = len(choice["token_ids"])
    assert 1 <= n <= 5 and choice["finish_reason"] in ("stop", "length")
    assert len(choice["logprobs"]["tokens"]) == len(choice["logprobs"]["token_logprobs"]) == n
    assert all(lp <= 0 for lp in choice["logprobs"]["token_logprobs"])
    assert reply["usage"]["completion_tokens"] == n
    assert reply["usage"]["total_tokens"] == reply["usage"]["prompt_tokens"] + n


def test_list_prompt_and_echo(client):
    ids = client.post("/completions", json={"prompt": "Move left", "max_tokens": 0}).json()
    assert ids["choices"][0]["text"] == "" and ids["usage"]["completion_tokens"] == 0
    reply = client.post(
        "/completions",
        json={"prompt": ["Move left", [5, 6, 7]], "max_tokens": 0, "echo": True, "logprobs": 1},
    ).json()
    first, second = reply["choices"]
    assert first["text"] == "Move left"
    lps = second["logprobs"]["token_logprobs"]
    assert len(lps) == 3 and lps[0] is None and all(x < 0 for x in lps[1:])
    assert reply["usage"]["prompt_tokens"] == len(first["logprobs"]["tokens"]) + 3


def test_chat_completion(client):
    reply = client.post(
        "/chat/completions",
        json={
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Hi"},
            ],
            "max_tokens": 6,
            "temperature": 0,
            "logprobs": True,
        },
    ).json()
    (choice,) = reply["choices"]
    assert reply["object"] == "chat.completion"
    assert choice["message"]["role"] == "assistant"
    assert isinstance(choice["message"]["content"], str)
    assert len(choice["logprobs"]["content"]) == len(choice["token_ids"]) > 0


def test_concurrent_requests_are_batched(served, client):
    before = httpx.get(served.url.removesuffix("/v1") + "/health").json()["batching"]
    body = {"prompt": "You are in a frozen lake.", "max_tokens": 8, "temperature": 0}

    def one(i: int) -> list[int]:
        with httpx.Client(base_url=served.url, timeout=60) as c:
            return c.post("/completions", json=body).json()["choices"][0]["token_ids"]

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(one, range(8)))
    assert all(r == results[0] for r in results)  # batching does not change greedy tokens
    after = httpx.get(served.url.removesuffix("/v1") + "/health").json()["batching"]
    assert after["requests"] - before["requests"] == 8
    calls = after["calls"] - before["calls"]
    assert calls < 8, f"8 concurrent requests took {calls} model calls: no batching"
    assert after["max_requests_per_call"] >= 2


@pytest.mark.parametrize(
    ("path", "body", "message"),
    [
        ("/completions", {"prompt": [10**6]}, "outside the vocabulary"),
        ("/completions", {"prompt": "x", "n": 3}, "n=1"),
        ("/completions", {"prompt": "x", "temperature": -1}, "temperature"),
        ("/completions", {"prompt": {"a": 1}}, "prompt must be"),
        ("/completions", {"prompt": "x", "max_tokens": "many"}, "max_tokens"),
        ("/completions", {"prompt": "x", "max_tokens": 1e9}, "max_tokens must be an integer"),
        ("/completions", {"prompt": "x", "max_tokens": 16.0}, "max_tokens must be an integer"),
        ("/completions", {"prompt": "x", "max_tokens": True}, "max_tokens must be an integer"),
        ("/completions", {"prompt": "x", "max_tokens": -1}, "max_tokens must be an integer"),
        ("/completions", {"prompt": "x", "seed": 2**64}, "seed must be a 64-bit integer"),
        ("/completions", {"prompt": "x", "stop": ["."] * 17}, "at most 16 strings"),
        ("/completions", {"prompt": "x\ud800"}, "lone surrogate"),
        ("/chat/completions", {"messages": [{"role": "user", "content": "\udfff"}]}, "surrogate"),
        ("/completions", {"prompt": "x", "stream": True}, "stream"),
        ("/completions", {"max_tokens": 3}, "prompt is required"),
        ("/completions", [1, 2], "JSON object"),
        ("/chat/completions", {"messages": []}, "messages"),
        ("/chat/completions", {"messages": [{"role": "user"}]}, "content"),
        ("/completions", {"prompt": "x", "guided_choice": []}, "non-empty list"),
        ("/completions", {"prompt": "x", "guided_choice": ["a", ""]}, "non-empty strings"),
        ("/completions", {"prompt": "x", "guided_choice": "left"}, "list of strings"),
        ("/completions", {"prompt": "x", "structured_outputs": ["a"]}, '{"choice"'),
        ("/completions", {"prompt": "x", "structured_outputs": {"regex": "a+"}}, "choice only"),
        (
            "/completions",
            {"prompt": "x", "guided_choice": ["a"], "structured_outputs": {"choice": ["a"]}},
            "give guided choice once",
        ),
    ],
)
def test_bad_requests_get_openai_style_400(client, path, body, message):
    # json.dumps escapes lone surrogates as JSON allows; httpx's encoder would refuse them.
    reply = client.post(
        path, content=json.dumps(body), headers={"Content-Type": "application/json"}
    )
    assert reply.status_code == 400
    error = reply.json()["error"]
    assert message in error["message"] and error["type"] == "invalid_request_error"


@pytest.mark.parametrize(
    "field",
    [{"structured_outputs": {"choice": ["left", "right", "down"]}}, {"guided_choice": ["down"]}],
    ids=["structured_outputs", "guided_choice"],
)
def test_guided_choice_in_vllms_fields(client, field):
    allowed = next(iter(field.values()))
    allowed = allowed["choice"] if isinstance(allowed, dict) else allowed
    body = {"prompt": ["Move left", "Answer:"], "max_tokens": 1, "temperature": 0, **field}
    reply = client.post("/completions", json={**body, "logprobs": 1}).json()
    for choice in reply["choices"]:
        # a choice is decoded whole (EOS included), past max_tokens, and nothing else
        assert choice["text"] in allowed and choice["finish_reason"] == "stop"
        assert len(choice["logprobs"]["token_logprobs"]) == len(choice["token_ids"]) > 1
        assert all(lp <= 0 for lp in choice["logprobs"]["token_logprobs"])
    chat = client.post(
        "/chat/completions",
        json={"messages": [{"role": "user", "content": "Go"}], "temperature": 0, **field},
    ).json()
    assert chat["choices"][0]["message"]["content"] in allowed


def test_unknown_model_and_route(client):
    reply = client.post("/completions", json={"model": "gpt-4", "prompt": "x"})
    assert reply.status_code == 404 and "GET /v1/models" in reply.json()["error"]["message"]
    json_type = {"Content-Type": "application/json"}
    assert client.post("/completions", content=b"{not json", headers=json_type).status_code == 400
    assert client.get("/nowhere").status_code == 404


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "turngym.cli", "serve", *args],
        capture_output=True,
        text=True,
        timeout=600,  # a loaded machine can take minutes to import torch and load a model
    )


def test_missing_model_dir_is_a_one_line_error():
    out = _cli("--model", "/nonexistent/model", "--port", "0")
    assert out.returncode != 0
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert "/nonexistent/model" in out.stderr and "save_pretrained" in out.stderr


def test_bad_device_is_a_one_line_error(served):
    out = _cli("--model", str(served.model_dir), "--port", "0", "--device", "gpu")
    assert out.returncode != 0
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert "'gpu' is not a torch device" in out.stderr


def test_busy_port_is_a_one_line_error(served):
    port = served.url.rsplit(":", 1)[1].split("/")[0]
    out = _cli("--model", str(served.model_dir), "--port", port)
    assert out.returncode != 0
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert f"cannot listen on 127.0.0.1:{port}" in out.stderr


def test_a_context_longer_than_the_models_is_a_one_line_error(served):
    out = _cli("--model", str(served.model_dir), "--port", "0", "--max-model-len", "4096")
    assert out.returncode != 0 and "Traceback" not in out.stderr
    last = out.stderr.splitlines()[-1]  # after the model's loading bar: the model says
    assert "--max-model-len 4096 is longer than the model's context of 2048" in last


def test_a_key_that_cannot_be_sent_is_a_one_line_error(served):
    out = _cli("--model", str(served.model_dir), "--port", "0", "--api-key", "two words")
    assert out.returncode != 0
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert "--api-key must be a non-empty key of printable ASCII" in out.stderr


def test_limits_from_the_command_line(served):
    from tests.serving import start_server

    other = start_server(served.model_dir, "--max-model-len", "64", "--max-prompts", "2")
    try:
        with httpx.Client(base_url=other.url, timeout=60) as c:
            reply = c.post("/completions", json={"prompt": [[5], [6], [7]]})
            assert reply.status_code == 400 and "at most 2 per request" in reply.text
            reply = c.post("/completions", json={"prompt": [5] * 60, "max_tokens": 5})
            assert (
                reply.status_code == 400 and "from 0 to 4 (the model's context of 64" in reply.text
            )
            reply = c.post("/completions", json={"prompt": [5] * 60})  # the default fits
            assert len(reply.json()["choices"][0]["token_ids"]) == 4
    finally:
        other.stop()
