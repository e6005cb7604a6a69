"""Set-of-marks: the ids of what an agent can act on, drawn on a screenshot.

Each marked element gets its box outlined and a small numbered tag put outside the
box: above its top-left corner where there is room, else left of it, below it, right
of it or above its right end, whichever stays on the screenshot and covers the fewest
other marked boxes and tags. A tag so never hides the text of the element it labels
(only an element that fills the whole screenshot gets its tag inside). Web envs
(``BrowserEnv(set_of_marks=True)``) mark links, buttons, fields and elements with a
click handler; desktop envs (``DesktopEnv``, ``ScreenGraphEnv``) mark the widgets
``click(N)`` targets.

>>> place_tags({1: (10, 30, 80, 20)}, {1: (14, 13)}, (200, 100))
{1: (10, 17, 24, 30)}
>>> place_tags({1: (0, 0, 80, 20)}, {1: (14, 13)}, (200, 100))  # no room above or left
{1: (0, 20, 14, 33)}
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["MARK_COLOUR", "Box", "Rect", "draw_marks", "place_tags"]

Box = tuple[float, float, float, float]
"""An element's box: x, y of its top-left corner, width, height (pixels)."""
Rect = tuple[int, int, int, int]
"""A pixel rectangle: x0, y0, x1, y1, the ends excluded."""

MARK_COLOUR = (255, 0, 64)
"""The outline and tag colour (the tag's number is white on it)."""
_CELL = 64  # pixels: the grid that finds the boxes near a candidate tag


def _rect(box: Box) -> Rect:
    x, y, w, h = box
    return math.floor(x), math.floor(y), math.ceil(x + w), math.ceil(y + h)


def _meets(a: Rect, b: Rect) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


class _Grid:
    """Rectangles filed by the grid cells they cover, to count the ones a rectangle meets."""

    def __init__(self) -> None:
        self.cells: dict[tuple[int, int], list[int]] = {}
        self.rects: list[Rect] = []

    @staticmethod
    def _cells(r: Rect) -> list[tuple[int, int]]:
        xs = range(r[0] // _CELL, (r[2] - 1) // _CELL + 1)
        ys = range(r[1] // _CELL, (r[3] - 1) // _CELL + 1)
        return [(cx, cy) for cx in xs for cy in ys]

    def add(self, r: Rect) -> int:
        self.rects.append(r)
        index = len(self.rects) - 1
        for cell in self._cells(r):
            self.cells.setdefault(cell, []).append(index)
        return index

    def meeting(self, r: Rect, skip: int = -1) -> int:
        near = {i for cell in self._cells(r) for i in self.cells.get(cell, ())}
        return sum(1 for i in near if i != skip and _meets(r, self.rects[i]))


def place_tags(
    boxes: Mapping[int, Box], sizes: Mapping[int, tuple[int, int]], size: tuple[int, int]
) -> dict[int, Rect]:
    """Where each element's tag goes: outside its box, on the image, in few others' way.

    Args:
        boxes: each marked element's box, by id.
        sizes: each tag's (width, height) in pixels, by id.
        size: the image's (width, height).

    """
    width, height = size
    own = {k: _rect(b) for k, b in boxes.items()}
    elements = _Grid()
    index = {k: elements.add(r) for k, r in own.items()}
    tags = _Grid()
    placed: dict[int, Rect] = {}
    for k in sorted(boxes):
        x0, y0, x1, y1 = own[k]
        tw, th = sizes[k]
        corners = [
            (x0, y0 - th),  # above, left-aligned
            (x0 - tw, y0),  # left, top-aligned
            (x0, y1),  # below
            (x1, y0),  # right
            (x1 - tw, y0 - th),  # above, right-aligned
        ]
        best: tuple[int, Rect] | None = None
        for cx, cy in corners:
            tag = (cx, cy, cx + tw, cy + th)
            if cx < 0 or cy < 0 or cx + tw > width or cy + th > height or _meets(tag, own[k]):
                continue
            cost = elements.meeting(tag, skip=index[k]) + 2 * tags.meeting(tag)
            if best is None or cost < best[0]:
                best = (cost, tag)
        if best is None:  # the element fills the image: the tag goes inside, clamped
            cx = min(max(x0, 0), max(width - tw, 0))
            cy = min(max(y0, 0), max(height - th, 0))
            best = (0, (cx, cy, cx + tw, cy + th))
        placed[k] = best[1]
        tags.add(best[1])
    return placed


@functools.lru_cache(maxsize=1)
def _font() -> Any:
    from PIL import ImageFont

    return ImageFont.load_default(size=11)


def draw_marks(image: np.ndarray, boxes: Mapping[int, Box]) -> tuple[np.ndarray, dict[int, Rect]]:
    """``image`` (``(H, W, 3)`` uint8) with each box outlined and tagged with its id.

    Returns the marked copy and each tag's rectangle (``place_tags``). Needs Pillow.
    """
    from PIL import Image, ImageDraw

    picture = Image.fromarray(np.ascontiguousarray(image, dtype=np.uint8)).convert("RGB")
    font = _font()
    extents = {k: font.getbbox(str(k)) for k in boxes}
    sizes = {k: (int(r - left) + 4, int(b - top) + 2) for k, (left, top, r, b) in extents.items()}
    tags = place_tags(boxes, sizes, picture.size)
    draw = ImageDraw.Draw(picture)
    width, height = picture.size
    for box in boxes.values():
        x0, y0, x1, y1 = _rect(box)
        x0, y0 = max(x0, 0), max(y0, 0)
        x1, y1 = min(x1, width) - 1, min(y1, height) - 1
        if x1 >= x0 and y1 >= y0:
            draw.rectangle((x0, y0, x1, y1), outline=MARK_COLOUR, width=1)
    for k, (x0, y0, x1, y1) in tags.items():
        draw.rectangle((x0, y0, x1 - 1, y1 - 1), fill=MARK_COLOUR)
        left, top = extents[k][0], extents[k][1]
        draw.text((x0 + 2 - left, y0 + 1 - top), str(k), fill=(255, 255, 255), font=font)
    return np.asarray(picture, dtype=np.uint8), tags
