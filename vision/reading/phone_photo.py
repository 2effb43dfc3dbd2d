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
#: Bytes above which a photo is decoded at half its size (three times that: a quarter): a
#: phone's JPEG (not a PNG) of this size is 3000 pixels or more on its long side.
REDUCE_ABOVE = 2 * 1024 * 1024


def decode_photo(data: bytes, longest: int = LONGEST) -> np.ndarray:
    """The upright BGR picture in ``data`` (OpenCV applies the EXIF orientation), shrunk to
    ``longest`` pixels on its long side; RefereeError when ``data`` is no picture."""
    if not data:
        raise RefereeError("the photo is empty: take it again")
    # A big file is a big picture: JPEG decodes at a half or a quarter of its size for
    # nearly nothing, so a phone's full-size photo never needs its full size in memory.
    jpeg = data[:2] == b"\xff\xd8"
    flags = cv2.IMREAD_COLOR if not jpeg or len(data) < REDUCE_ABOVE else \
        cv2.IMREAD_REDUCED_COLOR_2 if len(data) < 3 * REDUCE_ABOVE else cv2.IMREAD_REDUCED_COLOR_4
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
