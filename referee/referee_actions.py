"""Referee actions: what a referee enters on the dashboard (``referee`` events).

``note`` changes nothing, except that a seat's call for a referee withdraws the presses it
made to call (:meth:`RefereeActions._withdraw_presses`); ``override`` lifts the dead hand a
ruling caused, takes its deduction off the penalty ledger, and lists it under ``overrides`` in
the snapshot; ``penalty`` gives a violation of the referee's own
(:meth:`RefereeActions._referee_penalty`); ``cancel_penalty`` takes the deduction of the
penalty ``ruling_id`` off the ledger (:mod:`referee.ledger`; a penalty paid to the other
players is no deduction: ``override`` or ``undo`` corrects it); ``undo`` voids the last table
event and rebuilds the state without it (:meth:`RefereeActions._undo`); ``end_game`` ends the
game (``game_end`` reason ``referee``).

:class:`RefereeActions` is one part of :class:`referee.core.Referee`, working on its state.
"""
from __future__ import annotations

from .events import MAX_SCORE, PENALTIES, VIOLATION_KINDS
from .rulesets import PENALTY_APPLIES
from .violations import deduction


class RefereeActions:
    """The referee's decisions entered at the table."""

    def _on_referee(self, e: dict, t: float) -> None:
        action = e["action"]
        if action == "note":
            if e.get("referee_call") is True:
                self._withdraw_presses(e.get("seat"))
            return
        if action in ("override", "penalty") and self._answer_check(e, t):
            return   # the answer to a check (referee.checks)
        if action == "override":
            rid = e.get("ruling_id")
            if rid is None:
                return
            rid = str(rid)
            self.table.overrides[rid] = {"t": t, "text": e["text"]}
            self._cancel_penalty(rid)   # an overridden ruling's deduction does not stand
            hand = self.table.hand
            if hand is not None:
                for s in hand.seats:
                    if rid in s.dead_reasons:
                        s.dead_reasons.remove(rid)
                        s.dead_hand = bool(s.dead_reasons)
            return
        if action == "penalty":
            self._referee_penalty(e, t)
            return
        if action == "undo":
            self._undo(t)
            return
        if action == "cancel_penalty":
            self._cancel_penalty(str(e["ruling_id"]))
            return
        if action == "end_game":
            self._stop_play(t)
            self._end_game(t, by_referee=True)

    def _withdraw_presses(self, seat) -> None:
        """A seat that calls for a referee (a note with ``referee_call``, see
        :mod:`table.referee_calls`) pressed its buttons to call, not to claim: its presses
        leave the open claim window (``ignored``, reason ``referee_call``), and a kan it
        pressed on its own turn is no longer awaited."""
        if not (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat <= 3):
            return
        w = self.window
        if w is not None:
            for press in [p for p in w.presses + w.rejected if p["seat"] == seat]:
                (w.presses if press in w.presses else w.rejected).remove(press)
                w.ignored.append({"seat": seat, "call": press["call"], "reason": "referee_call"})
        if self.own_kan_press == seat:
            self.own_kan_press = None

    def _referee_penalty(self, e: dict, t: float) -> None:
        """A penalty entered by the referee.

        ``kind``: the event's extra key ``kind`` when it is a violation kind, else the first
        violation kind the text names (``false group`` or ``false_group``...), else
        ``procedure``. ``penalty``: the extra key ``penalty``, else the first penalty the text
        names (``chombo``, ``dead hand``, ``warning``), else ``warning``. ``seat``: the extra
        key ``seat`` when it is 0-3, else null.

        A ``points`` penalty deducts the event's extra key ``points`` (table points, a positive
        whole number), else the ruleset's for the kind (``penalty_points``); with neither it is
        a ``warning``. It goes on the penalty ledger (extra key ``applies``: ``before_uma`` or
        ``after_uma``, else the ruleset's ``penalty_applies``); so does a chombo where the
        ruleset's chombo is a fixed deduction. The ruling carries ``points``.

        A chombo given during a hand ends it as the core's own chombos do (``abortive``,
        reason ``chombo``): the ruleset's chombo is paid and the hand's riichi bets go back. The
        referee has judged, so the table is not left waiting for a hand that cannot go on.
        """
        text = e["text"]
        low = text.lower().replace("-", " ")
        kind = e.get("kind") if e.get("kind") in VIOLATION_KINDS else None
        if kind is None:
            kind = next((k for k in VIOLATION_KINDS if k != "procedure"
                         and (k in low or k.replace("_", " ") in low)), "procedure")
        penalty = e.get("penalty") if e.get("penalty") in PENALTIES else None
        if penalty is None:
            penalty = next((p for p in ("chombo", "dead_hand", "warning")
                            if p in low or p.replace("_", " ") in low), "warning")
        seat = e.get("seat")
        if not (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat <= 3):
            seat = None
        rs = self.table.ruleset
        points = 0
        if penalty == "points":
            given = e.get("points")
            points = (given if isinstance(given, int) and not isinstance(given, bool)
                      and 0 < given <= MAX_SCORE else deduction(rs, penalty, kind))
            if not points:
                penalty = "warning"   # no amount given, none in the ruleset: nothing to deduct
        elif penalty == "chombo":
            points = deduction(rs, penalty, kind)
        ruling = {"type": "violation", "seat": seat, "kind": kind, "penalty": penalty,
                  "rule": "referee decision", "text": text, "by_referee": True}
        if points:
            ruling["points"] = points
        if e.get("confirms"):   # a check confirmed (referee.checks): the rule it cited
            ruling.update(rule=e["rule"], confirms=e["confirms"])
        r = self._emit(ruling, t)
        if penalty == "points" and seat is not None:
            applies = e.get("applies") if e.get("applies") in PENALTY_APPLIES else None
            self._deduct(r, points, applies)
        hand = self.table.hand
        if penalty in ("dead_hand", "chombo") and seat is not None and hand is not None:
            self._mark_dead(seat, r["ruling_id"])
        if penalty == "chombo" and seat is not None and hand is not None and hand.result is None:
            if self.window is not None:
                self._close_window(t)
            self._charge_chombo(seat, r)
            self._end_hand(t, "abortive", reason="chombo")
        elif penalty == "chombo" and points and seat is not None:
            # a chombo found once its hand is over (or between games): no hand to end, the
            # deduction stands all the same
            self._deduct(r, points)

    def _undo(self, t: float) -> None:
        """Void the last table event not yet voided and rebuild the state without it.

        Rulings are not emitted again; ids keep counting from where they were, so a ruling
        made after the undo never reuses an id.
        """
        undo_index = len(self._log) - 1
        target = next((i for i in range(undo_index - 1, -1, -1)
                       if self._log[i]["type"] != "referee" and i not in self._voided), None)
        if target is None:
            return
        self._voided.add(target)
        self._rebuild(undo_index, t)

    def _rebuild(self, until: int, t: float) -> None:
        """The state made again from the first ``until`` events of the log (those voided, and
        undos, left out), silently: rulings are not emitted again, and ids keep counting from
        where they were, so a ruling made after it never reuses an id."""
        saved_id, saved_out = self._next_id, self._out
        overrides = dict(self.table.overrides)
        time_was_up = self.round_clock.ruled
        self._rebuilding = True
        try:
            self._reset()
            self._next_id = 1
            for i, ev in enumerate(self._log[:until]):
                if i in self._voided or (ev["type"] == "referee" and ev["action"] == "undo"):
                    continue
                self._rebuild_at = i
                self.feed(ev)
            moment = self.round_clock.deadline
            if time_was_up and moment is not None and moment <= t:
                # the time-up was ruled (by the timer) after the last event kept: again, silently
                self._out = []
                self._time_is_up(moment)
        finally:
            self._rebuilding = False
            self._next_id = max(saved_id, self._next_id)
            self._out = saved_out
        self.table.overrides.update(overrides)
        if t > self.table.t:
            self.table.t = t
