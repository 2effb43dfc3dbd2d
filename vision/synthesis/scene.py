"""Rendered scenes of tiles as solid bodies, to train and test the tile finder.

The finder must learn what a riichi tile's body looks like from any camera: straight above a
table, a phone held at 20-70 degrees, a hand row photographed close. A scene here is composed
from the pieces of this package, one idea to a module:

* :mod:`~vision.synthesis.layouts` places solid tiles (:mod:`~vision.synthesis.bodies`, their
  faces from :mod:`~vision.synthesis.faces`) in 3-D: lying face up or down, across, stacked
  on a wall or an added kan, standing in a player's hand, askew;
* a pinhole camera (:mod:`~vision.synthesis.pinhole`) is placed to look at them as that kind
  of scene is shot;
* the table top and the room beyond (:mod:`~vision.synthesis.table_top`) are drawn, the
  tiles' shadows and sticks laid on them (:mod:`~vision.synthesis.props`), each visible face
  of each tile drawn in perspective with its shading, far tiles first
  (:mod:`~vision.synthesis.raster`), hands and arms laid over, and the picture degraded like
  a real camera's (:func:`vision.synthesis.render.camera`).

Every tile comes out with the outline of its large surface facing the camera (the face, or
the back of a face-down or turned-away tile) as a quadrilateral in reading order, and a
status: ``POSITIVE`` (the finder must find it), ``IGNORE`` (too little shows, or seen too
edge-on, to insist either way) - everything else is background. A mask of the hands over the
table comes out too: the finder reports hidden places so a tracker does not take a covered
tile for a removed one.

Everything is drawn from a seeded ``numpy.random.Generator``: a scene is reproducible from
its seed.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from . import render
from .bodies import Body, TileSet, tile_set
from .faces import FaceBank
from .layouts import LAYOUTS
from .pinhole import Camera, look_at
from .props import cast_shadows, hand_over, stick
from .raster import draw_body, poly_area
from .table_top import draw_table

#: A tile's status in a scene (see the module doc).
POSITIVE, IGNORE = 1, 0

#: Scene kinds and how often each is drawn.
KINDS = {"table": 0.30, "close": 0.25, "hand_row": 0.15, "grid": 0.15, "scatter": 0.15}


@dataclass
class SceneTile:
    quad: np.ndarray      # 4 x 2 pixels, reading order (TL, TR, BR, BL)
    code: str             # what the large surface shows: a tile code, ``back`` or ``x``
    status: int           # POSITIVE or IGNORE
    visible: float        # share of the surface in sight


@dataclass
class Scene:
    image: np.ndarray     # uint8 BGR
    tiles: list[SceneTile]
    hands: np.ndarray     # uint8 mask, 255 where a hand or arm covers the table


def _camera_for(rng, kind: str, info: dict, ts: TileSet, size: tuple[int, int]) -> Camera:
    Wimg, Himg = size
    W = ts.size[0]
    f = max(Wimg, Himg) * rng.uniform(0.6, 1.6)
    if kind == "table":
        px = np.exp(rng.uniform(np.log(11), np.log(40)))      # a tile's width in pixels
        elev = np.deg2rad(rng.uniform(55, 90) if rng.random() < 0.7 else rng.uniform(25, 55))
        fx, fy = info["focus"]
        target = (fx * rng.uniform(0, 1), fy * rng.uniform(0, 1), 0)
    elif kind == "close":
        px = np.exp(rng.uniform(np.log(30), np.log(150)))
        elev = np.deg2rad(rng.uniform(20, 90))
        fx, fy = info["focus"]
        target = (fx + rng.normal(0, 20), fy + rng.normal(0, 20), 0)
    elif kind == "hand_row":
        span = info["span"][0]
        px = np.clip(Wimg * rng.uniform(0.55, 1.0) / (span / W), 14, 170)
        elev = np.deg2rad(rng.uniform(10, 70))
        target = (*info["focus"], ts.size[1] * 0.5)
    else:   # grid, scatter: fill most of the picture
        span = max(info["span"][0], 1.0)
        px = np.clip(Wimg * rng.uniform(0.5, 1.1) / (span / W), 12, 170)
        elev = np.deg2rad(rng.uniform(60, 90) if rng.random() < 0.75 else rng.uniform(30, 60))
        target = (rng.normal(0, span * 0.1), rng.normal(0, span * 0.1), 0)
    distance = f * W / px
    if kind == "hand_row":
        az = rng.normal(0, 0.35) if rng.random() < 0.75 else np.pi + rng.normal(0, 0.35)
    else:
        az = rng.uniform(0, 2 * np.pi)
    roll = rng.normal(0, 0.08) if rng.random() < 0.7 else rng.uniform(-np.pi, np.pi)
    return look_at(target, elev, az, distance, roll, f, size)


def render_scene(bank: FaceBank, rng: np.random.Generator, size: tuple[int, int] = (384, 384),
                 kind: str | None = None, tables: str = "train", dark_sets: float = 0.0) -> Scene:
    """One scene of ``kind`` (see :data:`KINDS`; drawn at random when None) at ``size``
    (w, h) pixels, on ``tables`` of the training or the held-out family
    (:func:`vision.synthesis.render.background`). ``dark_sets``: the share of scenes whose
    whole set is printed in the art's Black style (light ink on dark faces); the others draw
    each face's style on its own, as with 0."""
    if kind is None:
        kind = rng.choice(list(KINDS), p=list(KINDS.values()))
    ts = tile_set(rng)
    # Asked only when wanted, so the scenes drawn without it stay as they were.
    if dark_sets and rng.random() < dark_sets:
        ts.styles = ("Black",)
    bodies, info = LAYOUTS[kind](rng, ts, bank)
    cam = _camera_for(rng, kind, info, ts, size)
    return draw_scene(rng, bodies, cam, size, info, tables, props=kind in ("table", "close", "scatter"))


