"""The simulated camera's table as a scene the finder trains on.

:mod:`vision.synthesis.synthetic` draws the table the demo and the tests play on: flat tile art pasted
straight down on green felt, ponds, melds, walls, a revealed hand and arms reaching in. The
solid-tile scenes of :mod:`vision.synthesis.scene` never look like that (their tiles have bodies and
perspective), and a finder that has never seen a flat sticker of a souzu tile on green felt
misses it. A share of the training scenes is therefore cut from random positions of that
table, at the sizes the table service shows it to the finder.
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.camera.calibration import TableLayout
from vision.camera.zones import TILE_H_MM, TILE_W_MM

from .scene import IGNORE, POSITIVE, Scene, SceneTile
from .synthetic import Hand, PlacedTile, TableState, _draw_hand, render_topdown

_SUITED = [f"{n}{s}" for s in "mps" for n in range(1, 10)] + ["0m", "0p", "0s"]
CODES = _SUITED + [f"{n}z" for n in range(1, 8)]


def random_state(rng: np.random.Generator) -> TableState:
    """A position that could come up in a hand: ponds of any length with the odd riichi tile
    and called-away gap, open melds (now and then an added or a closed kan), a revealed hand,
    dora indicators and, usually, the walls."""
    code = lambda: CODES[rng.integers(len(CODES))]
    st = TableState(walls=bool(rng.random() < 0.6))
    for seat in range(4):
        n = int(rng.integers(0, 20))
        riichi = int(rng.integers(n)) if n and rng.random() < 0.35 else -1
        st.ponds[seat] = [(None if rng.random() < 0.04 else code(), i == riichi) for i in range(n)]
        for _ in range(int(rng.choice(4, p=[0.5, 0.25, 0.15, 0.1]))):
            c = code()
            if rng.random() < 0.1:        # a closed kan, its ends face down
                st.melds[seat].append((["back", c, c, "back"], None, None))
                continue
            size = 4 if rng.random() < 0.15 else 3
            added = c if size == 3 and rng.random() < 0.12 else None
            st.melds[seat].append(([code() for _ in range(size)], int(rng.integers(size)), added))
        if rng.random() < 0.15:
            st.hands[seat] = [code() for _ in range(int(rng.integers(13, 15)))]
    st.dora = [code() for _ in range(int(rng.integers(1, 4)))]
    return st


def tile_quad(t: PlacedTile, ppm: float) -> np.ndarray:
    """The tile's outline in pixels, corners in its reading order (TL, TR, BR, BL)."""
    w, h = TILE_W_MM / 2, TILE_H_MM / 2
    corners = np.array([[-w, -h], [w, -h], [w, h], [-w, h]], np.float64)
    a = np.deg2rad(90.0 * t.turns + t.angle)          # clockwise on the picture (y down)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return ((corners @ rot.T + (t.x, t.y)) * ppm).astype(np.float32)


def render_flat_scene(rng: np.random.Generator, size: tuple[int, int] = (320, 320)) -> Scene:
    """A ``size`` window of a random position drawn by :mod:`vision.synthesis.synthetic`, tiles 14 to
    45 pixels wide, under uneven light, with up to two arms over it."""
    st = random_state(rng)
    tiles = st.tiles()
    for t in tiles:                          # tiles are not always laid down square
        if rng.random() < 0.15:
            t.angle = float(rng.normal(0, 4))
    ppm = float(np.exp(rng.uniform(np.log(0.55), np.log(1.75))))
    hands = []
    for _ in range(int(rng.choice(3, p=[0.6, 0.3, 0.1]))):
        near = tiles[rng.integers(len(tiles))]
        hands.append(Hand(near.x + rng.normal(0, 30), near.y + rng.normal(0, 30),
                          int(rng.integers(4)), float(rng.uniform(45, 65))))
    layout = TableLayout(st.size_mm, st.size_mm)
    image = render_topdown(tiles, hands, layout, ppm, seed=int(rng.integers(3)))
    mask = np.zeros_like(image)
    for hand in hands:
        _draw_hand(mask, hand, st.size_mm, ppm)
    mask = np.where(mask.max(axis=2) > 0, 255, 0).astype(np.uint8)
    H, W = image.shape[:2]
    ramp_x = np.linspace(*rng.uniform(0.7, 1.2, 2), W, dtype=np.float32)[None, :]
    ramp_y = np.linspace(*rng.uniform(0.85, 1.1, 2), H, dtype=np.float32)[:, None]
    image = np.clip(image * (ramp_x * ramp_y)[:, :, None], 0, 255).astype(np.uint8)
    # a window around a tile (most of the table is felt)
    sw, sh = size
    cx, cy = (tiles[rng.integers(len(tiles))].x * ppm, tiles[rng.integers(len(tiles))].y * ppm) \
        if rng.random() < 0.85 else (rng.uniform(0, W), rng.uniform(0, H))
    x0 = int(np.clip(cx - rng.uniform(0.2, 0.8) * sw, 0, max(0, W - sw)))
    y0 = int(np.clip(cy - rng.uniform(0.2, 0.8) * sh, 0, max(0, H - sh)))
    window = np.zeros((sh, sw, 3), np.uint8)
    window_mask = np.zeros((sh, sw), np.uint8)
    part = image[y0:y0 + sh, x0:x0 + sw]
    window[:part.shape[0], :part.shape[1]] = part
    window_mask[:part.shape[0], :part.shape[1]] = mask[y0:y0 + sh, x0:x0 + sw]
    out = []
    for t in tiles:
        q = tile_quad(t, ppm) - (x0, y0)
        inside = (q[:, 0] >= 0) & (q[:, 0] < part.shape[1]) & (q[:, 1] >= 0) & (q[:, 1] < part.shape[0])
        if not inside.any():
            continue
        body = np.zeros((sh, sw), np.uint8)
        cv2.fillConvexPoly(body, np.round(q).astype(np.int32), 255)
        area = max(1, int(np.count_nonzero(body)))
        covered = np.count_nonzero(window_mask[body > 0]) / area
        if covered > 0.9:
            continue
        status = POSITIVE if inside.all() and covered < 0.3 else IGNORE
        out.append(SceneTile(q, t.code, status, 1.0 - covered))
    return Scene(window, out, window_mask)
