"""The tracker turns a video of a hand being played into the table events a referee needs."""
import pytest

from referee.events import parse_event
from referee.tiles import TILE_CODES
from vision.camera.zones import default_zones
from vision.synthesis.synthetic import (
    ArtClassifier,
    Hand,
    TableState,
    hand_video,
    render_state,
    render_topdown,
    to_seat,
)
from vision.tracking.tracker import TableTracker

FPS = 10.0


@pytest.fixture(scope="module")
def watched(shared_data):
    """The scripted hand watched, as it is drawn, by a tracker reading with the art matcher
    and (when it is built) one reading with the shipped model: the frames are drawn once for
    both, and never all kept (some 100 full-table frames are 770 MB)."""
    # Reading rendered tiles needs the shared tile art: without it they are placeholders.
    from vision.reading.classifier import DEFAULT_MODEL, TileClassifier

    trackers = {"art": TableTracker(default_zones(), ArtClassifier(), px_per_mm=2.0,
                                    stable_frames=3)}
    if DEFAULT_MODEL.is_file():
        trackers["model"] = TableTracker(default_zones(), TileClassifier(threads=2))
    got = {name: [] for name in trackers}

    def watch(frame, t_ns):
        # both read the tiles the felt finder finds (neither has a finder of its own): found
        # once per frame for both, as a zone finder hands them over
        finding = trackers["art"].find_tiles(frame, 2.0)
        for name, tracker in trackers.items():
            got[name] += tracker.update(frame, t_ns, finding=finding)

    _, expected = hand_video(fps=FPS, sink=watch)
    return expected, got, trackers


@pytest.fixture(scope="module")
def played(watched):
    expected, got, trackers = watched
    return expected, got["art"], trackers["art"]


def _key(e):
    keys = {"discard": ("seat", "tile", "riichi"), "meld": ("seat", "kind", "tiles", "called",
                                                             "from"),
            "dora": ("indicator",), "reveal": ("seat", "tiles", "win_tile")}[e["type"]]
    return (e["type"],) + tuple(str(e.get(k)) for k in keys)


def test_every_discard_once_with_the_time_of_its_first_frame(played):
    expected, got, _ = played
    want = [e for e in expected if e["type"] == "discard"]
    seen = [e for e in got if e["type"] == "discard"]
    assert [_key(e) for e in seen] == [_key(e) for e in want]   # none missed, none extra
    for g, w in zip(seen, want):
        assert g["t"] == pytest.approx(w["t"], abs=1e-9)


def test_riichi_only_for_the_sideways_discard(played):
    _, got, _ = played
    riichi = [e for e in got if e.get("riichi")]
    assert [(e["seat"], e["tile"]) for e in riichi] == [(2, "2m")]


def test_meld_dora_and_reveal_events(played):
    expected, got, _ = played
    others = [e for e in got if e["type"] != "discard"]
    assert [_key(e) for e in others] == [_key(e) for e in expected if e["type"] != "discard"]
    meld = next(e for e in got if e["type"] == "meld")
    assert meld["t"] == pytest.approx(next(e["t"] for e in expected if e["type"] == "meld"))


def test_the_called_tile_left_the_pond(played):
    _, _, tracker = played
    assert [(p["seat"], p["tile"]) for p in tracker.left_ponds] == [(1, "8p")]


def test_events_follow_the_format_and_carry_confidence(played):
    _, got, _ = played
    for e in got:
        parse_event(dict(e))
        assert 0.0 < e["confidence"] <= 1.0


def test_the_first_indicator_is_kept_for_hand_start(played):
    _, got, tracker = played
    assert tracker.first_dora == "3p"
    assert "3p" not in [e.get("indicator") for e in got]


def _update(tracker, frame, t_ns, found):
    """``tracker.update`` of a frame; a picture shown again (a still table: ``[picture] * 4``)
    is not looked for tiles again, as the demo's camera does not: the finder would find the
    same ones (``found``: the findings of the film so far, by picture)."""
    if id(frame) not in found:
        found[id(frame)] = (frame, tracker.find_tiles(frame, tracker.px_per_mm))
    return tracker.update(frame, t_ns, finding=found[id(frame)][1])


def _run(tracker, frames):
    out, found = [], {}
    for i, frame in enumerate(frames):
        out += _update(tracker, frame, 1_000_000_000 + i * 100_000_000, found)
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


def test_with_the_trained_classifier(watched):
    from vision.reading.classifier import DEFAULT_MODEL
    expected, got, trackers = watched
    if "model" not in trackers:
        pytest.skip(f"tile model {DEFAULT_MODEL} not built yet (python -m vision.training.train)")
    got = got["model"]
    want = [_key(e) for e in expected if e["type"] == "discard"]
    assert [_key(e) for e in got if e["type"] == "discard"] == want
    assert all(e["tile"] in TILE_CODES for e in got if e["type"] == "discard")


def test_an_older_pond_tile_unread_for_a_while_is_not_reported_again(shared_data):
    """A tile the camera fails to read for some frames (glare, a bad crop) is still in the
    pond: only a seat's latest discard can leave it (by a call)."""
    full = TableState(walls=False)
    full.ponds[0] = [("5m", False), ("6p", False), ("7s", False)]
    glare = full.copy()
    glare.ponds[0][1] = (None, False)        # the 6p not found in these frames
    called = full.copy()
    called.ponds[0].pop()                    # the 7s called away
    tracker = TableTracker(default_zones(), ArtClassifier(), stable_frames=3, gone_frames=3)
    first = _run(tracker, [render_state(full)] * 4)
    assert [(e["seat"], e["tile"]) for e in first] == [(0, "5m"), (0, "6p"), (0, "7s")]
    again = _run(tracker, [render_state(glare)] * 5 + [render_state(full)] * 5)
    assert again == []
    assert tracker.left_ponds == []
    assert _run(tracker, [render_state(called)] * 4) == []
    assert [(p["seat"], p["tile"]) for p in tracker.left_ponds] == [(0, "7s")]


# -- kans in the meld area ------------------------------------------------------------------------

def _film(tracker, frames, start):
    """Feed frames 100 ms apart from frame number ``start``; the events and the next number."""
    out, found = [], {}
    for i, frame in enumerate(frames, start):
        out += _update(tracker, frame, 1_000_000_000 + i * 100_000_000, found)
    return out, start + len(frames)


def test_a_pon_that_gains_its_fourth_tile_becomes_an_added_kan(shared_data):
    """Seat 1 pons a 3m from its left, later adds the fourth 3m on the sideways tile: the
    camera reports the pon, then the same group again as a shouminkan, and nothing else."""
    state = TableState(walls=False)
    state.melds[1] = [(["3m", "3m", "3m"], 0, None)]
    tracker = TableTracker(default_zones(), ArtClassifier(), stable_frames=3)
    pon, n = _film(tracker, [render_state(state)] * 6, 0)
    assert [_key(e) for e in pon] == [("meld", "1", "pon", str(["3m"] * 3), "3m", "0")]
    # the player's hand brings the fourth tile, hiding the meld for two frames
    x, y = to_seat(650, 780, 1, 800)
    brought, n = _film(tracker, [render_state(state, [Hand(x, y, 1)], seed=k) for k in range(2)], n)
    assert brought == []
    state.melds[1] = [(["3m", "3m", "3m"], 0, "3m")]
    first_frame = n
    kan, n = _film(tracker, [render_state(state)] * 6, n)
    assert [_key(e) for e in kan] == [("meld", "1", "shouminkan", str(["3m"] * 4), "3m", "0")]
    # the kan is timed at the first frame that showed the added tile
    assert kan[0]["t"] == pytest.approx(1.0 + first_frame * 0.1)
    assert len(tracker.melds[1]) == 1
    parse_event(dict(kan[0]))


