"""Signing the score sheet at the table: each player holds their seat's ron button for two
seconds (issue 40 part 3), on gpiozero's MockFactory pins through the table service.

The mock pins stamp their edges on the project's virtual table clock, which only the test
moves: two seconds of holding take no time, and every wait is for a condition.
"""
from __future__ import annotations

import queue
import time

import gpiozero.pins.mock
import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware.buttons import ButtonPanel, SeatButtons
from hardware.config import SAMPLE_CONFIG, load_table_config, parse_table_config
from hardware.lights import SeatLights
from referee.core import Referee
from table.clock import VirtualClock
from table.service import ResumableTable, TableService

WIRING = load_table_config(SAMPLE_CONFIG)


class PinClock(VirtualClock):
    """The virtual table clock, which the mock pins stamp their edges with: a stamp is table
    time as it is."""

    def from_mono(self, m: float) -> float:
        return m


def wait_for(condition, what: str, timeout: float = 5.0):
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.005)


def index(seat, call):
    return WIRING.buttons.index(WIRING.button(seat, call))


def test_the_panel_signs_for_a_ron_pressed_and_held_and_for_nothing_else():
    panel = ButtonPanel(WIRING)
    out = panel.edge(index(2, "ron"), 10.0, True)
    assert out == []                                       # the press is under test
    assert panel.advance(11.9) == []
    [sign] = panel.advance(12.0)
    assert sign == {"type": "sign", "t": 12.0, "seat": 2, "held_since": 10.0, "source": "buttons"}
    assert panel.advance(13.9) == []                       # held on: signs once
    panel.edge(index(2, "ron"), 13.95, False)
    # let go: the press passed its test (the table takes a ron pressed once the sheet is
    # open for the signature it began, not for a claim)
    assert panel.advance(14.3) == [{"type": "call", "t": 10.0, "seat": 2, "call": "ron"}]
    panel.edge(index(2, "ron"), 15.0, True)                # held again: signs again
    assert [e["type"] for e in panel.advance(17.0)] == ["sign"]
    panel.edge(index(2, "ron"), 17.5, False)
    panel.advance(18.0)
    # a ron let go after 1.5 s signs nothing
    panel.edge(index(0, "ron"), 40.0, True)
    panel.edge(index(0, "ron"), 41.5, False)
    assert [e["type"] for e in panel.advance(45.0)] == ["call"]


def test_a_ron_stuck_closed_from_the_start_signs_nothing():
    closed = [i == index(1, "ron") for i in range(len(WIRING.buttons))]
    panel = ButtonPanel(WIRING, closed)
    for k in range(1, 10):   # the stuck contact lifts for a millisecond now and then: bounce
        panel.edge(index(1, "ron"), 5.0 * k, False)
        panel.edge(index(1, "ron"), 5.0 * k + 0.001, True)
    assert panel.advance(60.0) == []


def test_a_call_for_a_referee_made_with_ron_is_no_signature():
    data = {"buttons": {f"seat{s}": {c: p for c, p in zip(("chii", "pon", "kan", "ron"), pins)}
                        for s, pins in enumerate([(17, 27, 22, 23), (10, 9, 11, 8),
                                                  (5, 6, 13, 19), (7, 12, 16, 20)])}}
    data["buttons"].update(referee_call=["pon", "ron"], sign_hold_s=3.0)
    wiring = parse_table_config(data)
    assert wiring.sign_hold == 3.0
    panel = ButtonPanel(wiring)
    for call in ("ron", "pon"):
        panel.edge(wiring.buttons.index(wiring.button(3, call)), 1.0, True)
    out = panel.advance(3.0) + panel.advance(10.0)
    assert [(e["type"], e.get("referee_call")) for e in out] == [("referee", True)]
    data["buttons"]["sign_hold_s"] = 0.1
    with pytest.raises(Exception, match=r"\[buttons\] sign_hold_s = 0.1: must be a number at "
                                        r"least 0.5 and at most 30"):
        parse_table_config(data)


@pytest.fixture
def clock(monkeypatch):
    c = PinClock(1000.0)
    monkeypatch.setattr(gpiozero.pins.mock, "monotonic", c)
    return c


