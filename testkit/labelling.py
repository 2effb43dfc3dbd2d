"""How the labels of the Camerash raw photographs are made: a box (quad) and a code for each
tile. ``bench/label_photos.py`` runs it and writes :data:`testkit.photos.LABELS`.

The labels are the yardstick the tile finder is measured on, so they are made by a separate,
simple method that knows each photo's grid, then checked by eye and corrected by hand:

1. **Boxes.** Every photo is a grid of touching tiles (catalogue shots, a row, close-ups), and
   ``LAYOUTS`` says how many rows and columns it has. Seams are thin dark lines (light gaps on
   white, ``BRIGHT_SEAMS``), so a black-hat (top-hat) of the grey image lights them up. A
   regular lattice with the known counts is fitted to the seam profile, then each seam is
   fitted as a straight, perhaps slightly tilted line near the lattice and a pitch past the
   seam before it; pieces of a seam that stray from the others are looked for again close to
   where the others put them. Outside the grid a tile ends a pitch from its inner side, on the
   step to the background or at the photo's edge; tiles the edge cuts short are ``partial``.
2. **Codes.** Each tile, warped upright, is compared both ways up with the 628 labelled
   single-tile crops of the same dataset (``tiles-resized``, cut from these photos). A near
   copy names it; otherwise the project's classifier (``vision.reading.classifier``) does, which reads
   other sets better. The crops also tell which way up a tile lies in the hand-laid photos of
   set 1.
3. **Corrections.** ``CORRECTIONS`` holds what the eye found wrong in the proposals.
"""
from __future__ import annotations

import csv
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from testkit.camerash import CROP_LABELS, CROPS
from testkit.photos import MPSZ, PHOTOS
from vision.synthesis.faces import camerash_code

#: Rows and columns of tiles in each photo, counting a tile cut by the edge when more than half
#: of its face shows.
LAYOUTS = {
    "1-1.jpg": (4, 9), "1-2.jpg": (4, 9), "1-3.jpg": (4, 2), "1-4.jpg": (4, 2),
    "1-5.jpg": (4, 5), "1-6.jpg": (4, 4),
    "2-1.jpg": (1, 9), "2-2.jpg": (1, 7), "2-3.jpg": (1, 8), "2-4.jpg": (1, 9),
    "2-5.jpg": (1, 9),
    "3.png": (8, 18), "4.jpg": (13, 12), "5.jpg": (12, 13),
    "6-1.png": (4, 9), "6-2.png": (4, 9), "6-3.png": (4, 9), "6-4.png": (4, 9),
    "7.jpg": (12, 13), "8.jpg": (12, 12), "9.jpg": (8, 18),
    "10.jpg": (12, 12), "11.jpg": (12, 12), "12.jpg": (12, 12), "13.jpg": (12, 12),
}

#: Photos of tiles standing apart on white, where the seams are light gaps, not dark lines.
BRIGHT_SEAMS = {"2-1.jpg", "2-2.jpg", "2-3.jpg", "2-4.jpg", "2-5.jpg"}

#: Photos where tiles lie upside down among upright ones (set 1 was laid out by hand); in the
#: catalogue shots every tile reads upright.
TURNED_TILES = {"1-1.jpg", "1-2.jpg", "1-3.jpg", "1-4.jpg", "1-5.jpg", "1-6.jpg"}

