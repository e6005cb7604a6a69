"""The model side of ``turngym serve``: ``Batcher`` and ``prompt_logprobs``.

``Batcher`` puts requests onto one policy, one batched call at a time, fairly between
clients, and drops or stops the work of a client that left; ``prompt_logprobs`` scores
prompts for ``echo``.

Fairness: each client (the peer's address) has its own queue, and the next call starts
with the oldest request of the client served least recently (round robin); equal
requests of any client join that call. A request bigger than ``max_batch_size`` prompts
is served in parts (unless seeded sampling ties its tokens to the whole batch), so one
client's big request waits its turn between other clients' calls instead of holding the
model for all its prompts at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from turngym.sdk.policy import Generation, Policy, SamplingParams

__all__ = ["BatchStats", "Batcher", "prompt_logprobs"]

_MAX_CLIENTS = 4096  # clients whose last call is remembered while they wait for none


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


@dataclass(eq=False)
class _Job:
    kind: str  # "generate" or "logprobs"
    prompts: list[list[int]]
    params: SamplingParams | None
    future: asyncio.Future[Any]
    client: str
    mergeable: bool
    seq: int  # arrival order
    choices: list[list[list[int]] | None] | None = None
    """guided choice: per prompt, the token sequences it must produce one of (or None)"""
    cancelled: bool = False
    """its client left: dropped from the queue, or its rows stopped if running"""

    @property
    def key(self) -> Any:
        return (self.kind, self.params) if self.mergeable else id(self)


@dataclass
class BatchStats:
    """What the batcher has done and holds (served on ``GET /health``)."""

    requests: int = 0
    """requests (or parts of one, see ``Batcher``) that reached the model"""
    calls: int = 0
    max_requests_per_call: int = 0
    queued: int = 0
    """requests waiting for the model now"""
    running: int = 0
    """requests in the model call under way"""
    cancelled: int = 0
    """requests whose client left before their reply"""
    generated_tokens: int = 0
    recent: deque[tuple[int, int]] = field(default_factory=lambda: deque(maxlen=256))
    """(requests, prompts) of the most recent policy calls."""

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready summary."""
        return {
            "requests": self.requests,
            "calls": self.calls,
            "max_requests_per_call": self.max_requests_per_call,
            "queued": self.queued,
            "running": self.running,
            "cancelled": self.cancelled,
            "generated_tokens": self.generated_tokens,
            "recent_batches": [{"requests": r, "prompts": p} for r, p in self.recent],
        }


