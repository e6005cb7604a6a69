"""The values of episode files: JSON text for what JSON lacks, PNG for pictures, bounded reads.

``turngym.sdk.episode_files`` stores a Turn's ``obs``, ``info`` and ``state_key`` (and an
Episode's ``returns``, ``final_obs``, ``meta``) as JSON text written by ``json_text``
and read by ``parse_json_text``. What JSON lacks becomes an object with the key
``"__turngym__"`` (NumPy arrays, pictures, tuples, bytes, dicts with keys that are not
strings); the schema is in ``episode_files``' docstring. Pictures (uint8 screenshots)
become PNG through ``RowImages`` and come back through ``row_image_loader``, which
opens only regular files inside a dataset's folder and bounds every read (the PNG and
file helpers are ``turngym.images``', re-exported here). Errors in a
row are ``RowError``s that say where in the row; the reader adds the file and line.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from turngym.images import (
    ImageError,
    image_digest,
    is_image,
    png_bytes,
    read_inside,
    read_png,
)

__all__ = [
    "DTYPES",
    "MARKER",
    "RowError",
    "RowImages",
    "decode",
    "encode",
    "json_text",
    "parse_json_text",
    "png_bytes",
    "read_inside",
    "read_png",
    "row_image_loader",
]

MARKER = "__turngym__"
"""The key of the JSON objects that stand for values JSON lacks."""
DTYPES = frozenset(
    {"bool", "float16", "float32", "float64"}
    | {f"{sign}int{bits}" for sign in ("", "u") for bits in (8, 16, 32, 64)}
)
"""The NumPy dtypes an array may have in an episode file."""
# The picture helpers live in the bottom layer (transcripts use them too); kept here by
# name for the code that imports them from this module.
_is_image = is_image


class RowImages:
    """The pictures of one row being written: each distinct one once, in ``entries``."""

    def __init__(self, store: Callable[[np.ndarray, str], dict[str, Any]]) -> None:
        self._store = store
        self._index: dict[str, int] = {}
        self.entries: list[dict[str, Any]] = []

    def add(self, image: np.ndarray) -> int:
        """The index of ``image`` in ``entries`` (stored when new)."""
        image = np.ascontiguousarray(image)
        digest = image_digest(image)
        if digest not in self._index:
            self._index[digest] = len(self.entries)
            self.entries.append(self._store(image, digest))
        return self._index[digest]


def encode(value: Any, where: str, images: RowImages) -> Any:
    """``value`` as JSON-ready data, with markers for what JSON lacks (module docstring)."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):  # subclasses (IntEnum) as the int they are
        return int(value)
    if isinstance(value, float):  # np.float64 too
        return float(value)
    if isinstance(value, np.generic):
        if isinstance(value, (np.bool_, np.integer, np.floating)):
            return value.item()
        raise ValueError(f"{where}: cannot store a NumPy {value.dtype} scalar")
    if isinstance(value, np.ndarray):
        if is_image(value):
            return {MARKER: "image", "index": images.add(value), "shape": list(value.shape)}
        if value.dtype.name not in DTYPES:
            raise ValueError(
                f"{where}: cannot store a {value.dtype} array (dtypes: {sorted(DTYPES)})"
            )
        data = [encode(v, where, images) for v in value.ravel().tolist()]
        return {
            MARKER: "ndarray",
            "dtype": value.dtype.name,
            "shape": list(value.shape),
            "data": data,
        }
    if isinstance(value, dict):
        if MARKER not in value and all(isinstance(k, str) for k in value):
            return {k: encode(v, f"{where}[{k!r}]", images) for k, v in value.items()}
        items = [
            [encode(k, where, images), encode(v, f"{where}[{k!r}]", images)]
            for k, v in value.items()
        ]
        return {MARKER: "dict", "items": items}
    if isinstance(value, list):
        return [encode(v, f"{where}[{i}]", images) for i, v in enumerate(value)]
    if isinstance(value, tuple):
        return {
            MARKER: "tuple",
            "items": [encode(v, f"{where}[{i}]", images) for i, v in enumerate(value)],
        }
    if isinstance(value, bytes):
        return {MARKER: "bytes", "base64": base64.b64encode(value).decode("ascii")}
    raise ValueError(
        f"{where}: cannot store a {type(value).__name__} (storable: None, bool, int, float, "
        "str, bytes, list, tuple, dict, NumPy arrays and scalars)"
    )


def json_text(value: Any, where: str, images: RowImages) -> str:
    """``value`` as JSON text; ``where`` names it in errors (``turns[3].info``)."""
    return json.dumps(encode(value, where, images), ensure_ascii=False, allow_nan=True)


class RowError(ValueError):
    """A row's fault, named by where in the row it is (the file and line are added above)."""


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RowError(f"{what} must be an int, got {type(value).__name__}")
    return value


