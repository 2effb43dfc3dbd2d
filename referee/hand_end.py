"""Hand end and game end: the ``hand_end`` and ``game_end`` rulings and what they settle.

A hand ends by a win (once every declared win is judged, :mod:`referee.winning`), by an
exhaustive draw (at ``tenpai``: noten payments or nagashi mangan), by an abortive draw, or by
a chombo (the hand's riichi bets go back). Its ``hand_end`` shows the scores after that hand
and what the next hand is (dealer, honba, riichi sticks on the table). The game ends by the
ruleset (last deal, West extension, bust, the last dealer on top), by the round's time
(:mod:`referee.round`) or a referee's ``end_game``; riichi sticks still on the table then go
to first place where the ruleset says so, and ``game_end`` gives the scores, why the game
ended, the deductions on the penalty ledger, and the match points after uma and oka
(:func:`final_points`) with those deductions applied (:mod:`referee.ledger`).

:class:`HandEndRules` is one part of :class:`referee.core.Referee`, working on its state.
"""
from __future__ import annotations

import math

from . import payments
from .table import Hand
from .wins import nagashi_seats


class HandEndRules:
    """Settling a hand (draws, wins, chombo), dealer rotation, the end of the game."""

    def _stop_play(self, t: float) -> None:
        """Play stops where it stands (a referee's ``end_game``, time up with the game ending
        now): the open window closes, a drawn hand waiting for ``tenpai`` ends all noten, wins
        called and never shown are not counted."""
        if self.window is not None:
            self._close_window(t)
        hand = self.table.hand
        if hand is not None and hand.exhaustive_pending:
            self._end_hand(t, "exhaustive", tenpai=[])
        self._settle_unrevealed(t)

    def _on_tenpai(self, e: dict, t: float) -> None:
        if self.window is not None:
            self._close_window(t)
        hand = self.table.hand
        if hand is None:
            return
        if hand.exhaustive_pending:
            self._end_hand(t, "exhaustive", tenpai=sorted(set(e["seats"])))
        elif not hand.over:
            self._violation("procedure", None, f"Tenpai was shown with {hand.wall} tiles still "
                            "in the wall; the hand is ended as an exhaustive draw.", t)
            self._end_hand(t, "exhaustive", tenpai=sorted(set(e["seats"])))

    def _settle(self, result: str, reason: str | None, extra: dict) -> list[int]:
        """Score changes for a hand that ended (riichi sticks taken when accepted)."""
        hand = self.table.hand
        if hand is None:
            return [0, 0, 0, 0]
        ruleset = self.table.ruleset
        if result in ("ron", "tsumo"):
            hand.sticks_after = 0
            return list(hand.win_changes)
        if reason == "chombo":
            changes = list(hand.win_changes)
            for s in hand.riichi_seats:  # the hand is replayed: its riichi bets go back
                changes[s] += payments.STICK
            hand.sticks_after = hand.riichi_sticks - len(hand.riichi_seats)
            return changes
        hand.sticks_after = hand.riichi_sticks
        if result == "exhaustive":
            nagashi = nagashi_seats(hand) if ruleset.nagashi_mangan else []
            if nagashi:
                extra["nagashi"] = nagashi
                return payments.nagashi_mangan(nagashi, hand.dealer)
            return payments.exhaustive_draw(extra.get("tenpai") or [], ruleset.noten_total)
        return [0, 0, 0, 0]

    def _next_hand(self, result: str, reason: str | None, extra: dict) -> tuple[int, int, bool]:
        """Dealer and honba of the next hand, and whether the dealer keeps the deal."""
        hand = self.table.hand
        dealer, honba = hand.dealer, hand.honba
        if result in ("ron", "tsumo"):
            won = any(w["seat"] == dealer for w in hand.wins_judged)
            nd, nh = payments.next_hand(dealer, honba, result, dealer_won=won)
        elif reason == "chombo":
            nd, nh = payments.next_hand(dealer, honba, "chombo",
                                        chombo_repeats=self.table.ruleset.chombo_repeats)
        elif result == "exhaustive":
            nd, nh = payments.next_hand(dealer, honba, result,
                                        dealer_tenpai=dealer in (extra.get("tenpai") or []))
        else:
            nd, nh = payments.next_hand(dealer, honba, "abortive")
        return nd, nh, nd == dealer

    def _end_hand(self, t: float, result: str, reason: str | None = None, **extra) -> None:
        hand = self.table.hand
        changes = self._settle(result, reason, extra)
        if reason is None and extra.get("nagashi"):
            reason = "nagashi_mangan"
        for i, c in enumerate(changes):
            self.table.scores[i] += c
        ruling = {"type": "hand_end", "result": result}
        if reason is not None:
            ruling["reason"] = reason
        ruling["scores"] = list(self.table.scores)
        ruling.update(extra)
        ruling["changes"] = list(changes)
        kept = False
        if hand is not None:
            nd, nh, kept = self._next_hand(result, reason, extra)
            ruling["next"] = {"dealer": nd, "honba": nh, "riichi_sticks": hand.sticks_after}
        self._emit(ruling, t)
        if hand is not None:
            hand.over = True
            hand.exhaustive_pending = False
            hand.turn = None
            hand.result = ruling
            if self.table.game_over:
                return
            if self._game_over_after(hand, result, kept):
                rs = self.table.ruleset
                bust = rs.bust_below_zero and min(self.table.scores) < 0
                self._end_game(t, reason="bust" if bust else "last_hand")
            else:   # the round's time may be up (referee.round)
                self._hand_after_time(t, chombo=reason == "chombo")

    def _game_over_after(self, hand: Hand, result: str, dealer_kept: bool) -> bool:
        table = self.table
        rs = table.ruleset
        first = table.first_dealer or 0
        wind = "ESWN".index(hand.round_wind) if hand.round_wind in "ESWN" else 0
        round_index = wind * 4 + (hand.dealer - first) % 4
        return payments.game_over(
            round_index, hand.dealer, table.scores, dealer_kept,
            result="abortive" if result not in ("ron", "tsumo", "exhaustive") else result,
            length=table.game_length or rs.game_length, target=rs.target_score,
            extension=rs.extension, bust_below_zero=rs.bust_below_zero,
            dealer_stops_when_top=rs.dealer_stops_when_top)

    def _end_game(self, t: float, by_referee: bool = False, reason: str | None = None) -> None:
        """End the game: ``reason`` is ``last_hand`` or ``bust`` (the ruleset ended it),
        ``time`` (the round's time, referee.round) or ``referee`` (``by_referee``). The
        ``game_end`` lists the deductions standing on the penalty ledger and applies them to
        ``final`` (:mod:`referee.ledger`)."""
        table = self.table
        if table.game_over:
            return
        reason = "referee" if by_referee else (reason or "last_hand")
        table.game_over = True
        table.end_reason = reason
        # a game the referee or the round's time ended stays ended if the table plays on
        table.ended_by_referee = reason in ("referee", "time")
        first = table.first_dealer or 0
        sticks = table.sticks_on_table() if table.ruleset.leftover_sticks == "first" else 0
        final = payments.final_scores(table.scores, sticks, first)
        table.game_end_credit = [a - b for a, b in zip(final, table.scores)]
        table.scores = final
        if table.hand is not None:
            table.hand.sticks_after = 0
        table.signatures, table.referee_signed = [], False
        self._emit({"type": "game_end", "scores": list(table.scores), "final": self._final(),
                    "reason": reason, "penalties": [dict(p) for p in table.penalties]}, t)

    def _resume_game(self) -> None:
        """A hand dealt after the ruleset ended the game, with no new ``game_start``: the table
        played on (its rules, or its referee, did not end the game where this profile did).
        That game end is withdrawn: the riichi sticks it gave first place go back on the
        table, where the new ``hand_start`` counts them, so no later hand pays them twice; the
        game ends again by the ruleset, or by a referee's ``end_game``. A game a referee
        ended stays ended."""
        table = self.table
        if table.game_end_credit is not None:
            table.scores = [a - b for a, b in zip(table.scores, table.game_end_credit)]
        table.game_end_credit = None
        table.game_over = False
        table.end_reason = None
        table.signatures, table.referee_signed = [], False   # that sheet was not the end


