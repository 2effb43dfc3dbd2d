"""Tile finder and classifier figures: real photographs, rendered held-out sets, speed, size.

    python bench/vision.py [--misses DIR] [--misread DIR] [--scenes 150] [--per-label 40]

Prints the figures and writes them to bench/results/vision.json:
- the labelled real photographs (bench/labels/camerash-raw.json over the shared Camerash raw
  photos): box recall and precision at IoU 0.5 (``real_box_recall``, ``real_box_precision``)
  and tiles of a riichi kind found and named right (``real_end_to_end``; a picture's tiles
  read as tiles of one set, no kind more than four times, as ``detect`` reads them), per photo
  too, with the commonest misreads (``real_misreads``), the same with each tile read alone
  (``real_end_to_end_tile_by_tile``, ``real_misreads_tile_by_tile``); the sure readings
  (confidence as ``detect`` gives it, not marked unsure) that are wrong, a riichi tile misread
  or a tile reported where there is none (``real_misread_sure``, ``real_misread_sure_tile_by_tile``),
  and the share of the right readings that are sure (``real_sure_share``,
  ``real_sure_share_tile_by_tile``); the same photos at half their light, as a dim hall
  takes them, under warm lamps and shaken, smeared by a phone moved as it took them
  (``real_half_light_*``, ``real_warm_light_*``, ``real_shaken_*``: ``end_to_end``,
  ``box_recall``, ``misread_sure``, ``sure_share``); the classifier's own
  share handed each tile's labelled quad (``real_named_true_quads``: what end to end could
  reach with perfect boxes); the
  same for the old felt-colour finder (``felt_*``) and, side by side in the same run, for the
  PyPI package ``mahjong-detector`` (installed into ``runs/bench-site`` when absent; not a
  dependency of the project; it knows no red fives, so a red five read as a five counts);
- rendered held-out scenes (other seeds and table colours than training), each kind of scene
  in turn, read as photos, tile by tile (their kinds are drawn at random, not from one set):
  the finder's box recall and precision and end to end, overall and by kind, and the box
  recall of face-up tiles alone (``face_up_box_recall``), beside the felt-colour finder's
  (``felt_rendered``); the classifier's top-1 on held-out crops and on the real Camerash crops;
- one 1280x960 camera frame of a full table, warped top-down, finder plus classifier, with 1
  and 2 threads (``frame_ms_1t``, ``frame_ms_2t``; the table camera's default), and the
  same with the felt-colour finder (``frame_felt_ms_1t``, ``frame_felt_ms_2t``; ``[camera]
  finder = "felt"``); the same table read the table service's way, every zone cut from the
  camera frame and searched alone, then read (``frame_zones_ms_1t``, ``_2t``; the service
  never reads all zones at once); and the frame a discard lands in on a table already known,
  as the table service reads it, the changed pond alone (``frame_changed_pond_ms_1t``, ``_2t``);
- model sizes on disk and the memory the two models add;
- the machine the times were taken on (``machine``: its processor, the cores this process may
  run on, the load average), since a frame's milliseconds mean little without it.

``--frame-only`` measures the frame, sizes and memory alone (what a run without the shared
data measures) and writes them to bench/results/vision-frame.json, for a quiet machine or one
held to two cores (``taskset -c 0,1 python bench/vision.py --frame-only``).

A photo's faces are read as ``detect`` reads them, each in a few looks, averaged
(:mod:`vision.reading.looks`, ``photo_looks``); ``--one-look`` reads each once.
``real_seconds_per_photo`` is what a photo took.

Every figure is read as the table reads a set not enrolled: the shipped model with the
shipped second model that reads the crops it doubts (``tiles-small-print``,
:mod:`vision.reading.second_opinion`); a ``--model`` of one's own, alone, as a table given one
reads. ``--second-model M`` has ``M`` read the doubted crops instead, ``--second-model ''``
none: ``second_model`` says which, ``real_read_by_second_model`` the share of the real
photographs' crops it read and the frame timings' ``read_by_second_model`` that of the
frame's; the frame is then timed with ``--model`` alone right after too
(``frame_parts_1t_one_model``, ``frame_parts_2t_one_model``). ``--also M ...`` has the doubted
crops read by the ``M`` models too, the second opinion the mean of their readings and the second
model's (``second_model`` lists them all): what a third reader adds.

``--misses DIR`` draws each photo with what was found, misread, missed and falsely reported.
``--real-only --mean M ...`` reads the photos with the average of ``--model``'s and the ``M``
models' probabilities (``mean_models``), every crop read by each: what averaging readers gains.
"""
from __future__ import annotations

