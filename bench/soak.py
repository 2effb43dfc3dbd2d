"""A tournament day on one table without a restart by hand: ten simulated hours at 20x (half
an hour), every fault on the way, nothing lost (see :mod:`testkit.soak` for what runs and what
is injected when).

    python bench/soak.py [--hours 10] [--speed 20] [--kills 5] [--games tenhou:5]

Keys of bench/results/soak.json:

- ``hours_simulated``: real seconds of the day times the speed, in hours;
- ``rss_start_mb``, ``rss_end_mb``, ``rss_growth_pct`` (target <= 5): the table service's
  resident memory over its longest life (it is killed five times), after ``warmup`` of it;
  ``fds_growth``, ``threads_growth`` (target 0): open files and threads over the same span;
  ``dashboard``: the same of the gunicorn worker, over the whole day;
- ``events_lost`` (target 0): events of a finished game's script missing from the journal,
  and events the service acknowledged as journaled that the journal lacks after a kill;
  ``rulings_duplicated`` (0): rulings stored twice (the same ruling id, or the same content
  under two ids, in one game); ``hall_lost`` (0): events and rulings the journal holds that
  never reached the hall through the broker;
- ``journal_mb_per_hour``: the journal's size (its write-ahead log folded in) per simulated
  hour; ``disk_write_mb_per_hour``: what the service's processes wrote to storage
  (``/proc/PID/io`` ``write_bytes``) per simulated hour; ``sd_card_32gb_years``: how long a
  32 GB card lasts at that rate, ten hours a day, for an assumed endurance
  (``sd_card_assumption``). Sped up, the service's timed writes (its heartbeat every 5 s,
  the hall link's mark at most every second) are counted per real second, so a fast day
  undercounts them: ``--quiet-day --speed 1`` measures what a table writes in a real hour;
- ``restarts_recovered`` (5 of 5): kills after which ``riichi-referee check-journal`` found
  the journal whole, no acknowledged event was missing, the service was ready again and the
  dashboard showed the table moving; ``restarts`` holds each one's times
  (``restart_to_ready_s``: restart to the game restored; ``restart_to_dashboard_s``: restart
  to the first event on a phone's stream; in a break that waits for the next game);
- ``claims_by_faulty_buttons`` (0): claims won by a press no player made (the stuck and the
  chattering button are injected during play, each while a discard is open to its call);
- ``faulty_calls_journaled`` (0): presses of the stuck or chattering button that reached the
  rules core at all, claim or not (the fault record ``buttons`` has ``in_a_window``);
- ``faults``: what the dashboard said of each fault and when.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

from _results import write_results  # bench/ is on sys.path when run as a script

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: Endurance assumed for a 32 GB consumer microSD card (TLC flash): full writes of the card.
SD_CYCLES = 500
SD_BYTES = 32e9


def main() -> int:
    from testkit.soak import Plan, run_soak

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hours", type=float, default=10.0, help="simulated hours")
    parser.add_argument("--speed", type=float, default=20.0, help="times real time")
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--games", default="tenhou:5", help="tenhou:N or simulated:HANDS:N")
    parser.add_argument("--camera", choices=("film", "idle"), default="film")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--keep", metavar="DIR", help="keep the day's files here")
    parser.add_argument("--quiet-day", action="store_true",
                        help="no faults at all: what the table writes when all is well (run it "
                             "at --speed 1 for the SD card: the service's timed writes, its "
                             "heartbeat and the hall link's mark, count per real second)")
    parser.add_argument("--out", metavar="JSON", help="write here, not bench/results/soak.json")
    args = parser.parse_args()
    plan = Plan(hours=args.hours, speed=args.speed, kills=args.kills, games=args.games,
                camera=args.camera, seed=args.seed, faults=not args.quiet_day)
    load = os.getloadavg()
    print(f"soak: {plan.hours:g} simulated hours at {plan.speed:g}x ({plan.seconds / 60:.1f} "
          f"real minutes); load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}", flush=True)
    results = run_soak(plan, folder=Path(args.keep) if args.keep else None,
                       say=lambda text: print(f"  {text}", flush=True))
    mb_h = results["disk_write_mb_per_hour"]
    hours = SD_CYCLES * SD_BYTES / (mb_h * 1e6) if mb_h else None
    results["sd_card_assumption"] = (f"32 GB card, {SD_CYCLES} full writes (consumer TLC), "
                                     "no write amplification counted, 10 h of play a day")
    results["sd_card_32gb_hours"] = round(hours) if hours else None
    results["sd_card_32gb_years"] = round(hours / 10 / 365, 1) if hours else None
    results["load_average_start"] = [round(x, 2) for x in load]
    results["machine"] = {"python": platform.python_version(), "cpus": os.cpu_count()}
    results["when"] = time.strftime("%Y-%m-%dT%H:%M:%S")
    results["command"] = "python " + " ".join(sys.argv)
    commit = os.popen(f"git -C {ROOT} rev-parse --short HEAD 2>/dev/null").read()
    results["commit"] = commit.strip()
    keys = ("hours_simulated", "table_hours", "games_played", "real_seconds", "rss_start_mb",
            "rss_end_mb", "rss_growth_pct",
            "fds_growth", "threads_growth", "events_lost", "rulings_duplicated", "hall_lost",
            "journal_mb_per_hour", "disk_write_mb_per_hour", "restarts_recovered",
            "restart_to_ready_s_max", "restart_to_dashboard_s_max", "claims_by_faulty_buttons",
            "faulty_calls_journaled", "sd_card_32gb_years")
    for key in keys:
        print(f"{key}: {results.get(key)}")
    print("dashboard:", json.dumps(results.get("dashboard")))
    write_results("soak", results, Path(args.out) if args.out else None)
    if args.quiet_day:
        return 0 if results.get("events_lost") == 0 and results.get("hall_lost") == 0 else 1
    ok = (results.get("events_lost") == 0 and results.get("rulings_duplicated") == 0
          and results.get("hall_lost") == 0 and results["restarts_recovered"] == plan.kills
          and results.get("claims_by_faulty_buttons") == 0
          and results.get("faulty_calls_journaled") == 0)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
