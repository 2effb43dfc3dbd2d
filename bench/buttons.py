"""Seat buttons on gpiozero mock pins: press-to-queue latency, a chatter storm, and a real
press's way to the rules core.

A press is a call only once it has passed its test (``hardware/debounce.py``): the button let
go and still for the chatter window; a chattering or stuck contact's presses are dropped.

1. Latency: 10,000 taps, round robin over the 16 buttons one per millisecond; for each, the
   time from the pin's press edge stamp to the call being taken off the queue (p50, p99, max:
   the tap, its test and the worker), and from the moment it passed its test (``after_test``:
   the worker alone). A button comes round every 16 ms here, so this run uses a 10 ms chatter
   window (the sample's 250 ms would rightly call that chatter); the path a press takes is
   the same.
2. Storm: real presses on all 16 buttons; then all 16 chattering at 100 Hz (5 ms closed,
   5 ms open) for 10 s; then, once they are still again, real presses again; then 8 buttons
   chattering for 10 s while the other 8 are pressed for real (with contact bounce) every
   0.4-0.7 s; then every seat's pon stuck down for 10 s (jammed by a real press, its contact
   lifting for 1 ms each second) while the rons are pressed for real. Checks: every real press
   is one call, stamped with its closing edge; no call from a chattering button, not even the
   first press of an episode (its fault names it as a suspect, dropped:
   ``chatter_onset_calls`` must be 0); none from a stuck button (``stuck_presses``: its
   presses from the jam to its release; ``stuck_faults``: one each); no call for a referee;
   one fault and one recovery per chatter episode and per stuck button; no crash; resident
   memory sampled every second stays flat.
3. To the rules core (``rules_core``): taps of 80 ms on every button and the rons held 1.5 s,
   with the sample's settings, through the seat buttons and the table service to a stand-in
   rules core: from the press's edge (and from its release) to the rules core getting its
   call.

What counts as a real press is judged on the edges the mock pins really stamped, by the
debounce rule (a closing after the contact was open for ``debounce_ms``): a driver held up on
a busy machine can stretch a press's back-to-back bounce edges, or a stuck button's 1 ms
lift, past 5 ms, and then the contact did press again. Chattering pins are expected to make
no call, with one exception judged on the stamps too: a driver held up for
``chatter_window_ms`` (250 ms) mid-chatter leaves the pin still that long, which ends an
episode; what the pin did since it began chattering or last paused is then a glitch, too
short to show as chatter, whose presses count like a finger's quick presses, up to 4
(``calls_before_chatter_pauses``; ``chatter_pauses`` says how often a pin paused).

The sample pin map and its settings are used (hardware/table.toml). Mock pins keep a list of
every state they went through; the driver clears it each second so that the memory figure
is the referee's, not the mock's bookkeeping.

    python bench/buttons.py [--presses 10000] [--storm-seconds 10]
"""
from __future__ import annotations

import argparse
import dataclasses
import platform
import queue
import random
import statistics
import sys
import threading
import time
from pathlib import Path

import gpiozero.pins.mock
from _results import write_results  # bench/ is on sys.path when run as a script
from gpiozero.pins.mock import MockFactory

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # testkit/, in no package

from hardware.buttons import ButtonFault, SeatButtons  # noqa: E402
from hardware.config import SAMPLE_CONFIG, load_table_config  # noqa: E402
from table.clock import monotonic  # noqa: E402
from testkit.button_storm import judge  # noqa: E402


def rss_kib() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


# -- 1. latency -----------------------------------------------------------------------------