def _meld_tiles(state, seat):
    """The placed tiles of ``state`` and, among them, those of ``seat``'s melds."""
    bare = state.copy()
    bare.melds[seat] = []
    placed = state.tiles()
    others = {(t.code, round(t.x, 3), round(t.y, 3)) for t in bare.tiles()}
    return placed, [t for t in placed if (t.code, round(t.x, 3), round(t.y, 3)) not in others]


def test_a_meld_tile_lost_for_a_while_and_found_again_is_no_new_meld(shared_data):
    """The finder loses one tile of a reported pon for long enough that the tracker lets it
    go (a blank white dragon between two others, an arm's shadow), then finds it again: the
    pon is still the one reported, not a second call."""
    state = TableState(walls=False)
    state.melds[1] = [(["5z", "5z", "5z"], 0, None)]
    placed, meld = _meld_tiles(state, 1)
    tracker = TableTracker(default_zones(), ArtClassifier(), stable_frames=3)
    pon, n = _film(tracker, [render_topdown(placed)] * 6, 0)
    assert [_key(e) for e in pon] == [("meld", "1", "pon", str(["5z"] * 3), "5z", "0")]
    lost = [t for t in placed if t is not meld[1]]
    gone, n = _film(tracker, [render_topdown(lost)] * (tracker.gone_frames + 3), n)
    found, n = _film(tracker, [render_topdown(placed)] * 6, n)
    assert gone + found == []
    assert len(tracker.melds[1]) == 1


def test_a_tile_set_down_against_a_meld_does_not_change_it(shared_data):
    """A chii is reported; the first tile of the next meld put down touching it is no open
    kan, and the next meld, laid against it, is a meld of its own."""
    chii = TableState(walls=False)
    chii.melds[1] = [(["2s", "3s", "4s"], 0, None)]
    tracker = TableTracker(default_zones(), ArtClassifier(), stable_frames=3)
    first, n = _film(tracker, [render_state(chii)] * 6, 0)
    assert [_key(e) for e in first] == [("meld", "1", "chii", str(["2s", "3s", "4s"]), "2s", "0")]
    # the same chii, right-aligned from the corner as before, with tiles laid to its left
    stray = TableState(walls=False)
    stray.melds[1] = [(["5m", "2s", "3s", "4s"], 1, None)]
    after_stray, n = _film(tracker, [render_state(stray)] * 6, n)
    assert after_stray == []
    pon = TableState(walls=False)
    pon.melds[1] = [(["5m", "5m", "5m", "2s", "3s", "4s"], 3, None)]
    after_pon, n = _film(tracker, [render_state(pon)] * 6, n)
    assert [(e["kind"], e["tiles"]) for e in after_pon] == [("pon", ["5m"] * 3)]
    assert [m["kind"] for m in tracker.melds[1]] == ["chii", "pon"]
    # and a third, laid against the pon: all three touch, each is its own meld
    third = TableState(walls=False)
    third.melds[1] = [(["7p", "8p", "9p", "5m", "5m", "5m", "2s", "3s", "4s"], 6, None)]
    after_third, n = _film(tracker, [render_state(third)] * 6, n)
    assert [(e["kind"], e["tiles"]) for e in after_third] == [("chii", ["7p", "8p", "9p"])]
    assert [m["kind"] for m in tracker.melds[1]] == ["chii", "pon", "chii"]


@pytest.mark.parametrize("shown, tiles", [
    (["6s", "6s"], ["6s"] * 4),
    # a red five shown in the middle is reported; the face-down ends are plain as far as
    # anyone can see
    (["0p", "5p"], ["0p", "5p", "5p", "5p"]),
])
def test_a_closed_kan_with_face_down_ends_is_an_ankan(shared_data, shown, tiles):
    state = TableState(walls=False)
    state.melds[2] = [(["back", *shown, "back"], None, None)]
    got, _ = _film(TableTracker(default_zones(), ArtClassifier(), stable_frames=3),
                   [render_state(state)] * 6, 0)
    assert [(e["type"], e["seat"], e["kind"]) for e in got] == [("meld", 2, "ankan")]
    assert sorted(got[0]["tiles"]) == sorted(tiles)
    assert "from" not in got[0] and "called" not in got[0]


def test_a_tracker_given_the_learned_finder_reads_its_tiles_through_it():
    """The calibrated view goes to the felt-colour finder unless a learned one is given; given
    one, every tile the tracker believes is one that finder found, its face cut at the size
    the classifier reads."""
    import numpy as np

    from vision.finding.found import Finding, FoundTile

    zones = default_zones()
    pond = next(z for z in zones if z.kind == "pond" and z.seat == 0)
    x1, y1, x2, y2 = (round(v * 2.0) for v in pond.rect)
    box = (x1 + 10, y1 + 10, x1 + 10 + 52, y1 + 10 + 70)

    class Finder:
        calls = 0
        widths = set()

        def find(self, image, scale, quick_shrink=False, crop_width=None, faint=None):
            Finder.calls += 1
            Finder.widths.add(crop_width)
            quad = np.float32([[box[0], box[1]], [box[2], box[1]], [box[2], box[3]], [box[0], box[3]]])
            return Finding([FoundTile(box, False, np.full((70, 52, 3), 230, np.uint8), quad)],
                           np.zeros(image.shape[:2], np.uint8))

    class Reader:
        input_width = 48

        def classify(self, crops):
            return [("5p", 0.99) for _ in crops]

    blank = np.full((1600, 1600, 3), (40, 110, 40), np.uint8)   # bare felt: nothing to find
    felt = TableTracker(zones, Reader(), px_per_mm=2.0)
    assert [e for k in range(4) for e in felt.update(blank, k * 100_000_000)] == []
    learned = TableTracker(zones, Reader(), px_per_mm=2.0, finder=Finder())
    got = [e for k in range(4) for e in learned.update(blank, k * 100_000_000)]
    assert Finder.calls == 4
    assert Finder.widths == {48}   # faces cut once, at the size the classifier reads
    assert [(e["type"], e["seat"], e["tile"]) for e in got] == [("discard", 0, "5p")]


