"""The table camera's default path on a table that looks like a real one: solid tiles with
coloured sides on a table top the finder never trained on, seen by a camera above the table
and warped top-down (vision/synthesis/solid_table.py), read by the tracker with the learned finder."""
import pytest

from vision.camera.zones import default_zones
from vision.synthesis.synthetic import TableState


@pytest.fixture(scope="module")
def table(shared_data):
    # the faces are the shared tile art
    from vision.synthesis.solid_table import SolidTable
    return SolidTable(seed=1)


def test_a_solid_table_is_drawn_top_down_at_the_trackers_scale(table):
    state = TableState(walls=False)
    state.ponds[0] = [("1m", False)]
    view = table.render(state)
    assert view.shape == (1600, 1600, 3)
    # a still table gives the same picture frame after frame, less the sensor's noise
    again = table.render(state)
    assert abs(view.astype(int) - again.astype(int)).mean() < 3


def test_every_discard_on_a_solid_table_is_read_once(table):
    """A few discards from every seat, a riichi among them, through the tracker with the
    finder the table service reads its camera with by default."""
    from vision.reading.classifier import TileClassifier
    from vision.tracking.service_feed import table_finder
    from vision.tracking.tracker import TableTracker

    tracker = TableTracker(default_zones(), TileClassifier(threads=1), px_per_mm=2.0,
                           stable_frames=3, finder=table_finder("table.toml", {}))
    state = TableState(walls=False)
    plays = [(0, "3m", False), (1, "9p", False), (2, "7z", False), (3, "2s", False),
             (0, "1z", False), (1, "5s", False), (2, "4p", True), (3, "8m", False),
             (0, "6s", False), (1, "2z", False), (2, "9s", False), (3, "1p", False)]
    got, t = [], 0
    for seat, tile, riichi in plays:
        state.ponds[seat].append((tile, riichi))
        frame = table.render(state)
        # the three frames of a play are one picture: the finder would find the same tiles in
        # each, so it looks once, as the demo's camera does
        finding = tracker.find_tiles(frame, 2.0)
        for _ in range(3):
            t += 100_000_000
            got += tracker.update(frame, t, finding=finding)
    assert [(e["type"], e["seat"], e["tile"], bool(e.get("riichi"))) for e in got] == \
        [("discard", s, tile, r) for s, tile, r in plays]


@pytest.mark.parametrize("pond", [("2z", "6z", "4z"), ("9p", "6s", "8s", "9p")])
def test_a_discard_laid_against_the_last_is_found_beside_it(table, pond):
    """Seat 0's pond on table 0 as it was at two discards of the first Tenhou game that the
    finder boxed, with the tile laid against them, as one tile lying across, too big for
    one: the new discard went unseen and the one before it was reported again later
    (bench/demo_vision.py --tiles solid --seed 0). Each tile is found upright, once."""
    import numpy as np

    from vision.finding.learned import find_tiles_topdown, shared_finder
    from vision.synthesis.solid_table import SolidTable

    state = TableState(walls=False)
    state.ponds[0] = [(tile, False) for tile in pond]
    # table 0, drawn with the art the module's table loaded (0.7 s of CPU a load)
    view = SolidTable(seed=0, art=table.art).render(state)
    pond_zone = [z for z in default_zones() if z.kind == "pond" and z.seat == 0][0]
    x1, y1, x2, y2 = (2 * v for v in pond_zone.rect)
    found = [t for t in find_tiles_topdown(view, 2.0, shared_finder()).tiles
             if x1 <= t.quad.mean(axis=0)[0] <= x2 and y1 <= t.quad.mean(axis=0)[1] <= y2]
    assert [t.across for t in found] == [False] * len(pond)
    xs = sorted(float(t.quad.mean(axis=0)[0]) for t in found)
    assert np.diff(xs).min() > 40          # a tile apart (52 px), none found twice


def test_touching_ponds_are_read_tile_by_tile_wherever_the_table_lies(shared_data):
    """Four ponds of 4-14 discards laid edge to edge (a riichi tile across in some) on two
    tables, each view read at 4 placements, 2 pixels apart, across the finder's grid of 4 of
    its pixels (some 6.5 of the view's; testkit/solid_ponds.py, and bench/solid_ponds.py
    measures more). Every discard is found once, with no box in a pond on nothing: a missed
    tile is a discard never seen, a false box a discard never made. Lying across or upright
    can come out wrong for a square-ish face (9p, North, a blank) at a placement; the tracker
    takes the way a tile lies by the most of its sightings. Measured: the shipped finder and
    five retrained ones all find 352 of 352 once, none false, and turn 0.983-0.989 of them
    right."""
    from testkit.solid_ponds import measure
    from vision.finding.learned import shared_finder
    from vision.reading.classifier import TileClassifier

    got = measure(shared_finder(), TileClassifier(threads=1), tables=2, shifts=4, step=2,
                  seed=0, styles=("Regular",), log=lambda *_: None)
    assert got["tiles"] == 352
    assert got["found_once"] == 1.0 and got["false_boxes"] == 0, got
    assert got["turned_right"] >= 0.97, got


def test_a_table_told_its_set_is_dark_reads_the_dark_ponds(shared_data):
    """``[camera] finder = "dark"``: the same ponds of a set whose faces are dark with light
    ink (the art's Black style), one table at 4 placements. The default finder finds 0.82 of
    them once here and boxes 5 places on nothing; the one for dark faces finds every one
    (measured 180 of 180) and turns 0.98 of them right. It boxes a place or two beside the
    ponds (measured 2), each read as no tile or a face-down one, which the tracker reports as
    no discard; a box there read as a face would be a false discard."""
    from testkit.solid_ponds import measure
    from vision.reading.classifier import TileClassifier
    from vision.tracking.service_feed import table_finder

    finder = table_finder("table.toml", {"finder": "dark"})
    got = measure(finder, TileClassifier(threads=1), tables=1, shifts=4, step=2, seed=0,
                  styles=("Black",), log=lambda *_: None)
    assert got["tiles"] == 180
    assert got["found_once"] >= 0.95 and got["turned_right"] >= 0.95, got
    assert got["false_faces"] == 0 and got["false_boxes"] <= 2, got