#: What the eye found wrong in the proposals: photo -> {"row,col": the right code, or a dict
#: of what to change: "code", "turn" (the tile reads the other way up), "quad", "partial",
#: "drop"}. Flowers, seasons, jokers and the creature dragons of the American-style sets (red
#: 7z, green 6z) are unknown to both the crops and the classifier; the rest are misreadings.
CORRECTIONS: dict[str, dict[str, object]] = {
    "1-1.jpg": {"2,5": {"turn": True}, "2,7": {"turn": True}},
    "2-3.jpg": {"0,7": "x"},
    "3.png": {"5,11": {"turn": True}, "5,12": {"turn": True}},
    "4.jpg": {"0,8": "x", "0,9": "x", "0,10": "x", "0,11": "x", "3,3": "x", "5,1": "x",
        "5,2": "x", "5,3": "x", "5,4": "x", "5,5": "x", "5,6": "x", "6,8": "x", "6,9": "x",
        "6,10": "x", "6,11": "x", "9,4": "7z", "9,5": "7z", "9,6": "7z", "9,7": "7z", "9,8": "6z",
        "9,9": "6z", "9,10": "6z", "9,11": "6z"},
    "5.jpg": {"4,9": "x", "4,10": "x", "5,11": "x", "6,9": "x", "6,11": "x", "7,9": "x",
        "8,8": "9m", "8,9": "7z", "8,10": "6z", "8,12": "x", "9,8": "9m", "9,9": "7z",
        "9,10": "6z", "9,12": "x", "10,8": "9m", "10,9": "7z", "10,10": "6z", "10,12": "x",
        "11,8": "9m", "11,9": "7z", "11,10": "6z", "11,12": "x"},
    "6-2.png": {"3,8": "x"},
    "7.jpg": {"3,8": "9p", "4,9": "x", "4,10": "x", "4,12": "x", "5,9": "x", "5,10": "x",
        "5,12": "x", "6,9": "x", "6,10": "x", "6,12": "x", "7,9": "x", "7,10": "x", "7,12": "x",
        "8,9": "7z", "8,10": "6z", "8,12": "x", "9,9": "7z", "9,10": "6z", "9,12": "x",
        "10,9": "7z", "10,10": "6z", "10,12": "x", "11,9": "7z", "11,10": "6z", "11,12": "x"},
    "8.jpg": {"6,11": "x", "8,9": "3z"},
    "10.jpg": {"4,0": "1s", "6,0": "1s"},
    "11.jpg": {"7,11": "x", "8,11": "x", "9,3": "4m", "9,11": "x", "10,11": "x", "11,11": "x"},
    "12.jpg": {"8,8": "9m", "10,8": "9m", "11,8": "9m"},
    "13.jpg": {"5,6": "7s", "7,6": "7s"},
}

#: Tiles whose face reads the same either way up in these sets: their quads start at the
#: corner top-left as photographed.
SYMMETRIC = {"1p", "4p", "5p", "8p", "9p", "2s", "4s", "5s", "6s", "8s", "9s"}


# ---------------------------------------------------------------- boxes

def _odd(n: float) -> int:
    return max(3, int(n)) | 1


def seam_maps(gray: np.ndarray, pitch_x: float, pitch_y: float, bright: bool = False
              ) -> tuple[np.ndarray, np.ndarray]:
    """Maps lighting up vertical and horizontal seams: thin dark lines between touching tiles
    (black-hats of ``gray``), or, with ``bright``, thin light gaps where a white background
    shows between them (top-hats)."""
    op = cv2.MORPH_TOPHAT if bright else cv2.MORPH_BLACKHAT
    vertical = cv2.morphologyEx(gray, op, np.ones((1, _odd(0.12 * pitch_x)), np.uint8))
    horizontal = cv2.morphologyEx(gray, op, np.ones((_odd(0.12 * pitch_y), 1), np.uint8))
    return vertical.astype(np.float32), horizontal.astype(np.float32)


def fit_lattice(score: np.ndarray, n: int, pitch: float | tuple[float, float] | None = None,
                near: float | None = None) -> tuple[float, float]:
    """Start ``b0`` and pitch ``p`` of the lattice ``b0 + i p`` (i = 1 .. n-1) that lies on the
    strongest seams of ``score``; ``pitch``: the pitch, or the range it lies in (by default
    what ``n`` tiles, the outer ones perhaps cut, allow); ``near``: a start the lattice keeps
    within an eighth of a pitch of. For one tile, the whole length."""
    length = len(score)
    if n == 1:
        return 0.0, float(length)
    best = (-1.0, 0.0, float(length) / n)
    lo, hi = length / (n + 0.6), length / (n - 0.6)
    if isinstance(pitch, tuple):
        lo, hi = max(lo, pitch[0]), min(hi, pitch[1])
    pitches = [pitch] if isinstance(pitch, float) else np.arange(lo, hi + 0.5, 0.5)
    for p in pitches:
        starts = np.arange(-0.6 * p, length - n * p + 0.6 * p + 1, 1.0)
        if near is not None:
            starts = starts[np.abs(starts - near) <= 0.12 * p]
        idx = np.rint(starts[:, None] + p * np.arange(1, n)[None, :]).astype(int)
        ok = ((idx >= 0) & (idx < length)).all(axis=1)
        if not ok.any():
            continue
        sums = score[np.clip(idx, 0, length - 1)].sum(axis=1)
        sums[~ok] = -1
        k = int(np.argmax(sums))
        if sums[k] > best[0]:
            best = (float(sums[k]), float(starts[k]), float(p))
    return best[1], best[2]


