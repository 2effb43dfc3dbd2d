"""SeatButtons on gpiozero's MockFactory: pins driven with drive_low/drive_high, edge times
placed exactly by standing in for the clock the mock pins stamp edges with."""
import dataclasses
import queue
import threading
import time

import gpiozero.pins.mock
import pytest
from gpiozero import LED
from gpiozero.pins.mock import MockFactory

from hardware.buttons import ButtonFault, ButtonPanel, SeatButtons, edge_clock, reporting_lag
from hardware.config import SAMPLE_CONFIG, load_table_config
from hardware.pins import PinsUnavailable
from referee.events import parse_event

WIRING = load_table_config(SAMPLE_CONFIG)


class EdgeClock:
    """The mock pins' clock, set by the test. It starts at the real monotonic time, so deadlines
    the worker waits for on the real clock (held presses, recovery) still come."""

    def __init__(self):
        self.now = time.monotonic()

    def __call__(self) -> float:
        return self.now

    def set(self, t: float) -> None:
        self.now = t


@pytest.fixture
def clock(monkeypatch):
    c = EdgeClock()
    monkeypatch.setattr(gpiozero.pins.mock, "monotonic", c)
    return c


@pytest.fixture
def factory():
    f = MockFactory()
    yield f
    f.close()


def open_panel(factory, wiring=WIRING):
    items: queue.Queue = queue.Queue()
    return SeatButtons(wiring, items, pin_factory=factory), items


@pytest.fixture
def panel(factory, clock):
    buttons, items = open_panel(factory)
    yield buttons, items
    buttons.close()


def drain(buttons, items) -> list:
    """Everything on the queue once the presses made so far have passed their tests (a
    press is a call only once its button is let go and still for the chatter window)."""
    assert buttons.settle()
    out = []
    while True:
        try:
            out.append(items.get_nowait())
        except queue.Empty:
            return out


def level(factory, clock, pin, t, closed, wiring=WIRING):
    clock.set(t)
    p = factory.pin(pin)
    (p.drive_high if closed == wiring.pressed_level else p.drive_low)()


def press(factory, clock, pin, t, hold=0.08, wiring=WIRING):
    level(factory, clock, pin, t, True, wiring)
    level(factory, clock, pin, t + hold, False, wiring)


def call(t, seat, name):
    return {"type": "call", "t": t, "seat": seat, "call": name}


def test_every_button_is_its_seat_and_call(panel, factory, clock):
    buttons, items = panel
    base = clock.now
    for i, b in enumerate(WIRING.buttons):
        press(factory, clock, b.pin, base + i * 0.01)
    got = drain(buttons, items)
    assert got == [call(base + i * 0.01, b.seat, b.call) for i, b in enumerate(WIRING.buttons)]
    for event in got:
        assert parse_event(dict(event)) == event       # the table-event format, exactly


def test_the_time_is_the_edge_not_when_the_callback_ran(panel, factory, clock):
    buttons, items = panel
    # the factory reports an edge that happened 1.5 s ago (as lgpio does, with its kernel stamp)
    edge = time.monotonic() - 1.5
    press(factory, clock, WIRING.button(2, "ron").pin, edge)
    assert drain(buttons, items) == [call(edge, 2, "ron")]


def test_contact_bounce_is_one_press_at_the_first_closing(panel, factory, clock):
    buttons, items = panel
    pin = WIRING.button(1, "pon").pin
    t0 = clock.now
    for dt, closed in [(0, True), (0.0002, False), (0.0005, True), (0.0011, False),
                       (0.0016, True), (0.120, False), (0.1203, True), (0.1207, False)]:
        level(factory, clock, pin, t0 + dt, closed)
    assert drain(buttons, items) == [call(t0, 1, "pon")]


def test_a_held_button_counts_once(panel, factory, clock):
    buttons, items = panel
    b = WIRING.button(3, "kan")
    t0 = clock.now
    level(factory, clock, b.pin, t0, True)
    assert buttons.button(3, "kan").is_pressed
    level(factory, clock, b.pin, t0 + 1.5, False)          # held a second and a half
    assert drain(buttons, items) == [call(t0, 3, "kan")]


