"""The seat call buttons: 16 gpiozero :class:`~gpiozero.Button` devices whose edges become
``call`` events on a queue, stamped with the moment the contact closed.

The queue carries two kinds of item::

    item = buttons_queue.get()
    if isinstance(item, ButtonFault):       # an input chatters or is stuck, or counts again
        live.set_health("buttons", item.health_ok, item.health_text)
    else:                                   # an event dict, per the table-event format:
        live.submit(item)                   # {"type": "call", "t": ..., "seat": 2, "call": "pon"}
                                            # or a seat's call for a referee (a `referee`
                                            # note, see hardware/call_for_referee.py)

How a press travels: the pin factory calls :class:`CallButton` on every edge with the edge's
own timestamp (lgpio: the kernel's CLOCK_MONOTONIC stamp of the interrupt); the callback only
converts it to the table clock and puts it on an internal queue. One worker thread runs the
:class:`ButtonPanel` (16 :class:`~hardware.debounce.Debouncer` state machines) over those edges
and puts calls and faults on the caller's queue. A press goes on the queue once it has passed
its test (``hardware.debounce``: the contact released and still for the chatter window), never
at its edge: a chattering or stuck contact's press is dropped instead. With ``under_test``,
:class:`~table.press_hold.PressUnderTest` items say when a press goes under test and when its
test is over, so the table service holds back everything stamped after it meanwhile. gpiozero's own ``bounce_time`` is not used: it
drops edges in its own way and, on lgpio, stamps a debounced edge late by the debounce time.
"""
from __future__ import annotations

import functools
import queue as queue_module
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from gpiozero import Button

from table.clock import monotonic
from table.press_hold import PressUnderTest

from .call_for_referee import CallForReferee
from .hold_to_sign import SIGN_BUTTON, HoldToSign
from .config import DebounceSettings, TableWiring
from .debounce import Chatter, Debouncer, Press, Quiet, Stuck
from .pins import claim_pin, default_pin_factory


@dataclass(frozen=True)
class ButtonFault:
    """A queue item that is not a call: one button's input became faulty (``ok`` False:
    chattering, or stuck down) or counts again (``ok`` True).

    ``seat``, ``call``, ``pin``: which button. ``t``: when it was seen (table clock).
    ``since``: when the fault began. ``suspect``: the time of the press this button made as
    the fault began, still under test then and dropped (no call came of it; None if there was
    none).
    ``text``: one sentence for the referee. ``health_ok``/``health_text``: the whole panel's
    state after this item (all buttons, not just this one), for
    ``LiveTable.set_health("buttons", health_ok, health_text)``.
    """

    seat: int
    call: str
    pin: int
    t: float
    ok: bool
    text: str
    since: float
    suspect: float | None
    health_ok: bool
    health_text: str


