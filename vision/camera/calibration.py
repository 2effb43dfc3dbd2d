"""Camera calibration: four ArUco markers at the table's corners give the homography from the
camera image to a top-down view of the table in millimetres.

The markers are DICT_4X4_50 ids 0-3, printed ``marker_mm`` wide, laid flat and upright (their
id label towards seat 0) with each marker's outer corner ``margin_mm`` in from a table corner:
id 0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left, seat 0 sitting at the bottom edge.
A marker laid turned by quarter turns still works: its corners are matched to the table by
position, not by their order.

:func:`calibrate` finds the markers and fits the homography on all 16 marker corners, so the
reprojection error (in image pixels) says how well the table plane was found.
:class:`Calibration` warps frames to the top-down view (``px_per_mm`` pixels per mm) and
converts points between image and table; it is saved as JSON beside the table config.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from referee.errors import RefereeError
from table.config import beside_config, point_config_at, read_toml, replacing

from .zones import Zone, default_zones

ARUCO_DICT = cv2.aruco.DICT_4X4_50
MARKER_IDS = (0, 1, 2, 3)

#: The top-down view is made no finer than this (px per table mm) however fine the camera: the
#: reader's faces are cut at about 1.65 (48 pixels across a 26 mm face and its margin), and a
#: finer view only costs its warp.
FINEST_VIEW = 2.0
#: ... and no coarser than this however coarse the camera: the learned finder looks at a table
#: at 32 pixels a tile's width (``vision.finding.learned.TOPDOWN_TILE_PX`` over
#: ``zones.TILE_W_MM``), so a view at this scale is shown to it as it is.
COARSEST_VIEW = 32 / 26
#: A view's scale is taken up to this and no further: an 800 mm table at 4 px per mm is a
#: 3200 x 3200 view, 31 MB a frame, twice the finest the table would choose.
MOST_PX_PER_MM = 4.0


def checked_scale(px_per_mm) -> float:
    """``px_per_mm`` as a view's scale, or ValueError saying what it must be."""
    scale = float(px_per_mm)
    if not 0 < scale <= MOST_PX_PER_MM:
        raise ValueError(f"the top-down view's scale must be over 0 and at most "
                         f"{MOST_PX_PER_MM:g} px per mm, not {scale:g}")
    return scale


