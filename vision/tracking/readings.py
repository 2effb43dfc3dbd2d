"""The camera's readings weighed with what the game allows, before they become table events.

:class:`WeighedTracker` wraps a :class:`~vision.tracking.tracker.TableTracker` (same ``update``) and
goes over each event it reports:

- **several frames**: a tile's confidence is the classifier's confidence in its label averaged
  over every frame that saw it, frames that read it otherwise counting zero; a tile read two
  ways is less sure than one read the same way each time (a fusing tracker's: its fused
  probability, :meth:`~vision.tracking.tracker.Track.fused`);
- **no fifth copy**: a tile read as a kind of which four others are already in view cannot be
  that kind: a discard or dora indicator takes the classifier's next likeliest reading that
  the table allows (when the classifier gives probabilities and that reading has some), and
  either way is unsure;
- **a discard is laid at the end of its pond**: a pond tile found before one the camera saw
  laid earlier was laid before that one and missed when it was. Its time is when it was
  found, not when it was laid, so it is reported unsure, with its crop and that doubt: the
  referee sees why, and a penalty that rests on it is asked, not applied;
- **a called tile leaves the pond**: the sideways tile of a called meld is the discard that
  just left the pond of the seat it came from. Two readings of one tile that agree make it
  surer (1 - (1 - a)(1 - b)); two that disagree make the meld unsure, and the surer reading
  names the tile.

An event less sure than ``threshold`` carries the crop of its least sure tile (``crop``: a small
JPEG as a data URI, shown to the referee) and, for a meld or a revealed hand, which tile that is
(``unsure_tile``: its index in ``tiles``). The rules core makes a violation resting on such a
reading a check (:mod:`referee.checks`); a referee's correction comes back through
:meth:`WeighedTracker.learn`, which teaches the enrolled tile set that crop.
"""
from __future__ import annotations

import base64
from collections import Counter

import cv2
import numpy as np

from referee.checks import DEFAULT_CONFIDENCE_THRESHOLD
from referee.tiles import TILE_CODES, base
from vision.camera.zones import before_in_pond
from vision.reading.one_set import DOUBTFUL

from .tracker import Track, _sideways

#: A fifth copy is read as the classifier's next allowed reading only when it gives that one
#: at least this probability; otherwise the reading stays, unsure.
REREAD_AT = 0.1


def crop_data_uri(crop: np.ndarray, height: int = 96) -> str:
    """A crop as the referee sees it: upright, ``height`` pixels high, JPEG, as a data URI."""
    if crop.shape[1] > crop.shape[0]:
        crop = cv2.rotate(crop, cv2.ROTATE_90_CLOCKWISE)
    width = max(1, int(round(crop.shape[1] * height / crop.shape[0])))
    small = cv2.resize(crop, (width, height), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 85])
    return "data:image/jpeg;base64," + base64.b64encode(buf.tobytes()).decode("ascii")


def crop_from_data_uri(text: str) -> np.ndarray | None:
    """The picture in a data URI made by :func:`crop_data_uri` (None if it is not one)."""
    if not isinstance(text, str) or not text.startswith("data:image/") or "," not in text:
        return None
    try:
        raw = base64.b64decode(text.split(",", 1)[1], validate=True)
    except ValueError:
        return None
    img = cv2.imdecode(np.frombuffer(raw, np.uint8), cv2.IMREAD_COLOR)
    return img


def _before_in_pond(a: Track, b: Track) -> bool:
    """Whether ``a`` lies before ``b`` in their pond's order (:func:`before_in_pond`)."""
    return before_in_pond(a.zone, (a.x, a.y), (b.x, b.y))


def track_confidence(track: Track, label: str | None = None) -> float:
    """The classifier's confidence in ``label`` (the track's) over every frame that saw it:
    its fused probability when the tracker fuses (:meth:`Track.fused`)."""
    label = label or track.label
    if track.evidence is not None and not track.face_down:
        return track.fused(label)
    total = sum(track.votes.values())
    return track.conf[label] / total if total else 0.0


