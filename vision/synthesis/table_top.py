"""The table under the tiles, in perspective: a top of felt, wood, cloth or plastic (lines
printed on some, an automatic table's centre panel on others, an edge rail round most), and
the room beyond its edge.
"""
from __future__ import annotations

import cv2
import numpy as np

from . import render
from .pinhole import Camera


def _table_texture(rng, w: int, h: int, tables: str = "train") -> np.ndarray:
    family = tables if tables != "train" or rng.random() < 0.8 else "backlike"
    img = render.background(rng, h, w, family)
    if rng.random() < 0.3:   # a cloth or mat with a printed pattern or lines
        colour = render._jitter(rng, (220, 220, 220), 35)
        for _ in range(int(rng.integers(1, 6))):
            p1 = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
            p2 = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
            cv2.line(img, p1, p2, colour.tolist(), int(rng.integers(1, max(2, w // 80))), cv2.LINE_AA)
    return img


def _panel(rng, tex, ppm, cx, cy):
    """An automatic table's centre panel: a dark square with a score display, seat lights,
    and the dice cup, printed where (cx, cy) mm falls in the table texture."""
    side = rng.uniform(140, 230) * ppm
    x0, y0 = cx * ppm - side / 2, cy * ppm - side / 2
    colour = render._jitter(rng, rng.choice([(30, 30, 30), (60, 60, 60), (40, 40, 90), (90, 60, 40)]), 15)
    render._fill(tex, render._rounded_rect(x0, y0, side, side, side * 0.08), colour)
    for k in range(4):   # a display and seat lights on each side
        ang = k * np.pi / 2
        dx, dy = np.cos(ang), np.sin(ang)
        px, py = cx * ppm + dx * side * 0.36, cy * ppm + dy * side * 0.36
        wd, ht = side * 0.28, side * 0.09
        if k % 2:
            wd, ht = ht, wd
        c = render._jitter(rng, rng.choice([(40, 40, 200), (40, 200, 60), (200, 160, 40), (30, 30, 30)]), 30)
        cv2.rectangle(tex, (int(px - wd / 2), int(py - ht / 2)), (int(px + wd / 2), int(py + ht / 2)),
                      c.tolist(), -1)
    if rng.random() < 0.7:
        cv2.circle(tex, (int(cx * ppm), int(cy * ppm)), int(side * rng.uniform(0.12, 0.2)),
                   render._jitter(rng, (180, 180, 190), 40).tolist(), -1, cv2.LINE_AA)
    if rng.random() < 0.5:   # slots where the walls rise
        for k in range(4):
            ang = k * np.pi / 2 + np.pi / 4
            sx, sy = cx * ppm + np.cos(ang) * side * 0.9, cy * ppm + np.sin(ang) * side * 0.9
            cv2.circle(tex, (int(sx), int(sy)), int(side * 0.05), (20, 20, 20), -1, cv2.LINE_AA)


def _room(rng, h, w) -> np.ndarray:
    """What lies beyond the table: a floor, a wall, another table - soft patches of colour."""
    small = render._hsv_colour(rng, (0, 180), (0, 120), (30, 200))[None, None] + \
        rng.normal(0, 25, (3, 3, 3)).astype(np.float32)
    img = cv2.resize(small.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    grain = cv2.resize(render._noise(rng, (min(h, 512), min(w, 512), 3)), (w, h))
    return np.clip(img + 4 * grain, 0, 255)


def _visible_region(cam: Camera, size: tuple[int, int], extent) -> tuple[float, ...] | None:
    """The part of ``extent`` (x0, y0, x1, y1 mm, on the table plane) the camera sees."""
    W, H = size
    xs = np.linspace(0, W, 9)
    ys = np.linspace(0, H, 9)
    border = np.concatenate([np.stack([xs, np.zeros_like(xs)], 1), np.stack([xs, np.full_like(xs, H)], 1),
                             np.stack([np.zeros_like(ys), ys], 1), np.stack([np.full_like(ys, W), ys], 1)])
    rays = cam.ray(border)
    down = rays[:, 2] < -1e-6
    x0, y0, x1, y1 = extent
    if not down.all():   # the horizon is in the picture: the table runs to its far edge
        pts = [(x0, y0), (x1, y1)]
    else:
        pts = []
    s = -cam.C[2] / rays[down, 2]
    hit = cam.C[None, :2] + s[:, None] * rays[down, :2]
    pts = np.concatenate([np.array(pts).reshape(-1, 2), hit]) if len(hit) else np.array(pts)
    if not len(pts):
        return None
    vx0, vy0 = np.maximum(pts.min(0), [x0, y0])
    vx1, vy1 = np.minimum(pts.max(0), [x1, y1])
    if vx0 >= vx1 or vy0 >= vy1:
        return None
    return float(vx0), float(vy0), float(vx1), float(vy1)


def draw_table(rng, canvas, cam: Camera, extent: tuple[float, float, float, float],
                panel_at=None, tables: str = "train") -> None:
    """The table top (felt, wood, cloth) over ``extent`` (x0, y0, x1, y1 mm) in perspective,
    with an edge rail, seen through ``cam``; the room around it."""
    H, W = canvas.shape[:2]
    canvas[:] = _room(rng, H, W)
    region = _visible_region(cam, (W, H), extent)
    if region is None:
        return
    x0, y0, x1, y1 = region
    # texture detail about that of the picture near the target, never a huge texture
    ppm = float(np.clip(cam.f / np.linalg.norm(cam.C) * 1.2, 0.3, 6.0))
    ppm = min(ppm, 512 / max(x1 - x0, y1 - y0))
    tw, th = max(8, int((x1 - x0) * ppm)), max(8, int((y1 - y0) * ppm))
    tex = _table_texture(rng, tw, th, tables)
    if panel_at is not None:
        _panel(rng, tex, ppm, panel_at[0] - x0, panel_at[1] - y0)
    ex0, ey0, ex1, ey1 = extent
    if rng.random() < 0.6:   # the rail round the table's edge
        rail = rng.uniform(15, 45)
        colour = render._jitter(rng, rng.choice([(40, 70, 110), (30, 30, 30), (200, 200, 200), (50, 90, 60)]), 20)
        for r in ((ex0, ey0, ex1, ey0 + rail), (ex0, ey1 - rail, ex1, ey1),
                  (ex0, ey0, ex0 + rail, ey1), (ex1 - rail, ey0, ex1, ey1)):
            cv2.rectangle(tex, (int((r[0] - x0) * ppm), int((r[1] - y0) * ppm)),
                          (int((r[2] - x0) * ppm), int((r[3] - y0) * ppm)), colour.tolist(), -1)
    Hm = cam.plane_homography() @ np.array([[1 / ppm, 0, x0], [0, 1 / ppm, y0], [0, 0, 1.0]])
    tex_img = cv2.warpPerspective(tex, Hm, (W, H), flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    m = cv2.warpPerspective(np.ones((th, tw), np.float32), Hm, (W, H), flags=cv2.INTER_LINEAR,
                            borderValue=0)
    # points behind the camera would wrap round: keep only pixels whose ray meets the table
    gx, gy = np.arange(0, W, 8.0), np.arange(0, H, 8.0)
    rays = cam.ray(np.stack(np.meshgrid(gx, gy), -1).reshape(-1, 2))
    ok = (rays[:, 2] < -1e-6).reshape(len(gy), len(gx)).astype(np.float32)
    if not ok.all():
        m *= cv2.resize(ok, (W, H), interpolation=cv2.INTER_NEAREST)
    canvas[:] = canvas * (1 - m[..., None]) + tex_img * m[..., None]
