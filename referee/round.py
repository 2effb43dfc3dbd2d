"""The tournament round: its clock, the game's end when time is up, and the signed result.

A tournament plays in rounds with a time limit. The round's clock (``clock`` events) runs from
a ``start``: its time-up moment is the start's ``t`` plus its ``seconds`` plus every
``extend`` (:class:`RoundClock`). The core treats that moment as a deadline, as it does a
claim window's end: :meth:`referee.core.Referee.next_deadline` gives it and ``advance``/``feed``
pass it, the window first when both fall at the same moment. When it passes during a game,
a ``time_up`` ruling says when the game ends under its ruleset (``ends``; extra key
``hands_left``: the hands still ended, 0-2) and cites the rule; the game then ends there with
``game_end`` ``reason`` ``time`` (:meth:`RoundRules._hand_after_time`).

Semantics the spec leaves open, as implemented here:

* An event at the time-up moment itself comes before it (as a press at a window's deadline
  is in time): a hand dealt at that ``t`` is being played when time is up.
* A hand is being played from its ``hand_start`` (tiles dealt; the table does not see the
  dice) until its ``hand_end``. Between hands, the hand "being played" is the next one dealt,
  so ``after_this_hand`` plays one more hand and ``after_next_hand`` two; the profile says
  which ending applies between hands (``time_up_between_hands``: WRC 2015 8.2 ends the game
  at once when the dice have not been thrown).
* A chombo hand does not count (it is dealt again), except in the last hand, where the
  profile decides (``time_up_chombo``): ``ends_game`` ends the game there, ``redeal`` deals
  it again as the last hand. An abortive draw counts as a hand.
* A game that would end there anyway (its last deal, a bust) ends with that ``reason``
  (``last_hand``, ``bust``) rather than ``time``; a game ended by time, like one a referee
  ended, stays ended if the table plays on.
* ``start`` begins the clock afresh (a new round); ``extend`` adds to a running clock;
  ``stop`` stops it, and no time-up comes. Once the time-up has been ruled, ``extend`` and
  ``stop`` change nothing: the time is up. A clock runs on across ``game_start`` (the hall may
  start the round before the table starts its game); the time-up is ruled only while a game
  is in progress, once per ``start`` and once per game (a clock started again in a game whose
  time is up does not give it more hands).

The result: after ``game_end``, each seat signs (``sign`` with ``seat``) and the referee
countersigns (``referee: true``). A ``sign`` before ``game_end``, a second one by the same
seat, or any after the result, changes nothing. When all four seats and the referee have
signed, one ``result`` ruling gives the scores, the match points and the penalties that stand
then (a penalty cancelled or given after ``game_end`` is counted), the seats in the order
they signed, and ``referee_signed``. A change to the ledger after ``game_end`` and before the
result clears the signatures collected so far: the sheet they signed is not the sheet that
stands.

:class:`RoundRules` is one part of :class:`referee.core.Referee`, working on its state.
"""
from __future__ import annotations

from . import ledger
from .rulesets import HANDS_LEFT


class RoundClock:
    """The round's clock on the table clock: ``started`` (the start's ``t``), ``seconds``
    (the round's length plus every extension), ``stopped``, and ``ruled`` (the time-up has
    been ruled for this start)."""

    __slots__ = ("started", "seconds", "stopped", "ruled")

    def __init__(self):
        self.started: float | None = None
        self.seconds = 0.0
        self.stopped = False
        self.ruled = False

    @property
    def moment(self) -> float | None:
        """When time is up; None when no clock runs."""
        if self.started is None:
            return None
        return self.started + self.seconds

    @property
    def deadline(self) -> float | None:
        """The time-up moment while it is still to come (running, not stopped, not ruled)."""
        if self.stopped or self.ruled:
            return None
        return self.moment

    def snapshot(self) -> dict:
        return {"started": self.started, "time_up_at": self.moment, "stopped": self.stopped,
                "time_up": self.ruled}