import argparse
import importlib.metadata
import os
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._results import write_results  # noqa: E402
from referee.tiles import TILE_CODES, base  # noqa: E402
from table.paths import shared_data_dir
from testkit.camerash import camerash_crops
from testkit.misreads import save_misreads
from testkit.photos import reader as ours
from testkit.tables import full_table_frame
from vision.reading.classifier import DEFAULT_MODEL, TileClassifier

FRAME_TILES = 90


def rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def machine() -> dict:
    """What the times were taken on: the processor's name, the cores this process may use
    (``taskset`` narrows them) and the load average over the last minute."""
    cpu = "?"
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                   if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {"cpu": cpu, "cores_usable": len(os.sched_getaffinity(0)),
            "load_average_1m": round(os.getloadavg()[0], 2)}


def top1(predicted: list[str], truth: list[str]) -> float:
    return sum(p == t for p, t in zip(predicted, truth)) / max(1, len(truth))


def same_kind(predicted: list[str], truth: list[str]) -> float:
    """Top-1 counting a red five read as its plain five as right."""
    ok = sum(p in TILE_CODES and base(p) == base(t) for p, t in zip(predicted, truth))
    return ok / max(1, len(truth))


# --- readers: picture -> [(quad, code, confidence)] -------------------------------------------------

def felt(classifier, one_set: bool = True):
    """The felt-colour finder this project had before the learned one, then the classifier
    (the crops of a picture read as :func:`ours` reads them)."""
    from testkit.photos import box_quad
    from vision.finding.felt import felt_tiles_photo
    from vision.reading.one_set import read_crops

    def read(image):
        tiles = felt_tiles_photo(image).tiles
        names = read_crops(classifier, [t.crop for t in tiles], one_set)
        return [(box_quad(t.box), lab, conf) for t, (lab, conf) in zip(tiles, names) if lab != "none"]
    return read


#: mahjong-detector's class names -> mpsz (its suited names already are mpsz; no red fives).
DETECTOR_HONOURS = {"tou": "1z", "nan": "2z", "sha": "3z", "pe": "4z", "haku": "5z",
                    "hatsu": "6z", "chun": "7z"}
BENCH_SITE = ROOT / "runs" / "bench-site"


def mahjong_detector():
    """The ``mahjong-detector`` package, installed into ``runs/bench-site`` when absent (the
    bench's own folder, not the project's environment); None when it cannot be had."""
    if BENCH_SITE.is_dir() and str(BENCH_SITE) not in sys.path:
        sys.path.append(str(BENCH_SITE))
    try:
        import mahjong_detector.predict  # noqa: F401
        return importlib.import_module("mahjong_detector")
    except ImportError:
        pass
    print("installing mahjong-detector into runs/bench-site for the comparison...")
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target",
           str(BENCH_SITE), "mahjong-detector", "pillow"]
    if subprocess.run(cmd, capture_output=True).returncode != 0:
        return None
    sys.path.append(str(BENCH_SITE))
    importlib.invalidate_caches()
    try:
        return importlib.import_module("mahjong_detector")
    except ImportError:
        return None


def detector():
    """mahjong-detector's reader: one call on the whole picture, upright boxes."""
    from mahjong_detector.predict import CLASS_NAMES, predict
    from mahjong_detector.preprocess import preprocess_image
    from PIL import Image

    from testkit.photos import box_quad

    def read(image):
        pil, padding = preprocess_image(Image.fromarray(cv2.cvtColor(image, cv2.COLOR_BGR2RGB)))
        return [(box_quad((d.x1, d.y1, d.x2, d.y2)),
                 DETECTOR_HONOURS.get(CLASS_NAMES[d.class_id], CLASS_NAMES[d.class_id]),
                 float(d.confidence)) for d in predict(pil, padding)]
    return read


def score_reader(photos, read, kind_only=False, misses: Path | None = None,
                 label: str = "") -> tuple[dict, dict]:
    from testkit.photos import draw_misses, score_photo, totals

    scores, t0 = {}, time.perf_counter()
    for photo in photos:
        scores[photo.name] = score_photo(photo, read(photo.image()), kind_only)
        if misses is not None:
            draw_misses(photo, scores[photo.name], misses)
    total = totals(scores)
    confusions = Counter(c for sc in scores.values() for c in sc["confusions"])
    total["misreads"] = dict(confusions.most_common(12))
    total["seconds_per_photo"] = round((time.perf_counter() - t0) / max(1, len(photos)), 3)
    per_photo = {name: {k: sc[k] for k in ("tp", "fp", "fn", "riichi", "named")} for name, sc in scores.items()}
    print(f"  {label:<22} box recall {total['box_recall']:.4f}  precision {total['box_precision']:.4f}  "
          f"end to end {total['end_to_end']:.4f}  ({total['found']}/{total['tiles']} found, "
          f"{total['false']} false, {total['named']}/{total['riichi_tiles']} named; sure: "
          f"{total['misread_sure']} wrong, {total['sure_share']:.4f} of the right)")
    return total, per_photo


