"""The seat lights and the buzzer: they show rulings at the table.

After a ``claim`` ruling the winner's light stays on for a moment and each rejected claimant's
light blinks; a ``violation`` blinks the violator's light and sounds the buzzer. Everything
runs on gpiozero's background blink threads, so :meth:`SeatLights.show` returns at once and
the lights are never in the way of the next press. A seat calling for a referee blinks
slowly until a referee answers (:meth:`SeatLights.show_calls`). At a game's end a player's
light stays on once they have signed the score sheet (:meth:`SeatLights.show_signatures`).
"""
from __future__ import annotations

import threading

from gpiozero import LED, PWMLED, Buzzer

from .config import TableWiring
from .pins import claim_pin, default_pin_factory


class SeatLights:
    """The lights of a table's seats (and its buzzer, if wired).

    ``wiring``: from :func:`~hardware.config.load_table_config` (``lights``, ``buzzer`` and
    the timings in ``light``). ``pin_factory``: a gpiozero pin factory (None: the default).
    Seats without a light, or a table without a buzzer, are simply skipped.
    """

    def __init__(self, wiring: TableWiring, pin_factory=None):
        self.wiring = wiring
        self.settings = s = wiring.light
        factory = pin_factory if pin_factory is not None else default_pin_factory()
        self.lights: dict[int, LED | PWMLED] = {}
        self.buzzer: Buzzer | None = None
        #: seats calling for a referee (their lights blink slowly: :meth:`show_calls`)
        self.calling: set[int] = set()
        #: seats that signed the score sheet (their lights stay on: :meth:`show_signatures`)
        self.signed: set[int] = set()
        device = PWMLED if s.pwm else LED
        try:
            for seat, pin in wiring.lights.items():
                self.lights[seat] = claim_pin(device, pin, f"seat {seat} light", wiring.source,
                                           active_high=s.active_high, initial_value=False,
                                           pin_factory=factory)
            if wiring.buzzer is not None:
                self.buzzer = claim_pin(Buzzer, wiring.buzzer, "buzzer", wiring.source,
                                     active_high=s.buzzer_active_high, initial_value=False,
                                     pin_factory=factory)
        except BaseException:
            self.close()
            raise

    def show(self, ruling: dict) -> None:
        """React to one ruling (a dict per the table-event format); others are ignored.

        ``claim``: every light off, then the winners' lights steady for ``winner`` seconds and
        the rejected claimants' lights blinking for ``blink`` seconds. ``violation``: the
        violator's light blinks and the buzzer beeps.
        """
        kind = ruling.get("type")
        if kind == "claim":
            for seat, led in self.lights.items():
                if seat not in self.calling:
                    led.off()
            winners = {w.get("seat") for w in ruling.get("winners", ())}
            for seat in winners:
                self.steady(seat, self.settings.winner)
            for r in ruling.get("rejected", ()):
                if r.get("seat") not in winners:
                    self.blink(r.get("seat"), self.settings.blink)
        elif kind == "violation":
            self.blink(ruling.get("seat"), self.settings.blink)
            self.beep()

    def show_calls(self, seats: set[int]) -> None:
        """The seats calling for a referee: each one's light blinks slowly (1 Hz) until the
        call is answered, through any ruling shown on it meanwhile; a new call beeps once."""
        new = set(seats) - self.calling
        gone = self.calling - set(seats)
        self.calling = set(seats)
        for seat in gone:
            led = self.lights.get(seat)
            if led is not None:
                led.off()
        for seat in new:
            self._call_blink(seat)
        if new and self.buzzer is not None:
            self.buzzer.beep(on_time=self.settings.beep, off_time=self.settings.beep, n=1,
                             background=True)

    def show_signatures(self, seats: set[int]) -> None:
        """The seats that have signed the score sheet: each one's light stays on, the answer to
        holding the ron button, until the result is final or the sheet changes (then the
        signatures are cleared and the lights go off). A calling seat keeps blinking."""
        seats = set(seats)
        for seat in self.signed - seats:
            led = self.lights.get(seat)
            if led is not None and seat not in self.calling:
                led.off()
        for seat in seats - self.signed:
            led = self.lights.get(seat)
            if led is not None and seat not in self.calling:
                led.on()
        self.signed = seats

    def _call_blink(self, seat: int) -> None:
        led = self.lights.get(seat)
        if led is not None and seat in self.calling:
            half = 0.5 * self.settings.call_period
            led.blink(on_time=half, off_time=half, n=None, background=True)

    def _resume_call(self, seat: int, after: float) -> None:
        """A calling seat's light showed a ruling: back to the call's blink afterwards."""
        if seat in self.calling:
            timer = threading.Timer(after, self._call_blink, args=(seat,))
            timer.daemon = True
            timer.start()

    def steady(self, seat: int, seconds: float) -> None:
        """``seat``'s light on for ``seconds``, then off."""
        led = self.lights.get(seat)
        if led is None:
            return
        self._resume_call(seat, seconds)
        if isinstance(led, PWMLED):
            fade = min(0.1, seconds / 4)
            led.blink(on_time=seconds - fade, off_time=0, fade_in_time=fade,
                      fade_out_time=0, n=1, background=True)
        else:
            led.blink(on_time=seconds, off_time=0, n=1, background=True)

    def blink(self, seat: int, seconds: float) -> None:
        """``seat``'s light blinks at ``blink_hz`` for about ``seconds``, then off."""
        led = self.lights.get(seat)
        if led is None:
            return
        half = 0.5 / self.settings.blink_hz
        n = max(1, round(seconds * self.settings.blink_hz))
        self._resume_call(seat, n * 2 * half)
        if isinstance(led, PWMLED):
            led.blink(on_time=half / 2, off_time=half / 2, fade_in_time=half / 2,
                      fade_out_time=half / 2, n=n, background=True)
        else:
            led.blink(on_time=half, off_time=half, n=n, background=True)

    def flash(self, seat: int, seconds: float = 0.3) -> None:
        """A short flash, to show which seat a press came from (the wiring check)."""
        self.steady(seat, seconds)

    def beep(self) -> None:
        """The violation signal: ``beeps`` beeps of ``beep`` seconds."""
        if self.buzzer is not None:
            b = self.settings.beep
            self.buzzer.beep(on_time=b, off_time=b, n=self.settings.beeps, background=True)

    def off(self) -> None:
        for led in self.lights.values():
            led.off()
        if self.buzzer is not None:
            self.buzzer.off()

    def close(self) -> None:
        for device in [*self.lights.values(), self.buzzer]:
            if device is not None:
                try:
                    device.close()
                except Exception:        # release the rest even if one fails
                    pass
        self.lights = {}
        self.buzzer = None

    def __enter__(self) -> "SeatLights":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