@pytest.fixture
def table_at_game_end(clock):
    """A WRC game at the table with its buttons and lights, running in the table service."""
    factory = MockFactory(pin_class=MockPWMPin)
    items: queue.Queue = queue.Queue()
    table = ResumableTable(None, referee_factory=Referee, clock=clock)
    buttons = SeatButtons(WIRING, items, pin_factory=factory, clock=clock)
    lights = SeatLights(WIRING, pin_factory=factory)
    service = TableService(table, clock=clock, buttons=items, lights=lights, inbox=False)
    service.start()
    table.submit({"type": "game_start", "t": clock(), "ruleset": "wrc2015",
                  "scores": [45000, 36000, 24000, 15000], "names": ["Aoi", "Ben", "Chie", "Dan"]})
    table.submit({"type": "hand_start", "t": clock(), "round_wind": "E", "dealer": 0,
                  "honba": 0, "riichi_sticks": 0, "dora_indicators": ["3m"]})
    try:
        yield table, buttons, factory
    finally:
        service.stop()
        buttons.close()
        lights.close()
        factory.close()


def test_holding_ron_two_seconds_at_game_end_signs_lights_the_seat_and_claims_nothing(
        clock, table_at_game_end):
    table, buttons, factory = table_at_game_end
    pin = lambda seat: buttons.button(seat, "ron").pin   # noqa: E731
    light = lambda seat: bool(factory.pin(WIRING.lights[seat]).state)   # noqa: E731

    def hold(seat, seconds):
        pin(seat).drive_low()
        clock.t += seconds
        assert buttons.sync()

    def signatures():
        return table.snapshot()["signatures"]

    # Dan presses ron during the last hand and is still holding it when the game ends: his
    # press was a press (stamped before the end; it reaches the table once he lets go), and
    # the hold that began before the end is no signature.
    hold(3, 1.0)
    table.submit({"type": "referee", "t": clock(), "action": "end_game", "text": "time"})
    ended = clock()
    clock.t += 1.5
    assert buttons.sync()
    pin(3).drive_high()
    clock.t += 0.5                 # still for the chatter window: his press passed its test
    assert buttons.sync()
    wait_for(lambda: any(e["type"] == "call" for e in table.events()), "Dan's press")
    [dan] = [e for e in table.events() if e["type"] == "call"]
    assert (dan["seat"], dan.get("t_source", dan["t"])) == (3, ended - 1.0)

    # Chie holds her ron button for two seconds: she has signed, and her light says so.
    clock.t += 0.5
    hold(2, 2.0)
    wait_for(lambda: signatures() == [2], "Chie's signature")
    wait_for(lambda: light(2), "Chie's light")
    assert not light(3) and not light(0)
    after = [e for e in table.events() if e["t"] >= ended and e is not dan]
    assert [e["type"] for e in after] == ["referee", "sign"]   # no press, no call for a referee
    sign = after[-1]
    assert (sign["seat"], sign["held_since"], sign["t"], sign["source"]) == \
        (2, ended + 2.5, ended + 4.5, "buttons")
    assert not [r for r in table.rulings() if r["type"] == "claim"]

    # She holds it again: journaled, counted once, and the dashboard says why.
    pin(2).drive_high()
    clock.t += 0.5
    hold(2, 2.0)
    wait_for(lambda: table.snapshot()["sign_note"] is not None, "the note")
    assert table.snapshot()["sign_note"] == ("Chie (seat 2) has already signed: a signature "
                                             "counts once.")
    assert signatures() == [2]
    pin(2).drive_high()

    # Aoi lets go after a second: nothing.
    hold(0, 1.0)
    pin(0).drive_high()
    # Ben and Aoi sign; Dan disputes and does not: the table waits for a referee.
    for seat in (1, 0):
        hold(seat, 2.0)
        pin(seat).drive_high()
    wait_for(lambda: signatures() == [2, 1, 0], "three signatures")
    sheet = table.snapshot()["sheet"]
    assert sheet["status"] == "waiting_for_referee"
    assert sheet["line"] == ("Dan (seat 3) has not signed: waiting for a referee to settle "
                             "the sheet.")
    wait_for(lambda: light(0) and light(1) and light(2), "three lights")

    # The referee hears Dan out; Dan signs, the referee countersigns: the result is final
    # and the lights go off.
    hold(3, 2.0)
    pin(3).drive_high()
    wait_for(lambda: signatures() == [2, 1, 0, 3], "Dan's signature")
    (result,) = table.submit({"type": "sign", "t": clock(), "referee": True})
    assert result["type"] == "result" and result["signatures"] == [2, 1, 0, 3]
    wait_for(lambda: not any(light(s) for s in range(4)), "the lights off")


def test_the_wiring_check_prints_a_hold_without_taking_it_for_a_press():
    from app.commands.buttons import hold_line
    from hardware.hold_to_sign import sign_event
    from table.referee_calls import call_event
    assert hold_line(sign_event(2, 10.0, 12.0)) == \
        "seat 2  signs the score sheet (held) t=12.000000 s"
    assert hold_line(call_event(1, 5.5)) == "seat 1  calls for a referee (held) t=5.500000 s"
