"""Drawing a solid tile in perspective: each face of its body that looks towards the camera,
shaded by the light, the large surface with its art (or back) and bevelled rounded corners,
the sides as a band of back colour under the body colour.
"""
from __future__ import annotations

import functools

import cv2
import numpy as np

from . import render
from .bodies import Body
from .pinhole import Camera


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
    if poly_area(dst_quad) < 0.5:
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
    # region * (1 - a) + tex * a, in place (tex is this call's own)
    region *= 1 - a
    tex *= a
    region += tex
    if ids is not None:
        idr = ids[y0:y1, x0:x1]
        idr[a[..., 0] > 0.5] = ident


def poly_area(q: np.ndarray) -> float:
    """The area in pixels of the polygon ``q`` (N x 2)."""
    x, y = q[:, 0], q[:, 1]
    # each shifted by one as np.roll(v, 1) shifts it (its checks cost more than the area: a
    # scene asks some 300 times)
    return 0.5 * abs(float(np.dot(x, y[_ROLLED[len(q)]]) - np.dot(y, x[_ROLLED[len(q)]])))


class _Rolled(dict):
    """n -> the indices [n-1, 0, 1, ..., n-2] (``np.roll(v, 1)`` as a take)."""

    def __missing__(self, n):
        self[n] = np.roll(np.arange(n), 1)
        return self[n]


_ROLLED = _Rolled()


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
        _warp_onto(canvas, None, texture.astype(np.float32, copy=False), mask, src, pts, ids,
                   ident_face)
