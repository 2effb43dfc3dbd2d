"""A seat calls for a referee: chii and kan held together for two seconds.

The panel turns the hold into the spec's ``referee`` note (with ``referee_call``), drops the
presses that made it (still under test: no claim comes of them; the rules core would take
them back too), the seat's light blinks until a referee acts, and
the call stands until then.
"""
from __future__ import annotations

import dataclasses
import queue
import sys
import time
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware.buttons import ButtonPanel, SeatButtons
from hardware.config import SAMPLE_CONFIG, load_table_config, parse_table_config
from hardware.lights import SeatLights
from referee.core import Referee
from referee.simulate import script
from table.press_hold import PressUnderTest
from table.referee_calls import CallTracker, call_event, is_call

sys.path.insert(0, str(Path(__file__).parent))
from scenario import judge  # noqa: E402

WIRING = load_table_config(SAMPLE_CONFIG)


def index(seat, call):
    return WIRING.buttons.index(WIRING.button(seat, call))


def hold(panel, seat, calls, t):
    out = []
    for k, call in enumerate(calls):
        out += panel.edge(index(seat, call), t + 0.05 * k, True)
    return out


def calls_for_referee(items):
    return [i for i in items if isinstance(i, dict) and is_call(i)]


def test_chii_and_kan_held_two_seconds_call_the_referee_once():
    panel = ButtonPanel(WIRING)
    items = hold(panel, 2, ["chii", "kan"], 10.0)
    # the presses are under test while held: no call yet
    assert [i for i in items if i.get("type") == "call"] == []
    assert panel.next_deadline() == pytest.approx(12.05)
    assert calls_for_referee(panel.advance(12.0)) == []
    items = panel.advance(12.06)
    [event] = calls_for_referee(items)
    assert event == call_event(2, pytest.approx(12.05), "chii and kan held 2 s")
    assert event["type"] == "referee" and event["action"] == "note" and event["seat"] == 2
    assert calls_for_referee(panel.advance(20.0)) == []         # held on: no second call
    panel.edge(index(2, "kan"), 20.5, False)
    panel.advance(20.6)
    panel.edge(index(2, "kan"), 21.0, True)                     # let go, held again
    assert len(calls_for_referee(panel.advance(23.01))) == 1
    # the presses that called the referee never claim: nothing else came out
    panel.edge(index(2, "kan"), 23.5, False)
    panel.edge(index(2, "chii"), 23.5, False)
    assert [i for i in panel.advance(30.0) if i.get("type") == "call"] == []


def test_a_call_for_a_referee_ends_the_test_of_its_presses():
    panel = ButtonPanel(WIRING, under_test=True)
    items = hold(panel, 2, ["chii", "kan"], 10.0)
    assert items == [PressUnderTest(2, "chii", 10.0, True), PressUnderTest(2, "kan", 10.05, True)]
    items = panel.advance(12.06)
    assert items[:2] == [PressUnderTest(2, "chii", 10.0, False),
                         PressUnderTest(2, "kan", 10.05, False)]
    assert [i["type"] for i in items[2:]] == ["referee"]


def test_a_bouncing_contact_is_still_held_and_a_short_hold_is_no_call():
    panel = ButtonPanel(WIRING)
    hold(panel, 1, ["chii", "kan"], 5.0)
    panel.edge(index(1, "chii"), 6.0, False)                   # a 2 ms bounce mid-hold
    panel.edge(index(1, "chii"), 6.002, True)
    assert len(calls_for_referee(panel.advance(7.1))) == 1
    panel = ButtonPanel(WIRING)
    hold(panel, 0, ["chii", "kan"], 5.0)
    panel.edge(index(0, "kan"), 6.5, False)                    # let go after 1.5 s
    assert calls_for_referee(panel.advance(9.0)) == []
    panel = ButtonPanel(WIRING)
    hold(panel, 3, ["chii", "pon"], 5.0)                        # not the combination
    assert calls_for_referee(panel.advance(9.0)) == []


