"""The pinhole camera the solid-tile scenes are seen through (:mod:`vision.synthesis.scene`).

World coordinates are table millimetres: x to the right and y towards seat 0 as a top-down
view shows them, z up from the table's plane. :func:`look_at` places a camera the way a
referee or a phone would hold one, and :class:`Camera` projects world points to pixels, finds
the rays through pixels, and warps its picture onto the table's plane as calibration does.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


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
