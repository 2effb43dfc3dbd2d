"""A tile the finder lost between two tiles of a meld.

A meld's tiles lie edge to edge in a row along the table's edge. Where two tiles found in a
seat's meld area lie in line with a hole between them a tile wide (a tile upright to the seat)
or a tile long (one lying across, the called tile), the finder lost the tile that fills it:
a blank white dragon lying across between two others shows no edge of its own on flat art,
and the finder's heat there stays under its threshold (0.24 of 0.3 on the discard-timing
film). The hole is cut as that tile; the classifier, not the finder, then says whether it is
one: bare table reads as ``none`` and the tracker drops it, as it drops anything read so.

Only for a calibrated top-down view, where a tile's size in pixels is known, and only for meld
areas: a pond keeps the hole a called tile leaves, and between two melds players leave what
gap they like.
"""
from __future__ import annotations

import math

import numpy as np

from vision.camera.zones import TILE_H_MM, TILE_W_MM

from .found import FoundTile
from .learned import Box, laid_tile

#: How far a hole may be from a tile's width or length (mm) and still be taken for it: the
#: finder's box edges are good to a millimetre or two each (a blank face's to three or four:
#: seat 1's pon of blank dragons left a hole 31.5 mm long for its 35 mm called tile).
HOLE_SLACK_MM = 4.0
#: How far apart across the row two tiles' centres may lie and still be in line (mm): a tile
#: lying across laid flush with its neighbours' near edge has its centre 4.5 mm off theirs.
IN_LINE_MM = 6.0


def tiles_in_holes(tiles: list[FoundTile], view: np.ndarray, px_per_mm: float, along_x: bool,
                   crop_width: int | None = None) -> list[FoundTile]:
    """The tiles that would fill the holes between ``tiles`` (found in one meld area of the
    top-down ``view``, ``px_per_mm``), whose row runs left-right (``along_x``) or up-down.
    Each comes with its face cut from ``view`` (at most ``crop_width`` wide) and score 0: the
    finder did not see it."""
    if len(tiles) < 2:
        return []
    tile_w, tile_l = TILE_W_MM * px_per_mm, TILE_H_MM * px_per_mm
    slack, in_line = HOLE_SLACK_MM * px_per_mm, IN_LINE_MM * px_per_mm
    along = 0 if along_x else 1
    ordered = sorted(tiles, key=lambda t: t.centre[along])
    holes = []
    for a, b in zip(ordered, ordered[1:]):
        if abs(a.centre[1 - along] - b.centre[1 - along]) > in_line:
            continue
        start, end = a.box[along + 2], b.box[along]
        size = end - start
        if abs(size - tile_l) <= slack:
            lengthwise = True         # the tile's length along the row: lying across
        elif abs(size - tile_w) <= slack:
            lengthwise = False
        else:
            continue
        centre = [0.0, 0.0]
        centre[along] = (start + end) / 2
        centre[1 - along] = (a.centre[1 - along] + b.centre[1 - along]) / 2
        # angle 0: the length left-right
        angle = 0.0 if lengthwise == along_x else math.pi / 2
        holes.append(laid_tile(Box(np.array(centre), tile_w, tile_l, angle, 0.0), view,
                               crop_width))
    return holes