def test_four_seats_within_a_millisecond_keep_their_order(panel, factory, clock):
    buttons, items = panel
    t0 = clock.now
    order = [(2, "ron"), (0, "ron"), (3, "pon"), (1, "chii")]
    for i, (seat, name) in enumerate(order):
        level(factory, clock, WIRING.button(seat, name).pin, t0 + i * 0.0003, True)
    for seat, name in order[::-1]:
        level(factory, clock, WIRING.button(seat, name).pin, t0 + 0.1, False)
    got = drain(buttons, items)
    assert [(e["seat"], e["call"]) for e in got] == order
    times = [e["t"] for e in got]
    assert times == [t0 + i * 0.0003 for i in range(4)]
    assert times == sorted(times) and times[-1] - times[0] < 0.001


def test_a_quick_second_press_comes_after_a_pause_with_its_own_time(panel, factory, clock):
    buttons, items = panel
    pin = WIRING.button(0, "pon").pin
    t0 = time.monotonic()
    press(factory, clock, pin, t0, hold=0.05)
    press(factory, clock, pin, t0 + 0.15, hold=0.05)
    # both held back until the button pauses for the chatter window, then let through
    assert drain(buttons, items) == [call(t0, 0, "pon"), call(t0 + 0.15, 0, "pon")]


def test_a_chattering_button_is_a_fault_and_its_presses_are_not_calls(factory, clock):
    wiring = dataclasses.replace(WIRING, debounce=dataclasses.replace(WIRING.debounce,
                                                                      recover=0.3))
    buttons, items = open_panel(factory, wiring)
    try:
        chii, ron = wiring.button(0, "chii").pin, wiring.button(3, "ron").pin
        t0 = clock.now
        timeline = [(t0 + i * 0.01, chii, True) for i in range(50)]
        timeline += [(t0 + i * 0.01 + 0.004, chii, False) for i in range(50)]
        timeline += [(t0 + 0.2001, ron, True), (t0 + 0.28, ron, False)]
        for t, pin, closed in sorted(timeline):
            level(factory, clock, pin, t, closed)
        got = drain(buttons, items)
        fault = got[0]                                    # its first press looked real: no call
        assert isinstance(fault, ButtonFault)
        assert (fault.seat, fault.call, fault.pin, fault.ok) == (0, "chii", chii, False)
        assert fault.suspect == t0 and fault.since == t0
        assert not fault.health_ok
        assert fault.text == (
            "seat 0 chii button (GPIO17) chatters: 5 presses in 40 ms, faster than a finger; "
            "its presses are ignored until it has been still for 0.3 s; the press it made "
            "40 ms before is no chii call")
        assert got[1:] == [call(t0 + 0.2001, 3, "ron")]   # other buttons still count
        assert buttons.health[0] is False

        recovered = items.get(timeout=3)                  # still for 0.3 s: it counts again
        assert isinstance(recovered, ButtonFault) and recovered.ok and recovered.health_ok
        assert recovered.t == pytest.approx(t0 + 0.494 + 0.3)
        t1 = time.monotonic()
        press(factory, clock, chii, t1)
        assert drain(buttons, items) == [call(t1, 0, "chii")]
    finally:
        buttons.close()


def test_panel_health_names_every_chattering_button(panel, factory, clock):
    buttons, items = panel
    t0 = clock.now
    pins = [WIRING.button(1, "kan").pin, WIRING.button(2, "chii").pin]
    for i in range(6):
        for pin in pins:
            level(factory, clock, pin, t0 + i * 0.01, True)
            level(factory, clock, pin, t0 + i * 0.01 + 0.004, False)
    faults = [i for i in drain(buttons, items) if isinstance(i, ButtonFault)]
    assert len(faults) == 2
    assert faults[-1].health_text == ("seat 1 kan button (GPIO11) chatters; "
                                      "seat 2 chii button (GPIO5) chatters")


def run_panel(panel, timeline, until, step=0.5):
    """Feed ``timeline`` [(t, button index, closed)] to a pure ButtonPanel, letting time pass
    after every edge and every ``step`` seconds to ``until``, as the worker thread does."""
    out = []
    ticks = [(k * step, -1, None) for k in range(int(until / step) + 1)]
    for t, index, closed in sorted(timeline + ticks, key=lambda e: e[0]):
        if index >= 0:
            out += panel.edge(index, t, closed)
        out += panel.advance(t)
    return out


def flicker(index, start, seconds, closed_s, open_s, stretch_every=37):
    """A contact flickering from ``start``: closed ``closed_s``, open ``open_s``, and every
    ``stretch_every``-th opening 9 ms long; it ends open."""
    edges, t, k = [], start, 0
    while t < start + seconds:
        edges += [(t, index, True), (t + closed_s, index, False)]
        t += closed_s + (0.009 if k % stretch_every == stretch_every - 1 else open_s)
        k += 1
    return edges


