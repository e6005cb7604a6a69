"""``turngym serve``: a local policy behind an OpenAI-compatible HTTP API (FastAPI + uvicorn).

Endpoints: ``GET /v1/models``, ``POST /v1/completions`` (string or token-id prompts,
``echo`` for prompt log-probs), ``POST /v1/chat/completions`` (messages rendered with the
tokenizer's chat template) and ``GET /health`` (status, batching stats and limits).
Requests that arrive together are merged into one ``policy.generate`` call by
``Batcher`` (batcher.py), fairly between clients, so remote env workers share one
model. Replies add ``choices[i].token_ids`` (the generated token ids) to the OpenAI
shape; ``OpenAIPolicy`` reads them.

Guided choice takes vLLM's request fields, ``structured_outputs: {"choice": [...]}``
(vLLM 0.11 and later) or ``guided_choice: [...]`` (earlier): each prompt then decodes
exactly one of the choices, tokenized and constrained as ``LLMAgent(constrained=True)``
does in-process (``turngym.sdk.choices``: each choice's own tokens plus EOS, the model's
distribution renormalised over the tokens that continue a choice), and its log-probs
are those of that renormalised distribution. A guided row runs until its choice is
whole, past ``max_tokens`` if a choice is longer. ``/v1/models`` also carries the served
dir's ``turngym_agent.json`` (how a trained model acts: guided choice, system prompt)
as ``turngym_agent``, so ``--agent openai:URL`` acts like ``--agent hf:DIR``.

Hostile requests: every size is checked before the work it bounds (limits.py), a
client that disconnects has its queued request dropped and its running generation
stopped, and with an API key (auth.py) every endpoint wants
``Authorization: Bearer KEY``. ``serve`` refuses to listen beyond loopback, or to take
weight updates, without a key; weights load only from the folder named at start
(weights.py). A client that sends part of a request and waits is cut off at a
deadline, and waiting connections are capped (connections.py). Browsers
(turngym/http_guards.py): every POST must be ``application/json`` (a cross-site
``text/plain`` POST is a 415), and a loopback server answers only the Host names
127.0.0.1, localhost and [::1] (DNS rebinding), with or without a key.

fastapi and uvicorn are imported lazily (``pip install 'turngym[serve]'``).
"""

# No ``from __future__ import annotations`` here: FastAPI reads the endpoints' annotations
# (``request: Request``) at runtime, and ``Request`` is imported lazily inside build_app.

import asyncio
import contextlib
import dataclasses
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from turngym.extras import require_installed
from turngym.host.reaper import remove_dir, temp_dir
from turngym.http_guards import LOOPBACK_NAMES, HostGuard, JsonBodies
from turngym.sdk.policy import Generation, Policy, PolicyError
from turngym.sdk.serve.auth import RequireKey, check_exposure, checked_key, is_loopback
from turngym.sdk.serve.auth import api_key as api_key_of
from turngym.sdk.serve.batcher import Batcher
from turngym.sdk.serve.connections import FD_RESERVE, ServeConnections, raise_fd_limit
from turngym.sdk.serve.limits import (
    CHOICE_FIELDS,
    BadRequest,
    RequestRules,
    ServeLimits,
    clipped_repr,
    parse_json,
    read_limited,
    resolve_context,
)
from turngym.sdk.serve.weights import WeightsDir, WeightsRefused

__all__ = ["build_app", "serve"]

T = TypeVar("T")


class _ClientGone(Exception):
    """The client disconnected before its reply: its work was cancelled."""


async def _disconnected(receive: Callable[[], Awaitable[dict[str, Any]]]) -> None:
    """Return once the client has gone (the server sees ``http.disconnect``)."""
    while (await receive())["type"] != "http.disconnect":
        pass


