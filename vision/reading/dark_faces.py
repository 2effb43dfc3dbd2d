"""Whether a set's faces are dark, printed in light ink (the art's Black style), from crops of
its tiles: such a set is found with the finder trained for it
(:data:`vision.finding.learned.DARK_MODEL`), the default one missing a fifth of its pond tiles
(``bench/solid_ponds.py``) and near half of them in a photo.

A face is mostly its ground, whatever its ink, so the median grey of a set's crops tells the
two apart: rendered sheet photos gave 172-185 for ivory sets (no crop below 101) and 39-49 for
dark ones (none above 91); the 25 labelled Camerash photographs, all ivory sets, 178-251.
"""
from __future__ import annotations

import cv2
import numpy as np

#: A set's faces are dark when the median of its crops' median grey levels is below this.
DARK_FACES_BELOW = 128


def dark_faces(crops) -> bool:
    """Whether ``crops`` (BGR faces, None for a place with none) are of a set whose faces are
    dark with light ink."""
    grey = [float(np.median(cv2.cvtColor(c, cv2.COLOR_BGR2GRAY))) for c in crops if c is not None]
    return bool(grey) and float(np.median(grey)) < DARK_FACES_BELOW
