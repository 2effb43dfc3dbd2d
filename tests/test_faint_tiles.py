"""A tile the finder saw too faintly to call one, alone on the table, is cut for the
classifier to read (vision/finding/faint_tiles.py)."""
import math

import numpy as np
import pytest

from vision.finding.faint_tiles import tiles_at_faint_peaks
from vision.finding.learned import Box, laid_tile

PPM = 2.0
W, L = 52.0, 70.0        # a tile's width and length at 2 px/mm


def _tile(x, y, across=False):
    view = np.zeros((400, 400, 3), np.uint8)
    return laid_tile(Box(np.array([x, y], float), W, L, 0.0 if across else math.pi / 2, 0.9),
                     view, 48)


@pytest.mark.parametrize("faint, found, want", [
    # a tile's size, on no tile: a tile, upright or across as its box lies
    ([(200, 200, W + 4, L + 6, math.pi / 2)], [], [(200, 200, False)]),
    ([(200, 200, W + 4, L + 6, 0.05)], [], [(200, 200, True)]),
    # the next tile along a row, a width from the one found: a tile
    ([(152, 100, W, L, math.pi / 2)], [(100, 100)], [(152, 100, False)]),
    # on a tile found (its second, fainter peak): nothing
    ([(110, 104, W, L, math.pi / 2)], [(100, 100)], []),
    # too small or too big to be a tile: a glint, a sleeve
    ([(200, 200, 0.6 * W, 0.6 * L, math.pi / 2)], [], []),
    ([(200, 200, 2 * W, 2 * L, math.pi / 2)], [], []),
    # two faint peaks on one place: one tile, at the surer
    ([(200, 200, W, L, math.pi / 2, 0.25), (206, 203, W, L, math.pi / 2, 0.28)], [],
     [(206, 203, False)]),
])
def test_a_faint_peak_of_a_tiles_size_on_no_tile_is_cut_as_a_tile(faint, found, want):
    view = np.full((400, 400, 3), 120, np.uint8)
    boxes = [Box(np.array([x, y], float), w, l, a, s[0] if s else 0.24)
             for x, y, w, l, a, *s in faint]
    tiles = tiles_at_faint_peaks([_tile(x, y) for x, y in found], boxes, view, PPM, 48)
    assert [(round(t.centre[0]), round(t.centre[1]), t.across) for t in tiles] == want
    for t in tiles:
        # cut at a tile's size, the face upright, at most as wide as asked; the faint heat kept
        assert (t.box[2] - t.box[0], t.box[3] - t.box[1]) == ((L, W) if t.across else (W, L))
        assert t.crop.shape[1] <= 48 and t.crop.shape[0] > t.crop.shape[1]
        assert t.score < 0.3


@pytest.mark.usefixtures("shared_data")
@pytest.mark.parametrize("seat", [3])
def test_a_blank_white_dragon_the_finder_sees_faintly_is_read(seat):
    """On the solid demo's table 0 (a purple top) the finder's heat on a blank white dragon
    alone in seat 3's pond is under its threshold: the tile was missed. The tracker cuts it
    at its faint peak, and it reads as the blank (5z); the finder alone does not call it a tile."""
    from vision.camera.zones import default_zones
    from vision.finding.learned import find_tiles_topdown, shared_finder
    from vision.reading.classifier import TileClassifier
    from vision.synthesis.solid_table import SolidTable
    from vision.synthesis.synthetic import TableState
    from vision.tracking.tracker import TableTracker

    state = TableState(walls=True)
    state.ponds[seat] = [("5z", False)]
    view = SolidTable(seed=0).render(state)
    zone = next(z for z in default_zones() if z.kind == "pond" and z.seat == seat)
    x1, y1, x2, y2 = (PPM * v for v in zone.rect)

    def in_pond(finding):
        return [t for t in finding.tiles if x1 <= t.centre[0] <= x2 and y1 <= t.centre[1] <= y2]

    assert in_pond(find_tiles_topdown(view, PPM, shared_finder(), 48)) == []
    reader = TileClassifier(threads=1)
    tracker = TableTracker(default_zones(), reader, px_per_mm=PPM, finder=shared_finder())
    found = in_pond(tracker.find_tiles(view, PPM))
    assert len(found) == 1 and found[0].score < 0.3          # seen only faintly
    (label, confidence), = reader.classify([found[0].crop])
    assert label == "5z" and confidence >= 0.8
