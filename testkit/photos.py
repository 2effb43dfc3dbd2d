"""The labelled real photographs, and how well a tile reader does on them.

``bench/labels/camerash-raw.json`` gives the outline (quad, corners in reading order) and the
code of every tile in the Camerash raw photographs, which lie in the shared data
(``photos/camerash/raw-images``): real tiles, shop and catalogue shots, MIT. Codes are mpsz,
``back``, or ``x`` for a tile that is no riichi kind (flowers, seasons): a finder is right to
box an ``x`` tile, but it is not counted when tiles are named. A tile marked ``partial`` (cut
by the photo's edge) is neither found nor missed.

A *reader* is any function ``picture -> [(quad, code, confidence)]`` (:func:`reader` is the
project's); :func:`score_photo` matches what it reports to the labels at IoU 0.5 and counts.
The photos of one physical set (files ``N-k``: sets 1, 2 and 6) also serve to enroll a set
and read the rest of it (:func:`photos_by_set`, :func:`one_of_each`).
"""
from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from referee.tiles import base
from vision.finding.learned import match_boxes
from vision.reading.looks import LOOKS

#: The labels, the one place they are named. They stay beside the bench scripts that made and
#: measure with them (bench/label_photos.py writes them); the tests read them too.
LABELS = Path(__file__).resolve().parent.parent / "bench" / "labels" / "camerash-raw.json"
#: Where the labels point: the photos under the shared data folder.
PHOTOS = Path("photos") / "camerash" / "raw-images"

#: The codes a label may hold: mpsz (0 for a red five), ``back``, and ``x`` for a tile of no
#: riichi kind.
MPSZ = {f"{n}{s}" for s in "mps" for n in range(10)} | {f"{n}z" for n in range(1, 8)}
CODES = MPSZ | {"back", "x"}


@dataclass
class Photo:
    name: str
    path: Path
    set: str | None
    quads: list[np.ndarray]       # every whole tile (the truth for finding)
    codes: list[str]
    ignore: list[np.ndarray]      # tiles cut by the picture's edge

    def image(self) -> np.ndarray:
        im = cv2.imread(str(self.path), cv2.IMREAD_COLOR)
        if im is None:
            raise SystemExit(f"cannot read {self.path}")
        return im


def load_photos(data: Path, labels: Path = LABELS) -> list[Photo]:
    """The labelled photos, their pictures read from ``data`` (the shared data folder)."""
    try:
        spec = json.loads(Path(labels).read_text())
    except (OSError, ValueError) as exc:
        raise SystemExit(f"cannot read the photo labels {labels}: {exc}")
    root = data / PHOTOS
    photos = []
    for entry in spec["photos"]:
        quads, codes, ignore = [], [], []
        for t in entry["tiles"]:
            q = np.asarray(t["quad"], np.float32).reshape(4, 2)
            if t.get("partial"):
                ignore.append(q)
            else:
                quads.append(q)
                codes.append(t["code"])
        photos.append(Photo(entry["file"], root / entry["file"], entry.get("set"), quads, codes, ignore))
    return photos


def reader(finder, classifier, one_set: bool = True, looks=LOOKS):
    """The project's reader: ``detect`` on a photo (:func:`vision.reading.picture.detect`):
    the learned finder, then the classifier on each crop; the crops of a picture read as tiles
    of one set (:mod:`vision.reading.one_set`), or each alone (``one_set`` False: a rendered
    scene's tiles are drawn at random, not from a set), each face read in ``looks``
    (:mod:`vision.reading.looks`; None: once). The confidence is ``detect``'s, the least of
    the finder's and the classifier's, which says whether a reading is sure."""
    from vision.reading.picture import detect

    def read(image):
        return [(np.float32(t["quad"]), t["tile"], t["confidence"])
                for t in detect(image, classifier, photo=True, finder=finder, one_set=one_set,
                                looks=looks)]
    return read


def same_tile(found: str, truth: str, kind_only: bool = False) -> bool:
    """A reading is right when it is the code; with ``kind_only`` a red five read as its
    plain five (or back) counts too (for readers that have no red fives)."""
    if found == truth:
        return True
    return kind_only and found not in ("back", "none", "x") and truth not in ("back", "x") \
        and base(found) == base(truth)