class WeighedTracker:
    """A tracker whose readings are weighed with the game; see the module docstring.

    ``tracker``: the :class:`~vision.tracking.tracker.TableTracker` (its classifier is the one asked
    for a second reading and taught corrections). ``threshold``: readings below it are
    unsure and carry their crop.
    """

    def __init__(self, tracker, threshold: float = DEFAULT_CONFIDENCE_THRESHOLD):
        self.tracker = tracker
        self.threshold = float(threshold)
        #: this hand's discards as read: (seat, (t, tile, confidence))
        self._discards: list[tuple[int, tuple[float, str, float]]] = []

    def __getattr__(self, name):
        return getattr(self.tracker, name)

    def new_hand(self) -> None:
        self.tracker.new_hand()
        self._discards = []

    def update(self, frame: np.ndarray | None, t_ns: int, **kw) -> list[dict]:
        events = self.tracker.update(frame, t_ns, **kw)
        for ev in events:
            if ev["type"] in ("discard", "dora"):
                self._weigh_single(ev)
            elif ev["type"] == "meld":
                self._weigh_group(ev, self._meld_tracks(ev))
            elif ev["type"] == "reveal":
                self._weigh_group(ev, self._hand_tracks(ev))
        return events

    # -- which tracks an event is -------------------------------------------------------
    def _confirmed(self):
        return [t for t in self.tracker.tracks if t.confirmed and not t.face_down]

    def _single_track(self, ev: dict) -> Track | None:
        kind_ = "pond" if ev["type"] == "discard" else "dora"
        t_ns = ev["t"] * 1e9
        found = [t for t in self._confirmed() if t.zone.kind == kind_ and
                 (kind_ == "dora" or t.zone.seat == ev["seat"]) and abs(t.first_ns - t_ns) < 1e6]
        # two tiles first seen in one frame (a discard, and one beside it missed till then):
        # the one read as the event's tile
        label = ev.get("tile", ev.get("indicator"))
        found.sort(key=lambda t: t.label != label)
        return found[0] if found else None

    def _meld_tracks(self, ev: dict) -> list[Track | None]:
        seat = ev["seat"]
        melds = self.tracker.melds[seat]
        k = next((i for i, m in enumerate(melds) if m is ev), None)
        members = self.tracker._meld_members[seat][k] if k is not None else set()
        group = [t for t in self.tracker.tracks if t.id in members and not t.face_down]
        return _assign(ev["tiles"], group)

    def _hand_tracks(self, ev: dict) -> list[Track | None]:
        tracks, _ = self.tracker._zone_tracks("hand", ev["seat"])
        return _assign(ev["tiles"], [t for t in tracks if not t.face_down])

    # -- weighing -----------------------------------------------------------------------
    def _in_view(self, leave_out: set[int]) -> Counter:
        """Copies of each kind face up on the table, the tracks ``leave_out`` left out."""
        return Counter(base(t.label) for t in self._confirmed()
                       if t.id not in leave_out and t.label in TILE_CODES)

    def _weigh_single(self, ev: dict) -> None:
        track = self._single_track(ev)
        if track is None:
            return
        key = "tile" if ev["type"] == "discard" else "indicator"
        label = ev[key]
        conf = track_confidence(track, label)
        if self._in_view({track.id})[base(label)] >= 4:
            label, conf = self._reread(track, label, conf, {track.id})
            ev[key] = label
            ev["doubt"] = "a fifth copy in view"
        if ev["type"] == "discard" and self._laid_unseen(track):
            conf = min(conf, DOUBTFUL)
            ev.setdefault("doubt", "found behind a later discard: laid earlier, unseen then")
        self._finish(ev, conf, track, None)
        if ev["type"] == "discard":
            self._discards.append((ev["seat"], (ev["t"], ev["tile"], ev["confidence"])))

    def _laid_unseen(self, track: Track) -> bool:
        """Whether a pond tile lies before one the camera saw laid earlier and read surely: a
        discard is laid at the end of its pond, so this one was laid before that one and
        missed then (a blank at the end of a row, say). A tile read unsure tells too little
        to doubt the rest by: on the film a bare patch of felt read as a white dragon at 0.41
        from the first frame made every later discard of its seat doubtful."""
        return any(other.zone == track.zone and other.id != track.id and
                   other.first_ns < track.first_ns and _before_in_pond(track, other) and
                   track_confidence(other) >= self.threshold
                   for other in self._confirmed())

    def _reread(self, track: Track, label: str, conf: float, leave_out: set[int]):
        """A reading the table does not allow: the next allowed one, if the classifier has
        one worth taking, else the same; unsure either way."""
        probabilities = getattr(self.tracker.classifier, "probabilities", None)
        if probabilities is not None and track.crop is not None:
            labels = list(self.tracker.classifier.labels)
            p = probabilities([track.crop])[0]
            in_view = self._in_view(leave_out)
            for i in np.argsort(-p):
                other = labels[i]
                if other in TILE_CODES and other != label and in_view[base(other)] < 4:
                    if p[i] >= REREAD_AT:
                        return other, min(float(p[i]), DOUBTFUL)
                    break
        return label, min(conf, DOUBTFUL)

    def _weigh_group(self, ev: dict, tracks: list[Track | None]) -> None:
        ids = {t.id for t in tracks if t is not None}
        in_view = self._in_view(ids)
        mine = Counter(base(c) for c in ev["tiles"] if c in TILE_CODES)
        confs = []
        for tile, track in zip(ev["tiles"], tracks):
            conf = track_confidence(track, tile) if track is not None else ev.get("confidence", 0)
            if tile in TILE_CODES and in_view[base(tile)] + mine[base(tile)] > 4:
                conf = min(conf, DOUBTFUL)
                ev["doubt"] = "a fifth copy in view"
            confs.append(conf)
        if ev["type"] == "meld" and ev.get("called") in ev["tiles"]:
            across = [i for i, t in enumerate(tracks) if t is not None and _sideways(t)]
            self._called_from_pond(ev, confs, across[0] if across else
                                   ev["tiles"].index(ev["called"]))
        i = int(np.argmin(confs)) if confs else 0
        self._finish(ev, min(confs) if confs else ev.get("confidence", 0.0),
                     tracks[i] if tracks else None, i)

    def _called_from_pond(self, ev: dict, confs: list[float], i: int) -> None:
        """The called tile (``tiles[i]``, lying sideways) against the discard it took: the
        latest discard read from the seat it came from."""
        source = ev.get("from")
        discards = [d for seat, d in self._discards if (source is None or seat == source)
                    and d[0] <= ev["t"] + 1e-6]
        if not discards:
            return
        _, pond_tile, pond_conf = discards[-1]
        if base(pond_tile) == base(ev["called"]):
            confs[i] = 1 - (1 - confs[i]) * (1 - pond_conf)
        else:
            if pond_conf > confs[i]:
                ev["tiles"][i] = ev["called"] = pond_tile
            confs[i] = min(confs[i], pond_conf, DOUBTFUL)
            ev["doubt"] = "the called tile and the discard it took read differently"

    def _finish(self, ev: dict, conf: float, track: Track | None, index: int | None) -> None:
        ev["confidence"] = round(float(conf), 3)
        if conf < self.threshold:
            if track is not None and track.crop is not None:
                ev["crop"] = crop_data_uri(track.crop)
            if index is not None:
                ev["unsure_tile"] = index

    # -- the referee's answer -----------------------------------------------------------
    def learn(self, correction: dict, check: dict | None) -> bool:
        """A referee's correction (``referee`` override with ``tile``) of the check ``check``
        (its violation ruling): the classifier learns the crop as that tile (when it can: an
        enrolled set), and the tile the tracker believes there is corrected. True when the
        classifier learnt it."""
        tile = correction.get("tile")
        if tile not in TILE_CODES or not check:
            return False
        reading = check.get("reading") or {}
        self._relabel(reading, tile)
        crop = crop_from_data_uri(check.get("crop"))
        teach = getattr(self.tracker.classifier, "learn", None)
        if crop is None or teach is None:
            return False
        teach(crop, tile)
        return True

    def _relabel(self, reading: dict, tile: str) -> None:
        zone = {"discard": "pond", "dora": "dora"}.get(reading.get("type"))
        if zone is None:
            return
        found = [t for t in self._confirmed() if t.zone.kind == zone and t.label == reading.get(
            "tile") and (zone == "dora" or t.zone.seat == reading.get("seat"))]
        if found:
            max(found, key=lambda t: t.first_ns).read_as(tile)


def _assign(tiles: list[str], tracks: list[Track]) -> list[Track | None]:
    """The track each of ``tiles`` was read from (the first unused one with that label)."""
    free = list(tracks)
    out: list[Track | None] = []
    for tile in tiles:
        match = next((t for t in free if t.label == tile), None)
        if match is not None:
            free.remove(match)
        out.append(match)
    return out
