"""OpenAIPolicy: the round trip through a real `turngym serve`, and one-line errors from
real misbehaving HTTP servers on 127.0.0.1."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

pytest.importorskip("httpx", reason="OpenAIPolicy needs httpx: pip install 'turngym[serve]'")

from turngym.sdk.backends.openai import OpenAIPolicy
from turngym.sdk.policy import PolicyError, SamplingParams

MODELS = {"object": "list", "data": [{"id": "junk", "object": "model"}]}


# -- a scripted HTTP server ---------------------------------------------------------------

Reply = tuple[int, str, str]  # status, content type, body


class Scripted:
    """A real HTTP server on 127.0.0.1 whose POST replies follow a script."""

    def __init__(self, replies: Callable[[int], Reply], delay: float = 0.0) -> None:
        self.replies = replies
        self.delay = delay
        self.posts = 0
        self.replied = 0  # POSTs answered (after the delay)
        self.bodies: list[bytes] = []  # what each POST sent
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _send(self, status: int, ctype: str, body: str) -> None:
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._send(200, "application/json", json.dumps(MODELS))

            def do_POST(self) -> None:
                outer.bodies.append(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                n = outer.posts
                outer.posts += 1
                time.sleep(outer.delay)
                # The client may have timed out and left.
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self._send(*outer.replies(n))
                outer.replied += 1

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def scripted() -> Iterator[Callable[..., Scripted]]:
    servers: list[Scripted] = []

    def start(replies: Callable[[int], Reply], delay: float = 0.0) -> Scripted:
        servers.append(Scripted(replies, delay))
        return servers[-1]

    yield start
    for s in servers:
        s.close()


def _completion(text: str = "hi", ids: list[int] | None = None) -> str:
    choice = {"index": 0, "text": text, "finish_reason": "length", "token_ids": ids or [5, 6]}
    return json.dumps({"choices": [choice]})


def _policy(url: str, **kwargs: object) -> OpenAIPolicy:
    kwargs.setdefault("backoff", 0.01)
    return OpenAIPolicy(url, tokenizer=object(), **kwargs)  # type: ignore[arg-type]


def _one_line_error(call: Callable[[], object]) -> str:
    with pytest.raises(PolicyError) as caught:
        call()
    message = str(caught.value)
    assert "\n" not in message and message
    assert "Traceback" not in message
    return message


PARAMS = SamplingParams(temperature=0, max_new_tokens=4)


# -- errors -------------------------------------------------------------------------------


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed on exit: nothing listens there


def test_unreachable_server_is_one_line():
    port = _closed_port()
    policy = _policy(f"http://127.0.0.1:{port}/v1", model="m", max_retries=1)
    message = _one_line_error(lambda: policy.generate([[1, 2]], PARAMS))
    assert message.startswith(f"cannot reach http://127.0.0.1:{port}/v1 (connection refused)")
    assert "is the server running?" in message


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ((200, "application/json", '{"object": "nonsense"}'), "missing 'choices'"),
        ((200, "text/html", "<html><body>proxy login</body></html>"), "not JSON"),
        ((200, "application/json", '{"choices": "x"}'), "'choices' is not a list"),
        ((200, "application/json", '{"choices": [{"index": 0}]}'), "a choice has no text"),
        ((200, "application/json", '{"choices": []}'), "0 choices for 1 prompts"),
        ((401, "application/json", '{"error": {"message": "bad key"}}'), "HTTP 401"),
    ],
)
def test_malformed_and_refused_replies_are_one_line(scripted, reply, expected):
    server = scripted(lambda n: reply)
    message = _one_line_error(lambda: _policy(server.url, model="m").generate([[1]], PARAMS))
    assert expected in message
    assert server.url in message
    if reply[0] == 401:
        assert message.endswith("bad key")
    assert server.posts == 1  # neither junk nor a 401 is retried


def test_model_list_without_ids_is_one_line(scripted):
    server = scripted(lambda n: (200, "application/json", "{}"))
    MODELS_BAD = {"data": [{"name": "x"}]}
    server.httpd.RequestHandlerClass.do_GET = lambda self: self._send(  # type: ignore[attr-defined]
        200, "application/json", json.dumps(MODELS_BAD)
    )
    message = _one_line_error(lambda: _policy(server.url).generate([[1]], PARAMS))
    assert "malformed reply from" in message and "/models" in message


def test_server_errors_are_retried_with_backoff(scripted):
    server = scripted(
        lambda n: (
            (503, "application/json", '{"error": {"message": "warming up"}}')
            if n < 2
            else (200, "application/json", _completion("ok", [7, 8, 9]))
        )
    )
    start = time.perf_counter()
    (gen,) = _policy(server.url, model="m", max_retries=3, backoff=0.05).generate([[1]], PARAMS)
    assert server.posts == 3
    assert time.perf_counter() - start >= 0.05 + 0.1  # waited backoff, then 2x backoff
    assert gen.token_ids == [7, 8, 9] and gen.text == "ok" and gen.finish_reason == "length"
    assert gen.logprobs == []  # the reply had no log-probs


def test_retries_give_up_with_the_last_failure(scripted):
    server = scripted(lambda n: (500, "text/plain", "boom"))
    message = _one_line_error(
        lambda: _policy(server.url, model="m", max_retries=2).generate([[1]], PARAMS)
    )
    assert server.posts == 3
    assert message == f"HTTP 500 from {server.url}/completions: boom (after 3 tries)"


def test_timeout_is_one_line(scripted):
    server = scripted(lambda n: (200, "application/json", _completion()), delay=3.0)
    policy = _policy(server.url, model="m", timeout=0.2, max_retries=0)
    message = _one_line_error(lambda: policy.generate([[1]], PARAMS))
    assert server.posts == 1 and server.replied == 0  # it gave up before the reply came
    assert message == f"timed out after 0.2 s waiting for {server.url}/completions"


def test_score_on_a_server_without_prompt_logprobs(scripted):
    reply = {"choices": [{"index": 0, "text": "x", "finish_reason": "length", "logprobs": None}]}
    server = scripted(lambda n: (200, "application/json", json.dumps(reply)))
    message = _one_line_error(lambda: _policy(server.url, model="m").score([1, 2], [[3]]))
    assert "cannot score" in message


def test_vllm_style_token_id_strings_are_read(scripted):
    logprobs = {"tokens": ["token_id:11", "token_id:12"], "token_logprobs": [-0.5, -1.5]}
    choice = {"index": 0, "text": "ab", "finish_reason": "stop", "logprobs": logprobs}
    server = scripted(lambda n: (200, "application/json", json.dumps({"choices": [choice]})))
    (gen,) = _policy(server.url, model="m").generate([[1]], PARAMS)
    assert gen.token_ids == [11, 12] and gen.logprobs == [-0.5, -1.5]
    assert gen.finish_reason == "stop" and gen.logprob == -2.0


def test_model_defaults_to_the_servers_first(scripted):
    server = scripted(lambda n: (200, "application/json", _completion()))
    policy = _policy(server.url)
    assert policy.model == "junk"


def test_bad_arguments_fail_fast():
    with pytest.raises(ValueError, match="base_url"):
        OpenAIPolicy("localhost:8000")
    with pytest.raises(ValueError, match="mode"):
        OpenAIPolicy("http://127.0.0.1:1/v1", mode="edits")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="timeout"):
        OpenAIPolicy("http://127.0.0.1:1/v1", timeout=0)
    assert _policy("http://127.0.0.1:1").base_url == "http://127.0.0.1:1/v1"


def test_without_a_tokenizer_the_server_is_asked_at_once(scripted):
    port = _closed_port()
    message = _one_line_error(lambda: OpenAIPolicy(f"http://127.0.0.1:{port}", max_retries=0))
    assert message.startswith(f"cannot reach http://127.0.0.1:{port}/v1")
    server = scripted(lambda n: (200, "application/json", _completion()))
    message = _one_line_error(lambda: OpenAIPolicy(server.url))  # no local 'root' dir
    assert "pass tokenizer=" in message


def test_is_a_policy(scripted):
    from turngym.sdk.policy import Policy

    assert isinstance(_policy("http://127.0.0.1:1/v1", model="m"), Policy)


def test_rate_limits_wait_for_retry_after(scripted):
    replies = iter([(429, "application/json", '{"error": {"message": "slow down"}}')])
    server = scripted(lambda n: next(replies, (200, "application/json", _completion())))
    original = server.httpd.RequestHandlerClass.send_header

    def send_header(self, key, value):  # every reply says Retry-After: 0.3
        original(self, key, value)
        if key == "Content-Type":
            original(self, "Retry-After", "0.3")

    server.httpd.RequestHandlerClass.send_header = send_header
    start = time.perf_counter()
    (gen,) = _policy(server.url, model="m", backoff=0.01).generate([[1]], PARAMS)
    assert time.perf_counter() - start >= 0.3 and server.posts == 2
    assert gen.text == "hi"


def test_tokenizer_path_that_does_not_exist():
    message = _one_line_error(lambda: OpenAIPolicy("http://127.0.0.1:1/v1", tokenizer="/nope"))
    assert "/nope" in message


def test_concurrent_callers_share_one_policy(scripted):
    server = scripted(lambda n: (200, "application/json", _completion("x", [n + 100])))
    policy = _policy(server.url, model="m")
    with ThreadPoolExecutor(4) as pool:
        gens = list(pool.map(lambda _: policy.generate([[1]], PARAMS)[0], range(8)))
    assert sorted(g.token_ids[0] for g in gens) == list(range(100, 108))


# -- the round trip through a real `turngym serve` ----------------------------------------


@pytest.fixture(scope="module")
def served():
    pytest.importorskip("transformers", reason="the tiny model needs transformers")
    pytest.importorskip(
        "fastapi", reason="turngym serve needs fastapi: pip install 'turngym[serve]'"
    )
    from tests.serving import shared_server

    return shared_server()


@pytest.fixture(scope="module")
def local(served):
    from turngym.sdk.backends.hf import HFPolicy

    return HFPolicy(str(served.model_dir))


@pytest.fixture(scope="module")
def remote(served):
    policy = OpenAIPolicy(served.url)  # model and tokenizer come from the server
    yield policy
    policy.close()


def _prompts(tokenizer) -> list[list[int]]:
    texts = ["Move left", "You are in a frozen lake. Answer:", "Guess the five-letter word"]
    chats = [[{"role": "user", "content": t}] for t in texts]
    return [
        tokenizer(
            tokenizer.apply_chat_template(c, add_generation_prompt=True, tokenize=False),
            add_special_tokens=False,
        )["input_ids"]
        for c in chats
    ]


def _same(local_gens, remote_gens):
    assert [g.token_ids for g in remote_gens] == [g.token_ids for g in local_gens]
    assert [g.text for g in remote_gens] == [g.text for g in local_gens]
    assert [g.finish_reason for g in remote_gens] == [g.finish_reason for g in local_gens]
    for a, b in zip(local_gens, remote_gens, strict=True):
        assert b.logprobs == pytest.approx(a.logprobs, abs=1e-4)


def test_model_and_tokenizer_come_from_the_server(served, remote):
    assert remote.model == served.model_dir.name
    assert remote.tokenizer.encode("Move left") == remote.tokenizer.encode("Move left")
    assert len(remote.tokenizer) == len(_local_tokenizer(served))


def _local_tokenizer(served):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(served.model_dir)


@pytest.mark.parametrize(
    "params",
    [
        SamplingParams(temperature=0, max_new_tokens=12),
        SamplingParams(temperature=1.0, top_p=0.9, top_k=50, max_new_tokens=12, seed=7),
        SamplingParams(temperature=0.7, max_new_tokens=16, seed=3, stop=("e",)),
    ],
    ids=["greedy", "seeded", "seeded-stop"],
)
def test_generate_matches_the_local_policy(local, remote, params):
    prompts = _prompts(local.tokenizer)
    _same(local.generate(prompts, params), remote.generate(prompts, params))


def test_same_seed_same_tokens_through_the_server(remote):
    prompts = _prompts(remote.tokenizer)
    params = SamplingParams(temperature=1.0, max_new_tokens=10, seed=11)
    first, second = remote.generate(prompts, params), remote.generate(prompts, params)
    assert [g.token_ids for g in first] == [g.token_ids for g in second]
    assert all(g.logprobs and len(g.logprobs) == len(g.token_ids) for g in first)


def test_concurrent_seeded_requests_match_local_calls(local, remote):
    # The server must not merge seeded requests: a prompt's draws depend on its row.
    prompts = _prompts(local.tokenizer)
    params = SamplingParams(temperature=1.0, max_new_tokens=8, seed=5)
    with ThreadPoolExecutor(len(prompts)) as pool:
        got = list(pool.map(lambda p: remote.generate([p], params)[0], prompts))
    _same([local.generate([p], params)[0] for p in prompts], got)


def test_score_matches_the_local_policy(local, remote):
    prompt = _prompts(local.tokenizer)[1]
    candidates = [local.tokenizer.encode(a) for a in ["left", "right", "down the lake", "up"]]
    want = local.score(prompt, candidates)
    got = remote.score(prompt, candidates)
    assert got == pytest.approx(want, abs=1e-4)


def test_chat_mode_renders_with_the_servers_template(local, served):
    chat = OpenAIPolicy(served.url, mode="chat")
    params = SamplingParams(temperature=0, max_new_tokens=8)
    messages = [{"role": "user", "content": "Move left"}]
    (reply,) = chat.generate_chat([messages], params)
    (want,) = local.generate(_prompts(local.tokenizer)[:1], params)
    assert reply.token_ids == want.token_ids and reply.text == want.text
    assert reply.logprobs == pytest.approx(want.logprobs, abs=1e-4)
    # generate() in chat mode sends the decoded prompt as one user message
    (plain,) = chat.generate([local.tokenizer.encode("Move left")], params)
    assert plain.token_ids == want.token_ids
    chat.close()


def test_empty_batches(remote):
    assert remote.generate([], SamplingParams()) == []
    assert remote.score([1, 2], []) == []


def test_the_guides_example_runs_against_the_server(served, capsys):
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[3] / "docs/guide/serving.md").read_text()
    section = readme.split("# Serve a local model", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    code = code.replace("http://127.0.0.1:8000/v1", served.url)
    exec(compile(code, "docs/guide/serving.md", "exec"), {})
    assert "[" in capsys.readouterr().out


# -- guided choice ------------------------------------------------------------------------


def _choices(tokenizer, actions):
    from turngym.sdk.choices import choice_token_ids

    return choice_token_ids(tokenizer, actions, tokenizer.eos_token_id)


def test_guided_choice_through_the_server_matches_the_local_policy(local, remote):
    prompts = _prompts(local.tokenizer)
    actions = [["left", "right", "down the lake"], None, ["crane", "slate", "adieu", "up"]]
    choices = [None if a is None else _choices(local.tokenizer, a) for a in actions]
    greedy = SamplingParams(temperature=0, max_new_tokens=2)  # a choice is longer: it ends
    got = remote.generate(prompts, greedy, choices=choices)  # one request per kind of row
    _same(local.generate(prompts, greedy, choices=choices), got)
    assert got[0].token_ids in choices[0] and got[2].token_ids in choices[2]
    assert len(got[1].token_ids) == 2  # a free row keeps its own budget
    assert [g.extra.get("guided") for g in got] == [True, None, True]
    # Seeded sampling: a row's draws follow its index in the request, so the prompts of
    # one request (the same choices) replay the local call exactly.
    seeded = SamplingParams(temperature=1.0, top_k=3, max_new_tokens=8, seed=5)
    same = [choices[2]] * 3
    _same(local.generate(prompts, seeded, choices=same), remote.generate(prompts, seeded, same))


def _free_text(n: int) -> Reply:
    return 200, "application/json", _completion("banana split", [7, 8, 9])


def test_a_server_that_ignores_guided_choice_gets_one_warning(scripted, tiny_model_dir):
    from transformers import AutoTokenizer

    from turngym.sdk.agents import LLMAgent

    tok = AutoTokenizer.from_pretrained(tiny_model_dir)
    server = scripted(_free_text)
    policy = _policy(server.url, model="m")
    policy.tokenizer = tok
    agent = LLMAgent(policy, constrained=True, chat=False, sampling=PARAMS)
    info = {"legal_actions": ["left", "right"]}
    with pytest.warns(UserWarning, match="does not do guided choice") as caught:
        assert agent.act("Move", info) == "banana split"  # the server's free text
    assert len(caught) == 1 and "\n" not in str(caught[0].message)
    assert not agent.last_turns[0].constrained
    sent = [json.loads(b) for b in server.bodies]
    assert sent[0]["structured_outputs"] == {"choice": ["left", "right"]}
    assert sent[1]["guided_choice"] == ["left", "right"]  # older vLLM's field, tried next
    assert not {"structured_outputs", "guided_choice"} & set(sent[2])
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once: no second warning
        assert agent.act("Move", info) == "banana split"
    assert not {"structured_outputs", "guided_choice"} & set(json.loads(server.bodies[-1]))
    assert server.posts == 4


def test_a_server_that_refuses_the_field_falls_back(scripted, tiny_model_dir):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_model_dir)

    def replies(n: int) -> Reply:
        if n < 2:
            field = ["structured_outputs", "guided_choice"][n]
            error = {"error": {"message": f"{field}: extra inputs are not permitted"}}
            return 400, "application/json", json.dumps(error)
        return _free_text(n)

    server = scripted(replies)
    policy = _policy(server.url, model="m")
    policy.tokenizer = tok
    with pytest.warns(UserWarning, match="refused guided_choice"):
        (gen,) = policy.generate([[1, 2]], PARAMS, choices=[_choices(tok, ["left", "right"])])
    assert gen.text == "banana split" and gen.extra["guided"] is False
    # a 400 about something else is the caller's error, not a missing feature
    other = scripted(lambda n: (400, "application/json", '{"error": {"message": "bad top_p"}}'))
    policy = _policy(other.url, model="m")
    policy.tokenizer = tok
    message = _one_line_error(
        lambda: policy.generate([[1]], PARAMS, choices=[_choices(tok, ["left"])])
    )
    assert "bad top_p" in message


def test_a_choice_spelled_with_other_tokens_is_matched_by_its_text(scripted, tiny_model_dir):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_model_dir)
    server = scripted(lambda n: (200, "application/json", _completion("right", [3, 4, 5])))
    policy = _policy(server.url, model="m")
    policy.tokenizer = tok
    seqs = _choices(tok, ["left", "right"])
    (gen,) = policy.generate([[1, 2]], PARAMS, choices=[seqs])
    # vLLM's grammar may spell a choice with other tokens: the choice's own are reported
    assert gen.token_ids == seqs[1] and gen.logprobs == [] and gen.extra["guided"] is True
