"""Rendered camera photos of the enrollment sheet with tiles laid on it, for the tests and the
enrollment bench (a real sheet under a real camera is what enrollment is for; these check the
whole path without one).

:func:`sheet_photo` draws the page (:func:`vision.enrollment.sheet.draw_sheet`), lays a tile in each
place (a little off centre and askew, as a hand lays them), and views it with a camera: the
page in perspective on a table, uneven light, blur and noise. What each place holds is given
by ``laid`` (place code -> tile code, or None for an empty place), so a test can leave a place
empty or put a tile in the wrong place. Tiles are drawn by a ``drawer``:
:func:`sprite_drawer` (the FluffyStuff Regular art, or placeholders when it is absent) or
:func:`art_drawer` (a tile body in any art style, by :func:`vision.synthesis.render.draw_tile`).
"""
from __future__ import annotations

from typing import Callable

import cv2
import numpy as np

from vision.camera.zones import TILE_H_MM, TILE_W_MM
from vision.enrollment.sheet import PLACE_CODES, SheetLayout, draw_sheet

#: draw(canvas (float32 BGR, drawn on in place), code, centre x, centre y, width, height,
#: rng): one tile lying upright, its top face ``width`` x ``height`` pixels.
Drawer = Callable[[np.ndarray, str, float, float, int, int, np.random.Generator], None]


def sprite_drawer() -> Drawer:
    """Tiles as :func:`vision.synthesis.synthetic.tile_face` draws them (the Regular art, or a coloured
    code on an ivory body when the art is absent), turned a few degrees."""
    from .synthetic import sized_face

    def draw(canvas, code, cx, cy, w, h, rng):
        _paste(canvas, sized_face(code, w, h), cx, cy, rng.uniform(-3, 3))
    return draw


def art_drawer(art, styles: tuple[str, ...] = ("Regular",)) -> Drawer:
    """Tiles with a body (rounded face, bevel, the side with its back colour) in the art
    ``styles`` (``vision.synthesis.render.STYLES``), by :func:`vision.synthesis.render.draw_tile`."""
    from .render import draw_tile

    def draw(canvas, code, cx, cy, w, h, rng):
        side = (rng.uniform(-0.04, 0.04) * w, rng.uniform(0.0, 0.08) * w)
        draw_tile(rng, canvas, art, code, cx - w / 2, cy - h / 2, w, h, side, styles=styles)
    return draw


def _paste(canvas: np.ndarray, bgra: np.ndarray, cx: float, cy: float, angle: float) -> None:
    """Lay the BGRA image ``bgra`` centred at (cx, cy), turned ``angle`` degrees."""
    h, w = bgra.shape[:2]
    r = int(np.ceil(np.hypot(w, h) / 2)) + 2
    x0, y0 = int(cx) - r, int(cy) - r
    H, W = canvas.shape[:2]
    if x0 < 0 or y0 < 0 or x0 + 2 * r > W or y0 + 2 * r > H:
        return
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    m[:, 2] += (cx - x0 - w / 2, cy - y0 - h / 2)
    warped = cv2.warpAffine(bgra.astype(np.float32), m, (2 * r, 2 * r), flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    a = warped[..., 3:4] / 255.0
    roi = canvas[y0:y0 + 2 * r, x0:x0 + 2 * r]
    roi[:] = roi * (1 - a) + warped[..., :3] * a


def sheet_photo(drawer: Drawer, laid: dict[str, str | None] | None = None,
                layout: SheetLayout | None = None, seed: int = 0,
                size: tuple[int, int] = (1280, 960), tile_mm: tuple[float, float] =
                (TILE_W_MM, TILE_H_MM), cover: tuple[float, float, float, float] | None = None) -> np.ndarray:
    """A camera photo (BGR, ``size`` = width x height) of the sheet with tiles on it.

    ``laid``: place code -> the tile laid there (None: left empty); default, every place
    holds its own tile. ``tile_mm``: the set's tile size. ``cover``: a rectangle of the page
    (x1, y1, x2, y2 in mm) covered by something dark (a sleeve over a marker, say).
    """
    layout = layout or SheetLayout()
    rng = np.random.default_rng(seed)
    laid = {c: c for c in PLACE_CODES} if laid is None else laid
    ppm = 3.0
    page = draw_sheet(layout, ppm).astype(np.float32)
    # printed paper is not white and printed grey not quite neutral
    page *= rng.uniform(0.9, 1.0, 3)[None, None]
    w, h = int(round(tile_mm[0] * ppm)), int(round(tile_mm[1] * ppm))
    for place in layout.places():
        code = laid.get(place.code)
        if code is None:
            continue
        cx, cy = place.centre
        cx += rng.uniform(-1.2, 1.2)
        cy += rng.uniform(-1.2, 1.2)
        drawer(page, code, cx * ppm, cy * ppm, w, h, rng)
    if cover is not None:
        x1, y1, x2, y2 = (int(round(v * ppm)) for v in cover)
        page[y1:y2, x1:x2] = (40, 45, 50)
    # the camera: the page seen at an angle on a table, filling about two thirds of the frame
    W, H = size
    pw, ph = page.shape[1], page.shape[0]
    fill = rng.uniform(0.62, 0.78)
    sw = min(W, H * pw / ph) * fill   # a portrait A4 page fits by its height
    sh = sw * ph / pw
    x0, y0 = (W - sw) / 2 + rng.uniform(-0.05, 0.05) * W, (H - sh) / 2 + rng.uniform(-0.05, 0.05) * H
    dst = np.float32([[x0, y0], [x0 + sw, y0], [x0 + sw, y0 + sh], [x0, y0 + sh]])
    dst += rng.uniform(-0.03, 0.03, (4, 2)).astype(np.float32) * np.float32([W, H])
    src = np.float32([[0, 0], [pw, 0], [pw, ph], [0, ph]])
    m = cv2.getPerspectiveTransform(src, dst)
    table = np.empty((H, W, 3), np.float32)
    table[:] = rng.uniform([30, 70, 20], [70, 120, 50])
    photo = cv2.warpPerspective(page, m, (W, H), dst=table, flags=cv2.INTER_AREA,
                                borderMode=cv2.BORDER_TRANSPARENT)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    a = rng.uniform(0, 2 * np.pi)
    g = (xx * np.cos(a) + yy * np.sin(a)) / max(W, H)
    photo *= (1 + rng.uniform(-0.3, 0.3) * (g - g.mean()))[..., None] * rng.uniform(0.75, 1.05)
    photo = cv2.GaussianBlur(photo, (0, 0), rng.uniform(0.5, 0.9))
    photo += rng.normal(0, 3.0, photo.shape).astype(np.float32)
    out = np.clip(photo, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, 88])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)
