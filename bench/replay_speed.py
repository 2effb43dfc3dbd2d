"""How fast the rules core judges a long game: events per second and microseconds per event.

Generates a seeded stream of several hundred hands (referee.simulate; not timed), then times
Referee.feed over it (judging and scoring the reveals included). Prints the figures and writes
bench/results/replay_speed.json. Target: at least 20,000 events/s.

    python bench/replay_speed.py [--hands 400] [--ruleset ema2012] [--repeat 3]
"""
from __future__ import annotations

import argparse
import platform
import time

from referee.core import Referee
from referee.simulate import simulate

from _results import write_results  # bench/ is on sys.path when run as a script

TARGET = 20_000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=400)
    ap.add_argument("--ruleset", default="ema2012")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--repeat", type=int, default=3, help="runs; the best is reported")
    args = ap.parse_args()

    t0 = time.perf_counter()
    events = simulate(seed=args.seed, hands=args.hands, ruleset=args.ruleset)
    gen_s = time.perf_counter() - t0
    best = None
    rulings = 0
    for _ in range(args.repeat):
        referee = Referee()
        start = time.perf_counter()
        n = 0
        for ev in events:
            n += len(referee.feed(ev))
        n += len(referee.finish())
        elapsed = time.perf_counter() - start
        rulings = n
        best = elapsed if best is None else min(best, elapsed)
    eps = len(events) / best
    result = {
        "events": len(events), "hands": args.hands, "ruleset": args.ruleset,
        "rulings": rulings, "seconds": round(best, 4),
        "events_per_second": round(eps), "us_per_event": round(best / len(events) * 1e6, 2),
        "target_events_per_second": TARGET, "meets_target": eps >= TARGET,
        "generate_seconds": round(gen_s, 2), "python": platform.python_version(),
        "machine": platform.machine(),
    }
    for key, value in result.items():
        print(f"{key:>26}: {value}")
    write_results("replay_speed", result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
