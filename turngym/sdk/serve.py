"""``turngym serve``: a local policy behind an OpenAI-compatible HTTP API (FastAPI + uvicorn).

Endpoints: ``GET /v1/models``, ``POST /v1/completions`` (string or token-id prompts,
``echo`` for prompt log-probs), ``POST /v1/chat/completions`` (messages rendered with the
tokenizer's chat template) and ``GET /health`` (status plus batching stats). Requests
that arrive together are merged into one ``policy.generate`` call by ``Batcher``, so
remote env workers share one model. Replies add ``choices[i].token_ids`` (the generated
token ids) to the OpenAI shape; ``OpenAIPolicy`` reads them.

fastapi and uvicorn are imported lazily (``pip install 'turngym[serve]'``).
"""

# No ``from __future__ import annotations`` here: FastAPI reads the endpoints' annotations
# (``request: Request``) at runtime, and ``Request`` is imported lazily inside build_app.

import asyncio
import contextlib
import json
import math
import socket
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from turngym.sdk.policy import Generation, Policy, PolicyError, SamplingParams

__all__ = ["BadRequest", "Batcher", "build_app", "prompt_logprobs", "serve"]


class BadRequest(ValueError):
    """A request the server refuses with HTTP 400 (or ``status``) and an OpenAI-style error."""

    def __init__(self, message: str, param: str | None = None, status: int = 400) -> None:
        super().__init__(message)
        self.param = param
        self.status = status


def prompt_logprobs(policy: Policy, sequences: Sequence[Sequence[int]]) -> list[list[float]]:
    """The log-prob of every token of each sequence given the tokens before it.

    The first token has none, so each list is one shorter than its sequence. A policy
    holding a transformers model (``policy.model``, as ``HFPolicy`` does) gets one
    forward pass per batch of sequences; any other ``Policy`` is asked through
    ``score``: the cumulative scores of the sequence's growing prefixes, differenced
    (quadratic in the length, fine for short prompts).
    """
    model = getattr(policy, "model", None)
    if model is not None and callable(model) and hasattr(model, "parameters"):
        return _forward_logprobs(model, sequences)
    out: list[list[float]] = []
    for seq in sequences:
        ids = list(seq)
        if len(ids) < 2:
            out.append([])
            continue
        cumulative = policy.score(ids[:1], [ids[1:k] for k in range(2, len(ids) + 1)])
        out.append([b - a for a, b in zip([0.0, *cumulative[:-1]], cumulative, strict=True)])
    return out


def _forward_logprobs(
    model: Any, sequences: Sequence[Sequence[int]], chunk: int = 16
) -> list[list[float]]:
    """Per-token log-probs from one right-padded forward pass per ``chunk`` sequences."""
    import torch

    device = next(model.parameters()).device
    out: list[list[float]] = []
    with torch.inference_mode():
        for start in range(0, len(sequences), chunk):
            rows = [list(s) for s in sequences[start : start + chunk]]
            width = max(len(r) for r in rows)
            # Pads sit after every real token, so the causal mask alone keeps them out.
            batch = torch.zeros((len(rows), width), dtype=torch.long)
            for j, r in enumerate(rows):
                batch[j, : len(r)] = torch.tensor(r, dtype=torch.long)
            batch = batch.to(device)
            logits = model(input_ids=batch, use_cache=False).logits.float()
            logp = torch.log_softmax(logits[:, :-1], dim=-1)
            picked = logp.gather(2, batch[:, 1:, None])[..., 0].double().cpu()
            out.extend(picked[j, : len(r) - 1].tolist() for j, r in enumerate(rows))
    return out


@dataclass
class _Job:
    kind: str  # "generate" or "logprobs"
    prompts: list[list[int]]
    params: SamplingParams | None
    future: asyncio.Future[Any]
    mergeable: bool


