"""From top-down frames to table events: what appeared in each seat's pond, meld area and hand
area, and in the dora zone.

:class:`TableTracker` is fed one top-down frame at a time (``update(frame, t_ns)``) and
returns the events that became certain with that frame, as dicts in the table-event format
(``t`` in seconds on the table clock, plus a ``confidence`` key from the classifier):

- ``discard``: a face-up tile that stayed in a pond for ``stable_frames`` frames; its ``t`` is
  the first frame that showed it, ``riichi`` when it lies sideways (and, unless its face shows
  which way it lies, not nearer the tile before it in its row than a tile lying across can
  be), or when the finder boxed it upright but the picture's edges run along the outline of
  a tile lying across there. A face-down tile is not a discard.
- ``meld``: a group of three or four tiles in a seat's meld area, once it has stopped
  changing; the sideways tile is the called one and its place says whom it came from (left
  end: the player on the left...). A pon that gains a fourth tile becomes a ``shouminkan``;
  four tiles with face-down ends are an ``ankan``.
- ``dora``: a tile face up in the dora zone (an indicator flipped).
- ``reveal``: tiles face up in a seat's hand area, once they stop changing; the winning tile is
  the one set apart at the right end (else the last one).

**Many frames, one reading** (``fuse=True``; ``[camera] fuse`` in the table service): what
the classifier reads of a tile is fused over the frames that saw it in plain view (the label
their summed log-probabilities favour, its probability averaged over them; frames where a
hand touches it are never read), instead of trusting the first ones. A tile is still reported after ``stable_frames`` sightings, at the same moment as
before, when those agree and their fused reading is sure (``sure``); otherwise it is read on,
for at most ``fuse_reads`` sightings or ``fuse_wait_s`` after its first, and then reported
with the fused reading, sure only if that is. Its ``t`` is its first frame either way. A
reported reading is not changed by later frames: it is in the journal and the rules core has
judged on it; a referee's correction of a check is the table's one way to change it
(:mod:`referee.checks`).

A hand or arm over the table hides tiles without removing them: a tile that is not seen
where something else (not a tile) covers the table keeps its place, and nothing new is
believed until it has been seen clearly ``stable_frames`` times. A tile that is gone while its
place is in plain view for ``gone_frames`` frames has left (a called discard leaves its pond);
in a pond only the seat's latest discard can leave (a call takes it), so an older pond tile
that is not read for a while is still believed there and is never reported twice. A tile
found again where a seat's tile left is no new discard when its place looks as it did
before, when a newer tile of the seat lies beyond it (the seat's next discard is laid at
the pond's end), or when it is the same tile and no tile has been laid in another seat's
meld area since (no call took it). A box well short of a whole tile is a part of one in view
(a hand the finder did not mask over the rest) and is not read. Two pond tiles cannot
overlap: where a tile read surely lies over one read unsure, the unsure one was a faint box
and is forgotten. A tile glimpsed where it landed (seen too few times to be believed, then
lost under a glare) and reported later as the same tile keeps the time of that glimpse. A tile
the change detector saw no change for since before the camera last saw its place bare (a
dark face on a dark table) is dated by the frame its place came into view after that look
(the laying hand left), or else by its own sighting; never before that bare look.
"""
from __future__ import annotations

import itertools
from collections import Counter, defaultdict, deque
from dataclasses import dataclass, field

import cv2
import numpy as np

from referee.tiles import TILE_CODES, base, kind
from vision.camera.zones import TILE_H_MM, TILE_W_MM, Zone, before_in_pond, seat_order_key, zone_at
from vision.finding.faint_tiles import FAINT_HEAT, tiles_at_faint_peaks
from vision.finding.learned import find_tiles_topdown, with_outline_edges

NOT_A_TILE = "none"
FACE_DOWN = "back"
#: The least probability a sighting gives a label when fused: one frame the classifier reads
#: surely wrong (a glare, a sleeve) weighs as much as about two frames that are sure of the
#: right reading, not without bound.
FLOOR = 1e-3
#: Two sightings nearer than this (table mm) are of one tile: no two tiles' centres lie
#: within half a tile's width (side by side they are a tile's width apart, a riichi tile more).
SAME_PLACE_MM = TILE_W_MM / 2
#: Looks at a pond with no hand over it kept to date a tile by (:meth:`TableTracker._first_seen`):
#: a few seconds of a pond being read.
CLEAR_LOOKS = 64
#: Two pond tiles' centres nearer than this (table mm) overlap, which tiles lying flat cannot:
#: side by side they are a tile's width apart (26 mm), a row behind a tile's length, and the
#: tracker's places waver by a millimetre or two.
OVERLAP_MM = 0.75 * TILE_W_MM
#: A found tile's outline shorter than this share of a tile's length in the calibrated view is
#: part of a tile. On the film the parts read were 0.59-0.79 (a hand over the rest, a second
#: box on a tile), whole tiles' boxes 0.83 and up (1 in 100 under 0.83); the demo's flat art
#: has a 9p boxed 0.836 long in every frame. (Looser than the finder's ``SHORT_OF_A_TILE``,
#: 0.85, which picks the halves of a tile lying across to join: at 0.85 that 9p was lost.)
WHOLE_TILE = 0.8
#: A box this many times a tile's length long, or its width wide, in the calibrated view is a
#: tile the finder boxed big, into the places about it (a finder's box is good to a
#: millimetre or two an edge). On the film (seed 14) a 2s was boxed 38 x 49 mm, into the tile
#: just laid in the row behind it, which no box of that look found: that look did not see the
#: place bare (:meth:`TableTracker._looks_at`).
BOXED_BIG = 1.3
#: How much nearer than a tile across can lie to its neighbour (half a length and half a
#: width) a tile's centre may be found and still be across: the tracker's places of tiles
#: are good to about a millimetre.
ACROSS_SLACK_MM = 2.0
#: Faces that look alike turned a quarter (one circle, four, five or nine in a square, the
#: blank white dragon): the finder can box such a tile lying the wrong way in most frames, so
#: its place beside its neighbour has the last word on whether it lies across. Any other face
#: shows the finder which way it lies, and its box is believed when it is a face at all (read
#: surely, :data:`SURE_OF_ITS_WAY`): a dark 3s lying across after an upright 2p was boxed 9 mm
#: into the 2p, too close by its place, and its riichi was lost.
QUARTER_ALIKE = frozenset({"1p", "4p", "5p", "0p", "9p", "5z"})
#: A face read this surely is a tile's face. One read less surely may not be one at all: on
#: the solid demo a box across the halves of two pond tiles read as a 2m at 0.39. (The
#: classifier reads a face turned any quarter alike, so its confidence says nothing of which
#: way the box lies; the finder, which sees the face's strokes and outline, says that.)
SURE_OF_ITS_WAY = 0.8
#: How much more strongly the picture's edges must run along the outline of a tile lying the
#: other way than along its box for the outline to overrule the box (:func:`_edges_turn_it`).
EDGES_TURN_IT = 2.5
#: The least step (grey levels, as three quarters of a side reach it) the outline of a tile
#: lying the other way must show to overrule its boxes (:func:`_edges_turn_it`). On the films'
#: dark tables a dark face's outline barely shows on the dark felt, and the strokes of its face
#: and its neighbours' seams are all there is: two upright tiles, a 4m (seed 4) and a 9m (seed
#: 7), ran 6.5 and 7.9 along the outline across, three and four times their own, and were
#: reported riichi tiles. The outlines that turn a tile where it lies across: 15 for an ivory
#: tile on an ivory table nearly as light, 22-92 on the solid demo's tables.
OUTLINE_SEEN = 10.0
#: Its own outline found about the box this nearly as strongly as the other way's: the box
#: lay off the tile, and the edges do not turn it. Moved about, the other way's outline
#: catches two sides of a tile at a corner, half of what the tile's own gives, so a tile that
#: lies the other way keeps well under this.
OWN_OUTLINE_THERE = 0.8
#: A pond tile boxed lying across its seat lies the other way in a sighting when its face cut
#: so leaves at most this share of the doubt (one less its confidence) its box's cut leaves,
#: and its box's cut reads another tile or less surely than :data:`SURE_AS_BOXED`
#: (:meth:`TableTracker._read_turned`). Over fifteen plays of the film (five seeds measured,
#: five at each of two repeatable schedules), of 495 sightings of upright tiles boxed across,
#: 323 read so (the dark 6z, 9p and 7p reported riichi tiles before among them); of the 142
#: of the film's riichi tiles boxed across, none (0.47 of the doubt at the least: a dark 3s
#: read 0.945 as boxed, 0.974 turned).
TURNED_DOUBT = 1 / 3
#: A face read this surely as boxed is read as boxed, however much surer it reads cut the
#: other way: some faces read as well or better from the strip of them the other cut shows.
#: On the solid demo's tables a riichi 3s boxed across read 0.95-0.97 as boxed and 0.99 cut
#: upright, and 21 of 252 sightings of riichi tiles boxed across were turned without this.
#: The riichi tiles boxed across on the films and demos read 0.90 as boxed at the least; the
#: dark 6z above 0.80-0.83.
SURE_AS_BOXED = 0.87
#: How long before a pond tile was last seen a caller may have laid tiles of the meld it went
#: into (the two from the hand shown first, then the discard taken).
CALL_LAID_BEFORE_NS = 3_000_000_000
#: A tile only the finder's faint heat showed (from FAINT_HEAT up to its threshold; see
#: :mod:`vision.finding.faint_tiles`, made for blank white dragons, which read 0.97 there) is
#: seen only where the classifier reads it at least this surely. On the film's second table
#: the dark seat light of an automatic table's centre panel reaches into seat 1's pond: its
#: end, at heat 0.21, read as the Black set's blank (a dark face) at 0.46-0.49, and was
#: reported once read five times; a false blank at 0.59 came of heat from 0.15.
FAINT_READ = 0.6


