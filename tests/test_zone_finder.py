"""The table service's finder, zone by zone (vision/tracking/zone_finder.py): a pond's finder is
told which way its rows run."""
import numpy as np

from vision.camera.zones import default_zones
from vision.finding.found import Finding
from vision.tracking.zone_finder import ZoneFinder


def test_each_ponds_finder_is_told_its_rows_run_along_its_seats_edge():
    """Seat 0's and seat 2's ponds run left to right in the top-down view, seat 1's and seat
    3's top to bottom: touching discards are cut apart only along a row
    (vision.finding.learned.split_pairs). Melds and hands are found as before, and a finder
    that knows no rows (the felt finder's) is never asked about them."""
    asked = []

    def find(view, px_per_mm, rows_along=None):
        asked.append(rows_along)
        return Finding([], np.zeros(view.shape[:2], np.uint8))

    zones = default_zones()
    view = np.zeros((1600, 1600, 3), np.uint8)
    ZoneFinder(2.0, find=find, pond_rows=True)(view, zones)
    ponds = {z.seat: rows for z, rows in zip(zones, asked) if z.kind == "pond"}
    assert ponds == {0: 0, 1: 1, 2: 0, 3: 1}
    assert all(rows is None for z, rows in zip(zones, asked) if z.kind != "pond")
    asked.clear()
    ZoneFinder(2.0, find=lambda view, px_per_mm: find(view, px_per_mm))(view, zones)
    assert asked == [None] * len(zones)
