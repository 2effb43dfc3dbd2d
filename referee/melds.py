"""Melds: a called chii, pon or open kan shown at the table, and the false groups.

A claim awarded in a window (:mod:`referee.calls`) waits for its meld. The meld must be the
call made, a real set (:func:`~referee.violations.meld_problem`) and hold the called tile;
otherwise it is a false group. A meld whose ``from`` names another seat than the discarder
is pointed out (``procedure``): the called tile is turned toward the wrong seat. A claim whose meld is not shown before the next two discards
by others is a false group too (:meth:`MeldRules._count_untaken_claim`). A meld shown with no
claim awarded is a ``procedure`` (or ``late_call`` when its call came after the window). A
chii or pon sets what kuikae forbids for the rest of the turn (:mod:`referee.kuikae`). A
meld shown on a claim the window rejected for what the seat shows (``own_pon``: a kan on a
discarded fourth tile to one's own pon; ``riichi``: a call after riichi) is flagged with the
ruleset's penalty, ``illegal_kan`` or ``riichi_open_hand`` (:meth:`MeldRules._refused_claim`).

Closed and added kans are the seat's own turn and are judged in :mod:`referee.kans`. A meld
seen while a window is still open waits until it is decided.

:class:`MeldRules` is one part of :class:`referee.core.Referee`, working on its state.
"""
from __future__ import annotations

from .kuikae import kuikae_kinds
from .tiles import base
from .violations import meld_problem

#: The meld a call leads to.
CALL_TO_MELD = {"chii": "chii", "pon": "pon", "kan": "daiminkan"}


