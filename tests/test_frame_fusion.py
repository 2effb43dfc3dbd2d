"""A discard's reading fused over the frames that saw it in plain view: a frame misread (glare,
a sleeve at its edge) does not name the tile, a frame with a hand over it is never read, and
readings that disagree are never reported as sure."""
import numpy as np
import pytest

from referee.checks import DEFAULT_CONFIDENCE_THRESHOLD as SURE
from vision.camera.zones import default_zones
from vision.finding.found import Finding, FoundTile
from vision.tracking.readings import WeighedTracker
from vision.tracking.tracker import TableTracker

ZONES = default_zones()
PPM = 2.0
PERIOD = 33_333_333          # 30 fps
T0 = 10_000_000_000
#: a place in seat 0's pond (table mm), and the tile's box there in pixels
X, Y = 340.0, 520.0
#: what a frame reads: the tile (an 8p), glare making it a 7p, a sleeve's edge over it
RIGHT, GLARE, SLEEVE = ("8p", 0.95), ("7p", 0.97), ("3p", 0.6)
BOX = (int((X - 13) * PPM), int((Y - 17.5) * PPM), int((X + 13) * PPM), int((Y + 17.5) * PPM))


class Reader:
    """A classifier stand-in that reads each frame's crop as the film says: the crop's first
    pixel is the frame's number, ``readings[frame]`` its (label, probability); the rest of the
    probability is spread over the other labels. Notes every frame it was asked to read."""

    labels = ("3p", "7p", "8p", "9p", "2m", "back", "none")

    def __init__(self, readings):
        self.readings = readings
        self.asked = []

    def probabilities(self, crops):
        out = np.empty((len(crops), len(self.labels)))
        for row, crop in zip(out, crops):
            frame = int(crop[0, 0, 0])
            self.asked.append(frame)
            label, p = self.readings[frame]
            row[:] = (1 - p) / (len(self.labels) - 1)
            row[self.labels.index(label)] = p
        return out

    def classify(self, crops):
        return [(self.labels[int(np.argmax(r))], float(r.max()))
                for r in self.probabilities(crops)]


def film(readings, covered=(), fuse=True, weighed=False, then_covered=0, **kw):
    """Play one tile lying in seat 0's pond from frame 0 through ``len(readings)`` frames
    (``covered``: frames with a hand over it), then ``then_covered`` frames more with a hand
    over it; return the discards reported, each with the frame it was reported on, and the
    reader."""
    readings = list(readings) + [GLARE] * then_covered
    covered = set(covered) | set(range(len(readings) - then_covered, len(readings)))
    reader = Reader(readings)
    tracker = TableTracker(ZONES, reader, PPM, stable_frames=2, fuse=fuse, **kw)
    if weighed:
        tracker = WeighedTracker(tracker, SURE)
    size = int(800 * PPM)
    got = []
    for i in range(len(readings)):
        crop = np.full((70, 52, 3), 128, np.uint8)
        crop[0, 0, 0] = i
        hand = np.zeros((size, size), np.uint8)
        if i in covered:
            x1, y1, x2, y2 = BOX
            hand[y1 - 40:y1 + 20, x1 - 10:x2 + 10] = 255    # fingers over its top half
        finding = Finding([FoundTile(BOX, False, crop)], hand)
        got += [(e, i) for e in tracker.update(None, T0 + i * PERIOD, finding=finding)
                if e["type"] == "discard"]
    return got, reader


def t_of(frame):
    return (T0 + frame * PERIOD) / 1e9




@pytest.mark.parametrize("readings", [
    [GLARE, RIGHT, RIGHT, RIGHT, RIGHT, RIGHT],        # glare on the first frame read
    [RIGHT, GLARE, RIGHT, RIGHT, RIGHT, RIGHT],        # on the second
    [SLEEVE, RIGHT, RIGHT, RIGHT, RIGHT, RIGHT],       # a sleeve's edge over the first
    [RIGHT, SLEEVE, GLARE, RIGHT, RIGHT, RIGHT, RIGHT],
], ids=["glare-first", "glare-second", "sleeve-first", "sleeve-then-glare"])
def test_a_tile_misread_in_one_frame_and_read_right_in_the_others_is_reported_right(readings):
    got, _ = film(readings)
    assert [e["tile"] for e, _ in got] == ["8p"]
    event, at = got[0]
    assert event["t"] == t_of(0)                     # stamped with its first frame still
    assert at <= 4                                   # held for two or three more reads only


