"""What a finder found: the tiles of a picture, each with its box, outline and upright face.

Both finders give the same :class:`FoundTile` and :class:`Finding`: the learned finder
(:mod:`vision.finding.learned`) and the felt-colour finder (:mod:`vision.finding.felt`)."""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Callable

import numpy as np


@dataclass
class FoundTile:
    """A tile found in a picture: ``box`` (x1, y1, x2, y2) the upright box around it, ``across``
    when its length lies left-right, ``crop`` its face turned upright (BGR), ``quad`` its
    outline (4 x 2 corners; it may be upside down) and ``score`` the finder's confidence.

    ``face`` is the crop, or what cuts it: the learned finder cuts a face the first time its
    ``crop`` is asked for, from the picture it was given (which must not be drawn on before),
    because a table's tracker reads only the tiles in its zones (a full table: 96 of 165, the
    walls are the rest).

    ``edges``, where the picture is a calibrated view (a tile's size in it known): what
    works out, when asked, how strongly the picture's edges run along the outline of a tile
    at this tile's centre standing upright in the picture and lying across, and the most each
    runs moved a little about it, as ``(upright, across, upright_about, across_about)``; the
    tracker asks it of a new discard, whose box may lie the wrong way or a little off the tile
    (:func:`vision.finding.learned.outline_edges`).

    ``turned``, from the learned finder: what cuts the face at the same place from a box a
    quarter turned, a tile lying the other way; the tracker reads a pond tile boxed lying
    across its seat both ways, since the finder can box an upright tile across
    (:meth:`vision.tracking.tracker.TableTracker._read_turned`)."""

    box: tuple[int, int, int, int]
    across: bool
    face: np.ndarray | Callable[[], np.ndarray] = field(repr=False)
    quad: np.ndarray | None = field(default=None, repr=False)
    score: float = 1.0
    edges: Callable[[], tuple[float, float, float, float]] | None = field(default=None, repr=False)
    turned: Callable[[], np.ndarray] | None = field(default=None, repr=False)

    @property
    def crop(self) -> np.ndarray:
        if callable(self.face):
            self.face = self.face()
        return self.face

    @functools.cached_property
    def centre(self) -> tuple[float, float]:
        # kept: sorting rows and placing tiles in zones ask for it some 500 times a frame
        if self.quad is not None:
            c = self.quad.mean(axis=0)
            return float(c[0]), float(c[1])
        x1, y1, x2, y2 = self.box
        return (x1 + x2) / 2, (y1 + y2) / 2


@dataclass
class Finding:
    """What the finder saw: the tiles, and a mask (uint8, 255) of hands over the picture.
    ``faint``: what the learned finder saw too faintly to call a tile, when it was asked to
    (:meth:`vision.finding.learned.TileFinder.find`; its boxes, in the picture's pixels).
    ``first``: a photo looked at again to be surer of its tiles, what the looks before found
    (:func:`vision.finding.learned.find_tiles_photo`)."""

    tiles: list[FoundTile]
    occluded: np.ndarray
    faint: list = field(default_factory=list, repr=False)
    first: Finding | None = field(default=None, repr=False)


def box_quad(box) -> np.ndarray:
    x1, y1, x2, y2 = box
    return np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float32)


def order_rows(tiles: list[FoundTile]) -> list[FoundTile]:
    """Rows top to bottom (a tile joins a row when its centre is within half a tile height
    of the row's), left to right within each row."""
    rows: list[list[FoundTile]] = []
    row_sum = 0.0                                 # of the centre heights in rows[-1]
    for t in sorted(tiles, key=lambda t: t.centre[1]):
        cy = t.centre[1]
        half = (t.box[3] - t.box[1]) / 2
        if rows and abs(row_sum / len(rows[-1]) - cy) < half:
            rows[-1].append(t)
            row_sum += cy
        else:
            rows.append([t])
            row_sum = cy
    return [t for row in rows for t in sorted(row, key=lambda t: t.centre[0])]