@pytest.mark.parametrize("heat, read, reported", [
    (0.21, ("5z", 0.49), False),    # a dark seat light seen faintly, read as a dark blank
    (0.21, ("5z", 0.97), True),     # a blank white dragon the finder barely sees
    (0.6, ("5z", 0.49), True),      # a tile the finder calls one: read unsure, still a tile
    (0.0, ("5z", 0.49), True),      # a meld's hole (score 0) is weighed by its own rule
])
def test_a_place_seen_faintly_is_a_tile_only_where_it_is_read_surely(heat, read, reported):
    """The finder calls a place a tile from heat 0.3; below it, from 0.2, the tracker cuts
    the place for the classifier to say (a blank white dragon shows only its outline). On the
    film's second table the dark seat light of an automatic table's centre panel reaches into
    seat 1's pond, and its end, at heat 0.21, read as the Black set's blank at 0.46-0.49 was
    reported as a discard at the hand's start. What the finder barely saw is a tile only where
    the classifier is sure enough of it (FAINT_READ)."""
    import numpy as np

    from vision.finding.found import Finding, FoundTile

    zones = default_zones()
    pond = next(z for z in zones if z.kind == "pond" and z.seat == 1)
    x1, y1 = (round(v * 2.0) for v in pond.rect[:2])
    box = (x1 + 4, y1 + 10, x1 + 4 + 70, y1 + 10 + 52)       # lying across, at its inner edge
    quad = np.float32([[box[0], box[1]], [box[2], box[1]], [box[2], box[3]], [box[0], box[3]]])

    class Finder:
        threshold = 0.3

        def find(self, image, scale, quick_shrink=False, crop_width=None, faint=None):
            tile = FoundTile(box, True, np.full((52, 70, 3), 40, np.uint8), quad, heat)
            return Finding([tile], np.zeros(image.shape[:2], np.uint8))

    class Reader:
        input_width = 48

        def classify(self, crops):
            return [read for _ in crops]

    tracker = TableTracker(zones, Reader(), px_per_mm=2.0, finder=Finder())
    view = np.full((1600, 1600, 3), (60, 60, 90), np.uint8)
    got = [e for k in range(6) for e in tracker.update(view, k * 100_000_000)]
    assert [(e["seat"], e["tile"]) for e in got if e["type"] == "discard"] == \
        ([(1, "5z")] if reported else [])


@pytest.mark.parametrize("past_the_edge", [0, 6])
def test_a_tile_at_the_far_edge_is_not_read_while_a_hand_touches_it(past_the_edge):
    """A meld lies at the table's far edge, and its tiles can be boxed a little past the
    view's top. While the player's hand touches one, its face is not a clear view and must
    not be read (half a face is another tile); once the hand has gone, it is read."""
    import numpy as np

    from vision.finding.found import Finding, FoundTile

    zones = default_zones()
    meld = next(z for z in zones if z.kind == "meld" and z.seat == 2)
    x1 = round(meld.rect[0] * 2.0) + 60
    y1 = round(meld.rect[1] * 2.0) - 20 - past_the_edge     # the view's top, or past it
    box = (x1, y1, x1 + 52, y1 + 70)
    quad = np.float32([[box[0], box[1]], [box[2], box[1]], [box[2], box[3]], [box[0], box[3]]])
    hand = [True] * 4 + [False] * 4

    class Finder:
        frame = 0

        def find(self, image, scale, quick_shrink=False, crop_width=None, faint=None):
            occluded = np.zeros(image.shape[:2], np.uint8)
            if hand[Finder.frame]:
                occluded[box[1] + 40:box[1] + 90, box[0] - 30:box[2] + 30] = 255
            Finder.frame += 1
            return Finding([FoundTile(box, False, np.full((70, 52, 3), 230, np.uint8), quad)],
                           occluded)

    class Reader:
        input_width = 48

        def classify(self, crops):
            return [("6s", 0.97) for _ in crops]

    tracker = TableTracker(zones, Reader(), px_per_mm=2.0, finder=Finder())
    blank = np.full((1600, 1600, 3), (40, 110, 40), np.uint8)
    for k in range(4):
        tracker.update(blank, k * 100_000_000)
    assert tracker.tracks == []
    for k in range(4, 8):
        tracker.update(blank, k * 100_000_000)
    assert [t.label for t in tracker.tracks] == ["6s"]