def test_chattering_buttons_make_no_claim_not_even_the_press_their_fault_names():
    # seat 0's chii and kan flicker for 10 s at about the bounce time (the pattern that made
    # phantom calls in bench/buttons.py) while seat 1 presses pon for real twice a second
    chii, kan, pon = (WIRING.buttons.index(WIRING.button(s, c))
                      for s, c in [(0, "chii"), (0, "kan"), (1, "pon")])
    timeline = flicker(chii, 1.0, 10.0, 0.00503, 0.00496)
    timeline += flicker(kan, 1.0007, 10.0, 0.0051, 0.0049, stretch_every=11)
    real = [1.2 + 0.5 * k for k in range(20)]
    for t in real:
        timeline += [(t, pon, True), (t + 0.0004, pon, False), (t + 0.0009, pon, True),
                     (t + 0.08, pon, False)]
    out = run_panel(ButtonPanel(WIRING), timeline, until=15.0)
    events = [i for i in out if isinstance(i, dict)]
    assert events == [call(t, 1, "pon") for t in real]      # no referee call either
    faults = [i for i in out if isinstance(i, ButtonFault)]
    assert [(f.call, f.ok, f.suspect) for f in faults] == [
        ("chii", False, 1.0), ("kan", False, 1.0007), ("chii", True, None), ("kan", True, None)]
    assert all(f.t < 1.3 for f in faults if not f.ok)          # told within a few flickers


def test_chii_and_kan_that_chattered_and_stuck_call_no_referee_until_held_after():
    # both chatter for 3 s, their openings bounce-short, then settle closed: their chattering
    # is no holding, so the seat calls for a referee only once they have been held for the
    # hold time after counting again (a stuck pair held that long is the call itself)
    chii, kan = (WIRING.buttons.index(WIRING.button(0, c)) for c in ("chii", "kan"))
    timeline = flicker(chii, 1.0, 3.0, 0.00503, 0.00496)
    timeline += flicker(kan, 1.0007, 3.0, 0.0051, 0.0049, stretch_every=11)
    end = max(t for t, _, _ in timeline)
    timeline += [(end + 0.01, chii, True), (end + 0.011, kan, True)]
    out = run_panel(ButtonPanel(WIRING), timeline, until=12.0, step=0.1)
    recovered = max(f.t for f in out if isinstance(f, ButtonFault) and f.ok)
    [note] = [i for i in out if isinstance(i, dict) and i["type"] == "referee"]
    assert note["t"] == pytest.approx(recovered + WIRING.referee_call_hold)


def test_a_button_stuck_down_for_minutes_makes_no_claim():
    ron, pon, chii = (WIRING.buttons.index(WIRING.button(s, c))
                      for s, c in [(3, "ron"), (2, "pon"), (1, "chii")])
    closed = [i == ron for i in range(len(WIRING.buttons))]    # stuck before the table started
    timeline = [(1.0, pon, True), (1.0003, pon, False), (1.0006, pon, True),   # jams pressed
                (2.0, chii, True)]                                             # jams too
    for k in range(1, 85):                # the stuck contacts lift for 1 ms every 7 s
        for index in (ron, pon, chii):
            timeline += [(7.0 * k, index, False), (7.0 * k + 0.001, index, True)]
    out = run_panel(ButtonPanel(WIRING, closed), timeline, until=600.0)
    # the presses that jammed pon and chii are no calls, and nothing in ten minutes after;
    # the referee is told, each naming its press, once closed for stuck_s
    assert not [i for i in out if isinstance(i, dict)]
    assert [(f.seat, f.call, f.ok, f.t, f.suspect) for f in out] == [
        (2, "pon", False, 1.0 + WIRING.debounce.stuck, 1.0),
        (1, "chii", False, 2.0 + WIRING.debounce.stuck, 2.0)]
    assert out[0].text == (
        "seat 2 pon button (GPIO6) is stuck down: closed for 4 s, longer than a finger holds a "
        "call; its press is no pon call, and its presses are ignored until it has been "
        "released and still for 2 s")
    assert out[-1].health_text == ("seat 1 chii button (GPIO10) is stuck down; "
                                   "seat 2 pon button (GPIO6) is stuck down")