def decode(value: Any, where: str, images: Callable[[int, str], np.ndarray]) -> Any:
    """The inverse of ``encode``; ``images(index, where)`` gives a row's picture."""
    if isinstance(value, list):
        return [decode(v, where, images) for v in value]
    if not isinstance(value, dict):
        return value
    if MARKER not in value:
        return {k: decode(v, where, images) for k, v in value.items()}
    kind = value[MARKER]
    expected = (
        {
            "ndarray": {"dtype", "shape", "data"},
            "image": {"index", "shape"},
            "tuple": {"items"},
            "bytes": {"base64"},
            "dict": {"items"},
        }.get(kind)
        if isinstance(kind, str)
        else None
    )
    if expected is None:
        raise RowError(f"{where}: unknown {MARKER} kind {kind!r}")
    if set(value) != expected | {MARKER}:
        raise RowError(f"{where}: a {kind} holds the keys {sorted(expected)}, got {sorted(value)}")
    if kind in ("ndarray", "image"):
        shape = value["shape"]
        if not isinstance(shape, list) or len(shape) > 32:
            raise RowError(f"{where}: a {kind}'s shape must be a list of ints")
        shape = tuple(_int(n, f"{where}: {kind} shape") for n in shape)
        if any(n < 0 for n in shape):
            raise RowError(f"{where}: negative {kind} shape {shape}")
        if kind == "image":
            picture = images(_int(value["index"], f"{where}: image index"), where)
            # (H, W, 1) is stored as a grey (H, W) PNG; any other shape must be the PNG's
            if shape not in (picture.shape, (*picture.shape, 1)):
                raise RowError(f"{where}: image shape {shape} is not the PNG's {picture.shape}")
            return picture.reshape(shape).copy()
        dtype, data = value["dtype"], value["data"]
        if dtype not in DTYPES:
            raise RowError(f"{where}: ndarray dtype {dtype!r} is not one of {sorted(DTYPES)}")
        if not isinstance(data, list) or len(data) != math.prod(shape):
            raise RowError(f"{where}: ndarray data does not fill its shape {shape}")
        if any(isinstance(v, (dict, list, str)) or v is None for v in data):
            raise RowError(f"{where}: ndarray data holds something other than numbers")
        try:
            return np.array(data, dtype=dtype).reshape(shape)
        except (OverflowError, TypeError, ValueError) as error:
            raise RowError(f"{where}: ndarray data does not fit {dtype} ({error})") from None
    if kind == "tuple":
        if not isinstance(value["items"], list):
            raise RowError(f"{where}: a tuple's items must be a list")
        return tuple(decode(v, where, images) for v in value["items"])
    if kind == "bytes":
        try:
            return base64.b64decode(value["base64"], validate=True)
        except (binascii.Error, TypeError, ValueError):
            raise RowError(f"{where}: bytes are not valid base64") from None
    items = value["items"]
    if not isinstance(items, list) or not all(isinstance(p, list) and len(p) == 2 for p in items):
        raise RowError(f"{where}: a dict's items must be [key, value] pairs")
    out = {}
    for k, v in items:
        key = decode(k, where, images)
        try:
            out[key] = decode(v, where, images)
        except TypeError:
            raise RowError(
                f"{where}: a dict key must be hashable, got {type(key).__name__}"
            ) from None
    return out


def parse_json_text(text: str, what: str, images: Callable[[int, str], np.ndarray]) -> Any:
    """The value JSON text ``text`` stands for (the inverse of ``json_text``)."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as error:
        reason = "nested too deep" if isinstance(error, RecursionError) else str(error)
        raise RowError(f"{what} is not JSON text ({reason})") from None
    try:
        return decode(data, what, images)
    except RecursionError:
        raise RowError(f"{what} is nested too deep") from None


def row_image_loader(
    entries: Any, root: Path | None, max_bytes: int, max_pixels: int
) -> Callable[[int, str], np.ndarray]:
    """The picture loader of one row: entry ``i`` of its ``images``, decoded once."""
    if entries is None:
        entries = []
    if not isinstance(entries, list):
        raise RowError("images must be a list")
    cache: dict[int, np.ndarray] = {}

    def image(i: int, where: str) -> np.ndarray:
        if not 0 <= i < len(entries):
            raise RowError(f"{where}: image index {i} is not in images[0..{len(entries) - 1}]")
        if i not in cache:
            entry = entries[i]
            what = f"images[{i}]"
            if not isinstance(entry, dict) or set(entry) - {"bytes", "path"}:
                raise RowError(f"{what} must be an object with bytes and/or path")
            data, name = entry.get("bytes"), entry.get("path")
            if data is None:
                if root is None:
                    raise RowError(
                        f"{what} has no bytes (pictures of this source must be embedded)"
                    )
                try:
                    data = read_inside(root, name, max_bytes, limit="max_row_bytes")
                except ImageError as error:
                    raise RowError(f"{what}: {error}") from None
            if not isinstance(data, bytes):
                raise RowError(f"{what}: bytes must be binary")
            try:
                cache[i] = read_png(data, max_pixels)
            except ImageError as error:
                raise RowError(f"{what}: {error}") from None
        return cache[i]

    # Check every entry, also those no marker names: a bad file is never silently kept.
    for i in range(len(entries)):
        image(i, "images")
    return image