def _line_samples(a: np.ndarray, b: np.ndarray, lo: float, hi: float, n: int = 60):
    """Points along lines that run from coordinate ``a`` at ``lo`` to ``b`` at ``hi``."""
    t = np.linspace(0.0, 1.0, n)
    along = lo + (hi - lo) * t
    across = a[:, None] + (b - a)[:, None] * t[None, :]
    return across, np.broadcast_to(along, across.shape)


def edge_candidates(score: np.ndarray, vertical: bool, guess: float, span: tuple[float, float],
                    radius: float, seam: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Straight lines near ``guess`` and how well each runs along an edge: ``(a, b, strength)``,
    the line's coordinate across at both ends of ``span``.

    ``vertical``: the lines run down the picture; ``seam``: most of the line must lie on the
    seam (art strokes cover only part of a line); otherwise, for the outside of the grid, the
    mean step along it counts.
    """
    h, w = score.shape
    limit = w - 1 if vertical else h - 1
    lo, hi = span
    tilt = 0.05 * (hi - lo)
    offsets = np.arange(-radius, radius + 0.5, max(0.5, radius / 30))
    tilts = np.arange(-tilt, tilt + 0.5, max(0.5, tilt / 6))
    a = (guess + offsets[:, None] - tilts[None, :] / 2).ravel()
    b = (guess + offsets[:, None] + tilts[None, :] / 2).ravel()
    keep = (np.minimum(a, b) >= 0) & (np.maximum(a, b) <= limit)
    a, b = a[keep], b[keep]
    if len(a) == 0:
        return a, b, np.zeros(0)
    across, along = _line_samples(a, b, lo, hi)
    xs, ys = (across, along) if vertical else (along, across)
    values = score[np.clip(np.rint(ys), 0, h - 1).astype(int), np.clip(np.rint(xs), 0, w - 1).astype(int)]
    strength = np.percentile(values, 25, axis=1) if seam else values.mean(axis=1)
    return a, b, strength


def best_line(cands, border: float = 0.0) -> tuple[tuple[float, float], float]:
    """The strongest candidate line and its strength; the photo's ``border`` when no candidate
    lies inside the picture."""
    a, b, s = cands
    if len(a) == 0:
        return (border, border), 0.0
    k = int(np.argmax(s))
    return (float(a[k]), float(b[k])), float(s[k])


@dataclass
class Line:
    """A straight side: its coordinate across is ``a`` where ``along`` is ``lo`` and ``b``
    where it is ``hi`` (x as a function of y for a vertical line, y of x for a horizontal one)."""
    a: float
    b: float
    lo: float
    hi: float

    @property
    def mid(self) -> float:
        return (self.a + self.b) / 2

    def at(self, along: float) -> float:
        return self.a + (self.b - self.a) * (along - self.lo) / (self.hi - self.lo)


def _intersect(v: Line, h: Line) -> tuple[float, float]:
    """Where a vertical and a horizontal line meet."""
    sx = (v.b - v.a) / (v.hi - v.lo)            # x = v.at(y)
    sy = (h.b - h.a) / (h.hi - h.lo)            # y = h.at(x)
    # y = h.a + sy (v.a + sx (y - v.lo) - h.lo)
    y = (h.a + sy * (v.a - sx * v.lo - h.lo)) / (1 - sy * sx)
    return v.at(y), y


def fit_line(score: np.ndarray, vertical: bool, guess: float, span: tuple[float, float],
             radius: float, seam: bool, border: float = 0.0) -> Line:
    """The strongest edge line near ``guess`` over ``span`` (see :func:`edge_candidates`); the
    photo's ``border`` when none lies inside the picture."""
    (a, b), _ = best_line(edge_candidates(score, vertical, guess, span, radius, seam), border)
    return Line(a, b, *span)


@dataclass
class Box:
    row: int
    col: int
    quad: list[list[float]]   # TL, TR, BR, BL as photographed
    partial: bool


def propose_boxes(image: np.ndarray, rows: int, cols: int, bright: bool = False) -> list[Box]:
    """One quad per tile of a ``rows`` x ``cols`` grid of touching tiles, row by row;
    ``bright``: the seams are light gaps (tiles on white), not dark lines."""
    h0, w0 = image.shape[:2]
    # work where a tile is about 100 pixels wide: seams then look alike in every photo
    scale = min(1.0, 100.0 / (w0 / cols))
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else image
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    h, w = gray.shape
    px, py = w / cols, h / rows
    seams_v, seams_h = seam_maps(gray, px, py, bright)
    blurred = cv2.GaussianBlur(gray.astype(np.float32), (0, 0), 1.0)
    steps_v = np.abs(cv2.Sobel(blurred, cv2.CV_32F, 1, 0, ksize=3))
    steps_h = np.abs(cv2.Sobel(blurred, cv2.CV_32F, 0, 1, ksize=3))

    # 1. a lattice: seams run straight within a tile's width but not always across the photo
    #    (hand-laid rows, a sheet not quite flat), so its profile is the mean of narrow strips'
    y0, py = fit_lattice(_strip_profile(seams_h, px, axis=1), rows)
    # a tile is about three quarters as wide as it is high; two columns' one seam tells no pitch
    shape = (0.65 * py, 0.9 * py) if cols > 2 else 0.76 * py
    x00, px = fit_lattice(_strip_profile(seams_v, py, axis=0), cols, shape if rows > 1 else None)
    if rows == 1:   # a single row: the tiles' height from their width
        py = min(float(h), px / 0.78)
    tops = [y0 + r * py for r in range(rows + 1)]
    lefts = []      # each row's own lattice start: hand-laid rows are shifted against each other
    for r in range(rows):
        band = slice(int(max(0, tops[r] + 0.04 * py)), int(min(h, tops[r + 1] - 0.04 * py)))
        lefts.append(fit_lattice(_strip_profile(seams_v[band], py, axis=0), cols, px, near=x00)[0])

    # 2. each seam once, from the lattice and from the seam before it (a grid drifts a little),
    #    along the whole side of the tiles it parts; the seams run past the art, along the
    #    tiles' margins as well as their middles
    def row_span(r):
        return tops[r] + 0.04 * py, tops[r + 1] - 0.04 * py

    def col_span(r, c):
        return lefts[r] + (c + 0.04) * px, lefts[r] + (c + 0.96) * px

    vertical = {}   # (r, k): the seam left of column k in row r
    for r in range(rows):
        for k in range(1, cols):
            guess = _chain(lefts[r] + k * px, vertical.get((r, k - 1)), px)
            vertical[r, k] = fit_line(seams_v, True, guess, row_span(r), 0.12 * px, seam=True)
    horizontal = {}  # (k, c): the seam above row k in column c
    for c in range(cols):
        for k in range(1, rows):
            guess = _chain(tops[k], horizontal.get((k - 1, c)), py)
            horizontal[k, c] = fit_line(seams_h, False, guess, col_span(k - 1, c), 0.12 * py, seam=True)
    # a seam that strays from where its neighbours along the row (column) put it ran along
    # the art instead (a row of digits, a long stroke): look again, close to where they put it
    for k in range(1, cols):
        _straighten({r: vertical[r, k] for r in range(rows)}, px,
                    lambda r, guess: fit_line(seams_v, True, guess, row_span(r), 0.05 * px, seam=True),
                    lambda r, line: vertical.__setitem__((r, k), line))
    for k in range(1, rows):
        _straighten({c: horizontal[k, c] for c in range(cols)}, py,
                    lambda c, guess: fit_line(seams_h, False, guess, col_span(k - 1, c), 0.05 * py,
                                              seam=True),
                    lambda c, line: horizontal.__setitem__((k, c), line))

    # 3. outside the grid a tile ends a tile's length from its inner side: on the step to the
    #    background there, or at the photo's edge when that comes first
    def outer(inner: Line | None, lattice: float, sign: int, vertical_side: bool, span,
              border: float) -> Line:
        pitch = px if vertical_side else py
        guess, radius = lattice, 0.12 * pitch
        if inner is not None:
            guess, radius = inner.mid + sign * pitch, 0.06 * pitch
        if (border - guess) * sign < 0.03 * pitch:
            return Line(border, border, *span)
        return fit_line(steps_v if vertical_side else steps_h, vertical_side, guess, span, radius,
                        seam=False, border=border)

    quads = {}
    for r in range(rows):
        for c in range(cols):
            vspan, hspan = row_span(r), col_span(r, c)
            left = vertical.get((r, c)) or outer(vertical.get((r, c + 1)), lefts[r], -1, True, vspan, 0.0)
            right = vertical.get((r, c + 1)) or outer(vertical.get((r, c)), lefts[r] + cols * px, 1, True,
                                                      vspan, w - 1.0)
            top = horizontal.get((r, c)) or outer(horizontal.get((r + 1, c)), tops[0], -1, False, hspan, 0.0)
            bottom = horizontal.get((r + 1, c)) or outer(horizontal.get((r, c)), tops[rows], 1, False,
                                                         hspan, h - 1.0)
            corners = [_intersect(v, hh)
                       for v, hh in ((left, top), (right, top), (right, bottom), (left, bottom))]
            quads[r, c] = np.array([[np.clip(x, 0, w - 1), np.clip(y, 0, h - 1)] for x, y in corners]) / scale
    cut = _cut_off(quads, w0, h0)
    return [Box(r, c, [[round(float(x), 1), round(float(y), 1)] for x, y in q], cut[r, c])
            for (r, c), q in quads.items()]


def _straighten(lines: dict, pitch: float, refit, store) -> None:
    """Refit the members of one seam (its pieces in each row, or each column) that stray more
    than 4% of a pitch from a straight line through the others."""
    if len(lines) < 4:
        return
    keys = sorted(lines)
    index = np.array(keys, dtype=float)
    mids = np.array([lines[k].mid for k in keys])
    inliers = np.ones(len(keys), bool)
    for _ in range(len(keys) // 2):
        fit = np.polyfit(index[inliers], mids[inliers], 1)
        residual = np.abs(mids - np.polyval(fit, index))
        worst = int(np.argmax(np.where(inliers, residual, -1)))
        if residual[worst] <= 0.04 * pitch:
            break
        inliers[worst] = False
    fit = np.polyfit(index[inliers], mids[inliers], 1)
    for k, ok in zip(keys, inliers):
        if not ok:
            store(k, refit(k, float(np.polyval(fit, k))))


def _chain(lattice: float, previous: Line | None, pitch: float) -> float:
    """Where to look for a seam: a pitch past the seam before it, unless that strays from the
    lattice (the seam before was missed)."""
    if previous is None:
        return lattice
    chained = previous.mid + pitch
    return chained if abs(chained - lattice) < 0.25 * pitch else lattice


def _cut_off(quads: dict, w: int, h: int) -> dict:
    """Which tiles the photo's edge cuts: those along an edge where the tiles come out short
    (their median by more than 4%, more than a fitted side may be off), and short themselves."""
    sizes = {key: _sides(q) for key, q in quads.items()}
    width, height = np.median(np.array(list(sizes.values())), axis=0)
    cut = dict.fromkeys(quads, False)
    for axis, full, touches in (
            (0, width, lambda q: q[:, 0].min() < 1.5), (0, width, lambda q: q[:, 0].max() > w - 2.5),
            (1, height, lambda q: q[:, 1].min() < 1.5), (1, height, lambda q: q[:, 1].max() > h - 2.5)):
        along = [key for key, q in quads.items() if touches(q)]
        if along and np.median([sizes[key][axis] for key in along]) < 0.96 * full:
            for key in along:
                cut[key] = cut[key] or sizes[key][axis] < 0.98 * full
    return cut


def _sides(quad: np.ndarray) -> tuple[float, float]:
    """Mean width and height of a quad (TL, TR, BR, BL)."""
    tl, tr, br, bl = quad
    return ((np.linalg.norm(tr - tl) + np.linalg.norm(br - bl)) / 2,
            (np.linalg.norm(bl - tl) + np.linalg.norm(br - tr)) / 2)


def _strip_profile(lines: np.ndarray, width: float, axis: int) -> np.ndarray:
    """How much each row (``axis=1``) or column (``axis=0``) of ``lines`` lies on a seam: the
    25th percentile within strips ``width`` wide across it, averaged over the strips."""
    length = lines.shape[axis]
    n = max(1, int(round(length / width)))
    edges = np.linspace(0, length, n + 1).astype(int)
    parts = [np.percentile(lines[:, a:b] if axis == 1 else lines[a:b], 25, axis=axis)
             for a, b in zip(edges[:-1], edges[1:]) if b > a]
    return np.mean(parts, axis=0)


# ---------------------------------------------------------------- codes

def upright(image: np.ndarray, quad, width: int = 60, height: int = 80) -> np.ndarray:
    """The tile inside ``quad`` (TL, TR, BR, BL as it reads) warped to ``width`` x ``height``."""
    target = np.float32([[0, 0], [width, 0], [width, height], [0, height]])
    matrix = cv2.getPerspectiveTransform(np.float32(quad), target)
    return cv2.warpPerspective(image, matrix, (width, height), flags=cv2.INTER_AREA,
                               borderMode=cv2.BORDER_REPLICATE)


def _signature(crop: np.ndarray) -> np.ndarray:
    """What two crops of the same tile design share: small, blurred Lab, mean removed, unit length."""
    small = cv2.resize(crop, (24, 32), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (3, 3), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    lab -= lab.reshape(-1, 3).mean(axis=0)
    v = lab.ravel()
    return v / max(float(np.linalg.norm(v)), 1e-6)


class CropMatcher:
    """Names a tile by its nearest labelled Camerash crop (flowers and seasons are ``x``)."""

    def __init__(self, data: Path):
        self.codes: list[str] = []
        self.names: list[str] = []
        signatures = []
        with open(data / CROP_LABELS, newline="") as f:
            for row in csv.DictReader(f):
                crop = cv2.imread(str(data / CROPS / row["image-name"]))
                if crop is None:
                    raise SystemExit(f"cannot read {data / CROPS / row['image-name']}")
                signatures.append(_signature(crop))
                self.codes.append(camerash_code(row["label-name"]))
                self.names.append(row["image-name"])
        self.signatures = np.stack(signatures)

    def name(self, crop: np.ndarray) -> tuple[str, float, bool]:
        """``(code, similarity, upside_down)`` of the nearest crop, the tile read either way up."""
        both = np.stack([_signature(crop), _signature(cv2.rotate(crop, cv2.ROTATE_180))])
        sims = both @ self.signatures.T
        way, k = np.unravel_index(int(np.argmax(sims)), sims.shape)
        margin = sims[way, k] - sims[1 - way].max()
        return self.codes[k], float(sims[way, k]), bool(way == 1 and margin > 0.02)


def turned(quad: list[list[float]]) -> list[list[float]]:
    """The same quad with its corners named for a tile lying upside down."""
    return quad[2:] + quad[:2]


# ---------------------------------------------------------------- labels

@dataclass
class Proposal:
    grid: tuple[int, int]
    quad: list[list[float]]       # TL, TR, BR, BL as the tile reads
    code: str
    partial: bool
    match: str                    # the nearest labelled crop's code
    similarity: float             # and how near it is
    classifier: str               # the shipped classifier's reading, a second opinion
    confidence: float             # and its confidence


def propose(data: Path, photo: str, matcher: CropMatcher, classifier) -> list[Proposal]:
    image = cv2.imread(str(data / PHOTOS / photo))
    if image is None:
        raise SystemExit(f"cannot read {data / PHOTOS / photo}")
    found = []
    for box in propose_boxes(image, *LAYOUTS[photo], bright=photo in BRIGHT_SEAMS):
        match, similarity, upside_down = matcher.name(upright(image, box.quad))
        # the classifier reads a tile either way up
        reading, confidence = classifier.classify([upright(image, box.quad, 48, 64)])[0]
        code = choose_code(match, similarity, reading, confidence)
        turn = photo in TURNED_TILES and upside_down and code not in SYMMETRIC
        found.append(Proposal((box.row, box.col), turned(box.quad) if turn else box.quad, code,
                              box.partial, match, similarity, reading, confidence))
    return found


def choose_code(match: str, similarity: float, reading: str, confidence: float) -> str:
    """A near-copy of a labelled crop names the tile (the crops were cut from these photos);
    otherwise the classifier, which knows tiles of other sets better, unless it is unsure or
    sees no tile; otherwise the nearest crop still."""
    if similarity >= 0.95:
        return match
    if reading in MPSZ and confidence >= 0.5:
        return reading
    return match


def apply_corrections(photo: str, proposals: list[Proposal]) -> tuple[list[dict], list[str]]:
    """The labels of one photo with ``CORRECTIONS`` applied, and what each correction changed
    (``code``, ``turn``, ``quad``, ``partial``, ``drop``) in order."""
    fixes = dict(CORRECTIONS.get(photo, {}))
    tiles, changes = [], []
    for p in proposals:
        key = f"{p.grid[0]},{p.grid[1]}"
        tile = {"quad": p.quad, "code": p.code, "grid": list(p.grid)}
        if p.partial:
            tile["partial"] = True
        fix = fixes.pop(key, None)
        if fix is None:
            tiles.append(tile)
            continue
        fix = {"code": fix} if isinstance(fix, str) else dict(fix)
        if fix.get("drop"):
            changes.append("drop")
            continue
        before = dict(tile)
        if "quad" in fix:
            tile["quad"] = [[float(x), float(y)] for x, y in fix["quad"]]
        if fix.get("turn"):
            tile["quad"] = turned(tile["quad"])
        if "partial" in fix:
            tile.pop("partial", None)
            if fix["partial"]:
                tile["partial"] = True
        if "code" in fix:
            tile["code"] = fix["code"]
        what = [k for k in ("code", "quad", "partial") if tile.get(k) != before.get(k)]
        if fix.get("turn"):
            what = ["turn"] + [k for k in what if k != "quad"]
        if not what:
            print(f"{photo} {key}: the correction agrees with the proposal; leave it out",
                  file=sys.stderr)
        changes.extend(what[:1])
        tiles.append(tile)
    if fixes:
        raise SystemExit(f"{photo}: corrections for tiles that are not there: {sorted(fixes)}")
    return tiles, changes


def differences(old: dict, new: dict, min_iou: float = 0.9) -> list[str]:
    """Tiles whose labels differ between two label files: a missing or extra photo or tile, a
    code, which way up, cut off or not, or a quad that overlaps the old one less than
    ``min_iou``."""
    olds = {p["file"]: p for p in old["photos"]}
    news = {p["file"]: p for p in new["photos"]}
    found = [f"{f}: only in the old labels" for f in sorted(olds.keys() - news.keys())]
    found += [f"{f}: only in the new labels" for f in sorted(news.keys() - olds.keys())]
    for f in sorted(olds.keys() & news.keys(), key=photo_order):
        a = {tuple(t["grid"]): t for t in olds[f]["tiles"]}
        b = {tuple(t["grid"]): t for t in news[f]["tiles"]}
        for g in sorted(a.keys() ^ b.keys()):
            found.append(f"{f} {g}: in one of the two only")
        for g in sorted(a.keys() & b.keys()):
            x, y = a[g], b[g]
            if x["code"] != y["code"]:
                found.append(f"{f} {g}: code {x['code']} -> {y['code']}")
            if bool(x.get("partial")) != bool(y.get("partial")):
                found.append(f"{f} {g}: partial {bool(x.get('partial'))} -> {bool(y.get('partial'))}")
            overlap = quad_iou(x["quad"], y["quad"])
            if overlap < min_iou:
                found.append(f"{f} {g}: quad moved (IoU {overlap:.2f})")
            elif np.linalg.norm(np.subtract(x["quad"][0], y["quad"][0])) > np.linalg.norm(
                    np.subtract(x["quad"][0], y["quad"][2])):
                found.append(f"{f} {g}: turned the other way up")
    return found


def quad_iou(a, b) -> float:
    """Intersection over union of two convex quads."""
    pa, pb = np.float32(a), np.float32(b)
    inter, _ = cv2.intersectConvexConvex(pa, pb)
    union = cv2.contourArea(pa) + cv2.contourArea(pb) - inter
    return float(inter / union) if union > 0 else 0.0


def dumps(labels: dict) -> str:
    """The labels as JSON, one tile to a line so that a change to one shows as one line."""
    lines = ['{"about": ' + json.dumps(labels["about"], indent=1).replace("\n", "\n ") + ',', ' "photos": [']
    for i, p in enumerate(labels["photos"]):
        head = {k: v for k, v in p.items() if k != "tiles"}
        lines.append("  " + json.dumps(head)[:-1] + ', "tiles": [')
        lines += ["   " + json.dumps(t) + ("," if j < len(p["tiles"]) - 1 else "")
                  for j, t in enumerate(p["tiles"])]
        lines.append("  ]}" + ("," if i < len(labels["photos"]) - 1 else ""))
    lines.append(" ]}")
    return "\n".join(lines) + "\n"


def photo_set(photo: str) -> str | None:
    """``1-3.jpg`` shows set ``1``; the catalogue shots each show a set of their own."""
    stem = photo.rsplit(".", 1)[0]
    return stem.split("-")[0] if "-" in stem else None


ABOUT = {
    "source": "Camerash/mahjong-dataset, raw-images (https://github.com/Camerash/mahjong-dataset)",
    "licence": "MIT",
    "root": "photos/camerash/raw-images under the shared data folder "
            "(../shared/data, or $RIICHI_SHARED_DATA)",
    "made": ("proposed by bench/label_photos.py (a lattice fitted to the seams of each photo's "
             "grid, each seam then fitted as a straight line; codes from the nearest labelled "
             "Camerash crop when it is a near copy, else from the shipped classifier; which way "
             "up from the crops, read both ways), then every tile checked by eye on drawn "
             "overlays and upright crops, and what was wrong corrected by hand (CORRECTIONS in "
             "testkit/labelling.py; how many: corrected)"),
    "quad": "the tile's face outline in full-resolution pixels, x right, y down: top-left, "
            "top-right, bottom-right, bottom-left as the tile reads upright",
    "code": "mpsz (1m..9m, 1p..9p, 1s..9s, 1z..7z = E S W N white green red); x = a tile that "
            "is no riichi kind (flowers, seasons, jokers): a tile to find, not to name",
    "partial": "true where the photo's edge cuts the tile: along that edge the tiles come out "
               "more than 4% short (more than half of each still shows)",
    "grid": "row and column of the tile in the photo's grid, as CORRECTIONS names it",
    "upright": "a tile whose face reads the same either way up (here 1p 4p 5p 8p 9p 2s 4s 5s 6s "
               "8s 9s) has its quad start top-left as photographed",
    "designs": "Hong Kong and American-style sets: the white dragon 5z is a frame (blue, black, "
               "or with a character inside in set 1); in 4.jpg, 5.jpg and 7.jpg the dragons are "
               "drawn as creatures (red 7z, green 6z); flowers, seasons, jokers and the "
               "figures of 11.jpg are x",
}


def photo_order(name: str) -> tuple:
    """Photos in the order of their names' numbers: ``2-1.jpg`` before ``10.jpg``."""
    stem = name.rsplit(".", 1)[0]
    return tuple(int(part) for part in stem.split("-"))