class ButtonPanel:
    """A table's 16 buttons as pure state: raw edges in, queue items out (no pins, no threads).

    ``wiring``: the :class:`~hardware.config.TableWiring`; its ``buttons`` order gives each
    button's index. ``closed``: the contact state of each button at start (all open if None).
    ``settings``: overrides ``wiring.debounce``. ``under_test``: also hand out a
    :class:`~table.press_hold.PressUnderTest` item when a button's press goes under test and
    when its test is over (after the calls it passed), so that the table can make everything
    stamped after the press wait for it (the table service needs them).
    """

    def __init__(self, wiring: TableWiring, closed: Sequence[bool] | None = None,
                 settings: DebounceSettings | None = None, under_test: bool = False):
        self.wiring = wiring
        settings = settings or wiring.debounce
        closed = closed or [False] * len(wiring.buttons)
        self.debouncers = [Debouncer(settings, c) for c in closed]
        self.under_test = under_test
        self.faults: dict[int, str] = {}      # index -> short text, while it is faulty
        self._since: dict[int, float] = {}
        self.calls_for_referee = (CallForReferee(wiring.referee_call, wiring.referee_call_hold,
                                                 settings.debounce)
                                  if wiring.referee_call else None)
        #: the ron button held to sign the score sheet (hardware.hold_to_sign)
        self.signing = (HoldToSign(wiring.sign_hold, settings.debounce)
                        if wiring.sign_hold else None)

    def edge(self, index: int, t: float, closed: bool) -> list[Any]:
        """Button ``index``'s contact closed or opened at ``t``; the items now due."""
        out = self.advance(t)            # the other buttons' calls due first, in time order
        debouncer = self.debouncers[index]
        before = (debouncer.under_test, len(debouncer.pending))
        outputs = debouncer.edge(t, closed)
        b = self.wiring.buttons[index]
        for hold in self._holds():
            hold.edge(b.seat, b.call, t, closed)
        # a press arms a hold to sign
        return out + self._items(index, outputs, before) + self._held(t)

    def advance(self, now: float) -> list[Any]:
        """Time passed to ``now``; the items now due (presses that passed their test,
        recoveries, calls for a referee)."""
        out: list[Any] = []
        for index, debouncer in enumerate(self.debouncers):
            if debouncer.pending or debouncer.faulty:
                before = (debouncer.under_test, len(debouncer.pending))
                out.extend(self._items(index, debouncer.advance(now), before))
        # the calls that passed their tests together, in the order they were pressed, then
        # the rest (faults, ends of tests)
        calls = sorted((i for i in out if isinstance(i, dict)), key=lambda e: e["t"])
        return calls + [i for i in out if not isinstance(i, dict)] + self._held(now)

    def next_deadline(self) -> float | None:
        deadlines = [d for d in (b.next_deadline() for b in self.debouncers) if d is not None]
        for hold in self._holds():
            d = hold.next_deadline()
            if d is not None:
                deadlines.append(d)
        return min(deadlines) if deadlines else None

    def _holds(self) -> list[CallForReferee]:
        return [h for h in (self.calls_for_referee, self.signing) if h is not None]

    def _held(self, now: float) -> list[dict]:
        """The calls for a referee and the signatures due by ``now``."""
        def faulty(seat: int, call: str) -> bool:
            return self.debouncers[self.wiring.buttons.index(
                self.wiring.button(seat, call))].faulty

        out = []
        if self.calls_for_referee is not None:
            calls = self.calls_for_referee.advance(now, faulty)
            for call in calls:
                out += self._withdraw(call["seat"], self.calls_for_referee.calls)
            out += calls
        if self.signing is not None:
            out += [e for e in self.signing.advance(now, faulty)
                    if not self._calling_with_ron(e["seat"])]
        return out

    def _withdraw(self, seat: int, calls: tuple[str, ...]) -> list[Any]:
        """``seat`` held ``calls`` to call for a referee: their presses under test are no
        claims, and are dropped."""
        out: list[Any] = []
        for call in calls:
            b = self.wiring.button(seat, call)
            t = self.debouncers[self.wiring.buttons.index(b)].withdraw()
            if t is not None and self.under_test:
                out.append(PressUnderTest(b.seat, b.call, t, False))
        return out

    def _calling_with_ron(self, seat: int) -> bool:
        """A table whose call for a referee uses the ron button: ron held with the rest of
        that combination is the call, not a signature."""
        calls = self.calls_for_referee
        if calls is None or SIGN_BUTTON not in calls.calls:
            return False
        return all(calls.held(seat, c) for c in calls.calls if c != SIGN_BUTTON)

    @property
    def health(self) -> tuple[bool, str]:
        """(all buttons working, the faulty ones in words)."""
        return not self.faults, "; ".join(self.faults[i] for i in sorted(self.faults))

    def _items(self, index: int, outputs: list, before: tuple[float | None, int]) -> list[Any]:
        """The queue items of button ``index``'s ``outputs``; ``before``: its press under test
        and how many presses it was testing before they came."""
        b = self.wiring.buttons[index]
        debouncer = self.debouncers[index]
        was, count = before
        items: list[Any] = []
        for o in outputs:
            if type(o) is Press:
                items.append({"type": "call", "t": o.t, "seat": b.seat, "call": b.call})
                continue
            name = f"seat {b.seat} {b.call} button (GPIO{b.pin})"
            recover = debouncer.settings.recover
            if type(o) is Chatter:
                self.faults[index] = f"{name} chatters"
                self._since[index] = o.since
                text = (f"{name} chatters: {o.reason}; its presses are ignored until it has "
                        f"been still for {recover:g} s")
                if o.suspect is not None:
                    ms = (o.t - o.suspect) * 1e3
                    text += f"; the press it made {ms:.0f} ms before is no {b.call} call"
                ok, since, suspect = False, o.since, o.suspect
            elif type(o) is Stuck:
                self.faults[index] = f"{name} is stuck down"
                self._since[index] = o.since
                held = o.t - o.since
                text = (f"{name} is stuck down: closed for {held:g} s, longer than a finger "
                        f"holds a call; its press is no {b.call} call, and its presses are "
                        f"ignored until it has been released and still for {recover:g} s")
                ok, since, suspect = False, o.since, o.suspect
            else:
                assert type(o) is Quiet
                stuck = self.faults.pop(index, "").endswith("stuck down")
                for hold in self._holds():
                    hold.recovered(b.seat, b.call, o.t)
                text = (f"{name} is released and still again; its presses count again"
                        if stuck else
                        f"{name} is still again after {o.edges} chattering edges; its presses "
                        "count again")
                ok, since, suspect = True, self._since.pop(index, o.t), None
            health_ok, health_text = self.health
            items.append(ButtonFault(b.seat, b.call, b.pin, o.t, ok, text, since, suspect,
                                     health_ok, health_text))
        now = debouncer.under_test
        if len(debouncer.pending) > (count if now == was else 0) and \
                self.signing is not None and b.call == SIGN_BUTTON:
            self.signing.pressed(b.seat)     # a press: a hold of this ron button may sign
        if self.under_test:
            if was is not None and now != was:
                items.append(PressUnderTest(b.seat, b.call, was, False))
            if now is not None and now != was:
                items.append(PressUnderTest(b.seat, b.call, now, True))
        return items