@dataclass
class Track:
    """One tile the tracker believes lies at (x, y) mm in ``zone``."""

    id: int
    zone: Zone
    x: float
    y: float
    across: bool
    face_down: bool
    first_ns: int
    last_ns: int
    seen: int = 1
    missing: int = 0
    votes: Counter = field(default_factory=Counter)
    #: sightings lying across and upright: a square-ish face (a 1p, a blank) can come out of
    #: the finder turned a quarter in one frame and not the next
    turns: Counter = field(default_factory=Counter)
    conf: defaultdict = field(default_factory=lambda: defaultdict(float))
    confirmed: bool = False
    #: fused reading (``fuse=True``): the classifier's log-probabilities over ``labels``
    #: summed over the sightings read afresh (``looks``), its probabilities summed
    #: (``support``), and each sighting's own best label
    labels: tuple[str, ...] | None = field(default=None, repr=False)
    evidence: np.ndarray | None = field(default=None, repr=False)
    support: np.ndarray | None = field(default=None, repr=False)
    looks: int = 0
    tops: Counter = field(default_factory=Counter)
    #: t_ns of the first sighting (``first_ns`` is the first frame that showed the place)
    seen_ns: int = 0
    #: what its first ``stable_frames`` sightings read, by their votes, the confidence
    #: averaged over them, and the t_ns of the last: the reading without fusion (kept to
    #: measure fusion by, bench/film_reading.py)
    early: tuple[str, float, int] | None = None
    thumb: np.ndarray | None = None
    #: the latest crop read (shown to the referee when a reading is unsure)
    crop: np.ndarray | None = field(default=None, repr=False)
    #: found where a called tile left, behind a newer tile of its seat
    #: (``TableTracker._returned``): no discard, and never the seat's latest, which a call
    #: could take
    behind: bool = False
    #: how strongly the picture's edges ran along the outline of a tile standing upright in
    #: the view and lying across, at its place when it was confirmed, and the most each ran
    #: moved a little about it (``FoundTile.edges``)
    edges: tuple[float, float, float, float] | None = None

    @property
    def label(self) -> str:
        if self.evidence is not None and not self.face_down:
            # a tracked tile is a tile: the frames read as none or face down were not counted
            z = self.evidence.copy()
            for other in (NOT_A_TILE, FACE_DOWN):
                if other in self.labels:
                    z[self.labels.index(other)] = -np.inf
            return self.labels[int(np.argmax(z))]
        return self.votes.most_common(1)[0][0]

    @property
    def confidence(self) -> float:
        label = self.label
        if self.evidence is not None and not self.face_down:
            return self.fused(label)
        return self.conf[label] / max(self.votes[label], 1)

    def fused(self, label: str) -> float:
        """The fused confidence in ``label``: its probability averaged over the sightings (0
        for a label the classifier does not have). The label is the one the summed
        log-probabilities favour, so one frame that reads the tile surely otherwise outweighs
        many that are half sure; its confidence is no surer than the frames were on average,
        one that disagrees counting near zero. (Their renormalised product would be far
        surer: the frames of a still tile are not independent looks.)"""
        if self.support is None or label not in self.labels:
            return 0.0
        return float(self.support[self.labels.index(label)] / max(self.looks, 1))

    def read_as(self, label: str) -> None:
        """Believe ``label`` from now on (a referee's correction)."""
        seen = max(sum(self.votes.values()), 1)
        self.votes = Counter({label: seen})
        self.conf[label] = float(seen)
        if self.evidence is not None:
            if label not in self.labels:
                self.evidence = self.support = None
            else:
                k = self.labels.index(label)
                self.evidence = np.full(len(self.labels), np.log(FLOOR) * self.looks)
                self.evidence[k] = 0.0
                self.support = np.zeros(len(self.labels))
                self.support[k] = self.looks

    def key(self) -> tuple[float, float]:
        """Reading order for its seat: rows (about a tile deep) top to bottom, then left to
        right."""
        down, right = seat_order_key(self.zone, self.x, self.y)
        return (round(down / 30.0), right)


def _thumb(crop: np.ndarray) -> np.ndarray:
    g = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop
    return cv2.resize(g, (12, 16) if g.shape[0] >= g.shape[1] else (16, 12),
                      interpolation=cv2.INTER_AREA).astype(np.int16)


