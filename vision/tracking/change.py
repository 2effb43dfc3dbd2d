"""Which places on the table changed, and since which camera frame: cheap enough for every frame.

The tile finder and classifier are far too slow to run on every frame on a Pi (a full table
takes about a third of a second there), yet a discard's time must be the first frame that
showed the tile. :class:`ChangeDetector` looks at every frame: the zones (ponds, melds, hands,
dora) are cut into cells ``cell_mm`` square, each cell's brightness is sampled at a few points
(no full-frame resize: six bytes per cell are read per frame), and per cell it keeps

- the **settled** look: what the cell showed when recognition last accounted for it;
- the current **run**: the frame since which the cell has looked as it does now;
- a short **history** of the runs since it left its settled look (a hand, the tile, the hand
  again...), so that when recognition later finds a new tile, :meth:`ChangeDetector.onset`
  says the first frame that showed the place as recognition saw it, even if a hand passed
  over it in between.

A cell that goes back to its settled look (a hand passed over) forgets its history: nothing
happened there. On the first frame every cell counts as changed: nothing has been read yet. Recognition is asked only for zones with changed cells (:meth:`due`), and
when it has accounted for a place, :meth:`settle` makes its current look the settled one.

Frames may be top-down views or camera pictures: ``to_table`` maps the frame's pixels to table
millimetres (a :class:`~vision.camera.calibration.Calibration`'s ``homography``, or a plain scale
for
top-down views).
"""
from __future__ import annotations

import threading

import cv2
import numpy as np

from referee.errors import RefereeError
from vision.camera.zones import Zone

#: Where a cell is sampled, in cell widths from its centre (3 x 2), and which colour channel
#: each point gives (blue, green, red, twice each): one byte per point, yet a hand and a tile's
#: green or red strokes of the same brightness still differ.
_SAMPLES = ((-0.3, -0.25), (0.0, -0.25), (0.3, -0.25), (-0.3, 0.25), (0.0, 0.25), (0.3, 0.25))
_CHANNEL = (0, 1, 2, 0, 1, 2)
NEVER = -1


def topdown_to_table(px_per_mm: float) -> np.ndarray:
    """The frame -> table mm map of a top-down view at ``px_per_mm``."""
    return np.diag([1.0 / px_per_mm, 1.0 / px_per_mm, 1.0])