def score_photo(photo: Photo, reads: list[tuple[np.ndarray, str, float]],
                kind_only: bool = False, sure_from: float | None = None) -> dict:
    """Counts for one photo: boxes (``tp``, ``fp``, ``fn``) over every whole tile, and tiles
    of a riichi kind named right (``named``, of ``riichi``), with the misses listed; the
    readings with a confidence of ``sure_from`` or more (default: what ``detect`` does not
    mark unsure) that are wrong (``misread_sure``: a riichi tile misread, or a report where
    there is no tile; a flower's reading counts neither way) and the right readings that
    are sure (``named_sure``)."""
    if sure_from is None:
        from vision.reading.picture import UNSURE_BELOW as sure_from
    reads = sorted(reads, key=lambda r: -r[2])
    m = match_boxes([r[0] for r in reads], photo.quads, photo.ignore)
    truth_of = {j: i for i, j in m["pairs"]}
    riichi = [j for j, c in enumerate(photo.codes) if c != "x"]
    named = [j for j in riichi if j in truth_of and same_tile(reads[truth_of[j]][1], photo.codes[j], kind_only)]
    matched_found = {i for i, _ in m["pairs"]}
    false = [i for i in range(len(reads)) if i not in matched_found and not _on_ignored(reads[i][0], photo)]
    misread = [j for j in riichi if j in truth_of and j not in named]
    sure = [i for i in range(len(reads)) if reads[i][2] >= sure_from]
    return {"tp": m["tp"], "fp": m["fp"], "fn": m["fn"], "riichi": len(riichi), "named": len(named),
            "missed": [j for j in range(len(photo.quads)) if j not in truth_of],
            "misread": [(j, reads[truth_of[j]][1]) for j in misread],
            "confusions": [f"{photo.codes[j]}->{reads[truth_of[j]][1]}" for j in misread],
            "false": false,
            # what a referee would be told as fact and is wrong: a riichi tile misread, or a
            # tile reported where there is none (a tile boxed twice, a cup), read surely
            "misread_sure": [i for i in sure if i in false or any(truth_of[j] == i for j in misread)],
            "named_sure": sum(1 for j in named if reads[truth_of[j]][2] >= sure_from),
            "reads": reads}


def tile_crop(image: np.ndarray, quad, margin: float = 0.06) -> np.ndarray:
    """The tile inside ``quad`` (TL, TR, BR, BL as it reads), upright, with a little round it
    as a finder cuts it."""
    q = np.float32(quad)
    c = q.mean(axis=0)
    q = c + (q - c) * (1 + 2 * margin)
    w = float(np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])) / 2
    h = float(np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])) / 2
    scale = min(1.0, 160 / max(h, 1))
    w, h = max(8, int(round(w * scale))), max(8, int(round(h * scale)))
    m = cv2.getPerspectiveTransform(q, np.float32([[0, 0], [w, 0], [w, h], [0, h]]))
    return cv2.warpPerspective(image, m, (w, h), flags=cv2.INTER_AREA,
                               borderMode=cv2.BORDER_REPLICATE)


def _on_ignored(quad, photo: Photo) -> bool:
    c = np.mean(quad, axis=0)
    return any(cv2.pointPolygonTest(np.asarray(g, np.float32), (float(c[0]), float(c[1])), False) >= 0
               for g in photo.ignore)


def totals(scores: dict[str, dict]) -> dict:
    tp = sum(s["tp"] for s in scores.values())
    fp = sum(s["fp"] for s in scores.values())
    fn = sum(s["fn"] for s in scores.values())
    riichi = sum(s["riichi"] for s in scores.values())
    named = sum(s["named"] for s in scores.values())
    named_sure = sum(s["named_sure"] for s in scores.values())
    return {"box_recall": round(tp / max(1, tp + fn), 4), "box_precision": round(tp / max(1, tp + fp), 4),
            "end_to_end": round(named / max(1, riichi), 4), "tiles": tp + fn, "riichi_tiles": riichi,
            "found": tp, "false": fp, "named": named,
            "misread_sure": sum(len(s["misread_sure"]) for s in scores.values()),
            "named_sure": named_sure, "sure_share": round(named_sure / max(1, named), 4)}


