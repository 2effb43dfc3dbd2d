"""A seat calling for a referee: a combination of its call buttons held together.

Chii and kan held together for two seconds (``[buttons] referee_call`` and ``referee_call_s``
in the table config) make the seat's call for a referee, the ``referee`` note event of
:mod:`table.referee_calls`. The presses themselves are still under test then (a press is
reported only once its button is let go, ``hardware.debounce``), and the panel drops them
(:meth:`~hardware.buttons.ButtonPanel`): they called a referee, they claimed nothing. (The
rules core also withdraws a seat's presses from an open window when its call comes.) Pure
state, like :mod:`hardware.debounce`: contact edges and the passing of time in, events out.

A contact that opens for less than the debounce time is still held (bounce). A chattering
button (:class:`~hardware.debounce.Debouncer` ``faulty``) makes no call, and its time
chattering is no time held: if it settles closed, it is held from when it counts again.
Holding on after the call makes no second one; letting go and holding again does.
"""
from __future__ import annotations

from table.referee_calls import call_event


class CallForReferee:
    """``calls``: the buttons that must be held together (a seat's, by call name);
    ``hold``: seconds they must stay held; ``debounce``: an opening shorter than this is
    bounce, not a release."""

    def __init__(self, calls: tuple[str, ...], hold: float, debounce: float):
        self.calls = tuple(calls)
        self.hold = hold
        self.debounce = debounce
        self._since: dict[tuple[int, str], float] = {}    # held since (close edge)
        self._opened: dict[tuple[int, str], tuple[float, float]] = {}  # (opened at, held since)
        self._fired: set[int] = set()
        self.how = " and ".join(self.calls) + f" held {hold:g} s"

    def edge(self, seat: int, call: str, t: float, closed: bool) -> None:
        if call not in self.calls:
            return
        key = (seat, call)
        if closed:
            opened = self._opened.pop(key, None)
            if key in self._since:
                return
            # Re-closed within the bounce time: still the same hold.
            if opened and t - opened[0] < self.debounce:
                self._since[key] = opened[1]
                return
            self._since[key] = t
            if opened:   # it was let go (before time passed to say so): a new hold
                self._fired.discard(seat)
                self.let_go(seat)
        else:
            since = self._since.pop(key, None)
            if since is not None:
                self._opened[key] = (t, since)

    def recovered(self, seat: int, call: str, t: float) -> None:
        """``seat``'s ``call`` button stopped chattering at ``t``: if it is held, it has been
        held since ``t`` (its flickering, bounce-like, looked like holding)."""
        key = (seat, call)
        if key in self._since:
            self._since[key] = t
        elif key in self._opened:
            self._opened[key] = (self._opened[key][0], t)

    def held(self, seat: int, call: str) -> bool:
        """Whether ``seat``'s ``call`` button is held now (an opening within bounce counts)."""
        return (seat, call) in self._since or (seat, call) in self._opened

    def next_deadline(self) -> float | None:
        deadlines = []
        for seat in self._seats():
            start = self._held_since(seat)
            if start is not None and seat not in self._fired:
                deadlines.append(start + self.hold)
        for opened, _ in self._opened.values():
            deadlines.append(opened + self.debounce)
        return min(deadlines) if deadlines else None

    def advance(self, now: float, faulty=lambda seat, call: False) -> list[dict]:
        """The calls due by ``now`` (``faulty(seat, call)``: a button that chatters)."""
        out = []
        for key, (opened, _) in list(self._opened.items()):
            if now - opened >= self.debounce:
                del self._opened[key]
                self._fired.discard(key[0])   # really let go: a new hold may call again
                self.let_go(key[0])
        for seat in self._seats():
            start = self._held_since(seat)
            if start is None or seat in self._fired or now - start < self.hold \
                    or not self.counts(seat):
                continue
            if any(faulty(seat, c) or (seat, c) in self._opened for c in self.calls):
                continue  # a chattering button, or one that may be letting go
            self._fired.add(seat)
            out.append(self.event(seat, start, start + self.hold))
        return out

    def counts(self, seat: int) -> bool:
        """Whether ``seat``'s hold may make its event (a subclass may ask for more)."""
        return True

    def let_go(self, seat: int) -> None:
        """``seat`` let go of a button of the hold."""

    def event(self, seat: int, since: float, t: float) -> dict:
        """The event of ``seat``'s hold, made at ``t`` (held since ``since``)."""
        return call_event(seat, t, self.how)

    def _seats(self) -> set[int]:
        return {seat for seat, _ in self._since} | {seat for seat, _ in self._opened}

    def _held_since(self, seat: int) -> float | None:
        """When the seat's whole combination was last held together (bounces included)."""
        starts = []
        for call in self.calls:
            key = (seat, call)
            if key in self._since:
                starts.append(self._since[key])
            elif key in self._opened:
                starts.append(self._opened[key][1])  # opened, but maybe only bouncing
            else:
                return None
        return max(starts) if starts else None


