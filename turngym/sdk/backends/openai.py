"""``OpenAIPolicy``: the ``Policy`` protocol over any OpenAI-compatible HTTP server.

Works against ``turngym serve``, vLLM's OpenAI server, and other servers that speak the
``/v1/completions`` (token-id prompts) or ``/v1/chat/completions`` API. httpx is imported
lazily (``pip install 'turngym[serve]'``). Every failure (unreachable server, HTTP error,
malformed reply, timeout) surfaces as a one-line ``PolicyError``.

Guided choice goes through the server: ``generate(..., choices=)`` (what
``LLMAgent(constrained=True)`` calls when the env lists its legal actions) sends the
choices as text in vLLM's request field, ``structured_outputs: {"choice": [...]}``, or
the older ``guided_choice`` where a server ignores the first; ``turngym serve`` takes
both and decodes exactly as ``HFPolicy`` does in-process. A server that takes neither
(a 400 naming the field, or an answer outside the choices) gets a one-line warning,
once, and free decoding from then on.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from turngym.extras import require_installed
from turngym.sdk.policy import Choices, FinishReason, Generation, PolicyError, SamplingParams

__all__ = ["OpenAIPolicy"]

Mode = Literal["completions", "chat"]
_RETRY_STATUS = frozenset({408, 409, 429})  # and every 5xx
_MAX_WAIT = 60.0  # seconds: the longest pause between tries, whatever Retry-After says
_GUIDE_FIELDS = ("structured_outputs", "guided_choice")  # vLLM >= 0.11, then older vLLM
_MAX_CHOICE_TEXTS = 1 << 16  # choice texts remembered (a Wordle turn lists 4,667)
Send = Callable[[dict[str, Any], SamplingParams], list[Generation]]


def _one_line(text: str, limit: int = 200) -> str:
    """``text`` squeezed onto one line and cut to ``limit`` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _server_message(body: str) -> str:
    """The human message of an error reply: ``error.message`` of OpenAI-style JSON, or text."""
    try:
        data = json.loads(body)
    except ValueError:
        return _one_line(body) or "(empty body)"
    if isinstance(data, dict):
        err = data.get("error", data.get("detail", data))
        if isinstance(err, dict) and "message" in err:
            return _one_line(str(err["message"]))
        if isinstance(err, str):
            return _one_line(err)
    return _one_line(body)


def _finish(reason: Any) -> FinishReason:
    # Servers also say "eos", "stop_sequence", None...: only "length" means the budget ran out.
    return "length" if reason == "length" else "stop"


