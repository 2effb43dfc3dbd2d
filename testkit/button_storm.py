"""How a storm of seat-button calls is judged against the presses the pins really made: what
``bench/buttons.py`` reports, and what its tests hold it to."""
from __future__ import annotations

import collections


def judge(wiring, calls: list, faults: list, real: list, paused: list,
          stuck: list = ()) -> dict:
    """What the calls that came out say of the referee.

    ``calls``: (when taken off the queue, call event); ``faults``: the ButtonFault items;
    ``real``: (pin, closing edge) of every real press; ``paused``: (pin, first edge, last
    edge) of each stretch of a pin's chattering that ended in a still spell of
    ``chatter_window``; ``stuck``: (pin, jammed, freed) of each button held down longer than
    ``stuck_s``, whose presses from the jam to its release are no calls (``stuck_presses``).
    A call that is no real press is a chatter onset if a fault names it as its suspect (a
    press the fault says it dropped: it should never come out); a call before a chatter pause
    if it came in such a stretch of its pin, and fewer than ``chatter_presses`` did (as many
    would be chatter); and unexplained otherwise (``unexplained``: those calls)."""
    by_pin = {b.pin: b for b in wiring.buttons}

    def jammed(pin, t):
        return any(p == pin and began <= t <= freed for p, began, freed in stuck)

    expected = {(by_pin[pin].seat, by_pin[pin].call, t) for pin, t in real
                if not jammed(pin, t)}
    stuck_presses = sum(1 for pin, t in real if jammed(pin, t))
    suspects = {(f.seat, f.call, f.suspect) for f in faults if not f.ok and f.suspect is not None}
    glitch_presses = wiring.debounce.chatter_presses - 1
    stretches = collections.defaultdict(list)
    for pin, began, last in paused:
        stretches[by_pin[pin].seat, by_pin[pin].call].append((began, last))
    excused: collections.Counter = collections.Counter()      # calls of each stretch
    seen: collections.Counter = collections.Counter()
    latencies, onsets, before_pauses, unexplained = [], 0, 0, []
    for when, item in calls:
        key = (item["seat"], item["call"], item["t"])
        if key in expected:
            seen[key] += 1
            if seen[key] == 1:
                latencies.append((when - item["t"]) * 1e6)
        elif key in suspects:
            onsets += 1
        else:
            stretch = next((s for s in stretches[key[:2]] if s[0] <= item["t"] <= s[1]
                            and excused[key[:2], s] < glitch_presses), None)
            if stretch is None:
                unexplained.append(item)
            else:
                excused[key[:2], stretch] += 1
                before_pauses += 1
    return {"real_presses": len(expected), "stuck_presses": stuck_presses,
            "real_calls": len(seen),
            "lost": len(expected) - len(seen), "doubled": sum(seen.values()) - len(seen),
            "chatter_onset_calls": onsets, "calls_before_chatter_pauses": before_pauses,
            "unexplained_calls": len(unexplained), "unexplained": unexplained,
            "latencies_us": latencies}
