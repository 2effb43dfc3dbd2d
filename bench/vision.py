"""Tile classifier figures: accuracy, speed of a full-table frame, model size, memory.

    python bench/vision.py [--model vision/models/tiles.onnx] [--per-label 40] [--seed 2024]
                           [--misread DIR]

Prints the figures and writes them to bench/results/vision.json:
- top-1 accuracy on a held-out rendered set (another seed than training, other table colours
  and wood), overall and per label where it errs;
- top-1 accuracy on the real photographed crops of Camerash/mahjong-dataset (Hong Kong style
  tiles: blue winds, framed white dragon, other drawings, so lower than on rendered crops);
- time to classify the ~90 tile crops of one full-table frame with 1 and 2 threads;
- model size on disk and the resident memory the classifier adds;
- the PyPI package ``mahjong-detector`` on the same crops, where it is installed
  (``pip install mahjong-detector``; not a dependency of the project).
"""
from __future__ import annotations

import argparse
import csv
import importlib.metadata
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# through the package, not bench/ on sys.path: the tests import this file as bench.vision
from bench._results import write_results  # noqa: E402
from referee.paths import shared_data_dir  # noqa: E402
from referee.tiles import TILE_CODES, base  # noqa: E402
from vision.classifier import DEFAULT_MODEL, TileClassifier  # noqa: E402

#: Camerash label names -> mpsz; flowers and seasons are not riichi tiles and are left out.
CAMERASH_SUITS = {"characters": "m", "dots": "p", "bamboo": "s"}
CAMERASH_HONORS = {"east": "1z", "south": "2z", "west": "3z", "north": "4z",
                   "white": "5z", "green": "6z", "red": "7z"}
FRAME_TILES = 90


def camerash_code(label_name: str) -> str | None:
    """``dots-3`` -> ``3p``, ``honors-red`` -> ``7z``; None for flowers and seasons."""
    group, _, name = label_name.partition("-")
    if group in CAMERASH_SUITS:
        return f"{int(name)}{CAMERASH_SUITS[group]}"
    if group == "honors":
        return CAMERASH_HONORS.get(name)
    return None


def camerash_crops(data: Path) -> tuple[list[np.ndarray], list[str]]:
    base = data / "photos" / "camerash"
    crops, codes = [], []
    with open(base / "tiles-data" / "data.csv", newline="") as f:
        for row in csv.DictReader(f):
            code = camerash_code(row["label-name"])
            if code is None:
                continue
            im = cv2.imread(str(base / "tiles-resized" / row["image-name"]))
            if im is None:
                raise SystemExit(f"cannot read {base / 'tiles-resized' / row['image-name']}")
            crops.append(im)
            codes.append(code)
    return crops, codes


