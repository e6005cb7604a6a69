"""Pictures in recorded files: which arrays are pictures, PNG bytes, bounded safe reads.

The bottom layer that episode files (``turngym.sdk.episode_files``) and transcripts
(``turngym.wrappers.RecordEpisodes``) share: ``is_image`` says which uint8 arrays are
stored as PNG files (screenshots) instead of lists of numbers, ``image_digest`` names a
picture by its content, ``png_bytes`` / ``read_png`` encode and decode (lossless),
``write_png_file`` stores one atomically, and ``read_inside`` reads a file a recorded
line names, only a regular file inside the recording's folder and never more than a
bound. Pillow is imported when a picture is encoded or decoded (the ``data`` extra).
"""

from __future__ import annotations

import hashlib
import io
import os
import secrets
import stat
import struct
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np

from turngym.extras import needs_extra

__all__ = [
    "MIN_IMAGE_PIXELS",
    "PNG_MODES",
    "ImageError",
    "image_digest",
    "is_image",
    "png_bytes",
    "read_inside",
    "read_png",
    "write_png_file",
]

MIN_IMAGE_PIXELS = 256
"""Smaller uint8 arrays (boards, masks) stay numbers, readable in the JSON."""
PNG_MODES = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}
"""The Pillow mode of a picture with C channels."""
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class ImageError(ValueError):
    """A picture or picture file that cannot be read; says why (the caller adds where)."""


def is_image(value: Any) -> bool:
    """Whether ``value`` is a picture: uint8, (H, W) or (H, W, 1..4), >= 256 pixels.

    >>> is_image(np.zeros((16, 16, 3), np.uint8)), is_image(np.zeros((3, 3), np.uint8))
    (True, False)
    """
    if not isinstance(value, np.ndarray):
        return False
    shape = value.shape
    return (
        value.dtype == np.uint8
        and (len(shape) == 2 or (len(shape) == 3 and 1 <= shape[2] <= 4))
        and shape[0] * shape[1] >= MIN_IMAGE_PIXELS
    )


def image_digest(image: np.ndarray) -> str:
    """The SHA-256 (hex) of a picture's shape and pixels: equal pictures, equal names."""
    image = np.ascontiguousarray(image)
    return hashlib.sha256(repr(image.shape).encode() + image.tobytes()).hexdigest()


def _pil() -> Any:
    with needs_extra("data", "episodes with pictures"):
        from PIL import Image
    return Image


def png_bytes(image: np.ndarray) -> bytes:
    """``image`` (uint8, (H, W) or (H, W, 1..4)) as a PNG file's bytes (lossless)."""
    pil = _pil()
    pixels = image[:, :, 0] if image.ndim == 3 and image.shape[2] == 1 else image
    out = io.BytesIO()
    pil.fromarray(np.ascontiguousarray(pixels)).save(out, format="PNG", compress_level=6)
    return out.getvalue()


def read_png(data: bytes, max_pixels: int) -> np.ndarray:
    """The pixels of PNG ``data``; an ``ImageError`` for anything else or a picture too large."""
    pil = _pil()
    if data[:8] == _PNG_SIGNATURE and data[12:16] == b"IHDR":
        # Checked from the header before Pillow sees it: Pillow's own bomb check words
        # it differently, and only above twice its (larger) limit.
        width, height = struct.unpack(">II", data[16:24])
        if width * height > max_pixels:
            raise ImageError(f"a {width}x{height} picture is over max_image_pixels={max_pixels}")
    try:
        with pil.open(io.BytesIO(data), formats=["PNG"]) as picture:
            width, height = picture.size
            if width * height > max_pixels:
                raise ImageError(
                    f"a {width}x{height} picture is over max_image_pixels={max_pixels}"
                )
            if picture.mode not in PNG_MODES.values():
                raise ImageError(
                    f"a {picture.mode} PNG is not one of the modes {sorted(PNG_MODES.values())}"
                )
            return np.asarray(picture, dtype=np.uint8)
    except ImageError:
        raise
    except Exception as error:  # Pillow raises many kinds on a broken file
        raise ImageError(f"not a readable PNG ({type(error).__name__}: {error})") from None


def write_png_file(folder: Path, image: np.ndarray, digest: str | None = None) -> str:
    """Store ``image`` as ``folder/images/<digest>.png`` unless it is there; its relative path.

    The file is written under a temporary name and renamed, so a reader never sees half
    a picture; a picture already stored (same digest) is not written again.
    """
    name = f"images/{digest or image_digest(image)}.png"
    target = folder / name
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        try:
            with os.fdopen(os.open(tmp, flags, 0o666), "wb") as f:
                f.write(png_bytes(image))
            os.replace(tmp, target)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    return name


def read_inside(root: Path, name: Any, max_bytes: int, limit: str = "max_bytes") -> bytes:
    """The bytes of regular file ``name`` under ``root``; never a path or link out of it.

    ``limit`` names the bound in the error (the caller's argument, ``max_row_bytes``).

    Raises:
        ImageError: ``name`` is not a relative POSIX path inside ``root``, is or passes
            through a symlink out, is not a regular file, or is over ``max_bytes``.

    """
    if not isinstance(name, str) or not name or "\\" in name or "\x00" in name:
        raise ImageError(f"path {name!r} is not a relative POSIX path")
    relative = PurePosixPath(name)
    if relative.is_absolute() or ".." in relative.parts:
        raise ImageError(f"path {name!r} leads outside the folder")
    full = root.joinpath(*relative.parts)
    real_root = os.path.realpath(root)
    if os.path.commonpath([os.path.realpath(full), real_root]) != real_root:
        raise ImageError(f"path {name!r} leads outside the folder (through a symlink)")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(full, flags)
    except OSError as error:
        if os.path.islink(full):
            raise ImageError(f"path {name!r} is a symlink; only plain files are read") from None
        raise ImageError(f"cannot open {name!r} ({error.strerror})") from None
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ImageError(f"path {name!r} is not a regular file")
        if info.st_size > max_bytes:
            raise ImageError(f"{name!r} is {info.st_size} bytes, over {limit}={max_bytes}")
        return f.read(max_bytes + 1)[:max_bytes]