class TableTracker:
    """Turns top-down frames into table events.

    ``zones``: the table's zones (from the calibration). ``classifier``: anything with
    ``classify(crops) -> [(label, confidence)]``
    (:class:`vision.reading.classifier.TileClassifier`).
    ``px_per_mm``: scale of the frames. ``stable_frames``: clear sightings before a tile is
    believed. ``gone_frames``: frames in plain view without it before a tile has left.
    ``min_confidence``: sightings the classifier is less sure of are not counted.
    ``report_first_dora``: the first indicator of a hand belongs to its ``hand_start``; it is
    kept in ``first_dora`` and reported as a ``dora`` event only when this is True.
    ``finder``: a :class:`vision.finding.learned.TileFinder` to find the tiles of each frame with
    (None: the felt-colour finder, for flat printed tiles; the table service and the demo
    give it the learned one unless the config's ``[camera] finder`` says ``"felt"``;
    vision/README.md).
    ``fuse``: fuse each tile's readings over its frames in plain view (the module docstring);
    False reads it by its first ``stable_frames`` sightings' votes. ``sure``: a fused reading
    at least this probable, every sighting agreeing, is reported without waiting (the table's
    confidence threshold). ``fuse_reads``, ``fuse_wait_s``: a reading not yet sure is read on
    for at most this many sightings, or this long after its first (table clock).
    """

    def __init__(self, zones: list[Zone], classifier, px_per_mm: float = 2.0,
                 stable_frames: int = 3, gone_frames: int = 3, min_confidence: float = 0.3,
                 report_first_dora: bool = False, finder=None, fuse: bool = False,
                 sure: float = 0.8, fuse_reads: int = 5, fuse_wait_s: float = 0.6):
        self.zones = list(zones)
        self.classifier = classifier
        self.px_per_mm = float(px_per_mm)
        self.stable_frames = int(stable_frames)
        self.gone_frames = int(gone_frames)
        self.min_confidence = float(min_confidence)
        self.report_first_dora = report_first_dora
        self.finder = finder
        #: the least heat the finder calls a tile; below it (from FAINT_HEAT) a box is faint
        #: (no learned finder: no faint boxes)
        self._finder_threshold = float(getattr(finder, "threshold", FAINT_HEAT))
        self.fuse = bool(fuse)
        self.sure = float(sure)
        self.fuse_reads = int(fuse_reads)
        self.fuse_wait_ns = int(fuse_wait_s * 1e9)
        self._vocabulary: tuple[str, ...] | None = None
        self._held_out: list[dict] = []
        #: ``onset(rect_mm, t_ns, first_sight=False) -> t_ns | None``: the first frame that
        #: showed a place as it looked at ``t_ns``
        #: (:meth:`vision.tracking.change.ChangeDetector.onset`); a new tile is stamped with
        #: it (``first_sight``) rather than with the frame recognition happened to run on.
        self.onset = None
        #: ``uncovered(rect_mm, t_ns) -> t_ns | None``: the frame a place last came into view,
        #: when the detector saw nothing come there
        #: (:meth:`vision.tracking.change.ChangeDetector.uncovered`)
        self.uncovered = None
        #: ``relit(rect_mm, t_ns) -> t_ns | None``: when a place took its settled look, if it
        #: has changed since only by the light
        #: (:meth:`vision.tracking.change.ChangeDetector.relit`)
        self.relit = None
        self._ids = itertools.count(1)
        self.new_hand()

    def watch(self, detector) -> None:
        """Date new tiles by ``detector`` (a :class:`~vision.tracking.change.ChangeDetector`
        seeing every camera frame): its :attr:`onset`, :attr:`uncovered` and :attr:`relit`."""
        self.onset = detector.onset
        self.uncovered = detector.uncovered
        self.relit = detector.relit

    def new_hand(self) -> None:
        """Forget the table (call when a new hand is dealt)."""
        self.tracks: list[Track] = []
        self.melds: dict[int, list[dict]] = {s: [] for s in range(4)}   # emitted, per seat
        self._meld_members: dict[int, list[set[int]]] = {s: [] for s in range(4)}
        self._meld_pending: dict[tuple, tuple[frozenset, int]] = {}
        self._reveal_pending: dict[int, tuple[frozenset, int]] = {}
        self.revealed: set[int] = set()
        self.left_ponds: list[dict] = []    # pond tiles that were taken (called)
        self.frames = 0
        self.first_dora: str | None = None
        #: pond tiles read unsure that a tile read surely overlaps (:meth:`_overlapping`)
        self._no_tiles: set[int] = set()
        #: pond tiles seen too few times to be believed and lost, since the last call: their
        #: zone, place (table mm), reading and first frame (:meth:`_glimpsed_first`)
        self._glimpses: list[tuple[Zone, float, float, str, int]] = []
        #: per pond, its latest looks with no hand over it: when, where the finder boxed
        #: anything in it then, and the boxes of those that were too big for a tile (table
        #: mm: centres, and x1, y1, x2, y2) (:meth:`_first_seen`)
        self._clear_looks: dict[Zone, deque] = defaultdict(lambda: deque(maxlen=CLEAR_LOOKS))

    def find_tiles(self, view: np.ndarray, px_per_mm: float, rows_along: int | None = None):
        """The tiles in a top-down ``view`` (the table or a zone of it), found with this
        tracker's finder; what :class:`~vision.tracking.zone_finder.ZoneFinder` runs zone by zone.
        ``rows_along``: the view is of a pond whose rows run along this axis (0: x, 1: y)
        (:func:`~vision.finding.learned.split_pairs`)."""
        # faces cut at the size the classifier reads them, where it says what that is
        width = getattr(self.classifier, "input_width", None)
        # the learned finder is asked for what it saw faintly too
        found = find_tiles_topdown(view, px_per_mm, self.finder, width, faint=FAINT_HEAT,
                                   rows_along=rows_along)
        # a tile the finder saw only faintly, alone (a blank white dragon): the classifier
        # says whether it is one
        found.tiles += tiles_at_faint_peaks(found.tiles, found.faint, view, px_per_mm, width)
        if self.finder is not None:
            # a new discard's box may lie the wrong way: its outline is asked (once confirmed)
            with_outline_edges(found.tiles, view, px_per_mm)
        return found

    # -- one frame -------------------------------------------------------------------------
    def update(self, frame: np.ndarray | None, t_ns: int, finding=None,
               zones: list[Zone] | None = None) -> list[dict]:
        """Look at one top-down frame taken at ``t_ns`` (monotonic ns); return new events.

        ``finding``: the tiles, when the caller found them itself (in some zones only, say);
        else the finder runs on ``frame``. ``zones``: the zones that were looked at; tiles
        elsewhere are left as they were (default: all of them).
        """
        self.frames += 1
        ppm = self.px_per_mm
        if finding is None:
            finding = self.find_tiles(frame, ppm)
        # most frames hide nothing: then no tile touches a hand, and widening an empty mask
        # and looking into it for each tile (some 2.5 ms and 100 means a frame) tells nothing
        hidden = cv2.dilate(finding.occluded, np.ones((int(6 * ppm) | 1, int(6 * ppm) | 1),
                                                      np.uint8)) \
            if cv2.countNonZero(finding.occluded) else None
        candidates = []
        boxed: dict[Zone, list[tuple[float, float]]] = defaultdict(list)
        boxed_big: dict[Zone, list[tuple[float, ...]]] = defaultdict(list)
        for tile in finding.tiles:
            cx, cy = tile.centre
            zone = zone_at(self.zones, cx / ppm, cy / ppm)
            if zone is None or (zones is not None and zone not in zones):
                continue
            boxed[zone].append((cx / ppm, cy / ppm))
            if _big(tile, ppm):
                boxed_big[zone].append(tuple(v / ppm for v in tile.box))
            if hidden is not None and _touches(hidden, tile.box):
                continue   # touching a hand: not a clear view
            if not _whole(tile, ppm):
                continue   # a part of a tile: a hand the finder did not mask over the rest
            candidates.append((tile, zone))
        thumbs = [_thumb(tile.crop) for tile, _ in candidates]
        labels, probabilities, asked = self._classify(candidates, thumbs)
        turned = self._read_turned(candidates, asked, labels, probabilities)
        # a box read as no tile (a faint fleck where a hand just left) lies beyond no new
        # discard in its pond (_first_seen)
        no_tile = {(tile.centre[0] / ppm, tile.centre[1] / ppm)
                   for (tile, _), (label, _) in zip(candidates, labels) if label == NOT_A_TILE}
        events: list[dict] = []
        matched: set[int] = set()
        ready: list[Track] = []
        for k, ((tile, zone), thumb, (label, conf), p) in enumerate(
                zip(candidates, thumbs, labels, probabilities)):
            if label == NOT_A_TILE or conf < self.min_confidence:
                continue
            if conf < FAINT_READ and FAINT_HEAT <= tile.score < self._finder_threshold:
                continue    # seen faintly and read doubtfully: a mark of the table, not a tile
            cx, cy = tile.centre
            x, y = cx / ppm, cy / ppm
            # a face that reads far surer cut lying the other way lies so in this sighting
            across = tile.across != (k in turned)
            track = self._match(zone, x, y, label == FACE_DOWN, matched)
            if track is None and self._boxed_twice(x, y, matched):
                continue
            if track is None:
                track = Track(next(self._ids), zone, x, y, across, label == FACE_DOWN,
                              self._first_seen(tile, zone, t_ns,
                                               [b for b in boxed[zone] if b not in no_tile]), t_ns,
                              seen_ns=t_ns)
                self.tracks.append(track)
            else:
                track.seen += 1
                track.x += 0.3 * (x - track.x)
                track.y += 0.3 * (y - track.y)
            track.missing = 0
            track.last_ns = t_ns
            track.votes[label] += 1
            track.turns[bool(across)] += 1
            # sideways to its seat only when most sightings saw it so: a tie (a square-ish
            # face seen once each way) lies as its seat's tiles lie. Counter.most_common broke
            # ties by the first sighting, and a 1p seen turned first was reported a riichi tile.
            usual = bool(track.zone.rotation % 2)      # upright to seats 1 and 3 is across here
            track.across = (not usual) if track.turns[not usual] > track.turns[usual] else usual
            track.conf[label] += conf
            if p is not None and not track.confirmed:
                # a reported reading stays as reported: only the frames before it are fused
                track.labels = self._vocabulary
                if track.evidence is None:
                    track.evidence, track.support = np.zeros(len(p)), np.zeros(len(p))
                track.evidence += np.log(np.maximum(p, FLOOR))
                track.support += p
                track.looks += 1
                track.tops[label] += 1
            track.thumb = thumb
            track.crop = turned[k] if k in turned else tile.crop
            matched.add(track.id)
            if track.early is None and track.seen >= self.stable_frames:
                first = track.votes.most_common(1)[0][0]
                track.early = (first, track.conf[first] / sum(track.votes.values()), t_ns)
            if not track.confirmed and track.seen >= self.stable_frames and \
                    self._decided(track, t_ns):
                track.confirmed = True
                if track.zone.kind == "pond" and tile.edges is not None:
                    track.edges = tile.edges()
                ready.append(track)
        # reported once the whole frame is counted: whether a pond tile is a new discard
        # depends on the seat's other tiles seen in the same frame (_returned)
        for track in ready:
            events += self._on_confirmed(track)
        events += self._read_long_enough(t_ns, matched)
        self._held_out = []
        events += self._age(matched, hidden, zones, t_ns)
        events += self._held_out
        for zone in self.zones if zones is None else zones:
            if zone.kind == "pond" and not _hand_over(hidden, zone, ppm):
                self._clear_looks[zone].append((t_ns, boxed[zone], boxed_big[zone]))
        groups = self._groups()
        if any(e["type"] == "meld" for e in groups):
            self._glimpses = []     # a call may have taken a glimpsed tile: its place is free
        events += groups
        if self._no_tiles:
            self.tracks = [t for t in self.tracks if t.id not in self._no_tiles]
            self._no_tiles.clear()
        events.sort(key=lambda e: e["t"])
        return events

    def waiting_zones(self) -> set[Zone]:
        """Zones where the tracker needs more sightings before it is sure: a tile not yet
        confirmed, one not yet seen gone, a meld or an open hand not yet still."""
        out = {t.zone for t in self.tracks
               if not t.confirmed or 0 < t.missing < self.gone_frames}
        # (pending entries of groups already reported stay behind: they wait for nothing)
        seats = {("meld", seat) for seat, ids in self._meld_pending
                 if not any(m >= ids for m in self._meld_members[seat])} | \
            {("hand", seat) for seat in self._reveal_pending if seat not in self.revealed}
        out |= {z for z in self.zones if (z.kind, z.seat) in seats}
        return out

    def _decided(self, track: Track, t_ns: int) -> bool:
        """Whether a tile seen ``stable_frames`` times is to be reported now: always without
        fusion; with it, when its sightings agree and their fused reading is sure, or it has
        been read long enough (``fuse_reads``, ``fuse_wait_s``)."""
        if not self.fuse or track.face_down or track.evidence is None:
            return True
        if len(track.tops) == 1 and track.confidence >= self.sure:
            return True
        return track.looks >= self.fuse_reads or t_ns - track.seen_ns >= self.fuse_wait_ns

    def _read_long_enough(self, t_ns: int, matched: set[int]) -> list[dict]:
        """Report the tiles held for a surer reading whose time is up, though not seen in
        this frame (a hand over them, a frame that missed them): with what they have."""
        events = []
        for track in self.tracks:
            if not track.confirmed and track.id not in matched and \
                    track.seen >= self.stable_frames and \
                    t_ns - track.seen_ns >= self.fuse_wait_ns:
                track.confirmed = True
                events += self._on_confirmed(track)
        return events

    def _first_seen(self, tile, zone: Zone, t_ns: int, boxed=()) -> int:
        """When ``tile`` (seen at ``t_ns`` in ``zone``, with the places ``boxed`` in that
        zone in this look) first showed: the change detector's onset of its place when there
        is one, else ``t_ns``.

        A dark face on a dark table can look to the change detector's few samples a cell like
        the table under it; then no cell of its place changed when it landed, and the onset
        was the frame its place last settled (seed 7's dark hand: 27 discards, read surely,
        stamped at 0 s). So the looks at its pond with no hand over it that boxed nothing at
        its place (:attr:`_clear_looks`) weigh in:

        - an onset no later than the last of them, where the detector saw nothing come (most
          of the place looks as it was settled), gives way to the frame the place last came
          into view after that look (:meth:`ChangeDetector.uncovered`): the hand that laid it
          left then (seed 7: a 4p found at 64.0 s, stamped 21.5 s, comes to 63.8, its first
          frame). Not when a tile lies beyond it in its pond: the hand that uncovered it
          laid that one, and the dark finder had missed this one (seed 9's 3p, dated right by
          its onset, would have been 6.1 s late). A box there the reader names no tile is
          none: seed 7's 3p, laid at 65.3 s, was dated 33.5 s (its place had changed then)
          by a faint box beyond it, read as ``none``, where the hand had just left;
        - else an onset no later than every one of them is dated by this sighting: late
          rather than early. An onset after a bare look is kept: the detector saw the place
          change, and the dark finder can miss a tile in a later look (seed 9: the same 3p
          was dated 6.5 s late when any later bare look could overrule it).

        Before those: a tile the light hid when it landed is dated by its place's settled look
        (:meth:`ChangeDetector.relit`) when that look was all the place showed before the light
        changed and a clear look boxed something at its place while it lasted (seed 8: a dark 2z
        laid at 4.0 s under a glare, boxed in part and read as other tiles until the glare
        lifted at 9.57 s, was stamped then, when the onset saw its place change). Not before a
        clear look in that time that boxed nothing there: then the settled look may have been
        the bare table's (a dark face is like it), and the tile is dated by the first look
        that boxed it."""
        if self.onset is None:
            return t_ns
        ppm = self.px_per_mm
        x1, y1, x2, y2 = (v / ppm for v in tile.box)
        first = self.onset((x1, y1, x2, y2), t_ns, first_sight=True)
        if first is None:
            return t_ns
        x, y = tile.centre[0] / ppm, tile.centre[1] / ppm
        looks = self._looks_at(zone, x, y, t_ns)
        lit = self.relit((x1, y1, x2, y2), t_ns) if self.relit is not None else None
        if lit is not None and lit < first:
            boxed_then = [t for t, there in looks if there and lit <= t < first]
            if boxed_then:
                seen_bare = any(not there and lit <= t < boxed_then[0] for t, there in looks)
                return boxed_then[0] if seen_bare else lit
        bare = [t for t, there in looks if not there]
        if bare and first <= bare[-1] and self.uncovered is not None and \
                not any(before_in_pond(zone, (x, y), b) for b in boxed):
            since = self.uncovered((x1, y1, x2, y2), t_ns)
            if since is not None and bare[-1] < since:
                return since
        if bare and first <= bare[0]:
            return t_ns
        return min(int(first), t_ns)

    def _looks_at(self, zone: Zone, x: float, y: float, before_ns: int) -> list[tuple[int, bool]]:
        """The clear looks at ``zone`` (:attr:`_clear_looks`) before ``before_ns``: when, and
        whether each boxed anything, in part too, at the place (x, y) table mm: a tile there,
        or a box too big for a tile (:data:`BOXED_BIG`) that reaches into the place (the
        place's middle within half a tile's width of the box). Such a box is the finder seeing
        the place blurred into the tile beside it, not seeing it bare."""
        reach = TILE_W_MM / 2
        return [(t, any(np.hypot(bx - x, by - y) < SAME_PLACE_MM for bx, by in where) or
                 any(x1 - reach < x < x2 + reach and y1 - reach < y < y2 + reach
                     for x1, y1, x2, y2 in big))
                for t, where, big in self._clear_looks.get(zone, ()) if t < before_ns]

    def _classify(self, candidates, thumbs):
        """Labels for the candidates, (when fusing) the classifier's probabilities over its
        labels for each crop it read (None for the rest), and which it read (their indices);
        a confirmed tile whose crop (``thumbs``: the candidates' thumbnails) has not changed
        keeps its label without asking the classifier again (most of a table is still)."""
        out: list[tuple[str, float] | None] = [None] * len(candidates)
        probabilities: list[np.ndarray | None] = [None] * len(candidates)
        ask, ask_idx = [], []
        for i, (tile, zone) in enumerate(candidates):
            cx, cy = tile.centre
            x, y = cx / self.px_per_mm, cy / self.px_per_mm
            for track in self.tracks:
                # zones are compared by identity: a tile's zone is always one of self.zones
                # (zone_at), and a dataclass's == built two tuples each time, some 45 000 a
                # frame on a full table (a fifth of a frame that reads one new tile)
                if track.confirmed and track.zone is zone and track.thumb is not None and \
                        abs(track.x - x) < 4 and abs(track.y - y) < 4:
                    thumb = thumbs[i]
                    if thumb.shape == track.thumb.shape and \
                            np.abs(thumb - track.thumb).mean() < 6:
                        out[i] = (track.label, track.confidence)
                    break
            if out[i] is None:
                ask.append(tile.crop)
                ask_idx.append(i)
        for i, (label, conf, row) in zip(ask_idx, self._read(ask)):
            out[i] = (label, conf)
            probabilities[i] = row
        return out, probabilities, ask_idx  # type: ignore[return-value]

    def _read(self, crops) -> list[tuple[str, float, np.ndarray | None]]:
        """The classifier's best label and confidence for each of ``crops``, and (when fusing)
        its probabilities over its labels (None without fusion)."""
        if not crops:
            return []
        if self.fuse:
            labels, p = self._probabilities(crops)
            return [(labels[int(np.argmax(row))], float(row.max()), row) for row in p]
        return [(str(label), float(conf), None) for label, conf in self.classifier.classify(crops)]

    def _read_turned(self, candidates, asked: list[int], labels: list, probabilities: list
                     ) -> dict[int, np.ndarray]:
        """Pond tiles boxed lying across their seat (of ``asked``, the candidates the
        classifier read this frame), read again cut lying the other way (``FoundTile.turned``).
        Those whose face reads far surer so (:data:`TURNED_DOUBT`), and did not read surely
        as boxed (:data:`SURE_AS_BOXED`), lie the other way in this sighting: their reading
        (``labels``, ``probabilities``) becomes that one, and they are given as index: face.

        A riichi tile is the one tile of a pond that lies across, and the finder can box an
        upright tile across: on a film of dark tiles, three discards of one seat in one hand
        were reported riichi tiles so, one of them a 7p read as a 6p at 0.88 from the box's
        cut (its lower circles), which read as a 7p at 0.97 cut upright. Cut the wrong way, a
        face loses a strip of itself and shows a strip of its neighbours."""
        idx = [i for i in asked if candidates[i][1].kind == "pond"
               and candidates[i][0].turned is not None
               and _across_its_seat(candidates[i][0].across, candidates[i][1])]
        faces = [candidates[i][0].turned() for i in idx]
        out = {}
        for i, face, (label, conf, row) in zip(idx, faces, self._read(faces)):
            own, own_conf = labels[i]
            if label in TILE_CODES and 1 - conf <= TURNED_DOUBT * (1 - own_conf) and \
                    (label != own or own_conf < SURE_AS_BOXED):
                labels[i] = (label, conf)
                probabilities[i] = row
                out[i] = face
        return out

    def _probabilities(self, crops) -> tuple[tuple[str, ...], np.ndarray]:
        """The classifier's labels and its probabilities for ``crops`` (N x labels). A
        classifier that gives only its best label and confidence (a test's art matcher) is
        taken to spread the rest evenly over its other labels."""
        read = getattr(self.classifier, "probabilities", None)
        if read is not None:
            self._vocabulary = tuple(self.classifier.labels)
            return self._vocabulary, np.asarray(read(crops), np.float64)
        if self._vocabulary is None:
            own = getattr(self.classifier, "labels", ())
            self._vocabulary = tuple(dict.fromkeys([*own, *TILE_CODES, FACE_DOWN, NOT_A_TILE]))
        vocab = self._vocabulary
        p = np.empty((len(crops), len(vocab)))
        for row, (label, conf) in zip(p, self.classifier.classify(crops)):
            conf = float(conf)
            row[:] = (1.0 - conf) / (len(vocab) - 1)
            row[vocab.index(str(label))] = conf
        return vocab, p

    def _match(self, zone, x, y, face_down, taken) -> Track | None:
        """The track of the tile seen at (x, y) mm: the nearest one within half a tile's
        width. Lying across or upright does not part two sightings: no two tiles' centres lie
        that close, and a tile seen turned in one frame is the same tile, not a new discard."""
        best, best_d = None, SAME_PLACE_MM
        for track in self.tracks:
            if track.id in taken or track.zone is not zone or \
                    track.face_down != face_down:
                continue
            d = float(np.hypot(track.x - x, track.y - y))
            if d < best_d:
                best, best_d = track, d
        return best

    def _boxed_twice(self, x: float, y: float, matched: set[int]) -> bool:
        """Whether a tile seen at (x, y) mm is one already seen in this frame, boxed a second
        time (:data:`SAME_PLACE_MM`). The film's finder boxed a 3m twice, 10 mm apart, and it
        was reported twice, sure both times."""
        return any(track.id in matched and np.hypot(track.x - x, track.y - y) < SAME_PLACE_MM
                   for track in self.tracks)

    def _age(self, matched: set[int], hidden: np.ndarray | None,
             zones: list[Zone] | None = None, t_ns: int | None = None) -> list[dict]:
        """Count frames in plain view without each unseen tile; drop the ones gone. Tiles
        outside ``zones`` (when given) were not looked at. A reported pond tile whose place
        looks as it did when it was last seen there (:meth:`_place_unchanged`) is not missing:
        the finder missed it. ``hidden``: what hands cover, widened (None: nothing)."""
        ppm = self.px_per_mm
        keep = []
        # A call takes a seat's latest discard; no other tile leaves a pond during a hand. An
        # older pond tile not found (a misread, a crop cut badly) is still there: dropping it
        # would report it again as a new discard when it is next read.
        latest: dict[int, Track] = {}
        for track in self.tracks:
            if track.confirmed and track.zone.kind == "pond" and not track.face_down and \
                    not track.behind:
                seat = track.zone.seat
                if seat not in latest or track.first_ns >= latest[seat].first_ns:
                    latest[seat] = track
        for track in self.tracks:
            if track.id in matched or (zones is not None and track.zone not in zones):
                keep.append(track)
                continue
            px, py = int(track.x * ppm), int(track.y * ppm)
            r = int(0.5 * TILE_W_MM * ppm)
            if hidden is not None and hidden[max(py - r, 0):py + r, max(px - r, 0):px + r].any():
                keep.append(track)          # under a hand: still there as far as we know
                continue
            if track.confirmed and track.zone.kind == "pond" and \
                    self._place_unchanged(track, t_ns):
                keep.append(track)
                continue
            track.missing += 1
            if not track.confirmed and track.seen < self.stable_frames:
                if track.zone.kind == "pond" and not track.face_down:
                    self._glimpses.append((track.zone, track.x, track.y, track.label,
                                           track.first_ns))
                continue                    # a glimpse never confirmed: forget it
            if not track.confirmed:
                # seen enough, held for a surer reading, and now not found: report it with
                # what it has rather than lose it (it would have been reported already)
                track.confirmed = True
                self._held_out += self._on_confirmed(track)
                keep.append(track)
                continue
            if track.missing >= self.gone_frames:
                if track.zone.kind == "pond" and not track.face_down and \
                        latest.get(track.zone.seat) is not track:
                    keep.append(track)
                    continue
                if track.zone.kind == "pond" and not track.face_down:
                    self.left_ponds.append({"seat": track.zone.seat, "tile": track.label,
                                            "t": track.last_ns / 1e9, "zone": track.zone,
                                            "x": track.x, "y": track.y,
                                            "last_ns": track.last_ns})
                continue
            keep.append(track)
        self.tracks = keep
        return []

    def _place_unchanged(self, track: Track, t_ns: int | None) -> bool:
        """Whether ``track``'s place has looked as it does at ``t_ns`` since before the tile
        was last seen there (the change detector's :attr:`onset`): a tile cannot leave without
        its place changing, so a tile not found there was missed by the finder. Re-reads of a
        still picture miss a tile the finder missed once (dark faces on a dark centre panel:
        three misses in a row took a seat's latest discard for called, and it was reported
        again, sure, when next found). False when nothing can tell (no detector, no look)."""
        if self.onset is None or t_ns is None:
            return False
        w, h = (TILE_H_MM, TILE_W_MM) if track.across else (TILE_W_MM, TILE_H_MM)
        # the middle of the face: a neighbour laid against it must not count as its change
        rect = (track.x - w / 4, track.y - h / 4, track.x + w / 4, track.y + h / 4)
        first = self.onset(rect, t_ns)
        return first is not None and first <= track.last_ns

    def _returned(self, track: Track) -> bool:
        """Whether a pond tile about to be reported lies where one of its seat's tiles left
        (:attr:`left_ponds`) and is no new discard. A call takes a seat's latest discard, and
        the seat's next discard is laid in its place at the end of the pond; so a tile found
        there is not a discard when its place has looked so since before the tile that left
        was last seen there (it never left: the finder lost it while a hand laid the next
        discard beside it, say), or when another tile of the seat already lies beyond it in
        the pond (the tile that left, found again; or what is read in the hole a called tile
        left). It is kept, silently, as a pond tile; the tile that left, seen again with its
        reading, is taken off :attr:`left_ponds`."""
        zone = track.zone
        for k, left in enumerate(self.left_ponds):
            if left.get("zone") is not zone or \
                    np.hypot(left["x"] - track.x, left["y"] - track.y) >= SAME_PLACE_MM:
                continue
            # any tile held beyond, one seen once included: a lone sighting not found again in
            # plain view is dropped as a glimpse (_age), so one still held is a tile a hand rests
            # on (the film's seed 0: the hole read surely while the next discard was seen once)
            beyond = any(other is not track and other.zone is zone and not other.face_down and
                         _later_in_pond(zone, (other.x, other.y), (left["x"], left["y"]))
                         for other in self.tracks)
            if track.first_ns <= left["last_ns"] or beyond:
                if track.label == left["tile"]:
                    del self.left_ponds[k]
                track.behind = beyond
                return True
            if track.label == left["tile"] and not self._laid_in_melds_since(left):
                del self.left_ponds[k]
                return True
        return False

    def _laid_in_melds_since(self, left: dict) -> bool:
        """Whether a tile of ``left``'s kind (a pond tile taken for gone, :attr:`left_ponds`;
        a red five as a five) has been laid in another seat's meld area since it was last
        seen, or shortly before: a call takes a discard into a meld, and the meld shows it.
        With none, the tile that left, found again at its place reading the same, never
        left: on the film a dark 3z was lost for two seconds after a hand passed and was
        reported a second time, sure, where it lay; and another time, while a dark 3z lay
        lost under a glare, another seat called a 4s (a chii of 2s, 3s and 4s laid), which
        is no call of the 3z. (A meld reported or not: its tiles are tracked either way.)"""
        since = left["last_ns"] - CALL_LAID_BEFORE_NS
        laid = [t for t in self.tracks if t.zone.kind == "meld" and t.zone.seat != left["seat"]
                and t.first_ns >= since]
        if left["tile"] not in TILE_CODES:
            return bool(laid)
        its_kind = base(left["tile"])
        return any(not t.face_down and t.label in TILE_CODES and base(t.label) == its_kind
                   for t in laid)

    def _too_close_to_lie_across(self, track: Track) -> bool:
        """Whether a pond tile the finder saw lying across lies too close to the seat's tile
        before it in its row to be lying across: a tile across is a tile's length wide, so
        its centre lies at least half a length and half the other tile's width (less
        :data:`ACROSS_SLACK_MM`) from its neighbour's. A face that looks alike turned a
        quarter (a 1p's circle, :data:`QUARTER_ALIKE`) can come out of the finder lying across
        in most frames; its place says it is upright, and it is no riichi tile. (A tile that
        lies far from its neighbour tells nothing: players leave gaps.) Asked only of a face
        that does not show its way (:func:`_shows_its_way`)."""
        down, right = seat_order_key(track.zone, track.x, track.y)
        before, at = None, -np.inf
        for other in self.tracks:
            if other is track or other.zone is not track.zone or not other.confirmed or \
                    other.face_down or other.behind:
                continue
            d, r = seat_order_key(other.zone, other.x, other.y)
            if abs(d - down) < TILE_H_MM / 2 and at < r < right:
                before, at = other, r
        if before is None:
            return False
        reach = (TILE_H_MM if _sideways(before) else TILE_W_MM) / 2 + TILE_H_MM / 2
        return right - at < reach - ACROSS_SLACK_MM

    def _lies_sideways(self, track: Track) -> bool:
        """Whether a pond tile lies across as its seat sees it: a riichi tile. As its boxes lay
        in most frames, unless its face does not show its way and its place says otherwise;
        boxed upright, when its outline's edges say it lies across and its place allows."""
        if _sideways(track):
            return _shows_its_way(track) or not self._too_close_to_lie_across(track)
        return _edges_turn_it(track) and not self._too_close_to_lie_across(track)

    # -- events ----------------------------------------------------------------------------
    def _on_confirmed(self, track: Track) -> list[dict]:
        if track.face_down:
            return []
        if track.zone.kind == "pond":
            track.first_ns = self._glimpsed_first(track)
        if track.zone.kind == "pond" and self._returned(track):
            return []
        if track.zone.kind == "pond":
            track.first_ns = self._laid_before_beyond(track)
        t = track.first_ns / 1e9
        conf = round(track.confidence, 3)
        if track.zone.kind == "pond":
            overlapping = self._overlapping(track)
            if track.confidence >= self.sure:
                self._no_tiles |= {o.id for o in overlapping if o.confidence < self.sure}
            elif any(o.confidence >= self.sure for o in overlapping):
                self._no_tiles.add(track.id)
                return []
            ev = {"type": "discard", "t": t, "seat": track.zone.seat, "tile": track.label}
            if self._lies_sideways(track):
                ev["riichi"] = True
            ev["confidence"] = conf
            return [ev]
        if track.zone.kind == "dora":
            if self.first_dora is None:
                self.first_dora = track.label
                if not self.report_first_dora:
                    return []
            return [{"type": "dora", "t": t, "indicator": track.label, "confidence": conf}]
        return []

    def _glimpsed_first(self, track: Track) -> int:
        """When a pond tile about to be reported first showed: its own first frame, or that of
        a glimpse of it lost before it was believed (:attr:`_glimpses`: seen fewer than
        ``stable_frames`` times, at its place and read as the same tile), since the last call.
        A dark 9p under a drifting glare was read at 0.63 in the frame it landed and then
        under 0.3 for seven seconds; the tracker forgot that sighting, and by the time the
        glare let it be read the change detector had settled its place, so it was stamped 7 s
        late: to a referee, a discard nobody made then, and a discard missed."""
        return min([track.first_ns] + [
            first for zone, x, y, label, first in self._glimpses
            if zone is track.zone and label == track.label and
            np.hypot(x - track.x, y - track.y) < SAME_PLACE_MM])

    def _laid_before_beyond(self, track: Track) -> int:
        """When a pond tile about to be reported was laid, given the tiles of its pond beyond
        it. A pond fills in order, so a tile was laid before every tile beyond it. Dated no
        earlier than one of them (by the onset its place showed when the finder first saw it
        whole), it was there unseen: it is dated by the first clear look that boxed its place,
        in part too, since its place was last seen bare twice running before that tile came
        (one bare look among looks that box it is the finder missing it, not the place
        empty). With no such look it keeps its date. Seed 9's dark North, laid at 20.5 s half
        under a burnt-out glare, was boxed only in part from 20.8 s and found whole only after
        the seat's next discard was laid beyond it: dated 29.27 s in one run (that discard
        28.03 s), 26.5 s in another, the very time of that discard; to a referee a discard
        nobody made then, and one missed."""
        zone = track.zone
        beyond = [other.first_ns for other in self.tracks
                  if other is not track and other.zone is zone and other.confirmed and
                  not other.face_down and not other.behind and
                  _later_in_pond(zone, (other.x, other.y), (track.x, track.y))]
        if not beyond or min(beyond) > track.first_ns:
            return track.first_ns
        since, bare = None, 0
        for t, there in reversed(self._looks_at(zone, track.x, track.y, min(beyond))):
            if there:
                since, bare = t, 0
            else:
                bare += 1
                if bare == 2:
                    break
        return track.first_ns if since is None else min(track.first_ns, since)

    def _overlapping(self, track: Track) -> list[Track]:
        """The reported pond tiles that ``track``, about to be reported, overlaps
        (:data:`OVERLAP_MM`). Two tiles cannot lie there: where one of the two is read surely
        and the other not, the sure one is the tile and the other none, a faint box that read
        as a tile now and then. The unsure one is not reported, or, reported already, is
        forgotten (at the end of the frame: the tracks are being walked); its report stays
        in the journal, unsure as it was, and the place is free for the next discard. On the
        film a bare patch of felt in a pond, boxed faintly from the first frame, was read as a
        white dragon at 0.41 and reported; it held that place all hand, so that the seat's 4p
        laid there later was taken for it and never reported."""
        return [other for other in self.tracks
                if other is not track and other.confirmed and other.zone is track.zone and
                not other.face_down and other.id not in self._no_tiles and
                np.hypot(other.x - track.x, other.y - track.y) < OVERLAP_MM]

    def _groups(self) -> list[dict]:
        events = []
        for seat in range(4):
            events += self._meld_events(seat)
            if seat not in self.revealed:
                events += self._reveal_event(seat)
        return events

    def _zone_tracks(self, kind_: str, seat: int) -> tuple[list[Track], bool]:
        """Confirmed tracks of a seat's zone in reading order, and whether all are settled."""
        tracks = [t for t in self.tracks if t.zone.kind == kind_ and t.zone.seat == seat]
        settled = all(t.confirmed for t in tracks)
        return sorted((t for t in tracks if t.confirmed), key=Track.key), settled

    def _meld_events(self, seat: int) -> list[dict]:
        tracks, settled = self._zone_tracks("meld", seat)
        if not tracks or not settled:
            for key in [k for k in self._meld_pending if k[0] == seat]:
                del self._meld_pending[key]
            return []
        events = []
        for group in self._meld_groups(seat, tracks):
            ids = frozenset(t.id for t in group)
            known = next((i for i, m in enumerate(self._meld_members[seat]) if m & ids), None)
            if known is not None and self._meld_members[seat][known] >= ids:
                continue
            if len(group) < 3:
                continue
            # wait until the group has stopped changing for stable_frames frames
            pending = self._meld_pending.get((seat, ids))
            if pending is None:
                self._meld_pending[(seat, ids)] = (ids, self.frames)
                continue
            if self.frames - pending[1] < self.stable_frames - 1:
                continue
            meld = _describe_meld(seat, group, self.melds[seat][known] if known is not None
                                  else None)
            if meld is None:
                continue
            if known is not None:
                # A meld laid changes only by an added kan. Its tiles seen again otherwise (one
                # the finder lost for a while and found again, or read another way) are still
                # the meld reported, not a second call.
                self._meld_members[seat][known] = set(ids)
                if not _added_kan(self.melds[seat][known], meld):
                    continue
                self.melds[seat][known] = meld
            else:
                self._meld_members[seat].append(set(ids))
                self.melds[seat].append(meld)
            events.append(meld)
        return events

    def _meld_groups(self, seat: int, tracks: list[Track]) -> list[list[Track]]:
        """The seat's meld area in groups (:func:`_cluster`), a meld already reported kept
        apart from tiles laid against it: it can gain one tile (an added kan on a pon), not
        the next meld's tiles nor a stray one set down beside it."""
        out = []
        for group in _cluster(tracks):
            # each reported meld in the group, in turn, taken out of what is left of it
            for members, meld in zip(self._meld_members[seat], self.melds[seat]):
                ids = {t.id for t in group}
                if members & ids and len(ids - members) > (1 if meld.get("kind") == "pon" else 0):
                    out.append([t for t in group if t.id in members])
                    group = [t for t in group if t.id not in members]
            if group:
                out.append(group)
        return out

    def _reveal_event(self, seat: int) -> list[dict]:
        tracks, settled = self._zone_tracks("hand", seat)
        faces = [t for t in tracks if not t.face_down]
        if len(faces) < 2 or not settled:
            self._reveal_pending.pop(seat, None)
            return []
        ids = frozenset(t.id for t in faces)
        pending = self._reveal_pending.get(seat)
        if pending is None or pending[0] != ids:
            self._reveal_pending[seat] = (ids, self.frames)
            return []
        if self.frames - pending[1] < self.stable_frames - 1:
            return []
        self.revealed.add(seat)
        tiles = [t.label for t in faces]
        # the winning tile is set apart from the rest at the right end
        right = [seat_order_key(t.zone, t.x, t.y)[1] for t in faces]
        gaps = np.diff(right)
        win_tile = tiles[-1]
        return [{"type": "reveal", "t": max(t.first_ns for t in faces) / 1e9, "seat": seat,
                 "tiles": tiles, "win_tile": win_tile,
                 "confidence": round(min(t.confidence for t in faces), 3),
                 "win_tile_apart": bool(len(gaps) and gaps[-1] > TILE_W_MM + 4)}]


