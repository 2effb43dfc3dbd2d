"""What lies on or over a table besides the tiles: the soft shadows the tiles cast, riichi
and point sticks, and players' hands and arms reaching in (marked, so the finder learns to
report hidden places rather than take a covered tile for a removed one).
"""
from __future__ import annotations

import cv2
import numpy as np

from . import render
from .bodies import Body
from .pinhole import Camera


def cast_shadows(rng, canvas, cam: Camera, bodies: list[Body], light: np.ndarray) -> None:
    """Soft shadows the tiles cast on the table, away from the light."""
    if light[2] < 0.2:
        return
    H, W = canvas.shape[:2]
    mask = np.zeros((H, W), np.float32)
    for b in bodies:
        c = b.world(b.corners())
        if c[:, 2].max() < 1:
            continue
        flat = c - (c[:, 2:3] / light[2]) * light[None, :]
        pts, z = cam.project(flat)
        if (z <= 1).any():
            continue
        hull = cv2.convexHull(pts.astype(np.float32))
        cv2.fillConvexPoly(mask, np.round(hull * 4).astype(np.int32), 1.0, cv2.LINE_AA, 2)
    sigma = max(0.8, rng.uniform(0.5, 2.5) * cam.f / np.linalg.norm(cam.C))
    mask = cv2.GaussianBlur(mask, (0, 0), sigma)
    canvas *= (1 - rng.uniform(0.2, 0.5) * mask)[..., None]


def hand_over(rng, canvas, ids, hands_mask, cam: Camera, near: np.ndarray, ppm: float) -> None:
    """A hand and arm over the table near world point ``near``, reaching in from off the
    picture: painted on the canvas, marked in ``hands_mask`` and hiding tiles in ``ids``."""
    H, W = canvas.shape[:2]
    p, z = cam.project(near[None])
    if (z <= 1).any():
        return
    cx, cy = p[0] + rng.normal(0, 0.3 * ppm * 30, 2)
    palm = ppm * rng.uniform(38, 55)
    mask = np.zeros((H, W), np.float32)
    a = rng.uniform(0, 2 * np.pi)
    cv2.ellipse(mask, (int(cx), int(cy)), (int(palm), int(palm * rng.uniform(0.7, 0.9))),
                np.rad2deg(a), 0, 360, 1.0, -1, cv2.LINE_AA)
    far = (cx + np.cos(a) * 3 * max(H, W), cy + np.sin(a) * 3 * max(H, W))
    cv2.line(mask, (int(cx), int(cy)), (int(far[0]), int(far[1])), 1.0,
             max(2, int(palm * rng.uniform(1.1, 1.5))), cv2.LINE_AA)
    for k in range(int(rng.integers(0, 5))):   # fingers
        fa = a + np.pi + rng.uniform(-0.9, 0.9)
        ln = palm * rng.uniform(0.9, 1.6)
        tip = (cx + np.cos(fa) * ln, cy + np.sin(fa) * ln)
        cv2.line(mask, (int(cx), int(cy)), (int(tip[0]), int(tip[1])), 1.0,
                 max(1, int(palm * 0.28)), cv2.LINE_AA)
    if rng.random() < 0.5:   # a sleeve on the arm
        sleeve = np.zeros_like(mask)
        start = (cx + np.cos(a) * palm * 2.2, cy + np.sin(a) * palm * 2.2)
        cv2.line(sleeve, (int(start[0]), int(start[1])), (int(far[0]), int(far[1])), 1.0,
                 max(2, int(palm * 1.9)), cv2.LINE_AA)
        colour = render._hsv_colour(rng, (0, 180), (0, 200), (20, 220))
        s = sleeve[..., None]
        canvas[:] = canvas * (1 - s) + colour * s
        mask = np.maximum(mask - sleeve, 0)
        hands_mask[:] = np.maximum(hands_mask, sleeve)
        ids[sleeve > 0.5] = -1
    render._skin(rng, canvas, mask)
    hands_mask[:] = np.maximum(hands_mask, mask)
    ids[mask > 0.5] = -1


def stick(rng, canvas, cam: Camera, x, y) -> None:
    """A riichi or point stick lying on the table at (x, y) mm."""
    a = rng.uniform(0, np.pi)
    L, T = rng.uniform(70, 120), rng.uniform(7, 12)
    d = np.array([np.cos(a), np.sin(a), 0]) * L / 2
    n = np.array([-np.sin(a), np.cos(a), 0]) * T / 2
    c = np.array([x, y, 1.0])
    pts, z = cam.project(np.array([c - d - n, c + d - n, c + d + n, c - d + n]))
    if (z <= 1).any():
        return
    render._fill(canvas, pts.astype(np.float32), render._jitter(rng, (225, 230, 235), 15))
    dot, _ = cam.project(c[None])
    r = max(1, int(0.4 * np.linalg.norm(pts[0] - pts[3])))
    cv2.circle(canvas, (int(dot[0, 0]), int(dot[0, 1])), r,
               render._jitter(rng, (40, 40, 200), 30).tolist(), -1, cv2.LINE_AA)
