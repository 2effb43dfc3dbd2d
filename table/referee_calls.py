"""A seat calling for a referee: the event the seat panel makes, and when the call is answered.

A player who wants a referee holds a button combination (chii and kan together for two
seconds, by default: see ``[buttons] referee_call`` in the table config). The seat panel
(:mod:`hardware.buttons`) then hands the table a ``referee`` event of action ``note``, as the
spec allows, with the extra keys ``seat``, ``referee_call: true`` and ``source: "buttons"``::

    {"type": "referee", "t": 812.4, "action": "note", "seat": 2, "referee_call": true,
     "source": "buttons", "text": "Seat 2 calls for a referee"}

It is journaled and judged like any event (the rules core withdraws the presses that made the
combination from an open claim window: they were a call for help, not a claim), shown on the
dashboard, blinks the seat's light, and reaches the hall. The call stands until a referee acts
at the table: any ``referee`` event that is not itself a call (a note, an override, a penalty,
an undo, the end of the game) answers every call standing; a new game clears them too.
"""
from __future__ import annotations

KEY = "referee_call"


def call_event(seat: int, t: float, how: str = "") -> dict:
    """The table event of ``seat`` calling for a referee at ``t`` (``how``: what was pressed)."""
    text = f"Seat {seat} calls for a referee" + (f" ({how})" if how else "")
    return {"type": "referee", "t": t, "action": "note", "text": text, "seat": seat,
            KEY: True, "source": "buttons"}


def is_call(event: dict) -> bool:
    return event.get("type") == "referee" and event.get(KEY) is True


def answers_calls(event: dict) -> bool:
    """True for an event after which no call stands: a referee acting, or a new game."""
    if event.get("type") == "game_start":
        return True
    return event.get("type") == "referee" and not is_call(event)


class CallTracker:
    """The calls standing at a table, fed its events in order: ``standing`` maps each calling
    seat to its call event (the first, if a seat calls again before anyone comes)."""

    def __init__(self):
        self.standing: dict[int, dict] = {}

    def feed(self, event: dict) -> bool:
        """Take one event; True when the standing calls changed."""
        if is_call(event):
            seat = event.get("seat")
            if isinstance(seat, int) and seat not in self.standing:
                self.standing[seat] = event
                return True
            return False
        if answers_calls(event) and self.standing:
            self.standing = {}
            return True
        return False
