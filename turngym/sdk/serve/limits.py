"""What one request may ask of ``turngym serve``: the limits and the parsing that keeps them.

Every request is held to the limits before any of its work starts. Each size is checked
before the work it bounds: the body's bytes before they are read (``Content-Length``)
and while they are (a chunked body), its JSON nesting right after parsing, a text
prompt's characters before it is tokenized (a text longer than the model's context times
its longest token cannot fit), its tokens against the context before the model sees it,
and ``max_tokens`` against the room the context leaves. Guided choice (vLLM's
``structured_outputs: {"choice": [...]}`` or its older ``guided_choice``) is held to a
number of choices and their characters before any is tokenized, and its longest choice
to the room the prompt leaves. A refusal is a ``BadRequest`` (HTTP 400, or 413 for a
body) whose message names the limit and the fix.
"""

from __future__ import annotations

import json
import math
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

from turngym.sdk.policy import PolicyError, SamplingParams

__all__ = [
    "CHOICE_FIELDS",
    "BadRequest",
    "RequestRules",
    "ServeLimits",
    "clipped_repr",
    "model_context",
    "parse_json",
    "read_limited",
    "resolve_context",
]

MAX_STOP = 16
"""The most stop strings one request may give."""
MAX_STOP_CHARS = 256
"""The longest stop string (the policy decodes about four tokens a character per step)."""
CHOICE_FIELDS = ("structured_outputs", "guided_choice")
"""The request fields that carry guided choice: vLLM's current one, then its older one."""
MAX_SEED = 2**63
"""Seeds are taken from ``-MAX_SEED`` to ``MAX_SEED - 1``."""
_CONTEXT_FIELDS = ("max_position_embeddings", "n_positions", "max_sequence_length", "seq_length")


class BadRequest(ValueError):
    """A request the server refuses with HTTP 400 (or ``status``) and an OpenAI-style error."""

    def __init__(self, message: str, param: str | None = None, status: int = 400) -> None:
        super().__init__(message)
        self.param = param
        self.status = status


@dataclass(frozen=True)
class ServeLimits:
    """The most one request may ask of ``turngym serve`` (each has a CLI flag).

    >>> ServeLimits(max_prompts=64).max_prompts
    64
    """

    max_model_len: int | None = None
    """tokens of prompt plus completion per prompt (None: the model's context length)"""
    max_prompts: int = 256
    """prompts in one request (a list prompt)"""
    max_body_bytes: int = 16 << 20
    """bytes of one request body"""
    max_json_depth: int = 64
    """how deeply the request's JSON may nest"""
    max_choices: int = 8192
    """guided choice: choices in one request (Wordle lists 4,667 legal words)"""
    max_choice_chars: int = 1 << 18
    """guided choice: characters of all the choices of one request together"""

    def __post_init__(self) -> None:
        for name in (
            "max_prompts",
            "max_body_bytes",
            "max_json_depth",
            "max_choices",
            "max_choice_chars",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an int >= 1, got {value!r}")
        value = self.max_model_len
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or value < 2
        ):
            raise ValueError(f"max_model_len must be None or an int >= 2, got {value!r}")


def model_context(policy: Any) -> int | None:
    """The policy's context length in tokens, from its model config or tokenizer.

    None if neither says (a tokenizer's "no limit" sentinel, 1e30 and the like, says
    nothing).
    """
    config = getattr(getattr(policy, "model", None), "config", None)
    for name in _CONTEXT_FIELDS:
        value = getattr(config, name, None)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    value = getattr(getattr(policy, "tokenizer", None), "model_max_length", None)
    if isinstance(value, int) and 0 < value < 10_000_000:
        return value
    return None


