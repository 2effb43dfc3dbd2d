"""The tracker turns a video of a hand being played into the table events a referee needs."""
import pytest

from referee.events import parse_event
from referee.tiles import TILE_CODES
from vision.synthetic import ArtClassifier, Hand, TableState, hand_video, render_state
from vision.tracker import TableTracker
from vision.zones import default_zones

FPS = 10.0


@pytest.fixture(scope="module")
def played():
    frames, expected = hand_video(fps=FPS)
    tracker = TableTracker(default_zones(), ArtClassifier(), px_per_mm=2.0, stable_frames=3)
    got = []
    for frame, t_ns in frames:
        got += tracker.update(frame, t_ns)
    return frames, expected, got, tracker


def _key(e):
    keys = {"discard": ("seat", "tile", "riichi"), "meld": ("seat", "kind", "tiles", "called",
                                                             "from"),
            "dora": ("indicator",), "reveal": ("seat", "tiles", "win_tile")}[e["type"]]
    return (e["type"],) + tuple(str(e.get(k)) for k in keys)


def test_every_discard_once_with_the_time_of_its_first_frame(played):
    _, expected, got, _ = played
    want = [e for e in expected if e["type"] == "discard"]
    seen = [e for e in got if e["type"] == "discard"]
    assert [_key(e) for e in seen] == [_key(e) for e in want]   # none missed, none extra
    for g, w in zip(seen, want):
        assert g["t"] == pytest.approx(w["t"], abs=1e-9)


def test_riichi_only_for_the_sideways_discard(played):
    _, _, got, _ = played
    riichi = [e for e in got if e.get("riichi")]
    assert [(e["seat"], e["tile"]) for e in riichi] == [(2, "2m")]


def test_meld_dora_and_reveal_events(played):
    _, expected, got, _ = played
    others = [e for e in got if e["type"] != "discard"]
    assert [_key(e) for e in others] == [_key(e) for e in expected if e["type"] != "discard"]
    meld = next(e for e in got if e["type"] == "meld")
    assert meld["t"] == pytest.approx(next(e["t"] for e in expected if e["type"] == "meld"))


def test_the_called_tile_left_the_pond(played):
    _, _, _, tracker = played
    assert [(p["seat"], p["tile"]) for p in tracker.left_ponds] == [(1, "8p")]


def test_events_follow_the_format_and_carry_confidence(played):
    _, _, got, _ = played
    for e in got:
        parse_event(dict(e))
        assert 0.0 < e["confidence"] <= 1.0


def test_the_first_indicator_is_kept_for_hand_start(played):
    _, _, got, tracker = played
    assert tracker.first_dora == "3p"
    assert "3p" not in [e.get("indicator") for e in got]


def _run(tracker, frames):
    out = []
    for i, frame in enumerate(frames):
        out += tracker.update(frame, 1_000_000_000 + i * 100_000_000)
    return out


def test_a_hand_passing_over_the_table_makes_no_event():
    state = TableState(dora=["1s"])
    state.ponds[0] = [("5m", False), ("6m", False)]
    state.ponds[1] = [("7z", False)]
    tracker = TableTracker(default_zones(), ArtClassifier())
    quiet = render_state(state)
    _run(tracker, [quiet] * 4)
    frames = [render_state(state, [Hand(150 + 90 * k, 560 - 25 * k, 0, 70)], seed=k)
              for k in range(7)] + [quiet] * 5
    assert _run(tracker, frames) == []


def test_a_face_down_tile_in_a_pond_is_not_a_discard():
    state = TableState(walls=False)
    state.ponds[3] = [("back", False), ("2p", False)]
    events = _run(TableTracker(default_zones(), ArtClassifier()), [render_state(state)] * 5)
    assert [(e["type"], e["seat"], e["tile"]) for e in events] == [("discard", 3, "2p")]


def test_a_glimpse_shorter_than_stable_frames_is_not_a_discard():
    empty = TableState(walls=False)
    once = TableState(walls=False)
    once.ponds[0] = [("9p", False)]
    tracker = TableTracker(default_zones(), ArtClassifier(), stable_frames=3)
    frames = [render_state(empty)] * 2 + [render_state(once)] * 2 + [render_state(empty)] * 5
    assert _run(tracker, frames) == []


class StubClassifier:
    """Says every crop is a 4s: the tracker's logic without the art."""

    def classify(self, crops):
        return [("4s", 0.9) for _ in crops]


def test_tracker_works_with_any_classifier_interface():
    state = TableState(walls=False)
    state.ponds[2] = [("1m", False)]
    events = _run(TableTracker(default_zones(), StubClassifier()), [render_state(state)] * 4)
    assert [(e["seat"], e["tile"], e["confidence"]) for e in events
            if e["type"] == "discard"] == [(2, "4s", 0.9)]


def test_with_the_trained_classifier():
    from vision.classifier import DEFAULT_MODEL, TileClassifier
    if not DEFAULT_MODEL.is_file():
        pytest.skip(f"tile model {DEFAULT_MODEL} not built yet (python -m vision.train)")
    frames, expected = hand_video(fps=FPS)
    tracker = TableTracker(default_zones(), TileClassifier(threads=2))
    got = []
    for frame, t_ns in frames:
        got += tracker.update(frame, t_ns)
    want = [_key(e) for e in expected if e["type"] == "discard"]
    assert [_key(e) for e in got if e["type"] == "discard"] == want
    assert all(e["tile"] in TILE_CODES for e in got if e["type"] == "discard")