def _touches(hidden: np.ndarray, box) -> bool:
    """Whether a hand (``hidden``, the widened mask) lies over more than a sliver of ``box``.
    The box is cut to the view first: a tile at the table's far edge (a meld, a hand laid
    open) can be boxed past it, and a slice from a negative row is empty, or another part of
    the view, so the hand over that tile went unseen and its half-covered face was read."""
    seen = _under(hidden, box)
    return seen.size > 0 and seen.mean() > 0.02 * 255


def _hand_over(hidden: np.ndarray | None, zone: Zone, px_per_mm: float) -> bool:
    """Whether a hand (``hidden``, the widened mask; None: none in view) lies anywhere over
    ``zone``."""
    return hidden is not None and \
        bool(_under(hidden, [int(round(v * px_per_mm)) for v in zone.rect]).any())


def _under(hidden: np.ndarray, box) -> np.ndarray:
    """The part of ``hidden`` (the view's hand mask) under ``box`` (x1, y1, x2, y2 pixels),
    the box cut to the view (a slice from a negative row is another part of the view)."""
    x1, y1, x2, y2 = box
    return hidden[max(0, y1):max(0, y2), max(0, x1):max(0, x2)]


def _sides(quad) -> tuple[float, float]:
    """A box's shorter and longer side (its ``quad``'s pixels)."""
    q = np.asarray(quad, np.float64)
    a, b = float(np.hypot(*(q[1] - q[0]))), float(np.hypot(*(q[2] - q[1])))
    return min(a, b), max(a, b)


