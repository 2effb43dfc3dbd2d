"""Unsure readings: a violation that rests on a camera reading the camera is not sure of is
asked of the referee (a "check"), never asserted.

Events from the camera carry the reading's ``confidence`` (0-1; events with none, from the
buttons, the referee or a log typed by hand, are certain). A ``violation`` that rests on a
reading below the table's ``confidence_threshold`` carries ``"check": true``, that
``confidence``, and extra keys ``reading`` (what was read: the event's ``type``, ``seat``, the
``tile`` read and, in a meld or a revealed hand, its ``index``) and ``crop`` (the picture of
the tile, when the camera sent one). It is not applied: no dead hand, no chombo paid; a
revealed hand it concerns waits for the referee before the hand ends.

What a violation rests on: the event being judged when it is raised, and by kind:

* ``kuikae``: the discard and the seat's called meld;
* ``false_group``: the meld, and the discard it called (when the meld is what is judged);
* ``furiten_ron``: the revealed hand and every discard of the seat this hand;
* ``no_yaku``, ``false_win``, ``riichi_open_hand``: the event and the seat's melds.

The referee answers on the dashboard with a ``referee`` event naming the check's
``ruling_id``:

* ``penalty``: confirmed; the penalty is applied as the core would have (a revealed hand ends
  on it). Its ``kind``, ``penalty`` and ``seat`` default to the check's.
* ``override`` with an extra key ``tile``: a correction: the camera misread, the tile was
  ``tile``. The reading is corrected in the core's record (the state is rebuilt from the
  events as they should have been, rulings not repeated), and a revealed hand is judged
  again with the tile corrected; the camera learns it too (see ``vision.tracking.readings``).
* ``override`` without ``tile``: dismissed; the violation is not applied (a revealed hand the
  table could not judge ends ``unjudged_win``: the referee scores it).

:class:`CheckRules` is one part of :class:`referee.core.Referee`, working on its state.
"""
from __future__ import annotations

#: Readings below this confidence are unsure (a table's ``[service] confidence_threshold``).
#: Chosen on the real photographs of bench/vision.py: the shipped model reads 28 of its 29
#: misread tiles below 0.8, and about one right reading in five.
DEFAULT_CONFIDENCE_THRESHOLD = 0.8

#: Violation kinds judged from a revealed hand (their check holds the hand's end).
REVEAL_KINDS = ("furiten_ron", "no_yaku", "false_win")


def reading_of(event: dict, log_index: int) -> dict | None:
    """The camera reading an event is, or None when it is certain (no ``confidence``)."""
    conf = event.get("confidence")
    if not isinstance(conf, (int, float)) or isinstance(conf, bool):
        return None
    etype = event["type"]
    tile, index = None, None
    if etype == "discard":
        tile = event.get("tile")
    elif etype == "dora":
        tile = event.get("indicator")
    elif etype in ("meld", "reveal"):
        tiles = event.get("tiles") or []
        i = event.get("unsure_tile")
        if isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(tiles):
            tile, index = tiles[i], i
    reading = {"type": etype, "seat": event.get("seat"), "tile": tile, "index": index,
               "confidence": float(conf), "log": log_index}
    if isinstance(event.get("crop"), str):
        reading["crop"] = event["crop"]
    return reading


