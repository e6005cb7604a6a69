"""Data-parallel training under ``torchrun``: the process group, DDP, and the batch split.

``turngym train grpo`` (or any script building a ``GRPOTrainer``) started by
``torchrun --nproc_per_node N`` runs as N processes that each

1. collect a contiguous block of the step's groups (the same seeds a single process
   gives those groups), then share all episodes with ``all_gather_object``, so every
   process computes the same advantages and training sequences;
2. take every N-th sequence of each minibatch (longest first, so the shares are
   balanced) and backpropagate it through ``DistributedDataParallel``, which sums the
   gradients across processes when the minibatch's last micro-batch is done. Each
   micro-batch's loss is weighted by its share of the *whole* minibatch (times N, as
   DDP averages), so the update is the single-process update.

With ``data_parallel="fsdp"`` the model is sharded with FSDP2 (``shard``) instead of
wrapped in DDP; ``full_state`` gathers it for the rollout engine and for saving.

Only process 0 writes logs, checkpoints and the final model, and runs evaluation (its
result is broadcast). The backend is NCCL on CUDA GPUs (one per process,
``LOCAL_RANK``) and gloo on CPUs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from turngym.sdk.batches import TrainSequence

if TYPE_CHECKING:
    import torch

__all__ = ["DataParallel", "logprob_module", "single_process", "world_size"]

T = TypeVar("T")


def world_size() -> int:
    """How many processes ``torchrun`` started (1 outside it)."""
    try:
        return max(1, int(os.environ.get("WORLD_SIZE", "1")))
    except ValueError:
        return 1


def single_process(trainer: str) -> None:
    """Refuse to start ``trainer`` under ``torchrun`` (each process would train alone).

    Raises:
        ValueError: ``WORLD_SIZE`` > 1.

    """
    if world_size() > 1:
        raise ValueError(
            f"{trainer} trains in one process; under torchrun (WORLD_SIZE={world_size()}) "
            "only GRPO trains data-parallel: run it without torchrun"
        )


def _logprob_module() -> type:
    import torch

    from turngym.sdk.trainers.sequences import token_logprobs

    class _LogprobForward(torch.nn.Module):
        """``token_logprobs`` as a module's forward, so DDP sees (and syncs) the pass."""

        def __init__(self, model: Any) -> None:
            super().__init__()
            self.model = model

        def forward(
            self, batch: Sequence[TrainSequence], options: dict[str, Any]
        ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
            return token_logprobs(self.model, batch, **options)

    return _LogprobForward


def logprob_module(model: Any) -> Any:
    """A module whose forward is ``token_logprobs(model, batch, **options)``."""
    return _logprob_module()(model)


class DataParallel:
    """A process's place in a ``torchrun`` job, and the collectives the trainer uses.

    Build with ``DataParallel.start()`` (None outside ``torchrun``).
    """

    def __init__(self, rank: int, world: int, local_rank: int, backend: str) -> None:
        self.rank = rank
        self.world = world
        self.local_rank = local_rank
        self.backend = backend

    @classmethod
    def start(cls) -> DataParallel | None:
        """Join the process group ``torchrun`` set up (None outside torchrun with one process).

        Raises:
            ValueError: ``WORLD_SIZE`` > 1 but ``torchrun``'s other variables are
                missing (``RANK``, ``MASTER_ADDR``...).

        """
        world = world_size()
        # One process under torchrun still joins a group: `--nproc_per_node 1` runs the
        # same DDP/FSDP code (and NCCL) as many processes do, which one GPU can check.
        if world == 1 and "TORCHELASTIC_RUN_ID" not in os.environ:
            return None
        import torch
        import torch.distributed as dist

        missing = [k for k in ("RANK", "MASTER_ADDR", "MASTER_PORT") if k not in os.environ]
        if missing:
            raise ValueError(
                f"WORLD_SIZE={world} but {', '.join(missing)} unset: start with torchrun"
            )
        local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        backend = "nccl" if torch.cuda.is_available() else "gloo"
        if not dist.is_initialized():
            if backend == "nccl":
                torch.cuda.set_device(local_rank)
            dist.init_process_group(backend)
        return cls(dist.get_rank(), dist.get_world_size(), local_rank, backend)

    @property
    def is_main(self) -> bool:
        """Whether this is process 0 (the one that writes and evaluates)."""
        return self.rank == 0

    def device(self, requested: str | None) -> str | None:
        """The process's device: its own GPU under NCCL, else what was asked for."""
        if self.backend == "nccl" and (requested is None or requested == "cuda"):
            return f"cuda:{self.local_rank}"
        return requested

    def block(self, count: int) -> tuple[int, int]:
        """The process's contiguous ``[start, stop)`` share of ``count`` items."""
        base, extra = divmod(count, self.world)
        start = self.rank * base + min(self.rank, extra)
        return start, start + base + (self.rank < extra)

    def gather(self, items: list[T]) -> list[T]:
        """Every process's ``items``, concatenated in rank order (on every process)."""
        import torch.distributed as dist

        parts: list[Any] = [None] * self.world
        dist.all_gather_object(parts, items)
        return [item for part in parts for item in part]

    def broadcast(self, make: Callable[[], T]) -> T:
        """``make()`` run on process 0, its result handed to every process."""
        import torch.distributed as dist

        box: list[Any] = [make() if self.is_main else None]
        dist.broadcast_object_list(box, src=0)
        return box[0]

    def sum(self, values: dict[str, float]) -> dict[str, float]:
        """Each metric summed over the processes."""
        import torch
        import torch.distributed as dist

        keys = sorted(values)
        device = f"cuda:{self.local_rank}" if self.backend == "nccl" else "cpu"
        tensor = torch.tensor([values[k] for k in keys], dtype=torch.float64, device=device)
        dist.all_reduce(tensor)
        return dict(zip(keys, tensor.tolist(), strict=True))

    def wrap(self, model: Any) -> Any:
        """``model``'s log-prob pass inside ``DistributedDataParallel``."""
        from torch.nn.parallel import DistributedDataParallel

        module = logprob_module(model)
        if self.backend == "nccl":
            return DistributedDataParallel(module, device_ids=[self.local_rank])
        return DistributedDataParallel(module)

    def main_first(self, make: Callable[[], T]) -> T:
        """``make()`` on process 0, then on the others (which may reuse what it wrote)."""
        result = make() if self.is_main else None
        self.barrier()
        return result if self.is_main else make()  # type: ignore[return-value]

    def barrier(self) -> None:
        """Wait until every process gets here."""
        import torch.distributed as dist

        dist.barrier()

    def shard(self, model: Any) -> None:
        """Shard ``model`` in place with FSDP2: each decoder block, then the whole model.

        The blocks are the modules the model names as not to be split (transformers'
        ``_no_split_modules``); weights, gradients and optimiser state are then spread
        over the processes. Build the optimiser after this.
        """
        from torch.distributed.device_mesh import init_device_mesh
        from torch.distributed.fsdp import fully_shard

        mesh = init_device_mesh("cuda" if self.backend == "nccl" else "cpu", (self.world,))
        blocks = set(getattr(model, "_no_split_modules", None) or ())
        for module in list(model.modules()):
            if type(module).__name__ in blocks:
                fully_shard(module, mesh=mesh)
        fully_shard(model, mesh=mesh)

    def full_state(self, model: Any, everywhere: bool = False) -> dict[str, Any]:
        """A sharded model's whole state dict, gathered (every process must call this).

        On the CPU of process 0 only (empty elsewhere), or with ``everywhere`` on each
        process's device.
        """
        from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict

        options = StateDictOptions(full_state_dict=True, cpu_offload=not everywhere)
        return get_model_state_dict(model, options=options)

    def close(self) -> None:
        """Leave the process group."""
        import torch.distributed as dist

        if dist.is_initialized():
            dist.destroy_process_group()
