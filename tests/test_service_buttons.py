"""Seat buttons through the table service to the rules core, as a referee judges a claim
window: a finger's press claims with its own edge time however long it was held, and a
chattering or stuck contact claims nothing, not even with the first edge that looks like a
finger's.

The buttons are the real :class:`~hardware.buttons.SeatButtons` on gpiozero mock pins, the
rules core the real one (EMA 2012: a 3-second window, pon over chii, the first pon pressed
over a later one), on a table clock running ``SPEED`` times real time with the buttons'
timings scaled alike, as the demo does. Each contact's edges are handed over at once with the
times they are planned for (as the kernel stamps them), so a busy machine can delay when
they are judged, never what they were.
"""
from __future__ import annotations

import queue
import time

import pytest
from gpiozero.pins.mock import MockFactory

from app.demo import scaled_wiring
from hardware.buttons import SeatButtons
from hardware.config import SAMPLE_CONFIG, load_table_config
from referee.core import Referee
from table.clock import TableClock
from table.service import ResumableTable, TableService
from testkit.soak_table import edge_at

SPEED = 4.0
WIRING = scaled_wiring(load_table_config(SAMPLE_CONFIG), SPEED)


def wait_for(condition, what: str, timeout: float = 30.0):
    """A failure limit only: the loop waits for the condition."""
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.01)


class Table:
    """A table service with seat buttons and the rules core, a hand begun and seat 0's 5m
    discarded at ``discard`` (table seconds): its claim window is open."""

    def __init__(self):
        self.clock = TableClock(offset=1000.0, speed=SPEED)
        self.factory = MockFactory()
        self.items: queue.Queue = queue.Queue()
        self.buttons = SeatButtons(WIRING, self.items, pin_factory=self.factory,
                                   under_test=True)
        self.table = ResumableTable(None, referee_factory=Referee, clock=self.clock)
        self.health: list[tuple[str, bool, str]] = []    # what the dashboard was told, in turn
        told = self.table.set_health

        def set_health(component, ok, text=""):
            self.health.append((component, ok, text))
            told(component, ok, text)
        self.table.set_health = set_health
        self.service = TableService(self.table, clock=self.clock, buttons=self.items,
                                    inbox=False)
        self.service.start()
        self.m0 = time.monotonic() + 0.05
        self.discard = self.clock.from_mono(self.m0)
        for event in ({"type": "game_start", "t": self.discard - 2, "ruleset": "ema2012",
                       "scores": [30000] * 4},
                      {"type": "hand_start", "t": self.discard - 1, "round_wind": "E",
                       "dealer": 0, "honba": 0, "riichi_sticks": 0, "dora_indicators": ["1m"]},
                      {"type": "discard", "t": self.discard, "seat": 0, "tile": "5m"}):
            self.service.submit(event, "camera")   # as the camera would: the timer hears it

    def mono(self, after: float) -> float:
        """The monotonic time of ``after`` table seconds past the discard."""
        return self.m0 + after / SPEED

    def edges(self, seat: int, call: str, timeline) -> None:
        """Move ``seat``'s ``call`` contact: ``timeline`` [(table seconds past the discard,
        closed)], each edge stamped with its own time."""
        pin = self.buttons.button(seat, call).pin
        for after, closed in timeline:
            edge_at(pin, closed, self.mono(after), not WIRING.pressed_level)

    def press(self, seat: int, call: str, at: float, hold: float = 0.1) -> None:
        self.edges(seat, call, [(at, True), (at + hold, False)])

    def chatter(self, seat: int, call: str, at: float, n: int = 20) -> None:
        """A chattering contact from ``at``: closing every 10.5 ms (real), open 5.5 ms."""
        ms = 1e-3 * SPEED   # a real millisecond in table seconds
        self.edges(seat, call, [e for i in range(n) for e in
                                ((at + 10.5 * i * ms, True), (at + (10.5 * i + 5) * ms, False))])

    def claim(self) -> dict:
        wait_for(lambda: self.claims(), "the window's claim ruling")
        [claim] = self.claims()
        return claim

    def claims(self) -> list[dict]:
        return [r for r in self.table.rulings() if r["type"] == "claim"]

    def calls(self) -> list[tuple[int, str, float]]:
        """The presses the rules core got: (seat, call, table seconds after the discard as
        the press was stamped)."""
        return [(e["seat"], e["call"], round(e.get("t_source", e["t"]) - self.discard, 3))
                for e in self.table.events() if e["type"] == "call"]

    def close(self) -> None:
        self.service.stop()
        self.buttons.close()
        self.factory.close()


@pytest.fixture
def table():
    t = Table()
    yield t
    t.close()


def test_a_tap_and_a_long_hold_claim_with_their_own_edges_and_precedence_as_ever(table):
    table.press(1, "chii", 0.3)                  # a tap
    table.press(2, "pon", 0.5, hold=1.5)         # held a second and a half: reaches the table last
    table.press(3, "pon", 0.8)                   # a tap, after seat 2's pon began
    claim = table.claim()
    # between two pons the first pressed wins, though it reached the rules core last
    assert claim["winners"] == [{"seat": 2, "call": "pon"}]
    assert sorted((r["seat"], r["call"], r["reason"]) for r in claim["rejected"]) == [
        (1, "chii", "precedence"), (3, "pon", "precedence")]
    assert claim["t"] == pytest.approx(table.discard + 3.0)
    # each judged at its own edge, none moved to the time it arrived
    assert sorted(table.calls()) == [(1, "chii", 0.3), (2, "pon", 0.5), (3, "pon", 0.8)]
    assert not any("t_source" in e for e in table.table.events())


def test_a_chattering_contact_claims_nothing_not_even_with_its_first_edge(table):
    table.chatter(1, "chii", 0.4)                # its first edge looks like a finger's press
    table.press(2, "pon", 1.0)
    claim = table.claim()
    assert claim["winners"] == [{"seat": 2, "call": "pon"}]
    assert claim["rejected"] == []               # no chii in the window at all
    assert table.calls() == [(2, "pon", 1.0)]
    # the dashboard was told (the fault is over once the contact is still again)
    assert ("buttons", False, "seat 1 chii button (GPIO10) chatters") in table.health


def test_a_button_stuck_down_in_the_window_claims_nothing_and_is_reported(table):
    table.edges(2, "pon", [(0.5, True)])         # sticks down, never let go
    table.press(3, "kan", 1.0)
    claim = table.claim()                        # the window waited for the stuck press
    assert claim["winners"] == [{"seat": 3, "call": "kan"}]
    assert claim["rejected"] == []
    assert claim["t"] == pytest.approx(table.discard + 3.0)
    assert table.calls() == [(3, "kan", 1.0)]
    assert table.health[-1] == ("buttons", False, "seat 2 pon button (GPIO6) is stuck down")


def test_a_press_just_before_the_deadline_still_under_test_is_judged_in_time(table):
    # pressed 0.1 s before the window closes and held past its deadline: its test ends
    # after the deadline, and the window waits for it
    table.press(3, "pon", 2.9, hold=0.5)
    claim = table.claim()
    assert claim["winners"] == [{"seat": 3, "call": "pon"}]
    assert claim["t"] == pytest.approx(table.discard + 3.0)
    assert table.calls() == [(3, "pon", 2.9)]
