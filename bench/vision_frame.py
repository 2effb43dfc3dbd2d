"""Tile finding time per frame: a full rendered table (four ponds of 14 with riichi tiles,
walls, dead wall, a meld) through the finder, and the tracker over the scripted hand video.

    python bench/vision_frame.py [--threads 2] [--px-per-mm 2]

Prints the figures and writes bench/results/vision_frame.json. The classifier in the tracker
figure is the trained model when vision/models/tiles.onnx exists, else the art matcher.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import cv2
from _results import write_results  # bench/ is on sys.path when run as a script

# bench/vision.py would shadow the vision package: the checkout's root goes first
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--px-per-mm", type=float, default=2.0)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    cv2.setNumThreads(args.threads)

    from vision.camera.zones import default_zones
    from vision.finding.learned import find_tiles_topdown
    from vision.synthesis.synthetic import (
        ArtClassifier,
        TableState,
        hand_video,
        render_state,
    )
    from vision.tracking.tracker import TableTracker

    codes = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "2z", "3z", "4z",
             "5z", "6z", "7z", "0m", "0p"]
    state = TableState(dora=["3p", "4p"])
    for seat in range(4):
        state.ponds[seat] = [(codes[(i * 5 + seat) % 18], i == 7) for i in range(14)]
    state.melds[0] = [(["2s", "3s", "4s"], 0, None)]
    ppm = args.px_per_mm
    image = render_state(state, px_per_mm=ppm)
    find_tiles_topdown(image, ppm)
    times = []
    for _ in range(args.repeat):
        t = time.perf_counter()
        finding = find_tiles_topdown(image, ppm)
        times.append((time.perf_counter() - t) * 1000)

    try:
        from vision.reading.classifier import DEFAULT_MODEL, TileClassifier
        classifier = TileClassifier(threads=args.threads) if DEFAULT_MODEL.is_file() else None
    except Exception:
        classifier = None
    name = "onnx" if classifier is not None else "art"
    classifier = classifier or ArtClassifier()
    frames, _ = hand_video(px_per_mm=ppm)
    tracker = TableTracker(default_zones(), classifier, ppm)
    per_frame = []
    for frame, t_ns in frames:
        t = time.perf_counter()
        tracker.update(frame, t_ns)
        per_frame.append((time.perf_counter() - t) * 1000)

    result = {
        "threads": args.threads, "px_per_mm": ppm, "image": list(image.shape[:2]),
        "tiles_found": len(finding.tiles),
        "finder_ms_median": round(statistics.median(times), 2),
        "finder_ms_max": round(max(times), 2),
        "tracker_classifier": name,
        "tracker_ms_median": round(statistics.median(per_frame), 2),
        "tracker_ms_p95": round(sorted(per_frame)[int(0.95 * (len(per_frame) - 1))], 2),
        "tracker_frames": len(per_frame),
    }
    for k, v in result.items():
        print(f"{k}: {v}")
    write_results("vision_frame", result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