class ChangeDetector:
    """Per-cell change detection over ``zones``.

    ``to_table``: 3x3 homography, frame pixels -> table mm. ``frame_size``: (width, height) of
    the frames. ``cell_mm``: side of a cell (a tile is about 3 x 4 cells of 8 mm).
    ``threshold``: how far a cell's look (its blue, green and red, 0-255) must move in one
    channel to count as a change; camera noise and felt grain stay well below it,
    a tile, a hand or a tile's drawing well above. ``history``: runs kept per cell since it
    left its settled look. ``min_run``: frames a look must last to be kept in the history (a
    hand in motion is a new look every frame and would push the tile's own run out).
    """

    def __init__(self, zones: list[Zone], to_table: np.ndarray, frame_size: tuple[int, int],
                 cell_mm: float = 8.0, threshold: float = 24.0, history: int = 16,
                 min_run: int = 2):
        self.zones = list(zones)
        self.cell_mm = float(cell_mm)
        self.threshold = float(threshold)
        self.min_run = int(min_run)
        self.frame_size = (int(frame_size[0]), int(frame_size[1]))
        centres, zone_of = [], []
        for zi, zone in enumerate(self.zones):
            x1, y1, x2, y2 = zone.rect
            nx, ny = max(1, int((x2 - x1) // cell_mm)), max(1, int((y2 - y1) // cell_mm))
            ox = x1 + ((x2 - x1) - nx * cell_mm) / 2 + cell_mm / 2
            oy = y1 + ((y2 - y1) - ny * cell_mm) / 2 + cell_mm / 2
            gx, gy = np.meshgrid(ox + cell_mm * np.arange(nx), oy + cell_mm * np.arange(ny))
            centres.append(np.stack([gx.ravel(), gy.ravel()], axis=1))
            zone_of.append(np.full(nx * ny, zi))
        self.centres = np.concatenate(centres)          # (n, 2) table mm
        self.zone_of = np.concatenate(zone_of)          # (n,) index into zones
        self.zone_cells = [np.flatnonzero(self.zone_of == zi) for zi in range(len(self.zones))]
        # a zone's cells are one run of indices: per-zone figures come from one reduceat
        self._zone_starts = np.array([cells[0] for cells in self.zone_cells], np.intp)
        n = len(self.centres)
        self._pixels = self._sample_pixels(np.asarray(to_table, np.float64))
        self._index: dict[int, np.ndarray] = {}
        self.n = n
        k = int(history)
        # looks are (3, n): blue, green, red rows, so per-cell tests run along whole rows
        self.ref = np.zeros((3, n), np.float32)         # settled look
        self.first_look = np.zeros((3, n), np.float32)  # the look of the first frame
        self.ref_start = np.full(n, NEVER, np.int64)    # first frame of the settled look
        self.run_look = np.zeros((3, n), np.float32)    # current run's look
        self.run_start = np.full(n, NEVER, np.int64)    # t_ns of the current run's first frame
        self.run_frames = np.zeros(n, np.int32)
        self.left_at = np.full(n, NEVER, np.int64)      # first frame unlike the settled look
        self.back_at = np.full(n, NEVER, np.int64)      # last went back to its settled look
        self.read = np.zeros(n, bool)                   # recognition has accounted for it
        self._scratch = np.zeros((3, n), np.float32)
        self.hist_start = np.full((k, n), NEVER, np.int64)
        self.hist_look = np.zeros((k, 3, n), np.float32)
        self.hist_count = np.zeros(n, np.int64)
        self.frames = 0
        self.last_ns: int | None = None
        self.lock = threading.RLock()

    # -- sampling -------------------------------------------------------------------------
    def _sample_pixels(self, to_table: np.ndarray) -> np.ndarray:
        """Flat pixel indices (row * width + column) of every cell's samples, cell by cell."""
        offsets = np.array(_SAMPLES) * self.cell_mm
        pts = (self.centres[:, None, :] + offsets[None, :, :]).reshape(-1, 1, 2)
        img = cv2.perspectiveTransform(pts, np.linalg.inv(to_table)).reshape(-1, 2)
        w, h = self.frame_size
        xs = np.clip(np.round(img[:, 0]), 0, w - 1).astype(np.intp)
        ys = np.clip(np.round(img[:, 1]), 0, h - 1).astype(np.intp)
        return ys * w + xs

    def look(self, frame: np.ndarray) -> np.ndarray:
        """Every cell's blue, green and red in ``frame`` (BGR, or grey), float32 (3, n)."""
        h, w = frame.shape[:2]
        if (w, h) != self.frame_size:
            fw, fh = self.frame_size
            raise RefereeError(f"camera frames are {w}x{h} but the calibration was made for "
                               f"{fw}x{fh} frames (calibrate again)")
        channels = 1 if frame.ndim == 2 else frame.shape[2]
        index = self._index.get(channels)
        if index is None:
            chan = np.array(_CHANNEL) if channels >= 3 else np.zeros(len(_SAMPLES), int)
            index = self._pixels.reshape(self.n, -1) * channels + chan
            # sample-major: the blue of every cell's first point, then its green...
            self._index[channels] = index = np.ascontiguousarray(index.T).ravel()
        samples = np.take(np.ascontiguousarray(frame).reshape(-1), index)
        points = samples.reshape(2, 3, self.n).astype(np.float32)
        return (points[0] + points[1]) * 0.5

    def _differ(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        np.subtract(a, b, out=self._scratch)
        np.abs(self._scratch, out=self._scratch)
        s = self._scratch
        return (s[0] > self.threshold) | (s[1] > self.threshold) | (s[2] > self.threshold)

    # -- every frame ------------------------------------------------------------------------
    def update(self, frame: np.ndarray, t_ns: int) -> None:
        """Take in the frame exposed at ``t_ns``."""
        g = self.look(frame)
        with self.lock:
            if self.frames == 0:
                # nothing is known of the table as first seen: every place waits to be read
                self.ref[:] = g
                self.first_look[:] = g
                self.run_look[:] = g
                self.run_start[:] = t_ns
                self.left_at[:] = t_ns
            new_run = self._differ(g, self.run_look)
            if new_run.any():
                ended = np.flatnonzero(new_run & (self.run_frames >= self.min_run) &
                                       (self.left_at != NEVER))
                if len(ended):
                    slot = self.hist_count[ended] % self.hist_start.shape[0]
                    self.hist_start[slot, ended] = self.run_start[ended]
                    self.hist_look[slot, :, ended] = self.run_look[:, ended].T
                    self.hist_count[ended] += 1
                self.run_start[new_run] = t_ns
                self.run_frames[new_run] = 0
            # a run's look follows slow drift (light, exposure); a jump starts a new run
            self.run_look += 0.25 * (g - self.run_look)
            if new_run.any():
                self.run_look[:, new_run] = g[:, new_run]
            self.run_frames += 1
            changed = self._differ(self.run_look, self.ref)
            self.left_at[changed & (self.left_at == NEVER)] = t_ns
            steady = ~changed & (self.run_frames >= self.min_run)
            # back to the settled look for a while: whatever passed over left nothing behind
            back = steady & (self.left_at != NEVER) & self.read
            if back.any():
                self.left_at[back] = NEVER
                self.hist_count[back] = 0
                self.back_at[back] = t_ns
            if self.frames % 8 == 0:
                # the settled look follows slow drift too
                self.ref += (0.3 * steady) * (self.run_look - self.ref)
            self.frames += 1
            self.last_ns = t_ns

    # -- what recognition needs -------------------------------------------------------------
    def changed_zones(self) -> set[int]:
        """Indices (into ``zones``) of zones with a cell unlike its settled look."""
        return {zi for zi, z in enumerate(self.zones_now()) if z[0] is not None}

    def zones_now(self) -> list[tuple[int | None, int, int, int]]:
        """Per zone: (t_ns of its first change still unsettled, or None when it is settled;
        frames since any of its cells last changed look; t_ns of that change; t_ns a cell of it
        last went back to its settled look, something having passed over it, or NEVER)."""
        with self.lock:
            left = np.where(self.left_at == NEVER, np.iinfo(np.int64).max, self.left_at)
            first = np.minimum.reduceat(left, self._zone_starts)
            still = np.minimum.reduceat(self.run_frames, self._zone_starts)
            moved = np.maximum.reduceat(self.run_start, self._zone_starts)
            back = np.maximum.reduceat(self.back_at, self._zone_starts)
        top = np.iinfo(np.int64).max
        return [(None if f == top else int(f), int(c), int(m), int(b))
                for f, c, m, b in zip(first, still, moved, back)]

    def first_change(self) -> int | None:
        """The earliest frame a still unsettled change began (None when the table is settled):
        no event can be stamped earlier than this any more."""
        with self.lock:
            pending = self.left_at[self.left_at != NEVER]
            return int(pending.min()) if len(pending) else None

    def as_first_seen(self, cells: np.ndarray) -> np.ndarray:
        """Whether each of ``cells`` looks now, steadily, as in the first frame: the table as
        the camera first saw it, before anything was laid or passed over there."""
        with self.lock:
            same = ~self._differ(self.run_look, self.first_look) & (self.run_frames >= self.min_run)
        return same[cells]

    def cells_in(self, rect_mm, inset_mm: float = 0.0) -> np.ndarray:
        x1, y1, x2, y2 = rect_mm
        c = self.centres
        return np.flatnonzero((c[:, 0] >= x1 + inset_mm) & (c[:, 0] <= x2 - inset_mm) &
                              (c[:, 1] >= y1 + inset_mm) & (c[:, 1] <= y2 - inset_mm))

    def onset(self, rect_mm, t_ns: int, first_sight: bool = False) -> int | None:
        """The first frame, since the place last settled, that showed ``rect_mm`` (table mm) as
        it looked at ``t_ns``: per cell inside it, the earliest run with that look; then the
        median over the cells, so a finger still on the tile's edge does not delay it. The
        upper median: the first frame by which more than half the cells showed the place so.
        The mean of the middle two, with an even count, is a moment when nothing happened: a
        dark 8p, half of whose cells looked like the dark table from before, half of them
        changed when it was laid, was stamped 2.4 s before it was laid, and every press on it
        would have looked late.

        ``first_sight``: the place is a tile recognition has just found (when did it land?),
        not one it knew (has it stayed?). A hand resting on part of a tile it has just laid
        hides those cells until it leaves, seconds at times; the tile landed when the rest
        showed it, so the time is the lower quartile of the cells, not their median. And of
        the cells that changed since the place was last settled, when a quarter of them or more
        did, and of those settled since they began to change: a cell settled before, that
        still looks so, only says that the tile's face there looks like what was there before
        (a dark face on the dark table), and its settled time would be long before the tile
        came. When fewer changed, all count (a tile the finder missed was settled with the
        table; found later, it showed first back then), but for the oldest of them when half
        or more are newer: a face like the table there kept the table's time.
        None when no cell of the place can tell (outside the zones, or lost from the history).
        """
        cells = self.cells_in(rect_mm, inset_mm=min(2.0, self.cell_mm / 3))
        if len(cells) == 0:
            return None
        k = self.hist_start.shape[0]
        out, moved, settled = [], [], []
        began = np.iinfo(np.int64).max          # when the place's cells began to change
        with self.lock:
            for c in cells:
                runs = [(int(self.hist_start[s, c]), self.hist_look[s, :, c].copy(), False)
                        for s in range(min(int(self.hist_count[c]), k))]
                runs.append((int(self.run_start[c]), self.run_look[:, c].copy(), False))
                if self.ref_start[c] != NEVER:
                    # the settled look too: a tile the finder missed when it was laid was
                    # settled as bare table; found later, it showed first back then
                    runs.append((int(self.ref_start[c]), self.ref[:, c].copy(), True))
                runs.sort(key=lambda run: run[0])
                then = [look for start, look, _ in runs if start <= t_ns]
                if not then:
                    continue
                look = then[-1]
                first = min(start for start, other, _ in runs
                            if start <= t_ns and
                            np.abs(other - look).max() <= self.threshold)
                if first_sight:
                    # a glare lying on the tile when it was found: the same look, lit, came
                    # earlier in this change (never the settled look: that is before it)
                    lit = [start for start, other, settled in runs
                           if not settled and start < first and self._lit(look, other, self.ref[:, c])]
                    first = min(lit, default=first)
                out.append(first)
                if self.ref_start[c] == NEVER or \
                        np.abs(self.ref[:, c] - look).max() > self.threshold:
                    moved.append(first)
                    began = min(began, int(self.left_at[c]) if self.left_at[c] != NEVER
                                else first)
                else:
                    settled.append((int(self.ref_start[c]), first))
        if not out:
            return None
        if first_sight:
            if 4 * len(moved) >= len(out):
                # a cell settled since the place began to change shows what came (a tile
                # whose part in view was settled while the hand that laid it rested on the
                # rest); one settled before shows what was there before
                out = moved + [first for since, first in settled if since >= began]
            else:
                # a tile settled unseen with the table (the finder missed it when it landed):
                # the cells whose look it changed were settled with their new look, from its
                # landing; those whose face looks like the table there kept the table's older
                # time (a dark 9m found 6 s after it was laid was stamped at the film's first
                # frame). The newer date it when they are half the place or more; fewer are
                # more likely cells settled again after it landed (a glare that lay on a 7z
                # when it was read), and the older then are its landing.
                oldest = min(out)
                newer = [first for first in out if first > oldest]
                if 2 * len(newer) >= len(out):
                    out = newer
            out.sort()
            return out[(len(out) - 1) // 4]
        out.sort()
        return out[len(out) // 2]

    def uncovered(self, rect_mm, t_ns: int) -> int | None:
        """The frame ``rect_mm`` (table mm) last came into view, when three quarters of its
        cells or more look as recognition last settled them: the median start of its cells'
        present looks. Something found there then came without the detector seeing it come (a
        dark face on a dark table looks, to a cell's few samples, like the table under it), and
        what last covered the place (the hand that laid it) left at that frame. None when more
        of the place looks otherwise (:meth:`onset` saw it change), when a cell began its look
        after ``t_ns`` or was never settled."""
        cells = self.cells_in(rect_mm, inset_mm=min(2.0, self.cell_mm / 3))
        if len(cells) == 0:
            return None
        with self.lock:
            starts = self.run_start[cells]
            if (self.ref_start[cells] == NEVER).any() or (starts > t_ns).any():
                return None
            moved = np.abs(self.ref[:, cells] - self.run_look[:, cells]).max(axis=0) > self.threshold
            if 4 * int(moved.sum()) >= len(cells):
                return None
            starts = np.sort(starts)
        return int(starts[len(starts) // 2])

    def relit(self, rect_mm, t_ns: int) -> int | None:
        """When ``rect_mm`` (table mm) took the look recognition last settled it with, if what
        it shows at ``t_ns`` differs from that only by the light: every cell of it unlike its
        settled look went from it straight to the look it shows now, with no frame between,
        all of them in the same frame (a glare or a shadow lifting, an exposure step). A hand
        that lays a tile covers the place first, a look between; a tile slid in covers some of
        its cells a frame or more before the rest. The lower quartile of the cells' settled
        starts, as :meth:`onset` dates a tile it has just found. None when a quarter of the
        cells or fewer moved (:meth:`onset` dates those), when a cell was never settled, or
        when a cell's runs since it left were more than the history keeps."""
        cells = self.cells_in(rect_mm, inset_mm=min(2.0, self.cell_mm / 3))
        if len(cells) == 0:
            return None
        k = self.hist_start.shape[0]
        with self.lock:
            if (self.ref_start[cells] == NEVER).any():
                return None
            moved, left = 0, set()
            for c in cells:
                if np.abs(self.ref[:, c] - self.run_look[:, c]).max() <= self.threshold:
                    continue
                count = int(self.hist_count[c])
                if self.left_at[c] == NEVER or self.run_start[c] > t_ns or count > k:
                    return None
                # the first run since the cell left its settled look: the oldest kept, or
                # the present one (a run of one frame is not kept: a hand in motion)
                start, look = (int(self.hist_start[0, c]), self.hist_look[0, :, c]) if count \
                    else (int(self.run_start[c]), self.run_look[:, c])
                if start != self.left_at[c] or \
                        np.abs(look - self.run_look[:, c]).max() > self.threshold:
                    return None
                moved += 1
                left.add(start)
            if 4 * moved <= len(cells) or len(left) != 1:
                return None
            starts = np.sort(self.ref_start[cells])
        return int(starts[(len(starts) - 1) // 4])

    def _lit(self, look: np.ndarray, before: np.ndarray, table: np.ndarray) -> bool:
        """Whether ``look`` is ``before`` under a glare: every channel brighter by about
        the same (a glare adds white light), and none burnt out (a burnt-out cell shows
        nothing of what is under it). Not when ``before`` is darker than the bare ``table``
        in every channel: that may be the shadow a hand cast there before the tile came,
        and a shadow on the felt, lit, looks like a light tile (it would date the tile
        early). A black tile looks so too, and a glare on one is left to date it late."""
        step = look - before
        return bool(look.max() < 250 and step.min() > self.threshold and
                    step.max() - step.min() <= self.threshold and
                    (table - before).min() <= self.threshold)

    def settle(self, cells: np.ndarray, t_ns: int) -> None:
        """Recognition has accounted for ``cells`` as the frame at ``t_ns`` showed them: those
        still looking as they did then take that look as settled."""
        with self.lock:
            cells = np.asarray(cells, np.intp)
            still = cells[self.run_start[cells] <= t_ns]
            # a cell read again looking as it was settled keeps its settled time: its run may
            # have begun since (a hand passed), and its history went with the last settling
            kept = (self.ref_start[still] != NEVER) & \
                (np.abs(self.ref[:, still] - self.run_look[:, still]).max(axis=0)
                 <= self.threshold)
            before = self.ref_start[still]
            self.ref[:, still] = self.run_look[:, still]
            # since when the place has looked so: its run, or an earlier one like it
            first = self.run_start[still].copy()
            first = np.where(kept, np.minimum(first, before), first)
            for k in range(min(int(self.hist_count[still].max(initial=0)), self.hist_start.shape[0])):
                like = (k < self.hist_count[still]) & \
                    (np.abs(self.hist_look[k][:, still] - self.run_look[:, still]).max(axis=0)
                     <= self.threshold)
                first = np.where(like, np.minimum(first, self.hist_start[k, still]), first)
            self.ref_start[still] = first
            self.read[still] = True
            self.left_at[still] = NEVER
            self.hist_count[still] = 0