def clipped_repr(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters: a hostile value is not echoed whole."""
    text = repr(value) if not isinstance(value, (list, dict)) else type(value).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _depth(value: Any, limit: int) -> bool:
    """Whether ``value`` nests deeper than ``limit`` containers (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((c, depth + 1) for c in children if isinstance(c, (list, dict)))
    return False


async def read_limited(headers: Any, chunks: AsyncIterator[bytes], cap: int) -> bytes:
    """The request body, refused with a 413 past ``cap`` bytes.

    A ``Content-Length`` over the cap is refused before any of the body is read; a
    chunked body once the bytes that came pass the cap.
    """
    too_big = (
        f"the request body is over {cap:,} bytes, the most this server takes "
        "(turngym serve --max-body-mb raises it)"
    )
    declared = headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise BadRequest(f"Content-Length {clipped_repr(declared)} is not a number of bytes")
        if int(declared) > cap:
            raise BadRequest(too_big, status=413)
    parts, size = [], 0
    async for chunk in chunks:
        size += len(chunk)
        if size > cap:
            raise BadRequest(too_big, status=413)
        parts.append(chunk)
    return b"".join(parts)


def parse_json(data: bytes, max_depth: int) -> dict[str, Any]:
    """``data`` as a JSON object nested at most ``max_depth`` levels deep.

    Raises:
        BadRequest: not JSON, not an object, or nested too deeply (also when deeper than
            the parser's own stack, which is a RecursionError, not a crash).

    """
    nested = f"the request body is nested more than {max_depth} levels deep"
    try:
        body = json.loads(data)
    except RecursionError:
        raise BadRequest(nested) from None
    except ValueError:
        raise BadRequest("the request body is not JSON") from None
    if not isinstance(body, dict):
        raise BadRequest("the request body must be a JSON object")
    if _depth(body, max_depth):
        raise BadRequest(nested)
    return body


def _integer(body: dict[str, Any], key: str) -> int | None:
    value = body.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadRequest(f"{key} must be an integer, got {clipped_repr(value)}", key)
    return value


def _number(body: dict[str, Any], key: str, default: float) -> float:
    value = body.get(key, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise BadRequest(f"{key} must be a number, got {clipped_repr(value)}", key)
    return float(value)


def _check_encodable(text: str, where: str, param: str) -> None:
    """Refuse text the tokenizer cannot take: JSON can carry lone UTF-16 surrogates."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            message = f"{where} is not valid text: it holds a lone surrogate (\\ud800-\\udfff)"
            raise BadRequest(message, param) from None


class RequestRules:
    """The checks of one server's requests: its tokenizer, context and limits.

    Args:
        tokenizer: the served model's tokenizer.
        context: tokens of prompt plus completion per prompt.
        limits: the per-request limits.

    >>> rules = RequestRules(tokenizer, 2048, ServeLimits())  # doctest: +SKIP
    >>> rules.prompt_items("Move left")  # doctest: +SKIP
    ['Move left']

    """

    def __init__(self, tokenizer: Any, context: int, limits: ServeLimits) -> None:
        self.tokenizer = tokenizer
        self.context = context
        self.limits = limits
        self.vocab = len(tokenizer)
        try:
            longest = max((len(t) for t in tokenizer.get_vocab()), default=1)
        except (AttributeError, TypeError, NotImplementedError):
            longest = 64
        # A text needs at least len(text) / longest tokens: past this it cannot fit.
        self.max_chars = context * max(longest, 1)

    # -- prompts ---------------------------------------------------------------------------

    def _ids(self, value: list[Any], where: str) -> list[int] | None:
        """``value`` as token ids if it is a list of ints (checked), else None."""
        if not value or not all(isinstance(t, int) and not isinstance(t, bool) for t in value):
            return None
        if len(value) > self.context:
            raise BadRequest(
                f"{where} is {len(value)} tokens, more than the model's context of "
                f"{self.context} tokens; shorten it",
                "prompt",
            )
        bad = next((t for t in value if not 0 <= t < self.vocab), None)
        if bad is not None:
            raise BadRequest(
                f"token id {bad} is outside the vocabulary [0, {self.vocab})", "prompt"
            )
        return list(value)

    def _text(self, value: str, where: str, param: str) -> str:
        if len(value) > self.max_chars:
            raise BadRequest(
                f"{where} has {len(value):,} characters, more than the model's context of "
                f"{self.context} tokens can hold (at most {self.max_chars:,}); shorten it",
                param,
            )
        _check_encodable(value, where, param)
        return value

    def prompt_items(self, value: Any) -> list[str | list[int]]:
        """The prompts of a completions request, checked but not yet tokenized.

        ``value`` is a string, token ids, or a list of at most ``max_prompts`` of either.
        """
        if isinstance(value, list):
            single = self._ids(value, "the prompt")
            if single is not None:
                return [single]
            if not value:
                raise BadRequest("prompt is empty", "prompt")
            if len(value) > self.limits.max_prompts:
                raise BadRequest(
                    f"prompt is a list of {len(value)} prompts; send at most "
                    f"{self.limits.max_prompts} per request (turngym serve --max-prompts)",
                    "prompt",
                )
            items = value
        else:
            items = [value]
        out: list[str | list[int]] = []
        for i, item in enumerate(items):
            where = "the prompt" if len(items) == 1 else f"prompt {i}"
            ids = self._ids(item, where) if isinstance(item, list) else None
            if isinstance(item, str):
                out.append(self._text(item, where, "prompt"))
            elif ids is not None:
                out.append(ids)
            else:
                raise BadRequest(
                    "prompt must be a string, a list of token ids, or a list of either",
                    "prompt",
                )
        return out

    def encode(self, items: Sequence[str | list[int]]) -> list[list[int]]:
        """Token ids of each prompt (text tokenized here), each within the context."""
        prompts = []
        for i, item in enumerate(items):
            ids = self.tokenize(item) if isinstance(item, str) else item
            where = "the prompt" if len(items) == 1 else f"prompt {i}"
            if not ids:
                raise BadRequest(f"{where} encodes to no tokens", "prompt")
            if len(ids) > self.context:
                raise BadRequest(
                    f"{where} is {len(ids)} tokens, more than the model's context of "
                    f"{self.context} tokens; shorten it",
                    "prompt",
                )
            prompts.append(ids)
        return prompts

    def tokenize(self, text: str) -> list[int]:
        """The token ids of ``text`` (no special tokens added)."""
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def messages(self, value: Any) -> list[dict[str, str]]:
        """The ``messages`` of a chat request, within what the context can hold."""
        if not isinstance(value, list) or not value:
            raise BadRequest("messages must be a non-empty list of {role, content}", "messages")
        if len(value) > self.context:  # every message renders to a token or more
            raise BadRequest(
                f"{len(value)} messages cannot fit the model's context of {self.context} tokens",
                "messages",
            )
        out, chars = [], 0
        for m in value:
            if not isinstance(m, dict) or not isinstance(m.get("role"), str):
                raise BadRequest("each message needs a string 'role'", "messages")
            content = m.get("content")
            if isinstance(content, list):  # content parts: keep the text ones
                texts = [p.get("text") for p in content if isinstance(p, dict)]
                content = "".join(t for t in texts if isinstance(t, str))
            if not isinstance(content, str):
                raise BadRequest("each message needs a string 'content'", "messages")
            chars += len(content) + len(m["role"])
            out.append({"role": m["role"], "content": content})
        if chars > self.max_chars:
            raise BadRequest(
                f"the messages have {chars:,} characters, more than the model's context of "
                f"{self.context} tokens can hold (at most {self.max_chars:,}); shorten them",
                "messages",
            )
        for m in out:
            _check_encodable(m["role"] + m["content"], "a message", "messages")
        return out

    # -- generation ------------------------------------------------------------------------

    def max_tokens(self, body: dict[str, Any], prompts: Sequence[Sequence[int]], *keys: str) -> int:
        """The tokens to generate per prompt: the first of ``keys`` the body sets.

        It must be from 0 to the room the longest prompt leaves in the context; unset, it
        is 16 (the OpenAI default) or the room, whichever is less.
        """
        longest = max(len(p) for p in prompts)
        room = self.context - longest
        for key in keys:
            if body.get(key) is None:
                continue
            value = body[key]
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= room:
                raise BadRequest(
                    f"{key} must be an integer from 0 to {room} (the model's context of "
                    f"{self.context} tokens less the prompt's {longest}), "
                    f"got {clipped_repr(value)}",
                    key,
                )
            return value
        if room < 1:
            raise BadRequest(
                f"the prompt's {longest} tokens fill the model's context of {self.context} "
                "tokens, leaving no room to generate; shorten it",
                "prompt",
            )
        return min(16, room)

    def sampling(self, body: dict[str, Any], max_tokens: int) -> SamplingParams:
        """The ``SamplingParams`` of a request (``max_tokens`` already checked)."""
        if body.get("stream"):
            raise BadRequest("stream=true is not supported by turngym serve", "stream")
        n = _integer(body, "n")
        if n is not None and n != 1:
            raise BadRequest(f"only n=1 is supported, got n={clipped_repr(n)}", "n")
        stop = body.get("stop") or ()
        if isinstance(stop, str):
            stop = (stop,)
        if not isinstance(stop, list | tuple) or not all(isinstance(s, str) and s for s in stop):
            raise BadRequest("stop must be a string or a list of non-empty strings", "stop")
        if len(stop) > MAX_STOP or any(len(s) > MAX_STOP_CHARS for s in stop):
            raise BadRequest(
                f"stop takes at most {MAX_STOP} strings of at most {MAX_STOP_CHARS} characters",
                "stop",
            )
        seed = _integer(body, "seed")
        if seed is not None and not -MAX_SEED <= seed < MAX_SEED:
            raise BadRequest(f"seed must be a 64-bit integer, got {clipped_repr(seed)}", "seed")
        top_k = _integer(body, "top_k") or 0
        try:
            return SamplingParams(
                temperature=_number(body, "temperature", 1.0),
                top_p=_number(body, "top_p", 1.0),
                top_k=min(max(top_k, 0), self.vocab),  # vLLM spells "off" as -1
                max_new_tokens=max(max_tokens, 1),
                stop=tuple(stop),
                seed=seed,
            )
        except ValueError as error:
            raise BadRequest(str(error)) from None

    def choices(self, body: dict[str, Any]) -> list[str] | None:
        """The guided-choice strings of a request, or None when it asks for none.

        Read from ``structured_outputs.choice`` (vLLM 0.11 and later) or ``guided_choice``
        (earlier vLLM); counted and measured before anything is tokenized.
        """
        outputs, legacy = body.get("structured_outputs"), body.get("guided_choice")
        if outputs is not None and legacy is not None:
            raise BadRequest(
                "give guided choice once: structured_outputs.choice or guided_choice",
                "guided_choice",
            )
        param = "guided_choice"
        value = legacy
        if outputs is not None:
            param = "structured_outputs"
            if not isinstance(outputs, dict):
                raise BadRequest(
                    'structured_outputs must be an object like {"choice": [...]}', param
                )
            other = sorted(k for k, v in outputs.items() if k != "choice" and v is not None)
            if other:
                raise BadRequest(
                    f"turngym serve supports structured_outputs.choice only, got "
                    f"{clipped_repr(', '.join(other))}",
                    param,
                )
            value = outputs.get("choice")
        if value is None:
            return None
        limits = self.limits
        if not isinstance(value, list) or not value:
            raise BadRequest(f"{param} choice must be a non-empty list of strings", param)
        if len(value) > limits.max_choices:
            raise BadRequest(
                f"{param} has {len(value)} choices; send at most {limits.max_choices} "
                "(turngym serve --max-choices)",
                param,
            )
        if not all(isinstance(c, str) and c for c in value):
            raise BadRequest(f"{param} choices must be non-empty strings", param)
        chars = sum(len(c) for c in value)
        if chars > limits.max_choice_chars:
            raise BadRequest(
                f"the {param} choices have {chars:,} characters; send at most "
                f"{limits.max_choice_chars:,} (turngym serve --max-choice-chars)",
                param,
            )
        for c in value:
            _check_encodable(c, "a choice", param)
        return list(value)

    def choice_ids(
        self, choices: Sequence[str], prompts: Sequence[Sequence[int]], param: str
    ) -> list[list[int]]:
        """Each choice's tokens plus EOS, as ``LLMAgent`` builds them, within the context.

        Raises:
            BadRequest: the tokenizer has no EOS to end a choice, or the longest choice
                does not fit after the longest prompt.

        """
        from turngym.sdk.choices import choice_token_ids

        end = self.tokenizer.eos_token_id
        if end is None:
            raise BadRequest("guided choice needs an EOS token, and this model has none", param)
        try:
            ids = choice_token_ids(self.tokenizer, choices, int(end))
        except ValueError as error:
            raise BadRequest(str(error), param) from None
        room = self.context - max(len(p) for p in prompts)
        longest = max(len(c) for c in ids)
        if longest > room:
            raise BadRequest(
                f"the longest choice is {longest} tokens (EOS included) but the context of "
                f"{self.context} tokens leaves {room} after the prompt; shorten it",
                param,
            )
        return ids

    def logprobs(self, body: dict[str, Any]) -> int | None:
        """The completions ``logprobs`` field: None or 0..20."""
        value = _integer(body, "logprobs")
        if value is not None and not 0 <= value <= 20:
            raise BadRequest(f"logprobs must be in [0, 20], got {clipped_repr(value)}", "logprobs")
        return value


def resolve_context(policy: Any, max_model_len: int | None) -> int:
    """The context the server holds requests to: ``max_model_len`` or the model's own.

    Raises:
        PolicyError: the model's context is unknown and none was given, or the one given
            is longer than the model's.

    """
    known = model_context(policy)
    if max_model_len is None:
        if known is None:
            raise PolicyError(
                f"cannot tell the context length of {type(policy).__name__}: "
                "pass max_model_len (turngym serve --max-model-len)"
            )
        return known
    if known is not None and max_model_len > known:
        raise PolicyError(
            f"--max-model-len {max_model_len} is longer than the model's context of "
            f"{known} tokens; pass at most {known}"
        )
    return max_model_len