@dataclass
class BatchStats:
    """What the batcher has done (served on ``GET /health``)."""

    requests: int = 0
    calls: int = 0
    max_requests_per_call: int = 0
    recent: deque[tuple[int, int]] = field(default_factory=lambda: deque(maxlen=256))
    """(requests, prompts) of the most recent policy calls."""

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready summary."""
        return {
            "requests": self.requests,
            "calls": self.calls,
            "max_requests_per_call": self.max_requests_per_call,
            "recent_batches": [{"requests": r, "prompts": p} for r, p in self.recent],
        }


class Batcher:
    """Merges concurrent requests into batched policy calls, one call at a time.

    The first waiting request opens a window of ``wait_s``; every request queued by then
    (up to ``max_batch_size`` prompts) joins the batch. Requests join one call only when
    their sampling params are equal and the result cannot depend on the batch: greedy
    or unseeded ones. A seeded sampled request runs alone, so the same seed gives the same
    tokens as a local ``generate`` on the same prompts. A single request is never split.
    The policy runs on one worker thread (models are not thread-safe), off the event loop.
    """

    def __init__(self, policy: Policy, max_batch_size: int = 32, wait_s: float = 0.005) -> None:
        if max_batch_size < 1:
            raise ValueError(f"max_batch_size must be >= 1, got {max_batch_size!r}")
        self.policy = policy
        self.max_batch_size = max_batch_size
        self.wait_s = wait_s
        self.stats = BatchStats()
        self._queue: asyncio.Queue[_Job] | None = None
        self._task: asyncio.Task[None] | None = None
        self._executor: ThreadPoolExecutor | None = None

    async def start(self) -> None:
        """Start the worker task on the running event loop."""
        self._queue = asyncio.Queue()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="turngym-policy")
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        """Stop the worker task and its thread."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._executor is not None:
            self._executor.shutdown(wait=False)

    async def _submit(self, kind: str, prompts: list[list[int]], params: Any) -> Any:
        if self._queue is None:
            raise RuntimeError("Batcher.start() was not called")
        mergeable = kind == "logprobs" or params.greedy or params.seed is None
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        await self._queue.put(_Job(kind, prompts, params, future, mergeable))
        return await future

    async def generate(self, prompts: list[list[int]], params: SamplingParams) -> list[Generation]:
        """``policy.generate(prompts, params)``, possibly batched with other requests."""
        result: list[Generation] = await self._submit("generate", prompts, params)
        return result

    async def prompt_logprobs(self, prompts: list[list[int]]) -> list[list[float]]:
        """``prompt_logprobs(policy, prompts)``, possibly batched with other requests."""
        result: list[list[float]] = await self._submit("logprobs", prompts, None)
        return result

    async def run(self, fn: Callable[[], Any]) -> Any:
        """``fn()`` on the policy's thread, between model calls (e.g. loading weights)."""
        if self._executor is None:
            raise RuntimeError("Batcher.start() was not called")
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn)

    async def _run(self) -> None:
        assert self._queue is not None
        loop = asyncio.get_running_loop()
        while True:
            batch = [await self._queue.get()]
            await asyncio.sleep(self.wait_s)
            size = len(batch[0].prompts)
            while size < self.max_batch_size and not self._queue.empty():
                job = self._queue.get_nowait()
                batch.append(job)
                size += len(job.prompts)
            groups: dict[Any, list[_Job]] = {}
            for job in batch:
                key = (job.kind, job.params) if job.mergeable else id(job)
                groups.setdefault(key, []).append(job)
            for jobs in groups.values():
                await self._call(loop, jobs)

    async def _call(self, loop: asyncio.AbstractEventLoop, jobs: list[_Job]) -> None:
        prompts = [p for job in jobs for p in job.prompts]
        self.stats.requests += len(jobs)
        self.stats.calls += 1
        self.stats.max_requests_per_call = max(self.stats.max_requests_per_call, len(jobs))
        self.stats.recent.append((len(jobs), len(prompts)))
        if jobs[0].kind == "generate":
            params = jobs[0].params
            assert params is not None

            def work() -> list[Any]:
                return list(self.policy.generate(prompts, params))
        else:

            def work() -> list[Any]:
                return prompt_logprobs(self.policy, prompts)

        try:
            results = await loop.run_in_executor(self._executor, work)
        except Exception as error:  # handed to each waiting request, which answers 500
            for job in jobs:
                if not job.future.done():
                    job.future.set_exception(error)
            return
        start = 0
        for job in jobs:
            if not job.future.done():
                job.future.set_result(results[start : start + len(job.prompts)])
            start += len(job.prompts)


# -- request parsing ---------------------------------------------------------------------


def _vocab_size(tokenizer: Any) -> int:
    return len(tokenizer)


