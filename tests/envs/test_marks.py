"""Set-of-marks layout and drawing (turngym/envs/marks.py): tags go outside the boxes
they label, on the image, out of the way of other marks."""

from __future__ import annotations

import numpy as np
import pytest

from turngym.envs.marks import MARK_COLOUR, draw_marks, place_tags

pytest.importorskip("PIL", reason="set-of-marks draws with Pillow")


def _meets(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _box_rect(box):
    x, y, w, h = box
    return (int(np.floor(x)), int(np.floor(y)), int(np.ceil(x + w)), int(np.ceil(y + h)))


def test_tags_never_cover_their_box_and_stay_on_the_image():
    rng = np.random.default_rng(0)
    size = (320, 240)
    boxes = {}
    for k in range(1, 61):  # a crowded page, boxes at the edges included
        w, h = rng.integers(8, 90), rng.integers(8, 40)
        boxes[k] = (float(rng.integers(0, size[0] - w)), float(rng.integers(0, size[1] - h)), w, h)
    boxes[61] = (0.0, 0.0, 50.0, 20.0)  # the top-left corner: no room above or left
    boxes[62] = (300.5, 220.25, 19.5, 19.75)  # the bottom-right corner
    tags = place_tags(boxes, {k: (16, 10) for k in boxes}, size)
    assert set(tags) == set(boxes)
    for k, tag in tags.items():
        assert not _meets(tag, _box_rect(boxes[k])), (k, tag, boxes[k])
        assert 0 <= tag[0] < tag[2] <= size[0] and 0 <= tag[1] < tag[3] <= size[1]


def test_a_tag_avoids_its_neighbours_when_it_can():
    # A row of buttons with text just above them: the tags go below, not over that text.
    boxes = {1: (10, 10, 200, 20), 2: (10, 32, 60, 20), 3: (80, 32, 60, 20)}
    tags = place_tags(boxes, {k: (16, 10) for k in boxes}, (400, 200))
    for k in (2, 3):
        assert not any(_meets(tags[k], _box_rect(boxes[j])) for j in boxes)
    assert not _meets(tags[2], tags[3])


def test_an_element_filling_the_image_gets_its_tag_inside():
    tags = place_tags({7: (0, 0, 100, 50)}, {7: (16, 10)}, (100, 50))
    assert tags == {7: (0, 0, 16, 10)}


def test_draw_marks_outlines_and_tags_without_touching_the_input():
    image = np.full((120, 200, 3), 255, np.uint8)
    marked, tags = draw_marks(image, {3: (40, 40, 60, 30), 12: (120, 40, 50, 30)})
    assert (image == 255).all()  # a new array
    assert marked.shape == image.shape and marked.dtype == np.uint8
    for k, (x0, y0, x1, y1) in tags.items():
        patch = marked[y0:y1, x0:x1].reshape(-1, 3)
        assert (patch == MARK_COLOUR).all(axis=1).mean() > 0.4, k  # the tag's fill
        assert (patch[:, 1] > 128).any(), k  # its white (anti-aliased) number
    assert tuple(marked[40, 70]) == MARK_COLOUR  # the top edge of box 3
    assert tuple(marked[55, 70]) == (255, 255, 255)  # inside it: untouched