def _big(tile, px_per_mm: float) -> bool:
    """Whether a found tile's box is too big for one tile in the calibrated view
    (:data:`BOXED_BIG`)."""
    if tile.quad is None:
        return False
    short, long = _sides(tile.quad)
    return short > BOXED_BIG * TILE_W_MM * px_per_mm or long > BOXED_BIG * TILE_H_MM * px_per_mm


def _whole(tile, px_per_mm: float) -> bool:
    """Whether a found tile's outline is about as long as a whole tile in the calibrated view
    (:data:`WHOLE_TILE`). A box well short of one holds part of a tile, and that part is not
    the tile: the top of a 4p under a resting hand is two circles, and was read as a 2p,
    surely. (The finder's hand mask misses some hands over dark faces; the tile is read when
    the hand has gone.)"""
    if tile.quad is None:
        return True
    return _sides(tile.quad)[1] >= WHOLE_TILE * TILE_H_MM * px_per_mm


def _later_in_pond(zone: Zone, at: tuple[float, float], than: tuple[float, float]) -> bool:
    """Whether a tile at ``at`` (table mm) lies later in ``zone``'s pond than one at
    ``than``: in a later row (more than half a tile's depth nearer the seat), or in the same
    row more than half a tile's width further along it. (Not by :meth:`Track.key`: its rows
    are rounded, and two tiles of one row can round into two.)"""
    down, right = seat_order_key(zone, *at)
    down0, right0 = seat_order_key(zone, *than)
    if abs(down - down0) < TILE_H_MM / 2:
        return right > right0 + TILE_W_MM / 2
    return down > down0


