"""Calls: the seat buttons pressed, the claim window on a discard, and its decision.

A discard (or the tile added to a kan) opens a :class:`~referee.claims.ClaimWindow`; each
``call`` inside it is a claim on that tile, sorted out as it arrives (wrong seat, last
discard, kan limit: the violations are given here; what the seat shows may bar its call,
:meth:`CallRules._barred_call`). When the window closes (its deadline, the
table moving on, or early when nothing could outrank the claims standing) it is decided by
:func:`~referee.claims.arbitrate`: a ron stops play (:mod:`referee.winning`), a chii, pon or
kan gives the caller the turn and waits for its meld (:mod:`referee.melds`), nothing gives the
next seat its draw. A riichi discard that passes is accepted then.

A ``call`` outside any window is the seat's own turn (``ron``: tsumo, ``kan``: a closed or
added kan, :mod:`referee.kans`) or a press too late for the last discard (``late``).

:class:`CallRules` is one part of :class:`referee.core.Referee`, working on its state.
"""
from __future__ import annotations

from .claims import ClaimWindow, arbitrate
from .tiles import base


class CallRules:
    """Claim windows: opening, presses, early decision, closing and what follows."""

    def _open_window(self, seat_no: int, tile: str, t: float, **kind) -> None:
        """Open the claim window on ``tile`` at ``t`` with the ruleset's deadline (none when
        it has no timing rule); ``kind``: the :class:`ClaimWindow` flags."""
        cw = self.table.ruleset.claim_window
        self.window = ClaimWindow(seat_no, tile, t, round(t + cw, 6) if cw is not None else None,
                                  **kind)
        self.late_presses = set()

    def _on_call(self, e: dict, t: float) -> None:
        hand = self.table.hand
        seat_no, call = e["seat"], e["call"]
        if hand is None:
            return
        w = self.window
        if w is not None and w.chankan and seat_no == w.discard_seat and call in ("kan", "ron"):
            # the kan's owner goes on with its turn (rinshan tsumo, another kan): the window
            # on its kan tile is decided now with the rons already standing
            self._close_window(t)
            w = self.window
            if hand.over:
                return
        if w is not None:
            if hand.seats[seat_no].dead_hand and seat_no != w.discard_seat:
                if not any(i["seat"] == seat_no for i in w.ignored):
                    w.ignored.append({"seat": seat_no, "call": call, "reason": "dead_hand"})
                return
            reason = w.press(seat_no, call, t, self._barred_call(seat_no, call, w))
            if reason is None:
                if w.settled(self.table.ruleset.multiple_ron):
                    self._close_window(t)
            elif reason == "wrong_seat":
                self._violation("wrong_seat_call", seat_no, f"Seat {seat_no} called chii on "
                                f"seat {w.discard_seat}'s discard; chii only from the player "
                                "on the left.", t)
            elif reason == "last_discard":
                if call == "kan":
                    self._violation("illegal_kan", seat_no, f"Seat {seat_no} called kan on the "
                                    "last discard; the last tile can only be claimed for a "
                                    "win.", t)
                else:
                    self._violation("last_discard_call", seat_no, f"Seat {seat_no} called "
                                    f"{call} on the last discard; the last tile can only be "
                                    "claimed for a win.", t)
            elif reason == "kan_limit":
                self._violation("fifth_kan", seat_no, f"Seat {seat_no} called a fifth kan; "
                                "no more kans are allowed in this hand.", t)
            return
        if hand.over:
            self._press_after_early_win(seat_no, call, t)
            return
        if seat_no == hand.turn:
            if call == "ron":
                self._declare_win(seat_no, None, None, t)
                return
            if call == "kan":
                self._check_own_kan(seat_no, t)
                self.own_kan_press = seat_no
                return
        # a press with no window open, not an own-turn call: too late for the last discard,
        # unless it repeats a press that window already judged (a seat's presses count once)
        last = self.last_closed
        if last is None or (seat_no, call) in self.late_presses or last.heard(seat_no, call):
            return
        self.late_presses.add((seat_no, call))
        if seat_no == last.discard_seat:
            ignored = [{"seat": seat_no, "call": call, "reason": "own_discard"}]
            self._emit({"type": "claim", "discard_seat": last.discard_seat, "tile": last.tile,
                        "winners": [], "rejected": [], "window": round(t - last.opened, 3),
                        "ignored": ignored}, t)
            return
        self._emit({"type": "claim", "discard_seat": last.discard_seat, "tile": last.tile,
                    "winners": [], "rejected": [{"seat": seat_no, "call": call,
                                                 "reason": "late"}],
                    "window": round(t - last.opened, 3)}, t)

    def _barred_call(self, seat_no: int, call: str, w: ClaimWindow) -> str | None:
        """Why what the table shows of ``seat_no`` forbids its ``call`` on ``w``'s tile (see
        :data:`~referee.claims.BARRED`), or None. The camera cannot see a concealed hand, but
        it sees a riichi declared, and a pon of the tile: a set has four, so a seat showing
        three cannot hold the three concealed copies a kan on the fourth needs."""
        if call == "ron" or w.chankan:
            return None
        seat = self.table.hand.seats[seat_no]
        if seat.riichi:
            return "riichi"
        if call == "kan" and any(m["kind"] == "pon" and m["tiles"]
                                 and base(m["tiles"][0]) == base(w.tile) for m in seat.melds):
            return "own_pon"
        return None

    def _press_after_early_win(self, seat_no: int, call: str, t: float) -> None:
        """A press inside a window that was decided early for a win: it lost to that win, and
        the referee sees it (once) as rejected rather than lost without a word. A press the
        window already judged (a winner pressing again, a repeat of a rejected press) gives no
        ruling: it would contradict the decision or repeat it."""
        last = self.last_closed
        if last is None or last.deadline is None or t > last.deadline \
                or seat_no == last.discard_seat or (seat_no, call) in self.late_presses \
                or last.heard(seat_no, call):
            return
        self.late_presses.add((seat_no, call))
        reason = "head_bump" if call == "ron" else "precedence"
        self._emit({"type": "claim", "discard_seat": last.discard_seat, "tile": last.tile,
                    "winners": [], "rejected": [{"seat": seat_no, "call": call,
                                                 "reason": reason}],
                    "window": round(t - last.opened, 3)}, t)

    def _own_turn_press(self, w: ClaimWindow, seat_no: int, call: str,
                        tiles: list[str] = ()) -> bool:
        """In a window with no deadline, take back ``seat_no``'s ``call`` press as an own-turn
        call: close the window at the press (without it) and give the seat its turn.
        ``tiles``: the kan shown; one holding the discarded tile on a kan press rejected
        ``own_pon`` is that claim shown anyway (the discarded copy made the fourth), not
        a kan of the seat's own."""
        if (seat_no - w.discard_seat) % 4 != 1:
            return False
        if any(base(x) == base(w.tile) for x in tiles) and any(
                r["seat"] == seat_no and r["call"] == call and r["reason"] == "own_pon"
                for r in w.rejected):
            return False
        # a kan press rejected on the discard (riichi, own_pon) was the seat's own kan after
        # all: taken back too
        pressed = w.take_back(seat_no, call)
        if pressed is None:
            return False
        self._close_window(pressed)
        return self.table.hand is not None and self.table.hand.turn == seat_no

    def _close_window(self, t: float) -> None:
        """Decide the open window at ``t``: the ``claim`` ruling, then what follows from it."""
        w = self.window
        if w is None:
            return
        self.window = None
        w.closed = True
        self.last_closed = w
        hand = self.table.hand
        ruleset = self.table.ruleset
        winners, rejected, triple = arbitrate(w, ruleset.multiple_ron)
        w.winners = winners
        if w.received_call:
            ruling = {"type": "claim", "discard_seat": w.discard_seat, "tile": w.tile,
                      "winners": winners, "rejected": rejected,
                      "window": round(t - w.opened, 3)}
            if w.ignored:
                ruling["ignored"] = w.ignored
            if w.chankan:
                ruling["chankan"] = True
            self._emit(ruling, t)
        discarder = hand.seats[w.discard_seat]
        if triple:
            discarder.riichi_pending = False
            self._end_hand(t, "abortive", reason="triple_ron")
            return
        if winners and winners[0]["call"] == "ron":
            discarder.riichi_pending = False  # a riichi discard that deals in is no bet
            for win in winners:
                self._declare_win(win["seat"], w.discard_seat, w.tile, t, chankan=w.chankan,
                                  ankan=w.ankan)
            self._judge_deferred(t)
            return
        if w.chankan:
            hand.chankan_tile = None
            hand.turn = w.discard_seat
            self._break_first_turn()
            if not w.ankan:
                self._added_kan_stands()
            self._judge_deferred(t)
            return
        if discarder.riichi_pending:
            self._accept_riichi(discarder)
        if hand.abort_check is None and len(hand.riichi_seats) == 4 \
                and "four_riichi" in ruleset.abortive_draws:
            hand.abort_check = "four_riichi"
        if hand.abort_check is not None:
            reason, hand.abort_check = hand.abort_check, None
            self._end_hand(t, "abortive", reason=reason)
            return
        if winners:
            win = winners[0]
            caller = win["seat"]
            entry = hand.last_discard
            if entry is not None and entry["index"] == w.discard_index:
                entry["called"] = True
                hand.seen[entry["tile"]] -= 1
            self._break_first_turn()
            self.pending_claim = {"seat": caller, "call": win["call"], "tile": w.tile,
                                  "from": w.discard_seat, "others": 0, "meld_seen": False,
                                  "t": t}
            hand.turn = caller
            hand.seats[caller].called_this_turn = win["call"] in ("chii", "pon")
            if win["call"] == "kan":
                self._record_kan(caller, "daiminkan", w.tile)
        elif w.last_discard:
            hand.exhaustive_pending = True
            hand.over = True
            hand.turn = None
        else:
            hand.turn = (w.discard_seat + 1) % 4
            hand.wall -= 1  # the next player draws
        self._judge_deferred(t)

    def _judge_deferred(self, t: float) -> None:
        """Judge the melds seen while the window was open, now that it is decided."""
        while self.deferred_melds and self.window is None:
            self._judge_meld(self.deferred_melds.pop(0), t)
