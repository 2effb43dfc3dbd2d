"""Whether a set's faces are dark, printed in light ink (the art's Black style), from crops of
its tiles: such a set is found with the finder trained for it
(:data:`vision.finding.learned.DARK_MODEL`), the default one missing a fifth of its pond tiles
(``bench/solid_ponds.py``) and near half of them in a photo.

A face is mostly its ground, whatever its ink, so the median grey of a set's crops tells the
two apart in a well-lit picture: rendered sheet photos gave 172-185 for ivory sets (no crop
below 101) and 39-49 for dark ones (none above 91); the 25 labelled Camerash photographs, all
ivory sets, 178-251. But that grey is the light's too: the same photographs taken at half the
light fall under 128, and the finder for dark faces then found none of the tiles of four of
them. So a set's faces are dark only when a share of its crops also have their ground at the
dark end of their own range, under their ink (:data:`vision.finding.colour_cast.GROUND_UP`):
in an ivory face the ground is the light end, however dim the picture.
"""
from __future__ import annotations

import numpy as np

from vision.finding.colour_cast import GROUND_UP, ground_levels

#: A set's faces are dark when the median of its crops' median grey levels is below this...
DARK_FACES_BELOW = 128
#: ...and more than this share of its crops have their ground under their ink (less than
#: GROUND_UP of the way up their levels' span). Ivory faces, lit well or dimly: none of the
#: Camerash photos' crops at half light; rendered held-out photos of ivory sets, dimly lit: 3
#: of 60 photos over the share.
DARK_GROUND_SHARE = 0.3


def dark_faces(crops) -> bool:
    """Whether ``crops`` (BGR faces, None for a place with none) are of a set whose faces are
    dark with light ink."""
    levels = [ground_levels(c) for c in crops if c is not None]
    if not levels:
        return False
    grey = float(np.median([median for _, median, _, _ in levels]))
    under_ink = float(np.mean([up < GROUND_UP for *_, up in levels]))
    return grey < DARK_FACES_BELOW and under_ink > DARK_GROUND_SHARE
