"""A photo taken under coloured light, and the same photo with its tiles' faces made white.

A phone's white balance leaves a hall's warm lamps (or a cold window) on its photo, and the
finder is less sure of tiles it sees so tinted: the labelled photos under a strong warm cast
(blue halved and so on) had 0.67 of their right readings sure rather than 0.78, and it lost
a tile in 170; the reader read them near as well. What is white in a photo of an ivory set is
known: its faces' ground. So the ground's colour (the lighter half of each inked face, the
median over the faces) gives the light's, and scaling each channel so the ground is grey
takes it out. A back or a dark face has no ivory ground and is left out; a photo whose faces'
ground is near grey already (an ivory set's cream, in the labelled photos up to 1.25 between
its strongest and weakest channel) is left as it is.
"""
from __future__ import annotations

import cv2
import numpy as np

#: A face whose grey levels span less than this (2nd to 98th percentile) has no ink: a back.
INKED_FROM = 60.0
#: A face whose median grey (its ground: a face is mostly ground) is less than this of the way
#: up from its darkest to its lightest has its ground under its ink, a dark face; an ivory
#: face's ground is the light end of its range, however dim the picture
#: (:mod:`vision.reading.dark_faces` goes by it too).
GROUND_UP = 0.4
#: The share of a photo's faces with an ivory ground for it to be an ivory set's.
IVORY_SHARE = 0.5
#: The faces' ground is a cast of the light when its strongest channel is this many times its
#: weakest (the labelled photos as they are: 1.15-1.25; under the casts measured: 1.5-2.1).
CAST_FROM = 1.4
#: The most a channel is scaled, either way.
MOST_GAIN = 1.6


def ground_levels(crop: np.ndarray) -> tuple[np.ndarray, float, float, float]:
    """A face's grey picture, its median level (its ground), the span of its levels (2nd to
    98th percentile) and how far up that span its ground lies (0 to 1)."""
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    darkest, median, lightest = np.percentile(grey, (2, 50, 98))
    span = float(lightest - darkest)
    return grey, float(median), span, float(median - darkest) / max(span, 1.0)


def ivory_ground(crop: np.ndarray) -> np.ndarray | None:
    """The mean BGR of a face's lighter half, or None for a face with no ivory ground (a
    back, a dark face)."""
    grey, median, span, up = ground_levels(crop)
    if span < INKED_FROM or up < GROUND_UP:
        return None
    return crop[grey >= median].reshape(-1, 3).mean(axis=0)


def cast_gains(crops) -> np.ndarray | None:
    """Per-channel gains (B, G, R) that make the faces' ground grey, or None where the light
    casts no colour on it, or fewer than two faces, or not most of them, have an ivory ground
    (a dark set's few faces that pass are not its ground)."""
    faces = [ivory_ground(c) for c in crops if c is not None]
    grounds = [g for g in faces if g is not None]
    if len(grounds) < max(2, IVORY_SHARE * len(faces)):
        return None
    ground = np.median(grounds, axis=0)
    if ground.max() < CAST_FROM * max(float(ground.min()), 1.0):
        return None
    return np.clip(ground.mean() / np.maximum(ground, 1.0), 1 / MOST_GAIN, MOST_GAIN)


def balanced(image: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """``image`` (BGR uint8) with each channel scaled by ``gains``: a table of its 256 levels a
    channel, so a phone's 27-megapixel photo takes no float copy of itself (324 MB)."""
    levels = np.arange(256, dtype=np.float32)[:, None] * gains.astype(np.float32)[None]
    table = np.clip(levels, 0, 255).astype(np.uint8)                 # 256 x 3
    return cv2.LUT(image, table.reshape(256, 1, 3))
