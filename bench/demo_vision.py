"""Does the demo's camera read every discard? The first real Tenhou game, discard by discard,
drawn into rendered top-down table frames and read by the real tracker, finder and classifier.

    python bench/demo_vision.py [--game PATH.mjlog] [--limit N] [--finder MODEL.onnx | --finder felt]
                                [--tiles flat | --tiles solid [--seed S]]

As the demo's simulated camera does: each discard is added to its pond and the frame rendered
(as many frames as the tracker needs to believe a tile), a called tile is taken from its pond,
a new hand clears the table. A discard is *read* when the tracker reports it (the right seat,
tile and riichi flag), *missed* when it does not, and any other report is *false*. Prints the
figures and writes bench/results/demo_vision.json (``discards_read``, ``discards_missed``,
``false_reports``). The frames are read as the demo reads them, by the shipped learned finder,
unless ``--finder`` names another model or ``felt`` (the felt-colour finder).

``--tiles solid`` draws the frames as a camera over a real table sees it instead of the demo's
flat art on green felt: solid tiles with coloured sides on a held-out table top, one light and
its shadows, a camera 75-90 degrees above the table, warped top-down
(:class:`vision.synthesis.solid_table.SolidTable`; ``--seed`` picks the set, table, light and camera).
The JSON then also says ``tiles`` and ``seed``. ``--weighed`` reads through the table
service's :class:`vision.tracking.readings.WeighedTracker` and adds ``read_unsure`` and
``false_reports_unsure``: the reports it marks unsure (below the confidence threshold), which
the referee is shown to check rather than trust.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._results import write_results  # noqa: E402
from referee.errors import RefereeError  # noqa: E402
from table.paths import shared_data_dir


def _shown(event: dict) -> dict:
    """An event as printed: the crop an unsure one carries is a picture, not text to read."""
    return {k: v for k, v in event.items() if k != "crop"}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", type=Path, default=None,
                   help="a Tenhou mjlog (default: the first of ../shared/data/tenhou/mjlog)")
    p.add_argument("--limit", type=int, default=None, help="stop after this many discards")
    p.add_argument("--finder", default=None,
                   help="read the frames with this learned finder (.onnx), or with the "
                        "felt-colour finder ('felt'), instead of the shipped finder the demo uses")
    p.add_argument("--tiles", choices=("flat", "solid"), default="flat",
                   help="flat: the demo's art on green felt (default); solid: tiles with bodies "
                        "seen by a camera over a real-looking table")
    p.add_argument("--seed", type=int, default=0, help="the solid table's look (--tiles solid)")
    p.add_argument("--weighed", action="store_true",
                   help="read through the table service's WeighedTracker (vision/tracking/readings.py), "
                        "which weighs each reading with what the game allows, and count the "
                        "reports it marks unsure")
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)

    from app.demo import SimulatedCamera, _take_from_pond
    from referee.tenhou import import_log
    from vision.synthesis.synthetic import render_state

    game = args.game
    if game is None:
        data = shared_data_dir()
        logs = sorted((data / "tenhou" / "mjlog").glob("*.mjlog")) if data else []
        if not logs:
            raise SystemExit("no Tenhou game: ../shared/data/tenhou/mjlog is missing (or give --game)")
        game = logs[0]
    if not SimulatedCamera.available():
        raise SystemExit("the tile art is missing (../shared/data/tiles): nothing to render")
    camera = SimulatedCamera(speed=1.0)
    tracker = camera.tracker
    if args.finder == "felt":
        tracker.finder = None
    elif args.finder is not None:
        from vision.finding.learned import TileFinder

        try:
            tracker.finder = TileFinder(args.finder, threads=1)
        except RefereeError as exc:
            raise SystemExit(f"bench/demo_vision.py: {exc}")
    used = "felt-colour" if tracker.finder is None else str(tracker.finder.model_path)
    if args.weighed:
        from vision.tracking.readings import WeighedTracker
        tracker = WeighedTracker(tracker)

    def unsure(event: dict) -> bool:
        """Marked for the referee to check (a weighed reading below the threshold)."""
        return args.weighed and event.get("confidence", 1) < tracker.threshold
    events = import_log(game).events
    read = missed = unsure_read = 0
    false: list[dict] = []
    t = 0.0
    t0 = time.monotonic()
    frames = max(camera.FRAMES_PER_CHANGE, tracker.gone_frames)

    draw = render_state
    if args.tiles == "solid":
        from vision.synthesis.solid_table import SolidTable
        draw = SolidTable(args.seed).render

    def show(change) -> list[dict]:
        nonlocal t
        change(camera.state)
        frame = draw(camera.state)
        out = []
        for _ in range(frames):
            t += 0.1
            out += tracker.update(frame, int(t * 1e9))
        return out

    for event in events:
        kind = event["type"]
        if kind == "hand_start":
            camera.state = camera._new_state()
            tracker.new_hand()
        elif kind == "discard":
            seat, tile, riichi = event["seat"], event["tile"], bool(event.get("riichi"))
            reports = show(lambda state: state.ponds[seat].append((tile, riichi)))
            hit = [e for e in reports if e["type"] == "discard" and e["seat"] == seat and
                   e["tile"] == tile and bool(e.get("riichi")) == riichi]
            if hit:
                read += 1
                unsure_read += unsure(hit[0])
                reports.remove(hit[0])
            else:
                missed += 1
                print(f"  missed: seat {seat} {tile}{' riichi' if riichi else ''} "
                      f"(reported instead: {[_shown(e) for e in reports]})")
            false += reports
            if args.limit and read + missed >= args.limit:
                break
        elif kind == "meld" and event.get("called") and event.get("from") is not None:
            false += show(_take_from_pond(event["from"], event["called"]))
    for e in false:
        print(f"  false report: {_shown(e)}")
    seconds = time.monotonic() - t0
    results = {"game": game.name, "discards": read + missed, "discards_read": read,
               "discards_missed": missed, "false_reports": len(false), "seconds": round(seconds, 1),
               "finder": used, "tiles": args.tiles}
    if args.weighed:
        # what the referee is told to look at rather than trust
        results["weighed"] = True
        results["read_unsure"] = unsure_read
        results["false_reports_unsure"] = sum(map(unsure, false))
    if args.tiles == "solid":
        results["seed"] = args.seed
    print(f"{game.name}: {read} of {read + missed} discards read, {missed} missed, "
          f"{len(false)} false reports ({seconds:.0f} s)")
    if args.weighed:
        print(f"  marked unsure for the referee: {results['false_reports_unsure']} of the false "
              f"reports, {unsure_read} of the discards read")
    write_results("demo_vision", results, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
