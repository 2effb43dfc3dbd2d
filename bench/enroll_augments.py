"""How many augmented copies of each enrolled crop enrolling needs
(:data:`vision.reading.adapt.AUGMENTS`): the figures behind its value.

    python bench/enroll_augments.py [--augments 24,16,12] [--seeds 0,1,2,3,4,5] [--photos 20]
                                    [--enroll-bench "--sets camerash"]
                                    [--out bench/results/enroll_augments.json]

For each number of copies N and augmentation seed S (the seed the copies are drawn from; the
product's is 0), the test suite's other-inks set (``tests/test_enroll.py``: the Regular art
with red and blue swapped, which the shipped model misreads a third of) is enrolled from its
seed-11 sheet photo, as ``riichi-referee enroll`` fits it (the table's model and the shipped
second model), and ``--photos`` other photos of it (seeds 100 on, 38 tiles each) are read: by
the enrolled table model alone (``misread_one_model``) and by the pair, as the table reads an
enrolled set (``misread``, of them ``misread_sure`` at or above the table's confidence
threshold; ``least_sure_right``: the lowest confidence of a right reading).
``fit_cpu_seconds``: the fit of both models, CPU time on one thread.

Where the measures of ``bench/enroll.py`` do not move with N (camerash's real sets are read
all right after enrolling, and its Black figures need a model trained without Black,
``runs/tiles-no-black.onnx``), this set still does: which copies a set is learnt from changes
which of its tiles the table's model alone reads wrong, from seed to seed.
``--enroll-bench ARGS`` also runs ``bench/enroll.py ARGS`` for every N and S (its JSON under
``bench/results/enroll-N-S.json``) and keeps its ``after`` figures.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import shlex
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))   # the other-inks set is the tests'

from bench._results import RESULTS, write_results  # noqa: E402
from referee.checks import DEFAULT_CONFIDENCE_THRESHOLD  # noqa: E402
from vision.reading import adapt, tileset  # noqa: E402


@contextlib.contextmanager
def copies(n: int, seed: int):
    """Every fit inside draws ``n`` copies of each crop from augmentation seed ``seed``."""
    made = adapt.augmented_set

    def augmented_set(crops, labels, rng, _n=None):
        return made(crops, labels, np.random.default_rng(seed), n)

    adapt.augmented_set = tileset.augmented_set = augmented_set
    try:
        yield
    finally:
        adapt.augmented_set = tileset.augmented_set = made


def other_inks(n_values, seeds, photos: int) -> dict:
    from test_enroll import other_inks_photo

    from vision.enrollment.sheet import PLACE_CODES, read_sheet
    from vision.reading.classifier import TileClassifier
    from vision.reading.second_opinion import SECOND_MODEL, SecondOpinion
    from vision.reading.tileset import EnrolledClassifier, TileSet

    first, second = TileClassifier(threads=1), TileClassifier(SECOND_MODEL, threads=1)
    enrol = [r.crop for r in read_sheet(other_inks_photo(11))]
    crops, truth = [], []
    for s in range(100, 100 + photos):
        crops += [r.crop for r in read_sheet(other_inks_photo(s))]
        truth += list(PLACE_CODES)
    alone = sum(label == k for (label, _), k in zip(first.classify(crops), truth))
    out: dict = {"measured": len(truth), "model_alone_right": alone, "copies": {}}
    print(f"other inks: {len(truth)} tiles read, the model alone reads {alone} right")
    for n in n_values:
        rows = []
        for seed in seeds:
            with copies(n, seed):
                t = time.process_time()
                ts = TileSet.fit(first, enrol, list(PLACE_CODES), second=second)
                fit = time.process_time() - t
            one = EnrolledClassifier(first, ts)
            pair = SecondOpinion(one, EnrolledClassifier(second, ts, second=True))
            by_one = [label for label, _ in one.classify(crops)]
            p = pair.probabilities(crops)
            got, sure = [first.labels[i] for i in p.argmax(axis=1)], p.max(axis=1)
            wrong = [(k, g, c) for g, k, c in zip(got, truth, sure) if g != k]
            row = {"seed": seed, "fit_cpu_seconds": round(fit, 2),
                   "misread_one_model": sum(g != k for g, k in zip(by_one, truth)),
                   "misread": len(wrong),
                   "misread_sure": sum(bool(c >= DEFAULT_CONFIDENCE_THRESHOLD)
                                       for _, _, c in wrong),
                   "misread_as": sorted(f"{k}->{g}" for k, g, _ in wrong),
                   "least_sure_right": round(float(min(c for g, k, c in zip(got, truth, sure)
                                                       if g == k)), 3)}
            rows.append(row)
            print(f"  {n} copies, seed {seed}: misread {row['misread']} (sure "
                  f"{row['misread_sure']}), by the table's model alone "
                  f"{row['misread_one_model']}; least sure right {row['least_sure_right']}; "
                  f"fit {row['fit_cpu_seconds']} s CPU", flush=True)
        out["copies"][str(n)] = {
            "seeds": rows, **{key: sum(r[key] for r in rows) for key in
                              ("misread", "misread_sure", "misread_one_model")},
            "fit_cpu_seconds": round(float(np.median([r["fit_cpu_seconds"] for r in rows])), 2)}
    return out


def enroll_bench(args: str, n_values, seeds) -> dict:
    """``bench/enroll.py args`` for every N and seed: its ``after`` figures."""
    from bench import enroll

    out: dict = {}
    for n in n_values:
        for seed in seeds:
            path = RESULTS / f"enroll-{n}-{seed}.json"
            with copies(n, seed):
                enroll.main([*shlex.split(args), "--out", str(path)])
            found = json.loads(path.read_text())
            out[f"{n}-{seed}"] = {
                name: {k: r[k] for k in ("after", "after_one_model", "misread_sure_after",
                                          "after_a4", "after_one_photo", "enroll_cpu_seconds")
                       if k in r}
                for name, r in found.items() if isinstance(r, dict)}
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--augments", default="24,16,12", help="numbers of copies to compare")
    p.add_argument("--seeds", default="0,1,2,3,4,5", help="augmentation seeds")
    p.add_argument("--photos", type=int, default=20, help="other-inks photos read (38 tiles each)")
    p.add_argument("--enroll-bench", default="", metavar="ARGS",
                   help="also run bench/enroll.py ARGS for every N and seed")
    p.add_argument("--out", type=Path, default=None, help="the JSON to write")
    args = p.parse_args(argv)
    n_values = [int(v) for v in args.augments.split(",")]
    seeds = [int(v) for v in args.seeds.split(",")]
    result = {"product_copies": adapt.AUGMENTS,
              "other_inks": other_inks(n_values, seeds, args.photos)}
    if args.enroll_bench:
        result["enroll_bench"] = enroll_bench(args.enroll_bench, n_values, seeds)
    for n, r in result["other_inks"]["copies"].items():
        print(f"{n} copies over {len(seeds)} seeds: misread {r['misread']} (sure "
              f"{r['misread_sure']}), by the table's model alone {r['misread_one_model']}; "
              f"fit {r['fit_cpu_seconds']} s CPU (median)")
    write_results("enroll_augments", result, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
