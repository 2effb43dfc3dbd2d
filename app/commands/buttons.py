"""``riichi-referee buttons``: the seat-panel wiring check.

Prints the pin map, then each press as it comes (seat, call, pin, time on the table clock) and
flashes that seat's light, in the spirit of gpiozero's ``pinout``/``pintest``. A chattering
input is printed as a fault and sounds the buzzer. With ``GPIOZERO_PIN_FACTORY=mock`` it runs
anywhere on gpiozero's mock pins and says so; ``--simulate`` also presses every button itself.
"""
from __future__ import annotations

import queue
import threading
import time
from pathlib import Path

from hardware.buttons import ButtonFault, SeatButtons
from hardware.config import SAMPLE_CONFIG, TableWiring, load_table_config
from hardware.lights import SeatLights
from hardware.pins import default_pin_factory, is_mock, mock_pin_factory, mock_requested
from table.clock import VirtualClock, monotonic


def add_arguments(parser) -> None:
    parser.add_argument("--config", metavar="TABLE.toml", type=Path, default=None,
                        help="the table config with [buttons], [lights], [buzzer] "
                             "(default: the sample pin map, hardware/table.toml)")
    parser.add_argument("--duration", metavar="SECONDS", type=float, default=None,
                        help="stop after this many seconds (default: at Ctrl-C; with "
                             "--simulate, when its presses are done)")
    parser.add_argument("--simulate", action="store_true",
                        help="use mock pins and press every button in turn, then make one "
                             "chatter, to see the check work without hardware")


def run(args) -> int:
    path = args.config if args.config is not None else SAMPLE_CONFIG
    wiring = load_table_config(path)
    clock = None
    if args.simulate:
        # the simulated person's edges happen at planned times on a clock it moves itself:
        # what is judged (bounce, chatter, recovery) is what was planned, at any load
        clock = VirtualClock(monotonic())
        factory = mock_pin_factory(clock)
    elif mock_requested():
        factory = mock_pin_factory()
    else:
        factory = default_pin_factory()
    say(f"wiring check of {path}" + (" (the sample pin map)" if args.config is None else ""))
    say(f"pins: {describe_factory(factory, args.simulate)}")
    print_pin_map(wiring)

    items: queue.Queue = queue.Queue()
    pressed: dict[tuple[int, str], int] = {}
    timing = {} if clock is None else {"clock": clock}
    with SeatButtons(wiring, items, factory, **timing) as buttons, \
            SeatLights(wiring, factory) as lights:
        done = threading.Event()
        if args.simulate:
            threading.Thread(target=simulate, args=(wiring, factory, buttons, done, clock),
                             name="simulated-presses", daemon=True).start()
            say("simulating: every button pressed in turn (with contact bounce), then the "
                "seat 0 chii button chattering")
        else:
            say("press each button: its seat, call and time are printed and its seat's light "
                "flashes; Ctrl-C to stop")
        stop_at = None if args.duration is None else monotonic() + args.duration
        last_t = None
        try:
            while True:
                if stop_at is not None and monotonic() >= stop_at:
                    break
                if done.is_set() and items.empty():
                    break
                wait = 0.1 if stop_at is None else max(0.0, min(0.1, stop_at - monotonic()))
                try:
                    item = items.get(timeout=wait)
                except queue.Empty:
                    continue
                if isinstance(item, ButtonFault):
                    say(("OK     " if item.ok else "FAULT  ") + item.text)
                    if not item.ok:
                        lights.beep()
                    continue
                if item.get("type") != "call":
                    say(hold_line(item))
                    continue
                b = wiring.button(item["seat"], item["call"])
                pressed[(b.seat, b.call)] = pressed.get((b.seat, b.call), 0) + 1
                gap = "" if last_t is None else f"  (+{(item['t'] - last_t) * 1e3:.1f} ms)"
                last_t = item["t"]
                say(f"seat {b.seat}  {b.call:<4}  GPIO{b.pin:<3} t={item['t']:.6f} s{gap}")
                lights.flash(b.seat)
        except KeyboardInterrupt:
            pass
    missing = [f"seat {b.seat} {b.call} (GPIO{b.pin})" for b in wiring.buttons
               if (b.seat, b.call) not in pressed]
    summary = f"{len(pressed)} of {len(wiring.buttons)} buttons pressed"
    if missing:
        summary += "; never pressed: " + ", ".join(missing)
    say(summary)
    return 0


def hold_line(item: dict) -> str:
    """The line for a hold the panel reported (ron held to sign the score sheet, or a call for
    a referee): a press is printed with its button, a hold has none."""
    what = "signs the score sheet" if item.get("type") == "sign" else "calls for a referee"
    return f"seat {item.get('seat')}  {what} (held) t={item['t']:.6f} s"


def say(text: str) -> None:
    print(text, flush=True)


def describe_factory(factory, simulate: bool) -> str:
    if is_mock(factory):
        why = "--simulate" if simulate else "GPIOZERO_PIN_FACTORY=mock"
        text = f"gpiozero mock pins ({why}): nothing real is wired"
        if not simulate:
            text += ", so nothing will be pressed; add --simulate to see presses"
        return text
    name = type(factory).__name__
    chip = getattr(factory, "chip", None)
    return f"{name}" + (f" (gpiochip{chip})" if chip is not None else "")


def print_pin_map(wiring: TableWiring) -> None:
    from referee.events import CALLS

    say("        " + "".join(f"{c:<8}" for c in CALLS) + "light")
    for seat in range(4):
        row = "".join(f"{'GPIO' + str(wiring.button(seat, c).pin):<8}" for c in CALLS)
        light = wiring.lights.get(seat)
        say(f"seat {seat}  {row}{'GPIO' + str(light) if light is not None else '-'}")
    say(f"buzzer  {'GPIO' + str(wiring.buzzer) if wiring.buzzer is not None else '-'}")


def simulate(wiring: TableWiring, factory, buttons: SeatButtons, done: threading.Event,
             clock: VirtualClock, gap: float = 0.12) -> None:
    """Drive the mock pins as a person would: each button pressed once with a little contact
    bounce, then one button chattering at 100 Hz, left alone to recover, and pressed again.

    ``clock``: the time the pins stamp edges with and ``buttons`` judges by. Each edge is
    planned on it and judged there before time moves on, so a thread that a busy machine
    runs late cannot turn a bounce into a second press, or chatter into still spells; the
    real pace only follows the plan, for a person watching."""
    pressed = wiring.pressed_level
    start_real, start = time.monotonic(), clock()
    try:
        def at(t):
            """Time is ``t`` now: everything due until then has been judged."""
            time.sleep(max(0.0, start_real + (t - start) - time.monotonic()))
            clock.t = max(clock.t, t)
            buttons.sync()

        def level(pin, closed):
            p = factory.pin(pin)
            (p.drive_high if closed == pressed else p.drive_low)()

        def press(pin, hold=0.05):
            for closed in (True, False, True):   # the contact bounces as it closes
                level(pin, closed)
                at(clock.t + 0.0005)
            at(clock.t + hold)
            level(pin, False)

        for b in wiring.buttons:
            press(b.pin)
            at(clock.t + gap)
        first = wiring.buttons[0]
        end = clock.t + 0.6
        while clock.t < end:
            level(first.pin, True)
            at(clock.t + 0.005)
            level(first.pin, False)
            at(clock.t + 0.005)
        at(clock.t + wiring.debounce.recover + 0.2)
        press(first.pin)
        at(clock.t + wiring.debounce.chatter_window + 0.01)   # still: the press is a call
        buttons.sync()
    finally:
        done.set()