def draw_misses(photo: Photo, score: dict, out: Path) -> Path:
    """The photo with every tile it holds: green found and named, yellow found but misread
    (what it was read as), red missed; orange boxes are reports where there is no tile, and
    a magenta outline inside a box is a sure wrong reading, with its confidence."""
    im = photo.image()
    scale = min(1.0, 1600 / max(im.shape[:2]))
    im = cv2.resize(im, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else im
    thick = max(1, int(round(max(im.shape[:2]) / 600)))
    missed = set(score["missed"])
    misread = dict(score["misread"])
    for j, q in enumerate(photo.quads):
        colour = (0, 0, 255) if j in missed else (0, 220, 255) if j in misread else (0, 200, 0)
        pts = np.round(q * scale).astype(np.int32)
        cv2.polylines(im, [pts], True, colour, thick)
        if j in misread:
            cv2.putText(im, f"{photo.codes[j]}>{misread[j]}", tuple(pts[0] + [2, 14 * thick]),
                        cv2.FONT_HERSHEY_SIMPLEX, 0.45 * thick, (0, 0, 255), thick, cv2.LINE_AA)
    for i in score["false"]:
        pts = np.round(score["reads"][i][0] * scale).astype(np.int32)
        cv2.polylines(im, [pts], True, (0, 140, 255), thick)
        cv2.putText(im, str(score["reads"][i][1]), tuple(pts[0] + [2, 14 * thick]),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.45 * thick, (0, 140, 255), thick, cv2.LINE_AA)
    for i in score.get("misread_sure", []):
        # what the referee would be told as fact: inside, in magenta, with its confidence
        quad, code, conf = score["reads"][i]
        c = quad.mean(axis=0)
        pts = np.round((c + 0.85 * (quad - c)) * scale).astype(np.int32)
        cv2.polylines(im, [pts], True, (255, 0, 255), thick)
        cv2.putText(im, f"{code} {conf:.2f}", tuple(pts[3] - [0, 4 * thick]),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.45 * thick, (255, 0, 255), thick, cv2.LINE_AA)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{Path(photo.name).stem}.png"
    if not cv2.imwrite(str(path), im):
        raise SystemExit(f"cannot write {path}")
    return path


def box_quad(box) -> np.ndarray:
    x1, y1, x2, y2 = box
    return np.float32([[x1, y1], [x2, y1], [x2, y2], [x1, y2]])


def photos_by_set(data: Path, labels: Path = LABELS) -> dict[str, list[tuple[str, list, list]]]:
    """Per set (the ``N`` of photos ``N-k``): each photo's name, whole tiles' crops and codes
    (flowers and seasons left out)."""
    spec = json.loads(Path(labels).read_text())
    groups: dict[str, list[tuple[str, list, list]]] = defaultdict(list)
    for photo in spec["photos"]:
        name = photo["file"]
        stem = name.rsplit(".", 1)[0]
        if "-" not in stem:
            continue
        image = cv2.imread(str(data / PHOTOS / name))
        tiles = [t for t in photo["tiles"] if t["code"] != "x" and not t.get("partial")]
        groups[stem.split("-")[0]].append(
            (name, [tile_crop(image, t["quad"]) for t in tiles], [t["code"] for t in tiles]))
    return groups


def one_of_each(photos, r: int):
    """The sheet's enrollment from a set's photos: of each kind, its ``r``-th tile (counting
    round when it has fewer); and every other tile of the set, to be read."""
    tiles = [(c, k) for _, crops, codes in photos for c, k in zip(crops, codes)]
    by_kind = defaultdict(list)
    for i, (_, k) in enumerate(tiles):
        by_kind[k].append(i)
    chosen = {idx[r % len(idx)] for idx in by_kind.values()}
    enrolled = [tiles[i] for i in sorted(chosen)]
    rest = [t for i, t in enumerate(tiles) if i not in chosen]
    return enrolled, rest