def _shows_its_way(track: Track) -> bool:
    """Whether a tile's face showed the finder which way it lies: a face that does not look
    alike turned a quarter, and read surely enough to be a face at all."""
    return track.label not in QUARTER_ALIKE and track.confidence >= SURE_OF_ITS_WAY


def _edges_turn_it(track: Track) -> bool:
    """Whether the picture's edges at a tile's place run along the outline of a tile lying
    the other way than its boxes far more strongly (:data:`EDGES_TURN_IT`) than along theirs,
    and that outline shows at all (:data:`OUTLINE_SEEN`), unless its own outline, looked for
    about the box, runs nearly as strongly as the other anywhere about (:data:`OWN_OUTLINE_THERE`):
    then the box lay off its tile (:func:`vision.finding.learned.outline_edges`)."""
    if track.edges is None:
        return False
    upright, across, upright_about, across_about = track.edges
    own, other = (across, upright) if track.across else (upright, across)
    own_about, other_about = (across_about, upright_about) if track.across else \
        (upright_about, across_about)
    return other >= OUTLINE_SEEN and other > EDGES_TURN_IT * own and \
        own_about < OWN_OUTLINE_THERE * other_about


def _sideways(track: Track) -> bool:
    """Lying across as its seat sees it (the top-down view turns seats 1 and 3 a quarter)."""
    return _across_its_seat(track.across, track.zone)


