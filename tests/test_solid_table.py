"""The table camera's default path on a table that looks like a real one: solid tiles with
coloured sides on a table top the finder never trained on, seen by a camera above the table
and warped top-down (vision/solid_table.py), read by the tracker with the learned finder."""
import pytest

from vision.synthetic import TableState
from vision.zones import default_zones


@pytest.fixture(scope="module")
def table(shared_data):
    # the faces are the shared tile art
    from vision.solid_table import SolidTable
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
    from vision.classifier import TileClassifier
    from vision.service_feed import table_finder
    from vision.tracker import TableTracker

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
        for _ in range(3):
            t += 100_000_000
            got += tracker.update(frame, t)
    assert [(e["type"], e["seat"], e["tile"], bool(e.get("riichi"))) for e in got] == \
        [("discard", s, tile, r) for s, tile, r in plays]
