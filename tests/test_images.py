"""turngym.images: which arrays are pictures, lossless PNG, atomic stores, reads inside a folder."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from turngym.images import (
    ImageError,
    image_digest,
    is_image,
    png_bytes,
    read_inside,
    read_png,
    write_png_file,
)


def test_pictures_are_uint8_2d_or_1_to_4_channels_of_at_least_256_pixels():
    assert is_image(np.zeros((16, 16), np.uint8))
    assert is_image(np.zeros((8, 32, 4), np.uint8))
    assert not is_image(np.zeros((15, 17), np.uint8))  # 255 pixels: a board, kept as numbers
    assert not is_image(np.zeros((16, 16, 5), np.uint8))
    assert not is_image(np.zeros((16, 16), np.float32))
    assert not is_image([[0] * 16] * 16)


@pytest.mark.parametrize("shape", [(20, 30), (20, 30, 2), (20, 30, 3), (20, 30, 4)])
def test_png_round_trips_exactly(shape):
    pytest.importorskip("PIL")
    image = np.random.default_rng(0).integers(0, 256, shape, dtype=np.uint8)
    np.testing.assert_array_equal(read_png(png_bytes(image), max_pixels=600), image)
    with pytest.raises(ImageError, match="30x20 picture is over max_image_pixels=599"):
        read_png(png_bytes(image), max_pixels=599)


def test_a_picture_is_stored_once_under_its_digest(tmp_path):
    pytest.importorskip("PIL")
    image = np.full((16, 16, 1), 7, np.uint8)
    name = write_png_file(tmp_path, image)
    assert name == f"images/{image_digest(image)}.png"
    inode = (tmp_path / name).stat().st_ino
    assert write_png_file(tmp_path, image.copy()) == name
    assert (tmp_path / name).stat().st_ino == inode
    assert [p.name for p in (tmp_path / "images").iterdir()] == [name.split("/")[1]]  # no temp
    data = read_inside(tmp_path, name, max_bytes=1 << 20)
    np.testing.assert_array_equal(read_png(data, 256), image[:, :, 0])
    with pytest.raises(ImageError, match="over max_row_bytes=10"):
        read_inside(tmp_path, name, max_bytes=10, limit="max_row_bytes")


def test_the_module_is_below_the_sdk_and_does_not_load_pillow_on_import():
    code = (
        "import sys, turngym.images; "
        "print(sorted(m for m in sys.modules if m.startswith(('turngym.sdk', 'turngym.wrappers',"
        " 'PIL'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