def view_maps(to_view: np.ndarray, rect: tuple[int, int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Where in the camera frame each pixel of a region of a view comes from, as OpenCV's
    fixed-point maps for ``cv2.remap``: ``to_view`` maps frame pixels to view pixels (3x3),
    ``rect`` is the region (x1, y1, x2, y2) in view pixels.

    Each pixel's place is worked out from its place in the whole view, so a region's maps are
    that region of the whole view's, to the bit: a region remapped is the same pixels as the
    whole view warped and cut there."""
    back = np.linalg.inv(np.asarray(to_view, np.float64))
    x1, y1, x2, y2 = rect
    ys, xs = np.indices((y2 - y1, x2 - x1), np.float32)
    if x1 or y1:
        xs += x1
        ys += y1
    d = back[2, 0] * xs + back[2, 1] * ys + back[2, 2]
    mx = (back[0, 0] * xs + back[0, 1] * ys + back[0, 2]) / d
    my = (back[1, 0] * xs + back[1, 1] * ys + back[1, 2]) / d
    return cv2.convertMaps(mx.astype(np.float32), my.astype(np.float32), cv2.CV_16SC2)


@dataclass(frozen=True)
class TableLayout:
    """The physical table: playing area ``width_mm`` x ``height_mm``, markers ``marker_mm``
    wide, their outer corners ``margin_mm`` in from the table corners. ``marker_ids``: the
    ArUco ids at the top-left, top-right, bottom-right and bottom-left corners (another
    rectangle with its own markers, such as the tile-set enrollment sheet, uses other ids)."""

    width_mm: float = 800.0
    height_mm: float = 800.0
    marker_mm: float = 50.0
    margin_mm: float = 5.0
    marker_ids: tuple[int, ...] = MARKER_IDS

    def marker_corners(self, marker_id: int) -> np.ndarray:
        """The 4 corners of a marker in table mm, in ArUco's order (its TL, TR, BR, BL when
        laid upright)."""
        m, g = self.marker_mm, self.margin_mm
        corner = self.marker_ids.index(marker_id)
        x0 = g if corner in (0, 3) else self.width_mm - g - m
        y0 = g if corner in (0, 1) else self.height_mm - g - m
        return np.array([[x0, y0], [x0 + m, y0], [x0 + m, y0 + m], [x0, y0 + m]], np.float64)

    def to_dict(self) -> dict:
        d = {"width_mm": self.width_mm, "height_mm": self.height_mm,
             "marker_mm": self.marker_mm, "margin_mm": self.margin_mm}
        if tuple(self.marker_ids) != MARKER_IDS:
            d["marker_ids"] = list(self.marker_ids)
        return d


def aruco_dictionary():
    return cv2.aruco.getPredefinedDictionary(ARUCO_DICT)


def detect_markers(image: np.ndarray, wanted=MARKER_IDS) -> dict[int, np.ndarray]:
    """The markers of ids ``wanted`` (the table's, by default) seen in ``image``: id -> 4x2
    corner array (image pixels)."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(aruco_dictionary(), params)
    corners, ids, _ = detector.detectMarkers(gray)
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    for c, i in zip(corners, ids.ravel()):
        if int(i) in wanted and int(i) not in found:
            found[int(i)] = c.reshape(4, 2).astype(np.float64)
    return found


@dataclass
class Calibration:
    """Image -> table homography and what goes with it.

    ``homography``: 3x3, maps image pixels to table mm. ``image_size``: (width, height) of
    the camera frames it was made for. ``layout``: the table. ``px_per_mm``: scale of the
    top-down view. ``reprojection_px``: RMS error of the marker corners, in image pixels.
    ``zones``: the seats' ponds, meld and hand areas and the dora zone, in table mm.
    """

    homography: np.ndarray
    image_size: tuple[int, int]
    layout: TableLayout = field(default_factory=TableLayout)
    px_per_mm: float = 2.0
    reprojection_px: float = 0.0
    zones: list[Zone] = field(default_factory=list)
    _maps: tuple | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self):
        if not self.zones:
            self.zones = default_zones(self.layout.width_mm, self.layout.height_mm)

    @property
    def topdown_size(self) -> tuple[int, int]:
        return (int(round(self.layout.width_mm * self.px_per_mm)),
                int(round(self.layout.height_mm * self.px_per_mm)))

    def topdown_matrix(self) -> np.ndarray:
        """Image pixels -> top-down view pixels."""
        s = np.diag([self.px_per_mm, self.px_per_mm, 1.0])
        return s @ self.homography

    def warp(self, frame: np.ndarray) -> np.ndarray:
        """The top-down view of a camera frame (``px_per_mm`` pixels per table mm).

        Every frame of a table is warped alike, so where each view pixel comes from in the
        frame is worked out once, as OpenCV's fixed-point maps, and then only looked up: a
        1280x960 frame to a 1600x1600 view (2 px per mm) took 6 ms here, where
        ``warpPerspective``, which works the places out again for every frame, took 9. The two
        differ by rounding (a few grey levels at most)."""
        key = (self.topdown_size, self.px_per_mm, self.homography.tobytes())
        if self._maps is None or self._maps[0] != key:
            self._maps = (key, *self._view_maps())
        _, fixed, fraction = self._maps
        return cv2.remap(frame, fixed, fraction, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)

    def _view_maps(self) -> tuple[np.ndarray, np.ndarray]:
        w, h = self.topdown_size
        return view_maps(self.topdown_matrix(), (0, 0, w, h))

    def image_to_table(self, points) -> np.ndarray:
        pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)

    def table_to_image(self, points) -> np.ndarray:
        pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, np.linalg.inv(self.homography)).reshape(-1, 2)

    def to_dict(self) -> dict:
        return {"version": 1,
                "homography": [list(map(float, row)) for row in self.homography],
                "image_size": list(self.image_size),
                "layout": self.layout.to_dict(),
                "px_per_mm": self.px_per_mm,
                "reprojection_px": round(float(self.reprojection_px), 4),
                "zones": [z.to_dict() for z in self.zones]}

    @classmethod
    def from_dict(cls, d: dict, where: str = "calibration") -> "Calibration":
        try:
            h = np.array(d["homography"], np.float64)
            if h.shape != (3, 3):
                raise ValueError("homography must be 3x3")
            layout = dict(d.get("layout", {}))
            if "marker_ids" in layout:
                layout["marker_ids"] = tuple(int(i) for i in layout["marker_ids"])
            layout = TableLayout(**layout)
            zones = [Zone.from_dict(z) for z in d.get("zones", [])]
            return cls(h, tuple(int(v) for v in d["image_size"]), layout,
                       checked_scale(d.get("px_per_mm", 2.0)),
                       float(d.get("reprojection_px", 0.0)), zones)
        except (KeyError, TypeError, ValueError) as exc:
            raise RefereeError(f"{where}: not a calibration ({exc})") from None

    def save(self, path: str | Path) -> None:
        with replacing(path) as fh:
            fh.write((json.dumps(self.to_dict(), indent=1) + "\n").encode("utf-8"))

    @classmethod
    def load(cls, path: str | Path) -> "Calibration":
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise RefereeError(f"calibration {path}: no such file "
                               "(run riichi-referee calibrate)") from None
        except (OSError, json.JSONDecodeError) as exc:
            raise RefereeError(f"calibration {path}: cannot be read ({exc})") from None
        return cls.from_dict(data, str(path))


