"""Rendered tables to measure the table camera's path on, each with its truth.

:func:`full_table_frame`: one camera picture of a full table in play, from the simulated
camera (flat art pasted on green felt), and its calibration. :func:`scenes`: held-out tables as
a camera over a real one sees them (:mod:`vision.synthesis.scene`: tiles with thickness and a
coloured back, walls, melds, standing hands, sticks, arms, table tops unseen in training, some
with an automatic table's centre panel, uneven light, glare, blur and noise), seen from 60 to
90 degrees above and warped onto the table's plane at the scale calibration chooses for that
camera (:func:`vision.camera.calibration.view_scale`), or at one given.
"""
from __future__ import annotations

import cv2
import numpy as np

FRAME = (1280, 960)


def full_table_frame(discard: str | None = None):
    """A 1280x960 camera picture of a full table in play (four ponds with riichi tiles,
    walls, the dead wall, melds, a revealed hand) and its calibration. ``discard``: one tile
    more at the end of seat 0's pond (the same table a discard later)."""
    from vision.camera.calibration import calibrate
    from vision.synthesis.synthetic import TableState, render_camera, render_state

    codes = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "2z", "3z", "4z",
             "5z", "6z", "7z", "0m", "0p"]
    state = TableState(dora=["3p", "4p"])
    for seat in range(4):
        state.ponds[seat] = [(codes[(i * 5 + seat) % 18], i == 7) for i in range(16)]
        state.melds[seat] = [(["2s", "3s", "4s"], 0, None)]
    state.hands[2] = codes[:14]
    if discard is not None:
        state.ponds[0].append((discard, False))
    frame, _ = render_camera(render_state(state), out_size=FRAME)
    return frame, calibrate(frame)


def table_camera(rng, extent, size=FRAME):
    """A camera over the table, 60 to 90 degrees above it, holding the whole table."""
    from vision.synthesis.pinhole import look_at

    e = max(abs(v) for v in extent)
    f = max(size) * rng.uniform(0.6, 1.2)
    ppm = rng.uniform(0.85, 0.95) * min(size) / (2 * e)      # image pixels per table mm
    elev = np.deg2rad(rng.uniform(60, 90))
    return look_at((rng.normal(0, 10), rng.normal(0, 10), 0), elev, rng.uniform(0, 2 * np.pi),
                   f / ppm, rng.normal(0, 0.03), f, size)


def scenes(n: int, seed: int, px_per_mm: float | None = None):
    """``n`` held-out table scenes: (top-down view, truth quads face up, their codes, quads to
    ignore, which top, the view's px per mm). Counted as a referee reads a table: the face-up
    tiles lying in sight; a face-down tile, a standing hand tile or a tile mostly out of sight
    is to be ignored. ``px_per_mm``: the views' scale (None: as calibration chooses for each
    scene's camera)."""
    from vision.camera.calibration import view_scale
    from vision.synthesis.render import TileArt
    from vision.synthesis.bodies import tile_set
    from vision.synthesis.faces import FaceBank
    from vision.synthesis.layouts import layout_table
    from vision.synthesis.scene import POSITIVE, draw_scene

    bank = FaceBank(TileArt())
    rng = np.random.default_rng(seed)
    for _ in range(n):
        ts = tile_set(rng)
        bodies, info = layout_table(rng, ts, bank)
        cam = table_camera(rng, info["extent"])
        sc = draw_scene(rng, bodies, cam, FRAME, info, "holdout", props=True)
        ppm = px_per_mm or view_scale(np.linalg.inv(cam.plane_homography()), info["extent"])
        view, to_view = cam.table_view(sc.image, info["extent"], ppm)
        truth, codes, ignore = [], [], []
        h, w = view.shape[:2]
        for t in sc.tiles:
            q = cv2.perspectiveTransform(t.quad.reshape(-1, 1, 2).astype(np.float64), to_view)
            q = q.reshape(-1, 2).astype(np.float32)
            inside = (q[:, 0] >= 0).all() and (q[:, 1] >= 0).all() and \
                (q[:, 0] < w).all() and (q[:, 1] < h).all()
            if t.status == POSITIVE and t.code not in ("back", "x") and inside:
                truth.append(q)
                codes.append(t.code)
            else:
                ignore.append(q)
        yield view, truth, codes, ignore, "panel" if info.get("panel") else "felt", ppm