class Batcher:
    """Merges concurrent requests into batched policy calls, one call at a time, fairly.

    When the model is idle, the first request opens a window of ``wait_s`` for others to
    arrive. Each call then starts with the oldest request of the client served least
    recently, and every queued request that can share it joins (up to
    ``max_batch_size`` prompts): requests join one call only when their sampling params
    are equal and the result cannot depend on the batch, greedy or unseeded ones. A
    seeded sampled request runs alone and whole, so the same seed gives the same tokens
    as a local ``generate`` on the same prompts; other requests over ``max_batch_size``
    prompts are served in parts. The policy runs on one worker thread (models are not
    thread-safe), off the event loop. A request whose caller is cancelled (its client
    left) leaves the queue; if it is running, a policy whose ``generate`` takes
    ``should_stop`` (``HFPolicy``) stops its rows at the next token. Guided choice is per
    prompt, so requests with different choices (or none) still share a call.

    >>> batcher = Batcher(policy, max_batch_size=8)  # doctest: +SKIP
    >>> await batcher.start()  # doctest: +SKIP
    >>> await batcher.generate([[5, 6, 7]], SamplingParams(temperature=0))  # doctest: +SKIP
    """

    def __init__(self, policy: Policy, max_batch_size: int = 32, wait_s: float = 0.005) -> None:
        if max_batch_size < 1:
            raise ValueError(f"max_batch_size must be >= 1, got {max_batch_size!r}")
        self.policy = policy
        self.max_batch_size = max_batch_size
        self.wait_s = wait_s
        self.stats = BatchStats()
        self._queues: dict[str, deque[_Job]] = {}  # one FIFO per client
        self._served: dict[str, int] = {}  # each client's last call (a tick)
        self._tick = 0
        self._arrivals = 0
        self._ready: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._executor: ThreadPoolExecutor | None = None
        try:
            parameters = inspect.signature(policy.generate).parameters
        except (TypeError, ValueError):  # a builtin or a mock without a signature
            parameters = {}  # type: ignore[assignment]
        self._stoppable = "should_stop" in parameters
        self.guided = "choices" in parameters
        """whether the policy's ``generate`` takes ``choices=`` (guided choice)"""

    async def start(self) -> None:
        """Start the worker task on the running event loop."""
        self._ready = asyncio.Event()
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

    async def generate(
        self,
        prompts: list[list[int]],
        params: SamplingParams,
        client: str = "",
        choices: list[list[int]] | None = None,
    ) -> list[Generation]:
        """``policy.generate(prompts, params)``, possibly batched with other requests.

        ``choices``: guided choice, the token sequences every prompt of this request must
        produce one of (needs a policy whose ``generate`` takes ``choices=``).
        """
        if choices is not None and not self.guided:
            raise ValueError(f"{type(self.policy).__name__}.generate does not take choices=")
        result: list[Generation] = await self._submit("generate", prompts, params, client, choices)
        return result

    async def prompt_logprobs(
        self, prompts: list[list[int]], client: str = ""
    ) -> list[list[float]]:
        """``prompt_logprobs(policy, prompts)``, possibly batched with other requests."""
        result: list[list[float]] = await self._submit("logprobs", prompts, None, client)
        return result

    async def run(self, fn: Callable[[], Any]) -> Any:
        """``fn()`` on the policy's thread, between model calls (e.g. loading weights)."""
        if self._executor is None:
            raise RuntimeError("Batcher.start() was not called")
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn)

    async def _submit(
        self,
        kind: str,
        prompts: list[list[int]],
        params: Any,
        client: str,
        choices: list[list[int]] | None = None,
    ) -> Any:
        if self._ready is None:
            raise RuntimeError("Batcher.start() was not called")
        loop = asyncio.get_running_loop()
        mergeable = kind == "logprobs" or params.greedy or params.seed is None
        size = self.max_batch_size if mergeable else len(prompts)
        jobs = []
        for i in range(0, len(prompts), size):
            self._arrivals += 1
            future = loop.create_future()
            part = prompts[i : i + size]
            job = _Job(kind, part, params, future, client, mergeable, self._arrivals)
            if choices is not None:
                job.choices = [choices] * len(part)
            jobs.append(job)
        self._queues.setdefault(client, deque()).extend(jobs)
        self.stats.queued += len(jobs)
        self._ready.set()
        try:
            parts = [await job.future for job in jobs]
        except asyncio.CancelledError:  # the caller was cancelled: its client left
            self.stats.cancelled += 1
            self._cancel_all(jobs)
            raise
        except Exception:  # one part failed: the others are of no use
            self._cancel_all(jobs)
            raise
        return [item for part in parts for item in part]

    def _cancel_all(self, jobs: list[_Job]) -> None:
        for job in jobs:
            if not job.future.done() or job.future.cancelled():
                self._cancel(job)

    def _cancel(self, job: _Job) -> None:
        job.cancelled = True
        job.future.cancel()
        queue = self._queues.get(job.client)
        if queue is not None and job in queue:
            queue.remove(job)
            self.stats.queued -= 1
            if not queue:
                del self._queues[job.client]

    def _rank(self, client: str) -> tuple[int, int]:
        """Clients served least recently go first; among equals, the oldest request."""
        return self._served.get(client, -1), self._queues[client][0].seq

    def _next_call(self) -> list[_Job]:
        """The jobs of the next call: the next client's oldest job and those that join it."""
        order = sorted(self._queues, key=self._rank)
        head = self._queues[order[0]][0]
        jobs: list[_Job] = []
        size = 0
        for client in order:
            queue = self._queues[client]
            for job in list(queue):
                joins = job.key == head.key and size + len(job.prompts) <= self.max_batch_size
                if job is head or joins:
                    queue.remove(job)
                    jobs.append(job)
                    size += len(job.prompts)
            if not queue:
                del self._queues[client]
        self._tick += 1
        for job in jobs:
            self._served[job.client] = self._tick
        if len(self._served) > _MAX_CLIENTS:  # forget idle clients (they rank as new)
            self._served = {c: t for c, t in self._served.items() if c in self._queues}
        self.stats.queued -= len(jobs)
        return jobs

    async def _run(self) -> None:
        assert self._ready is not None
        loop = asyncio.get_running_loop()
        while True:
            if not self._queues:
                self._ready.clear()
                await self._ready.wait()
                await asyncio.sleep(self.wait_s)  # let requests sent together arrive
            if self._queues:
                await self._call(loop, self._next_call())

    async def _call(self, loop: asyncio.AbstractEventLoop, jobs: list[_Job]) -> None:
        prompts = [p for job in jobs for p in job.prompts]
        owners = [job for job in jobs for _ in job.prompts]
        self.stats.requests += len(jobs)
        self.stats.calls += 1
        self.stats.max_requests_per_call = max(self.stats.max_requests_per_call, len(jobs))
        self.stats.recent.append((len(jobs), len(prompts)))
        if jobs[0].kind == "generate":
            params = jobs[0].params
            assert params is not None
            options: dict[str, Any] = {}
            if self._stoppable:
                options["should_stop"] = lambda i: owners[i].cancelled
            if any(job.choices is not None for job in jobs):
                options["choices"] = [
                    c for job in jobs for c in (job.choices or [None] * len(job.prompts))
                ]

            def work() -> list[Any]:
                return list(self.policy.generate(prompts, params, **options))
        else:

            def work() -> list[Any]:
                return prompt_logprobs(self.policy, prompts)

        self.stats.running = len(jobs)
        try:
            results = await loop.run_in_executor(self._executor, work)
        except Exception as error:  # handed to each waiting request, which answers 500
            for job in jobs:
                if not job.future.done():
                    job.future.set_exception(error)
            return
        finally:
            self.stats.running = 0
        if jobs[0].kind == "generate":
            self.stats.generated_tokens += sum(len(g.token_ids) for g in results)
        start = 0
        for job in jobs:
            if not job.future.done():
                job.future.set_result(results[start : start + len(job.prompts)])
            start += len(job.prompts)
