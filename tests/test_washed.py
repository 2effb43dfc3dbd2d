"""A part of the table a glare washes out is darkened before the finder looks at it, and
nothing else is touched (vision/finding/washed.py)."""
import numpy as np
import pytest

from vision.finding.washed import darkened

TILE_PX = 52        # a tile's width at 2 px/mm


def _table(felt, size=(400, 600)):
    view = np.empty(size + (3,), np.uint8)
    view[:] = felt
    return view


def _tile(view, x, y, face, ink):
    """An upright tile's face at (x, y) (its top left), with a bar of ink across it."""
    view[y:y + 70, x:x + 52] = face
    view[y + 30:y + 40, x + 10:x + 42] = ink


@pytest.mark.parametrize("felt, face, ink", [
    ((40, 90, 30), (200, 225, 235), (40, 40, 40)),         # ivory tiles on green felt
    ((190, 205, 215), (225, 240, 245), (60, 60, 60)),      # a light table, ink dark on it
    ((20, 20, 20), (250, 250, 250), (230, 230, 230)),      # a glare on one tile, felt dark
])
def test_a_table_no_glare_washes_out_is_left_as_it_is(felt, face, ink):
    view = _table(felt)
    for x in range(40, 560, 56):
        _tile(view, x, 150, face, ink)
    assert darkened(view, TILE_PX) is view


def test_a_washed_out_stretch_is_spread_to_the_full_range_and_the_rest_left_alone():
    # a glare over the left of the table: the felt 232-240, the faces burnt out, their ink
    # twenty levels under the felt; the right of the table lit as usual
    view = _table((60, 110, 50))
    view[:, :330] = (232, 236, 240)
    for x in (40, 96, 152):
        _tile(view, x, 150, (255, 255, 255), (212, 214, 216))
    _tile(view, 480, 150, (200, 225, 235), (40, 40, 40))
    out = darkened(view, TILE_PX)
    felt, ink, face = out[100, 120].astype(int), out[185, 110].astype(int), out[160, 100]
    assert (felt - ink).min() >= 60, (felt, ink)       # the ink stands out of the felt again
    assert face.min() == 255                            # a burnt-out face stays white
    # a tile's width and a half from the glare's edge on, the picture is as it was
    assert np.array_equal(out[:, 410:], view[:, 410:])


@pytest.mark.usefixtures("shared_data")
def test_the_ponds_under_a_burnt_out_glare_are_found_and_read():
    """The film's table 10 (``SolidTable(10)``) has a lamp's glare burnt out over the middle
    of the table, seats 2 and 3's ponds under it. Drawn with six tiles in each, the finder
    found 6 of the 12 before they were darkened, 10 after, each read right."""
    from vision.camera.zones import default_zones
    from vision.finding.learned import find_tiles_topdown, shared_finder
    from vision.reading.classifier import TileClassifier
    from vision.synthesis.solid_table import SolidTable
    from vision.synthesis.synthetic import TableState

    ppm = 2.0
    laid = {2: ["7p", "1m", "6s", "1p", "5s", "8p"], 3: ["8p", "7z", "5z", "3s", "1m", "7s"]}
    state = TableState(walls=True)
    for seat, tiles in laid.items():
        state.ponds[seat] = [(t, False) for t in tiles]
    view = SolidTable(seed=10).render(state)
    found = find_tiles_topdown(view, ppm, shared_finder(), 48).tiles
    reader = TileClassifier(threads=1)
    read = []
    for seat, tiles in laid.items():
        zone = next(z for z in default_zones() if z.kind == "pond" and z.seat == seat)
        x1, y1, x2, y2 = (ppm * v for v in zone.rect)
        there = [t for t in found if x1 <= t.centre[0] <= x2 and y1 <= t.centre[1] <= y2]
        labels = [label for label, _ in reader.classify([t.crop for t in there])] if there else []
        assert set(labels) <= set(tiles), (seat, labels)
        read += labels
    assert len(read) >= 10, read


def test_the_table_camera_knows_which_zones_a_glare_washes_out():
    """The zone finder measures, each time it searches a zone the table reads, how much of it a
    glare washes out, and the camera feed names those over a tenth: what the dashboard's
    "view" shows the referee while the table runs."""
    import cv2

    from vision.camera.zones import default_zones
    from vision.finding.found import Finding
    from vision.tracking.service_feed import CameraFeed
    from vision.tracking.zone_finder import ZoneFinder

    view = _table((60, 110, 50), (1600, 1600))
    lit = np.zeros(view.shape[:2], np.uint8)
    cv2.ellipse(lit, (790, 460), (260, 200), 0, 0, 360, 255, -1)     # over seat 2's pond
    view[lit > 0] = (236, 240, 244)
    zones = ZoneFinder(2.0, find=lambda picture, s: Finding([], np.zeros(picture.shape[:2], np.uint8)))
    zones(view, default_zones())
    assert zones.washed["pond2"] > 0.8
    assert "hand2" not in zones.washed
    assert {name for name, share in zones.washed.items() if share >= 0.1} == {"pond2"}

    class Watch:
        find = zones

    ok, text = CameraFeed(iter(()), Watch(), None).view_health()
    assert not ok and "pond2 (" in text and "pond3" not in text
    zones(_table((60, 110, 50), (1600, 1600)), default_zones())   # the lamp moved
    assert CameraFeed(iter(()), Watch(), None).view_health() == (True, "")
