"""Seat lights and the buzzer show rulings on gpiozero mock pins, without blocking."""
import dataclasses
import time

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware.config import SAMPLE_CONFIG, load_table_config
from hardware.lights import SeatLights
from hardware.pins import PinsUnavailable

BASE = load_table_config(SAMPLE_CONFIG)
FAST = dataclasses.replace(BASE, light=dataclasses.replace(
    BASE.light, winner=0.3, blink=0.3, blink_hz=10.0, beep=0.03, beeps=3))

CLAIM = {"type": "claim", "discard_seat": 0, "tile": "5m", "window": 0.8,
         "winners": [{"seat": 1, "call": "pon"}],
         "rejected": [{"seat": 3, "call": "chii", "reason": "precedence"}]}
VIOLATION = {"type": "violation", "seat": 2, "kind": "kuikae", "penalty": "warning",
             "rule": "EMA 5.4", "text": "Seat 2 discarded the tile it just called.",
             "ruling_id": 7}


@pytest.fixture
def factory():
    f = MockFactory(pin_class=MockPWMPin)
    yield f
    f.close()


def lights_for(factory, wiring=FAST):
    return SeatLights(wiring, pin_factory=factory)


def ons(factory, pin) -> int:
    """How many times the pin went on (to any brightness) since it was set up."""
    states = [s.state for s in factory.pin(pin).states]
    return sum(1 for a, b in zip(states, states[1:]) if not a and b)


def wait_for(condition, timeout=3.0):
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.01)


def wait_off(factory, pins, timeout=3.0):
    """Wait until the pins have stayed off for 0.2 s (a blink may be between two flashes)."""
    end = time.monotonic() + timeout
    off_since = None
    while time.monotonic() < end:
        now = time.monotonic()
        if any(factory.pin(p).state for p in pins):
            off_since = None
        elif off_since is None:
            off_since = now
        elif now - off_since >= 0.2:
            return
        time.sleep(0.01)
    raise AssertionError(f"pins {pins} still on after {timeout} s")


def test_claim_lights_the_winner_steady_and_blinks_the_rejected(factory):
    with lights_for(factory) as lights:
        lights.show(CLAIM)
        winner, rejected = FAST.lights[1], FAST.lights[3]
        wait_for(lambda: factory.pin(winner).state == 1)
        wait_off(factory, [winner, rejected])
        on_time = factory.pin(winner).states[-1].timestamp   # how long it stayed on
        assert ons(factory, winner) == 1 and 0.25 <= on_time <= 0.8
        assert ons(factory, rejected) == 3                   # 0.3 s at 10 Hz
        for seat in (0, 2):
            assert ons(factory, FAST.lights[seat]) == 0
        assert ons(factory, FAST.buzzer) == 0


def test_violation_blinks_the_violator_and_beeps(factory):
    with lights_for(factory) as lights:
        lights.show(VIOLATION)
        wait_off(factory, [FAST.lights[2], FAST.buzzer])
        assert ons(factory, FAST.buzzer) == 3
        assert ons(factory, FAST.lights[2]) == 3
        assert all(ons(factory, FAST.lights[s]) == 0 for s in (0, 1, 3))


def test_show_returns_at_once_and_a_new_claim_replaces_the_lights(factory):
    slow = dataclasses.replace(FAST, light=dataclasses.replace(FAST.light, winner=5.0,
                                                               blink=5.0))
    with lights_for(factory, slow) as lights:
        start = time.monotonic()
        lights.show(CLAIM)
        lights.show(VIOLATION)
        assert time.monotonic() - start < 0.5                # not the 5 s the lights take
        wait_for(lambda: factory.pin(slow.lights[1]).state == 1)
        lights.show({**CLAIM, "winners": [{"seat": 0, "call": "ron"}], "rejected": []})
        # the old winner and the rejected seat go off at once, the new winner lights
        assert factory.pin(slow.lights[1]).state == 0
        assert factory.pin(slow.lights[3]).state == 0
        wait_for(lambda: factory.pin(slow.lights[0]).state == 1)
        assert factory.pin(slow.lights[1]).state == 0


def test_other_rulings_and_empty_claims_change_nothing(factory):
    with lights_for(factory) as lights:
        lights.show({"type": "win", "seat": 1, "from": 0, "han": 2, "fu": 30, "yaku": [],
                     "points": 2000, "payments": [-2000, 2000, 0, 0]})
        lights.show({"type": "hand_end", "result": "ron", "scores": [25000] * 4})
        lights.show({**CLAIM, "winners": [], "rejected": []})
        time.sleep(0.1)
        assert all(ons(factory, pin) == 0 for pin in [*FAST.lights.values(), FAST.buzzer])


def test_seats_without_a_light_and_no_buzzer_are_skipped(factory):
    partial = dataclasses.replace(FAST, lights={1: FAST.lights[1]}, buzzer=None)
    with lights_for(factory, partial) as lights:
        lights.show(CLAIM)
        lights.show(VIOLATION)
        wait_off(factory, [FAST.lights[1]])
        assert ons(factory, FAST.lights[1]) == 1


def test_pwm_lights_fade_and_need_pwm_pins(factory):
    pwm = dataclasses.replace(FAST, light=dataclasses.replace(FAST.light, pwm=True))
    with lights_for(factory, pwm) as lights:
        lights.show(CLAIM)
        wait_off(factory, [pwm.lights[1], pwm.lights[3]])
        assert max(s.state for s in factory.pin(pwm.lights[1]).states) == 1.0
        assert ons(factory, pwm.lights[3]) == 3
    plain = MockFactory()
    try:
        with pytest.raises(PinsUnavailable) as info:
            SeatLights(pwm, pin_factory=plain)
        assert str(info.value) == (f"{SAMPLE_CONFIG}: GPIO24 (seat 0 light): cannot do PWM "
                                   "with this pin factory (set pwm = false in [lights])")
    finally:
        plain.close()


def test_a_press_goes_through_while_the_lights_blink(factory):
    import queue

    from hardware.buttons import SeatButtons

    slow = dataclasses.replace(FAST, light=dataclasses.replace(FAST.light, blink=5.0,
                                                               blink_hz=20.0))
    items = queue.Queue()
    with SeatLights(slow, pin_factory=factory) as lights, \
            SeatButtons(slow, items, pin_factory=factory) as buttons:
        lights.show(CLAIM)
        lights.show(VIOLATION)
        pin = factory.pin(slow.button(3, "ron").pin)
        pressed_at = time.monotonic()
        pin.drive_low()
        assert buttons.sync()
        pin.drive_high()                   # let go: a call once it has passed its test
        item = items.get(timeout=2)
        assert (item["seat"], item["call"]) == (3, "ron")
        assert pressed_at <= item["t"] <= time.monotonic()
