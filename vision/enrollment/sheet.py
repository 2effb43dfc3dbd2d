"""The tile-set enrollment sheet: a printable page with one outlined place per tile face, and
reading a photo of it back, place by place.

The referee prints the sheet (``riichi-referee enroll --sheet sheet.pdf``), lays one tile of
each kind of the tournament's set upright in its place (the 34 kinds, the three red fives and
one tile face down) and photographs it with the table camera. The sheet is one A3 page, or two
A4 pages (``--paper a4``: the suits of characters and circles on the first, bamboos, honours and
the face-down tile on the second) for a hall with no A3 printer. Four ArUco markers at each
page's corners (DICT_4X4_50; the A3 page ids 10-13, the A4 pages 14-17 and 18-21: other ids
than the table's 0-3, so a table and any pages may share one picture, and a page is known by
its markers) give the homography from the photo to the page in millimetres, by the table
calibration's own code (:func:`vision.camera.calibration.fit_homography` with the page as the
"table").

Each place is a mid-grey rectangle outlined in black, its code printed under it. Grey, because
every tile differs from it: ivory faces are lighter, the dark faces of some sets darker, and
backs are coloured. A place is read by warping it to a fixed scale, taking the paper's grey
from the rim inside the outline (the light on the page varies, so it is measured on each
place), and finding what differs from it: nothing (an empty place), something smaller than a
tile (a coin, a tile half off its place), or a tile, whose crop goes to the classifier.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from referee.errors import RefereeError
from referee.tiles import TILE_CODES
from vision.camera.calibration import (
    TableLayout,
    detect_markers,
    fit_homography,
    marker_image,
)
from vision.finding.felt import foreground_mask

#: ArUco ids of the A3 sheet's markers: top-left, top-right, bottom-right, bottom-left.
SHEET_MARKER_IDS = (10, 11, 12, 13)
#: The two A4 pages' markers, in the same order.
A4_MARKER_IDS = ((14, 15, 16, 17), (18, 19, 20, 21))
CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")

#: Face-down tile: its place and label.
BACK = "back"

#: The places, row by row: each suit with its red five at the end, then the honours and a
#: face-down tile.
ROWS: tuple[tuple[str, ...], ...] = (
    tuple(f"{n}m" for n in range(1, 10)) + ("0m",),
    tuple(f"{n}p" for n in range(1, 10)) + ("0p",),
    tuple(f"{n}s" for n in range(1, 10)) + ("0s",),
    tuple(f"{n}z" for n in range(1, 8)) + (BACK,),
)
PLACE_CODES: tuple[str, ...] = tuple(c for row in ROWS for c in row)
assert sorted(PLACE_CODES) == sorted(TILE_CODES + (BACK,))
#: The same places on two A4 pages (portrait), five to a row: characters and circles on the
#: first, bamboos, honours and the face-down tile on the second.
A4_ROWS: tuple[tuple[tuple[str, ...], ...], ...] = (
    (ROWS[0][:5], ROWS[0][5:], ROWS[1][:5], ROWS[1][5:]),
    (ROWS[2][:5], ROWS[2][5:], ROWS[3][:5], ROWS[3][5:]),
)
assert sorted(c for page in A4_ROWS for row in page for c in row) == sorted(PLACE_CODES)

_HONOURS = {"1z": "East", "2z": "South", "3z": "West", "4z": "North", "5z": "White",
            "6z": "Green", "7z": "Red"}

#: The grey of a place (BGR), printed.
FILL = (128, 128, 128)


def place_caption(code: str) -> str:
    """What is printed under a place."""
    if code == BACK:
        return "face down"
    if code in _HONOURS:
        return f"{code} {_HONOURS[code]}"
    if code[0] == "0":
        return f"{code} red 5"
    return code


@dataclass(frozen=True)
class Place:
    """One outlined place: the tile ``code`` it is for and its rectangle on the page in mm
    (``x``, ``y`` its top-left corner, ``w`` x ``h``)."""

    code: str
    x: float
    y: float
    w: float
    h: float

    @property
    def centre(self) -> tuple[float, float]:
        return self.x + self.w / 2, self.y + self.h / 2


@dataclass(frozen=True)
class SheetLayout:
    """One printed page (in mm; by default the A3 sheet, landscape): markers ``marker_mm`` wide
    with their outer corner ``margin_mm`` in from the page's corners, ids ``marker_ids``
    (top-left, top-right, bottom-right, bottom-left); the places ``rows`` of codes, each place
    ``place_w`` x ``place_h`` (room for the largest riichi tiles, about 30 x 40 mm), ``gap``
    apart in a row, rows ``row_pitch`` apart (the caption goes under each place). ``paper``
    and ``page`` name it to the referee ("A4 page 2 of 2")."""

    width_mm: float = 420.0
    height_mm: float = 297.0
    marker_mm: float = 28.0
    margin_mm: float = 10.0
    place_w: float = 32.0
    place_h: float = 42.0
    gap: float = 5.0
    row_pitch: float = 54.0
    rows: tuple[tuple[str, ...], ...] = ROWS
    marker_ids: tuple[int, ...] = SHEET_MARKER_IDS
    paper: str = "A3"
    page: int = 1
    pages: int = 1

    @property
    def name(self) -> str:
        """The page as the referee knows it: "the A3 sheet", "A4 page 2 of 2"."""
        if self.pages == 1:
            return f"the {self.paper} sheet"
        return f"{self.paper} page {self.page} of {self.pages}"

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(c for row in self.rows for c in row)

    def places(self) -> list[Place]:
        cols = max(len(r) for r in self.rows)
        grid_w = cols * self.place_w + (cols - 1) * self.gap
        x0 = (self.width_mm - grid_w) / 2
        # below the top markers, with a quiet zone round them that nothing printed enters
        y0 = self.margin_mm + self.marker_mm + 6.0
        out = []
        for r, row in enumerate(self.rows):
            for c, code in enumerate(row):
                out.append(Place(code, x0 + c * (self.place_w + self.gap),
                                 y0 + r * self.row_pitch, self.place_w, self.place_h))
        return out

    def place(self, code: str) -> Place:
        for p in self.places():
            if p.code == code:
                return p
        raise KeyError(code)

    def table_layout(self) -> TableLayout:
        """The page as :mod:`vision.camera.calibration` sees a table: its size and its markers."""
        return TableLayout(self.width_mm, self.height_mm, self.marker_mm, self.margin_mm,
                           self.marker_ids)


A3_SHEET = SheetLayout()
#: The two A4 pages, portrait: four rows of five places fit between the markers.
A4_PAGES = tuple(SheetLayout(width_mm=210.0, height_mm=297.0, rows=rows, marker_ids=ids,
                             paper="A4", page=k + 1, pages=2)
                 for k, (rows, ids) in enumerate(zip(A4_ROWS, A4_MARKER_IDS)))
#: The papers the sheet is printed on (``enroll --paper``): the pages of each.
PAPERS: dict[str, tuple[SheetLayout, ...]] = {"a3": (A3_SHEET,), "a4": A4_PAGES}
LAYOUTS: tuple[SheetLayout, ...] = (A3_SHEET,) + A4_PAGES


# -- the printable page -------------------------------------------------------------------

def render_sheet(layout: SheetLayout | None = None, dpi: float = 300) -> np.ndarray:
    """The printable page, BGR, ``dpi`` dots per inch (print it at 100% on A3, landscape)."""
    layout = layout or SheetLayout()
    ppm = dpi / 25.4
    return draw_sheet(layout, ppm)


def draw_sheet(layout: SheetLayout, px_per_mm: float) -> np.ndarray:
    """The page drawn at ``px_per_mm`` (the printable sheet, or a rendered photo's paper)."""
    s = px_per_mm
    page = np.full((int(round(layout.height_mm * s)), int(round(layout.width_mm * s)), 3), 255,
                   np.uint8)
    tl = layout.table_layout()
    side = int(round(layout.marker_mm * s))
    for mid in layout.marker_ids:
        x0, y0 = (tl.marker_corners(mid)[0] * s).round().astype(int)
        page[y0:y0 + side, x0:x0 + side] = cv2.cvtColor(marker_image(mid, side), cv2.COLOR_GRAY2BGR)
    font = cv2.FONT_HERSHEY_SIMPLEX
    thick = max(1, int(round(0.35 * s)))
    for p in layout.places():
        x1, y1 = int(round(p.x * s)), int(round(p.y * s))
        x2, y2 = int(round((p.x + p.w) * s)), int(round((p.y + p.h) * s))
        cv2.rectangle(page, (x1, y1), (x2, y2), FILL, -1)
        cv2.rectangle(page, (x1, y1), (x2, y2), (0, 0, 0), max(1, int(round(0.5 * s))))
        cv2.putText(page, place_caption(p.code), (x1, y2 + int(round(6 * s))), font,
                    0.13 * s, (0, 0, 0), thick, cv2.LINE_AA)
    if layout.pages == 1:
        title = [("riichi-referee: tile set enrollment. Lay one tile of each kind upright in its "
                  "place, then: riichi-referee enroll PHOTO --config table.toml")]
    else:   # between the top markers of a narrow page: three short lines
        title = [f"riichi-referee: tile set enrollment, {layout.name}",
                 "Lay one tile of each kind upright in its place, then:",
                 "riichi-referee enroll PHOTO PHOTO --config table.toml"]
    tx = layout.margin_mm + layout.marker_mm + 6.0
    for k, line in enumerate(title):
        y = 20.0 if len(title) == 1 else 18.0 + 7.0 * k
        cv2.putText(page, line, (int(round(tx * s)), int(round(y * s))), font, 0.11 * s,
                    (0, 0, 0), thick, cv2.LINE_AA)
    bar_y = int(round((layout.height_mm - 14) * s))
    x0 = int(round((layout.width_mm - 100) / 2 * s))
    cv2.line(page, (x0, bar_y), (x0 + int(round(100 * s)), bar_y), (0, 0, 0),
             max(1, int(round(0.5 * s))))
    orientation = "landscape" if layout.width_mm > layout.height_mm else "portrait"
    cv2.putText(page, f"100 mm: print at 100% on {layout.paper} {orientation}",
                (x0, bar_y - int(round(2 * s))), font, 0.11 * s, (0, 0, 0), thick, cv2.LINE_AA)
    return page


# -- reading a photo of it ----------------------------------------------------------------

def sheet_markers(image: np.ndarray, layout: SheetLayout | None = None) -> dict[int, np.ndarray]:
    """The markers of the page ``layout`` (None: of every sheet, :data:`LAYOUTS`) seen in
    ``image``, as :func:`vision.camera.calibration.detect_markers` gives them: found once, a
    photo's pages are told and located from them (a camera photo of 12 megapixels takes a
    while, and each page was looked for three times)."""
    layouts = LAYOUTS if layout is None else (layout,)
    return detect_markers(image, [i for page in layouts for i in page.marker_ids])


def locate(image: np.ndarray, layout: SheetLayout | None = None,
           where: str = "photo", found: dict[int, np.ndarray] | None = None) -> np.ndarray:
    """The photo -> page homography (3x3, to page mm), from the page's four markers;
    ``found``: :func:`sheet_markers` of ``image``, when the caller has them.

    Raises one line naming the markers not seen in ``where``."""
    layout = layout or A3_SHEET
    ids = layout.marker_ids
    if found is None:
        found = detect_markers(image, ids)
    missing = [i for i in ids if i not in found]
    if missing:
        of = "" if layout.pages == 1 else f" of {layout.name}"
        names = ", ".join(f"{i} ({CORNER_NAMES[ids.index(i)]}{of})" for i in missing)
        raise RefereeError(f"{where}: sheet marker{'s' if len(missing) > 1 else ''} {names} "
                           "not found: the whole sheet must be in the picture, flat and lit")
    return fit_homography(image, layout.table_layout(), found)[0]


def pages_in(image: np.ndarray, where: str = "photo",
             found: dict[int, np.ndarray] | None = None) -> list[SheetLayout]:
    """The pages of any sheet (:data:`LAYOUTS`) of which ``image`` shows a marker: a photo may
    hold the A3 sheet, one A4 page or both side by side. ``found``: :func:`sheet_markers` of
    ``image``, when the caller has them.

    Raises one line when it shows none."""
    ids = [i for layout in LAYOUTS for i in layout.marker_ids]
    if found is None:
        found = sheet_markers(image)
    pages = [layout for layout in LAYOUTS if any(i in found for i in layout.marker_ids)]
    if not pages:
        raise RefereeError(f"{where}: no marker of the enrollment sheet found (ArUco ids "
                           f"{min(ids)}-{max(ids)}): the whole sheet must be in the picture, "
                           "flat and lit")
    return pages


@dataclass
class PlaceReading:
    """What lies in one place of a photographed sheet.

    ``status``: ``tile``, ``empty`` or ``not_a_tile``. ``crop``: the tile with a little paper
    round it, BGR, upright as laid (None unless a tile). ``cover``: the part of the place's
    inside that differs from its paper.
    """

    place: Place
    status: str
    crop: np.ndarray | None
    cover: float


#: Scale the places are cut at (pixels per mm): a 26 mm tile is 104 pixels wide, more than the
#: classifier's input, so nothing is lost whatever the camera gave.
CUT_PX_PER_MM = 4.0
#: Around a place, what is cut with it (mm): a tile laid a little off its place is still whole.
_MARGIN_MM = 4.0
#: A place is empty below this cover, and holds a tile above the next (a 20 x 27 mm mini tile
#: covers 40% of a place, a 26 x 35 one 68%).
EMPTY_BELOW = 0.08
TILE_ABOVE = 0.30


def read_place(image: np.ndarray, homography: np.ndarray, place: Place,
               px_per_mm: float = CUT_PX_PER_MM) -> PlaceReading:
    """Cut ``place`` out of the photo ``image`` (``homography``: photo -> page mm) and tell
    what is in it."""
    s = px_per_mm
    m = _MARGIN_MM
    w = int(round((place.w + 2 * m) * s))
    h = int(round((place.h + 2 * m) * s))
    # page mm -> cut pixels, composed with photo -> page mm
    to_cut = np.array([[s, 0, -(place.x - m) * s], [0, s, -(place.y - m) * s], [0, 0, 1]])
    shrink = _scale_at(homography, place) > s
    cut = cv2.warpPerspective(image, to_cut @ homography, (w, h),
                              flags=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
    # the place's inside (clear of the printed outline) in cut pixels
    inset = 1.2
    ix1, iy1 = int(round((m + inset) * s)), int(round((m + inset) * s))
    ix2, iy2 = int(round((m + place.w - inset) * s)), int(round((m + place.h - inset) * s))
    inside = cut[iy1:iy2, ix1:ix2]
    lab = cv2.cvtColor(inside, cv2.COLOR_BGR2LAB)
    ring = int(round(1.5 * s))
    rim = np.concatenate([lab[:ring].reshape(-1, 3), lab[-ring:].reshape(-1, 3),
                          lab[:, :ring].reshape(-1, 3), lab[:, -ring:].reshape(-1, 3)])
    paper = np.median(rim.astype(np.float32), axis=0)
    mask = foreground_mask(inside, threshold=16.0, bg=paper)
    # A tile's face is ink and ivory, and the ink can cut the ivory into pieces (three rows of
    # circles across a 9p): the tile is the hull of every piece that is not a speck.
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    area = float(inside.shape[0] * inside.shape[1])
    keep = [k for k in range(1, n) if stats[k, cv2.CC_STAT_AREA] >= 0.005 * area]
    if not keep:
        return PlaceReading(place, "empty", None, 0.0)
    pts = np.column_stack(np.nonzero(np.isin(labels, keep)))[:, ::-1].astype(np.int32)
    body = np.zeros(mask.shape, np.uint8)
    cv2.fillConvexPoly(body, cv2.convexHull(pts), 255)
    cover = float((body > 0).sum()) / area
    if cover < EMPTY_BELOW:
        return PlaceReading(place, "empty", None, round(cover, 3))
    if cover < TILE_ABOVE:
        return PlaceReading(place, "not_a_tile", None, round(cover, 3))
    ys, xs = np.nonzero(body)
    bx1, by1, bx2, by2 = xs.min() + ix1, ys.min() + iy1, xs.max() + 1 + ix1, ys.max() + 1 + iy1
    pad = int(round(1.0 * s))
    crop = cut[max(0, by1 - pad):min(h, by2 + pad), max(0, bx1 - pad):min(w, bx2 + pad)]
    return PlaceReading(place, "tile", np.ascontiguousarray(crop), round(cover, 3))


def _scale_at(homography: np.ndarray, place: Place) -> float:
    """Photo pixels per page mm around ``place`` (to pick the resampling)."""
    cx, cy = place.centre
    pts = np.float64([[cx, cy], [cx + 10, cy]]).reshape(-1, 1, 2)
    pts = cv2.perspectiveTransform(pts, np.linalg.inv(homography)).reshape(-1, 2)
    return float(np.hypot(*(pts[1] - pts[0]))) / 10


def read_sheet(image: np.ndarray, layout: SheetLayout | None = None,
               where: str = "photo", found: dict[int, np.ndarray] | None = None
               ) -> list[PlaceReading]:
    """Every place of the page ``layout`` photographed in ``image``, in its order; without a
    layout, every place of every page the photo shows (:func:`pages_in`), page by page.
    ``found``: :func:`sheet_markers` of ``image``, when the caller has them."""
    if found is None:
        found = sheet_markers(image, layout)    # once for the photo, not once a page and step
    pages = [layout] if layout is not None else pages_in(image, where, found)
    out = []
    for page in pages:
        homography = locate(image, page, where, found)
        out += [read_place(image, homography, p) for p in page.places()]
    return out
