"""How long the referee takes to judge one whole recorded game, scoring included.

Imports every shared Tenhou log (../shared/data/tenhou, mjlog and tenhou.net/6), then times
``Referee("tenhou")`` feeding all of a game's events and finishing. Reports the median (the
figure of merit, target at most 100 ms per game), the slowest game, and, apart, the import
time. Prints the figures and writes bench/results/game_speed.json.

``wins_judged`` says how many recorded wins were scored, so a figure that skipped scoring shows.

    python bench/game_speed.py [--repeat 3] [PATH ...]
"""
from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time

from _results import write_results  # bench/ is on sys.path when run as a script

from app.commands.check_tenhou import find_logs
from referee.core import Referee
from referee.scoring import score_win, waits
from referee.tenhou import import_log
from table.paths import shared_data_dir

TARGET_MS = 100.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", help="logs or folders (default: the shared Tenhou games)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per game; the best is kept")
    args = ap.parse_args()

    paths = args.paths
    if not paths:
        data = shared_data_dir()
        if data is None:
            print("game_speed: ../shared/data not found (set RIICHI_SHARED_DATA)", file=sys.stderr)
            return 2
        paths = [str(data / "tenhou")]
    logs = find_logs(paths)
    games = []
    import_ms = []
    for path in logs:
        start = time.perf_counter()
        games.append(import_log(path))
        import_ms.append((time.perf_counter() - start) * 1000)

    per_game = []
    wins = 0
    for game in games:
        best = None
        for _ in range(args.repeat):
            referee = Referee("tenhou")
            start = time.perf_counter()
            rulings = []
            for event in game.events:
                rulings += referee.feed(event)
            rulings += referee.finish()
            elapsed = (time.perf_counter() - start) * 1000
            best = elapsed if best is None else min(best, elapsed)
        wins += sum(1 for r in rulings if r["type"] == "win")
        per_game.append((best, game))

    # What scoring alone costs per game: each recorded win valued, and its waits worked out
    # (a furiten check), as the core will do at every reveal.
    options = {"double_yakuman": False}
    scoring_ms = []
    for _, game in per_game:
        if game.final_scores is None:
            continue
        start = time.perf_counter()
        for hand in game.hands:
            for w in hand.wins:
                score_win(w.concealed, w.melds, w.win_tile, w.situation, options)
                rest = list(w.concealed)
                rest.remove(w.win_tile)
                waits(rest, w.melds)
        scoring_ms.append((time.perf_counter() - start) * 1000)

    # Whole games only for the figure of merit (those with final standings): most
    # tenhou.net/6 files are single edge-case hands.
    whole = [ms for ms, g in per_game if g.final_scores is not None] or \
        [ms for ms, _ in per_game]
    slowest_ms, slowest = max(per_game, key=lambda x: x[0])
    median = statistics.median(whole)
    result = {
        "games": len(per_game), "whole_games": len(whole),
        "median_ms_per_game": round(median, 2),
        "mean_ms_per_game": round(statistics.fmean(whole), 2),
        "max_ms_per_game": round(slowest_ms, 2), "slowest": slowest.source,
        "events": sum(len(g.events) for _, g in per_game),
        "hands": sum(len(g.hands) for _, g in per_game),
        "recorded_wins": sum(len(h.wins) for _, g in per_game for h in g.hands),
        "wins_judged": wins,
        "median_import_ms": round(statistics.median(import_ms), 2),
        "median_scoring_only_ms": round(statistics.median(scoring_ms), 2) if scoring_ms else None,
        "target_ms_per_game": TARGET_MS, "meets_target": median <= TARGET_MS,
        "repeat": args.repeat, "python": platform.python_version(),
        "machine": platform.machine(),
    }
    for key, value in result.items():
        print(f"{key:>24}: {value}")
    write_results("game_speed", result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