#: The labelled photos in other light: each channel (B, G, R) scaled.
LIGHTS = {"half_light": (0.5, 0.5, 0.5),        # a dim hall, a phone that underexposes
          "warm_light": (0.65, 0.9, 1.1)}       # a hall's warm lamps, left by the white balance


class InLight:
    """A labelled photo as a camera would take it in other light (``gains``, B, G, R)."""

    def __init__(self, photo, gains):
        self.photo, self.gains = photo, np.float32(gains)

    def __getattr__(self, name):
        return getattr(self.photo, name)

    def image(self) -> np.ndarray:
        return np.clip(self.photo.image() * self.gains, 0, 255).astype(np.uint8)


#: How far a shaken phone smears a labelled photo, of its longer side (left to right): some 18
#: pixels of these photos, a fifth to a quarter of most of their tiles' widths.
SHAKE = 0.012


class Shaken(InLight):
    """A labelled photo taken with a phone moved while it was exposed: smeared ``share`` of
    its longer side along a line."""

    def __init__(self, photo, share: float = SHAKE):
        self.photo, self.share = photo, share

    def image(self) -> np.ndarray:
        image = self.photo.image()
        n = max(3, int(self.share * max(image.shape[:2])))
        return cv2.filter2D(image, -1, np.full((1, n), 1.0 / n, np.float32))


# --- rendered scenes ---------------------------------------------------------------------------------

def finder_on_scenes(readers: dict, n: int, seed: int) -> dict:
    """Each reader (picture -> [(quad, code, confidence)]) on the same ``n`` rendered held-out
    scenes (other seeds and table colours than training, rendered faces only), the kinds
    taken in turn: box recall, precision and end to end, over all and per kind."""
    from vision.finding.learned import match_boxes
    from vision.synthesis.render import TileArt
    from vision.synthesis.faces import FaceBank
    from vision.synthesis.scene import KINDS, POSITIVE, render_scene

    bank = FaceBank(TileArt())
    rng = np.random.default_rng(seed)
    kinds = list(KINDS)
    counts = {name: {k: Counter() for k in kinds} for name in readers}
    for i in range(n):
        kind = kinds[i % len(kinds)]
        sc = render_scene(bank, rng, (640, 480), kind=kind, tables="holdout")
        pos = [t for t in sc.tiles if t.status == POSITIVE]
        ignore = [t.quad for t in sc.tiles if t.status != POSITIVE]
        riichi = [j for j, t in enumerate(pos) if t.code != "x"]
        for name, read in readers.items():
            reads = read(sc.image)
            m = match_boxes([q for q, _, _ in reads], [t.quad for t in pos], ignore)
            got = dict((j, i) for i, j in m["pairs"])
            up = [j for j, t in enumerate(pos) if t.code not in ("back", "x")]
            counts[name][kind].update(tp=m["tp"], fp=m["fp"], fn=m["fn"], total=len(riichi),
                                      named=sum(1 for j in riichi if j in got and reads[got[j]][1] == pos[j].code),
                                      faces=len(up), faces_found=sum(1 for j in up if j in got))

    def figures(c: Counter) -> dict:
        return {"tiles": c["tp"] + c["fn"], "box_recall": round(c["tp"] / max(1, c["tp"] + c["fn"]), 4),
                "box_precision": round(c["tp"] / max(1, c["tp"] + c["fp"]), 4),
                "end_to_end": round(c["named"] / max(1, c["total"]), 4),
                # the tiles a referee reads: face up (backs of the wall are most of the misses)
                "face_up_box_recall": round(c["faces_found"] / max(1, c["faces"]), 4)}

    out = {}
    for name, per_kind in counts.items():
        out[name] = {"scenes": n, **figures(sum(per_kind.values(), Counter())),
                     "by_kind": {k: figures(c) for k, c in per_kind.items()}}
    return out


#: The second model reading the crops the table's model doubts: one, several whose readings
#: are averaged (``--also``), or None.
Seconds = Path | list[Path] | None


def the_second_model(model: Path, given: str | None) -> Path | None:
    """The second model the figures are read with: ``given`` ('' for none), else the one a
    table with no set enrolled reads beside ``model`` (the shipped second model beside the
    shipped model, none beside a model of one's own)."""
    from vision.reading.second_opinion import shipped_second_model

    if given is not None:
        return Path(given) if given else None
    own = Path(model).resolve() != DEFAULT_MODEL.resolve()
    return None if own else shipped_second_model(enrolled=False)


