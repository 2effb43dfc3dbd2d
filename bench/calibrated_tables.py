"""Both finders on the calibrated top-down view of rendered tables of solid tiles.

    python bench/calibrated_tables.py [--scenes 60] [--seed 7] [--px-per-mm S]
                                      [--out bench/results/calibrated_tables.json]

The table camera reads a top-down view of the table (``Calibration.warp``), and there
the felt-colour finder is the default (``[camera] finder``). Every other figure that compares
the two finders on that path is measured on the simulated camera's table (``vision.synthesis.synthetic``:
flat art pasted on green felt), which is what the felt finder was made for. This bench looks at
tables as a camera over a real one sees them: the held-out scenes of ``vision.synthesis.scene`` (tiles with
thickness and a coloured back, walls, melds, hands standing, sticks, arms over the table, table
tops of other colours than training, some with an automatic table's centre panel, uneven light,
shadow, glare, a real camera's blur and noise), seen by a camera from 60 to 90 degrees above the
table that holds the whole table in a 1280x960 frame, then warped onto the table's plane at the
scale calibration chooses for that camera (:func:`vision.camera.calibration.view_scale`: the
camera's own, 1.23 to 2 px per mm; for such a frame, 1.23), or at ``--px-per-mm``.

Counted, as a referee reads a table: the face-up tiles lying in sight (ponds, melds, dora
indicators, an open hand). A box on a face-down tile, a standing hand tile or a tile mostly out
of sight is neither right nor false; a box on nothing is false. Per finder, with the shipped
classifier naming each box: ``face_up_box_recall``, ``box_precision`` and ``end_to_end`` (face-up
tiles found and named right), in all and per table top (``by_top``: plain felt or a centre panel);
``px_per_mm``: the views' mean scale.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._results import write_results  # noqa: E402
from testkit.tables import scenes  # noqa: E402


def readers(classifier):
    """The two finders of the calibrated path, each then the classifier: (view, its px per mm)
    -> [(quad, code)]."""
    from vision.finding.learned import find_tiles_topdown, shared_finder

    finder = shared_finder()

    def read(found):
        tiles = found.tiles
        names = classifier.classify([t.crop for t in tiles]) if tiles else []
        return [(t.quad, lab) for t, (lab, _) in zip(tiles, names) if lab != "none"]

    return {
        "learned": lambda v, s: read(find_tiles_topdown(v, s, finder, classifier.input_width)),
        "felt": lambda v, s: read(find_tiles_topdown(v, s)),
    }


def figures(c: Counter) -> dict:
    return {"face_up_tiles": c["tiles"],
            "face_up_box_recall": round(c["tp"] / max(1, c["tiles"]), 4),
            "box_precision": round(c["tp"] / max(1, c["tp"] + c["fp"]), 4),
            "end_to_end": round(c["named"] / max(1, c["tiles"]), 4),
            "seconds_per_view": round(c["seconds"] / max(1, c["views"]), 3)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--scenes", type=int, default=60, help="rendered tables (default 60)")
    p.add_argument("--seed", type=int, default=7, help="the scenes' seed (default 7)")
    p.add_argument("--draw", type=Path, default=None,
                   help="write each view with what each finder found (green: found, red: missed)")
    p.add_argument("--px-per-mm", type=float, default=None,
                   help="the views' scale (default: as calibration chooses for each camera)")
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    from vision.finding.learned import match_boxes
    from vision.reading.classifier import TileClassifier

    classifier = TileClassifier()
    reads = readers(classifier)
    counts = {name: {"felt": Counter(), "panel": Counter()} for name in reads}
    if args.draw:
        args.draw.mkdir(parents=True, exist_ok=True)
    scales = []
    for i, (view, truth, codes, ignore, top, ppm) in enumerate(scenes(args.scenes, args.seed,
                                                                     args.px_per_mm)):
        scales.append(ppm)
        for name, read in reads.items():
            t0 = time.perf_counter()
            found = read(view, ppm)
            c = counts[name][top]
            c["seconds"] += time.perf_counter() - t0
            c["views"] += 1
            m = match_boxes([q for q, _ in found], truth, ignore)
            got = {j: k for k, j in m["pairs"]}
            c.update(tp=m["tp"], fp=m["fp"], tiles=len(truth),
                     named=sum(1 for j, code in enumerate(codes) if j in got and found[got[j]][1] == code))
            if args.draw:
                out = view.copy()
                for j, q in enumerate(truth):
                    colour = (0, 200, 0) if j in got else (0, 0, 255)
                    cv2.polylines(out, [q.astype(np.int32)], True, colour, 2)
                paired = {k for k, _ in m["pairs"]}
                for k, (q, _) in enumerate(found):
                    if k not in paired:   # false, or on a face-down or standing tile
                        cv2.polylines(out, [np.asarray(q, np.int32)], True, (255, 0, 255), 2)
                cv2.imwrite(str(args.draw / f"{i:03d}-{name}.jpg"), out)
        print(f"  table {i + 1}/{args.scenes} ({top}): " + "  ".join(
            f"{name} {figures(sum(per.values(), Counter()))['face_up_box_recall']:.3f}"
            for name, per in counts.items()), flush=True)
    result = {"scenes": args.scenes, "seed": args.seed,
              "px_per_mm": round(float(np.mean(scales)), 3) if scales else None}
    for name, per in counts.items():
        result[name] = {**figures(sum(per.values(), Counter())),
                        "by_top": {top: figures(c) for top, c in per.items()}}
        r = result[name]
        print(f"{name:>8}: face-up tiles found {r['face_up_box_recall']:.4f}  precision "
              f"{r['box_precision']:.4f}  found and named {r['end_to_end']:.4f}  "
              f"({r['face_up_tiles']} tiles, {r['seconds_per_view']} s a view)")
    write_results("calibrated_tables", result, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
