"""A phone's photo as the photo scorer reads it (vision/reading/phone_photo.py): upright as
the phone's EXIF says, no bigger than the reader needs, or one line saying it is no picture."""
from __future__ import annotations

import struct

import cv2
import numpy as np
import pytest

from referee.errors import RefereeError
from vision.reading.phone_photo import LONGEST, decode_photo, jpeg_size


def with_orientation(jpeg: bytes, orientation: int) -> bytes:
    """``jpeg`` with an EXIF block saying how the phone was held (tag 0x0112)."""
    tiff = b"MM" + struct.pack(">HI", 42, 8) + struct.pack(">H", 1) + \
        struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0) + struct.pack(">I", 0)
    app1 = b"Exif\x00\x00" + tiff
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + jpeg[2:]


def picture(w: int, h: int) -> np.ndarray:
    """Dark on the left, light on the right: which way up it came back is plain to see."""
    image = np.zeros((h, w, 3), np.uint8)
    image[:, w // 2:] = 255
    return image


def test_a_photo_taken_sideways_comes_out_upright():
    ok, jpeg = cv2.imencode(".jpg", picture(400, 300))
    sideways = with_orientation(jpeg.tobytes(), 6)   # rotate 90 clockwise to show it
    assert jpeg_size(sideways) == (400, 300)          # as stored, past the EXIF block
    turned = decode_photo(sideways)
    assert turned.shape[:2] == (400, 300)
    assert turned[:150].mean() < 60 and turned[250:].mean() > 200   # dark top, light bottom


@pytest.mark.parametrize("w,h,ext", [(4032, 3024, ".jpg"), (3000, 4000, ".png"),
                                     (900, 500, ".jpg")])
def test_a_big_photo_is_read_at_the_readers_size_and_a_small_one_as_it_is(w, h, ext):
    rng = np.random.default_rng(0)
    image = rng.integers(0, 255, (h, w, 3), dtype=np.uint8)   # noise: a JPEG of many MB
    ok, data = cv2.imencode(ext, image, [cv2.IMWRITE_JPEG_QUALITY, 95] if ext == ".jpg" else [])
    out = decode_photo(data.tobytes())
    assert max(out.shape[:2]) == min(LONGEST, max(w, h))
    assert out.shape[0] / out.shape[1] == pytest.approx(h / w, rel=0.01)


@pytest.mark.parametrize("data,line", [
    (b"", "the photo is empty: take it again"),
    (b"%PDF-1.4 not a photo", "the upload is not a picture this table can read"),
    (b"\xff\xd8\xff\xe0 a JPEG cut short", "the upload is not a picture this table can read"),
])
def test_what_is_no_picture_says_so(data, line):
    with pytest.raises(RefereeError, match=line):
        decode_photo(data)