def final_points(scores: list[int], ruleset, first_dealer: int = 0) -> list[float]:
    """Match points after uma and oka: (score - return) / 1000 + uma by rank, the oka
    ((return - start) x 4) to first place. Ties share the tied ranks' uma and oka under
    ``split``; under ``seat_order`` the seat nearer the first dealer ranks higher."""
    order = sorted(range(4), key=lambda s: (-scores[s], (s - first_dealer) % 4))
    bonus = list(ruleset.uma)
    bonus[0] += (ruleset.return_score - ruleset.start_score) * 4 / 1000
    per_seat = [0.0] * 4
    if ruleset.uma_ties == "split":
        i = 0
        while i < 4:
            j = i
            while j + 1 < 4 and scores[order[j + 1]] == scores[order[i]]:
                j += 1
            share = sum(bonus[i:j + 1]) / (j - i + 1)
            for k in range(i, j + 1):
                per_seat[order[k]] = share
            i = j + 1
    else:
        for rank, s in enumerate(order):
            per_seat[s] = bonus[rank]
    if ruleset.final_rounding == "tenhou":
        ret = ruleset.return_score // 1000
        out = [0.0] * 4
        for s in order[1:]:
            # whole thousands, a half away from zero: 19,500 -> 20, -7,500 -> -8 (a bust
            # seat's -58 in a phoenix-room log, dnovikoff/tenhou bug3.xml)
            whole = math.floor(abs(scores[s]) / 1000 + 0.5)
            out[s] = float(math.copysign(whole, scores[s]) - ret + per_seat[s])
        out[order[0]] = -sum(out[s] for s in order[1:])
        return [round(x, 1) + 0.0 for x in out]
    return [round((scores[s] - ruleset.return_score) / 1000 + per_seat[s], 1) for s in range(4)]