def test_the_combination_and_the_hold_come_from_the_table_config():
    data = {"buttons": {f"seat{s}": {c: p for c, p in zip(("chii", "pon", "kan", "ron"),
                                                           pins)}
                        for s, pins in enumerate([(17, 27, 22, 23), (10, 9, 11, 8),
                                                  (5, 6, 13, 19), (7, 12, 16, 20)])}}
    data["buttons"].update(referee_call=["pon", "ron"], referee_call_s=3.0)
    w = parse_table_config(data)
    assert w.referee_call == ("pon", "ron") and w.referee_call_hold == 3.0
    data["buttons"]["referee_call"] = []
    assert ButtonPanel(parse_table_config(data)).calls_for_referee is None
    data["buttons"]["referee_call"] = ["kan"]
    with pytest.raises(Exception, match=r'referee_call = \["kan"\]: must be two or more calls'):
        parse_table_config(data)


def test_the_core_takes_back_the_presses_that_made_the_call():
    lines = ("1 d0 1m", "1.5 c1 chii", "1.5 c1 kan", "5 d1 2m")
    rulings, _ = judge("ema2012", *lines)
    assert rulings[0]["winners"] == [{"seat": 1, "call": "kan"}]   # without the call: a kan
    rulings, ref = judge("ema2012", *lines, events=[call_event(1, 3.5)])
    claim = rulings[0]
    assert claim["winners"] == [] and {"seat": 1, "call": "kan", "reason": "referee_call"} in \
        claim["ignored"]
    assert not [r for r in rulings if r["type"] == "violation"]
    # on its own turn, a kan pressed for the call is not awaited as a kan
    ref = Referee()
    for e in script("0 gs ema2012", "0 hs 0", "1 d0 1m", "5 c1 kan") + [call_event(1, 6.0)]:
        ref.feed(e)
    assert ref.own_kan_press is None


def test_a_call_stands_until_a_referee_acts_at_the_table():
    tracker = CallTracker()
    assert tracker.feed(call_event(2, 10.0))
    assert not tracker.feed(call_event(2, 12.0))          # calling again changes nothing
    assert tracker.feed(call_event(0, 13.0)) and set(tracker.standing) == {0, 2}
    assert not tracker.feed({"type": "discard", "t": 14, "seat": 1, "tile": "1m"})
    assert tracker.feed({"type": "referee", "t": 15, "action": "note", "text": "came"})
    assert tracker.standing == {}


@pytest.fixture
def factory():
    f = MockFactory(pin_class=MockPWMPin)
    yield f
    f.close()


def test_held_buttons_on_the_pins_blink_the_seats_light_until_answered(factory):
    wiring = dataclasses.replace(WIRING, referee_call_hold=0.3, light=dataclasses.replace(
        WIRING.light, call_period=0.1, winner=0.2, blink=0.2, blink_hz=10.0, beep=0.01))
    items = queue.Queue()
    with SeatButtons(wiring, items, pin_factory=factory) as buttons, \
            SeatLights(wiring, pin_factory=factory) as lights:
        for call in ("chii", "kan"):
            buttons.button(3, call).pin.drive_low()
        deadline = time.monotonic() + 3
        got = []
        while not calls_for_referee(got) and time.monotonic() < deadline:
            try:
                got.append(items.get(timeout=0.1))
            except queue.Empty:
                pass
        [event] = calls_for_referee(got)
        assert event["seat"] == 3
        light = factory.pin(wiring.lights[3])
        lights.show_calls({3})
        # a claim shown meanwhile leaves the calling seat's light blinking
        lights.show({"type": "claim", "discard_seat": 0, "tile": "1m", "window": 3,
                     "winners": [{"seat": 1, "call": "pon"}], "rejected": []})
        before = len(light.states)
        deadline = time.monotonic() + 5      # a failure limit: 0.2 s at 10 Hz
        while len(light.states) - before < 4 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(light.states) - before >= 4          # still blinking
        lights.show_calls(set())
        deadline = time.monotonic() + 5
        while light.state and time.monotonic() < deadline:
            time.sleep(0.01)
        # and it stays off: that nothing happens can only be seen over time (3 blinks' worth)
        after = len(light.states)
        time.sleep(0.3)
        assert not light.state and len(light.states) == after
        for call in ("chii", "kan"):
            buttons.button(3, call).pin.drive_high()
