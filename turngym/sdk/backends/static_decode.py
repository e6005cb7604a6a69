"""``StaticDecoder``: decoding steps over buffers of fixed shape, replayed as CUDA graphs.

On a GPU a small model's decoding step is a few hundred kernel launches of a few
microseconds of work each: the host's launching, not the maths, sets the pace, and
a host sync per token (to read the sampled tokens) stalls it further. This decoder
runs ``LeanDecoder``'s arithmetic over a preallocated KV cache whose shapes never
change (rows bucketed to powers of two, positions to a power-of-two capacity): the
position written is a tensor, every step attends to the whole buffer with a mask
hiding what is not there yet, so one step is the same kernels every time and a CUDA
graph captured once per row bucket replays it in one launch. ``decode`` samples on
the device and reads the tokens back once every ``sync_every`` steps; finished rows
ride along until then, and the batch moves to a smaller bucket when it can.

On a CPU the same steps run without graphs (the tests compare them with the dynamic
path there). Per-row randomness and the arithmetic are ``LeanDecoder``'s, so a row's
tokens and log-probs are those of the dynamic path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from turngym.sdk.backends.decode import LeanDecoder

if TYPE_CHECKING:
    import torch

__all__ = ["MIN_CAPACITY", "StaticDecoder", "bucket", "decode"]

MIN_CAPACITY = 256
"""The smallest KV capacity (positions) a decoder is built with."""


def bucket(n: int, floor: int = 1) -> int:
    """The smallest power of two >= ``n`` and >= ``floor``."""
    size = max(floor, 1)
    while size < n:
        size *= 2
    return size


class StaticDecoder(LeanDecoder):
    """``LeanDecoder`` steps over fixed-shape buffers, captured as CUDA graphs on a GPU.

    Build one per model and shape (``fits`` says whether one can be reused); per
    generation ``load`` the prefill, then ``advance`` once per token after writing the
    sampled tokens into ``ids``, and ``compact`` to move to a smaller row bucket.

    Args:
        model: the model (or a PEFT model around it); ``LeanDecoder.supports`` it.
        rows: the most rows a generation holds (a power of two).
        capacity: the most positions (prompt + new tokens) a row holds.
        graphs: capture each row bucket's step as a CUDA graph (a CUDA model in
            eval mode only; else the steps run eagerly).

    """

    def __init__(self, model: Any, rows: int, capacity: int, graphs: bool) -> None:
        import torch

        super().__init__(model)
        weight = self.embed.weight
        device, dtype = weight.device, weight.dtype
        shape = (rows, self.kv_heads, capacity, self.head_dim)
        # Zeros, not empty: a masked position still enters attention as 0 * value, and a
        # NaN left in uninitialised memory would poison the row.
        self.keys = [torch.zeros(shape, device=device, dtype=dtype) for _ in self.layers]
        self.values = [torch.zeros(shape, device=device, dtype=dtype) for _ in self.layers]
        self.ids = torch.zeros(rows, dtype=torch.long, device=device)
        """the token each row feeds next (write the sampled ones here)"""
        self.pos = torch.zeros(rows, dtype=torch.long, device=device)
        self.at = torch.zeros(1, dtype=torch.long, device=device)
        self.mask = torch.zeros((rows, capacity), dtype=torch.bool, device=device)
        self.rows, self.capacity = rows, capacity
        self.graphs = graphs and device.type == "cuda"
        self._graphs: dict[int, tuple[Any, torch.Tensor]] = {}
        self._model = model
        self._weights = _weight_pointers(model)
        self.steps_run = 0
        """decoding steps run (eager or replayed), for tests and profiling"""

    def fits(self, model: Any, rows: int, capacity: int, graphs: bool) -> bool:
        """Whether this decoder can serve a generation of ``rows`` x ``capacity`` now."""
        return (
            model is self._model
            and rows <= self.rows
            and capacity <= self.capacity
            and (graphs and self.embed.weight.device.type == "cuda") == self.graphs
            and _weight_pointers(model) == self._weights
        )

    def load(self, cache: Any, mask: torch.Tensor, next_pos: torch.Tensor) -> int:
        """Take a prefill's cache (n rows, width positions); the row bucket to step with."""
        n, width = mask.shape
        if width >= self.capacity or n > self.rows:
            raise ValueError(
                f"StaticDecoder: {n} rows x {width} positions do not fit its "
                f"{self.rows} x {self.capacity}"
            )
        self.refresh_weights()
        for layer, k_buf, v_buf in zip(cache.layers, self.keys, self.values, strict=True):
            k_buf[:n, :, :width].copy_(layer.keys)
            v_buf[:n, :, :width].copy_(layer.values)
        size = bucket(n)
        self.mask[:size].zero_()
        self.mask[:n, :width].copy_(mask.bool())
        self.pos[:size].zero_()
        self.pos[:n].copy_(next_pos)
        self.at.fill_(width)
        self.length = width
        return size

    def advance(self, size: int) -> torch.Tensor:
        """Feed ``ids[:size]`` at the next position: the next logits (size x vocab)."""
        if self.length >= self.capacity:
            raise ValueError("StaticDecoder: the cache is full; build one with more capacity")
        self.length += 1
        self.steps_run += 1
        if not self.graphs:
            return self._step(size)
        if size not in self._graphs:
            self._capture(size)
        graph, logits = self._graphs[size]
        graph.replay()
        return logits

    def compact(self, keep: torch.Tensor, size: int) -> None:
        """Move the rows ``keep`` (slot indices) to the first slots of bucket ``size``."""
        m = keep.shape[0]
        for buf in (*self.keys, *self.values, self.mask, self.ids, self.pos):
            buf[:m].copy_(buf.index_select(0, keep))
        self.mask[m:size].zero_()
        self.pos[m:size].zero_()

    def _step(self, size: int) -> torch.Tensor:
        """One step for the first ``size`` rows, with no host value: graph-capturable."""
        mask = self.mask[:size]
        mask.index_fill_(1, self.at, True)
        keys = [k[:size] for k in self.keys]
        values = [v[:size] for v in self.values]
        logits = self._run(
            self.ids[:size], self.pos[:size], keys, values, self.at, mask[:, None, None, :]
        )
        self.pos[:size] += 1
        self.at += 1
        return logits

    def _capture(self, size: int) -> None:
        import torch

        # One eager run on a side stream first (cuBLAS handles, workspaces), then the
        # position counters are put back: the real step runs the same position again.
        at, pos = self.at.clone(), self.pos.clone()
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            self._step(size)
        torch.cuda.current_stream().wait_stream(stream)
        self.at.copy_(at)
        self.pos.copy_(pos)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            logits = self._step(size)
        self._graphs[size] = (graph, logits)