def test_a_tile_read_the_same_in_its_first_frames_is_reported_as_soon_as_without_fusion():
    readings = [RIGHT] * 5
    fused, _ = film(readings)
    single, _ = film(readings, fuse=False)
    assert [(e["tile"], at) for e, at in fused] == [(e["tile"], at) for e, at in single] == \
        [("8p", 1)]
    assert fused[0][0]["confidence"] >= SURE


def test_a_tile_covered_by_a_hand_in_its_first_frames_is_not_reported_from_them():
    # under the fingers the classifier would read it surely wrong; those frames are never read
    readings = [GLARE] * 3 + [RIGHT] * 4
    got, reader = film(readings, covered={0, 1, 2})
    assert [e["tile"] for e, _ in got] == ["8p"]
    assert not {0, 1, 2} & set(reader.asked)
    assert got[0][0]["confidence"] >= SURE


@pytest.mark.parametrize("readings", [
    [("7p", 0.95), ("8p", 0.95), ("7p", 0.95), ("8p", 0.95), ("7p", 0.95), ("8p", 0.95)],
    [("7p", 0.99), ("8p", 0.7), ("8p", 0.7)],
    [("7p", 0.9), ("8p", 0.99), ("7p", 0.9), ("8p", 0.99), ("3p", 0.9)],
    [("9p", 0.85), ("7p", 0.85), ("9p", 0.85), ("7p", 0.85), ("9p", 0.85)],
], ids=["alternating", "one-sure-two-unsure", "two-two-and-another", "two-kinds"])
def test_no_sure_reading_from_frames_that_disagree(readings):
    # whichever it names, the tile is reported once and unsure: a referee is asked, no
    # penalty is applied on it; its crop goes with it
    got, _ = film(readings, weighed=True, then_covered=25)
    assert len(got) == 1
    event, at = got[0]
    assert event["confidence"] < SURE
    assert event["crop"].startswith("data:image/jpeg")
    assert event["t"] == t_of(0)


def test_a_doubtful_tile_is_reported_within_the_wait_though_no_more_frames_come():
    # two frames that disagree, then a hand rests over it: reported when the wait is up,
    # not held while the hand stays
    readings = [("7p", 0.9), ("8p", 0.9)] + [RIGHT] * 40
    got, _ = film(readings, covered=set(range(2, 40)), fuse_wait_s=0.6)
    assert len(got) == 1
    event, at = got[0]
    assert at * PERIOD / 1e9 <= 0.6 + PERIOD / 1e9
    assert event["confidence"] < SURE


def test_a_reported_reading_stays_as_reported():
    # the journal and the rules core have the reported tile: later frames, read afresh as
    # the glare changes the crop, do not change what the tracker believes lies there
    reader = Reader([RIGHT, RIGHT] + [GLARE] * 5)
    tracker = TableTracker(ZONES, reader, PPM, stable_frames=2, fuse=True)
    size = int(800 * PPM)
    for i in range(7):
        crop = np.full((70, 52, 3), 100 + 20 * (i % 3), np.uint8)   # the glare changes it
        crop[0, 0, 0] = i
        tracker.update(None, T0 + i * PERIOD,
                       finding=Finding([FoundTile(BOX, False, crop)],
                                       np.zeros((size, size), np.uint8)))
    assert [t.label for t in tracker.tracks] == ["8p"]


def test_frames_that_agree_unsurely_make_no_sure_reading():
    # six looks at 0.75 each are six looks at one still tile, not six independent witnesses
    got, _ = film([("8p", 0.75)] * 6, weighed=True, then_covered=25)
    assert [e["tile"] for e, _ in got] == ["8p"]
    assert got[0][0]["confidence"] == pytest.approx(0.75)
