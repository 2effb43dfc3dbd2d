"""Kans: closed and added kans on a seat's own turn, the kan limit, chankan, kan dora.

A kan is legal on one's own turn with a tile drawn from the wall, while the wall has a tile to
replace it and the hand has fewer kans than the ruleset's limit (:meth:`KanRules._check_own_kan`;
an open kan on a discard is checked by its window, :mod:`referee.claims`). Every kan takes a
replacement tile (the dead wall is replenished from the live wall) and gives the seat a
rinshan draw. An added kan opens a window to ron alone on the added tile (chankan); so does a
closed kan of terminals or honours where thirteen orphans may rob it. Four kans by more than
one seat abort the hand where the ruleset has that draw (the discard after the fourth kan
passing without a ron); four by one seat play on, for suukantsu.

Kan dora (``kan_dora`` of the ruleset): ``immediate`` turns every kan's indicator at once;
``after_discard`` turns a closed kan's at once and an open or added kan's after the
replacement draw and the discard, so when the replacement tile wins, or the added tile is
robbed, that indicator is never turned and does not count even if it was. Under either, an
added kan's indicator waits for its chankan window: a ron on the added tile ends the hand
before the kan is made (issue 41, the Kan seed, JMW "Kan": chankan "ends the hand before the
kan is completed"; EMA RCR 5.4: the other players' win declarations come before the kan
dora), so an indicator turned while the window was open does not count for the robbing
hand.

:class:`KanRules` is one part of :class:`referee.core.Referee`, working on its state.
"""
from __future__ import annotations

from .tiles import base, is_terminal_or_honor
from .violations import meld_problem


