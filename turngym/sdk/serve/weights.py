"""Weight updates for ``turngym serve``: files from one folder, checked before loading.

Safetensors files are read only from the one folder named at start, and checked against
the model before any tensor is loaded. A client names a file by its path (absolute, or
relative to the folder). The path is walked inside the folder without following any link
(``turngym.host.confined.Folder``), and only a regular file no bigger than the model
could need is read. A path that leads anywhere else gets the same answer whether or not
something is there, so the endpoint cannot be used to find out which files exist on the
server. The tensors must then match the model's names and shapes, be floating point and
hold finite values only: an update is taken whole or not at all.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from turngym.host.confined import Folder, PathRefused
from turngym.sdk.policy import PolicyError

__all__ = ["WeightsDir", "WeightsRefused"]

_HEADER_BYTES = 16 << 20  # room for a safetensors header on top of the tensors' bytes
_LARGEST_DTYPE = 8  # bytes per value of float64, the widest dtype a trainer might write


class WeightsRefused(ValueError):
    """A weights file the server will not load; the message says why, in one line."""


class WeightsDir:
    """The folder ``POST /v1/update_weights`` reads from, and the model its files must fit.

    Args:
        path: the folder (it must exist).
        shapes: the model's weight names and shapes (``{name: tuple}``).

    >>> weights = WeightsDir("/srv/weights", {"lm_head.weight": (300, 32)})  # doctest: +SKIP
    >>> weights.read("update.safetensors")  # doctest: +SKIP
    {'lm_head.weight': tensor(...)}

    """

    def __init__(self, path: str | os.PathLike[str], shapes: Mapping[str, tuple[int, ...]]) -> None:
        root = Path(path).expanduser().resolve()
        if not root.is_dir():
            raise PolicyError(f"--weights-dir {path}: no such directory; create it first")
        self.path = root
        self.shapes = dict(shapes)
        values = sum(_numel(shape) for shape in self.shapes.values())
        self.max_bytes = values * _LARGEST_DTYPE + _HEADER_BYTES
        self._folder = Folder(root, read_limit=self.max_bytes)
        self.refusal = (
            "no weights file at that path that the server may read: write a regular "
            f"safetensors file into its weights dir {root} and send its path"
        )

    def read(self, requested: Any) -> dict[str, Any]:
        """The checked tensors of the file at ``requested`` (absolute, or in the folder).

        Raises:
            WeightsRefused: the path is not a regular file inside the folder (one answer
                for every such case), the file is too big or not safetensors, or its
                tensors do not fit the model.

        """
        if not isinstance(requested, str) or not requested:
            raise WeightsRefused("path must be the path of a safetensors file (a string)")
        try:
            found = self._folder.stat(requested)
        except PathRefused:  # outside the folder: answered below like any other
            found = None
        if found is not None and stat.S_ISREG(found.st_mode) and found.st_size > self.max_bytes:
            raise WeightsRefused(
                f"the file is {found.st_size:,} bytes; weights for this model take at most "
                f"{self.max_bytes:,}"
            )
        try:
            data = self._folder.read_bytes(requested)
        except (PathRefused, OSError):
            raise WeightsRefused(self.refusal) from None
        from safetensors import SafetensorError
        from safetensors.torch import load

        try:
            state = load(data)
        except (SafetensorError, ValueError, RuntimeError) as error:
            reason = " ".join(str(error).split())[:200]
            raise WeightsRefused(f"the file is not a safetensors file ({reason})") from None
        self.check(state)
        return state

    def check(self, state: Mapping[str, Any]) -> None:
        """Raise ``WeightsRefused`` unless every tensor fits the model.

        Each must have one of the model's names, its shape, a floating-point dtype and
        finite values only.
        """
        import torch

        for name, tensor in state.items():
            if name not in self.shapes:
                raise WeightsRefused(f"the weights do not fit the model: it has no weight {name!r}")
            if tuple(tensor.shape) != self.shapes[name]:
                raise WeightsRefused(
                    f"the weights do not fit the model: {name!r} has shape "
                    f"{tuple(tensor.shape)}, the model's is {self.shapes[name]}"
                )
            if not tensor.is_floating_point():
                raise WeightsRefused(
                    f"the weights do not fit the model: {name!r} is {tensor.dtype}; "
                    "weights must be floating point"
                )
            if not bool(torch.isfinite(tensor).all()):
                raise WeightsRefused(
                    f"the weights do not fit the model: {name!r} holds NaN or infinite "
                    "values; weights must be finite"
                )


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for size in shape:
        n *= size
    return n
