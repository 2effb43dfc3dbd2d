"""Wins and payments: a win called, the hand shown, judged and paid; chombo.

A ron awarded in a window (:mod:`referee.calls`) or a tsumo pressed on one's own turn stops
play and is kept in ``hand.declared_wins`` with what judging it needs (rinshan, haitei, the
first go-around, ippatsu, chankan). The seat's ``reveal`` is judged by :mod:`referee.wins`: a
``win`` ruling paid per :mod:`referee.payments` (honba and riichi sticks included), or a
``false_win``/``furiten_ron``/``no_yaku`` violation whose chombo is paid per the ruleset. The
hand ends (:mod:`referee.hand_end`) once every declared win is judged.

:class:`WinRules` is one part of :class:`referee.core.Referee`, working on its state.
"""
from __future__ import annotations

from . import payments
from .scoring import is_complete
from .wins import judge, nine_terminals


class WinRules:
    """Declared wins, reveals, win payments and chombo payments."""

    def _on_reveal(self, e: dict, t: float) -> None:
        w = self.window
        if w is not None and w.deadline is None and not w.chankan \
                and e["win_tile"] != w.tile and self._own_turn_press(w, e["seat"], "ron"):
            # no timing rule: a win on another tile than the open discard was a tsumo
            self._declare_win(e["seat"], None, None, t)
        if self.window is not None:
            self._close_window(t)
        if self.table.hand is None:
            return
        self._judge_reveal(e, t)

    def _declare_win(self, seat: int, from_seat: int | None, tile: str | None, t: float,
                     chankan: bool = False, ankan: bool = False) -> None:
        """A win was called (ron awarded, or tsumo pressed). Play stops; the win is judged
        when the hand is revealed (:meth:`_judge_reveal`), from the state kept here."""
        hand = self.table.hand
        s = hand.seats[seat]
        hand.declared_wins.append({
            "seat": seat, "from": from_seat, "tile": tile, "t": t, "chankan": chankan,
            "ankan": ankan,
            "rinshan": from_seat is None and hand.rinshan == seat,
            "haitei": hand.wall <= 0,
            "first_turn": hand.uninterrupted and s.turns == 0,
            "ippatsu": s.ippatsu,
            "judged": False,
        })
        hand.over = True
        hand.turn = None

    def _judge_reveal(self, e: dict, t: float) -> None:
        """Judge a revealed hand (:mod:`referee.wins`): a ``win`` ruling with its payments, or
        ``false_win``/``furiten_ron``/``no_yaku`` with the ruleset's penalty. The hand ends
        once every declared win is judged.

        A reveal with no win called: on the seat's first turn, before any call, with nine or
        more kinds of terminals and honours and no winning hand, it is kyuushu kyuuhai (an
        abortive ``nine_terminals`` where the ruleset has it); on the seat's own turn
        otherwise it is taken as a tsumo (``procedure``: press the button first); any other
        time it is a hand laid open without a win (``false_win``)."""
        hand = self.table.hand
        seat_no = e["seat"]
        win = next((w for w in hand.declared_wins
                    if w["seat"] == seat_no and not w["judged"]), None)
        if win is None:
            if hand.result is not None or hand.over:
                self._violation("procedure", seat_no, f"Seat {seat_no} laid its hand open with "
                                "no win of its own to judge; nothing changes.", t)
                return
            ruleset = self.table.ruleset
            seat = hand.seats[seat_no]
            own_turn = hand.turn == seat_no
            if own_turn and "nine_terminals" in ruleset.abortive_draws and hand.uninterrupted \
                    and seat.turns == 0 and nine_terminals(e["tiles"]) \
                    and not is_complete(e["tiles"], seat.melds):
                self._show_hand(None, e, t)
                self._end_hand(t, "abortive", reason="nine_terminals", seat=seat_no)
                return
            if own_turn:
                self._violation("procedure", seat_no, f"Seat {seat_no} showed a winning hand "
                                "without pressing the button; taken as a tsumo.", t)
                self._declare_win(seat_no, None, None, t)
                win = hand.declared_wins[-1]
            else:
                self._show_hand(None, e, t)
                self._chombo("false_win", seat_no, f"Seat {seat_no} laid its hand open with "
                             "no win called: a false win.", t)
                self._finish_reveals(t)
                return
        win["judged"] = True
        ruleset = self.table.ruleset
        self._show_hand(win, e, t)
        if hand.early_dora and (win["rinshan"] or (win["chankan"] and not win["ankan"])):
            # pointed out once, not again for the second hand of a double ron
            noted = any(w.get("uncounted_dora") for w in hand.declared_wins)
            win["uncounted_dora"] = list(hand.early_dora)
            kan_seat = hand.kans[-1]["seat"] if hand.kans else seat_no
            shown = ", ".join(hand.dora_indicators[i] for i in hand.early_dora)
            if win["rinshan"]:
                why = (f"for seat {kan_seat}'s open kan before its discard; with the "
                       "replacement tile winning it is never due and does not count")
            else:
                why = (f"for seat {kan_seat}'s added kan before the other players could rob "
                       "it; the kan was robbed, so it was never made and the indicator does "
                       "not count")
            if not noted:
                self._violation("procedure", kan_seat, f"The dora indicator {shown} was "
                                f"turned {why}.", t)
        j = judge(hand, seat_no, win, e, ruleset.scoring_options(self.table.red_fives,
                                                              self.table.open_tanyao),
                  pao=ruleset.pao)
        if j.kind == "unscored":
            self._violation("procedure", seat_no, j.text, t)
        elif j.score is None:
            self._chombo(j.kind, seat_no, j.text, t)
        else:
            self._pay_win(seat_no, win, j, t)
        self._finish_reveals(t)

    def _show_hand(self, win: dict | None, e: dict, t: float) -> None:
        """The tiles a reveal lays on the table, for the fifth-copy check: the concealed
        tiles (less a ron tile, which lies in a pond or a robbed kan) and the ura
        indicators."""
        hand = self.table.hand
        tiles = list(e["tiles"])
        if win is not None and win["from"] is not None and e["win_tile"] in tiles:
            tiles.remove(e["win_tile"])
        hand.seen.subtract(hand.revealed.get(e["seat"], ()))
        hand.revealed[e["seat"]] = tiles
        hand.seen.update(tiles)
        ura = list(e.get("ura_indicators") or ())
        if len(ura) > len(hand.ura_seen):
            hand.seen.subtract(hand.ura_seen)
            hand.ura_seen = ura
            hand.seen.update(ura)
        self._check_copies(e["seat"], f"seat {e['seat']}'s revealed hand", t, tiles + ura)

    def _pay_win(self, seat_no: int, win: dict, j, t: float) -> None:
        hand = self.table.hand
        ruleset = self.table.ruleset
        ws = j.score
        honba, sticks = hand.honba, hand.riichi_sticks
        from_seat = win["from"]
        if from_seat is None:
            if j.liable is not None:
                d = payments.pao_tsumo(seat_no, j.liable, ws.points, honba, sticks)
            else:
                d = payments.tsumo(seat_no, hand.dealer, ws.dealer_payment,
                                   ws.non_dealer_payment, honba, sticks)
        else:
            rons = [w["seat"] for w in hand.declared_wins if w["from"] == from_seat]
            nearest = payments.nearest_first(from_seat, rons)[0] == seat_no
            h = honba if nearest or ruleset.multiple_ron_honba == "each" else 0
            st = sticks if nearest else 0
            if j.liable is not None:
                d = payments.pao_ron(seat_no, from_seat, j.liable, ws.points, h, st)
            else:
                d = payments.ron(seat_no, from_seat, ws.points, h, st)
        ruling = {"type": "win", "seat": seat_no, "from": from_seat, "han": ws.han,
                  "fu": ws.fu, "yaku": ws.yaku_names, "points": ws.points, "payments": d,
                  "yaku_han": [[name, han] for name, han in ws.yaku if han],
                  "limit": ws.limit, "yakuman": ws.yakuman}
        if j.liable is not None:
            ruling["liable"] = j.liable
        self._emit(ruling, t)
        hand.wins_judged.append(ruling)
        hand.win_changes = payments.add(hand.win_changes, d)

    def _chombo(self, kind: str, seat_no: int, text: str, t: float) -> None:
        r = self._violation(kind, seat_no, text, t)
        if r["penalty"] == "chombo" and not r.get("check"):
            self._charge_chombo(seat_no, r)

    def _charge_chombo(self, seat_no: int, ruling: dict) -> None:
        """Charge the chombo ``ruling`` gave ``seat_no``: a payment to the others goes into
        the hand's score changes; a fixed deduction (EMA, WRC: nobody gains, and it comes off
        after uma) goes on the penalty ledger instead (:mod:`referee.ledger`), so it does not
        change the table's scores and the ranking they give."""
        hand = self.table.hand
        rs = self.table.ruleset
        hand.chombos.append(seat_no)
        if rs.chombo_style == "fixed":
            self._deduct(ruling, rs.chombo_amount)
            return
        hand.win_changes = payments.add(hand.win_changes, payments.chombo(
            seat_no, hand.dealer, rs.chombo_style, rs.chombo_amount))

    def _finish_reveals(self, t: float) -> None:
        """End the hand once every declared win has been judged (and no check on a revealed
        hand waits for the referee: :mod:`referee.checks`)."""
        hand = self.table.hand
        if hand.result is not None or any(not w["judged"] for w in hand.declared_wins) \
                or self._reveal_checks:
            return
        if hand.wins_judged:
            self._end_hand(t, "tsumo" if hand.wins_judged[0]["from"] is None else "ron")
        elif hand.chombos:
            self._end_hand(t, "abortive", reason="chombo")
        else:
            self._end_hand(t, "abortive", reason="unjudged_win")

    def _settle_unrevealed(self, t: float) -> None:
        """Before the table moves on: wins called and never shown are not counted."""
        hand = self.table.hand
        if hand is None or hand.result is not None:
            return
        pending = [w for w in hand.declared_wins if not w["judged"]]
        if not pending:
            return
        for w in pending:
            w["judged"] = True
            self._violation("procedure", w["seat"], f"Seat {w['seat']} called a win but did "
                            "not show its hand; the win is not counted.", t)
        self._finish_reveals(t)