def save_misreads(crops: list[np.ndarray], truth: list[str], predicted: list[str],
                  folder: Path, scale: int = 4) -> list[Path]:
    """Write each misread crop, enlarged ``scale`` times, as ``INDEX-TRUTH-as-PREDICTED.png``
    in ``folder``, so anyone can look at what the figure counts as wrong; the index is the
    crop's place in the held-out set, the same for every model."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SystemExit(f"cannot write misread crops to {folder}: {exc.strerror}")
    written = []
    for i, (crop, t, p) in enumerate(zip(crops, truth, predicted)):
        if t != p:
            path = folder / f"{i:04d}-{t}-as-{p}.png"
            big = cv2.resize(crop, (crop.shape[1] * scale, crop.shape[0] * scale),
                             interpolation=cv2.INTER_NEAREST)
            if not cv2.imwrite(str(path), big):
                raise SystemExit(f"cannot write {path}")
            written.append(path)
    return written


def rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def frame_ms(model: Path, crops: list[np.ndarray], threads: int, repeats: int = 30) -> float:
    clf = TileClassifier(model, threads=threads)
    for _ in range(3):
        clf.classify(crops)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        clf.classify(crops)
        times.append(time.perf_counter() - t0)
    return 1000 * statistics.median(times)


def top1(predicted: list[str], truth: list[str]) -> float:
    return sum(p == t for p, t in zip(predicted, truth)) / max(1, len(truth))


def mahjong_detector_version() -> str | None:
    try:
        return importlib.metadata.version("mahjong-detector")
    except importlib.metadata.PackageNotFoundError:
        return None


#: mahjong-detector's class names -> mpsz (its suited names already are mpsz; no red fives).
DETECTOR_HONOURS = {"tou": "1z", "nan": "2z", "sha": "3z", "pe": "4z", "haku": "5z",
                    "hatsu": "6z", "chun": "7z"}


def detector_reads(crops: list[np.ndarray], per_image: int = 13) -> tuple[list[str], float]:
    """mahjong-detector's reading of each crop, and its time per ~90-tile frame in ms.

    It is a whole-image detector trained on game screenshots of a hand, so the crops are laid
    out as such a screenshot: rows of ``per_image`` upright tiles (the size our classifier
    sees) on a plain background, one detection call per row; a detection is matched to the
    tile slot under its centre. A slot with no detection reads ``none``.
    """
    from PIL import Image
    from mahjong_detector.predict import CLASS_NAMES, predict
    from mahjong_detector.preprocess import preprocess_image

    from vision.classifier import INPUT_HEIGHT as H, INPUT_WIDTH as W, prepare

    gap = 4
    reads: list[tuple[str, float]] = [("none", 0.0)] * len(crops)
    t_total, calls = 0.0, 0
    for start in range(0, len(crops), per_image):
        chunk = range(start, min(start + per_image, len(crops)))
        canvas = np.full((H + 2 * gap, len(chunk) * (W + gap) + gap, 3), 40, np.uint8)
        for k, i in enumerate(chunk):
            x = gap + k * (W + gap)
            canvas[gap:gap + H, x:x + W] = prepare(crops[i])
        t0 = time.perf_counter()
        image, padding = preprocess_image(Image.fromarray(cv2.cvtColor(canvas, cv2.COLOR_BGR2RGB)))
        found = predict(image, padding)
        t_total += time.perf_counter() - t0
        calls += 1
        for d in found:
            k = int(((d.x1 + d.x2) / 2 - gap) // (W + gap))
            if 0 <= k < len(chunk) and d.confidence > reads[start + k][1]:
                name = CLASS_NAMES[d.class_id]
                reads[start + k] = (DETECTOR_HONOURS.get(name, name), float(d.confidence))
    per_frame_ms = 1000 * t_total / calls * np.ceil(FRAME_TILES / per_image)
    return [r for r, _ in reads], float(per_frame_ms)


def same_kind(predicted: list[str], truth: list[str]) -> float:
    """Top-1 counting a red five read as its plain five as right (the detector has no red)."""
    ok = sum(p in TILE_CODES and base(p) == base(t) for p, t in zip(predicted, truth))
    return ok / max(1, len(truth))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    p.add_argument("--per-label", type=int, default=40, help="held-out rendered crops per label")
    p.add_argument("--seed", type=int, default=2024, help="seed of the held-out set (training uses 0)")
    p.add_argument("--out", type=Path, default=None,
                   help="JSON file to write (default bench/results/vision.json)")
    p.add_argument("--misread", type=Path, default=None,
                   help="folder to write the misread held-out crops to, enlarged, as PNG")
    args = p.parse_args(argv)

    results: dict = {"model": str(args.model)}
    # Memory first, before the rendering below grows the process.
    rss0 = rss_kb()
    clf = TileClassifier(args.model, threads=1)
    blank = [np.full((64, 48, 3), 200, np.uint8)] * FRAME_TILES
    clf.classify(blank)
    results["memory_classifier_mb"] = round((rss_kb() - rss0) / 1024, 1)
    results["model_size_mb"] = round(args.model.stat().st_size / 1e6, 3)

    data = shared_data_dir()
    if data is None:
        print("shared data not found: only speed is measured, on synthetic crops")
        rng = np.random.default_rng(args.seed)
        frame = [rng.integers(0, 255, (int(rng.integers(30, 70)), 40, 3), dtype=np.uint8)
                 for _ in range(FRAME_TILES)]
    else:
        from vision.render import LABELS, TileArt, render_crop, render_set

        art = TileArt()
        t0 = time.monotonic()
        crops, truth = render_set(art, args.per_label, args.seed, backgrounds="holdout")
        render_s = time.monotonic() - t0
        pred = [lab for lab, _ in clf.classify(crops)]
        results["rendered_holdout_n"] = len(truth)
        results["rendered_holdout_top1"] = round(top1(pred, truth), 4)
        errors = Counter((t, p) for t, p in zip(truth, pred) if t != p)
        results["rendered_holdout_confusions"] = {f"{t}->{p}": n for (t, p), n in errors.most_common(12)}
        results["rendered_holdout_misread"] = [i for i, (t, p) in enumerate(zip(truth, pred)) if t != p]
        print(f"rendered held-out ({len(truth)} crops, seed {args.seed}, other tables; "
              f"rendered in {render_s:.0f} s): top-1 {results['rendered_holdout_top1']:.4f}")
        if errors:
            print("  most common confusions (truth->predicted): "
                  + ", ".join(f"{k} x{v}" for k, v in results["rendered_holdout_confusions"].items()))
            print(f"  misread crops (index in the set): {results['rendered_holdout_misread']}")
        if args.misread is not None:
            saved = save_misreads(crops, truth, pred, args.misread)
            print(f"  wrote {len(saved)} misread crops to {args.misread}")

        real, real_truth = camerash_crops(data)
        real_pred = [lab for lab, _ in clf.classify(real)]
        results["camerash_n"] = len(real_truth)
        results["camerash_top1"] = round(top1(real_pred, real_truth), 4)
        # A plain five read as its red five is still the right kind for most rulings.
        results["camerash_top1_kind"] = round(same_kind(real_pred, real_truth), 4)
        per_group = {}
        for g, codes in (("man", "m"), ("pin", "p"), ("sou", "s"), ("honours", "z")):
            idx = [i for i, t in enumerate(real_truth) if t[1] == codes]
            per_group[g] = round(top1([real_pred[i] for i in idx], [real_truth[i] for i in idx]), 3)
        results["camerash_top1_by_suit"] = per_group
        real_errors = Counter((t, p) for t, p in zip(real_truth, real_pred) if t != p)
        results["camerash_confusions"] = {f"{t}->{p}": n for (t, p), n in real_errors.most_common(12)}
        print(f"real photos, Camerash Hong Kong style ({len(real_truth)} riichi-kind crops): "
              f"top-1 {results['camerash_top1']:.4f}, same kind {results['camerash_top1_kind']:.4f}, "
              f"by suit {per_group}")
        print("  most common confusions: "
              + ", ".join(f"{k} x{v}" for k, v in results["camerash_confusions"].items()))

        rng = np.random.default_rng(args.seed + 1)
        tile_labels = [LABELS[i] for i in rng.integers(0, 38, FRAME_TILES)]
        frame = [render_crop(art, lab, rng, backgrounds="holdout") for lab in tile_labels]

    for threads in (1, 2):
        ms = frame_ms(args.model, frame, threads)
        results[f"frame_ms_{threads}_thread{'s' if threads > 1 else ''}"] = round(ms, 2)
        print(f"full-table frame ({FRAME_TILES} crops, prepare + inference), {threads} thread"
              f"{'s' if threads > 1 else ''}: {ms:.1f} ms")
    print(f"model size: {results['model_size_mb']:.2f} MB; classifier memory (RSS added by "
          f"loading it and one frame): {results['memory_classifier_mb']:.1f} MB; "
          f"process peak RSS {rss_kb() / 1024:.0f} MB")
    results["process_rss_mb"] = round(rss_kb() / 1024, 1)

    version = mahjong_detector_version()
    if version is None:
        print("mahjong-detector: not installed")
        results["mahjong_detector"] = "not installed"
    elif data is None:
        print(f"mahjong-detector {version}: installed, not measured (no shared data)")
        results["mahjong_detector"] = f"installed {version}, not measured (no shared data)"
    else:
        # Same crops: the held-out rendered tiles (it has no face-down or not-a-tile class, so
        # those are left out for both) and the real photos; red fives count as fives for both.
        tiles = [i for i, t in enumerate(truth) if t in TILE_CODES]
        ours_tiles = same_kind([pred[i] for i in tiles], [truth[i] for i in tiles])
        det_tiles, det_ms = detector_reads([crops[i] for i in tiles])
        det_real, _ = detector_reads(real)
        det = {"version": version,
               "rendered_holdout_tiles_n": len(tiles),
               "rendered_holdout_same_kind": round(same_kind(det_tiles, [truth[i] for i in tiles]), 4),
               "ours_rendered_holdout_same_kind": round(ours_tiles, 4),
               "camerash_same_kind": round(same_kind(det_real, real_truth), 4),
               "ours_camerash_same_kind": results["camerash_top1_kind"],
               "frame_ms": round(det_ms, 1)}
        results["mahjong_detector"] = det
        print(f"mahjong-detector {version} on the same crops (laid out in rows like the "
              f"screenshots it was trained on; red fives count as fives):")
        print(f"  rendered held-out tiles ({len(tiles)}): detector {det['rendered_holdout_same_kind']:.4f}, "
              f"ours {det['ours_rendered_holdout_same_kind']:.4f}")
        print(f"  real photos ({len(real_truth)}): detector {det['camerash_same_kind']:.4f}, "
              f"ours {det['ours_camerash_same_kind']:.4f}")
        print(f"  one {FRAME_TILES}-tile frame: detector {det['frame_ms']:.0f} ms (onnxruntime's "
              f"default threads), ours {results['frame_ms_2_threads']:.1f} ms with 2 threads")

    write_results("vision", results, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
