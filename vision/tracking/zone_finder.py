"""Finding tiles in a few zones of the table instead of the whole of it.

:class:`ZoneFinder` cuts each zone asked for (with a margin, so a tile on its edge is whole)
out of the frame as a top-down view, runs a tile finder on it, and puts what it found back in
the coordinates of the whole top-down view, as :func:`vision.finding.learned.find_tiles_topdown`
would
have reported it for the full table. Camera frames are warped region by region, never whole.

The finder is pluggable: anything with the signature of ``find_tiles_topdown(topdown,
px_per_mm) -> Finding``. The learned finder's boxes move with where a tile falls on its
coarsest cells, so for it a zone is cut on that grid (:func:`~vision.finding.learned.topdown_grid`)
and shows it the same cells the whole view does: the same tiles, the same boxes. The
felt-colour finder takes the table's colour from what it is shown, so for it a zone is framed
in felt.
"""
from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from vision.camera.calibration import view_maps
from vision.camera.zones import Zone
from vision.finding.found import Finding
from vision.finding.learned import find_tiles_topdown, topdown_grid
from vision.finding.meld_holes import tiles_in_holes
from vision.finding.washed import zone_shares

_ALIGN = 8


class ZoneFinder:
    """Finds tiles zone by zone.

    ``px_per_mm``: scale of the top-down view the tracker works in. ``table_mm``: (width,
    height) of the table. ``to_topdown``: 3x3 map from frame pixels to top-down pixels (a
    calibration's ``topdown_matrix()``); None when the frames already are top-down views.
    ``margin_mm``: table around each zone that is looked at too. ``find``: the tile finder.
    ``grid``: for a finder that sees on a grid (the learned one), its coarsest grid in
    top-down pixels: each cut starts and ends on it and is shown as it is; None (a finder
    that takes the table's colour from what it sees, the felt one): cuts on 8-pixel steps,
    framed in felt. ``meld_holes``: a hole a tile wide between two tiles of a meld area is cut as
    the tile the finder lost there (:mod:`vision.finding.meld_holes`), its face at most
    ``crop_width`` pixels wide, for the classifier to read. ``pond_rows``: a pond's finder
    (``find(view, px_per_mm, rows_along=...)``) is told which way its rows run, so that it
    cuts touching tiles apart only along them (:func:`~vision.finding.learned.split_pairs`).
    """

    def __init__(self, px_per_mm: float, table_mm: tuple[float, float] = (800.0, 800.0),
                 to_topdown: np.ndarray | None = None, margin_mm: float = 24.0,
                 find=find_tiles_topdown, grid: float | None = None, meld_holes: bool = False,
                 crop_width: int | None = None, pond_rows: bool = False):
        self.px_per_mm = float(px_per_mm)
        self.size = (int(round(table_mm[0] * px_per_mm)), int(round(table_mm[1] * px_per_mm)))
        self.to_topdown = None if to_topdown is None else np.asarray(to_topdown, np.float64)
        self.margin_mm = float(margin_mm)
        self.find = find
        self.grid = None if grid is None else float(grid)
        self.meld_holes = meld_holes
        self.crop_width = crop_width
        self.pond_rows = pond_rows
        self._maps = {}      # a region's view_maps, by region (to_topdown does not change)
        #: the share of each zone read (by name) that a glare washed out when it was last cut
        #: (:func:`vision.finding.washed.zone_shares`; the hands' zones are not asked)
        self.washed: dict[str, float] = {}

    @classmethod
    def for_tracker(cls, tracker, px_per_mm: float, table_mm: tuple[float, float] = (800.0, 800.0),
                    to_topdown: np.ndarray | None = None, **kw) -> "ZoneFinder":
        """Finding with ``tracker``'s finder (:meth:`TableTracker.find_tiles`), cut as that
        finder needs: on the learned finder's grid, with the melds' holes looked into, or
        framed in felt for the felt finder."""
        learned = tracker.finder is not None
        return cls(px_per_mm, table_mm, to_topdown, find=tracker.find_tiles,
                   grid=topdown_grid(px_per_mm) if learned else None, meld_holes=learned,
                   crop_width=getattr(tracker.classifier, "input_width", None),
                   pond_rows=learned, **kw)

    def region(self, zone: Zone) -> tuple[int, int, int, int]:
        """The zone and its margin in top-down pixels, inside the table."""
        m, s = self.margin_mm, self.px_per_mm
        x1, y1, x2, y2 = zone.rect
        w, h = self.size
        if self.grid is not None:
            g = self.grid

            def on_grid(mm, to):    # the grid line ``to`` (floor or ceil) takes mm to
                return int(round(to(mm * s / g) * g))

            return (max(0, on_grid(x1 - m, np.floor)), max(0, on_grid(y1 - m, np.floor)),
                    min(w, on_grid(x2 + m, np.ceil)), min(h, on_grid(y2 + m, np.ceil)))
        # on a grid of 8 pixels: the finder shrinks its input by a whole factor, and a cut
        # that starts on that grid shrinks to the same pixels as the whole view would
        a = _ALIGN
        return (max(0, int((x1 - m) * s) // a * a), max(0, int((y1 - m) * s) // a * a),
                min(w, int(np.ceil((x2 + m) * s))), min(h, int(np.ceil((y2 + m) * s))))

    def _cut(self, frame: np.ndarray, rect) -> np.ndarray:
        x1, y1, x2, y2 = rect
        if self.to_topdown is None:
            return frame[y1:y2, x1:x2]
        # Where each pixel of a zone's cut comes from is worked out once (a zone's region
        # does not move) and then only looked up: the thirteen zones of a full table took
        # 7.2 ms a frame warped afresh here, 3.8 looked up, and a cut is then the whole
        # view's pixels there to the bit (Calibration.warp's), as the finder was measured on.
        maps = self._maps.get(rect)
        if maps is None:
            maps = self._maps[rect] = view_maps(self.to_topdown, rect)
        return cv2.remap(frame, *maps, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def felt(self, frame: np.ndarray) -> np.ndarray:
        """The table's colour (BGR) as the finder would take it from the whole view: the
        median, in Lab, of a sparse sample of the table."""
        if self.to_topdown is None:
            small = np.ascontiguousarray(frame[::14, ::14])
        else:
            scale = np.diag([1 / 14, 1 / 14, 1.0])
            small = cv2.warpPerspective(frame, scale @ self.to_topdown,
                                        (self.size[0] // 14, self.size[1] // 14),
                                        flags=cv2.INTER_NEAREST)
        lab = np.median(cv2.cvtColor(small, cv2.COLOR_BGR2LAB).reshape(-1, 3), axis=0)
        pixel = np.clip(np.round(lab), 0, 255).astype(np.uint8).reshape(1, 1, 3)
        return cv2.cvtColor(pixel, cv2.COLOR_LAB2BGR).reshape(3)

    def __call__(self, frame: np.ndarray, zones: list[Zone]) -> Finding:
        """The tiles whose centre lies in one of ``zones``, in top-down pixels, and what else
        covers those zones (``occluded``, the size of the whole top-down view)."""
        w, h = self.size
        occluded = np.zeros((h, w), np.uint8)
        tiles = []
        felt = None
        s = self.px_per_mm
        for zone in zones:
            x1, y1, x2, y2 = self.region(zone)
            if x2 <= x1 or y2 <= y1:
                continue
            cut = np.ascontiguousarray(self._cut(frame, (x1, y1, x2, y2)))
            self.washed.update(zone_shares(cut, [zone], s, origin=(x1, y1)))
            if self.grid is not None:
                pad, framed = 0, cut
            else:
                # The felt finder takes the commonest colour for the table; a crop of a full
                # pond is mostly tiles, so the crop is framed in felt first.
                if felt is None:
                    felt = self.felt(frame)
                pad = int(0.25 * max(x2 - x1, y2 - y1)) // _ALIGN * _ALIGN + _ALIGN
                framed = cv2.copyMakeBorder(cut, pad, pad, pad, pad, cv2.BORDER_CONSTANT,
                                            value=[float(v) for v in felt])
            if self.pond_rows and zone.kind == "pond":
                # its rows run along its seat's edge of the table
                finding = self.find(framed, s, rows_along=zone.rotation % 2)
            else:
                finding = self.find(framed, s)
            if self.meld_holes and zone.kind == "meld":
                finding.tiles += tiles_in_holes(finding.tiles, framed, s,
                                                along_x=zone.rotation % 2 == 0,
                                                crop_width=self.crop_width)
            ox, oy = x1 - pad, y1 - pad
            for tile in finding.tiles:
                bx1, by1, bx2, by2 = tile.box
                quad = None if tile.quad is None else tile.quad + np.array([ox, oy], np.float32)
                moved = replace(tile, box=(bx1 + ox, by1 + oy, bx2 + ox, by2 + oy), quad=quad)
                cx, cy = moved.centre
                if zone.contains(cx / s, cy / s):
                    tiles.append(moved)
            seen = finding.occluded[pad:pad + (y2 - y1), pad:pad + (x2 - x1)]
            np.maximum(occluded[y1:y2, x1:x2], seen, out=occluded[y1:y2, x1:x2])
        return Finding(tiles, occluded)
