"""Rendered scenes of tiles as solid bodies, to train and test the tile finder.

A riichi tile is a box (about 26 x 35 x 20 mm): an ivory face with rounded corners carrying
the art, and a back of coloured resin that shows as a band along its sides. The finder must
learn what such a body looks like from any camera: straight above a table, a phone held at
20-70 degrees, a hand row photographed close. So tiles here are placed in 3-D (lying face up
or down, across, stacked on a wall or an added kan, standing in a player's hand, askew), a
pinhole camera looks at them, and each visible face is drawn in perspective, far faces first,
with its shading; then hands, sticks and table furniture are laid over, and the picture is
degraded like a real camera's (:func:`vision.synthesis.render.camera`).

Every tile comes out with the outline of its large surface facing the camera (the face, or
the back of a face-down or turned-away tile) as a quadrilateral in reading order, and a
status: ``POSITIVE`` (the finder must find it), ``IGNORE`` (too little shows, or seen too
edge-on, to insist either way) - everything else is background. A mask of the hands over the
table comes out too: the finder reports hidden places so a tracker does not take a covered
tile for a removed one.

Faces are the FluffyStuff art (both styles, and the varied designs of :mod:`vision.synthesis.render`)
and, when given, real tile photographs (the Camerash crops), so the finder does not learn one
set's drawing. Everything is drawn from a seeded ``numpy.random.Generator``: a scene is
reproducible from its seed.
"""
from __future__ import annotations

import csv
import functools
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from . import render
from .render import TileArt

#: A tile's status in a scene (see the module doc).
POSITIVE, IGNORE = 1, 0

#: Scene kinds and how often each is drawn.
KINDS = {"table": 0.30, "close": 0.25, "hand_row": 0.15, "grid": 0.15, "scatter": 0.15}

_CODES = render.LABELS[:-2]    # tile codes (37)


# --- geometry -------------------------------------------------------------------------------