@pytest.mark.parametrize("pull, active", [("down", None), ("none", True)])
def test_buttons_switching_to_3v3(factory, clock, pull, active):
    wiring = dataclasses.replace(WIRING, pull=pull, active_state=active)
    buttons, items = open_panel(factory, wiring)
    try:
        b = wiring.button(2, "kan")
        t0 = clock.now
        press(factory, clock, b.pin, t0, wiring=wiring)
        assert drain(buttons, items) == [call(t0, 2, "kan")]
    finally:
        buttons.close()


def test_a_pin_in_use_is_one_clear_line_and_nothing_stays_claimed(factory, clock):
    squatter = LED(WIRING.button(1, "chii").pin, pin_factory=factory)
    with pytest.raises(PinsUnavailable) as info:
        open_panel(factory)
    assert str(info.value) == (f"{SAMPLE_CONFIG}: GPIO10 (seat 1 chii button): already in use "
                               "(by another device here, or another program)")
    squatter.close()
    buttons, _ = open_panel(factory)                      # the first four were released
    buttons.close()


def test_close_stops_the_worker_and_releases_the_pins(factory, clock):
    before = set(threading.enumerate())
    buttons, items = open_panel(factory)
    assert buttons._thread.is_alive()
    buttons.close()
    assert not buttons._thread.is_alive()
    buttons.close()                                       # twice is fine
    again, _ = open_panel(factory)
    again.close()
    # no worker or hold thread left; the threads of another file's servers winding down in
    # this process meanwhile are not the panel's (a count of all threads once caught one)
    left = [t for t in threading.enumerate() if t not in before and
            (t.name == "seat-buttons" or type(t).__module__.startswith("gpiozero"))]
    assert left == []


def test_a_watchdog_report_is_not_an_edge(panel, factory, clock):
    buttons, items = panel
    button = buttons.button(0, "ron")
    button.pin.when_changed(clock.now, 2)                 # lgpio's level 2: watchdog timeout
    assert drain(buttons, items) == []


class WrappingFactory:
    """A factory with pigpio-like ticks: microseconds that wrap at 2**32."""

    def __init__(self, now_ticks):
        self.now_ticks = now_ticks

    def ticks(self):
        return self.now_ticks

    @staticmethod
    def ticks_diff(later, earlier):
        return ((later - earlier) % 2**32) / 1e6


def test_ticks_of_other_factories_are_mapped_by_the_edges_age():
    convert = edge_clock(WrappingFactory(5_000_000), clock=lambda: 100.0)
    assert convert(5_000_000 - 1500) == pytest.approx(100.0 - 0.0015)
    wrapped = edge_clock(WrappingFactory(100), clock=lambda: 100.0)
    assert wrapped(2**32 - 1400) == pytest.approx(100.0 - 0.0015)
    # gpiozero's own monotonic-seconds factories are taken as they are
    assert edge_clock(MockFactory())(123.456) == 123.456


def test_an_lgpio_debounce_would_be_taken_off_the_stamp():
    lgpio_factory = type("LGPIOFactory", (), {"__module__": "gpiozero.pins.lgpio"})()
    pin = type("Pin", (), {"bounce": 0.01})()
    assert reporting_lag(lgpio_factory, pin) == 0.01
    assert reporting_lag(MockFactory(), pin) == 0.0


def test_the_table_is_told_when_a_press_is_under_test_and_when_its_call_is_due():
    from table.press_hold import PressUnderTest
    panel = ButtonPanel(WIRING, under_test=True)
    pon, chii = (WIRING.buttons.index(WIRING.button(s, c)) for s, c in [(2, "pon"), (1, "chii")])
    assert panel.edge(pon, 10.0, True) == [PressUnderTest(2, "pon", 10.0, True)]
    assert panel.edge(pon, 10.08, False) == []
    # a finger's: its call, then the end of its test (so nothing after it overtakes it)
    assert panel.advance(10.33) == [call(10.0, 2, "pon"), PressUnderTest(2, "pon", 10.0, False)]
    # a chattering contact's test ends with its fault, and no call
    out = []
    for k in range(6):
        out += panel.edge(chii, 20.0 + k * 0.0105, True) + \
            panel.edge(chii, 20.005 + k * 0.0105, False)
    assert out[0] == PressUnderTest(1, "chii", 20.0, True)
    assert isinstance(out[1], ButtonFault) and out[1].suspect == 20.0
    assert out[2] == PressUnderTest(1, "chii", 20.0, False)
    assert not [i for i in out if isinstance(i, dict)]
