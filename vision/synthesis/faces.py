"""The face textures solid tiles carry (:mod:`vision.synthesis.bodies`).

Faces are the FluffyStuff art (both styles, and the varied designs of
:mod:`vision.synthesis.render`) and, when given, real tile photographs (the Camerash crops,
:func:`load_real_faces`), so the finder does not learn one set's drawing.
"""
from __future__ import annotations

import csv
from pathlib import Path

import cv2
import numpy as np

from referee.tiles import TILE_CODES

from . import render
from .render import TileArt

_CODES = TILE_CODES    # what a face may show (37 codes)


class FaceBank:
    """Face textures: the rendered art (:class:`vision.synthesis.render.TileArt`) and, if given, real
    tile photographs (a list of (crop, name)). Rendered faces are drawn into a pool of
    ``per_code`` designs per code, then reused (drawing one is the slow part of a scene)."""

    def __init__(self, art: TileArt, real: list[tuple[np.ndarray, str]] | None = None,
                 per_code: int = 12):
        self.art = art
        self.real = real or []
        self.per_code = per_code
        self.pool: dict[str, list] = {}

    def face(self, rng, code: str, tw: int = 84,
             styles: tuple[str, ...] | None = None) -> tuple[np.ndarray, np.ndarray, str]:
        """A face texture (float32 BGR, tw wide, tile-shaped), its body colour, and the code
        it shows: ``code``, or a real photograph's own (``x`` for no riichi kind).

        ``styles``: the art styles this set is printed in (None: any, a face at a time, with
        real photographs among them); a set printed in one style shows no photograph."""
        th = int(round(tw * 1.35))
        if styles is None and self.real and code != "back" and rng.random() < 0.35:
            img, code = self.real[rng.integers(len(self.real))]
            h, w = img.shape[:2]
            m = rng.uniform(0.0, 0.05, 4)
            crop = img[int(h * m[0]):h - int(h * m[1]), int(w * m[2]):w - int(w * m[3])]
            face = cv2.resize(crop, (tw, th), interpolation=cv2.INTER_AREA).astype(np.float32)
            edge = np.concatenate([face[:3].reshape(-1, 3), face[-3:].reshape(-1, 3)])
            return face, np.median(edge, axis=0), code
        label = code if code in render.LABELS else _CODES[rng.integers(len(_CODES))]
        pool = self.pool.setdefault(label if styles is None else (label, styles), [])
        if len(pool) < self.per_code:
            kw = {} if styles is None else {"styles": styles}
            pool.append(render._face_image(rng, self.art, label, tw, th, varied=rng.random() < 0.5,
                                           **kw))
            return (*pool[-1], label)
        return (*pool[rng.integers(len(pool))], label)


#: Camerash label names (``dots-3``, ``honors-red``) -> mpsz; flowers and seasons are ``x``.
CAMERASH_SUITS = {"characters": "m", "dots": "p", "bamboo": "s"}
CAMERASH_HONORS = {"east": "1z", "south": "2z", "west": "3z", "north": "4z",
                   "white": "5z", "green": "6z", "red": "7z"}


def camerash_code(label_name: str) -> str:
    """``dots-3`` -> ``3p``, ``honors-red`` -> ``7z``; ``x`` for flowers and seasons."""
    group, _, name = label_name.partition("-")
    if group in CAMERASH_SUITS:
        return f"{int(name)}{CAMERASH_SUITS[group]}"
    if group == "honors":
        return CAMERASH_HONORS.get(name, "x")
    return "x"


def load_real_faces(data: Path | None) -> list[tuple[np.ndarray, str]]:
    """The Camerash tile crops (real photographs, MIT) as face textures with their codes, or
    [] without the data."""
    if data is None:
        return []
    base = data / "photos" / "camerash"
    out = []
    try:
        with open(base / "tiles-data" / "data.csv", newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError:
        return []
    for row in rows:
        im = cv2.imread(str(base / "tiles-resized" / row["image-name"]))
        if im is not None:
            out.append((cv2.resize(im, (96, 128), interpolation=cv2.INTER_AREA),
                        camerash_code(row["label-name"])))
    return out