class CallButton(Button):
    """A gpiozero :class:`~gpiozero.Button` that hands every raw edge, with the pin factory's
    timestamp of it, to ``on_edge(ticks, state)`` and does nothing else with it.

    The stamp is the factory's (lgpio: when the kernel saw the interrupt), not the time the
    callback runs. gpiozero's ``bounce_time`` is left off (debouncing is
    :mod:`hardware.debounce`'s), and its events (``when_pressed``, ``when_held``,
    ``wait_for_press``) are not fired: with a chattering contact they would wake a thread per
    edge, and presses travel by the queue anyway. ``is_pressed`` reads the pin, as ever.
    """

    def __init__(self, pin, *, on_edge: Callable[[Any, Any], None], pull_up: bool | None = True,
                 active_state: bool | None = None, pin_factory=None):
        self._on_edge = on_edge
        super().__init__(pin, pull_up=pull_up, active_state=active_state, bounce_time=None,
                         pin_factory=pin_factory)

    def _pin_changed(self, ticks, state):
        self._on_edge(ticks, state)

    def close(self):
        # Button's hold thread only looks at its stop flag every 0.1 s, so closing 16 of them
        # one by one would take 1.6 s; wake it so it sees the flag at once.
        hold = getattr(self, "_hold_thread", None)
        if hold is not None and hasattr(hold, "stopping") and hasattr(hold, "holding"):
            hold.stopping.set()
            hold.holding.set()
        super().close()


def edge_clock(factory, clock: Callable[[], float] = monotonic) -> Callable[[Any], float]:
    """A function putting ``factory``'s edge ticks on the table clock (seconds, float).

    gpiozero's local Pi factories (lgpio, RPi.GPIO, native) and its MockFactory give ticks in
    seconds on CLOCK_MONOTONIC, the clock ``time.monotonic_ns()`` reads: lgpio's alert stamp
    is the kernel's ``timestamp_ns`` of the GPIO line event, which is CLOCK_MONOTONIC on any
    kernel since Linux 5.7 unless a line asks for realtime stamps (lgpio never does), and
    gpiozero divides it by 1e9. Those are taken as they are. Any other factory (pigpio's
    wrapping microsecond ticks, possibly from another machine) is mapped through the age of
    the edge: ``clock() - ticks_diff(ticks(), edge)``.
    """
    from gpiozero.pins.local import LocalPiFactory
    from gpiozero.pins.mock import MockFactory

    if isinstance(factory, (LocalPiFactory, MockFactory)):
        return float

    def convert(ticks) -> float:
        return clock() - factory.ticks_diff(factory.ticks(), ticks)
    return convert


def reporting_lag(factory, pin) -> float:
    """Seconds by which ``pin``'s edge stamps trail the real edge: lgpio stamps an edge it
    debounced itself at ``last edge + debounce`` (lgPthAlerts.c), so a pin with a kernel-side
    debounce set would report late by ``pin.bounce``. :class:`CallButton` never sets one."""
    if type(factory).__module__.endswith(".lgpio"):
        return float(pin.bounce or 0.0)
    return 0.0