def _across_its_seat(across: bool, zone: Zone) -> bool:
    """Whether a tile lying ``across`` in the top-down view lies across as ``zone``'s seat
    sees it (the view turns seats 1 and 3 a quarter)."""
    return bool(across) != bool(zone.rotation % 2)


def _cluster(tracks: list[Track]) -> list[list[Track]]:
    """Tiles of a meld area in groups: a gap wider than 5 mm along the seat's row starts a new
    group; a tile stacked on another (an added kan) joins that one's group."""
    groups: list[list[Track]] = []
    ends: list[tuple[float, float]] = []
    for t in sorted(tracks, key=lambda t: seat_order_key(t.zone, t.x, t.y)[1]):
        r = seat_order_key(t.zone, t.x, t.y)[1]
        half = (35.0 if _sideways(t) else TILE_W_MM) / 2
        lo, hi = r - half, r + half
        for g, (glo, ghi) in zip(groups, ends):
            if lo < ghi + 5 and hi > glo - 5:
                g.append(t)
                ends[groups.index(g)] = (min(glo, lo), max(ghi, hi))
                break
        else:
            groups.append([t])
            ends.append((lo, hi))
    return [sorted(g, key=lambda t: seat_order_key(t.zone, t.x, t.y)[1]) for g in groups]


