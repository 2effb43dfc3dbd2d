"""Scenario helper for rule tests: a game written as compact lines (see referee.simulate.script)."""
from referee.core import Referee
from referee.simulate import script

#: Discards a real wall could give, for filler(..., tiles=PLAUSIBLE): 24 kinds in turn, so 70
#: discards show no tile more than three times (the fifth-copy check stays quiet). No 2m
#: (the kan tests' 2222m) and no 3p (their claimed tile).
PLAUSIBLE = "1z2z3z4z5z6z7z1m9m1p9p1s9s3m6m8m2p4p7p8p2s3s4s6s"


def judge(ruleset, *lines, events=(), finish=True):
    """Rulings of a game on ``ruleset``: game_start, dealer 0's hand, then the lines.

    ``events``: extra event dicts merged in by time. ``finish``: close the open windows at the
    end, as a replay does; without it the state is left as it stands after the last event.
    """
    ref = Referee()
    out = []
    evs = script(f"0 gs {ruleset}", "0 hs 0") + list(events) + script(*lines)
    evs.sort(key=lambda e: e["t"])
    for ev in evs:
        out += ref.feed(ev)
    if finish:
        out += ref.finish()
    return out, ref