class MeldRules:
    """Melds seen at the table, judged against the claim they answer."""

    def _on_meld(self, e: dict, t: float) -> None:
        hand = self.table.hand
        if hand is None:
            self._violation("procedure", e["seat"], f"Seat {e['seat']} exposed a meld before "
                            "the hand started.", t)
            return
        w = self.window
        if w is not None and e["kind"] in ("ankan", "shouminkan") and w.deadline is None \
                and not w.chankan:
            # no timing rule: a closed or added kan shows that the next player drew, so the
            # discard's window is over and a kan press by this seat was for its own turn
            if self._own_turn_press(w, e["seat"], "kan", e["tiles"]):
                self.own_kan_press = e["seat"]
            else:
                self._close_window(t)
            w = self.window
        if w is not None:
            self.deferred_melds.append(e)
            return
        self._judge_meld(e, t)

    def _judge_meld(self, e: dict, t: float) -> None:
        refused = self._refused_claim(e)
        if refused is not None:
            self._judge_refused_meld(e, refused, t)
            return
        if e["kind"] not in ("chii", "pon", "daiminkan"):
            self._judge_own_kan(e, t)
            return
        hand = self.table.hand
        seat_no, kind, tiles = e["seat"], e["kind"], list(e["tiles"])
        seat = hand.seats[seat_no]
        pc = self.pending_claim
        if pc is None or pc["seat"] != seat_no:
            if any(s == seat_no for s, _ in self.late_presses):
                self._violation("late_call", seat_no, f"Seat {seat_no} exposed a {kind} on "
                                "a call made after the claim window; the call does not "
                                "stand.", t)
            else:
                self._violation("procedure", seat_no, f"Seat {seat_no} exposed a {kind} "
                                "with no claim awarded; call with the button first.", t)
            seat.melds.append({"kind": kind, "tiles": tiles, "called": e.get("called"),
                               "from": e.get("from")})
            hand.seen.update(tiles)
            self._check_copies(seat_no, f"seat {seat_no}'s {kind}", t, tiles)
            return
        self.pending_claim = None
        pc["meld_seen"] = True
        expected = CALL_TO_MELD[pc["call"]]
        problem = None
        if kind != expected:
            problem = f"exposed a {kind} after calling {pc['call']}"
        else:
            why = meld_problem(kind, tiles)
            if why:
                problem = f"exposed {' '.join(tiles)}: {why}"
            elif pc["tile"] not in tiles or (e.get("called") is not None
                                             and e["called"] != pc["tile"]):
                problem = f"exposed a {kind} without the called tile {pc['tile']}"
        meld = {"kind": kind, "tiles": tiles, "called": pc["tile"], "from": pc["from"]}
        seat.melds.append(meld)
        hand.seen.update(tiles)
        if problem:
            self._violation("false_group", seat_no, f"Seat {seat_no} {problem}: a false "
                            "group, the hand is dead.", t)
            self._check_copies(seat_no, f"seat {seat_no}'s {kind}", t, tiles)
            return
        shown_from = e.get("from")
        if shown_from is not None and shown_from != pc["from"]:
            # the called tile is turned toward the seat it came from; pointing elsewhere
            # misstates where the tile came from (a misread, or a tile laid the wrong way)
            self._violation("procedure", seat_no, f"Seat {seat_no}'s {kind} shows the called "
                            f"{pc['tile']} as taken from seat {shown_from}, but it was seat "
                            f"{pc['from']}'s discard; turn the called tile toward seat "
                            f"{pc['from']}.", t)
        if kind in ("chii", "pon") and self.table.ruleset.kuikae_forbidden:
            seat.kuikae = kuikae_kinds(kind, tiles, pc["tile"])
        self._check_copies(seat_no, f"seat {seat_no}'s {kind}", t, tiles)

    def _refused_claim(self, e: dict) -> str | None:
        """The reason (``own_pon``/``riichi``, :data:`~referee.claims.BARRED`) the last
        window rejected the claim that the meld ``e`` shows anyway, or None: a kan of that
        window's tile by a seat whose kan on it was ``own_pon``, or a chii, pon or open kan
        holding it by a seat whose call was ``riichi``. Flagged once a window per seat."""
        w = self.last_closed
        pc = self.pending_claim
        seat_no, kind, tiles = e["seat"], e["kind"], e["tiles"]
        if w is None or w.chankan or (pc is not None and pc["seat"] == seat_no) \
                or seat_no in w.refused_shown \
                or not any(base(x) == base(w.tile) for x in tiles):
            return None
        for r in w.rejected:
            if r["seat"] != seat_no:
                continue
            if r["reason"] == "own_pon" and kind in ("daiminkan", "shouminkan"):
                return "own_pon"
            if r["reason"] == "riichi" and kind in ("chii", "pon", "daiminkan"):
                return "riichi"
        return None

    def _judge_refused_meld(self, e: dict, reason: str, t: float) -> None:
        """A meld shown on a claim the rules refused (:meth:`_refused_claim`): the ruleset's
        penalty for an ``illegal_kan`` (a kan on a discarded fourth tile to one's own pon) or
        for ``riichi_open_hand`` (a call after riichi opens the riichi hand). The meld is
        on the table all the same: the discard leaves the pond and, for a kan on a pon, the
        kan replaces the pon. The claim does not stand: the turn stays where it was."""
        hand = self.table.hand
        w = self.last_closed
        w.refused_shown.add(e["seat"])
        seat_no, kind, tiles = e["seat"], e["kind"], list(e["tiles"])
        seat = hand.seats[seat_no]
        tile = w.tile
        if reason == "own_pon":
            self._violation("illegal_kan", seat_no, f"Seat {seat_no} made a kan of its pon "
                            f"with seat {w.discard_seat}'s discarded {tile}; a kan on a "
                            "discard needs three matching concealed tiles, so the fourth "
                            "tile discarded by another player cannot be claimed.", t)
        else:
            call = "kan" if kind == "daiminkan" else kind
            self._violation("riichi_open_hand", seat_no, f"Seat {seat_no} called {call} on "
                            f"seat {w.discard_seat}'s {tile} after declaring riichi; a player "
                            "in riichi may claim a discard only to win.", t)
        if w.discard_index is not None:
            entry = hand.discards[w.discard_index]
            if not entry.get("called"):
                entry["called"] = True
                hand.seen[entry["tile"]] -= 1
        meld = {"kind": kind, "tiles": tiles, "called": tile, "from": w.discard_seat}
        pon = next((m for m in seat.melds if m["kind"] == "pon" and m["tiles"]
                    and base(m["tiles"][0]) == base(tile)), None)
        if reason == "own_pon" and pon is not None:
            seat.melds[seat.melds.index(pon)] = meld
            hand.seen.subtract(pon["tiles"])
        else:
            seat.melds.append(meld)
        hand.seen.update(tiles)
        self._check_copies(seat_no, f"seat {seat_no}'s {kind}", t, tiles)

    def _count_untaken_claim(self, discard_seat: int, t: float) -> None:
        """A discard by another seat: a claim not taken before two of them is a false group."""
        pc = self.pending_claim
        if pc is not None and pc["seat"] != discard_seat and not pc["meld_seen"]:
            pc["others"] += 1
            if pc["others"] >= 2:
                self.pending_claim = None
                self._violation("false_group", pc["seat"], f"Seat {pc['seat']} called "
                                f"{pc['call']} on {pc['tile']} but did not take it before the "
                                "next two discards: a false group, the hand is dead.", t)