def table_classifier(model: Path | None, second: Seconds, threads: int):
    """The classifier as the table runs it: ``model``, and ``second`` reading the crops it
    doubts (None: ``model`` alone; several models: the mean of their readings, ``--also``)."""
    from vision.reading.second_opinion import SecondOpinion

    first = TileClassifier(model, threads=threads)
    if second is None:
        return first
    readers = [TileClassifier(m, threads=threads) for m in seconds(second)]
    return SecondOpinion(first, readers[0] if len(readers) == 1 else MeanOf(readers))


def seconds(second: Seconds) -> list[Path]:
    """The second models ``second`` names: one path, or a list of them (``--also``)."""
    return [second] if isinstance(second, Path) else list(second)


class MeanOf:
    """Readers averaged: every crop read by each of ``readers`` (classifiers over the same
    labels), their probabilities averaged. What averaging readers trained apart gains on the
    photos (``--mean``); not what the table runs."""

    def __init__(self, readers):
        self.readers = list(readers)
        first = self.readers[0]
        for other in self.readers[1:]:
            if tuple(other.labels) != tuple(first.labels):
                raise SystemExit(f"bench/vision.py: --mean {other.model_path}: its labels are not "
                                 f"those of {first.model_path}")
        self.labels, self.input_width, self.model_path = first.labels, first.input_width, first.model_path

    def probabilities(self, crops):
        return np.mean([reader.probabilities(crops) for reader in self.readers], axis=0)

    def classify(self, crops):
        from vision.reading.classifier import best

        return best(self.labels, self.probabilities(crops))


def median_parts(parts: dict[str, list[float]]) -> dict:
    """Each step's median ms over its timed repeats (``parts``: seconds by step), and their
    sum as ``total``."""
    med = {k: 1000 * statistics.median(v) for k, v in parts.items()}
    return {"total": round(sum(med.values()), 1), **{k: round(v, 1) for k, v in med.items()}}


def frame_timing(frame, cal, threads: int, repeats: int = 40, learned: bool = True,
                 model: Path | None = None, finder_model: Path | None = None,
                 second: Seconds = None) -> dict:
    """Median ms for one frame: warp to the top-down view, find the tiles, classify those in
    the table's zones (as the tracker does when nothing on the table is known yet).
    ``learned``: with the learned finder (the table camera's default); else with the
    felt-colour finder (vision.finding.learned.find_tiles_topdown without a model)."""
    from vision.camera.zones import default_zones, zone_at
    from vision.finding.learned import TileFinder, find_tiles_topdown

    finder = TileFinder(finder_model, threads=threads) if learned else None
    classifier = table_classifier(model, second, threads)
    zones = default_zones()
    ppm = cal.px_per_mm
    parts = {"warp": [], "finder": [], "classifier": []}
    n = 0
    for k in range(repeats + 2):
        t0 = time.perf_counter()
        top = cal.warp(frame)
        t1 = time.perf_counter()
        finding = find_tiles_topdown(top, ppm, finder, classifier.input_width)
        t2 = time.perf_counter()
        crops = [t.crop for t in finding.tiles if zone_at(zones, t.centre[0] / ppm, t.centre[1] / ppm)]
        classifier.classify(crops)
        t3 = time.perf_counter()
        n = len(crops)
        if k >= 2:
            parts["warp"].append(t1 - t0)
            parts["finder"].append(t2 - t1)
            parts["classifier"].append(t3 - t2)
    out = {**median_parts(parts), "tiles_found": len(finding.tiles), "tiles_classified": n}
    if second is not None:
        out["read_by_second_model"] = classifier.share_read_twice
    return out


def service_path(cal, threads: int, model: Path | None = None, finder_model: Path | None = None,
                 second: Seconds = None):
    """The table service's tracker (``model``, with ``second`` reading what it doubts; the
    learned finder) and its zone finder over ``cal``'s camera frames, as
    :meth:`RecognitionScheduler.for_calibration` makes them."""
    from vision.finding.learned import TileFinder
    from vision.tracking.tracker import TableTracker
    from vision.tracking.zone_finder import ZoneFinder

    tracker = TableTracker(cal.zones, table_classifier(model, second, threads), cal.px_per_mm,
                           finder=TileFinder(finder_model, threads=threads))
    layout = cal.layout
    zones = ZoneFinder.for_tracker(tracker, cal.px_per_mm, (layout.width_mm, layout.height_mm),
                                   to_topdown=cal.topdown_matrix())
    return tracker, zones