def latency(presses: int) -> dict:
    wiring = load_table_config(SAMPLE_CONFIG)
    window = 0.010
    wiring = dataclasses.replace(wiring, debounce=dataclasses.replace(
        wiring.debounce, chatter_window=window))
    factory = MockFactory()
    items: queue.Queue = queue.Queue()
    pins = [factory.pin(b.pin) for b in wiring.buttons]
    made: dict[tuple, float] = {}        # (seat, call, press edge) -> release edge
    got: list[tuple[float, dict]] = []

    def consume():
        while True:
            item = items.get()
            if item is None:
                return
            got.append((monotonic(), item))

    consumer = threading.Thread(target=consume, daemon=True)
    consumer.start()
    last = [float("-inf")] * 16
    with SeatButtons(wiring, items, pin_factory=factory) as buttons:
        start = time.monotonic()
        for i in range(presses):
            # one a millisecond, and never the same button again within 16 ms of its press or
            # of its release and test (the 10 ms still spell that makes it a call): after a
            # slow moment, a catch-up burst would otherwise press a button again before its
            # last press was a call, and both would be one test's
            slot = max(start + i * 0.001, last[i % 16] + 0.016)
            delay = slot - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            b, pin = wiring.buttons[i % 16], pins[i % 16]
            pin.drive_low()                  # a tap: pressed and let go
            pressed = pin._last_change
            pin.drive_high()
            made[(b.seat, b.call, pressed)] = pin._last_change
            last[i % 16] = time.monotonic()
            if i % 1000 == 999:
                for p in pins:
                    p.clear_states()
        elapsed = time.monotonic() - start
        end = time.monotonic() + 10
        while len(got) < presses and time.monotonic() < end:
            time.sleep(0.01)
        buttons.settle()
    items.put(None)
    consumer.join(5)
    factory.close()
    us, after = [], []
    wrong = 0
    for when, item in got:
        key = (item.get("seat"), item.get("call"), item.get("t"))
        if key not in made:
            wrong += 1
            continue
        us.append((when - item["t"]) * 1e6)
        after.append((when - made[key] - window) * 1e6)
    return {"presses": presses, "wrong_button": wrong, "lost": presses - len(us),
            "seconds": round(elapsed, 2),
            # from the press's edge to the call on the queue: the tap, its test (the 10 ms
            # still spell after it is let go) and the worker's own time
            "p50_us": round(percentile(us, 50), 1), "p99_us": round(percentile(us, 99), 1),
            "max_us": round(max(us), 1), "mean_us": round(statistics.fmean(us), 1),
            # from the moment the press passed its test to the call on the queue: the worker
            "after_test_p50_us": round(percentile(after, 50), 1),
            "after_test_p99_us": round(percentile(after, 99), 1),
            "after_test_max_us": round(max(after), 1),
            "chatter_window_ms": 10}


# -- 2. storm -------------------------------------------------------------------------------

class EdgeStamps:
    """The clock the mock pins stamp their edges with (gpiozero.pins.mock.monotonic), keeping
    the last stamp it gave: only the driver's thread changes pins, so after a drive call it is
    that edge's stamp, the time the referee sees."""

    def __init__(self):
        self.last = 0.0

    def __call__(self) -> float:
        self.last = time.monotonic()
        return self.last


class Driver:
    """Drives mock pins on a schedule in real time, recording each real press's edge stamp.

    ``debounce``: the referee's bounce time; a closing of a pin not chattering after it was
    open at least this long is a press, whatever the schedule meant it to be. ``paused``:
    (pin, first edge, last edge) of each stretch of a pin's chattering that ended in no edge
    for ``chatter_window``."""

    def __init__(self, factory, wiring, stamps: EdgeStamps):
        self.factory = factory
        self.wiring = wiring
        self.stamps = stamps
        self.debounce = wiring.debounce.debounce
        self.window = wiring.debounce.chatter_window
        self.pins = {b.pin: factory.pin(b.pin) for b in wiring.buttons}
        self.real: list[tuple[int, float]] = []     # (pin, closing edge) of each real press
        self.late_presses = 0            # of those, bounces or lifts the driver made too long
        self.opened: dict[int, float] = {}
        self.paused: list[tuple[int, float, float]] = []
        self.chattered: dict[int, tuple[float, float]] = {}   # pin -> (stretch began, last)
        self.stuck: list[tuple[int, float, float]] = []       # (pin, jammed, freed)
        self._jammed: dict[int, float] = {}
        self.edges = 0

    def level(self, pin: int, closed: bool) -> float:
        (self.pins[pin].drive_low if closed else self.pins[pin].drive_high)()
        self.edges += 1
        return self.stamps.last

    def steady(self, pin: int, closed: bool, meant: bool = False) -> None:
        """A real press's, release's or lift's edge; ``meant``: the schedule's press."""
        t = self.level(pin, closed)
        if not closed:
            self.opened[pin] = t
        elif t - self.opened.get(pin, float("-inf")) >= self.debounce:
            self.real.append((pin, t))
            self.late_presses += not meant

    def chatter(self, pin: int, closed: bool) -> None:
        t = self.level(pin, closed)
        began, last = self.chattered.get(pin, (t, t))
        if t - last >= self.window:
            self.paused.append((pin, began, last))
            began = t
        self.chattered[pin] = (began, t)
        if not closed:
            self.opened.pop(pin, None)             # chatter: its openings are no guide

    def run(self, schedule: list[tuple[float, int, str]], rss: list[int]) -> None:
        """``schedule``: (seconds from now, pin, what) with what = "close", "open" (chatter),
        "press" (a real press closing, with bounce) / "release" (with bounce), or "lift" /
        "land" (a stuck contact opening for a moment)."""
        schedule.sort()
        self.chattered = {}
        start = time.monotonic()
        next_sample = start
        for at, pin, what in schedule:
            now = time.monotonic()
            if now >= next_sample:
                rss.append(rss_kib())
                for p in self.pins.values():
                    p.clear_states()
                next_sample += 1.0
            delay = start + at - now
            if delay > 0:
                time.sleep(delay)
            if what in ("close", "open"):
                self.chatter(pin, what == "close")
            elif what == "press":
                self.steady(pin, True, meant=True)         # this edge is the press
                self.steady(pin, False)                    # contact bounce...
                self.steady(pin, True)
            elif what == "release":
                self.steady(pin, False)
                self.steady(pin, True)
                self.steady(pin, False)
            elif what == "lift":                           # a stuck contact lifting...
                self.steady(pin, False)
            elif what == "land":                           # ...and landing again
                self.steady(pin, True)
            elif what == "jam":                            # a press that sticks
                self.steady(pin, True, meant=True)
                self._jammed[pin] = self.stamps.last
            elif what == "free":                           # ...freed at last
                self.steady(pin, False)
                self.stuck.append((pin, self._jammed.pop(pin), self.stamps.last))
        rss.append(rss_kib())


