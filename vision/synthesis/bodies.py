"""Tiles as solid bodies: a box with an ivory face carrying the art and a coloured back.

A riichi tile is a box (about 26 x 35 x 20 mm): an ivory face with rounded corners carrying
the art, and a back of coloured resin that shows as a band along its sides. A :class:`Body`
is one such tile placed in the world (table mm, see :mod:`vision.synthesis.pinhole`):
:func:`lying` and :func:`standing` give its pose, lying face up or down on the table or on
another tile, or standing in a player's hand. A :class:`TileSet` is what one physical set
looks like (size, back colour, corner rounding), and :func:`make_body` makes one of its tiles
with a face from a :class:`~vision.synthesis.faces.FaceBank`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import render
from .faces import FaceBank


def _rot_z(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def _rot_x(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


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


@dataclass
class TileSet:
    """What one physical set looks like: size, colours; its faces, drawn once per code (one
    set prints each kind alike)."""

    size: tuple[float, float, float]
    back_colour: np.ndarray
    back_split: float
    radius: float
    faces: dict = field(default_factory=dict)
    #: The art styles the set is printed in (None: a face at a time, as :meth:`FaceBank.face`
    #: draws them). A real set is one style: ``("Black",)`` is a set of dark faces.
    styles: tuple[str, ...] | None = None

    def face(self, rng, bank: FaceBank, code: str):
        """This set's face for ``code`` (see :meth:`FaceBank.face`)."""
        if code not in self.faces or rng.random() < 0.1:
            self.faces[code] = bank.face(rng, code, styles=self.styles)
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
