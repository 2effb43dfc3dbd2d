"""Milliseconds per crop of tile readers, eight-bit, on 1 and 2 threads: what a bigger reader
costs the table, which reads the zones that changed in a frame.

    python bench/reader_speed.py [MODEL.onnx ...]   (default: the shipped vision/models/tiles-int8.onnx)

For each model: one crop alone (a single discard) and a run of 16 (a busy frame), each timed
``--rounds`` times over ``--repeats`` runs; the figure is the fastest round's mean, since on a
shared machine the others only add its load. Prints and writes ``bench/results/reader_speed.json``.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._results import write_results  # noqa: E402
from vision.reading.classifier import DEFAULT_MODEL, TileClassifier  # noqa: E402


def ms_per_crop(clf: TileClassifier, n: int, rounds: int, repeats: int) -> float:
    crops = [np.random.default_rng(i).integers(0, 255, (64, 48, 3), dtype=np.uint8)
             for i in range(n)]
    clf.outputs(crops)   # the first run sets up the session's buffers
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(repeats):
            clf.outputs(crops)
        best = min(best, (time.perf_counter() - t0) / repeats / n * 1000)
    return round(best, 3)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("models", nargs="*", type=Path, default=[DEFAULT_MODEL])
    p.add_argument("--rounds", type=int, default=9)
    p.add_argument("--repeats", type=int, default=40)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    results = {}
    for model in args.models:
        if not model.is_file():
            raise SystemExit(f"bench/reader_speed.py: {model}: no such file")
        row = {"size_mb": round(model.stat().st_size / 1e6, 3)}
        for threads in (1, 2):
            clf = TileClassifier(model, threads=threads, half_turn_below=0)
            for n in (1, 16):
                row[f"ms_per_crop_{threads}t_batch{n}"] = ms_per_crop(clf, n, args.rounds, args.repeats)
        results[str(model)] = row
        print(f"{model}: " + ", ".join(f"{k} {v}" for k, v in row.items()), flush=True)
    write_results("reader_speed", results, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
