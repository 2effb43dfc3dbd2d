"""A part of the table a glare washes out, darkened before the finder looks at it.

A lamp's reflection can lift a whole stretch of the table close to white. On the film's table
10 (``SolidTable(10)``: seed 9's second hand, seed 10's first) the felt under it reads
225-254 in every channel, the tiles' faces 255 and their ink 150-230, and the finder found 6
of 12 tiles laid in the two ponds under it. The picture still holds the tiles there, squeezed
into the top few dozen grey levels. Where everything about a place is that bright, the top of
the range is spread out again: each pixel's level above a black point that rises with how
washed out its surroundings are, the felt coming out at about two thirds grey and the ink
near black; the finder then found 10 of the 12, each read right. Anywhere something dark
lies within a tile or so (felt, a tile's side, its ink, a shadow), the black point is nought
and the picture is left as it is: a table no glare washes out is not touched at all. A table
top lighter than :data:`WASHED_FROM` in every channel (a white cloth) would be taken for
washed out too; none of the film's tables is.

The finder's own pictures are darkened (:func:`vision.finding.learned.find_tiles_topdown`),
so the faces it cuts for the classifier are too; the change detector and the tracker's
outlines look at the camera's picture as it is.
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.camera.zones import TILE_W_MM

#: Surroundings every patch of which is this bright on average in its darkest channel (0-255)
#: are washed out: on a table the glare leaves alone, some patch within a tile of any place
#: (felt, the tiles' sides, their ink) lies well under it.
WASHED_FROM = 200
#: How far over :data:`WASHED_FROM` the surroundings rise before the black point is all the
#: way up (grey levels): the darkening sets in smoothly at the glare's rim.
RAMP = 15
#: The black point lies this far under the surroundings' level: the felt under the glare (some
#: 230) comes out at about two thirds grey, a face's ink (150-200) near black.
UNDER_FELT = 40
#: A zone the table reads, washed out over this share of it or more, is said to the referee
#: (``riichi-referee calibrate``; the dashboard's "View" while the table runs). On the film's
#: glare-lit table (``SolidTable(10)``: seats 2 and 3's ponds washed out over 85% and 39% of
#: them) those two ponds' discards were read 17 of 34 before the finder darkened what a glare
#: washes out and 29 of 34 after, where the other two ponds read 34 of 35.
NOTICE_SHARE = 0.1


def black_points(view: np.ndarray, tile_px: float) -> tuple[np.ndarray, int] | None:
    """Where ``view`` (BGR uint8) is washed out, and how far: the black point of each patch
    about half a tile wide (``tile_px``: a tile's width in the view), and the patches' side
    in pixels; None where nothing is washed out. A patch is washed out when every patch
    within about a tile of it has a darkest channel whose mean stays at :data:`WASHED_FROM`
    or above."""
    h, w = view.shape[:2]
    every = max(1, int(round(tile_px / 8)))      # a patch's sides are sampled at 4 pixels
    step = 4 * every
    pw, ph = w // step, h // step
    if pw < 5 or ph < 5:
        return None
    # each patch's mean from 16 of its pixels: shrinking the whole view took 3.4 ms a frame
    sample = np.ascontiguousarray(view[:ph * step:every, :pw * step:every])
    patches = cv2.resize(sample, (pw, ph), interpolation=cv2.INTER_AREA).min(axis=2)
    if int(patches.max()) < WASHED_FROM:
        return None
    around = cv2.erode(patches, np.ones((5, 5), np.uint8), borderType=cv2.BORDER_REPLICATE)
    if int(around.max()) < WASHED_FROM:
        return None
    level = around.astype(np.float32)
    black = np.clip((level - WASHED_FROM) / RAMP, 0, 1) * (level - UNDER_FELT)
    black = cv2.GaussianBlur(black, (0, 0), 1.0)
    return (black, step) if (black > 0.5).any() else None


def darkened(view: np.ndarray, tile_px: float) -> np.ndarray:
    """``view`` (BGR uint8) with its washed-out parts (:func:`black_points`) spread down to
    the full range, or ``view`` itself where nothing is washed out. ``tile_px``: a tile's
    width in the view."""
    found = black_points(view, tile_px)
    if found is None:
        return view
    black, step = found
    h, w = view.shape[:2]
    ys, xs = np.nonzero(black > 0.5)
    # only the washed rectangle is worked on: a glare is a few tiles across, the view thirty
    y1, y2 = max(0, (ys.min() - 1) * step), min(h, (ys.max() + 2) * step)
    x1, x2 = max(0, (xs.min() - 1) * step), min(w, (xs.max() + 2) * step)
    # the black point at each pixel of it, from the patches' centres, pixel x lying at
    # (x + 0.5) / step - 0.5 on the patches' grid
    to_patches = np.float32([[1 / step, 0, (x1 + 0.5) / step - 0.5],
                             [0, 1 / step, (y1 + 0.5) / step - 0.5]])
    full = cv2.warpAffine(black, to_patches, (x2 - x1, y2 - y1),
                          flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)
    gain = 255.0 / (255.0 - full)
    part = view[y1:y2, x1:x2].astype(np.float32)
    part -= full[..., None]
    part *= gain[..., None]
    part += 0.5             # rounded, so a burnt-out pixel stays 255
    out = view.copy()
    out[y1:y2, x1:x2] = np.clip(part, 0, 255).astype(np.uint8)
    return out


def zone_shares(view: np.ndarray, zones, px_per_mm: float,
                origin: tuple[float, float] = (0.0, 0.0)) -> dict[str, float]:
    """The share (0-1) of each of ``zones`` (:class:`vision.camera.zones.Zone`) the table
    reads that a glare washes out in ``view`` (:func:`black_points`, worked out once for all of
    them): a top-down view at ``px_per_mm`` whose pixel (0, 0) is the whole view's ``origin``.
    The hands' zones are left out: their tiles stand, and are read only when shown."""
    read = [z for z in zones if z.kind != "hand"]
    found = black_points(view, TILE_W_MM * px_per_mm) if read else None
    if found is None:
        return {z.name: 0.0 for z in read}
    black, step = found
    washed = black > 0.5
    xs = (np.arange(black.shape[1]) + 0.5) * step + origin[0]     # the patches' centres
    ys = (np.arange(black.shape[0]) + 0.5) * step + origin[1]
    out = {}
    for z in read:
        x1, y1, x2, y2 = (v * px_per_mm for v in z.rect)
        inside = washed[np.ix_((ys >= y1) & (ys < y2), (xs >= x1) & (xs < x2))]
        out[z.name] = float(inside.mean()) if inside.size else 0.0
    return out


def noticed(shares: dict[str, float]) -> list[tuple[str, float]]:
    """The zones of ``shares`` (:func:`zone_shares`) washed out over :data:`NOTICE_SHARE` of
    them or more, by name: what ``riichi-referee calibrate`` and the dashboard's "View" tell
    the referee of."""
    return [(name, share) for name, share in sorted(shares.items()) if share >= NOTICE_SHARE]
