"""The Camerash dataset's labelled single-tile crops: real tiles of Hong Kong style sets (blue
winds, a framed white dragon), cut from the photographs of :mod:`testkit.photos`, MIT. They lie in
the shared data (``photos/camerash/tiles-resized``, named in ``tiles-data/data.csv``); the
classifier never trained on them, so they tell whether it reads symbols or one set's pixels.
"""
from __future__ import annotations

import csv
from pathlib import Path

import cv2
import numpy as np

from vision.synthesis.faces import camerash_code

#: Under the shared data folder: the crops, and the table naming each crop's tile.
CROPS = Path("photos") / "camerash" / "tiles-resized"
CROP_LABELS = Path("photos") / "camerash" / "tiles-data" / "data.csv"


def camerash_crops(data: Path) -> tuple[list[np.ndarray], list[str]]:
    """The crops of riichi kinds under ``data`` (the shared data folder) and their mpsz codes;
    flowers and seasons are left out."""
    crops, codes = [], []
    with open(data / CROP_LABELS, newline="") as f:
        for row in csv.DictReader(f):
            code = camerash_code(row["label-name"])
            if code == "x":   # flowers and seasons are no riichi tiles
                continue
            im = cv2.imread(str(data / CROPS / row["image-name"]))
            if im is None:
                raise SystemExit(f"cannot read {data / CROPS / row['image-name']}")
            crops.append(im)
            codes.append(code)
    return crops, codes