def chatter(pin: int, start: float, seconds: float) -> list:
    out = []
    for i in range(int(seconds * 100)):
        out.append((start + i * 0.01, pin, "close"))
        out.append((start + i * 0.01 + 0.005, pin, "open"))
    return out


def real_press(pin: int, at: float, hold: float = 0.08) -> list:
    return [(at, pin, "press"), (at + hold, pin, "release")]


def storm(seconds: float, seed: int = 1) -> dict:
    wiring = load_table_config(SAMPLE_CONFIG)
    recover = wiring.debounce.recover
    rng = random.Random(seed)
    stamps = EdgeStamps()
    mock_clock, gpiozero.pins.mock.monotonic = gpiozero.pins.mock.monotonic, stamps
    factory = MockFactory()
    items: queue.Queue = queue.Queue()
    driver = Driver(factory, wiring, stamps)
    all_pins = [b.pin for b in wiring.buttons]
    chattering = all_pins[::2]                   # chii and kan of every seat in phase D
    steady = all_pins[1::2]
    stuck = [wiring.button(seat, "pon").pin for seat in range(4)]      # in phase E
    pressed = [wiring.button(seat, "ron").pin for seat in range(4)]
    rss: list[int] = []
    got: list = []

    def consume():
        while True:
            item = items.get()
            if item is None:
                return
            got.append((time.monotonic(), item))

    consumer = threading.Thread(target=consume, daemon=True)
    with SeatButtons(wiring, items, pin_factory=factory) as buttons:
        consumer.start()
        rss_start = rss_kib()
        phases = []
        # A: every button pressed for real
        plan = []
        for i, pin in enumerate(all_pins):
            plan += real_press(pin, 0.02 + i * 0.02)
        phases.append(("A real presses", plan))
        # B: all 16 chattering at 100 Hz
        plan = []
        for i, pin in enumerate(all_pins):
            plan += chatter(pin, 0.0005 * i, seconds)
        phases.append(("B 16 chattering", plan))
        # C: still for the recovery time, then three real presses on each
        plan = []
        for i, pin in enumerate(all_pins):
            for k in range(3):
                plan += real_press(pin, recover + 0.3 + k * 0.35 + i * 0.011)
        phases.append(("C real presses after", plan))
        # D: 8 chattering, the other 8 pressed for real meanwhile
        plan = []
        for i, pin in enumerate(chattering):
            plan += chatter(pin, 0.0007 * i, seconds)
        for pin in steady:
            at = rng.uniform(0.05, 0.3)
            while at < seconds - 0.2:
                plan += real_press(pin, at, hold=rng.uniform(0.05, 0.15))
                at += rng.uniform(0.4, 0.7)
        phases.append(("D 8 chattering, 8 pressed", plan))
        # E: every seat's pon stuck down, the rons pressed for real meanwhile
        plan = []
        for i, pin in enumerate(stuck):
            plan += [(0.05 + i * 0.013, pin, "jam"), (0.05 + i * 0.013 + seconds, pin, "free")]
            for k in range(1, int(seconds)):
                plan += [(k + i * 0.013, pin, "lift"), (k + i * 0.013 + 0.001, pin, "land")]
        for pin in pressed:
            at = rng.uniform(0.1, 0.3)
            while at < seconds - 0.2:
                plan += real_press(pin, at, hold=rng.uniform(0.05, 0.15))
                at += rng.uniform(0.4, 0.7)
        phases.append(("E 4 stuck, 4 pressed", plan))
        timings = {}
        for name, plan in phases:
            t0 = time.monotonic()
            driver.run(plan, rss)
            timings[name] = round(time.monotonic() - t0, 2)
            time.sleep(0.3)          # so no real press is a quick repeat of the phase before
        time.sleep(recover + 0.5)                # let the last chatter recover
        buttons.sync()
        raw_left = buttons._raw.qsize()
        rss_end = rss_kib()
    items.put(None)
    consumer.join(5)
    factory.close()
    gpiozero.pins.mock.monotonic = mock_clock

    # -- judge what came out -------------------------------------------------------------
    events = [(when, item) for when, item in got if isinstance(item, dict)]
    calls = [(when, item) for when, item in events if item["type"] == "call"]
    referee_calls = [item for _, item in events if item["type"] != "call"]
    faults = [item for _, item in got if isinstance(item, ButtonFault)]
    j = judge(wiring, calls, faults, driver.real, driver.paused, driver.stuck)
    latencies = j.pop("latencies_us")
    started = sum(1 for f in faults if not f.ok)
    ended = sum(1 for f in faults if f.ok)
    edges = driver.edges
    run_s = sum(timings.values())
    return {
        "storm_seconds": seconds, "phases_seconds": timings,
        "edges_driven": edges, "edges_per_second": round(edges / run_s),
        "real_presses_made_late": driver.late_presses, **j,
        "chatter_pauses": len(driver.paused), "referee_calls": len(referee_calls),
        "stuck_buttons": len(stuck),
        "chatter_episodes": 16 + len(chattering),
        "stuck_faults": sum(1 for f in faults if not f.ok and "stuck down" in f.text),
        "faults_started": started,
        "faults_ended": ended, "edges_left_unjudged": raw_left,
        "real_call_latency_p50_us": round(percentile(latencies, 50), 1),
        "real_call_latency_p99_us": round(percentile(latencies, 99), 1),
        "rss_kib_start": rss_start, "rss_kib_end": rss_end,
        "rss_kib_min": min(rss), "rss_kib_max": max(rss), "rss_kib_growth": max(rss) - min(rss),
        "rss_kib_samples": rss,
    }