class KanRules:
    """Closed and added kans, replacement draws, chankan windows and new dora indicators."""

    def _check_own_kan(self, seat_no: int, t: float) -> bool:
        """Flag a closed or added kan that the rules forbid now; True when it is legal."""
        hand = self.table.hand
        ruleset = self.table.ruleset
        if len(hand.kans) >= ruleset.kan_limit:
            self._violation("fifth_kan", seat_no, f"Seat {seat_no} declared a kan after the "
                            f"{ruleset.kan_limit}th; no more kans are allowed in this hand.", t)
            return False
        if hand.wall <= 0:
            self._violation("illegal_kan", seat_no, f"Seat {seat_no} declared a kan on the "
                            "last tile; there is no replacement tile left.", t)
            return False
        if hand.seats[seat_no].called_this_turn:
            self._violation("illegal_kan", seat_no, f"Seat {seat_no} declared a kan in the "
                            "turn it called chii or pon; a kan needs a tile drawn from the "
                            "wall.", t)
            return False
        return True

    def _judge_own_kan(self, e: dict, t: float) -> None:
        """A closed (``ankan``) or added (``shouminkan``) kan shown at the table."""
        hand = self.table.hand
        seat_no, kind, tiles = e["seat"], e["kind"], list(e["tiles"])
        seat = hand.seats[seat_no]
        ruleset = self.table.ruleset
        pressed = self.own_kan_press == seat_no
        self.own_kan_press = None
        if not pressed:
            self._violation("procedure", seat_no, f"Seat {seat_no} exposed a {kind} without "
                            "declaring kan with the button first.", t)
            if hand.turn == seat_no:
                self._check_own_kan(seat_no, t)
        why = meld_problem(kind, tiles)
        added = None
        meld = {"kind": kind, "tiles": tiles, "called": None, "from": None}
        if kind == "shouminkan":
            pon = next((m for m in seat.melds if m["kind"] == "pon" and tiles
                        and base(m["tiles"][0]) == base(tiles[0])), None)
            if pon is None and not why:
                why = "there is no pon of that tile to add to"
            if pon is not None:
                rest = list(tiles)
                for x in pon["tiles"]:
                    if x in rest:
                        rest.remove(x)
                added = rest[0] if rest else tiles[-1]
                meld.update(called=pon["called"], added=added)
                meld["from"] = pon["from"]
                seat.melds[seat.melds.index(pon)] = meld
                hand.seen.subtract(pon["tiles"])
            else:
                seat.melds.append(meld)
        else:
            seat.melds.append(meld)
        hand.seen.update(tiles)
        if why:
            self._violation("false_group", seat_no, f"Seat {seat_no} exposed a {kind} "
                            f"{' '.join(tiles)}: {why}; a false group, the hand is dead.", t)
        self._record_kan(seat_no, kind, tiles[0] if tiles else None,
                         stands=not (kind == "shouminkan" and added is not None))
        self._check_copies(seat_no, f"seat {seat_no}'s {kind}", t, tiles)
        if kind == "shouminkan" and added is not None:
            self._open_chankan(seat_no, added, t, ankan=False)
        elif kind == "ankan" and ruleset.ankan_chankan_kokushi and tiles \
                and is_terminal_or_honor(tiles[0]):
            self._open_chankan(seat_no, tiles[0], t, ankan=True)

    def _record_kan(self, seat_no: int, kind: str, tile: str | None, stands: bool = True) -> None:
        hand = self.table.hand
        hand.kans.append({"seat": seat_no, "kind": kind, "tile": tile})
        if kind != "ankan" and (self.table.ruleset.kan_dora == "after_discard" or not stands):
            # turned once the kan maker has drawn and discarded; an added kan's, even where
            # the ruleset turns it at once, only once its chankan window passed without a
            # ron (:meth:`_added_kan_stands`): a robbed kan was never made
            hand.kan_dora_pending += 1
        else:
            hand.kan_dora_now += 1
        hand.wall = max(0, hand.wall - 1)  # the dead wall is replenished from the live wall
        hand.rinshan = seat_no
        hand.turn = seat_no
        if stands:
            # an added kan stands only once its chankan window passes: a robbing ron still
            # has its ippatsu (see _close_window)
            self._break_first_turn()
        if (len(hand.kans) == 4 and "four_kans" in self.table.ruleset.abortive_draws
                and len({k["seat"] for k in hand.kans}) > 1):
            hand.abort_check = "four_kans"

    def _open_chankan(self, seat_no: int, tile: str, t: float, ankan: bool) -> None:
        hand = self.table.hand
        hand.chankan_tile = tile
        for other in hand.seats:
            if other.seat != seat_no:
                other.passed_since_turn.append(tile)
                if other.riichi:
                    other.passed_since_riichi.append(tile)
        self._open_window(seat_no, tile, t, chankan=True, ankan=ankan)

    def _on_dora(self, e: dict, t: float) -> None:
        """A new dora indicator. One owed now (a closed kan; a called kan where the ruleset
        turns it at once) counts at once. One turned for an open or added kan whose maker
        has not discarded yet, where the ruleset turns it after the replacement draw and the
        discard, waits for that discard (:meth:`_release_kan_dora`); one turned for an added
        kan while its chankan window is open waits for the window (:meth:`_added_kan_stands`).
        If the replacement tile wins, or the added tile is robbed, it was never due and does
        not count (see :meth:`WinRules._judge_reveal`)."""
        hand = self.table.hand
        if hand is None:
            return
        hand.dora_indicators.append(e["indicator"])
        hand.seen[e["indicator"]] += 1
        if hand.kan_dora_now:
            hand.kan_dora_now -= 1
        elif hand.kan_dora_pending and hand.rinshan is not None:
            hand.kan_dora_pending -= 1
            hand.early_dora.append(len(hand.dora_indicators) - 1)
        self._check_copies(None, "a new dora indicator", t, [e["indicator"]])

    def _added_kan_stands(self) -> None:
        """The chankan window of an added kan passed without a ron: the kan is made. Where
        the ruleset turns a kan's indicator at once, it is due now (one turned while the
        window was open stands); otherwise it still waits for the kan maker's discard."""
        if self.table.ruleset.kan_dora != "after_discard":
            self._release_kan_dora()

    def _release_kan_dora(self) -> None:
        """The kan maker discarded: a kan dora turned early now stands, and any still owed
        is due (the camera may see it turned just after the discard)."""
        hand = self.table.hand
        hand.early_dora.clear()
        hand.kan_dora_now += hand.kan_dora_pending
        hand.kan_dora_pending = 0