def zones_frame_timing(frame, cal, threads: int, repeats: int = 40, model: Path | None = None,
                       finder_model: Path | None = None, second: Seconds = None) -> dict:
    """Median ms for the same full table's frame read the table service's way: every zone
    (ponds, meld areas, hands, dora) cut from the camera frame and searched alone
    (:class:`ZoneFinder`, with the tracker's faint peaks and meld holes), then every tile in
    them read. The service never reads them all at once (a hand's first frame: the ponds
    first, the rest after); this is what it would cost if it did."""
    tracker, zones = service_path(cal, threads, model, finder_model, second)
    classifier = tracker.classifier
    parts = {"finder": [], "classifier": []}
    n = 0
    for k in range(repeats + 2):
        t0 = time.perf_counter()
        finding = zones(frame, cal.zones)
        t1 = time.perf_counter()
        classifier.classify([t.crop for t in finding.tiles])
        t2 = time.perf_counter()
        n = len(finding.tiles)
        if k >= 2:
            parts["finder"].append(t1 - t0)
            parts["classifier"].append(t2 - t1)
    return {**median_parts(parts), "zones": len(cal.zones), "tiles_classified": n}


def changed_pond_timing(cal, threads: int, repeats: int = 10, model: Path | None = None,
                        finder_model: Path | None = None, second: Seconds = None) -> dict:
    """Median ms of the table service's work for the frame in which a discard lands, as
    :class:`vision.tracking.schedule.RecognitionScheduler` does it on a table it already
    knows: the change detector on the whole frame (every frame has that), then the changed
    pond alone warped from the camera frame and searched (:class:`ZoneFinder`), and the
    tracker reading the tiles it does not know (the new discard). Timed over the frames that
    read the discard until it is believed (``stable_frames``), each repeat on a table known
    afresh."""
    from vision.tracking.change import ChangeDetector

    before, _ = full_table_frame()
    after, _ = full_table_frame(discard="7z")
    tracker, zones = service_path(cal, threads, model, finder_model, second)
    pond = next(z for z in cal.zones if z.kind == "pond" and z.seat == 0)
    view = cal.warp(before)
    parts = {"detector": [], "finder": [], "tracker": []}
    reported = 0
    t_ns = 0
    for repeat in range(repeats + 1):
        tracker.new_hand()
        detector = ChangeDetector(cal.zones, cal.homography, cal.image_size)
        for _ in range(tracker.stable_frames):     # the table as it was, known
            t_ns += 33_000_000
            detector.update(before, t_ns)
            tracker.update(view, t_ns)
        times = {k: [] for k in parts}
        for _ in range(tracker.stable_frames):
            t_ns += 33_000_000
            t0 = time.perf_counter()
            detector.update(after, t_ns)
            t1 = time.perf_counter()
            finding = zones(after, [pond])
            t2 = time.perf_counter()
            events = tracker.update(None, t_ns, finding=finding, zones=[pond])
            t3 = time.perf_counter()
            if repeat:
                reported += sum(1 for e in events if e["type"] == "discard" and e["seat"] == 0
                                and e["tile"] == "7z")
            for k, a, b in (("detector", t0, t1), ("finder", t1, t2), ("tracker", t2, t3)):
                times[k].append(b - a)
        if repeat:       # the first repeat warms up
            for k in parts:
                parts[k] += times[k]
    return {**median_parts(parts), "frames": len(parts["tracker"]), "discards_reported": reported,
            "repeats": repeats}


