"""Discards and turns: a hand dealt, whose turn it is, each discard and what it sets going.

A discard is judged here in the order a referee at the table sees it: out of turn or before
exposing a called meld (``procedure``), swap-calling (:mod:`referee.kuikae`), riichi declared
with an open hand or with fewer than four tiles left in the wall; then it joins the seat's
pond, passes every other seat (furiten), counts towards a claim not taken
(:meth:`MeldRules._count_untaken_claim`), lets a kan's waiting dora indicator count
(:mod:`referee.kans`), and opens the claim window on it (:mod:`referee.calls`). A riichi is
accepted when its discard passes without a ron. A tile seen a fifth time is flagged
(:mod:`referee.fifth_copy`).

:class:`TurnRules` is one part of :class:`referee.core.Referee`: it works on the referee's
state (``table``, ``window``, ``pending_claim``...; see :meth:`Referee._reset`).
"""
from __future__ import annotations

from .fifth_copy import over_four
from .kuikae import kuikae_discard
from .table import Hand

#: The four winds, for four winds discarded in the first go-around (an abortive draw).
WIND_TILES = ("1z", "2z", "3z", "4z")
#: Riichi may not be declared with fewer tiles left in the wall (the declarer must have a
#: draw of its own to come): EMA RCR 3.3.14, as the EMA text on mahjongtime.com gives it.
MIN_WALL_FOR_RIICHI = 4


class TurnRules:
    """Hands dealt, discards, riichi and the first go-around."""

    def _on_hand_start(self, e: dict, t: float) -> None:
        table = self.table
        if self.window is not None:
            self._close_window(t)
        hand = table.hand
        if hand is not None and hand.exhaustive_pending:
            # no tenpai event came: everyone is taken as noten
            self._end_hand(t, "exhaustive", tenpai=[])
        self._settle_unrevealed(t)
        if table.game_over and not table.ended_by_referee:
            self._resume_game()
        if table.first_dealer is None:
            table.first_dealer = e["dealer"]
        table.hand = Hand(e["round_wind"], e["dealer"], e["honba"], e["riichi_sticks"],
                          e["dora_indicators"])
        self._reset_hand_tracking()

    def _on_discard(self, e: dict, t: float) -> None:
        hand = self.table.hand
        seat_no = e["seat"]
        if hand is None:
            self._violation("procedure", seat_no, f"Seat {seat_no} discarded before the hand "
                            "started; the discard is not recorded.", t)
            return
        if self.window is not None:
            self._close_window(t)  # the table has moved on
        if hand.over:
            self._violation("procedure", seat_no, f"Seat {seat_no} discarded after the hand "
                            "ended; the discard is not recorded.", t)
            return
        tile = e["tile"]
        seat = hand.seats[seat_no]
        ruleset = self.table.ruleset
        pc = self.pending_claim
        if hand.turn != seat_no:
            self._violation("procedure", seat_no, f"Seat {seat_no} discarded out of turn "
                            f"(it was seat {hand.turn}'s turn).", t)
            hand.turn = seat_no
        elif pc is not None and pc["seat"] == seat_no and not pc["meld_seen"]:
            self._violation("procedure", seat_no, f"Seat {seat_no} discarded before exposing "
                            f"the {pc['call']} it called; expose the meld first.", t)
        if self.own_kan_press == seat_no:
            self.own_kan_press = None
        if ruleset.kuikae_forbidden:
            why = kuikae_discard(seat_no, tile, seat.kuikae, pc)
            if why:
                self._violation("kuikae", seat_no, why, t, tile=tile)
        seat.kuikae = ()
        riichi = bool(e.get("riichi"))
        if riichi:
            if seat.is_open:
                self._violation("riichi_open_hand", seat_no, f"Seat {seat_no} declared riichi "
                                "with an open hand; riichi needs a concealed hand.", t)
                riichi = False
            elif seat.riichi or seat.riichi_pending:
                riichi = False  # already in riichi: a sideways tile again is no new bet
            elif hand.wall < MIN_WALL_FOR_RIICHI:
                self._violation("procedure", seat_no, f"Seat {seat_no} declared riichi with "
                                f"{hand.wall} tile{'s' if hand.wall != 1 else ''} left in the "
                                f"wall; riichi needs at least {MIN_WALL_FOR_RIICHI}: the "
                                "declaration does not stand (no stick, no riichi).", t)
                riichi = False
        if seat.ippatsu:
            seat.ippatsu = False  # the riichi player's next discard ends ippatsu
        index = len(hand.discards)
        entry = seat.pond.add(tile, t, riichi, index)
        hand.seen[tile] += 1
        entry["seat"] = seat_no
        hand.discards.append(entry)
        hand.last_discard = entry
        if riichi:
            seat.riichi_pending = True
            seat.riichi_index = index
            seat.riichi_turn = seat.turns
            seat.double_riichi = seat.turns == 0 and hand.uninterrupted
        seat.turns += 1
        seat.called_this_turn = False
        seat.passed_since_turn = []
        for other in hand.seats:
            if other is not seat:
                other.passed_since_turn.append(tile)
                if other.riichi or other.riichi_pending:
                    other.passed_since_riichi.append(tile)
        hand.rinshan = None
        if hand.kan_dora_pending or hand.early_dora:
            self._release_kan_dora()
        hand.turn = None  # nobody's turn until the window closes
        self._count_untaken_claim(seat_no, t)
        if ("four_winds" in ruleset.abortive_draws and hand.uninterrupted and index == 3
                and tile in WIND_TILES and all(d["tile"] == tile for d in hand.discards)):
            hand.abort_check = "four_winds"
        if over_four(hand.seen, tile):
            self._check_copies(seat_no, f"seat {seat_no}'s discard", t, [tile])
        kan_blocked = "kan_limit" if len(hand.kans) >= ruleset.kan_limit else None
        self._open_window(seat_no, tile, t, last_discard=hand.wall <= 0, discard_index=index,
                          kan_blocked=kan_blocked)

    def _accept_riichi(self, seat) -> None:
        """The riichi discard passed without a ron: the bet stands (1000 on the table)."""
        hand = self.table.hand
        seat.riichi_pending = False
        seat.riichi = True
        seat.ippatsu = True
        hand.riichi_sticks += 1
        hand.riichi_seats.append(seat.seat)
        self.table.scores[seat.seat] -= 1000

    def _break_first_turn(self) -> None:
        """A call (or a kan that stands) interrupts the first go-around and every ippatsu."""
        hand = self.table.hand
        hand.uninterrupted = False
        for s in hand.seats:
            s.ippatsu = False