async def _while_connected(request: Any, work: Awaitable[T]) -> T:
    """``await work``, cancelled as soon as the request's client disconnects.

    Raises:
        _ClientGone: the client left first (its queued request is dropped, a running
            generation stopped: ``Batcher``).

    """
    task = asyncio.ensure_future(work)
    gone = asyncio.ensure_future(_disconnected(request.receive))
    try:
        await asyncio.wait({task, gone}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    if task.cancelled():
        raise _ClientGone
    return task.result()


def _error(message: str, status: int, param: str | None = None) -> Any:
    from fastapi.responses import JSONResponse

    kind = "invalid_request_error" if status < 500 else "server_error"
    body = {"error": {"message": message, "type": kind, "param": param, "code": None}}
    return JSONResponse(body, status_code=status)


def _refusal(status: int, message: str) -> Any:
    """A guard's refusal (turngym/http_guards.py) as an OpenAI-style error."""
    return _error(message, status)


def build_app(
    policy: Policy,
    model_name: str,
    root: str | None = None,
    max_batch_size: int = 32,
    batch_wait_ms: float = 5.0,
    accept_weight_updates: bool = False,
    api_key: str | None = None,
    weights_dir: str | Path | None = None,
    limits: ServeLimits | None = None,
    allowed_hosts: Sequence[str] | None = None,
) -> Any:
    """A FastAPI app serving ``policy`` as ``model_name`` (``root``: its model dir).

    Args:
        policy: the policy (its ``tokenizer`` parses prompts; the context length comes
            from its model config unless ``limits.max_model_len`` gives one).
        model_name: the id clients see.
        root: the model dir reported by ``/v1/models`` (clients load its tokenizer); its
            ``turngym_agent.json``, if any, is served there as ``turngym_agent``.
        max_batch_size: the most prompts in one policy call.
        batch_wait_ms: how long an idle server gathers requests into a first batch.
        accept_weight_updates: also answer ``POST /v1/update_weights`` with
            ``{"path": FILE}``: the policy loads a safetensors file from ``weights_dir``
            between model calls (a trainer syncing the policy it samples from), after
            checking its names, shapes and values. ``GET /v1/update_weights`` names
            the folder.
        api_key: every request must send ``Authorization: Bearer API_KEY``.
        weights_dir: the only folder weights load from; None: a private temp folder,
            removed when the app stops or its process ends.
        limits: what one request may ask for (``ServeLimits()``: the defaults).
        allowed_hosts: the only Host names answered (a DNS-rebinding guard; ``serve``
            gives its loopback names on a loopback bind); None: any.

    Every POST must say ``Content-Type: application/json`` (else 415).

    Raises:
        PolicyError: the context length is unknown, the policy cannot load weights, or
            the root's ``turngym_agent.json`` is malformed.

    >>> app = build_app(policy, "tiny")  # doctest: +SKIP
    >>> uvicorn.run(app, port=8000)  # doctest: +SKIP

    """
    from fastapi import FastAPI, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import Response
    from starlette.exceptions import HTTPException
    from starlette.requests import ClientDisconnect

    limits = limits or ServeLimits()
    tokenizer = policy.tokenizer
    rules = RequestRules(tokenizer, resolve_context(policy, limits.max_model_len), limits)
    batcher = Batcher(policy, max_batch_size=max_batch_size, wait_s=batch_wait_ms / 1000)
    # Parsing, tokenizing and decoding run here, off the event loop, bounded by the limits.
    pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="turngym-parse")
    weights = _weights_dir(policy, weights_dir) if accept_weight_updates else None
    created = int(time.time())
    agent_settings = _agent_settings(root)

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        await batcher.start()
        yield
        await batcher.stop()
        pool.shutdown(wait=False, cancel_futures=True)
        if weights is not None and weights_dir is None:
            remove_dir(weights.path)

    app = FastAPI(
        title="turngym serve", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None
    )
    # add_middleware puts each in front of those before: the Host check runs first.
    app.add_middleware(JsonBodies, refuse=_refusal)
    if api_key is not None:
        app.add_middleware(RequireKey, key=checked_key(api_key))
    if allowed_hosts is not None:
        app.add_middleware(HostGuard, names=allowed_hosts, refuse=_refusal)
    app.state.batcher = batcher
    app.state.weight_updates = 0
    app.state.weights_dir = weights.path if weights is not None else None

    @app.exception_handler(BadRequest)
    async def bad_request(request: Request, error: BadRequest) -> Any:
        return _error(str(error), error.status, error.param)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> Any:
        return _error(f"invalid request: {error.errors()}", 400)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> Any:
        return _error(str(error.detail), error.status_code)

    @app.exception_handler(_ClientGone)
    @app.exception_handler(ClientDisconnect)
    async def gone(request: Request, error: Exception) -> Any:
        return Response(status_code=499)  # nobody reads it: the client has left

    @app.exception_handler(Exception)
    async def crashed(request: Request, error: Exception) -> Any:
        return _error(f"the policy failed: {type(error).__name__}: {error}", 500)

    async def in_pool(fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(pool, fn, *args)

    async def read_body(request: Request) -> dict[str, Any]:
        data = await read_limited(request.headers, request.stream(), limits.max_body_bytes)
        body = await in_pool(parse_json, data, limits.max_json_depth)
        model = body.get("model")
        if model is not None and model != model_name:
            raise BadRequest(
                f"model {clipped_repr(model)} is not served here; "
                f"GET /v1/models lists {model_name!r}",
                "model",
                404,
            )
        return body

    def client_of(request: Request) -> str:
        return request.client.host if request.client else ""

    def token_strings(ids: Sequence[int]) -> list[str]:
        return list(tokenizer.batch_decode([[t] for t in ids])) if ids else []

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return {
            "status": "ok",
            "model": model_name,
            "batching": batcher.stats.as_dict(),
            "limits": {
                "max_model_len": rules.context,
                "max_prompts": limits.max_prompts,
                "max_body_bytes": limits.max_body_bytes,
            },
        }

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        entry: dict[str, Any] = {
            "id": model_name,
            "object": "model",
            "created": created,
            "owned_by": "turngym",
            "max_model_len": rules.context,
        }
        if root is not None:
            entry["root"] = root
        if agent_settings:
            entry["turngym_agent"] = agent_settings
        return {"object": "list", "data": [entry]}

    def taking_weights() -> WeightsDir:
        if weights is None:
            raise BadRequest(
                "this server does not take weight updates; start it with "
                "`turngym serve --accept-weight-updates`",
                status=403,
            )
        return weights

    @app.get("/v1/update_weights")
    async def weights_folder() -> dict[str, Any]:
        folder = taking_weights()
        return {"weights_dir": str(folder.path), "max_bytes": folder.max_bytes}

    @app.post("/v1/update_weights")
    async def update_weights(request: Request) -> dict[str, Any]:
        folder = taking_weights()
        body = await read_body(request)
        try:
            state = await in_pool(folder.read, body.get("path"))
        except WeightsRefused as error:
            raise BadRequest(str(error), "path") from None

        def load() -> int:
            policy.load_weights(state)  # type: ignore[attr-defined]
            return len(state)

        try:
            tensors = await batcher.run(load)
        except ValueError as error:  # checked already; the policy's own checks, to be sure
            raise BadRequest(f"the weights do not fit the model: {error}", "path") from None
        updates = app.state.weight_updates = app.state.weight_updates + 1
        return {"status": "ok", "tensors": tensors, "updates": updates}

    @app.post("/v1/completions")
    async def completions(request: Request) -> dict[str, Any]:
        body = await read_body(request)
        return await _while_connected(request, complete(body, client_of(request)))

    async def complete(body: dict[str, Any], client: str) -> dict[str, Any]:
        if "prompt" not in body:
            raise BadRequest("prompt is required", "prompt")
        items = rules.prompt_items(body["prompt"])
        prompts = await in_pool(rules.encode, items)
        max_tokens = rules.max_tokens(body, prompts, "max_tokens")
        params = rules.sampling(body, max_tokens)
        echo = bool(body.get("echo", False))
        logprobs = rules.logprobs(body)
        choices = await guided(body, prompts)
        gens: list[Generation | None] = [None] * len(prompts)
        if max_tokens > 0:
            gens = list(await batcher.generate(prompts, params, client, choices))
        echoed = None
        if echo and logprobs is not None:
            echoed = await batcher.prompt_logprobs(prompts, client)
        return await in_pool(completion_reply, prompts, gens, echo, echoed, logprobs)

    def completion_reply(
        prompts: list[list[int]],
        gens: list[Generation | None],
        echo: bool,
        echoed: list[list[float]] | None,
        logprobs: int | None,
    ) -> dict[str, Any]:
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

    async def guided(body: dict[str, Any], prompts: list[list[int]]) -> list[list[int]] | None:
        """The token sequences a request's guided choice allows (None: free decoding)."""
        texts = rules.choices(body)
        if texts is None:
            return None
        param = next(f for f in CHOICE_FIELDS if body.get(f) is not None)
        if not batcher.guided:
            raise BadRequest(
                f"{param}: guided choice is not supported by this server's policy "
                f"({type(policy).__name__}.generate takes no choices=)",
                param,
            )
        return await in_pool(rules.choice_ids, texts, prompts, param)

    @app.post("/v1/chat/completions")
    async def chat_completions(request: Request) -> dict[str, Any]:
        body = await read_body(request)
        return await _while_connected(request, chat(body, client_of(request)))

    def render(messages: list[dict[str, str]]) -> list[int]:
        try:
            text = tokenizer.apply_chat_template(
                messages, add_generation_prompt=True, tokenize=False
            )
        except Exception as error:  # jinja templates raise their own errors on bad roles
            raise BadRequest(f"cannot render messages with the chat template: {error}") from None
        return rules.encode([text])[0]

    async def chat(body: dict[str, Any], client: str) -> dict[str, Any]:
        messages = rules.messages(body.get("messages"))
        prompt = await in_pool(render, messages)
        max_tokens = rules.max_tokens(body, [prompt], "max_completion_tokens", "max_tokens")
        params = rules.sampling(body, max_tokens)
        choices = await guided(body, [prompt])
        gen = None
        if max_tokens > 0:
            gen = (await batcher.generate([prompt], params, client, choices))[0]
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


def _agent_settings(root: str | None) -> dict[str, Any]:
    """The served dir's ``turngym_agent.json`` settings ({} when there are none)."""
    if root is None:
        return {}
    from turngym.sdk.agents import trained_agent_settings

    try:
        return trained_agent_settings(root)
    except ValueError as error:
        raise PolicyError(str(error)) from None


def _weights_dir(policy: Policy, weights_dir: str | Path | None) -> WeightsDir:
    """The folder weight updates load from (a new private temp folder for None)."""
    model = getattr(policy, "model", None)
    if not callable(getattr(policy, "load_weights", None)) or not hasattr(model, "state_dict"):
        raise PolicyError(
            f"{type(policy).__name__} cannot load weights: serve it without --accept-weight-updates"
        )
    assert model is not None
    shapes = {name: tuple(t.shape) for name, t in model.state_dict().items()}
    # A folder of our own goes with this process, even a SIGKILLed one (host/reaper.py).
    folder = weights_dir if weights_dir is not None else temp_dir("turngym-weights-")
    return WeightsDir(folder, shapes)


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
    api_key: str | None = None,
    weights_dir: str | Path | None = None,
    limits: ServeLimits | None = None,
    connections: ServeConnections | None = None,
) -> None:
    """Load ``model_dir`` with ``HFPolicy`` and serve it until interrupted.

    The port is bound before the model loads, so a busy port fails at once; ``port=0``
    picks a free port, and the start line names the real one. ``api_key`` (None:
    ``$TURNGYM_API_KEY``, if set) is required on every request; a server bound beyond
    loopback, or taking weight updates, will not start without one. See ``build_app``
    for ``weights_dir`` and ``limits``; ``connections``: the deadlines and the cap on
    connections (``ServeConnections()``: the defaults). A loopback server answers only
    its loopback Host names. The soft file-descriptor limit is raised to the hard one.

    Raises:
        MissingExtra: fastapi/uvicorn (``serve`` extra) or torch (``llm``) is missing.
        PolicyError: no key where one is needed, a bad key, the model cannot be loaded,
            the port cannot be bound, or a limit does not fit the model.

    """
    require_installed("serve", "turngym serve", ("fastapi", "uvicorn"))
    require_installed("llm", "turngym serve", ("torch", "transformers"))
    import uvicorn

    key = api_key_of(api_key)
    check_exposure(host, key, accept_weight_updates)
    if weights_dir is not None and not Path(weights_dir).is_dir():
        raise PolicyError(f"--weights-dir {weights_dir}: no such directory; create it first")
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
            api_key=key,
            weights_dir=weights_dir,
            limits=limits,
            allowed_hosts=(*LOOPBACK_NAMES, host) if is_loopback(host) else None,
        )
        shown = f"[{host}]" if ":" in host else host
        announce(f"serving {path} as {name} on http://{shown}:{sock.getsockname()[1]}/v1")
        if accept_weight_updates:
            folder = app.state.weights_dir
            announce(f"weight updates load from {folder} (POST /v1/update_weights)")
        settings = _fitted(connections or ServeConnections(), announce)
        config = uvicorn.Config(
            app, log_level="warning", timeout_graceful_shutdown=2, **settings.uvicorn_settings()
        )
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()


def _fitted(settings: ServeConnections, announce: Callable[[str], None]) -> ServeConnections:
    """``settings`` with the fd limit raised to fit them, or the cap lowered to fit it."""
    limit = raise_fd_limit()
    if settings.descriptors() <= limit:
        return settings
    fits = max((limit - FD_RESERVE) // 2, 1)
    announce(
        f"at most {fits} waiting connections, not {settings.max_connections}: this process "
        f"may open {limit} files (raise `ulimit -Hn` for more)"
    )
    return dataclasses.replace(settings, max_connections=fits)