def _match_corners(found: dict[int, np.ndarray], layout: TableLayout,
                   rough: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pair each detected marker corner with its table position, by nearness under the
    homography ``rough`` (so a marker laid turned still pairs its corners right)."""
    img_pts, table_pts = [], []
    for marker_id, corners in found.items():
        expected = layout.marker_corners(marker_id)
        projected = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), rough).reshape(-1, 2)
        # the 4 cyclic shifts of the corner order = the 4 ways to lay a marker flat
        best = min(range(4), key=lambda k: np.sum(
            (np.roll(projected, k, axis=0) - expected) ** 2))
        img_pts.append(np.roll(corners, best, axis=0))
        table_pts.append(expected)
    return np.vstack(img_pts), np.vstack(table_pts)


def fit_homography(image: np.ndarray, layout: TableLayout,
                   found: dict[int, np.ndarray] | None = None) -> tuple[np.ndarray, float]:
    """The image -> layout-mm homography fitted on the 16 corners of ``layout``'s four markers
    in ``image``, and its RMS reprojection error in image pixels. ``found``: what
    :func:`detect_markers` gives of ``image`` (any ids), when the caller has it already.

    Raises RefereeError naming the missing markers when not all four are seen.
    """
    ids = tuple(layout.marker_ids)
    found = detect_markers(image, ids) if found is None else \
        {i: c for i, c in found.items() if i in ids}
    missing = [i for i in ids if i not in found]
    if missing:
        seen = ", ".join(map(str, sorted(found))) or "none"
        raise RefereeError(f"table markers {', '.join(map(str, missing))} not found "
                           f"(seen: {seen}); need ArUco 4x4 ids {ids[0]}-{ids[-1]} at the "
                           "table corners")
    centres_img = np.array([found[i].mean(axis=0) for i in ids])
    centres_table = np.array([layout.marker_corners(i).mean(axis=0) for i in ids])
    rough = cv2.getPerspectiveTransform(centres_img.astype(np.float32),
                                        centres_table.astype(np.float32))
    img_pts, table_pts = _match_corners(found, layout, rough)
    h, _ = cv2.findHomography(img_pts, table_pts, 0)
    if h is None:
        raise RefereeError("table markers found but no homography fits them "
                           "(are they on one flat table?)")
    back = cv2.perspectiveTransform(table_pts.reshape(-1, 1, 2), np.linalg.inv(h)).reshape(-1, 2)
    err = float(np.sqrt(np.mean(np.sum((back - img_pts) ** 2, axis=1))))
    return h, err


def camera_px_per_mm(homography: np.ndarray, at_mm: tuple[float, float]) -> float:
    """How many camera pixels a table mm spans at the table point ``at_mm`` (the square root
    of the area a square mm there covers in the frame); ``homography`` maps frame pixels to
    table mm."""
    x, y = at_mm
    mm = np.array([[[x, y]], [[x + 1, y]], [[x, y + 1]]], np.float64)
    o, a, b = cv2.perspectiveTransform(mm, np.linalg.inv(homography)).reshape(3, 2)
    (ax, ay), (bx, by) = a - o, b - o
    return float(np.sqrt(abs(ax * by - ay * bx)))


def view_scale(homography: np.ndarray, table_mm: tuple[float, float, float, float]) -> float:
    """The top-down view's scale for a camera (px per table mm): the camera's own where it sees
    the table (``table_mm``: x0, y0, x1, y1) finest, at its centre or halfway to an edge (the
    ponds and the melds), held between :data:`COARSEST_VIEW` and :data:`FINEST_VIEW`.
    ``homography`` maps frame pixels to table mm.

    A view finer than the camera only enlarges its frames: a 1280x960 frame holds a table of
    800 mm at about 1 px per mm, and its 2 px per mm view took 4.6 ms of a 42 ms frame to
    warp, then 1.1 ms to shrink again for the finder. Over 210 rendered tables seen by such a
    camera (``bench/calibrated_tables.py``), the same tiles were found and named at 1.23 px per
    mm as at 2, none wrongly sure (vision/README.md)."""
    x0, y0, x1, y1 = table_mm
    xs, ys = (x0 + x1) / 2, (y0 + y1) / 2
    places = [(xs, ys), ((x0 + xs) / 2, ys), ((xs + x1) / 2, ys), (xs, (y0 + ys) / 2),
              (xs, (ys + y1) / 2)]
    finest = max(camera_px_per_mm(homography, p) for p in places)
    if finest <= COARSEST_VIEW:
        return COARSEST_VIEW
    return round(min(finest, FINEST_VIEW), 2)


def calibrate(image: np.ndarray, layout: TableLayout | None = None,
              px_per_mm: float | None = None, zones: list[Zone] | None = None) -> Calibration:
    """Find the four markers in a camera image and fit the image -> table homography.
    ``px_per_mm``: the top-down view's scale (None: the camera's own, :func:`view_scale`).

    Raises RefereeError naming the missing markers when not all four are seen.
    """
    if px_per_mm is not None:
        try:
            px_per_mm = checked_scale(px_per_mm)
        except ValueError as exc:
            raise RefereeError(str(exc)) from None
    layout = layout or TableLayout()
    h, err = fit_homography(image, layout)
    height, width = image.shape[:2]
    scale = view_scale(h, (0.0, 0.0, layout.width_mm, layout.height_mm)) if px_per_mm is None \
        else px_per_mm
    return Calibration(h, (width, height), layout, scale, err, list(zones or []))


def marker_image(marker_id: int, side_px: int) -> np.ndarray:
    """One table marker, ``side_px`` square, black on white (no quiet zone)."""
    return cv2.aruco.generateImageMarker(aruco_dictionary(), marker_id, side_px)


#: The marker sheet's paper, width x height in mm: A4 portrait.
MARKER_SHEET_MM = (210.0, 297.0)


def marker_sheet(marker_mm: float = 50.0, dpi: int = 300) -> np.ndarray:
    """A printable A4 page (portrait) with markers 0-3, each ``marker_mm`` wide at ``dpi``,
    labelled with its id and the corner it goes to, and a 100 mm scale bar to check the print
    size."""
    px_mm = dpi / 25.4
    width_mm, height_mm = MARKER_SHEET_MM
    page = np.full((int(height_mm * px_mm), int(width_mm * px_mm)), 255, np.uint8)
    side = int(round(marker_mm * px_mm))
    names = {0: "top-left", 1: "top-right", 2: "bottom-right", 3: "bottom-left"}
    cell_w, cell_h = page.shape[1] // 2, int(120 * px_mm)
    font = cv2.FONT_HERSHEY_SIMPLEX
    for i in MARKER_IDS:
        cx = cell_w // 2 + (i % 2) * cell_w
        cy = int(30 * px_mm) + (i // 2) * cell_h + side // 2
        x0, y0 = cx - side // 2, cy - side // 2
        if y0 + side + int(20 * px_mm) > page.shape[0] or x0 < 0:
            raise RefereeError(f"markers of {marker_mm} mm do not fit on an A4 page")
        page[y0:y0 + side, x0:x0 + side] = marker_image(i, side)
        # short enough to stay inside its half of the page (the seat goes once, at the top)
        cv2.putText(page, f"id {i}: {names[i]}", (x0, y0 + side + int(8 * px_mm)), font,
                    px_mm * 0.25, 0, max(1, int(px_mm * 0.3)), cv2.LINE_AA)
    cv2.putText(page, "Each marker in the table's corner it names, seat 0 at the bottom",
                (int(20 * px_mm), int(12 * px_mm)), font, px_mm * 0.18, 0,
                max(1, int(px_mm * 0.3)), cv2.LINE_AA)
    bar_y = page.shape[0] - int(20 * px_mm)
    x0 = int(20 * px_mm)
    cv2.line(page, (x0, bar_y), (x0 + int(100 * px_mm), bar_y), 0, max(1, int(px_mm * 0.5)))
    cv2.putText(page, f"100 mm (print at 100%: markers {marker_mm:g} mm)",
                (x0, bar_y - int(4 * px_mm)), font, px_mm * 0.25, 0, max(1, int(px_mm * 0.3)),
                cv2.LINE_AA)
    return page


# -- the table config ------------------------------------------------------------------------

CALIBRATION_KEY = "calibration"


def read_config(path: str | Path) -> dict:
    """The table config TOML as a dict ({} when the file does not exist: calibrating writes
    it); a file that cannot be read is one :class:`~table.config.ConfigError` line."""
    path = Path(path)
    if not path.exists():
        return {}
    return read_toml(path)


def calibration_path(config_path: str | Path) -> Path:
    """Where the config says the calibration is (``[camera] calibration``, relative to the
    config's folder), else ``calibration.json`` beside it."""
    camera = read_config(config_path).get("camera", {})
    name = camera.get(CALIBRATION_KEY, "calibration.json") if isinstance(camera, dict) else \
        "calibration.json"
    return beside_config(config_path, str(name))


def load_calibration(config_path: str | Path) -> Calibration:
    return Calibration.load(calibration_path(config_path))


def save_to_config(calibration: Calibration, config_path: str | Path) -> Path:
    """Write the calibration JSON beside the config and point ``[camera] calibration`` at it.
    Returns the JSON's path."""
    config_path = Path(config_path)
    config_path.parent.mkdir(parents=True, exist_ok=True)
    target = calibration_path(config_path)
    calibration.save(target)
    point_config_at(config_path, "camera", CALIBRATION_KEY, target)
    return target