def draw_scene(rng: np.random.Generator, bodies: list[Body], cam: Camera, size: tuple[int, int],
               info: dict, tables: str = "train", props: bool = True,
               hand_count: int | None = None) -> Scene:
    """Draw ``bodies`` seen by ``cam`` on a table spanning ``info["extent"]`` (mm; with a
    centre panel at ``info.get("panel")``), with sticks when ``props``, and ``hand_count``
    hands over the table near tiles (None: none to two, at random)."""
    ss = 2 if max(size) <= 512 else 1        # draw at twice the size, then shrink like a sensor
    big = (size[0] * ss, size[1] * ss)
    cam_big = Camera(cam.R, cam.C, cam.f * ss, cam.cx * ss, cam.cy * ss)
    canvas = np.zeros((big[1], big[0], 3), np.float32)
    draw_table(rng, canvas, cam_big, info["extent"], info.get("panel"), tables)
    az = rng.uniform(0, 2 * np.pi)
    light = np.array([np.cos(az) * 0.6, np.sin(az) * 0.6, rng.uniform(0.5, 1.5)])
    light /= np.linalg.norm(light)
    ambient = rng.uniform(0.45, 0.8)
    if rng.random() < 0.7:
        cast_shadows(rng, canvas, cam_big, bodies, light)
    ids = np.zeros(big[::-1], np.int32)
    ppm = cam_big.f / np.linalg.norm(cam_big.C - np.array([*info["focus"], 0]))
    for _ in range(int(rng.integers(0, 3)) if props else 0):
        x0, y0, x1, y1 = info["extent"]
        stick(rng, canvas, cam_big, rng.uniform(x0, x1) * 0.4, rng.uniform(y0, y1) * 0.4)
    # far tiles first
    depth = [cam.project(b.world(np.array([[0, 0, b.size[2] / 2]])))[1][0] for b in bodies]
    order = np.argsort(depth)[::-1]
    for i in order:
        draw_body(canvas, ids, cam_big, bodies[i], int(i) + 1, light, ambient, rng)
    if ss > 1:
        canvas = cv2.resize(canvas, size, interpolation=cv2.INTER_AREA)
        ids = ids[ss // 2::ss, ss // 2::ss]
    hands = np.zeros(size[::-1], np.float32)
    n_hands = rng.choice([0, 1, 2], p=[0.7, 0.25, 0.05]) if hand_count is None else hand_count
    for _ in range(n_hands):
        b = bodies[rng.integers(len(bodies))] if bodies else None
        near = b.t if b is not None else np.zeros(3)
        hand_over(rng, canvas, ids, hands, cam, np.asarray(near, np.float64), ppm / ss)
    canvas = render._light(rng, canvas, harsh=False)
    image = render.camera(rng, canvas, harsh=rng.random() < 0.3)
    counts = np.bincount(np.clip(ids.ravel(), 0, None), minlength=len(bodies) + 1)
    tiles = []
    Wimg, Himg = size
    for i, b in enumerate(bodies):
        quad, facing, code = big_surface_quad(cam, b)
        area = poly_area(quad)
        if area < 4:
            continue
        inside = poly_area(_clip_to(quad, Wimg, Himg))
        visible = counts[i + 1] / max(area, 1.0)
        centre = quad.mean(0)
        in_picture = 0 <= centre[0] < Wimg and 0 <= centre[1] < Himg
        short = min(np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[3] - quad[0]))
        if visible < 0.2 or facing < 0.2 or not in_picture or inside < 0.3 * area or short < 4:
            continue
        ok = visible >= 0.65 and facing >= 0.35 and inside >= 0.7 * area and short >= 7
        tiles.append(SceneTile(quad.astype(np.float32), code, POSITIVE if ok else IGNORE,
                               round(float(visible), 3)))
    return Scene(image, tiles, (np.clip(hands, 0, 1) * 255).astype(np.uint8))


def big_surface_quad(cam: Camera, body: Body) -> tuple[np.ndarray, float, str]:
    """The quad (reading order) of the large surface the camera sees, how square-on it is
    seen (1: face on, 0: edge on) and what it shows (the code, or ``back``)."""
    W, L, T = body.size
    view = cam.C - body.world(np.array([0, 0, T / 2]))
    view /= np.linalg.norm(view)
    n = body.R[:, 2]
    facing = float(n @ view)
    w_level = T if facing > 0 else 0.0
    corners = np.array([[-W / 2, -L / 2, w_level], [W / 2, -L / 2, w_level],
                        [W / 2, L / 2, w_level], [-W / 2, L / 2, w_level]])
    pts, z = cam.project(body.world(corners))
    code = body.code if facing > 0 and body.code != "back" else "back"
    if (z <= 1).any():   # partly behind the camera: not a tile in the picture
        facing = 0.0
    return pts, abs(facing), code


def _clip_to(quad: np.ndarray, w: int, h: int) -> np.ndarray:
    """``quad`` clipped to the picture (a convex polygon)."""
    box = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    area, poly = cv2.intersectConvexConvex(quad.astype(np.float32), box)
    return poly.reshape(-1, 2) if poly is not None and area > 0 else np.zeros((3, 2), np.float32)
