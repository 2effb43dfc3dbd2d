"""A photo sent from a phone, as :func:`vision.reading.picture.detect` reads it.

The referee photographs a revealed hand to settle a scoring dispute. The upload is whatever the
phone made: a JPEG of twelve million pixels or more, turned by its EXIF orientation, or not a
picture at all. :func:`decode_photo` makes it an upright BGR image no larger than
``longest`` pixels on its long side (a hand across a phone photo is still more than 80 pixels
a tile there, and the Pi reads a smaller picture sooner and in less memory), or says in one
line why it cannot. :func:`read_photo` reads it: the tiles as ``detect`` lists
them, with the size of the picture their boxes are in.
"""
from __future__ import annotations

import cv2
import numpy as np

from referee.errors import RefereeError

#: The long side a photo is read at, in pixels.
LONGEST = 1600
#: JPEG decodes at these fractions of its size for nearly nothing (the DCT scales).
_REDUCED = ((8, cv2.IMREAD_REDUCED_COLOR_8), (4, cv2.IMREAD_REDUCED_COLOR_4),
            (2, cv2.IMREAD_REDUCED_COLOR_2))
#: The JPEG markers whose segment gives the picture's size (start of frame).
_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def jpeg_size(data: bytes) -> tuple[int, int] | None:
    """``(width, height)`` from a JPEG's frame header, None when ``data`` is no JPEG (or its
    header cannot be walked)."""
    if data[:2] != b"\xff\xd8":
        return None
    at = 2
    while at + 9 < len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker == 0xFF:          # fill byte
            at += 1
            continue
        length = int.from_bytes(data[at + 2:at + 4], "big")
        if marker in _SOF:
            height = int.from_bytes(data[at + 5:at + 7], "big")
            width = int.from_bytes(data[at + 7:at + 9], "big")
            return (width, height) if width and height else None
        at += 2 + length
    return None


def decode_photo(data: bytes, longest: int = LONGEST) -> np.ndarray:
    """The upright BGR picture in ``data`` (OpenCV applies the EXIF orientation), shrunk to
    ``longest`` pixels on its long side; RefereeError when ``data`` is no picture."""
    if not data:
        raise RefereeError("the photo is empty: take it again")
    # A phone's full-size JPEG is decoded straight at a half, a quarter or an eighth of its
    # size, as much as still leaves ``longest`` pixels: its full size is never in memory.
    flags, size = cv2.IMREAD_COLOR, jpeg_size(data)
    if size is not None:
        flags = next((f for k, f in _REDUCED if max(size) // k >= longest), flags)
    image = cv2.imdecode(np.frombuffer(data, np.uint8), flags)
    if image is None:
        raise RefereeError("the upload is not a picture this table can read (send a JPEG or "
                           "PNG photo)")
    h, w = image.shape[:2]
    scale = longest / max(h, w)
    if scale < 1:
        image = cv2.resize(image, (max(1, round(w * scale)), max(1, round(h * scale))),
                           interpolation=cv2.INTER_AREA)
    return image


def read_photo(image: np.ndarray, classifier, finder) -> dict:
    """``{"tiles": [...], "width", "height"}``: the tiles of ``image`` (from
    :func:`decode_photo`) as :func:`~vision.reading.picture.detect` lists them (row by row, an
    unsure reading marked), read as a photo of one set, and the size of the picture their
    boxes are in."""
    from .picture import detect

    tiles = detect(image, classifier, photo=True, finder=finder)
    h, w = image.shape[:2]
    return {"tiles": tiles, "width": w, "height": h}