class OpenAIPolicy:
    """A policy served over HTTP by an OpenAI-compatible server.

    ``completions`` mode (the default) sends token-id prompts to ``/v1/completions``, all
    prompts of one ``generate`` call in one request (a list prompt), so the server sees
    the same batch a local policy would. Token ids come from the reply's ``token_ids``
    field (``turngym serve``, vLLM with ``return_token_ids``) or from ``token_id:123``
    strings (vLLM's ``return_tokens_as_token_ids``); otherwise the text is re-tokenised
    with ``tokenizer`` and then ``Generation.logprobs`` is ``[]``, because the server's
    per-token log-probs cannot be aligned with tokens it did not name (and an EOS the
    server dropped from the text is not in ``token_ids``).

    ``chat`` mode sends messages to ``/v1/chat/completions``: use ``generate_chat``. Its
    ``generate`` decodes each prompt (special tokens dropped) and sends that text as one
    user message, which loses the roles of a chat-templated prompt; it exists so a
    chat-only server can still drive an agent, not for training.

    Args:
        base_url: the API root, e.g. ``http://127.0.0.1:8000/v1`` (``/v1`` is added to a
            bare ``http://host:port``).
        model: the model id; None takes the first id of ``GET /v1/models``.
        api_key: sent as a bearer token; None reads ``TURNGYM_API_KEY`` (the key of
            ``turngym serve``), then ``OPENAI_API_KEY`` (either may be unset).
        tokenizer: a Hugging Face tokenizer or a path to one. None: the tokenizer of the
            model dir the server reports (``root`` of ``/v1/models``), when that dir is
            on this machine (``turngym serve`` and vLLM on localhost); this asks the
            server at once, so an unreachable server fails here.
        mode: ``"completions"`` or ``"chat"``.
        timeout: seconds to wait for one HTTP reply.
        max_retries: retries after connection errors, timeouts, 429 and 5xx replies.
        backoff: the first retry waits ``backoff`` seconds, then 2x, 4x, ...
        max_concurrency: requests in flight at once (chat mode sends one per prompt).
        extra_body: extra JSON fields added to every generation request (e.g.
            ``{"return_tokens_as_token_ids": True}`` for vLLM).

    >>> policy = OpenAIPolicy("http://127.0.0.1:8000")  # doctest: +SKIP
    >>> policy.base_url, policy.model  # doctest: +SKIP
    ('http://127.0.0.1:8000/v1', 'my-model')

    """

    def __init__(
        self,
        base_url: str,
        model: str | None = None,
        api_key: str | None = None,
        tokenizer: Any = None,
        mode: Mode = "completions",
        timeout: float = 60.0,
        max_retries: int = 3,
        backoff: float = 0.5,
        max_concurrency: int = 16,
        extra_body: dict[str, Any] | None = None,
    ) -> None:
        parts = urlsplit(str(base_url))
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"base_url must look like http://host:port/v1, got {base_url!r}")
        if mode not in ("completions", "chat"):
            raise ValueError(f"mode must be 'completions' or 'chat', got {mode!r}")
        if not (isinstance(timeout, (int, float)) and timeout > 0):
            raise ValueError(f"timeout must be a number of seconds > 0, got {timeout!r}")
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"max_retries must be an int >= 0, got {max_retries!r}")
        if not (isinstance(backoff, (int, float)) and backoff >= 0):
            raise ValueError(f"backoff must be a number of seconds >= 0, got {backoff!r}")
        if max_concurrency < 1:
            raise ValueError(f"max_concurrency must be >= 1, got {max_concurrency!r}")
        require_installed("serve", "OpenAIPolicy", ("httpx",))
        url = str(base_url).rstrip("/")
        self.base_url = url if parts.path.strip("/") else url + "/v1"
        self.mode: Mode = mode
        self.timeout = float(timeout)
        self.max_retries = max_retries
        self.backoff = float(backoff)
        self.max_concurrency = max_concurrency
        self.extra_body = dict(extra_body or {})
        if api_key is None:
            api_key = os.environ.get("TURNGYM_API_KEY") or os.environ.get("OPENAI_API_KEY")
        self._api_key = api_key
        self._model = model
        self._client: Any = None
        self._lock = threading.Lock()
        self._score_max_tokens = 0  # falls back to 1 for servers that refuse 0 with echo
        self._entry: dict[str, Any] | None = None  # this model's /v1/models entry
        self._guide_field: str | None = _GUIDE_FIELDS[0]  # None: the server cannot guide
        self._warned = False
        self._text_cache: dict[tuple[int, ...], str | None] = {}
        # A plain attribute, resolved now: the Policy protocol (and isinstance checks on
        # it) reads ``tokenizer``, which must not turn into a network call later.
        self.tokenizer: Any = (
            self._load_tokenizer(tokenizer) if tokenizer is not None else self._server_tokenizer()
        )

    # -- HTTP ----------------------------------------------------------------------------

    def _http(self) -> Any:
        with self._lock:
            if self._client is None:
                try:
                    import httpx
                except ImportError:
                    raise PolicyError(
                        "OpenAIPolicy needs httpx: pip install 'turngym[serve]'"
                    ) from None
                headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
                self._client = httpx.Client(
                    timeout=self.timeout,
                    headers=headers,
                    limits=httpx.Limits(max_connections=self.max_concurrency),
                )
            return self._client

    def close(self) -> None:
        """Close the HTTP connections (the policy reopens them if used again)."""
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    def _request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """The JSON reply of one request, retried on transient failures.

        Raises:
            PolicyError: one line saying what went wrong and at which URL.

        """
        import httpx

        client = self._http()
        url = self.base_url + path
        failure, wait = "", 0.0
        for attempt in range(self.max_retries + 1):
            if attempt:
                time.sleep(min(max(wait, self.backoff * 2 ** (attempt - 1)), _MAX_WAIT))
                wait = 0.0
            try:
                reply = client.request(method, url, json=body)
            except httpx.TimeoutException:
                failure = f"timed out after {self.timeout:g} s waiting for {url}"
                continue
            except httpx.ConnectError as error:
                reason = _one_line(str(error)) or "connection failed"
                if "refused" in reason.lower():
                    reason = "connection refused"
                failure = f"cannot reach {self.base_url} ({reason}); is the server running?"
                continue
            except httpx.HTTPError as error:
                failure = (
                    f"request to {url} failed: {type(error).__name__}: {_one_line(str(error))}"
                )
                continue
            if reply.status_code in _RETRY_STATUS or reply.status_code >= 500:
                failure = f"HTTP {reply.status_code} from {url}: {_server_message(reply.text)}"
                with contextlib.suppress(ValueError):  # a 429's Retry-After, in seconds
                    wait = float(reply.headers.get("retry-after", 0))
                continue
            if reply.status_code >= 400:
                raise PolicyError(
                    f"HTTP {reply.status_code} from {url}: {_server_message(reply.text)}"
                )
            try:
                return reply.json()
            except ValueError:
                raise PolicyError(
                    f"malformed reply from {url}: not JSON ({_one_line(reply.text, 60)!r})"
                ) from None
        tries = self.max_retries + 1
        raise PolicyError(failure + (f" (after {tries} tries)" if tries > 1 else ""))

    def _models(self) -> list[dict[str, Any]]:
        url = self.base_url + "/models"
        data = self._request("GET", "/models")
        entries = data.get("data") if isinstance(data, dict) else None
        if not isinstance(entries, list) or not all(
            isinstance(e, dict) and isinstance(e.get("id"), str) for e in entries
        ):
            raise PolicyError(f"malformed reply from {url}: expected {{'data': [{{'id': ...}}]}}")
        if not entries:
            raise PolicyError(f"{url} lists no models; pass model=... explicitly")
        return entries

    @property
    def model(self) -> str:
        """The model id sent with every request (the server's first model if not given)."""
        if self._model is None:
            self._model = self._models()[0]["id"]
        return self._model

    def _model_entry(self) -> dict[str, Any]:
        if self._entry is None:
            entries = self._models()
            self._entry = next((e for e in entries if e["id"] == self.model), entries[0])
        return self._entry

    def agent_settings(self) -> dict[str, Any]:
        """How the served model was trained to act; {} when the server does not say.

        ``turngym serve`` sends its dir's ``turngym_agent.json`` as ``turngym_agent`` in
        ``/v1/models`` (guided choice, system prompt).
        """
        settings = self._model_entry().get("turngym_agent")
        return dict(settings) if isinstance(settings, dict) else {}

    # -- tokenizer -----------------------------------------------------------------------

    @staticmethod
    def _load_tokenizer(tokenizer: Any) -> Any:
        if not isinstance(tokenizer, (str, os.PathLike)):
            return tokenizer
        path = Path(tokenizer)
        if not path.is_dir():
            raise PolicyError(f"tokenizer {str(path)!r} is not a directory with a tokenizer")
        try:
            from transformers import AutoTokenizer
        except ImportError:
            raise PolicyError(
                "a tokenizer path needs transformers: pip install 'turngym[llm]'"
            ) from None
        try:
            return AutoTokenizer.from_pretrained(str(path))
        except Exception as error:  # transformers raises many types for a bad dir
            raise PolicyError(
                f"cannot load a tokenizer from {path}: {_one_line(str(error))}"
            ) from None

    def _server_tokenizer(self) -> Any:
        """The tokenizer of the model dir the server reports, when that dir is local."""
        entries = self._models()
        chosen = next((e for e in entries if e["id"] == self._model), entries[0])
        if self._model is None:
            self._model = chosen["id"]
        self._entry = chosen
        root = chosen.get("root")
        if not isinstance(root, str) or not Path(root).is_dir():
            raise PolicyError(
                f"the server at {self.base_url} does not serve a model dir on this machine; "
                "pass tokenizer=... (a Hugging Face tokenizer or its path)"
            )
        return self._load_tokenizer(root)

    # -- requests and replies ------------------------------------------------------------

    def _sampling_body(self, params: SamplingParams) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": params.max_new_tokens,
            "temperature": params.temperature,
            "top_p": params.top_p,
            "n": 1,
        }
        # Optional fields are only sent when set: strict servers reject unknown fields.
        if params.top_k:
            body["top_k"] = params.top_k
        if params.stop:
            body["stop"] = list(params.stop)
        if params.seed is not None:
            body["seed"] = params.seed
        body.update(self.extra_body)
        return body

    def _choices(self, data: Any, url: str, expected: int) -> list[dict[str, Any]]:
        """The reply's choices, ordered by ``index`` and checked for count and shape."""
        if not isinstance(data, dict) or "choices" not in data:
            raise PolicyError(f"malformed reply from {url}: missing 'choices'")
        choices = data["choices"]
        if not isinstance(choices, list) or not all(isinstance(c, dict) for c in choices):
            raise PolicyError(f"malformed reply from {url}: 'choices' is not a list of objects")
        if len(choices) != expected:
            raise PolicyError(
                f"malformed reply from {url}: {len(choices)} choices for {expected} prompts"
            )
        if all(isinstance(c.get("index"), int) for c in choices):
            choices = sorted(choices, key=lambda c: c["index"])
        return choices

    def _token_ids(self, choice: dict[str, Any], tokens: Any, text: str) -> list[int] | None:
        """Token ids named by the server, or None when it named none."""
        ids = choice.get("token_ids")
        if isinstance(ids, list) and all(isinstance(t, int) for t in ids):
            return list(ids)
        if (
            isinstance(tokens, list)
            and tokens
            and all(isinstance(t, str) and t.startswith("token_id:") for t in tokens)
        ):
            try:
                return [int(t.split(":", 1)[1]) for t in tokens]
            except ValueError:
                return None
        return None

    def _generation(
        self, choice: dict[str, Any], url: str, tokens: Any, lps: Any, text: Any
    ) -> Generation:
        if not isinstance(text, str):
            raise PolicyError(f"malformed reply from {url}: a choice has no text")
        ids = self._token_ids(choice, tokens, text)
        logprobs: list[float] = []
        if ids is None:
            ids = list(self.tokenizer.encode(text, add_special_tokens=False))
        elif isinstance(lps, list) and len(lps) == len(ids):
            try:
                logprobs = [float(x) for x in lps]
            except (TypeError, ValueError):
                raise PolicyError(
                    f"malformed reply from {url}: non-numeric token log-probs"
                ) from None
        return Generation(
            token_ids=ids,
            logprobs=logprobs,
            text=text,
            finish_reason=_finish(choice.get("finish_reason")),
            extra={"finish_reason": choice.get("finish_reason")},
        )

    # -- Policy --------------------------------------------------------------------------

    def generate(
        self,
        prompts: Sequence[Sequence[int]],
        params: SamplingParams,
        choices: Choices | None = None,
    ) -> list[Generation]:
        """One continuation per token-id prompt (chat mode: see the class docstring).

        ``choices``: guided choice, as ``HFPolicy.generate`` takes it: per prompt, None
        or the token sequences (each a candidate's tokens plus EOS) it must produce one
        of. Prompts with the same choices go in one request, others concurrently (so
        greedy decoding matches a local ``generate`` call, and seeded sampling does for
        the prompts of one request: a row's draws follow its index in its request). The
        server tokenizes the choices' text itself, so its tokenizer must be this one's
        (``turngym serve`` and a local vLLM report it). A generation the server did not
        guide has ``extra["guided"] = False``.
        """
        if not prompts:
            return []
        rows = [[int(t) for t in p] for p in prompts]
        if self.mode == "chat":
            texts = [self.tokenizer.decode(p, skip_special_tokens=True) for p in rows]
            conversations = [[{"role": "user", "content": t}] for t in texts]
            return self.generate_chat(conversations, params, choices)
        groups = self._groups(choices, len(rows))
        out: list[Generation | None] = [None] * len(rows)

        def run(key: tuple[tuple[int, ...], ...] | None, indices: list[int]) -> None:
            batch = [rows[i] for i in indices]
            gens = self._guided(lambda extra, p: self._complete(batch, p, extra), params, key)
            for i, gen in zip(indices, gens, strict=True):
                out[i] = gen

        if len(groups) == 1:
            run(*next(iter(groups.items())))
        else:
            with ThreadPoolExecutor(max_workers=min(len(groups), self.max_concurrency)) as pool:
                list(pool.map(lambda item: run(*item), groups.items()))
        return [g for g in out if g is not None]

    def _complete(
        self, prompts: list[list[int]], params: SamplingParams, extra: dict[str, Any]
    ) -> list[Generation]:
        """One ``/v1/completions`` request for all ``prompts`` (a list prompt)."""
        body = self._sampling_body(params)
        body.update(extra)
        body["prompt"] = prompts
        body["logprobs"] = 1
        url = self.base_url + "/completions"
        choices = self._choices(self._request("POST", "/completions", body), url, len(prompts))
        out = []
        for choice in choices:
            logprobs = choice.get("logprobs")
            tokens = lps = None
            if isinstance(logprobs, dict):
                tokens, lps = logprobs.get("tokens"), logprobs.get("token_logprobs")
            out.append(self._generation(choice, url, tokens, lps, choice.get("text")))
        return out

    def generate_chat(
        self,
        conversations: Sequence[Sequence[dict[str, Any]]],
        params: SamplingParams,
        choices: Choices | None = None,
    ) -> list[Generation]:
        """One assistant reply per conversation (a list of ``{"role", "content"}`` messages).

        The conversations are sent concurrently, one request each; ``choices`` as in
        ``generate``.
        """
        if not conversations:
            return []
        keys: list[tuple[tuple[int, ...], ...] | None] = [None] * len(conversations)
        for key, indices in self._groups(choices, len(conversations)).items():
            for i in indices:
                keys[i] = key

        def one(i: int) -> Generation:
            messages = list(conversations[i])
            send: Send = lambda extra, p: [self._chat_one(messages, p, extra)]  # noqa: E731
            return self._guided(send, params, keys[i])[0]

        if len(conversations) == 1:
            return [one(0)]
        workers = min(len(conversations), self.max_concurrency)
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(one, range(len(conversations))))

    def _chat_one(
        self, messages: list[dict[str, Any]], params: SamplingParams, extra: dict[str, Any]
    ) -> Generation:
        """One ``/v1/chat/completions`` request."""
        body = self._sampling_body(params)
        body.update(extra)
        body["logprobs"] = True
        body["messages"] = messages
        url = self.base_url + "/chat/completions"
        choice = self._choices(self._request("POST", "/chat/completions", body), url, 1)[0]
        message = choice.get("message")
        if not isinstance(message, dict):
            raise PolicyError(f"malformed reply from {url}: a choice has no 'message'")
        content = message.get("content")
        tokens = lps = None
        logprobs = choice.get("logprobs")
        if isinstance(logprobs, dict) and isinstance(logprobs.get("content"), list):
            items = [x for x in logprobs["content"] if isinstance(x, dict)]
            tokens = [x.get("token") for x in items]
            lps = [x.get("logprob") for x in items]
        return self._generation(choice, url, tokens, lps, content or "")

    # -- guided choice -------------------------------------------------------------------

    @staticmethod
    def _groups(
        choices: Choices | None, n: int
    ) -> dict[tuple[tuple[int, ...], ...] | None, list[int]]:
        """Prompt indices grouped by their choices (None: free decoding)."""
        if choices is None:
            return {None: list(range(n))}
        if isinstance(choices, (str, bytes)) or len(choices) != n:
            raise ValueError(f"choices must hold one entry (None or token lists) per prompt ({n})")
        groups: dict[tuple[tuple[int, ...], ...] | None, list[int]] = {}
        for i, cands in enumerate(choices):
            if cands is not None and (isinstance(cands, (str, bytes)) or not cands):
                raise ValueError(f"choices[{i}] must be None or a non-empty list of token lists")
            key = None if cands is None else tuple(tuple(int(t) for t in c) for c in cands)
            groups.setdefault(key, []).append(i)
        return groups

    def _choice_texts(self, seqs: tuple[tuple[int, ...], ...]) -> list[str] | None:
        """The text of each choice (its tokens less the final EOS), or None.

        None when one of them ends in no EOS, or its text would not tokenize back to its
        tokens on the server.
        """
        end = self.tokenizer.eos_token_id
        missing = list(dict.fromkeys(s for s in seqs if s not in self._text_cache))
        if missing:
            texts = [self.tokenizer.decode(list(s[:-1])) for s in missing]
            again = self.tokenizer(texts, add_special_tokens=False)["input_ids"] if texts else []
            if len(self._text_cache) + len(missing) > _MAX_CHOICE_TEXTS:
                self._text_cache.clear()
            for seq, text, ids in zip(missing, texts, again, strict=True):
                whole = len(seq) > 1 and seq[-1] == end and list(ids) == list(seq[:-1])
                self._text_cache[seq] = text if whole else None
        out = [self._text_cache.get(s) for s in seqs]
        return None if any(t is None for t in out) else [t for t in out if t is not None]

    def _guided(
        self,
        send: Send,
        params: SamplingParams,
        seqs: tuple[tuple[int, ...], ...] | None,
    ) -> list[Generation]:
        """``send``'s generations, guided to one of ``seqs`` each while the server can."""
        if seqs is None:
            return send({}, params)
        texts = self._choice_texts(seqs)
        if texts is None:
            self._warn_once(
                "a legal action's tokens do not survive decoding to text and back, so "
                "guided choice cannot be sent to the server; decoding freely"
            )
        # Like HFPolicy, a guided row runs until its choice is whole.
        budget = replace(params, max_new_tokens=max(params.max_new_tokens, *map(len, seqs)))
        while True:
            field = self._guide_field
            if field is None or texts is None:
                return [_unguided(g) for g in send({}, params)]
            extra = {field: {"choice": texts}} if field == "structured_outputs" else {field: texts}
            try:
                gens = send(extra, budget)
            except PolicyError as error:
                if "HTTP 400" not in str(error) or field not in str(error):
                    raise
                self._drop_field(field, f"it refused {field}")
                continue
            matched = [_match(g, seqs, texts) for g in gens]
            if all(m is not None for m in matched):
                return [m for m in matched if m is not None]
            self._drop_field(field, f"it answered outside the choices sent as {field}")

    def _drop_field(self, field: str, why: str) -> None:
        """Stop sending ``field`` (try the next one); warn once when none is left."""
        with self._lock:
            if self._guide_field != field:
                return  # another thread moved on already
            later = _GUIDE_FIELDS[_GUIDE_FIELDS.index(field) + 1 :]
            self._guide_field = later[0] if later else None
        if self._guide_field is None:
            self._warn_once(
                f"the server at {self.base_url} does not do guided choice ({why}); legal "
                "actions are not enforced and a model may score lower than in-process "
                "(serve it with turngym serve or vLLM)"
            )

    def _warn_once(self, message: str) -> None:
        if not self._warned:
            self._warned = True
            warnings.warn(f"OpenAIPolicy: {message}", UserWarning, stacklevel=4)

    def weights_dir(self) -> Path:
        """The folder the server loads weight updates from (``GET /v1/update_weights``).

        Raises:
            PolicyError: the server does not take weight updates, or cannot be reached.

        """
        url = self.base_url + "/update_weights"
        reply = self._request("GET", "/update_weights")
        folder = reply.get("weights_dir") if isinstance(reply, dict) else None
        if not isinstance(folder, str) or not folder:
            raise PolicyError(f"malformed reply from {url}: no 'weights_dir'")
        return Path(folder)

    def update_weights(self, path: str | os.PathLike[str]) -> dict[str, Any]:
        """Ask the server to load new weights from a safetensors file it can read.

        ``turngym serve --accept-weight-updates`` answers ``POST /v1/update_weights``
        (trainers call this after each update when they sample through a server). The
        file must be in the server's weights folder (``weights_dir()``), on a disk the
        server sees: the same machine or a shared one.

        Raises:
            PolicyError: the server refused, failed to load the file, or does not take
                weight updates (one line, with the server's reason).

        """
        reply = self._request("POST", "/update_weights", {"path": str(Path(path).resolve())})
        return reply if isinstance(reply, dict) else {}

    def score(self, prompt_ids: Sequence[int], candidates: Sequence[Sequence[int]]) -> list[float]:
        """The sum of log-probs of each candidate after ``prompt_ids``, via prompt log-probs.

        Sends every ``prompt_ids + candidate`` in one ``/v1/completions`` request with
        ``echo=True, logprobs=1``; needs a server that returns prompt log-probs
        (``turngym serve`` and vLLM do, most hosted APIs do not).

        Raises:
            PolicyError: the server cannot score (no prompt log-probs in its reply).

        """
        if not candidates:
            return []
        if not prompt_ids:
            raise ValueError("score() needs a non-empty prompt (the first token has no log-prob)")
        prompt = [int(t) for t in prompt_ids]
        sequences = [prompt + [int(t) for t in c] for c in candidates]
        body: dict[str, Any] = {
            "model": self.model,
            "prompt": sequences,
            "echo": True,
            "logprobs": 1,
            "temperature": 0.0,
            "n": 1,
        }
        url = self.base_url + "/completions"
        try:
            data = self._request(
                "POST", "/completions", {**body, "max_tokens": self._score_max_tokens}
            )
        except PolicyError as error:
            # Some servers refuse max_tokens=0; one generated token (ignored) is the fallback.
            if self._score_max_tokens != 0 or "HTTP 400" not in str(error):
                raise
            self._score_max_tokens = 1
            data = self._request("POST", "/completions", {**body, "max_tokens": 1})
        choices = self._choices(data, url, len(sequences))
        sums = []
        for seq, choice in zip(sequences, choices, strict=True):
            logprobs = choice.get("logprobs")
            lps = logprobs.get("token_logprobs") if isinstance(logprobs, dict) else None
            if not isinstance(lps, list) or len(lps) < len(seq):
                raise PolicyError(
                    f"the server at {self.base_url} cannot score: its /completions reply has "
                    "no prompt log-probs for echo=True (use turngym serve or vLLM)"
                )
            part = lps[len(prompt) : len(seq)]
            try:
                sums.append(math.fsum(float(x) for x in part))
            except (TypeError, ValueError):
                raise PolicyError(
                    f"malformed reply from {url}: non-numeric prompt log-probs"
                ) from None
        return sums

    def __repr__(self) -> str:
        return f"OpenAIPolicy({self.base_url!r}, model={self._model!r}, mode={self.mode!r})"


def _unguided(gen: Generation) -> Generation:
    gen.extra["guided"] = False
    return gen


def _match(
    gen: Generation, seqs: tuple[tuple[int, ...], ...], texts: list[str]
) -> Generation | None:
    """``gen`` as the choice it decoded, or None when it decoded none of them.

    A server that names no token ids, or spelled a choice with other tokens (vLLM's
    grammar takes any tokenization of the text), is matched by its text; the choice's
    own tokens are then reported, without log-probs (the server's do not align).
    """
    ids = tuple(gen.token_ids)
    if ids in seqs:
        gen.extra["guided"] = True
        return gen
    for seq, text in zip(seqs, texts, strict=True):
        if gen.text == text:
            extra = {**gen.extra, "guided": True, "server_token_ids": list(ids)}
            return Generation(list(seq), [], text, "stop", extra)
    return None