def _encode(tokenizer: Any, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def _token_list(value: Any, vocab: int, param: str) -> list[int] | None:
    """``value`` as token ids if it is a list of ints (checked against the vocab), else None."""
    if not isinstance(value, list) or not value:
        return None
    if not all(isinstance(t, int) and not isinstance(t, bool) for t in value):
        return None
    bad = [t for t in value if not 0 <= t < vocab]
    if bad:
        raise BadRequest(f"token id {bad[0]} is outside the vocabulary [0, {vocab})", param)
    return list(value)


def _prompts(value: Any, tokenizer: Any) -> list[list[int]]:
    """The prompts of a completions request: a string, token ids, or a list of either."""
    vocab = _vocab_size(tokenizer)
    single = _token_list(value, vocab, "prompt")
    if single is not None:
        return [single]
    items = value if isinstance(value, list) else [value]
    if not items:
        raise BadRequest("prompt is empty", "prompt")
    prompts = []
    for item in items:
        ids = (
            _encode(tokenizer, item)
            if isinstance(item, str)
            else _token_list(item, vocab, "prompt")
        )
        if ids is None:
            raise BadRequest(
                "prompt must be a string, a list of token ids, or a list of either", "prompt"
            )
        if not ids:
            raise BadRequest("a prompt encodes to no tokens", "prompt")
        prompts.append(ids)
    return prompts


def _number(body: dict[str, Any], key: str, default: float) -> float:
    value = body.get(key, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise BadRequest(f"{key} must be a number, got {value!r}", key)
    return float(value)


def _integer(body: dict[str, Any], key: str, default: int | None) -> int | None:
    value = body.get(key, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadRequest(f"{key} must be an integer, got {value!r}", key)
    return value


def _sampling(body: dict[str, Any], max_tokens: int) -> SamplingParams:
    if body.get("stream"):
        raise BadRequest("stream=true is not supported by turngym serve", "stream")
    n = _integer(body, "n", 1)
    if n != 1:
        raise BadRequest(f"only n=1 is supported, got n={n}", "n")
    stop = body.get("stop") or ()
    if isinstance(stop, str):
        stop = (stop,)
    if not isinstance(stop, list | tuple) or not all(isinstance(s, str) and s for s in stop):
        raise BadRequest("stop must be a string or a list of non-empty strings", "stop")
    top_k = _integer(body, "top_k", 0) or 0
    try:
        return SamplingParams(
            temperature=_number(body, "temperature", 1.0),
            top_p=_number(body, "top_p", 1.0),
            top_k=max(top_k, 0),  # vLLM spells "off" as -1
            max_new_tokens=max(max_tokens, 1),
            stop=tuple(stop),
            seed=_integer(body, "seed", None),
        )
    except ValueError as error:
        raise BadRequest(str(error)) from None


def _max_tokens(body: dict[str, Any], *keys: str) -> int:
    for key in keys:
        value = _integer(body, key, None)
        if value is not None:
            if value < 0:
                raise BadRequest(f"{key} must be >= 0, got {value}", key)
            return value
    return 16  # the OpenAI API's default


def _messages(value: Any) -> list[dict[str, str]]:
    if not isinstance(value, list) or not value:
        raise BadRequest("messages must be a non-empty list of {role, content}", "messages")
    out = []
    for m in value:
        if not isinstance(m, dict) or not isinstance(m.get("role"), str):
            raise BadRequest("each message needs a string 'role'", "messages")
        content = m.get("content")
        if isinstance(content, list):  # content parts: keep the text ones
            content = "".join(
                p.get("text", "")
                for p in content
                if isinstance(p, dict) and p.get("type") == "text"
            )
        if not isinstance(content, str):
            raise BadRequest("each message needs a string 'content'", "messages")
        out.append({"role": m["role"], "content": content})
    return out


# -- the app -----------------------------------------------------------------------------


def _error(message: str, status: int, param: str | None = None) -> Any:
    from fastapi.responses import JSONResponse

    kind = "invalid_request_error" if status < 500 else "server_error"
    body = {"error": {"message": message, "type": kind, "param": param, "code": None}}
    return JSONResponse(body, status_code=status)


def build_app(
    policy: Policy,
    model_name: str,
    root: str | None = None,
    max_batch_size: int = 32,
    batch_wait_ms: float = 5.0,
    accept_weight_updates: bool = False,
) -> Any:
    """A FastAPI app serving ``policy`` as ``model_name`` (``root``: its model dir).

    With ``accept_weight_updates`` it also answers ``POST /v1/update_weights`` with
    ``{"path": FILE}``: the policy loads the safetensors file's weights between model
    calls (a trainer syncing the policy it samples from). Off by default: the server
    then reads files a client names.

    >>> app = build_app(policy, "tiny")  # doctest: +SKIP
    >>> uvicorn.run(app, port=8000)  # doctest: +SKIP
    """
    from fastapi import FastAPI, Request
    from fastapi.exceptions import RequestValidationError
    from starlette.exceptions import HTTPException

    batcher = Batcher(policy, max_batch_size=max_batch_size, wait_s=batch_wait_ms / 1000)
    tokenizer = policy.tokenizer
    created = int(time.time())

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        await batcher.start()
        yield
        await batcher.stop()

    app = FastAPI(title="turngym serve", lifespan=lifespan)
    app.state.batcher = batcher
    app.state.weight_updates = 0

    @app.exception_handler(BadRequest)
    async def bad_request(request: Request, error: BadRequest) -> Any:
        return _error(str(error), error.status, error.param)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> Any:
        return _error(f"invalid request: {error.errors()}", 400)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> Any:
        return _error(str(error.detail), error.status_code)

    @app.exception_handler(Exception)
    async def crashed(request: Request, error: Exception) -> Any:
        return _error(f"the policy failed: {type(error).__name__}: {error}", 500)

    async def read_body(request: Request) -> dict[str, Any]:
        try:
            body = json.loads(await request.body())
        except ValueError:
            raise BadRequest("the request body is not JSON") from None
        if not isinstance(body, dict):
            raise BadRequest("the request body must be a JSON object")
        model = body.get("model")
        if model is not None and model != model_name:
            raise BadRequest(
                f"model {model!r} is not served here; GET /v1/models lists {model_name!r}",
                "model",
                404,
            )
        return body

    def token_strings(ids: Sequence[int]) -> list[str]:
        return [tokenizer.decode([t]) for t in ids]

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return {"status": "ok", "model": model_name, "batching": batcher.stats.as_dict()}

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        entry = {"id": model_name, "object": "model", "created": created, "owned_by": "turngym"}
        if root is not None:
            entry["root"] = root
        return {"object": "list", "data": [entry]}

    @app.post("/v1/update_weights")
    async def update_weights(request: Request) -> dict[str, Any]:
        if not accept_weight_updates:
            raise BadRequest(
                "this server does not take weight updates; start it with "
                "`turngym serve --accept-weight-updates`",
                status=403,
            )
        body = await read_body(request)
        path = body.get("path")
        if not isinstance(path, str) or not path:
            raise BadRequest("path must be the server-side path of a safetensors file", "path")
        file = Path(path)
        if not file.is_file():
            raise BadRequest(f"no file {path!r} on the server", "path", 404)
        load = getattr(policy, "load_weights", None)
        if not callable(load):
            raise BadRequest(f"{type(policy).__name__} cannot load weights", status=501)

        def work() -> int:
            from safetensors.torch import load_file

            state = load_file(str(file))
            load(state)
            return len(state)

        try:
            tensors = await batcher.run(work)
        except ValueError as error:  # names or shapes that do not fit the model
            raise BadRequest(f"the weights do not fit the model: {error}", "path") from None
        updates = app.state.weight_updates = app.state.weight_updates + 1
        return {"status": "ok", "tensors": tensors, "updates": updates}

    @app.post("/v1/completions")
    async def completions(request: Request) -> dict[str, Any]:
        body = await read_body(request)
        if "prompt" not in body:
            raise BadRequest("prompt is required", "prompt")
        prompts = _prompts(body["prompt"], tokenizer)
        max_tokens = _max_tokens(body, "max_tokens")
        params = _sampling(body, max_tokens)
        echo = bool(body.get("echo", False))
        logprobs = _integer(body, "logprobs", None)
        if logprobs is not None and not 0 <= logprobs <= 20:
            raise BadRequest(f"logprobs must be in [0, 20], got {logprobs}", "logprobs")
        gens: list[Generation | None] = [None] * len(prompts)
        if max_tokens > 0:
            gens = list(await batcher.generate(prompts, params))
        echoed = await batcher.prompt_logprobs(prompts) if echo and logprobs is not None else None
        choices = []
        for i, (prompt, gen) in enumerate(zip(prompts, gens, strict=True)):
            ids = gen.token_ids if gen else []
            text = gen.text if gen else ""
            lps: list[float | None] = (
                list(gen.logprobs) if gen and gen.logprobs else [None] * len(ids)
            )
            tokens = token_strings(ids)
            if echo:
                text = tokenizer.decode(prompt) + text
                if echoed is not None:
                    tokens = token_strings(prompt) + tokens
                    lps = [None, *echoed[i], *lps]
            choice: dict[str, Any] = {
                "index": i,
                "text": text,
                "finish_reason": gen.finish_reason if gen else "length",
                "logprobs": None,
                "token_ids": ids,
            }
            if logprobs is not None:
                offsets, at = [], 0
                for tok in tokens:
                    offsets.append(at)
                    at += len(tok)
                choice["logprobs"] = {
                    "tokens": tokens,
                    "token_logprobs": lps,
                    "top_logprobs": None,  # the policy reports only the sampled token's
                    "text_offset": offsets,
                }
            choices.append(choice)
        prompt_tokens = sum(map(len, prompts))
        completion_tokens = sum(len(g.token_ids) for g in gens if g)
        return {
            "id": f"cmpl-{time.time_ns():x}",
            "object": "text_completion",
            "created": int(time.time()),
            "model": model_name,
            "choices": choices,
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    @app.post("/v1/chat/completions")
    async def chat_completions(request: Request) -> dict[str, Any]:
        body = await read_body(request)
        messages = _messages(body.get("messages"))
        max_tokens = _max_tokens(body, "max_completion_tokens", "max_tokens")
        params = _sampling(body, max_tokens)
        try:
            text = tokenizer.apply_chat_template(
                messages, add_generation_prompt=True, tokenize=False
            )
        except Exception as error:  # jinja templates raise their own errors on bad roles
            raise BadRequest(f"cannot render messages with the chat template: {error}") from None
        prompt = _encode(tokenizer, text)
        gen = (await batcher.generate([prompt], params))[0] if max_tokens > 0 else None
        ids = gen.token_ids if gen else []
        lp_content = None
        if body.get("logprobs"):
            lps = gen.logprobs if gen and gen.logprobs else [None] * len(ids)
            lp_content = {
                "content": [
                    {"token": tok, "logprob": lp, "bytes": list(tok.encode()), "top_logprobs": []}
                    for tok, lp in zip(token_strings(ids), lps, strict=True)
                ]
            }
        return {
            "id": f"chatcmpl-{time.time_ns():x}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model_name,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": gen.text if gen else ""},
                    "finish_reason": gen.finish_reason if gen else "length",
                    "logprobs": lp_content,
                    "token_ids": ids,
                }
            ],
            "usage": {
                "prompt_tokens": len(prompt),
                "completion_tokens": len(ids),
                "total_tokens": len(prompt) + len(ids),
            },
        }

    return app


def _bind(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port``; uvicorn starts listening on it once the app is up."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        raise PolicyError(
            f"cannot listen on {host}:{port} ({error.strerror or error}); pick another --port"
        ) from None
    return sock


def _check_device(device: str) -> str:
    """``device``, if torch can use it here."""
    import torch

    try:
        kind = torch.device(device).type
    except RuntimeError:
        raise PolicyError(
            f"--device {device!r} is not a torch device (cpu, cuda, cuda:1, mps)"
        ) from None
    if kind == "cuda" and not torch.cuda.is_available():
        raise PolicyError(f"--device {device}: torch sees no CUDA GPU here; use --device cpu")
    if kind == "mps" and not torch.backends.mps.is_available():
        raise PolicyError(f"--device {device}: torch has no MPS backend here; use --device cpu")
    return device


def serve(
    model_dir: str | Path,
    port: int = 8000,
    host: str = "127.0.0.1",
    device: str | None = None,
    max_batch_size: int = 32,
    batch_wait_ms: float = 5.0,
    model_name: str | None = None,
    announce: Callable[[str], None] = print,
    accept_weight_updates: bool = False,
) -> None:
    """Load ``model_dir`` with ``HFPolicy`` and serve it until interrupted.

    The port is bound before the model loads, so a busy port fails at once; ``port=0``
    picks a free port, and the start line names the real one.

    Raises:
        PolicyError: the model cannot be loaded or the port cannot be bound.

    """
    try:
        import uvicorn
    except ImportError:
        raise PolicyError(
            "turngym serve needs fastapi and uvicorn: pip install 'turngym[serve]'"
        ) from None
    path = Path(model_dir)
    if not path.is_dir():
        raise PolicyError(f"model dir {str(path)!r} does not exist; pass a save_pretrained dir")
    sock = _bind(host, port)
    try:
        from turngym.sdk.backends.hf import HFPolicy

        kwargs: dict[str, Any] = {} if device is None else {"device": _check_device(device)}
        try:
            policy = HFPolicy(str(path), max_batch_size=max_batch_size, **kwargs)
        except (PolicyError, ValueError):
            raise
        except Exception as error:  # torch/transformers failures: still one line for the CLI
            message = " ".join(str(error).split())
            raise PolicyError(f"cannot load {path}: {type(error).__name__}: {message}") from None
        name = model_name or path.resolve().name
        app = build_app(
            policy,
            name,
            root=str(path.resolve()),
            max_batch_size=max_batch_size,
            batch_wait_ms=batch_wait_ms,
            accept_weight_updates=accept_weight_updates,
        )
        shown = f"[{host}]" if ":" in host else host
        announce(f"serving {path} as {name} on http://{shown}:{sock.getsockname()[1]}/v1")
        config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=2)
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
