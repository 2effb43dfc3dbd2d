"""Which gpiozero pin factory drives the seat panel, and one clear line when there is none.

On the table's Pi (a Pi 5 needs lgpio) gpiozero picks its factory itself; with
``GPIOZERO_PIN_FACTORY=mock`` everything runs on gpiozero's mock pins, anywhere.
"""
from __future__ import annotations

import os
import warnings

from gpiozero import Device

from referee.errors import RefereeError

NO_PINS_HINT = ("run it on the table's Raspberry Pi (with lgpio: `sudo apt install "
                "python3-lgpio`), or set GPIOZERO_PIN_FACTORY=mock to try it without hardware")


class PinsUnavailable(RefereeError):
    """No GPIO here, or a pin the wiring names cannot be used."""


def mock_requested() -> bool:
    """True when ``GPIOZERO_PIN_FACTORY`` asks for gpiozero's mock pins."""
    return os.environ.get("GPIOZERO_PIN_FACTORY", "").strip().lower() == "mock"


def mock_pin_factory(clock=None):
    """A fresh gpiozero MockFactory whose pins can do PWM, so PWM lights work on it too.

    ``clock``: a function giving the time in seconds (None: gpiozero's, the real monotonic
    clock) that an edge driven on a pin is stamped with. A simulation that plays a person's
    edges at planned times passes its own, so the edges judged are the ones it planned
    however late a busy machine lets its thread drive them."""
    from gpiozero.pins.mock import MockFactory, MockPWMPin
    if clock is None:
        return MockFactory(pin_class=MockPWMPin)

    class ClockedMockPin(MockPWMPin):
        def _change_state(self, value):
            changed = super()._change_state(value)
            if changed:
                self._last_change = clock()   # what gpiozero hands on as the edge's ticks
            return changed

    return MockFactory(pin_class=ClockedMockPin)


def is_mock(factory) -> bool:
    from gpiozero.pins.mock import MockFactory
    return isinstance(factory, MockFactory)


def default_pin_factory():
    """gpiozero's default pin factory (``Device.pin_factory``), made on first use.

    Honours ``GPIOZERO_PIN_FACTORY``; for ``mock`` it makes PWM-capable mock pins. Raises
    :class:`PinsUnavailable` with a hint instead of gpiozero's fallback warnings and traceback.
    """
    if Device.pin_factory is not None:
        return Device.pin_factory
    if mock_requested():
        factory = mock_pin_factory()
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # one PinFactoryFallback per factory tried
            try:
                factory = Device._default_pin_factory()
            except Exception as exc:
                name = os.environ.get("GPIOZERO_PIN_FACTORY")
                what = f"pin factory {name!r} failed: {exc}" if name else str(exc)
                raise PinsUnavailable(f"no GPIO pins here ({what.rstrip('!.')}): "
                                      f"{NO_PINS_HINT}") from None
    Device.pin_factory = factory
    return factory


def describe_pin_error(exc: BaseException) -> str:
    """What went wrong claiming a pin, in words a person wiring the table can act on."""
    from gpiozero import exc as gz

    if isinstance(exc, gz.GPIOPinInUse):
        return "already in use (by another device here, or another program)"
    if isinstance(exc, gz.PinInvalidPin):
        return "not a GPIO pin on this board"
    if isinstance(exc, gz.PinFixedPull):
        return "has a fixed pull resistor on this board; use another pull or another pin"
    if isinstance(exc, gz.PinPWMUnsupported):
        return "cannot do PWM with this pin factory (set pwm = false in [lights])"
    if isinstance(exc, PermissionError):
        return ("no permission to use the GPIO chip (add the user to the gpio group: "
                "sudo adduser $USER gpio)")
    if "busy" in str(exc).lower():
        return "busy: another program has claimed it"
    return f"{type(exc).__name__}: {exc}"


def claim_pin(device, pin: int, what: str, source: str, **kwargs):
    """A gpiozero ``device`` on ``pin``; if the pin cannot be used, :class:`PinsUnavailable`
    naming the config (``source``), the pin and what it was meant for (``what``)."""
    try:
        return device(pin, **kwargs)
    except Exception as exc:
        raise PinsUnavailable(f"{source}: GPIO{pin} ({what}): {describe_pin_error(exc)}") from exc
