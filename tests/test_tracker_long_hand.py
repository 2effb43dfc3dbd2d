"""The tracker over a long rendered hand: ponds of 18 tiles and more, riichi tiles mid-row,
called tiles leaving gaps. (Apart from tests/test_tracker.py so the suite's processes can
watch this film and the others at once.)"""
import pytest
from test_tracker import _key

from vision.camera.zones import default_zones
from vision.synthesis.synthetic import ArtClassifier, long_hand_video
from vision.tracking.tracker import TableTracker

FPS = 10.0


@pytest.fixture(scope="module")
def long_played(shared_data):
    """The long hand watched as it is drawn; its 200 frames (1.5 GB) are not kept, only
    their times."""
    tracker = TableTracker(default_zones(), ArtClassifier(), px_per_mm=2.0, stable_frames=3)
    times, got = [], []

    def watch(frame, t_ns):
        times.append(t_ns)
        got.extend(tracker.update(frame, t_ns))

    _, expected, called = long_hand_video(fps=FPS, sink=watch)
    return times, expected, called, got, tracker


def test_long_hand_video_is_what_the_test_needs(long_played):
    """The script: every pond holds 18 or more tiles (a fourth row begun), three riichi
    tiles, three calls leaving gaps, occlusion frames."""
    _, expected, called, _, _ = long_played
    discards = [e for e in expected if e["type"] == "discard"]
    per_seat = [sum(1 for e in discards if e["seat"] == s) for s in range(4)]
    assert min(per_seat) >= 18 and max(per_seat) >= 19
    assert sorted((e["seat"], e["tile"]) for e in discards if e.get("riichi")) == \
        sorted([(3, discards[35]["tile"]), (1, discards[37]["tile"]),
                (0, discards[60]["tile"])])
    assert len(called) == 3


def test_long_hand_every_discard_once_at_its_first_frame(long_played):
    times, expected, _, got, _ = long_played
    want = [e for e in expected if e["type"] == "discard"]
    seen = [e for e in got if e["type"] == "discard"]
    # none missed, none reported twice or out of turn, riichi exactly where it lies sideways
    assert [_key(e) for e in seen] == [_key(e) for e in want]
    # the time of the first frame showing the tile: a claim window starts there
    assert [e["t"] for e in seen] == pytest.approx([e["t"] for e in want], abs=1e-9)
    frame_times = {t_ns / 1e9 for t_ns in times}
    assert all(any(abs(e["t"] - t) < 1e-9 for t in frame_times) for e in seen)


def test_long_hand_melds_and_the_tiles_called_away(long_played):
    _, expected, called, got, tracker = long_played
    assert [_key(e) for e in got if e["type"] == "meld"] == \
        [_key(e) for e in expected if e["type"] == "meld"]
    # only the called tiles left the ponds; the gaps they left made no phantom discards
    assert [(p["seat"], p["tile"]) for p in tracker.left_ponds] == called