def _added_kan(before: dict, after: dict) -> bool:
    """Whether ``after`` is the pon ``before`` with its fourth tile added."""
    return before.get("kind") == "pon" and after.get("kind") == "shouminkan" and \
        len({kind(t) for t in after["tiles"]} | {kind(t) for t in before["tiles"]}) == 1


def _describe_meld(seat: int, group: list[Track], before: dict | None) -> dict | None:
    """The ``meld`` event a group of tiles shows, or None when it is not one yet."""
    faces = [t.label for t in group if not t.face_down]
    if not faces:
        return None
    t = max(tr.first_ns for tr in group) / 1e9
    conf = round(min(tr.confidence for tr in group), 3)
    across = [tr for tr in group if _sideways(tr)]
    # tiles in a row (not the one stacked on the sideways tile) give the direction
    row = _row_of(group)
    if len(group) == 4 and any(tr.face_down for tr in group):
        # the face-down ends are the same tile; whether one is a red five nobody can see
        tiles = faces + [base(faces[0])] * (4 - len(faces))
        return {"type": "meld", "t": t, "seat": seat, "kind": "ankan", "tiles": tiles,
                "confidence": conf}
    called_track = across[0] if across else None
    ev: dict = {"type": "meld", "t": t, "seat": seat}
    if len(group) == 4:
        kind_ = "shouminkan" if (before is not None and before.get("kind") == "pon") or \
            len(across) == 2 else "daiminkan"
    elif len(group) == 3:
        kind_ = "pon" if len({kind(f) for f in faces}) == 1 else "chii"
    else:
        return None
    ev["kind"] = kind_
    ev["tiles"] = [tr.label for tr in sorted(group, key=Track.key)
                   if tr in row] + [tr.label for tr in group if tr not in row]
    if called_track is not None:
        ev["called"] = called_track.label
        pos = row.index(called_track) if called_track in row else 0
        ev["from"] = (seat + 3) % 4 if pos == 0 else \
            (seat + 1) % 4 if pos == len(row) - 1 else (seat + 2) % 4
    ev["confidence"] = conf
    return ev


def _row_of(group: list[Track]) -> list[Track]:
    """The tiles of a meld lying in its row (an added kan's tile is stacked beside the row)."""
    by_right = sorted(group, key=lambda t: seat_order_key(t.zone, t.x, t.y)[1])
    row: list[Track] = []
    for t in by_right:
        r = seat_order_key(t.zone, t.x, t.y)[1]
        if row and abs(seat_order_key(row[-1].zone, row[-1].x, row[-1].y)[1] - r) < 10:
            # two tiles at the same place along the row: keep the one nearer the edge
            if seat_order_key(t.zone, t.x, t.y)[0] > \
                    seat_order_key(row[-1].zone, row[-1].x, row[-1].y)[0]:
                row[-1] = t
            continue
        row.append(t)
    return row