class RoundRules:
    """The round's clock, the game's end after time is up, the penalty ledger, signatures."""

    # -- the clock ------------------------------------------------------------------------
    def _on_clock(self, e: dict, t: float) -> None:
        clock = self.round_clock
        action = e["action"]
        if action == "start":   # a new round's clock: whatever ran before is replaced
            clock.started, clock.seconds = t, float(e["seconds"])
            clock.stopped = clock.ruled = False
        elif clock.started is None or clock.ruled or clock.stopped:
            return   # no clock runs, or the time is up already: nothing to extend or stop
        elif action == "extend":
            clock.seconds += float(e["seconds"])
        else:
            clock.stopped = True

    def _time_is_up(self, moment: float) -> None:
        """The round's time-up moment has passed: rule when the game ends."""
        self.round_clock.ruled = True
        table = self.table
        if table.game_over or table.hands_left is not None:
            return   # no game to end, or its time was up already (a clock started again)
        rs = table.ruleset
        hand = table.hand
        in_play = hand is not None and hand.result is None
        ends = rs.time_up_ends(in_play)
        table.hands_left = HANDS_LEFT[ends]
        self._emit({"type": "time_up", "ends": ends, "rule": rs.time_up_rule,
                    "hands_left": table.hands_left}, moment)
        if table.hands_left == 0:
            self._stop_play(moment)
            self._end_game(moment, reason="time")

    def _hand_after_time(self, t: float, chombo: bool) -> None:
        """A hand ended after the time was up (and the game did not end by itself): count it,
        and end the game when it was the last."""
        table = self.table
        if table.hands_left is None or table.game_over:
            return
        if chombo and not (table.hands_left == 1
                           and table.ruleset.time_up_chombo == "ends_game"):
            return   # dealt again: it does not count as a hand
        table.hands_left -= 1
        if table.hands_left <= 0:
            self._end_game(t, reason="time")

    def _clock_deadline(self) -> float | None:
        return self.round_clock.deadline

    # -- the penalty ledger ---------------------------------------------------------------
    def _deduct(self, ruling: dict, points: int, applies: str | None = None) -> None:
        """Put ``ruling``'s deduction of ``points`` from its seat on the game's ledger."""
        table = self.table
        table.penalties.append(ledger.entry(
            ruling["seat"], points, ruling["kind"], ruling["text"], ruling["ruling_id"],
            applies or table.ruleset.penalty_applies))
        self._sheet_changed()

    def _cancel_penalty(self, ruling_id: str) -> bool:
        """Take the deduction ``ruling_id`` gave off the ledger; False when none stands."""
        table = self.table
        kept = [p for p in table.penalties if p["ruling_id"] != ruling_id]
        if len(kept) == len(table.penalties):
            return False
        table.penalties = kept
        table.cancelled.append(ruling_id)
        self._sheet_changed()
        return True

    def _final(self) -> list[float]:
        table = self.table
        return ledger.final_with_penalties(table.scores, table.penalties, table.ruleset,
                                           table.first_dealer or 0)

    def _sheet_changed(self) -> None:
        """The ledger changed after ``game_end``: signatures given so far were for another
        sheet."""
        table = self.table
        if table.game_over and not table.result_given:
            table.signatures = []
            table.referee_signed = False

    # -- the signed result ----------------------------------------------------------------
    def _on_sign(self, e: dict, t: float) -> None:
        table = self.table
        if not table.game_over or table.result_given:
            return
        if e.get("referee") is True:
            if table.referee_signed:
                return
            table.referee_signed = True
        else:
            if e["seat"] in table.signatures:
                return
            table.signatures.append(e["seat"])
        if len(table.signatures) == 4 and table.referee_signed:
            table.result_given = True
            self._emit({"type": "result", "scores": list(table.scores), "final": self._final(),
                        "penalties": [dict(p) for p in table.penalties],
                        "signatures": list(table.signatures), "referee_signed": True}, t)

    def _round_snapshot(self) -> dict:
        table = self.table
        return {"clock": self.round_clock.snapshot(), "hands_left": table.hands_left,
                "penalties": [dict(p) for p in table.penalties],
                "signatures": list(table.signatures), "referee_signed": table.referee_signed,
                "result_given": table.result_given}
