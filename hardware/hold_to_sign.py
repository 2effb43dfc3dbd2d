"""A player signs the score sheet: their seat's ron button held for two seconds.

At a game's end each player confirms the score sheet by holding their ron button
(``[buttons] sign_hold_s`` in the table config, 2 s by default). The panel then hands the
table a ``sign`` event of that seat, with the extra keys ``held_since`` (when the hold began,
on the same clock as ``t``) and ``source: "buttons"``::

    {"type": "sign", "t": 5312.0, "seat": 2, "held_since": 5310.0, "source": "buttons"}

The panel does not know whether the game is over; the table does, and takes a hold as a
signature only when the sheet is open and the hold began after the game ended (a ron held
during play to claim is a claim: :meth:`table.service.TableService` keeps the two apart). A
hold is timed exactly as a call for a referee is (:class:`~hardware.call_for_referee.
CallForReferee`: bounce is still held, a chattering button signs nothing, holding on signs
once, letting go and holding again signs again, which the rules core counts once); and
only a hold that began with a press counts (a button found closed at start signs nothing).
The press itself is reported only once it is let go (``hardware.debounce``: under test until
then), so a hold counts from the press going under test, not from its report. A button that
sticks down at a game's end signs like a finger's hold would: ``stuck_s`` is longer than
``sign_hold_s`` on purpose, and only the sheet-open check keeps a stuck ron during play from
signing.
"""
from __future__ import annotations

from .call_for_referee import CallForReferee

#: the button a player holds to sign
SIGN_BUTTON = "ron"


def sign_event(seat: int, since: float, t: float) -> dict:
    """The ``sign`` event of ``seat`` whose ron button was held from ``since`` to ``t``."""
    return {"type": "sign", "t": t, "seat": seat, "held_since": since, "source": "buttons"}


class HoldToSign(CallForReferee):
    """``hold``: seconds the ron button must stay held; ``debounce``: an opening shorter than
    this is bounce, not a release."""

    def __init__(self, hold: float, debounce: float):
        super().__init__((SIGN_BUTTON,), hold, debounce)
        self.how = f"{SIGN_BUTTON} held {hold:g} s"
        #: seats whose ron button, held now, was pressed (a press the debouncer reported)
        self._pressed: set[int] = set()

    def pressed(self, seat: int) -> None:
        """``seat``'s ron button made a press (now under test): its hold counts. A button
        found closed at start, or stuck closed and only flickering, makes no press and so
        signs nothing."""
        self._pressed.add(seat)

    def counts(self, seat: int) -> bool:
        return seat in self._pressed

    def let_go(self, seat: int) -> None:
        self._pressed.discard(seat)

    def event(self, seat: int, since: float, t: float) -> dict:
        return sign_event(seat, since, t)
