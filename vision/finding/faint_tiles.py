"""A tile the finder saw too faintly to call one, alone on the table.

The learned finder calls a place a tile when its heat there reaches its threshold (0.3). A
blank white dragon shows it only its outline: on the solid demo's table 0 (a purple top)
four blank discards were missed (one alone in seat 3's pond at 0.27, or 0.37 a few pixels
over on the finder's cells), and on the discard-timing film a blank lying across in a meld
was 0.24. Where a faint peak lies on no tile found and its box is a tile's size, it is cut
as a tile lying along the view's axes, and the classifier, not the finder, says whether it
is one: bare table, a glint or a sleeve reads as ``none`` and the tracker drops it, as it
drops anything read so.

Only for a calibrated top-down view, where a tile's size in pixels is known, and only in the
tracker's finding (:meth:`vision.tracking.tracker.TableTracker.find_tiles`): what the finder
itself found (``find_tiles_topdown``) stays what it called a tile.
"""
from __future__ import annotations

import math

import numpy as np

from vision.camera.zones import TILE_H_MM, TILE_W_MM

from .found import FoundTile
from .learned import Box, laid_tile

#: The least heat looked at. At 0.2 the solid demo's table 0 found two of its four blanks
#: missed; at 0.15 three, but the film's dark hand then had a false blank (read 0.59) at
#: schedule 6. The last two stay under 0.15.
FAINT_HEAT = 0.2
#: How far a faint box's sides may be from a tile's (a share of them): the blanks' boxes were
#: 8% over.
SIZE_SLACK = 0.25
#: A faint peak nearer than this share of a tile's width to a tile's centre is that tile seen
#: again (touching tiles' centres are a whole width apart).
ON_A_TILE = 0.8


def tiles_at_faint_peaks(tiles: list[FoundTile], faint: list[Box], view: np.ndarray,
                         px_per_mm: float, crop_width: int | None = None) -> list[FoundTile]:
    """Tiles for the ``faint`` boxes of the top-down ``view`` (``px_per_mm``) that lie on none
    of ``tiles`` and are a tile's size, surest first, each laid along the view's axes with its
    face cut from ``view`` (at most ``crop_width`` wide) and the faint heat for its score."""
    tile_w, tile_l = TILE_W_MM * px_per_mm, TILE_H_MM * px_per_mm
    sized = [b for b in faint
             if abs(min(b.width, b.length) - tile_w) <= SIZE_SLACK * tile_w and
             abs(max(b.width, b.length) - tile_l) <= SIZE_SLACK * tile_l]
    if not sized:
        return []
    # the faint peaks on a tile found, all at once (a full table has some 170 tiles)
    near = (ON_A_TILE * tile_w) ** 2
    if tiles:
        found = np.array([t.centre for t in tiles], float)
        at = np.array([b.centre for b in sized], float)
        alone = (((at[:, None] - found[None]) ** 2).sum(axis=2) >= near).all(axis=1)
        sized = [b for b, keep in zip(sized, alone) if keep]
    added, centres = [], []
    for box in sorted(sized, key=lambda b: -b.score):
        if any(((box.centre - c) ** 2).sum() < near for c in centres):
            continue        # a second faint peak on a tile cut already
        across = abs(math.cos(box.angle)) > abs(math.sin(box.angle))
        tile = laid_tile(Box(np.asarray(box.centre, float), tile_w, tile_l,
                             0.0 if across else math.pi / 2, box.score), view, crop_width)
        added.append(tile)
        centres.append(np.asarray(tile.centre, float))
    return added
