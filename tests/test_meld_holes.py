"""A hole a tile wide between two tiles of a meld is cut as the tile the finder lost there."""
import numpy as np
import pytest

from vision.finding.found import FoundTile, box_quad
from vision.finding.meld_holes import tiles_in_holes

PPM = 2.0
VIEW = np.zeros((400, 400, 3), np.uint8)


def _tile(x1, y1, x2, y2):
    box = (x1, y1, x2, y2)
    return FoundTile(box, x2 - x1 > y2 - y1, np.zeros((65, 48, 3), np.uint8), box_quad(box))


def _row(along_x, gap_mm, offset_mm=0.0):
    """Two tiles upright to their seat, ``gap_mm`` apart, the second ``offset_mm`` off the
    row's line; along x (seats 0 and 2: 26 mm wide, 35 long in the view) or along y."""
    w, l, gap, off = 52, 70, round(gap_mm * PPM), round(offset_mm * PPM)
    second = 20 + w + gap
    if along_x:
        return [_tile(20, 100, 20 + w, 100 + l), _tile(second, 100 + off, second + w, 100 + off + l)]
    return [_tile(100, 20, 100 + l, 20 + w), _tile(100 + off, second, 100 + off + l, second + w)]


@pytest.mark.parametrize("along_x, gap_mm, offset_mm, want", [
    # the called tile's hole, a tile long: a tile lying across (in the view: left-right for a
    # row along x, up-down for one along y)
    (True, 35.0, 0.0, (True, 70, 52)),
    (False, 35.0, 0.0, (False, 52, 70)),
    (True, 31.5, 4.5, (True, 70, 52)),
    # a tile wide: a tile upright to its seat
    (True, 26.0, 0.0, (False, 52, 70)),
    (False, 27.5, 0.0, (True, 70, 52)),
    # no tile fits, or the two are not in one line: nothing
    (True, 20.0, 0.0, None),
    (True, 44.0, 0.0, None),
    (True, 35.0, 8.0, None),
    (False, 35.0, -8.0, None),
])
def test_a_hole_a_tile_wide_between_two_tiles_in_line_is_cut_as_that_tile(
        along_x, gap_mm, offset_mm, want):
    row = _row(along_x, gap_mm, offset_mm)
    got = tiles_in_holes(row, VIEW, PPM, along_x)
    if want is None:
        assert got == []
        return
    [tile] = got
    across, wide, tall = want
    x1, y1, x2, y2 = tile.box
    assert tile.across == across
    assert abs((x2 - x1) - wide) <= 1 and abs((y2 - y1) - tall) <= 1
    # in the middle of the hole, along the row
    along = 0 if along_x else 1
    hole = (row[0].box[along + 2] + row[1].box[along]) / 2
    assert abs(tile.centre[along] - hole) <= 1
    assert tile.score == 0.0 and tile.crop.shape[2] == 3


def test_tiles_edge_to_edge_leave_no_hole():
    assert tiles_in_holes(_row(True, 0.0) + [_tile(124, 100, 176, 170)], VIEW, PPM, True) == []