def main(argv=None) -> int:
    from vision.finding.learned import DEFAULT_MODEL as FINDER_MODEL
    from vision.finding.learned import TileFinder

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="the classifier (.onnx)")
    p.add_argument("--finder", type=Path, default=FINDER_MODEL, help="the finder (.onnx)")
    p.add_argument("--labels", type=Path, default=None, help="the photo labels (JSON)")
    p.add_argument("--per-label", type=int, default=40, help="held-out rendered crops per label")
    p.add_argument("--scenes", type=int, default=150, help="held-out rendered scenes for the finder")
    p.add_argument("--seed", type=int, default=2024, help="seed of the held-out sets (training uses 0)")
    p.add_argument("--no-detector", action="store_true", help="leave mahjong-detector out")
    p.add_argument("--out", type=Path, default=None,
                   help="JSON file to write (default bench/results/vision.json)")
    p.add_argument("--misread", type=Path, default=None,
                   help="folder to write the misread held-out crops to, enlarged, as PNG")
    p.add_argument("--second-model", default=None, metavar="MODEL",
                   help="a second model that reads the crops --model doubts ('' for none); "
                        "default: as the table reads a set not enrolled, the shipped second "
                        "model beside the shipped model (vision/models/tiles-small-print-int8"
                        ".onnx), none beside a model of one's own")
    p.add_argument("--also", type=Path, nargs="+", default=None, metavar="MODEL",
                   help="the crops --model doubts read by these models too, beside the second "
                        "model: the mean of their readings and the second model's is the second "
                        "opinion (what a third reader adds)")
    p.add_argument("--one-look", action="store_true",
                   help="read each face of a photo once, not in detect's looks (vision/reading/looks.py)")
    p.add_argument("--mean", type=Path, nargs="+", default=None, metavar="MODEL",
                   help="with --real-only: read the photos with the mean of --model's "
                        "probabilities and these models' (every crop read by each)")
    p.add_argument("--frame-only", action="store_true",
                   help="only the frame's time, sizes and memory (bench/results/vision-frame.json)")
    p.add_argument("--real-only", action="store_true",
                   help="measure the labelled real photographs through the finder and stop "
                        "(a quick look at a change to the finder or the reading; write it with --out)")
    p.add_argument("--misses", type=Path, default=None,
                   help="folder to draw each real photo's found, misread, missed and false tiles in")
    args = p.parse_args(argv)

    second = the_second_model(args.model, args.second_model)
    from vision.reading.looks import LOOKS
    looks = None if args.one_look else LOOKS
    if second is not None and not second.is_file():
        raise SystemExit(f"bench/vision.py: --second-model {second}: no such file")
    if args.also:
        if second is None:
            raise SystemExit("bench/vision.py: --also reads beside a second model, and there "
                             "is none")
        for m in args.also:
            if not m.is_file():
                raise SystemExit(f"bench/vision.py: --also {m}: no such file")
        second = [second, *args.also]
    if args.mean and (not args.real_only or second is not None):
        raise SystemExit("bench/vision.py: --mean reads the photos only, with --model: give "
                         "--real-only, and no --second-model")
    for m in args.mean or ():
        if not m.is_file():
            raise SystemExit(f"bench/vision.py: --mean {m}: no such file")
    results: dict = {"model": str(args.model), "finder_model": str(args.finder),
                     "second_model": (None if second is None else str(second)
                                      if isinstance(second, Path) else [str(m) for m in second]),
                     "photo_looks": [list(look) for look in (looks or [(0.0, 1.0)])]}
    # Memory first, before the rendering below grows the process.
    rss0 = rss_kb()
    clf = table_classifier(args.model, second, 1)
    for reader in (clf, getattr(clf, "second", None)):
        # the second model too: it runs only on doubtful crops, and a blank crop is not one
        if reader is not None:
            reader.classify([np.full((64, 48, 3), 200, np.uint8)] * FRAME_TILES)
    rss1 = rss_kb()
    finder = TileFinder(args.finder, threads=1)
    finder.find(np.full((960, 1280, 3), 90, np.uint8), 0.5)
    results["memory_classifier_mb"] = round((rss1 - rss0) / 1024, 1)
    results["memory_finder_mb"] = round((rss_kb() - rss1) / 1024, 1)
    results["model_size_mb"] = round(args.model.stat().st_size / 1e6, 3)
    if second is not None:
        size = sum(m.stat().st_size for m in seconds(second))
        results["second_model_size_mb"] = round(size / 1e6, 3)
    results["finder_size_mb"] = round(args.finder.stat().st_size / 1e6, 3)
    print(f"models: finder {results['finder_size_mb']:.2f} MB, classifier {results['model_size_mb']:.2f} MB; "
          f"memory added: finder {results['memory_finder_mb']:.1f} MB, classifier "
          f"{results['memory_classifier_mb']:.1f} MB")

    results["machine"] = machine()
    data = None if args.frame_only else shared_data_dir()
    if args.frame_only:
        print("--frame-only: the frame, sizes and memory")
    elif data is None:
        print("shared data not found: only speed and size are measured")
    else:
        from testkit.photos import LABELS, load_photos

        photos = load_photos(data, args.labels or LABELS)
        n_tiles = sum(len(ph.quads) for ph in photos)
        print(f"real photographs ({len(photos)} Camerash raw photos, {n_tiles} labelled tiles):")
        if second is not None:
            clf.read = clf.read_twice = 0
        if args.mean:
            clf = MeanOf([clf] + [TileClassifier(m, threads=1) for m in args.mean])
            results["mean_models"] = [str(m) for m in args.mean]
        real, per_photo = score_reader(photos, ours(finder, clf, looks=looks), misses=args.misses,
                                       label="ours")
        results.update({f"real_{k}": v for k, v in real.items()})
        if second is not None:
            results["real_read_by_second_model"] = clf.share_read_twice
            print(f"  the second model read {clf.read_twice} of the {clf.read} crops the "
                  f"finder cut ({results['real_read_by_second_model']:.1%})")
        results["real_per_photo"] = per_photo
        # the same boxes, each tile read alone: what the classifier gives before the set's
        # four copies are weighed in
        alone, _ = score_reader(photos, ours(finder, clf, one_set=False, looks=looks),
                                   label="ours, tile by tile")
        results["real_end_to_end_tile_by_tile"] = alone["end_to_end"]
        results["real_misreads_tile_by_tile"] = alone["misreads"]
        results["real_misread_sure_tile_by_tile"] = alone["misread_sure"]
        results["real_sure_share_tile_by_tile"] = alone["sure_share"]
        # the same photos in half the light (their ivory faces come out as grey as a dark
        # set's: vision/reading/dark_faces.py) and under warm lamps (vision/finding/colour_cast.py)
        for light, gains in LIGHTS.items():
            lit, _ = score_reader([InLight(ph, gains) for ph in photos],
                                  ours(finder, clf, looks=looks), label=f"ours, {light.replace('_', ' ')}")
            for key in ("end_to_end", "box_recall", "misread_sure", "sure_share"):
                results[f"real_{light}_{key}"] = lit[key]
        # and shaken: a smeared face is where a reader is surest of what it cannot see
        # (vision/reading/one_set.py, TAKEN_FOR_ANOTHER)
        shaken, _ = score_reader([Shaken(ph) for ph in photos], ours(finder, clf, looks=looks),
                                 label="ours, shaken")
        for key in ("end_to_end", "box_recall", "misread_sure", "sure_share"):
            results[f"real_shaken_{key}"] = shaken[key]
        if args.real_only:
            results["process_rss_mb"] = round(rss_kb() / 1024, 1)
            write_results("vision", results, args.out)
            return 0
        # the classifier alone: each labelled tile cut by its true quad
        from testkit.photos import same_tile, tile_crop
        crops, codes = [], []
        for ph in photos:
            image = ph.image()
            for q, c in zip(ph.quads, ph.codes):
                if c != "x":
                    crops.append(tile_crop(image, q))
                    codes.append(c)
        read = [label for label, _ in clf.classify(crops)]
        results["real_named_true_quads"] = round(
            sum(same_tile(r, c) for r, c in zip(read, codes)) / max(1, len(codes)), 4)
        print(f"  the classifier handed each tile's labelled quad: "
              f"{results['real_named_true_quads']:.4f} named right")
        felt_total, _ = score_reader(photos, felt(clf), label="felt-colour finder")
        results.update({f"felt_real_{k}": v for k, v in felt_total.items()})
        if args.no_detector:
            results["mahjong_detector"] = "not measured (--no-detector)"
        elif mahjong_detector() is None:
            print("  mahjong-detector: could not be installed")
            results["mahjong_detector"] = "not installed"
        else:
            try:
                version = importlib.metadata.version("mahjong-detector")
            except importlib.metadata.PackageNotFoundError:
                version = "?"
            det, det_photo = score_reader(photos, detector(), kind_only=True,
                                          label=f"mahjong-detector {version}")
            results["mahjong_detector"] = {"version": version, **{f"real_{k}": v for k, v in det.items()},
                                           "real_per_photo": det_photo}
            ours_kind, _ = score_reader(photos, ours(finder, clf, looks=looks), kind_only=True,
                                          label="ours, same kind")
            results["real_end_to_end_same_kind"] = ours_kind["end_to_end"]

        t0 = time.monotonic()
        on_scenes = finder_on_scenes({"ours": ours(finder, clf, one_set=False, looks=looks),
                                      "felt": felt(clf, one_set=False)}, args.scenes, args.seed)
        scenes = on_scenes["ours"]
        results.update({f"rendered_{k}": v for k, v in scenes.items()})
        results["felt_rendered"] = on_scenes["felt"]
        print(f"rendered held-out scenes ({args.scenes}, {scenes['tiles']} tiles, other tables; "
              f"{time.monotonic() - t0:.0f} s), as photos:")
        for name, sc in on_scenes.items():
            print(f"  {name:5s} box recall {sc['box_recall']:.4f}, precision {sc['box_precision']:.4f}, "
                  f"end to end {sc['end_to_end']:.4f}; recall by kind "
                  + ", ".join(f"{k} {v['box_recall']:.2f}" for k, v in sc["by_kind"].items())
                  + f"; face up {sc['face_up_box_recall']:.4f} ("
                  + ", ".join(f"{k} {v['face_up_box_recall']:.2f}" for k, v in sc["by_kind"].items()) + ")")

        from vision.synthesis.render import TileArt, render_set

        crops, truth = render_set(TileArt(), args.per_label, args.seed, backgrounds="holdout")
        pred = [lab for lab, _ in clf.classify(crops)]
        results["rendered_holdout_n"] = len(truth)
        results["rendered_holdout_top1"] = round(top1(pred, truth), 4)
        errors = Counter((t, q) for t, q in zip(truth, pred) if t != q)
        results["rendered_holdout_confusions"] = {f"{t}->{q}": n for (t, q), n in errors.most_common(12)}
        results["rendered_holdout_misread"] = [i for i, (t, q) in enumerate(zip(truth, pred)) if t != q]
        print(f"classifier, rendered held-out crops ({len(truth)}): top-1 {results['rendered_holdout_top1']:.4f}"
              + (f"; confusions {results['rendered_holdout_confusions']}" if errors else ""))
        if args.misread is not None:
            saved = save_misreads(crops, truth, pred, args.misread)
            print(f"  wrote {len(saved)} misread crops to {args.misread}")
        real_crops, real_truth = camerash_crops(data)
        real_pred = [lab for lab, _ in clf.classify(real_crops)]
        results["camerash_n"] = len(real_truth)
        results["camerash_top1"] = round(top1(real_pred, real_truth), 4)
        results["camerash_top1_kind"] = round(same_kind(real_pred, real_truth), 4)
        per_group = {}
        for g, codes in (("man", "m"), ("pin", "p"), ("sou", "s"), ("honours", "z")):
            idx = [i for i, t in enumerate(real_truth) if t[1] == codes]
            per_group[g] = round(top1([real_pred[i] for i in idx], [real_truth[i] for i in idx]), 3)
        results["camerash_top1_by_suit"] = per_group
        real_errors = Counter((t, q) for t, q in zip(real_truth, real_pred) if t != q)
        results["camerash_confusions"] = {f"{t}->{q}": n for (t, q), n in real_errors.most_common(12)}
        print(f"classifier, real Camerash crops ({len(real_truth)}): top-1 {results['camerash_top1']:.4f}, "
              f"by suit {per_group}")

    frame, cal = full_table_frame()
    for threads in (1, 2):
        timing = frame_timing(frame, cal, threads, model=args.model, finder_model=args.finder,
                              second=second)
        results[f"frame_ms_{threads}t"] = timing["total"]
        results[f"frame_parts_{threads}t"] = timing
        print(f"one 1280x960 frame, {threads} thread{'s' if threads > 1 else ''}: {timing['total']:.1f} ms "
              f"(warp {timing['warp']}, finder {timing['finder']}, classifier {timing['classifier']} "
              f"for {timing['tiles_classified']} of {timing['tiles_found']} tiles found)")
        if second is not None:
            # the model alone right after, in the same process: frames timed in separate runs
            # move by more than the second model costs
            alone = frame_timing(frame, cal, threads, model=args.model, finder_model=args.finder)
            results[f"frame_parts_{threads}t_one_model"] = alone
            print(f"  the model alone, right after: {alone['total']:.1f} ms (classifier "
                  f"{alone['classifier']}); the second model read "
                  f"{timing['read_by_second_model']:.1%} of the frame's crops")
        by_felt = frame_timing(frame, cal, threads, learned=False, model=args.model, second=second)
        results[f"frame_felt_ms_{threads}t"] = by_felt["total"]
        results[f"frame_felt_parts_{threads}t"] = by_felt
        print(f"  the same with the felt-colour finder ([camera] finder = \"felt\"): "
              f"{by_felt['total']:.1f} ms (finder {by_felt['finder']}, classifier "
              f"{by_felt['classifier']})")
        by_zones = zones_frame_timing(frame, cal, threads, model=args.model,
                                      finder_model=args.finder, second=second)
        results[f"frame_zones_ms_{threads}t"] = by_zones["total"]
        results[f"frame_zones_parts_{threads}t"] = by_zones
        print(f"  the same table the table service's way, every zone cut from the camera frame "
              f"and searched alone: {by_zones['total']:.1f} ms (zones {by_zones['finder']}, "
              f"classifier {by_zones['classifier']} for {by_zones['tiles_classified']} tiles)")
        pond = changed_pond_timing(cal, threads, model=args.model, finder_model=args.finder,
                                   second=second)
        results[f"frame_changed_pond_ms_{threads}t"] = pond["total"]
        results[f"frame_changed_pond_parts_{threads}t"] = pond
        print(f"  the frame a discard lands in, on a table already known (change detector, the "
              f"changed pond found and its new tile read): {pond['total']:.1f} ms (detector "
              f"{pond['detector']}, finder {pond['finder']}, tracker {pond['tracker']}; "
              f"{pond['discards_reported']} of {pond['repeats']} discards reported)")
    results["process_rss_mb"] = round(rss_kb() / 1024, 1)
    write_results("vision-frame" if args.frame_only else "vision", results, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