def decode(
    decoder: StaticDecoder,
    logits: torch.Tensor,
    size: int,
    n: int,
    steps: int,
    sample: Callable[[torch.Tensor, torch.Tensor, int], tuple[torch.Tensor, torch.Tensor]],
    accept: Callable[[int, int, float], bool],
    sync_every: int = 16,
) -> None:
    """Decode up to ``steps`` tokens for rows ``0..n-1`` from the prefill's ``logits``.

    Args:
        decoder: loaded with the prefill (``load`` returned ``size``).
        logits: the prefill's next-token logits, n rows.
        size: the row bucket ``load`` returned.
        n: the rows of the generation.
        steps: the most tokens a row gets.
        sample: ``(logits, rows, step) -> (tokens, log-probs)`` on the device, where
            ``rows`` maps each slot to its row (a padding slot to row 0).
        accept: ``(row, token, log-prob) -> whether the row goes on``, called in token
            order for each live row at each sync.
        sync_every: steps between reads of the tokens (and chances to shrink).

    """
    import torch

    device = decoder.ids.device
    slots: list[int | None] = [*range(n), *([None] * (size - n))]
    live = set(range(n))
    rows = torch.tensor([r or 0 for r in slots], device=device)
    if logits.shape[0] < size:  # the prefill had n rows: pad to the bucket
        logits = torch.cat([logits, logits[:1].expand(size - logits.shape[0], -1)])
    pending: list[tuple[torch.Tensor, torch.Tensor]] = []
    for step in range(steps):
        picked, logp = sample(logits, rows, step)
        pending.append((picked, logp))
        decoder.ids[:size].copy_(picked)
        last = step == steps - 1
        if len(pending) == sync_every or last:
            tokens = torch.stack([t for t, _ in pending], dim=1).tolist()
            logps = torch.stack([lp for _, lp in pending], dim=1).tolist()
            pending = []
            for slot, row in enumerate(slots):
                if row is None or row not in live:
                    continue
                for tok, lp in zip(tokens[slot], logps[slot], strict=True):
                    if not accept(row, tok, lp):
                        live.discard(row)
                        break
            if not live or last:
                return
            running = [s for s, r in enumerate(slots) if r is not None and r in live]
            smaller = bucket(len(running))
            if smaller < size:
                decoder.compact(torch.tensor(running, device=device), smaller)
                slots = [slots[s] for s in running] + [None] * (smaller - len(running))
                rows = torch.tensor([r or 0 for r in slots], device=device)
                size = smaller
        logits = decoder.advance(size)


def _weight_pointers(model: Any) -> tuple[int, ...]:
    """Where the model's parameters live: a graph reads them there, so a move rebuilds."""
    return tuple(p.data_ptr() for p in model.parameters())