@dataclass
class Camera:
    """A pinhole camera: world -> camera rotation ``R`` (rows: image right, image down,
    forward), centre ``C`` (mm), focal length ``f`` and principal point (px)."""

    R: np.ndarray
    C: np.ndarray
    f: float
    cx: float
    cy: float

    def project(self, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Pixels (N x 2) of world points (N x 3), and their depths along the view."""
        pc = (np.asarray(pts, np.float64) - self.C) @ self.R.T
        z = pc[:, 2]
        zs = np.maximum(z, 1e-3)
        return np.stack([self.f * pc[:, 0] / zs + self.cx, self.f * pc[:, 1] / zs + self.cy], 1), z

    def ray(self, px: np.ndarray) -> np.ndarray:
        """World directions of the rays through pixels (N x 2)."""
        d = np.stack([(px[:, 0] - self.cx) / self.f, (px[:, 1] - self.cy) / self.f,
                      np.ones(len(px))], 1)
        return d @ self.R

    def plane_homography(self) -> np.ndarray:
        """Table plane (x, y mm at z = 0) -> image pixels."""
        K = np.array([[self.f, 0, self.cx], [0, self.f, self.cy], [0, 0, 1.0]])
        t = -self.R @ self.C
        return K @ np.column_stack([self.R[:, 0], self.R[:, 1], t])

    def table_view(self, picture: np.ndarray, extent, px_per_mm: float) -> tuple[np.ndarray, np.ndarray]:
        """This camera's ``picture`` warped onto the table's plane over ``extent`` (x0, y0, x1,
        y1 mm) at ``px_per_mm``, as calibration warps a camera's frame to the top-down view;
        and the map from picture pixels to the view's (3 x 3)."""
        x0, y0, x1, y1 = extent
        view_to_mm = np.array([[1 / px_per_mm, 0, x0], [0, 1 / px_per_mm, y0], [0, 0, 1.0]])
        view_to_picture = self.plane_homography() @ view_to_mm
        size = (int((x1 - x0) * px_per_mm), int((y1 - y0) * px_per_mm))
        view = cv2.warpPerspective(picture, view_to_picture, size,
                                   flags=cv2.WARP_INVERSE_MAP | cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_CONSTANT)
        return view, np.linalg.inv(view_to_picture)


def look_at(target, elevation: float, azimuth: float, distance: float, roll: float,
            f: float, size: tuple[int, int]) -> Camera:
    """A camera ``distance`` mm from ``target``, ``elevation`` radians above the table
    (pi/2: straight down), on the side ``azimuth`` (0: seat 0's side, the bottom of a top-down
    view), turned ``roll`` radians about its axis."""
    target = np.asarray(target, np.float64)
    horiz = np.array([np.sin(azimuth), np.cos(azimuth), 0.0])
    C = target + distance * (np.cos(elevation) * horiz + np.array([0, 0, np.sin(elevation)]))
    fwd = target - C
    fwd /= np.linalg.norm(fwd)
    up = -horiz            # the table's far side is up in the picture
    down = -(up - (up @ fwd) * fwd)
    down /= np.linalg.norm(down)
    # The table's axes (x right, y towards seat 0, z up) are those of a top-down picture, a
    # mirror of a right-handed world: the camera mirrors back so pictures are not mirrored.
    right = np.cross(fwd, down)
    c, s = np.cos(roll), np.sin(roll)
    right, down = c * right + s * down, -s * right + c * down
    return Camera(np.stack([right, down, fwd]), C, float(f), size[0] / 2, size[1] / 2)


def _rot_z(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def _rot_x(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


# --- tiles ----------------------------------------------------------------------------------

@dataclass
class Body:
    """One tile: local axes u (across the face, to the right as read), v (down the face as
    read), w (out of the face); the box spans u in +-W/2, v in +-L/2, w in [0, T], the face at
    w = T and the back at w = 0. ``R`` (columns: u, v, w in the world) and ``t`` place it."""

    R: np.ndarray
    t: np.ndarray
    size: tuple[float, float, float]
    code: str                 # what its face shows (``x``: a non-riichi tile)
    face: np.ndarray = field(repr=False)     # face texture, float32 BGR
    body_colour: np.ndarray = field(repr=False)
    back_colour: np.ndarray = field(repr=False)
    back_split: float = 0.5   # share of the thickness that is back-coloured
    radius: float = 3.0       # mm, the face's corner rounding

    def world(self, local: np.ndarray) -> np.ndarray:
        return np.asarray(local, np.float64) @ self.R.T + self.t

    def corners(self) -> np.ndarray:
        W, L, T = self.size
        return np.array([[u, v, w] for w in (0, T) for v in (-L / 2, L / 2)
                         for u in (-W / 2, W / 2)])


def lying(x, y, yaw, size, face_up=True, z=0.0, **kw) -> dict:
    """Pose of a tile lying on the table (or on another tile at height ``z``) centred at
    (x, y) mm, its reading direction turned ``yaw`` radians from seat 0's."""
    T = size[2]
    Rz = _rot_z(yaw)
    if face_up:
        R = Rz
        t = np.array([x, y, z])
    else:   # turned over about its length: the back on top
        R = Rz @ np.diag([-1.0, 1.0, -1.0])
        t = np.array([x, y, z + T])
    return dict(R=R, t=t, size=size, **kw)


def standing(x, y, yaw, size, lean=0.0, **kw) -> dict:
    """Pose of a tile standing on its end as in a player's hand, its face towards the
    direction ``yaw`` points the face's w axis to (0: towards seat 0, +y), leaning back
    ``lean`` radians."""
    L, T = size[1], size[2]
    # stand up: v points down (-z), w points towards +y (towards seat 0)
    base = np.array([[1.0, 0, 0], [0, 0, 1.0], [0, -1.0, 0]])   # columns: u, v, w
    R = _rot_z(yaw) @ _rot_x(-lean) @ base
    t = np.array([x, y, 0.0]) + R @ np.array([0, L / 2, -T / 2])
    t[2] = max(t[2], 0.0)
    return dict(R=R, t=t, size=size, **kw)


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

    def face(self, rng, code: str, tw: int = 84) -> tuple[np.ndarray, np.ndarray, str]:
        """A face texture (float32 BGR, tw wide, tile-shaped), its body colour, and the code
        it shows: ``code``, or a real photograph's own (``x`` for no riichi kind)."""
        th = int(round(tw * 1.35))
        if self.real and code != "back" and rng.random() < 0.35:
            img, code = self.real[rng.integers(len(self.real))]
            h, w = img.shape[:2]
            m = rng.uniform(0.0, 0.05, 4)
            crop = img[int(h * m[0]):h - int(h * m[1]), int(w * m[2]):w - int(w * m[3])]
            face = cv2.resize(crop, (tw, th), interpolation=cv2.INTER_AREA).astype(np.float32)
            edge = np.concatenate([face[:3].reshape(-1, 3), face[-3:].reshape(-1, 3)])
            return face, np.median(edge, axis=0), code
        label = code if code in render.LABELS else _CODES[rng.integers(len(_CODES))]
        pool = self.pool.setdefault(label, [])
        if len(pool) < self.per_code:
            pool.append(render._face_image(rng, self.art, label, tw, th, varied=rng.random() < 0.5))
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


@dataclass
class TileSet:
    """What one physical set looks like: size, colours; its faces, drawn once per code (one
    set prints each kind alike)."""

    size: tuple[float, float, float]
    back_colour: np.ndarray
    back_split: float
    radius: float
    faces: dict = field(default_factory=dict)

    def face(self, rng, bank: "FaceBank", code: str):
        """This set's face for ``code`` (see :meth:`FaceBank.face`)."""
        if code not in self.faces or rng.random() < 0.1:
            self.faces[code] = bank.face(rng, code)
        return self.faces[code]


def tile_set(rng) -> TileSet:
    W = rng.uniform(23.5, 28.5)
    L = W * rng.uniform(1.28, 1.40)
    T = W * rng.uniform(0.6, 0.82)
    return TileSet((W, L, T), render._back_colour(rng), rng.uniform(0.3, 0.65),
                   W * rng.uniform(0.06, 0.16))


def make_body(rng, bank: FaceBank, ts: TileSet, code: str, pose: dict) -> Body:
    # a face-down tile still has a face (seen if it stands turned away... never, but its
    # body colour is the set's)
    face, colour, shown = ts.face(rng, bank, code if code != "back" else "1z")
    return Body(face=face, body_colour=colour, back_colour=ts.back_colour,
                back_split=ts.back_split, radius=ts.radius, code=code if code == "back" else shown,
                **pose)


# --- drawing ----------------------------------------------------------------------------------

@functools.lru_cache(maxsize=64)
def _rounded_mask(w: int, h: int, r: int, pad: int) -> tuple[np.ndarray, np.ndarray]:
    """A rounded-rectangle mask of a w x h face inside a ``pad`` border, and its bevel (a
    blurred copy: 1 inside, falling off towards the rim)."""
    m = np.zeros((h + 2 * pad, w + 2 * pad), np.float32)
    render._fill(m, render._rounded_rect(pad, pad, w, h, r), np.array([1.0]))
    bevel = np.clip(cv2.GaussianBlur(m, (0, 0), max(1.0, w * 0.05)) * 1.6, 0, 1)
    return m, bevel


def _warp_onto(canvas, alpha_acc, texture, mask, src_quad, dst_quad, ids=None, ident=0):
    """Composite ``texture`` (float BGR) with ``mask`` (float 0..1), its ``src_quad`` corners
    mapped onto ``dst_quad`` in the canvas."""
    if _poly_area(dst_quad) < 0.5:
        # A face seen edge-on (a tile's side straight under the camera) covers no pixel, and
        # the homography onto its flat quad is singular: warping through it writes NaN.
        return
    H, W = canvas.shape[:2]
    x0, y0 = np.floor(dst_quad.min(0)).astype(int) - 1
    x1, y1 = np.ceil(dst_quad.max(0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
    if x0 >= x1 or y0 >= y1 or (x1 - x0) * (y1 - y0) > 4 * H * W:
        return
    M = cv2.getPerspectiveTransform(src_quad.astype(np.float32),
                                    (dst_quad - [x0, y0]).astype(np.float32))
    size = (x1 - x0, y1 - y0)
    tex = cv2.warpPerspective(texture, M, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    a = cv2.warpPerspective(mask, M, size, flags=cv2.INTER_LINEAR, borderValue=0)[..., None]
    region = canvas[y0:y1, x0:x1]
    region[:] = region * (1 - a) + tex * a
    if ids is not None:
        idr = ids[y0:y1, x0:x1]
        idr[a[..., 0] > 0.5] = ident


def _shade(normal: np.ndarray, light: np.ndarray, ambient: float) -> float:
    return ambient + (1 - ambient) * max(0.0, float(normal @ light))


def draw_body(canvas, ids, cam: Camera, body: Body, ident: int, light, ambient, rng) -> None:
    """Draw the faces of ``body`` that face the camera; the large surface facing the camera
    writes ``ident`` into ``ids``, the others ``-1`` (they hide what lies behind)."""
    W, L, T = body.size
    centre = body.world(np.array([0, 0, T / 2]))
    faces = []
    for axis, sign in ((2, 1), (2, -1), (0, 1), (0, -1), (1, 1), (1, -1)):
        n = body.R[:, axis] * sign
        half = np.array([W / 2, L / 2, T / 2])[axis]
        p = centre + n * half
        if n @ (cam.C - p) > 0:
            faces.append((axis, sign, n))
    for axis, sign, n in faces:
        shade = _shade(n, light, ambient)
        if axis == 2:
            big = sign > 0   # the face (art) or the back
            w_level = T if big else 0.0
            corners = np.array([[-W / 2, -L / 2, w_level], [W / 2, -L / 2, w_level],
                                [W / 2, L / 2, w_level], [-W / 2, L / 2, w_level]])
            if big:
                tex = body.face
            else:
                tex = np.empty((body.face.shape[0], body.face.shape[1], 3), np.float32)
                tex[:] = body.back_colour
                tex *= 1 + 0.04 * render._noise(rng, tex.shape[:2])[..., None]
                # seen from its back the u axis runs the other way
                corners = corners[[1, 0, 3, 2]]
            th, tw = tex.shape[:2]
            pad = 2
            mask, bevel = _rounded_mask(tw, th, int(round(body.radius / W * tw)), pad)
            rim = 1 - rng.uniform(0.12, 0.3) * (1 - bevel)
            texture = cv2.copyMakeBorder(tex, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
            texture = texture * (shade * rim)[..., None]
            src = np.float32([[pad, pad], [pad + tw, pad], [pad + tw, pad + th], [pad, pad + th]])
        else:
            # a side: along w from the back (0) to the face (T), a back band then the body
            other = 1 if axis == 0 else 0
            ext = np.array([W / 2, L / 2])[other]
            loc = np.zeros((4, 3))
            loc[:, axis] = sign * np.array([W / 2, L / 2])[axis]
            loc[:, other] = [-ext, ext, ext, -ext]
            loc[:, 2] = [0, 0, T, T]
            corners = loc
            tex = np.empty((32, 8, 3), np.float32)
            split = int(round(32 * body.back_split))
            tex[:split] = body.back_colour
            tex[split:] = body.body_colour
            texture = tex * shade
            mask = np.ones((32, 8), np.float32)
            # corners in texture space: w runs along texture rows
            src = np.float32([[0, 0], [8, 0], [8, 32], [0, 32]])
        pts, z = cam.project(body.world(corners))
        if (z <= 1).any():
            continue
        ident_face = ident if axis == 2 else -1
        _warp_onto(canvas, None, texture.astype(np.float32), mask, src, pts, ids, ident_face)


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


def _poly_area(q: np.ndarray) -> float:
    x, y = q[:, 0], q[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1))))


# --- table and things on it -------------------------------------------------------------------

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


def _draw_table(rng, canvas, cam: Camera, extent: tuple[float, float, float, float],
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


def _shadows(rng, canvas, cam: Camera, bodies: list[Body], light: np.ndarray) -> None:
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


def _hand_over(rng, canvas, ids, hands_mask, cam: Camera, near: np.ndarray, ppm: float) -> None:
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


def _stick(rng, canvas, cam: Camera, x, y) -> None:
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


# --- layouts (table mm, seat 0 at +y) -----------------------------------------------------------

def _row(rng, ts, x0, y, n, yaw_seat, gap=(0.0, 1.5), across_at=None, jitter=1.0):
    """Poses of ``n`` tiles lying in a row for a player facing +y turned ``yaw_seat``; the
    tile at ``across_at`` lies across. Returns (list of (x, y, yaw, face_up)), width."""
    W, L, _ = ts.size
    out, x = [], x0
    for i in range(n):
        wd = L if i == across_at else W
        yaw = yaw_seat + (np.pi / 2 if i == across_at else 0) + rng.normal(0, 0.02 * jitter)
        yy = y + (L - W) / 2 if i == across_at else y
        out.append((x + wd / 2, yy + rng.normal(0, 0.6 * jitter), yaw))
        x += wd + rng.uniform(*gap)
    return out, x - x0


def _seat_frame(seat: int, cx: float, cy: float):
    """Maps seat-local (x right as the seat sees it, y towards the seat) to table mm."""
    a = -seat * np.pi / 2      # seat 1 is on the right, seen from above

    def to_table(x, y):
        c, s = np.cos(a), np.sin(a)
        return cx + c * x - s * y, cy + s * x + c * y
    return to_table, a


def _codes(rng, n, back_p=0.0):
    return ["back" if rng.random() < back_p else _CODES[rng.integers(len(_CODES))] for _ in range(n)]


def layout_table(rng, ts: TileSet, bank: FaceBank) -> tuple[list[Body], dict]:
    """A table in play: four ponds (rows of six, a riichi tile across), walls of stacked
    face-down tiles, the dead wall with dora indicators, melds (a called tile across, an
    added kan stacked), standing hands at the edges and sometimes a revealed hand."""
    W, L, T = ts.size
    bodies: list[Body] = []
    gap = rng.uniform(0.0, 1.2)

    def add(code, pose):
        bodies.append(make_body(rng, bank, ts, code, pose))

    wall_r = rng.uniform(205, 245)          # the wall's distance from the centre
    hand_y = wall_r + rng.uniform(45, 70)
    for seat in range(4):
        to_table, a = _seat_frame(seat, 0.0, 0.0)
        # pond: rows of six (the third runs on) between the centre and the wall
        n = int(rng.integers(0, 22))
        riichi = int(rng.integers(0, n)) if n and rng.random() < 0.3 else -1
        y0 = rng.uniform(55, 75)
        for r in range((n + 5) // 6):
            cnt = min(6, n - 6 * r) if r < 2 else n - 6 * r
            across = riichi - 6 * r if 0 <= riichi - 6 * r < cnt else None
            row, _ = _row(rng, ts, -3 * (W + gap), 0, cnt, 0.0, (0, 1.2), across)
            for (x, y, yaw) in row:
                X, Y = to_table(x, y0 + L / 2 + r * (L + rng.uniform(0.3, 2)) + y)
                add(_codes(rng, 1)[0], lying(X, Y, yaw + a, ts.size))
        # the wall: 17 stacks of two face down, some already taken
        if rng.random() < 0.8:
            start = int(rng.integers(0, 17)) if rng.random() < 0.5 else 0
            stop = int(rng.integers(start, 18))
            for s in range(start, stop):
                X, Y = to_table(-8.5 * (W + 0.3) + (s + 0.5) * (W + 0.3), wall_r)
                for level in range(2 if rng.random() < 0.85 else 1):
                    add("back", lying(X, Y, a + rng.normal(0, 0.01), ts.size, face_up=False,
                                      z=level * T))
        # melds at the player's right-hand corner
        if rng.random() < 0.6:
            right = rng.uniform(280, 350)
            for m in range(int(rng.integers(1, 4))):
                cnt = 4 if rng.random() < 0.25 else 3
                called = int(rng.integers(0, cnt))
                row, width = _row(rng, ts, 0, 0, cnt, 0.0, (0, 0.8), called, 0.5)
                base_x = right - width
                right = base_x - rng.uniform(5, 15)
                ankan = cnt == 4 and rng.random() < 0.3
                for i, (x, y, yaw) in enumerate(row):
                    X, Y = to_table(base_x + x, hand_y + y)
                    face_up = not (ankan and i in (0, cnt - 1))
                    add(_codes(rng, 1)[0] if face_up else "back",
                        lying(X, Y, yaw + a, ts.size, face_up=face_up))
                    if i == called and rng.random() < 0.25:   # an added kan
                        if rng.random() < 0.5:    # beside the called tile, further in
                            X2, Y2 = to_table(base_x + x, hand_y + y - W - 0.5)
                            add(_codes(rng, 1)[0], lying(X2, Y2, yaw + a, ts.size))
                        else:                     # stacked on it
                            add(_codes(rng, 1)[0], lying(X, Y, yaw + a, ts.size, z=T))
        # the player's hand: standing, or laid open
        if rng.random() < 0.7:
            n = 13 if rng.random() < 0.8 else 14
            face_up = rng.random() < 0.15
            row, width = _row(rng, ts, 0, 0, n, 0.0, (0, 0.5), None, 0.5)
            lean = rng.uniform(0, 0.25)
            for (x, y, yaw) in row:
                X, Y = to_table(x - width / 2 - 40, hand_y + L * 0.6)
                if face_up:
                    add(_codes(rng, 1)[0], lying(X, Y, yaw + a, ts.size))
                else:   # stands facing its player
                    add(_codes(rng, 1)[0], standing(X, Y, a + rng.normal(0, 0.03), ts.size,
                                                   lean=lean + rng.normal(0, 0.02)))
    # dead wall and dora indicators near the centre or at a wall
    if rng.random() < 0.7:
        x0, y0 = rng.uniform(-60, 60), rng.uniform(-60, 60)
        yaw = rng.choice([0.0, np.pi / 2, np.pi, -np.pi / 2])
        n_dora = int(rng.integers(1, 5))
        for k in range(7):
            X = x0 + np.cos(yaw) * k * (W + 0.3)
            Y = y0 + np.sin(yaw) * k * (W + 0.3)
            add("back", lying(X, Y, yaw, ts.size, face_up=False))
            if 2 <= k < 2 + n_dora:
                add(_codes(rng, 1)[0], lying(X, Y, yaw, ts.size, z=T))
            else:
                add("back", lying(X, Y, yaw, ts.size, face_up=False, z=T))
    e = hand_y + rng.uniform(80, 200)
    focus = bodies[rng.integers(len(bodies))].t[:2] if bodies else np.zeros(2)
    return bodies, {"extent": (-e, -e, e, e), "panel": (0.0, 0.0) if rng.random() < 0.4 else None,
                    "focus": (float(focus[0]), float(focus[1]))}


def layout_grid(rng, ts: TileSet, bank: FaceBank) -> tuple[list[Body], dict]:
    """A catalogue shot: rows and columns of face-up tiles, touching or a little apart."""
    W, L, T = ts.size
    rows, cols = int(rng.integers(1, 9)), int(rng.integers(2, 14))
    gx, gy = (0.0, 0.0) if rng.random() < 0.6 else (rng.uniform(0, 6), rng.uniform(0, 8))
    across = rng.random() < 0.15
    bodies = []
    yaw0 = rng.normal(0, 0.02)
    back_p = 0.0 if rng.random() < 0.8 else 0.3
    for r in range(rows):
        for c in range(cols):
            if rng.random() < 0.03:
                continue
            x = (c - (cols - 1) / 2) * ((L if across else W) + gx)
            y = (r - (rows - 1) / 2) * ((W if across else L) + gy)
            code = _codes(rng, 1, back_p)[0]
            bodies.append(make_body(rng, bank, ts, code, lying(
                x + rng.normal(0, 0.3), y + rng.normal(0, 0.3),
                yaw0 + (np.pi / 2 if across else 0) + rng.normal(0, 0.01), ts.size,
                face_up=code != "back")))
    ext = max(rows * L, cols * L) * 1.5 + 100
    return bodies, {"extent": (-ext, -ext, ext, ext), "focus": (0.0, 0.0),
                    "span": (cols * ((L if across else W) + gx), rows * ((W if across else L) + gy))}


def layout_hand_row(rng, ts: TileSet, bank: FaceBank) -> tuple[list[Body], dict]:
    """A player's hand: 13 or 14 tiles standing side by side (faces towards seat 0), or lying
    in a row, with melds sometimes beside it."""
    W, L, T = ts.size
    n = int(rng.integers(5, 15))
    bodies = []
    lean = rng.uniform(-0.1, 0.5)
    x = -n * W / 2
    lie = rng.random() < 0.25
    for i in range(n):
        if rng.random() < 0.04 and 0 < i < n - 1:
            x += rng.uniform(3, 15)
        code = _codes(rng, 1)[0]
        if lie:
            pose = lying(x + W / 2, 0, rng.normal(0, 0.02), ts.size)
        else:
            pose = standing(x + W / 2, 0, rng.normal(0, 0.03), ts.size, lean=lean + rng.normal(0, 0.03))
        bodies.append(make_body(rng, bank, ts, code, pose))
        x += W + rng.uniform(0, 0.6)
    if rng.random() < 0.4:   # a meld lying to the right
        cnt = 3
        called = int(rng.integers(0, 3))
        row, width = _row(rng, ts, x + 20, 40, cnt, 0.0, (0, 0.8), called, 0.5)
        for (mx, my, yaw) in row:
            bodies.append(make_body(rng, bank, ts, _codes(rng, 1)[0], lying(mx, my, yaw, ts.size)))
    ext = n * W + 400
    return bodies, {"extent": (-ext, -ext, ext, ext), "focus": (0.0, -L * 0.3 if not lie else 0.0),
                    "span": (n * W, L)}


def layout_scatter(rng, ts: TileSet, bank: FaceBank) -> tuple[list[Body], dict]:
    """Tiles lying anywhere at any angle, face up or down, some in little rows; a table
    being shuffled or a pond pushed askew."""
    W, L, T = ts.size
    n = int(rng.integers(3, 30))
    area = np.sqrt(n) * L * rng.uniform(1.3, 2.5)
    bodies, placed = [], []
    for _ in range(n * 3):
        if len(bodies) >= n:
            break
        x, y = rng.uniform(-area / 2, area / 2, 2)
        if any(np.hypot(x - px, y - py) < L * 1.05 for px, py in placed):
            continue
        placed.append((x, y))
        face_up = rng.random() < 0.75
        code = _codes(rng, 1)[0] if face_up else "back"
        bodies.append(make_body(rng, bank, ts, code, lying(x, y, rng.uniform(0, 2 * np.pi), ts.size,
                                                            face_up=face_up)))
    ext = area + 300
    return bodies, {"extent": (-ext, -ext, ext, ext), "focus": (0.0, 0.0), "span": (area, area)}


LAYOUTS = {"table": layout_table, "close": layout_table, "grid": layout_grid,
           "hand_row": layout_hand_row, "scatter": layout_scatter}


# --- a scene ---------------------------------------------------------------------------------

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
                 kind: str | None = None, tables: str = "train") -> Scene:
    """One scene of ``kind`` (see :data:`KINDS`; drawn at random when None) at ``size``
    (w, h) pixels, on ``tables`` of the training or the held-out family
    (:func:`vision.synthesis.render.background`)."""
    if kind is None:
        kind = rng.choice(list(KINDS), p=list(KINDS.values()))
    ts = tile_set(rng)
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
    _draw_table(rng, canvas, cam_big, info["extent"], info.get("panel"), tables)
    az = rng.uniform(0, 2 * np.pi)
    light = np.array([np.cos(az) * 0.6, np.sin(az) * 0.6, rng.uniform(0.5, 1.5)])
    light /= np.linalg.norm(light)
    ambient = rng.uniform(0.45, 0.8)
    if rng.random() < 0.7:
        _shadows(rng, canvas, cam_big, bodies, light)
    ids = np.zeros(big[::-1], np.int32)
    ppm = cam_big.f / np.linalg.norm(cam_big.C - np.array([*info["focus"], 0]))
    for _ in range(int(rng.integers(0, 3)) if props else 0):
        x0, y0, x1, y1 = info["extent"]
        _stick(rng, canvas, cam_big, rng.uniform(x0, x1) * 0.4, rng.uniform(y0, y1) * 0.4)
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
        _hand_over(rng, canvas, ids, hands, cam, np.asarray(near, np.float64), ppm / ss)
    canvas = render._light(rng, canvas, harsh=False)
    image = render.camera(rng, canvas, harsh=rng.random() < 0.3)
    counts = np.bincount(np.clip(ids.ravel(), 0, None), minlength=len(bodies) + 1)
    tiles = []
    Wimg, Himg = size
    for i, b in enumerate(bodies):
        quad, facing, code = big_surface_quad(cam, b)
        area = _poly_area(quad)
        if area < 4:
            continue
        inside = _poly_area(_clip_to(quad, Wimg, Himg))
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


def _clip_to(quad: np.ndarray, w: int, h: int) -> np.ndarray:
    """``quad`` clipped to the picture (a convex polygon)."""
    box = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    area, poly = cv2.intersectConvexConvex(quad.astype(np.float32), box)
    return poly.reshape(-1, 2) if poly is not None and area > 0 else np.zeros((3, 2), np.float32)