class CheckRules:
    """Readings noted as they come; violations resting on unsure ones raised as checks."""

    confidence_threshold: float = DEFAULT_CONFIDENCE_THRESHOLD

    def _reset_readings(self) -> None:
        #: the reading of the event being judged (None: certain)
        self._reading: dict | None = None
        #: this hand's readings: discards per seat, melds per seat
        self._discard_readings: dict[int, list[dict]] = {s: [] for s in range(4)}
        self._meld_readings: dict[int, list[dict]] = {s: [] for s in range(4)}
        #: checks not yet answered: ruling id -> the check ruling, and the reading it rests on
        self.checks: dict[str, dict] = {}
        self._check_readings: dict[str, dict] = {}
        #: checks a revealed hand waits on: ruling id -> the reveal's index in the log
        self._reveal_checks: dict[str, int] = {}

    def _note_reading(self, event: dict, t: float) -> None:
        """Called for every event fed, before it is judged."""
        if event["type"] in ("hand_start", "game_start") or (
                event["type"] == "referee" and event["action"] == "end_game"):
            self._drop_unanswered_reveal_checks(t)
        if event["type"] == "hand_start":
            self._discard_readings = {s: [] for s in range(4)}
            self._meld_readings = {s: [] for s in range(4)}
        self._reading = reading_of(event, self._rebuild_at)
        if self._reading is None or not isinstance(event.get("seat"), int):
            return
        seat = event["seat"]
        if event["type"] == "discard":
            self._discard_readings[seat].append(self._reading)
        elif event["type"] == "meld":
            self._meld_readings[seat].append(self._reading)

    def _rests_on(self, kind: str, seat: int | None) -> list[dict]:
        readings = [self._reading] if self._reading is not None else []
        if seat is None:
            return readings
        if kind == "kuikae":
            readings += self._meld_readings[seat][-1:]
        elif kind == "false_group" and self._reading is not None \
                and self._reading["type"] == "meld":
            # the discard the meld called: the latest one by another seat before it
            earlier = [r for s in range(4) if s != seat for r in self._discard_readings[s]
                       if r["log"] < self._reading["log"]]
            readings += sorted(earlier, key=lambda r: r["log"])[-1:]
        elif kind == "furiten_ron":
            readings += self._discard_readings[seat]
        elif kind in ("no_yaku", "false_win", "riichi_open_hand"):
            readings += self._meld_readings[seat]
        return readings

    def _unsure_reading(self, kind: str, seat: int | None) -> dict | None:
        """The least sure reading a violation of ``kind`` rests on, when it is below the
        threshold (None: every reading it rests on is sure)."""
        readings = self._rests_on(kind, seat)
        if not readings:
            return None
        weakest = min(readings, key=lambda r: r["confidence"])
        return weakest if weakest["confidence"] < self.confidence_threshold else None

    @staticmethod
    def _check_keys(weakest: dict) -> dict:
        out = {"check": True, "confidence": round(weakest["confidence"], 3),
               "reading": {k: weakest[k] for k in ("type", "seat", "tile", "index")}}
        if "crop" in weakest:
            out["crop"] = weakest["crop"]
        return out

    def _hold_check(self, ruling: dict, weakest: dict) -> None:
        """Keep an emitted check until the referee answers it."""
        rid = ruling["ruling_id"]
        self.checks[rid] = ruling
        self._check_readings[rid] = weakest
        if ruling["kind"] in REVEAL_KINDS and self._reading is not None \
                and self._reading["type"] == "reveal":
            self._reveal_checks[rid] = self._reading["log"]

    def _drop_unanswered_reveal_checks(self, t: float) -> None:
        """The table moves on (a new hand, a new game, the game ended): a revealed hand still
        waiting for the referee ends as the table could judge it, unpaid."""
        if self._reveal_checks and self.table.hand is not None:
            self._reveal_checks.clear()
            self._finish_reveals(t)

    # -- the referee's answer -------------------------------------------------------------
    def _answer_check(self, e: dict, t: float) -> bool:
        """A referee event that answers a pending check; True when it was one (and was
        handled here)."""
        rid = str(e.get("ruling_id")) if e.get("ruling_id") is not None else None
        if rid is None or rid not in self.checks:
            return False
        check = self.checks.pop(rid)
        weakest = self._check_readings.pop(rid)
        reveal_log = self._reveal_checks.pop(rid, None)
        if e["action"] == "penalty":
            confirmed = {**e, "confirms": rid, "rule": check["rule"]}
            for key in ("kind", "penalty", "seat"):
                if confirmed.get(key) is None:
                    confirmed[key] = check[key]
            self._referee_penalty(confirmed, t)
            if reveal_log is not None and self.table.hand is not None:
                self._finish_reveals(t)
            return True
        # override: dismissed, or corrected
        self.table.overrides[rid] = {"t": t, "text": e["text"]}
        tile = e.get("tile")
        corrected = self._corrected_event(weakest, tile) if isinstance(tile, str) else None
        if corrected is None or self._rebuilding:
            if reveal_log is not None and self.table.hand is not None:
                self._finish_reveals(t)
            return True
        self._log[weakest["log"]] = corrected
        if reveal_log is None:
            self._rebuild(len(self._log) - 1, t)
            return True
        # a revealed hand waiting on this check: the table as it was just before the hand was
        # shown, with the reading corrected, then the hand judged again
        self._rebuild(reveal_log, t)
        reveal = self._log[reveal_log]
        shown, self._out = self._out, []
        self._close_due(float(reveal["t"]), strict=True)   # its claim ruling was given then
        self._out = shown
        self._reading = reading_of(reveal, reveal_log)
        self._on_reveal(reveal, t)
        return True

    def _corrected_event(self, reading: dict, tile: str) -> dict | None:
        """The event ``reading`` came from, with ``tile`` in place of what was read."""
        event = self._log[reading["log"]]
        sure = {"confidence": 1.0, "corrected_from": reading["tile"]}
        if event["type"] == "discard":
            return {**event, "tile": tile, **sure}
        if event["type"] == "dora":
            return {**event, "indicator": tile, **sure}
        index = reading.get("index")
        if event["type"] in ("meld", "reveal") and index is not None:
            tiles = list(event["tiles"])
            old, tiles[index] = tiles[index], tile
            out = {**event, "tiles": tiles, **sure}
            out.pop("unsure_tile", None)
            if event.get("win_tile") == old and index == len(tiles) - 1:
                out["win_tile"] = tile
            if event.get("called") == old:
                out["called"] = tile
            return out
        return None
