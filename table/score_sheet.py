"""The score sheet at a game's end: what the four players and the referee sign, and where the
signing stands.

The rules core keeps the game's scores, its penalty ledger and the signatures
(:mod:`referee.round`); this module lays them out as the sheet a player reads before signing,
one row per seat::

    {"seat": 1, "name": "Ben", "score": 31000, "before_uma": 0, "uma_oka": 5.0,
     "after_uma": 20000, "final": -13.0, "rank": 2, "signed": true}

``before_uma``/``after_uma``: the points the ledger takes off that seat, before uma and oka
(they can change the ranking) or after them (1,000 table points to a match point). ``uma_oka``:
what the seat's place adds, oka included. ``final``: the match points the ``game_end`` and the
``result`` give. And it says in one plain line where the signing stands (``status``):

``signing``              players are still to sign (each holds their ron button two seconds)
``waiting_for_referee``  three players signed and one did not (a dispute), or all four did and
                         the referee is still to countersign: a referee is wanted at the table
``final``                the ``result`` was given: four players and the referee signed

The table adds ``ended_at``: when the game ended, on the table clock (with the state's ``now``,
how long the sheet has waited).

A ``sign`` that changes nothing is no error in the event stream (the spec: a ``sign`` before
``game_end``, or a second by the same seat, changes nothing), but a player holding the button
wants to know why nothing happened: :func:`ignored_sign` says it in one line, which the table
shows until the next signature counts.
"""
from __future__ import annotations

from referee import ledger
from referee.hand_end import final_points

STATUS = ("signing", "waiting_for_referee", "final")


def who(names, seat: int) -> str:
    """``Ben (seat 1)``, or ``Seat 1`` when the table has no names."""
    if names and names[seat]:
        return f"{names[seat]} (seat {seat})"
    return f"Seat {seat}"


def score_sheet(table, hold: float = 2.0) -> dict | None:
    """The sheet of a game that is over (None while it is played). ``table``: the rules core's
    game state (:attr:`referee.core.Referee.table`); ``hold``: seconds a player holds the ron
    button to sign (the table's ``[buttons] sign_hold_s``), for the line."""
    if not table.game_over:
        return None
    rs = table.ruleset
    first = table.first_dealer or 0
    scores = list(table.scores)
    before = ledger.deductions(table.penalties, "before_uma")
    after = ledger.deductions(table.penalties, "after_uma")
    ranked = [s - d for s, d in zip(scores, before)]
    placed = final_points(ranked, rs, first)
    final = ledger.final_with_penalties(scores, table.penalties, rs, first)
    order = sorted(range(4), key=lambda s: (-ranked[s], (s - first) % 4))
    names = table.names
    rows = []
    for seat in range(4):
        base = (ranked[seat] - rs.return_score) / 1000
        rows.append({"seat": seat, "name": names[seat] if names else None,
                     "score": scores[seat], "before_uma": before[seat],
                     "uma_oka": round(placed[seat] - base, 1) + 0.0,
                     "after_uma": after[seat], "final": final[seat],
                     "rank": order.index(seat) + 1, "signed": seat in table.signatures})
    status, line = _where(table, hold)
    return {"status": status, "line": line, "rows": rows, "reason": table.end_reason,
            "signatures": list(table.signatures), "referee_signed": table.referee_signed,
            "penalties": [dict(p) for p in table.penalties],
            "uma": list(rs.uma), "return_score": rs.return_score,
            "start_score": rs.start_score}


def _where(table, hold: float) -> tuple[str, str]:
    if table.result_given:
        return "final", "The result is final: signed by the four players and the referee."
    missing = [s for s in range(4) if s not in table.signatures]
    if not missing:
        return "waiting_for_referee", ("All four players have signed: waiting for the referee "
                                       "to countersign.")
    if len(missing) == 1:
        return "waiting_for_referee", (f"{who(table.names, missing[0])} has not signed: "
                                       "waiting for a referee to settle the sheet.")
    signed = len(table.signatures)
    seconds = "two seconds" if hold == 2 else f"{hold:g} seconds"
    return "signing", (f"{signed} of 4 players have signed: to sign, hold your ron button "
                       f"for {seconds}.")


def waiting_for_referee(sheet: dict | None) -> str | None:
    """Why the table waits for a referee over its score sheet (None when it does not)."""
    if sheet and sheet.get("status") == "waiting_for_referee":
        return sheet["line"]
    return None


def ignored_sign(event: dict, table) -> str | None:
    """Why ``event`` (a ``sign``), judged next by a rules core in the state ``table``, changes
    nothing; None when it counts (or is no ``sign``)."""
    if event.get("type") != "sign":
        return None
    by_referee = event.get("referee") is True
    seat = event.get("seat")
    signer = "The referee's countersignature" if by_referee else \
        f"{who(table.names, seat)}'s signature"
    if not table.game_over:
        return (f"{signer} was ignored: the game has not ended, and the score sheet is signed "
                "after it ends.")
    if table.result_given:
        return f"{signer} changes nothing: the result is already final."
    if by_referee and table.referee_signed:
        return "The referee has already countersigned: a signature counts once."
    if not by_referee and seat in table.signatures:
        return f"{who(table.names, seat)} has already signed: a signature counts once."
    return None


class SignNotes:
    """The last ``sign`` that changed nothing and why, for the table to show: fed every event
    before the rules core judges it (:meth:`before`). The line stands until a signature counts
    or the game ends or starts (what it said no longer holds)."""

    def __init__(self):
        self.line: str | None = None
        self._game_over: bool | None = None

    def before(self, event: dict, table) -> None:
        if event.get("type") == "game_start":
            self.line = None
            return
        if event.get("type") != "sign":
            return
        self.line = ignored_sign(event, table)
        self._game_over = table.game_over

    def current(self, table) -> str | None:
        """The line, while it still holds for ``table``."""
        if self.line is not None and table.game_over != self._game_over:
            self.line = None
        return self.line