# -- 3. to the rules core --------------------------------------------------------------------

class RulesCoreInbox:
    """Stands in for the rules core behind the table service: notes when each call reaches it
    (the monotonic clock) and judges nothing."""

    def __init__(self):
        self.calls: list[tuple[float, dict]] = []

    def feed(self, event: dict) -> list:
        if event.get("type") == "call":
            self.calls.append((monotonic(), dict(event)))
        return []

    def advance(self, t: float) -> list:
        return []

    def finish(self) -> list:
        return []

    def next_deadline(self) -> None:
        return None

    def snapshot(self) -> dict:
        return {}


def to_rules_core(taps_per_button: int = 3, holds: int = 4) -> dict:
    """Real presses with the sample's settings (a 250 ms chatter window) through the seat
    buttons and the table service to the rules core: taps of 80 ms on every button, and the
    rons held 1.5 s; for each, from its closing edge (and from its release) to the rules core
    getting its call."""
    from table.clock import TableClock
    from table.service import ResumableTable, TableService

    wiring = load_table_config(SAMPLE_CONFIG)
    factory = MockFactory()
    items: queue.Queue = queue.Queue()
    inbox = RulesCoreInbox()
    table = ResumableTable(None, referee_factory=lambda: inbox, clock=TableClock())
    service = TableService(table, clock=table.clock, buttons=items, inbox=False)
    plan = []            # (seconds from now, pin, closed, hold kind)
    for i, b in enumerate(wiring.buttons):
        for k in range(taps_per_button):
            at = 0.05 + i * 0.037 + k * 0.6
            plan += [(at, b.pin, True, "tap"), (at + 0.08, b.pin, False, "tap")]
    rons = [wiring.button(seat, "ron").pin for seat in range(4)][:holds]
    for i, pin in enumerate(rons):
        at = 0.05 + taps_per_button * 0.6 + 0.5 + i * 0.05
        plan += [(at, pin, True, "hold"), (at + 1.5, pin, False, "hold")]
    plan.sort()
    pressed: dict[tuple, tuple[float, str]] = {}     # (seat, call, edge) -> (release, kind)
    open_press: dict[int, tuple] = {}
    by_pin = {b.pin: b for b in wiring.buttons}
    with SeatButtons(wiring, items, pin_factory=factory, under_test=True) as buttons:
        service.start()
        start = time.monotonic()
        for at, pin, closed, kind in plan:
            delay = start + at - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            p = factory.pin(pin)
            (p.drive_low if closed else p.drive_high)()
            b = by_pin[pin]
            if closed:
                open_press[pin] = (b.seat, b.call, p._last_change)
            else:
                pressed[open_press.pop(pin)] = (p._last_change, kind)
        end = time.monotonic() + 10
        while len(inbox.calls) < len(pressed) and time.monotonic() < end:
            time.sleep(0.01)
        service.stop()
    factory.close()
    taps, released, held = [], [], []
    wrong = 0
    for when, event in inbox.calls:
        key = (event["seat"], event["call"], event["t"])
        if key not in pressed:
            wrong += 1
            continue
        release, kind = pressed[key]
        (taps if kind == "tap" else held).append((when - event["t"]) * 1e3)
        if kind == "tap":
            released.append((when - release) * 1e3)
    return {"taps": len(taps), "tap_hold_ms": 80, "held_presses": len(held), "hold_ms": 1500,
            "chatter_window_ms": round(wiring.debounce.chatter_window * 1e3),
            "lost": len(pressed) - len(taps) - len(held), "wrong_call_or_stamp": wrong,
            # a tap: its 80 ms, the 250 ms still spell that proves it a finger's, the rest
            "tap_edge_to_rules_core_ms_p50": round(percentile(taps, 50), 1),
            "tap_edge_to_rules_core_ms_p99": round(percentile(taps, 99), 1),
            "tap_edge_to_rules_core_ms_max": round(max(taps), 1),
            "release_to_rules_core_ms_p50": round(percentile(released, 50), 1),
            "release_to_rules_core_ms_max": round(max(released), 1),
            "held_edge_to_rules_core_ms_p50": round(percentile(held, 50), 1),
            "held_edge_to_rules_core_ms_max": round(max(held), 1)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--presses", type=int, default=10_000)
    ap.add_argument("--storm-seconds", type=float, default=10.0)
    args = ap.parse_args()
    result = {"latency": latency(args.presses), "storm": storm(args.storm_seconds),
              "rules_core": to_rules_core(),
              "python": platform.python_version(), "machine": platform.machine()}
    # one fault (and one recovery) per chatter episode and per stuck button
    faults = result["storm"]["chatter_episodes"] + result["storm"]["stuck_buttons"]
    ok = (result["storm"]["lost"] == 0 and result["storm"]["doubled"] == 0
          and result["storm"]["unexplained_calls"] == 0
          and result["storm"]["referee_calls"] == 0
          and result["storm"]["chatter_onset_calls"] == 0
          and result["storm"]["stuck_faults"] == result["storm"]["stuck_buttons"]
          and result["storm"]["faults_started"] == faults
          and result["storm"]["faults_ended"] == faults
          and result["latency"]["wrong_button"] == 0 and result["latency"]["lost"] == 0
          and result["rules_core"]["lost"] == 0
          and result["rules_core"]["wrong_call_or_stamp"] == 0)
    result["ok"] = ok
    for part in ("latency", "storm", "rules_core"):
        print(f"{part}:")
        for key, value in result[part].items():
            if key != "rss_kib_samples":
                print(f"  {key:>26}: {value}")
    rss = result["storm"]["rss_kib_samples"]
    print(f"  {'rss_kib each second':>26}: {' '.join(str(x) for x in rss)}")
    print(f"{'ok':>28}: {ok}")
    write_results("buttons", result)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