def _a_1p_seen_turned(cx, cy, turned):
    """A finder that sees a tile centred at (``cx``, ``cy``) (view pixels) lying across the
    view in the frames where ``turned`` says so, upright in the others; and a reader that
    reads it a 1p."""
    import numpy as np

    from vision.finding.found import Finding, FoundTile

    class Finder:
        frame = 0

        def find(self, image, scale, quick_shrink=False, crop_width=None, faint=None):
            across = turned[self.frame]
            self.frame += 1
            w, h = (70, 52) if across else (52, 70)
            box = (cx - w // 2, cy - h // 2, cx + w // 2, cy + h // 2)
            quad = np.float32([[box[0], box[1]], [box[2], box[1]], [box[2], box[3]], [box[0], box[3]]])
            return Finding([FoundTile(box, across, np.full((70, 52, 3), 230, np.uint8), quad)],
                           np.zeros(image.shape[:2], np.uint8))

    class Reader:
        input_width = 48

        def classify(self, crops):
            return [("1p", 0.97) for _ in crops]

    return Finder(), Reader()


def test_a_discard_the_finder_sees_turned_in_some_frames_is_reported_once():
    """A square-ish face (a 1p, a blank white dragon) can come out of the finder lying across
    in one frame and upright in the next: it is one tile, one discard, and the flag a
    referee sees is how most sightings had it when it was reported."""
    import numpy as np

    zones = default_zones()
    pond = next(z for z in zones if z.kind == "pond" and z.seat == 0)
    x1, y1 = (round(v * 2.0) for v in pond.rect[:2])
    cx, cy = x1 + 40, y1 + 45
    turned = [False, True, False, False, True, True, False, True, False]

    finder, reader = _a_1p_seen_turned(cx, cy, turned)
    tracker = TableTracker(zones, reader, px_per_mm=2.0, stable_frames=3, finder=finder)
    blank = np.full((1600, 1600, 3), (40, 110, 40), np.uint8)
    got = [e for k in range(len(turned)) for e in tracker.update(blank, k * 100_000_000)]
    assert [(e["type"], e["seat"], e["tile"], e.get("riichi", False)) for e in got] == \
        [("discard", 0, "1p", False)]


@pytest.mark.parametrize("seat", [0, 1])
def test_a_discard_seen_once_turned_and_once_not_is_no_riichi_tile(seat):
    """A 1p's circle looks alike turned a quarter: the finder saw a discard lying sideways to
    its seat in one frame and as its seat's tiles lie in the next. Reported then, it is a
    plain discard: a tile is sideways, a riichi tile, only when most of its sightings saw it
    so (a tie went the way of the first sighting, and to the rules core that was a riichi
    declaration, sure)."""
    import numpy as np

    zones = default_zones()
    pond = next(z for z in zones if z.kind == "pond" and z.seat == seat)
    x1, y1 = (round(v * 2.0) for v in pond.rect[:2])
    cx, cy = x1 + 45, y1 + 45
    usual = bool(pond.rotation % 2)          # upright to seats 1 and 3 lies across the view
    turned = [not usual, usual]              # sideways to the seat first, then as it lies

    finder, reader = _a_1p_seen_turned(cx, cy, turned)
    tracker = TableTracker(zones, reader, px_per_mm=2.0, stable_frames=2, finder=finder)
    blank = np.full((1600, 1600, 3), (40, 110, 40), np.uint8)
    got = [e for k in range(2) for e in tracker.update(blank, k * 100_000_000)]
    assert [(e["type"], e["seat"], e["tile"], e.get("riichi", False)) for e in got] == \
        [("discard", seat, "1p", False)]


@pytest.mark.parametrize("seat, boxed, as_boxed, turned, fuse, want", [
    # an upright 7p boxed across: its box's cut shows its lower circles, a 6p; cut upright
    # it reads surer, a 7p lying as its seat's tiles lie
    (0, "across", ("6p", 0.88), ("7p", 0.97), True, ("7p", False)),
    (0, "across", ("6p", 0.88), ("7p", 0.97), False, ("7p", False)),
    (1, "upright", ("6z", 0.81), ("6z", 0.96), True, ("6z", False)),
    # a riichi 3s boxed across: cut upright it shows strips of its neighbours, read less
    # surely; it is a riichi tile
    (0, "across", ("3s", 0.95), ("3s", 0.72), True, ("3s", True)),
    (1, "upright", ("3s", 0.90), ("3s", 0.55), False, ("3s", True)),
    # read well both ways (a dark riichi 3s on the film: half the doubt turned): its box
    # stands
    (1, "upright", ("3s", 0.945), ("3s", 0.974), True, ("3s", True)),
    # read surely as boxed, and surer still from the strip of its sticks an upright cut
    # shows (a riichi 3s on the solid demo): its box stands
    (0, "across", ("3s", 0.97), ("3s", 0.994), True, ("3s", True)),
    # read doubtfully as boxed, and only somewhat surer turned (0.4 of the doubt): no sign
    (0, "across", ("3s", 0.80), ("3s", 0.92), True, ("3s", True)),
    # the other way no tile's face at all, however surely: as boxed
    (0, "across", ("3s", 0.90), ("none", 0.99), True, ("3s", True)),
    # boxed as its seat's tiles lie: read as boxed, never turned (a plain discard is no
    # riichi tile because a strip of it read well turned)
    (0, "upright", ("7p", 0.90), ("6p", 0.99), True, ("7p", False)),
    (1, "across", ("7p", 0.90), ("6p", 0.99), True, ("7p", False)),
])
def test_a_pond_tile_boxed_across_its_seat_lies_the_way_its_face_reads_surer(
        seat, boxed, as_boxed, turned, fuse, want):
    """The finder can box an upright tile lying across: on a film of dark tiles, three
    discards of one seat were reported riichi tiles so, a 7p among them read as a 6p, sure,
    from its box's cut. A pond tile boxed lying across its seat is read cut both ways, and
    lies the other way when its face reads far surer so (a third of the doubt) and did not
    read surely as boxed, or read another tile: the tile the referee sees is then that
    reading, and no riichi tile. Some riichi faces read well both ways, or better turned;
    their boxes stand."""
    import numpy as np

    from vision.finding.found import Finding, FoundTile

    zones = default_zones()
    pond = next(z for z in zones if z.kind == "pond" and z.seat == seat)
    x1, y1 = (round(v * 2.0) for v in pond.rect[:2])
    cx, cy = x1 + 45, y1 + 45
    across = boxed == "across"
    box = (cx - 35, cy - 26, cx + 35, cy + 26) if across else (cx - 26, cy - 35, cx + 26, cy + 35)
    quad = np.float32([[box[0], box[1]], [box[2], box[1]], [box[2], box[3]], [box[0], box[3]]])
    # the two cuts' greys say which is which
    faces = {40: as_boxed, 80: turned}

    class Finder:
        def find(self, image, scale, quick_shrink=False, crop_width=None, faint=None):
            tile = FoundTile(box, across, np.full((64, 48, 3), 40, np.uint8), quad,
                             turned=lambda: np.full((64, 48, 3), 80, np.uint8))
            return Finding([tile], np.zeros(image.shape[:2], np.uint8))

    class Reader:
        input_width = 48

        def classify(self, crops):
            return [faces[int(c[0, 0, 0])] for c in crops]

    tracker = TableTracker(zones, Reader(), px_per_mm=2.0, stable_frames=3, finder=Finder(),
                           fuse=fuse)
    blank = np.full((1600, 1600, 3), (40, 110, 40), np.uint8)
    got = [e for k in range(8) for e in tracker.update(blank, k * 100_000_000)]
    assert [(e["type"], e["seat"], e["tile"], e.get("riichi", False)) for e in got] == \
        [("discard", seat, *want)]


@pytest.mark.parametrize("changed_at, discard, called, want", [
    (None, "4m", None, 1),
    (500_000_000, "4m", None, 1),
    (500_000_000, "4m", "4m", 2),
    (500_000_000, "5m", "0m", 2),
    (500_000_000, "4m", "3s", 1),
])
def test_a_latest_discard_the_finder_misses_on_a_still_picture_is_not_reported_again(
        changed_at, discard, called, want):
    """A dark face on a dark centre panel: the finder finds a seat's latest discard, then
    misses it on re-reads of the same still picture, then finds it again. The change detector
    says its place never changed, so it never left: one discard. Its place changed while it
    was missed (a hand passed) but no tile was laid in another seat's meld area: no call took
    it, and it is the same tile, found again: one discard. Tiles laid in seat 1's melds
    meanwhile, the discard's kind among them (a red 5m taken for a 5m): a call took it, and
    the tile found at its place is the seat's next discard. A meld of other tiles laid
    meanwhile (seat 1 called another seat's 3s) took nothing from seat 0: still one
    discard."""
    import numpy as np

    from vision.finding.found import Finding, FoundTile

    zones = default_zones()
    pond = next(z for z in zones if z.kind == "pond" and z.seat == 0)
    x1, y1 = (round(v * 2.0) for v in pond.rect[:2])
    cx, cy = x1 + 40, y1 + 45
    box = (cx - 26, cy - 35, cx + 26, cy + 35)
    seen = [True] * 4 + [False] * 5 + [True] * 4

    def tile(box, across=False):
        quad = np.float32([[box[0], box[1]], [box[2], box[1]], [box[2], box[3]], [box[0], box[3]]])
        # the meld's faces (lying across) lighter than the pond tile's, to be read apart
        return FoundTile(box, across, np.full((70, 52, 3), 90 if across else 40, np.uint8), quad)

    # seat 1's meld area (x 705-790 mm): three tiles upright to seat 1, across in the view
    meld = [tile((1445, y - 26, 1515, y + 26), across=True) for y in (200, 252, 304)]

    class Finder:
        frame = 0

        def find(self, image, scale, quick_shrink=False, crop_width=None, faint=None):
            tiles = [tile(box)] if seen[Finder.frame] else []
            if called and Finder.frame >= 5:
                tiles += meld
            Finder.frame += 1
            return Finding(tiles, np.zeros(image.shape[:2], np.uint8))

    class Reader:
        input_width = 48

        def classify(self, crops):
            return [(discard if c.mean() < 60 else called, 0.97) for c in crops]

    blank = np.full((1600, 1600, 3), (40, 40, 60), np.uint8)
    tracker = TableTracker(zones, Reader(), px_per_mm=2.0, stable_frames=3, gone_frames=3,
                           finder=Finder())
    # the place has looked as it does since the tile was laid (t 0), or since 0.5 s
    # (the frame after the tile was last seen, 0.3 s: something changed it)
    tracker.onset = lambda rect, t_ns, first_sight=False, at=changed_at: \
        0 if at is None or t_ns < at else at
    got = [e for k in range(len(seen)) for e in tracker.update(blank, k * 100_000_000)]
    assert [(e["seat"], e["tile"]) for e in got if e["type"] == "discard"] == [(0, discard)] * want
    assert len(tracker.left_ponds) == want - 1


def _pond_film(tiles_at, onset, lower=lambda slot: 0, along=lambda slot: 56 * slot,
               view=None, uncovered=None, relit=None, hands=lambda k: ()):
    """Seat 0's pond read by a stub finder and reader, one frame every 100 ms.

    ``tiles_at(k)``: the (slot, label) the finder finds in frame ``k``, slots side by side
    along the row, or (slot, label, length) for a box shorter than a tile's 70 pixels, or
    (slot, label, 70, True) for one lying across, or (slot, label, 70, False, width) for an
    upright box wider than a tile's 52 pixels, reaching towards the next slot.
    ``onset(slot, t_ns)``: the change detector's answer for a slot's place. ``lower(slot)``,
    ``along(slot)``: pixels a slot's tile lies below the row's line and along it (28 mm apart:
    upright tiles with a 2 mm gap). ``view(place)``: the picture the finder is given, drawn with
    ``place(slot)``, the pixel a slot's tile is centred on (default: bare felt).
    ``uncovered(slot, t_ns)``: the change detector's frame a slot's place last came into view,
    when it saw nothing come there (default: never that). ``relit(slot, t_ns)``: the frame a
    slot's place took its settled look, when only the light has changed it since (default: never
    so). ``hands(k)``: the slots a hand covers in frame ``k`` (the finder's mask). Returns the
    discards reported and the tracker (its ``events``: all it reported)."""
    import numpy as np

    from vision.finding.found import Finding, FoundTile

    zones = default_zones()
    pond = next(z for z in zones if z.kind == "pond" and z.seat == 0)
    x1, y1 = (round(v * 2.0) for v in pond.rect[:2])
    labels = ["4m", "7p", "5z", "1p", "3s", "2m", "none"]
    # what the reader is unsure of: a box across the halves of two tiles
    unsure = {"2m": 0.39}

    def found(slot, label, length=70, across=False, width=52):
        cx, cy = x1 + 40 + along(slot), y1 + 45 + lower(slot)
        box = (cx - 35, cy - 26, cx + 35, cy + 26) if across else \
            (cx - 26, cy - 35, cx - 26 + width, cy - 35 + length)
        quad = np.float32([[box[0], box[1]], [box[2], box[1]], [box[2], box[3]],
                           [box[0], box[3]]])
        # the crop's grey says which tile it is
        crop = np.full((70, 52, 3), 40 + 20 * labels.index(label), np.uint8)
        return FoundTile(box, across, crop, quad)

    class Finder:
        frame = 0

        def find(self, image, scale, quick_shrink=False, crop_width=None, faint=None):
            tiles = [found(*t) for t in tiles_at(Finder.frame)]
            hidden = np.zeros(image.shape[:2], np.uint8)
            for slot in hands(Finder.frame):
                cx, cy = x1 + 40 + along(slot), y1 + 45 + lower(slot)
                hidden[cy - 30:cy + 30, cx - 14:cx + 14] = 255
            Finder.frame += 1
            return Finding(tiles, hidden)

    class Reader:
        input_width = 48

        def classify(self, crops):
            read = [labels[(int(c[0, 0, 0]) - 40) // 20] for c in crops]
            return [(label, unsure.get(label, 0.97)) for label in read]

    tracker = TableTracker(zones, Reader(), px_per_mm=2.0, stable_frames=3, gone_frames=3,
                           finder=Finder())
    # the tracker asks about a tile's box in table mm: its slot is where its left edge lies
    tracker.onset = lambda rect, t_ns, first_sight=False: \
        onset(round((rect[0] * 2.0 - x1 + 26 - 40) / 56), t_ns)
    if uncovered is not None:
        tracker.uncovered = lambda rect, t_ns: \
            uncovered(round((rect[0] * 2.0 - x1 + 26 - 40) / 56), t_ns)
    if relit is not None:
        tracker.relit = lambda rect, t_ns: relit(round((rect[0] * 2.0 - x1 + 26 - 40) / 56), t_ns)
    blank = np.full((1600, 1600, 3), (40, 40, 60), np.uint8) if view is None else \
        view(lambda slot: (x1 + 40 + along(slot), y1 + 45 + lower(slot)))
    tracker.events = [e for k in range(16) for e in tracker.update(blank, k * 100_000_000)]
    return [(e["seat"], e["tile"]) for e in tracker.events if e["type"] == "discard"], tracker


def test_a_latest_discard_lost_while_the_next_is_laid_beside_it_is_not_reported_again():
    """The finder loses a seat's latest discard (a 4m) while the hand lays the seat's next one
    (a 7p) beside it, and the hand changed the 4m's look at its edge: the 4m is taken for
    called. Found again, it lies behind the 7p, where no new discard can land (a call's place
    takes the seat's next discard, at the pond's end): one 4m, one 7p, nothing called."""
    def tiles_at(k):
        return ([(0, "4m")] if k < 4 or k >= 9 else []) + ([(1, "7p")] if k >= 6 else [])

    # the 4m's place changed at 0.5 s (after it was last seen at 0.3 s); the 7p's at 0.6 s
    got, tracker = _pond_film(tiles_at, lambda slot, t: 0 if slot == 0 and t < 500_000_000
                              else 500_000_000 if slot == 0 else 600_000_000)
    assert got == [(0, "4m"), (0, "7p")]
    assert tracker.left_ponds == []


def test_what_is_read_in_the_hole_a_called_tile_left_behind_the_next_discard_is_no_discard():
    """A call takes seat 0's 4m; its next discard, a 7p, is laid beyond the hole, and then the
    hole between the tiles is read as a tile (a dark blank: the gap between two dark faces).
    Nothing new was discarded there: the 4m and the 7p are the seat's two discards, and the
    4m stays called. The 7p, called in its turn, leaves: the hole is not the seat's latest
    discard."""
    def tiles_at(k):
        return ([(0, "4m")] if k < 4 else [(0, "5z")] if k >= 10 else []) + \
            ([(1, "7p")] if 7 <= k < 13 else [])

    # the 7p called in turn at 1.3 s: the seat's latest discard is the 7p, not the hole
    got, tracker = _pond_film(tiles_at, lambda slot, t: 0 if t < 400_000_000 else
                              700_000_000 if slot == 1 and t < 1_300_000_000 else
                              1_300_000_000 if slot == 1 else 1_000_000_000)
    assert got == [(0, "4m"), (0, "7p")]
    assert [(p["seat"], p["tile"]) for p in tracker.left_ponds] == [(0, "4m"), (0, "7p")]


def test_the_hole_a_called_tile_left_is_no_discard_while_the_next_is_still_being_read():
    """As above, but the hole is read surely from the frame the seat's next discard (a 7p,
    beyond it) is first boxed, and the 7p is boxed once and then not for a while (the hand
    that laid it rests on it): when the hole has been seen often enough to be reported, the
    7p has been seen once. A tile of the seat lies beyond the hole all the same, so the hole
    is no new discard (the film's seed 0: seat 1's 6p laid beyond the hole its called 3s left,
    the hole read as a blank white dragon at 0.82 and reported as a discard, sure)."""
    def tiles_at(k):
        return ([(0, "4m")] if k < 4 else [(0, "5z")] if k >= 8 else []) + \
            ([(1, "7p")] if k == 8 or k >= 12 else [])

    got, tracker = _pond_film(tiles_at, lambda slot, t: 0 if t < 400_000_000 else 800_000_000,
                              hands=lambda k: (1,) if 9 <= k < 12 else ())
    assert got == [(0, "4m"), (0, "7p")]
    assert [(p["seat"], p["tile"]) for p in tracker.left_ponds] == [(0, "4m")]


def test_a_latest_discard_lost_under_glare_and_found_as_it_was_is_not_reported_again():
    """A glare drifts over a seat's latest discard: the finder loses it and its place looks
    changed, so it is taken for called. The glare passes and the place looks as it did before
    the tile was last seen: it never left, and it is not reported again."""
    def tiles_at(k):
        return [(0, "4m")] if k < 4 or k >= 9 else []

    got, tracker = _pond_film(tiles_at, lambda slot, t: 400_000_000 if 400_000_000 <= t <
                              900_000_000 else 0)
    assert got == [(0, "4m")]
    assert tracker.left_ponds == []


def test_the_next_discard_laid_where_a_called_tile_left_is_reported():
    """A call takes seat 0's third discard (a 4m) and the seat's next discard, a 7p, is laid in
    its place, at the pond's end. It is reported, though the row's tiles lie a millimetre
    apart up and down, across the line where a row rounds into the next."""
    def tiles_at(k):
        return [(0, "7p"), (1, "5z")] + ([(2, "4m")] if k < 4 else [(2, "7p")] if k >= 8 else [])

    # the row at 525.5 mm and 524.5 mm from the table's top edge: Track.key's rows are 30 mm
    # deep, and 525 mm is where its row 17 rounds into row 18
    got, tracker = _pond_film(tiles_at, lambda slot, t: 0 if slot < 2 or t < 500_000_000 else
                              500_000_000 if t < 800_000_000 else 800_000_000,
                              lower=lambda slot: 20 if slot < 2 else 18)
    assert got == [(0, "7p"), (0, "5z"), (0, "4m"), (0, "7p")]
    assert [(p["seat"], p["tile"]) for p in tracker.left_ponds] == [(0, "4m")]


@pytest.mark.parametrize("doubled_from", [0, 4])
def test_a_tile_the_finder_boxes_twice_is_one_discard(doubled_from):
    """The finder boxes a tile twice in some frames, the second box 10 mm off the first
    (the film's 3m, in one schedule of six: reported twice, sure both times). No two tiles'
    centres lie within half a tile's width, so the second box is the same tile, from its
    first sighting on or once it is reported."""
    got, _ = _pond_film(lambda k: [(0, "4m")] + ([(0.35, "4m")] if k >= doubled_from else []),
                        lambda slot, t_ns: 0)
    assert got == [(0, "4m")]


def test_a_tile_is_read_whole_not_by_the_part_a_resting_hand_leaves_in_view():
    """A hand rests on the lower part of a new discard and the finder, not masking the hand,
    boxes the part in view (under four fifths of a tile long): what that part shows (the top
    two circles of a 4p are a 2p) is not the tile. The tile is read when the hand has gone and
    it is seen whole; a whole tile's box a little short (0.84) is read as ever."""
    def tiles_at(k):
        return [(0, "7p", 55)] if k < 5 else [(0, "4m")] if k < 10 else [(0, "4m"), (1, "5z", 59)]

    got, _ = _pond_film(tiles_at, lambda slot, t: 0 if slot == 0 else 1_000_000_000)
    assert got == [(0, "4m"), (0, "5z")]


@pytest.mark.parametrize("lands_at, came_into_view, stamp", [
    (6, None, 0.6), (0, None, 0.0), (6, 0.55, 0.55), (6, 0.3, 0.6), (0, 0.3, 0.0)])
def test_a_discard_the_change_detector_cannot_see_land_is_not_dated_before_its_place_was_seen_bare(
        lands_at, came_into_view, stamp):
    """A dark face on a dark table looks to the change detector's samples like the table under
    it: no cell of its place changes when it lands, and the detector dates the place from the
    frame it last settled, the first (on the film's seed 7, 27 dark discards read surely were
    stamped at 0 s). The camera looked at the place with no hand over it until 0.5 s and
    boxed nothing there: the 7p landed after that. Its place last came into view at 0.55 s,
    when the hand that laid it left: that is its time (seed 7: a 4p found at 64.0 s, stamped
    at 21.5 s, when its place had last been read bare, is stamped at 63.8 s, its first frame).
    Where the detector cannot say when the place came into view since it was seen bare, the
    7p is dated by its first sighting, late rather than early. A tile boxed there from the
    first frame keeps the first frame's time."""
    def tiles_at(k):
        return [(0, "4m")] + ([(1, "7p")] if k >= lands_at else [])

    got, tracker = _pond_film(tiles_at, lambda slot, t: 0, uncovered=None if came_into_view is None
                              else lambda slot, t: round(came_into_view * 1e9))
    assert got == [(0, "4m"), (0, "7p")]
    assert tracker.events[1]["t"] == pytest.approx(stamp)


@pytest.mark.parametrize("width, stamp", [(80, 0.6), (52, 0.85)])
def test_a_place_the_finder_boxed_only_into_the_tile_beside_it_was_not_seen_bare(width, stamp):
    """A 7p lands at 0.6 s beside the 4m, and the change detector sees it land; but as the
    hand leaves, the finder boxes the 4m big, 40 mm wide, into the 7p's place, and finds no
    7p until 0.9 s. A box too big for a tile is the finder seeing the place beside it blurred
    into the tile, not seeing it bare: the 7p keeps the detector's time, not the 0.85 s a hand
    last passed over its place (the film's seed 14: a 2s laid at 103.7 s behind a 2s boxed
    38 x 49 mm was stamped 110.4 s, when the seat's next discard was laid beside it, and
    reported as a false discard, sure). Where the 4m was boxed as a tile, the look saw the
    place bare after the detector's time, and the 7p is dated when its place came into view."""
    def tiles_at(k):
        if k < 6:
            return [(0, "4m")]
        return [(0, "4m", 70, False, width)] if k < 9 else [(0, "4m"), (1, "7p")]

    got, tracker = _pond_film(tiles_at, lambda slot, t: 0 if slot == 0 else 600_000_000,
                              uncovered=lambda slot, t: 850_000_000 if slot == 1 else None)
    assert got == [(0, "4m"), (0, "7p")]
    assert tracker.events[1]["t"] == pytest.approx(stamp)


@pytest.mark.parametrize("boxed_in_part, settled_from, stamp", [
    (True, 0.15, 0.15), (True, None, 0.9), (False, 0.15, 0.9), (True, 0.05, 0.2)])
def test_a_discard_laid_under_a_glare_is_dated_by_its_place_not_by_the_glare_lifting(
        boxed_in_part, settled_from, stamp):
    """A 7p is laid at 0.15 s under a glare. The finder boxes a part of it twice (0.2 s and
    0.3 s: too short to read), then nothing while the glare lies on it; the glare lifts at
    0.9 s and the 7p is found whole. The change detector saw its place change then, but by
    the light alone (:meth:`ChangeDetector.relit`): the place has looked as it does, lit or
    not, since 0.15 s, and a clear look boxed something there meanwhile: that is its time
    (the film's seed 8: a dark 2z laid at 4.0 s, stamped at 9.57 s when the glare lifted,
    reported as a false discard, sure). Without the detector's word, or with nothing boxed
    there while that look lasted, the 7p keeps the onset. Where a clear look boxed nothing
    there after the look began and before the first that boxed it, the look may have been
    the bare table's (a dark face is like it): the first look that boxed it dates it, late
    rather than early."""
    def tiles_at(k):
        here = [(1, "7p")] if k >= 9 else [(1, "7p", 40)] if boxed_in_part and k in (2, 3) else []
        return [(0, "4m")] + here

    got, tracker = _pond_film(
        tiles_at, lambda slot, t: 0 if slot == 0 or t < 900_000_000 else 900_000_000,
        relit=None if settled_from is None else
        lambda slot, t: round(settled_from * 1e9) if slot == 1 else None)
    assert got == [(0, "4m"), (0, "7p")]
    assert tracker.events[1]["t"] == pytest.approx(stamp)


@pytest.mark.parametrize("beyond, stamp", [("5z", 0.25), ("none", 0.85)])
def test_a_discard_the_finder_missed_until_the_next_was_laid_is_not_dated_by_that_hand(
        beyond, stamp):
    """A dark 7p lands at 0.25 s and the change detector saw it land, but the finder boxes
    nothing there for half a second (on the film's seed 9, a 3p in two clear looks). The
    hand that lays the seat's next discard, a 5z, passes over it and leaves at 0.85 s, and
    the 7p is found with the 5z. Its place came into view then, but a tile lies beyond it in
    the pond: the hand laid that one, and the 7p keeps the detector's time (seed 9's 3p was
    stamped 6.1 s late, at the next discard, and reported as a false discard, sure).

    Where what is boxed beyond it is read as no tile (a faint fleck where the hand left),
    nothing was laid beyond it: the place was seen bare after its change, and the 7p is dated
    by the hand leaving (seed 7, one schedule: a 3p laid at 65.3 s, its place changed at
    33.5 s by something else and read bare since, was dated 33.5 s: a false discard, sure,
    and the 3p missed)."""
    def tiles_at(k):
        return [(0, "4m")] + ([(1, "7p"), (2, beyond)] if k >= 9 else [])

    got, tracker = _pond_film(tiles_at, lambda slot, t: 0 if slot == 0 else
                              250_000_000 if slot == 1 else 850_000_000,
                              uncovered=lambda slot, t: 850_000_000 if slot == 1 else None)
    assert got == [(0, "4m"), (0, "7p")] + ([(0, "5z")] if beyond == "5z" else [])
    assert [e["t"] for e in tracker.events[1:]] == [pytest.approx(stamp)] + \
        ([pytest.approx(0.85)] if beyond == "5z" else [])


@pytest.mark.parametrize("boxed_in_part, onset, stamp", [((2, 3, 4, 5, 7, 8, 9), 1.0, 0.2),
                                                          ((2, 3, 4, 5, 7, 8, 9), 0.7, 0.2),
                                                          ((8, 9), 1.0, 1.0)])
def test_a_discard_found_whole_after_the_next_was_laid_beyond_it_was_laid_before_it(
        boxed_in_part, onset, stamp):
    """A dark 7p lands at 0.2 s half under a glare: the finder boxes only its part in view
    (too short to read) and misses it once at 0.6 s. The seat's next discard, a 5z, is laid
    beyond it at 0.7 s, and the 7p is found whole at 1.0 s, when the glare moves and its
    place's look changes. A pond fills in order, so the 7p was laid before the 5z: it is
    dated by the first clear look that boxed its place, 0.2 s (the film's seed 9: a dark
    North laid at 20.5 s was stamped 29.27 s, after the seat's next discard, and reported as a
    false discard, sure, and the North missed). So too where its place changed when the 5z
    was laid (at the 5z's time, 26.5 s, in another run). Where no look before the 5z boxed
    anything there, nothing says when it came, and it keeps the detector's time."""
    def tiles_at(k):
        here = [(1, "7p")] if k >= 10 else [(1, "7p", 40)] if k in boxed_in_part else []
        return [(0, "4m")] + here + ([(2, "5z")] if k >= 7 else [])

    got, tracker = _pond_film(tiles_at, lambda slot, t: 0 if slot == 0 else
                              700_000_000 if slot == 2 else round(onset * 1e9))
    assert got == [(0, "4m"), (0, "5z"), (0, "7p")]
    assert [e["t"] for e in tracker.events[1:]] == [pytest.approx(0.7), pytest.approx(stamp)]


@pytest.mark.parametrize("glimpsed, stamp", [("7p", 0.2), ("4m", 0.9)])
def test_a_discard_glimpsed_when_it_landed_and_lost_under_a_glare_keeps_its_time(glimpsed, stamp):
    """A discard is read once in the frame it lands (0.2 s), then not for a while (a glare
    drifts over it), so the tracker forgets that one sighting; the glare moves its place's
    look, and when the tile is read again its place last changed at 0.9 s. It landed at
    0.2 s, where a tile read as the same was glimpsed: that is its time. A glimpse read as
    another tile says nothing of it."""
    def tiles_at(k):
        here = [(1, glimpsed)] if k == 2 else [(1, "7p")] if k >= 9 else []
        return [(0, "4m")] + here

    got, tracker = _pond_film(tiles_at, lambda slot, t: 0 if slot == 0 else
                              200_000_000 if t < 900_000_000 else 900_000_000)
    assert got == [(0, "4m"), (0, "7p")]
    assert tracker.events[1]["t"] == pytest.approx(stamp)


@pytest.mark.parametrize("felt_from, reported", [(0, [(0, "2m"), (0, "4m"), (0, "7p"), (0, "5z")]),
                                                  (6, [(0, "4m"), (0, "7p"), (0, "5z")])])
def test_a_faint_box_read_unsure_where_a_tile_read_surely_lies_is_no_tile(felt_from, reported):
    """The finder boxes a bare patch of seat 0's pond faintly, and it is read as a tile, unsure
    (a 2m at 0.39; on the film a white dragon at 0.41, from the first frame). When the seat's
    next discard, read surely, is laid overlapping that place, two tiles cannot lie there:
    the sure one is the tile, and the place is free, so the discard after it, laid 11 mm from
    where the faint box was, is reported (the film's 4p was taken for the faint box, already
    reported, and never reported). The faint box's report, made before, stays; found only
    once a sure tile lies there, it is not reported at all."""
    def tiles_at(k):
        faint = [(1.6, "2m")] if felt_from <= k < 9 else []
        return [(0, "4m")] + ([(1, "7p")] if k >= 4 else []) + faint + \
            ([(2, "5z")] if k >= 11 else [])

    got, tracker = _pond_film(tiles_at, lambda slot, t: 0 if slot == 0 else
                              400_000_000 if slot == 1 else 1_100_000_000)
    assert sorted(got) == sorted(reported)     # (the 2m and the 4m were first seen together)
    assert [t.label for t in tracker.tracks] == ["4m", "7p", "5z"]


@pytest.mark.parametrize("tile, apart_px, riichi", [
    ("5z", 56, False), ("5z", 63, True), ("1p", 56, False), ("3s", 56, True),
    ("2m", 56, False), ("2m", 63, True)])
def test_a_tile_seen_across_too_close_to_its_neighbour_to_lie_across_is_no_riichi_tile(
        tile, apart_px, riichi):
    """A blank white dragon (or a 1p) looks alike turned a quarter, and the finder can see it
    lying across in every frame. Laid 28 mm from the upright tile before it, it cannot be
    lying across (a tile across reaches 30.5 mm from its neighbour's centre): it is reported
    upright, no riichi. Laid 31.5 mm from it, it may be, and it is the riichi tile. A face
    that shows which way it lies (a 3s, read surely) seen across in every frame is the riichi
    tile even found that close: the film's dark 3s was boxed 9 mm into the tile before it. One
    read unsurely (a 2m at 0.39: on the solid demo a box across the halves of two tiles) may
    be no face at all, and its place decides."""
    def tiles_at(k):
        return [(0, "4m"), (1, "7p")] + ([(2, tile, 70, True)] if k >= 4 else [])

    got, tracker = _pond_film(tiles_at, lambda slot, t: 0 if slot < 2 else 400_000_000,
                              along=lambda slot: 56 * slot if slot < 2 else 56 + apart_px)
    assert got == [(0, "4m"), (0, "7p"), (0, tile)]
    assert [bool(e.get("riichi")) for e in tracker.events] == [False, False, riichi]


def _pond_picture(lying, ink=(), felt=(40, 70, 40), moved=()):
    """A top-down view (2 px/mm) of seat 0's pond as ``_pond_film`` places its tiles: each
    slot's tile an ivory face on ``felt``, upright (52 x 70 pixels) or lying across (70 x 52)
    as ``lying[slot]`` says; ``ink``: (slot, dx1, dy1, dx2, dy2) strokes drawn on a tile's
    face, relative to its box's centre; ``moved``: (slot, dx, dy), a tile drawn that many
    pixels off its box's centre."""
    import cv2
    import numpy as np

    off = {slot: (dx, dy) for slot, dx, dy in moved}

    def view(place):
        picture = np.full((1600, 1600, 3), felt, np.uint8)
        for slot, way in enumerate(lying):
            cx, cy = place(slot)
            cx, cy = cx + off.get(slot, (0, 0))[0], cy + off.get(slot, (0, 0))[1]
            hw, hh = (35, 26) if way == "across" else (26, 35)
            cv2.rectangle(picture, (cx - hw, cy - hh), (cx + hw - 1, cy + hh - 1), (200, 210, 215), -1)
        for slot, dx1, dy1, dx2, dy2 in ink:
            cx, cy = place(slot)
            cv2.rectangle(picture, (cx + dx1, cy + dy1), (cx + dx2, cy + dy2), (30, 30, 30), -1)
        return picture
    return view


#: an ivory table, as light as the tiles, nearly
IVORY_FELT = (185, 195, 200)
#: a table as light as the tiles but for a few grey levels: their outlines barely show, as a
#: dark face's on the films' dark felt (where an upright 4m and 9m, boxed upright, ran 6.5 and
#: 7.9 along the outline across, three and four times their own, and were reported riichi)
FAINT_FELT = (193, 203, 208)
#: long strokes along two thirds of where the top and bottom of a tile lying across would be:
#: on an ivory table, by the mean step along each side (``learned._side_steps`` with no
#: ``share``) they outweigh the upright tile's faint outline more than three times
STROKES = ((2, -16, -28, 16, -25), (2, -16, 24, 16, 27))
#: an upright tile drawn 5 pixels right of and below its box's centre, with ink along where the
#: top and bottom of a tile lying across at the box would be: at the box itself its own
#: outline falls beside its edges (the film's dark 4m, boxed 4-6 pixels off: 3.7 against 11.5
#: lying across), and it was reported riichi. A tile lying across boxed 3 pixels off keeps its
#: flag: about its box the upright outline finds two of its sides at a corner, not four
OFF_BOX = ((2, 5, 5),)
OFF_STROKES = ((2, -20, -26, 28, -20), (2, -20, 20, 28, 26))


@pytest.mark.parametrize("lying, apart_px, felt, ink, riichi, moved", [
    ("across", 65, (40, 70, 40), (), True, ()),     # its outline lies across: the riichi tile
    ("across", 65, IVORY_FELT, (), True, ()),
    ("upright", 65, (40, 70, 40), (), False, ()),   # upright, boxed upright
    ("upright", 65, IVORY_FELT, STROKES, False, ()),
    ("across", 56, (40, 70, 40), (), False, ()),    # too close to the tile before it to lie across
    ("across", 65, FAINT_FELT, (), False, ()),      # an outline that barely shows
    ("upright", 65, (40, 70, 40), OFF_STROKES, False, OFF_BOX),   # boxed a little off the tile
    ("across", 65, (40, 70, 40), (), True, ((2, 3, 3),)),
])
def test_a_riichi_tile_the_finder_boxes_upright_is_known_by_its_outline(lying, apart_px, felt, ink,
                                                                      riichi, moved):
    """The finder can box a tile lying across upright in every frame (on the solid demo a
    riichi 4s: its sticks turned a quarter still read as a 4s), so that neither its boxes nor
    its face say it lies across. The picture's edges do: they run along all of each side of
    a tile lying across there, not of one upright. Strokes on an upright face along part of
    where a tile across would end do not turn it, and neither does an outline across found
    nearer the tile before it than a tile across can lie (28 mm: it reaches 30.5 mm), or one
    that barely shows: then the face's strokes and the neighbours' seams are all the edges
    there are, and the box is believed. A box a few pixels off an upright tile does not make it
    a riichi tile: its own outline, looked for about the box, is there as strongly as the
    other."""
    def tiles_at(k):
        return [(0, "4m"), (1, "7p")] + ([(2, "3s")] if k >= 4 else [])

    picture = _pond_picture(["upright", "upright", lying], ink, felt, moved)
    got, tracker = _pond_film(tiles_at, lambda slot, t: 0 if slot < 2 else 400_000_000,
                              along=lambda slot: 56 * slot if slot < 2 else 56 + apart_px,
                              view=picture)
    assert got == [(0, "4m"), (0, "7p"), (0, "3s")]
    assert [bool(e.get("riichi")) for e in tracker.events] == [False, False, riichi]