class SeatButtons:
    """The 16 call buttons of a table, putting ``call`` event dicts and :class:`ButtonFault`
    items on ``queue``.

    ``wiring``: from :func:`~hardware.config.load_table_config`. ``queue``: any object with
    ``put`` (a :class:`queue.Queue`; leave it unbounded, a press must never wait).
    ``pin_factory``: a gpiozero pin factory (None: gpiozero's default, which honours
    ``GPIOZERO_PIN_FACTORY``). ``clock``: the monotonic clock in seconds that edge stamps are on
(``table.clock.monotonic``); it only times presses under test, held buttons and recoveries.
    ``under_test``: put :class:`~table.press_hold.PressUnderTest` items on ``queue`` too (the
    table service's claim windows wait for a press under test; see :class:`ButtonPanel`).

    Raises :class:`~hardware.pins.PinsUnavailable` (a RefereeError) when a pin can't be used.
    Call :meth:`close` (or use ``with``) to release the pins and stop the worker thread.
    """

    def __init__(self, wiring: TableWiring, queue, pin_factory=None, *,
                 clock: Callable[[], float] = monotonic, under_test: bool = False):
        self.wiring = wiring
        self.queue = queue
        self.clock = clock
        self.pin_factory = pin_factory if pin_factory is not None else default_pin_factory()
        self._raw: queue_module.SimpleQueue = queue_module.SimpleQueue()
        self._to_table = edge_clock(self.pin_factory, clock)
        self._pressed_level = wiring.pressed_level
        self._lag = [0.0] * len(wiring.buttons)
        self._buttons: list[CallButton] = []
        self._closed = False
        pull_up = {"up": True, "down": False, "none": None}[wiring.pull]
        active_state = wiring.active_state if wiring.pull == "none" else None
        try:
            for index, b in enumerate(wiring.buttons):
                button = claim_pin(CallButton, b.pin, f"seat {b.seat} {b.call} button",
                                   wiring.source, on_edge=functools.partial(self._edge, index),
                                   pull_up=pull_up, active_state=active_state,
                                   pin_factory=self.pin_factory)
                self._buttons.append(button)
                self._lag[index] = reporting_lag(self.pin_factory, button.pin)
        except BaseException:
            self._close_buttons()
            raise
        self.panel = ButtonPanel(wiring, [button.is_pressed for button in self._buttons],
                                 under_test=under_test)
        self._thread = threading.Thread(target=self._run, name="seat-buttons", daemon=True)
        self._thread.start()

    # -- the pin factory's thread ------------------------------------------------------------
    def _edge(self, index: int, ticks, state) -> None:
        if state != 0 and state != 1:
            return                       # lgpio's watchdog report (level 2) is not an edge
        self._raw.put((self._to_table(ticks) - self._lag[index], index,
                       bool(state) == self._pressed_level))

    # -- the worker thread -------------------------------------------------------------------
    def _run(self) -> None:
        raw, panel, put = self._raw, self.panel, self.queue.put
        while True:
            deadline = panel.next_deadline()
            timeout = None if deadline is None else max(0.0, deadline - self.clock())
            try:
                batch = [raw.get(timeout=timeout)]
            except queue_module.Empty:
                batch = []
            while True:                  # take everything already there, in edge-time order
                try:
                    batch.append(raw.get_nowait())
                except queue_module.Empty:
                    break
            stop = False
            edges = []
            for item in batch:
                if item is None:
                    stop = True
                elif isinstance(item, threading.Event):
                    edges.append((float("-inf"), -1, item))
                else:
                    edges.append(item)
            edges.sort(key=lambda e: e[0])
            markers = []
            for t, index, closed in edges:
                if index < 0:
                    markers.append(closed)
                    continue
                for out in panel.edge(index, t, closed):
                    put(out)
            for out in panel.advance(self.clock()):
                put(out)
            for marker in markers:
                marker.set()
            if stop:
                return

    # -- for the table service, the CLI and tests ---------------------------------------------
    def sync(self, timeout: float = 5.0) -> bool:
        """Wait until every edge that happened before this call has been judged and its items
        are on the queue. False if the worker did not get there within ``timeout``."""
        done = threading.Event()
        self._raw.put(done)
        return done.wait(timeout)

    def settle(self, timeout: float = 5.0) -> bool:
        """Wait until every edge so far has been judged and no press is under test any more
        (those that passed are on the queue). False if that did not come within ``timeout``
        (a button held down keeps its press under test until it is let go or found stuck)."""
        end = time.monotonic() + timeout   # real seconds, whatever clock the panel runs on
        while self.sync(max(0.0, end - time.monotonic())):
            if not any(d.pending for d in self.panel.debouncers):
                return self.sync(max(0.0, end - time.monotonic()))
            if time.monotonic() >= end:
                return False
            time.sleep(0.005)
        return False

    def button(self, seat: int, call: str) -> Button:
        """The gpiozero Button of ``seat``'s ``call`` (KeyError if the wiring has none)."""
        return self._buttons[self.wiring.buttons.index(self.wiring.button(seat, call))]

    @property
    def health(self) -> tuple[bool, str]:
        """(all buttons working, the chattering ones in words), as of the last judged edge."""
        return self.panel.health

    def close(self) -> None:
        """Stop the worker (after judging the edges already seen) and release the pins."""
        if self._closed:
            return
        self._closed = True
        self._close_buttons()
        self._raw.put(None)
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(5.0)

    def _close_buttons(self) -> None:
        for button in self._buttons:
            try:
                button.close()
            except Exception:            # closing must not fail halfway through the panel
                pass

    def __enter__(self) -> "SeatButtons":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
