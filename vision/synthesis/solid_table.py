"""A scripted table position drawn as a camera over a real table sees it, then warped to the
tracker's top-down view.

:func:`vision.synthesis.synthetic.render_state` pastes the flat tile art on green felt, straight from
above: the table the felt-colour finder was made for. :class:`SolidTable` draws the same
:class:`~vision.synthesis.synthetic.TableState` with the solid tiles of :mod:`vision.synthesis.bodies` (an ivory face
with rounded corners on a body whose coloured back shows along its sides, one set's faces for
the whole game: the FluffyStuff Regular art on one ivory), on a held-out table top (some with an automatic table's centre panel), under
one light with the shadows the tiles cast, through a camera 75 to 90 degrees above the table
that holds the whole table in its frame; the picture is then warped onto the table's plane at
``px_per_mm``, as :meth:`vision.camera.calibration.Calibration.warp` does. A tile's face lies a
tile's thickness above the table, so away from the middle it lands a few millimetres outward
in the top-down view, as on a real table.

The table, the light and the camera are drawn once per :class:`SolidTable` (``seed``), so a
still table gives the same picture frame after frame, less the sensor's noise.
"""
from __future__ import annotations

import zlib

import numpy as np

from vision.camera.zones import TILE_H_MM, TILE_W_MM

from . import render
from .bodies import Body, lying, tile_set
from .pinhole import look_at
from .props import cast_shadows
from .raster import draw_body
from .render import TileArt
from .table_top import draw_table

FRAME = (1280, 960)


class SolidTable:
    """Draws :class:`~vision.synthesis.synthetic.TableState` positions with solid tiles (see the module).

    ``seed``: the tile set, table top, light and camera. ``px_per_mm``: the top-down view's
    scale. ``size_mm``: the table's side (the state's). ``frame``: the camera's picture size.
    ``style``: the art's style every face is drawn in (``"Regular"``: dark ink on ivory;
    ``"Black"``: light ink on a dark face; :data:`vision.synthesis.render.STYLES`).
    """

    def __init__(self, seed: int = 0, px_per_mm: float = 2.0, size_mm: float = 800.0,
                 frame: tuple[int, int] = FRAME, art: TileArt | None = None,
                 style: str = "Regular"):
        if style not in render.STYLES:
            raise ValueError(f"style must be one of {render.STYLES}, got {style!r}")
        self.style = style
        rng = np.random.default_rng(seed)
        self.seed = seed
        self.ppm = float(px_per_mm)
        self.size_mm = float(size_mm)
        self.art = art or TileArt()
        ts = tile_set(rng)
        # the zones are drawn for tiles of the usual size; only the thickness is the set's own
        ts.size = (TILE_W_MM, TILE_H_MM, TILE_W_MM * rng.uniform(0.6, 0.8))
        self.tiles = ts
        self.faces: dict[str, tuple] = {}
        c = self.size_mm / 2
        f = max(frame) * rng.uniform(0.7, 1.1)
        ppm_image = rng.uniform(0.9, 0.95) * min(frame) / self.size_mm
        self.cam = look_at((c + rng.normal(0, 10), c + rng.normal(0, 10), 0.0),
                           np.deg2rad(rng.uniform(75, 90)), rng.uniform(0, 2 * np.pi),
                           f / ppm_image, rng.normal(0, 0.02), f, frame)
        self.extent = (0.0, 0.0, self.size_mm, self.size_mm)
        W, H = frame
        table = np.zeros((H, W, 3), np.float32)
        draw_table(rng, table, self.cam, self.extent,
                   (c, c) if rng.random() < 0.5 else None, "holdout")
        self.table = table
        az = rng.uniform(0, 2 * np.pi)
        light = np.array([np.cos(az) * 0.5, np.sin(az) * 0.5, rng.uniform(0.8, 1.5)])
        self.light = light / np.linalg.norm(light)
        self.ambient = rng.uniform(0.5, 0.75)
        self.effects_seed = int(rng.integers(1 << 31))
        self._noise = np.random.default_rng(seed + 1)
        self._light = None

    def _face(self, code: str):
        """This set's face for ``code``: the art in this table's style on one face colour for
        every kind (each face is drawn from the same seed)."""
        if code not in self.faces:
            label = code if code != "back" else "1z"    # a face-down tile's face is not seen
            self.faces[code] = render._face_image(np.random.default_rng(self.seed), self.art,
                                                  label, 84, 113, styles=(self.style,))
        return self.faces[code]

    def bodies(self, placed) -> list[Body]:
        """Solid tiles for ``placed`` (:class:`~vision.synthesis.synthetic.PlacedTile`, table mm)."""
        ts = self.tiles
        out = []
        for t in placed:
            face, colour = self._face(t.code)
            pose = lying(t.x, t.y, np.deg2rad(90.0 * t.turns + t.angle), ts.size,
                         face_up=t.code != "back")
            out.append(Body(face=face, body_colour=colour, back_colour=ts.back_colour,
                            back_split=ts.back_split, radius=ts.radius, code=t.code, **pose))
        return out

    def picture(self, state) -> np.ndarray:
        """The camera's picture (uint8 BGR, ``frame`` size) of ``state``."""
        bodies = self.bodies(state.tiles())
        canvas = self.table.copy()
        ids = np.zeros(canvas.shape[:2], np.int32)
        cast_shadows(np.random.default_rng(self.effects_seed), canvas, self.cam, bodies, self.light)
        depth = [self.cam.project(b.world(np.array([[0, 0, b.size[2] / 2]])))[1][0] for b in bodies]
        for i in np.argsort(depth)[::-1]:
            b = bodies[i]
            # a tile looks the same in every frame it lies still in
            rng = np.random.default_rng(zlib.crc32(f"{b.code} {b.t[0]:.1f} {b.t[1]:.1f}".encode()))
            draw_body(canvas, ids, self.cam, b, int(i) + 1, self.light, self.ambient, rng)
        if self._light is None:     # one light over the table: every frame is lit alike
            self._light = render.light_steps(np.random.default_rng(self.effects_seed + 1),
                                             *canvas.shape[:2])
        canvas = render.lit(canvas, self._light)
        image = render.camera(np.random.default_rng(self.effects_seed + 2), canvas)
        noise = self._noise.normal(0, 2.0, image.shape)
        noise += image          # the sum image + noise, without a third full frame
        return np.clip(noise, 0, 255, out=noise).astype(np.uint8)

    def topdown(self, picture: np.ndarray) -> np.ndarray:
        """``picture`` warped onto the table's plane at ``px_per_mm`` (as calibration does)."""
        return self.cam.table_view(picture, self.extent, self.ppm)[0]

    def render(self, state) -> np.ndarray:
        """The tracker's top-down view of ``state``."""
        return self.topdown(self.picture(state))
