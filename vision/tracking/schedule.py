"""Recognition where and when the table changed, never holding up the camera.

:class:`RecognitionScheduler` is fed every camera frame (``push(frame, t_ns)``, in the camera's
thread). Each frame goes through the :class:`~vision.tracking.change.ChangeDetector` at once: a few
thousand pixels are read, so it keeps up with 30 frames a second on a Pi core. Recognition
(the tile finder on the changed zones, then the tracker with its classifier) runs in a worker
thread on the **newest** frame whenever it is free and a zone is due:

- a zone is due when one of its places differs from the settled table and the zone has been
  still for ``calm_frames`` frames (a hand in the way is not worth reading), or has been busy
  for ``busy_s`` seconds since it was last read; a pond that is due is read first, alone (a
  claim window waits on its discard);
- nothing queues: while recognition works, newer frames only update the change detector, and
  the frame recognition runs on next is the latest one. Under load fewer frames are read; the
  time of every change is still known to the frame, because the detector saw them all;
- when recognition confirms a tile, the tracker stamps it with the detector's onset of its
  place (the first frame that showed it), not with the frame that was read;
- the finder's hand mask counts only where the table changed: a hand changes the look of
  what it covers, so a "hand" on a place that looks as it was last read, or as the camera
  first saw it (the grain of a wooden table taken for skin), does not keep the tile beside it
  from being read, nor the pond about it from being looked at in plain view;
- once recognition has accounted for a place (a confirmed tile, bare table), the detector
  takes its look as settled; a place it cannot account for (something that is not a tile, a
  hand resting there) is read again later, less and less often while nothing moves.

A hand that passes over the table and leaves everything as it was makes no event: its places
go back to their settled look before they are due. But a dark face laid on a dark table looks,
to the detector's few samples a cell, like the table it covers, and its place goes back to
its settled look too; so a pond a hand has left is read once more when it has been still for
``calm_frames`` (one pond, a few milliseconds; not the hands, melds and walls, over which
hands pass all the time).
"""
from __future__ import annotations

import contextlib
import threading
import time

import cv2
import numpy as np

from vision.camera.zones import TILE_H_MM, TILE_W_MM

from .change import NEVER, ChangeDetector


def _no_pace(kind: str):
    return contextlib.nullcontext()


class RecognitionScheduler:
    """Change detection on every frame, recognition on the changed zones of the newest one.

    ``tracker``: a :class:`~vision.tracking.tracker.TableTracker` (it dates what it finds by
    the detector: :meth:`~vision.tracking.tracker.TableTracker.watch`). ``detector``: a
    :class:`~vision.tracking.change.ChangeDetector` over the same zones.
    ``find``: ``find(frame, zones) -> Finding`` in the tracker's top-down pixels (a
    :class:`~vision.tracking.zone_finder.ZoneFinder`). ``calm_frames``: frames a zone must be still
    before it is read. ``busy_s``: a zone that never stills is read this often anyway.
    ``retry_s``: (first, longest) wait before reading again a place recognition could not
    account for, doubling in between. ``threaded``: recognise in a worker thread (False: in
    ``push`` itself, for tests that need every step in order). ``pace``: ``pace(kind)`` gives
    a context manager around each piece of work, ``"detect"`` or ``"recognise"`` (a benchmark
    holds them to a slower machine's speed).
    """

    def __init__(self, tracker, detector: ChangeDetector, find, calm_frames: int = 3,
                 busy_s: float = 1.5, retry_s: tuple[float, float] = (0.25, 2.0),
                 threaded: bool = True, pace=None):
        self.tracker = tracker
        self.detector = detector
        self.find = find
        self.calm_frames = int(calm_frames)
        self.busy_ns = int(busy_s * 1e9)
        self.retry_ns = (int(retry_s[0] * 1e9), int(retry_s[1] * 1e9))
        self.pace = pace or _no_pace
        self.zones = detector.zones
        tracker.watch(detector)
        n = len(self.zones)
        self._read_at = [None] * n         # t_ns of the frame a zone was last read on
        self._retry_after = [0] * n        # t_ns before which a stuck zone is not read again
        self._backoff = [0] * n
        self._ready: list[dict] = []
        self._lock = threading.Lock()
        self._job = None
        self._wake = threading.Condition(self._lock)
        self._busy = False
        self._closed = False
        self._new_hand = False
        self.stats = {"frames": 0, "passes": 0, "zones_read": 0}
        self._thread = None
        if threaded:
            self._thread = threading.Thread(target=self._work, name="recognition", daemon=True)
            self._thread.start()

    @classmethod
    def for_calibration(cls, tracker, calibration, **kw) -> "RecognitionScheduler":
        """Watching camera frames of the size ``calibration`` (a
        :class:`~vision.camera.calibration.Calibration`) was made for; the tracker's zones and scale
        are the calibration's, and its finder finds the tiles of each zone."""
        from .zone_finder import ZoneFinder

        layout = calibration.layout
        detector = ChangeDetector(tracker.zones, calibration.homography, calibration.image_size)
        find = ZoneFinder.for_tracker(tracker, calibration.px_per_mm,
                                      (layout.width_mm, layout.height_mm),
                                      to_topdown=calibration.topdown_matrix())
        return cls(tracker, detector, find, **kw)

    # -- the camera's thread ------------------------------------------------------------------
    def push(self, frame: np.ndarray, t_ns: int) -> list[dict]:
        """Take in the frame exposed at ``t_ns``; return the events recognised since the last
        call (their ``t`` may be well before ``t_ns``: the first frame that showed them)."""
        with self.pace("detect"):
            self.detector.update(frame, t_ns)
            self.stats["frames"] += 1
            due = None
            with self._lock:
                if not self._busy and not self._closed:
                    due = self._due(t_ns)
                    if due:
                        self._busy = True
                        self._job = (frame, t_ns, due)
                        self._wake.notify()
        if due and self._thread is None:
            self._run_job()
        with self._lock:
            ready, self._ready = self._ready, []
        return ready

    def _due(self, t_ns: int) -> list[int]:
        waiting = self.tracker.waiting_zones()
        due = []
        for zi, (first, still, moved, back) in enumerate(self.detector.zones_now()):
            read = self._read_at[zi]
            if first is None and self.zones[zi] not in waiting:
                if self.zones[zi].kind == "pond" and back > (read or 0) and \
                        still >= self.calm_frames:
                    due.append(zi)      # a hand left it looking as it was: see what it left
                continue
            if still < self.calm_frames and t_ns - max(read or 0, first or 0) < self.busy_ns:
                continue
            if t_ns < self._retry_after[zi] and moved <= (read or 0):
                continue    # nothing moved since it was last read in vain
            due.append(zi)
        # a discard's pond first, on its own: the claim window waits on it; the rest after
        ponds = [zi for zi in due if self.zones[zi].kind == "pond"]
        return ponds or due

    # -- recognition ----------------------------------------------------------------------------
    def _work(self) -> None:
        while True:
            with self._lock:
                while self._job is None and not self._closed:
                    self._wake.wait()
                if self._closed and self._job is None:
                    return
            self._run_job()

    def _run_job(self) -> None:
        with self._lock:
            frame, t_ns, zone_ids = self._job
        try:
            with self.pace("recognise"):
                events = self._recognise(frame, t_ns, zone_ids)
        finally:
            with self._lock:
                self._job = None
                self._busy = False
        with self._lock:
            self._ready.extend(events)

    def _recognise(self, frame, t_ns: int, zone_ids: list[int]) -> list[dict]:
        with self._lock:
            fresh, self._new_hand = self._new_hand, False
        if fresh:
            self.tracker.new_hand()
            n = len(self.zones)
            self._read_at, self._retry_after, self._backoff = [None] * n, [0] * n, [0] * n
        zones = [self.zones[zi] for zi in zone_ids]
        finding = self.find(frame, zones)
        self._no_hand_where_still(finding, zone_ids)
        events = self.tracker.update(None, t_ns, finding=finding, zones=zones)
        self.stats["passes"] += 1
        self.stats["zones_read"] += len(zones)
        for zone in zones:
            key = "read_" + zone.kind
            self.stats[key] = self.stats.get(key, 0) + 1
        self._settle(finding, t_ns, zone_ids)
        return events

    def _no_hand_where_still(self, finding, zone_ids: list[int]) -> None:
        """Take the finder's hand mask off the table: a hand changes the look of what it
        covers. On a table of brown wood the hand channel took patches of the grain for skin,
        and stayed on them while nothing moved; a dark 7m laid beside one touched it, so it was
        never read in plain view and was reported 15 s late (the film, ``--seed 2``).

        - Off the cells of ``zone_ids`` that look as they did when recognition last accounted
          for them, or as the camera first saw them (:meth:`ChangeDetector.as_first_seen`):
          a place the mask lies on from the first frame is never accounted for, so it never
          looks settled (the film's light brown table, ``--seed 16``: the bare top about every
          pond masked all hand long).
        - Off each part of the mask then left over none of those zones' cells: it lies between
          them and hides none of their tiles, but widened (as the tracker widens it) it would
          mask their edges. On that brown table no pond had a look with no hand over it all
          hand, so the tracker dated tiles by the change detector alone: nine discards over
          its two hands were reported, surely, at times nobody laid them."""
        occluded = finding.occluded
        bx, by, bw, bh = cv2.boundingRect(occluded)      # where the mask lies at all
        if not bw:
            return
        det, ppm = self.detector, self.tracker.px_per_mm
        cells = np.concatenate([det.zone_cells[zi] for zi in zone_ids])
        with det.lock:
            table = (det.left_at[cells] == NEVER) | det.as_first_seen(cells)
        half = det.cell_mm / 2
        h, w = occluded.shape[:2]
        corners = np.round((det.centres[cells] + [[-half, -half]]) * ppm).astype(int)
        far = np.round((det.centres[cells] + [[half, half]]) * ppm).astype(int)
        # only the cells about the mask: a full table has some 5,000, 1 us each to clear
        near = table & (corners[:, 0] < bx + bw) & (far[:, 0] > bx) & \
            (corners[:, 1] < by + bh) & (far[:, 1] > by)
        for (x1, y1), (x2, y2) in zip(corners[near].tolist(), far[near].tolist()):
            occluded[max(y1, 0):min(y2, h), max(x1, 0):min(x2, w)] = 0
        # the parts left, told apart at a quarter of the size (the finder's hand map is coarser
        # still): some 0.3 ms where the whole would cost 3
        small = cv2.resize(occluded, (w // 4, h // 4), interpolation=cv2.INTER_NEAREST)
        count, parts = cv2.connectedComponents((small > 0).astype(np.uint8))
        if count < 2:
            return
        px = np.round(det.centres[cells] * ppm / 4).astype(np.intp)
        inside = (px[:, 0] >= 0) & (px[:, 0] < small.shape[1]) & \
            (px[:, 1] >= 0) & (px[:, 1] < small.shape[0])
        over = np.bincount(parts[px[inside, 1], px[inside, 0]], minlength=count)
        gone = [k for k in range(1, count) if not over[k]]
        if gone:
            no_hand = cv2.resize(np.isin(parts, gone).astype(np.uint8) * 255, (w, h),
                                 interpolation=cv2.INTER_NEAREST)
            # with the edge pixels the quarter size lost: left, widened, they would mask the
            # zones about them again
            cv2.subtract(occluded, cv2.dilate(no_hand, np.ones((9, 9), np.uint8)), dst=occluded)

    def _settle(self, finding, t_ns: int, zone_ids: list[int]) -> None:
        """Settle the places of the zones read that recognition accounts for: bare table, or a
        confirmed tile (of any zone: a tile lying over a zone's edge). Hidden places, tiles not
        yet confirmed and tiles on their way out stay changed, and are read again."""
        det, tracker = self.detector, self.tracker
        ppm = tracker.px_per_mm
        gone = tracker.gone_frames
        half = TILE_W_MM / 2
        known = np.zeros(len(det.centres), bool)
        pending = np.zeros(len(det.centres), bool)
        for t in tracker.tracks:
            hx, hy = (TILE_H_MM / 2, TILE_W_MM / 2) if t.across else (TILE_W_MM / 2,
                                                                      TILE_H_MM / 2)
            cells = det.cells_in((t.x - hx, t.y - hy, t.x + hx, t.y + hy))
            if not t.confirmed or 0 < t.missing < gone:
                pending[cells] = True
            elif not t.missing:
                known[cells] = True
        zones = [self.zones[zi] for zi in zone_ids]
        for tile in finding.tiles:
            cx, cy = tile.centre
            x, y = cx / ppm, cy / ppm
            if not any(z.contains(x, y) for z in zones):
                continue
            if not any(t.confirmed and t.zone.contains(x, y) and abs(t.x - x) < half and
                       abs(t.y - y) < half for t in tracker.tracks):
                pending[det.cells_in([v / ppm for v in tile.box])] = True
        near = np.ones((int(6 * ppm) | 1,) * 2, np.uint8)   # as near a hand as the tracker
        for zi in zone_ids:
            cells = det.zone_cells[zi]
            zx1, zy1, zx2, zy2 = self.zones[zi].rect
            x1, y1 = max(0, int((zx1 - 6) * ppm)), max(0, int((zy1 - 6) * ppm))
            x2, y2 = int((zx2 + 6) * ppm), int((zy2 + 6) * ppm)
            hidden = cv2.dilate(finding.occluded[y1:y2, x1:x2], near)
            px = np.clip((det.centres[cells] * ppm).astype(int) - (x1, y1), 0,
                         [hidden.shape[1] - 1, hidden.shape[0] - 1])
            under = hidden[px[:, 1], px[:, 0]] > 0
            stay = pending[cells] | (under & ~known[cells])
            det.settle(cells[~stay], t_ns)
            self._read_at[zi] = t_ns
            zone = self.zones[zi]
            waiting = any(t.zone == zone and (not t.confirmed or 0 < t.missing < gone)
                          for t in tracker.tracks)
            if stay.any() and not waiting:
                # nothing recognition can make progress on: read it again later, less often
                first, longest = self.retry_ns
                self._backoff[zi] = min(longest, self._backoff[zi] * 2 or first)
                self._retry_after[zi] = t_ns + self._backoff[zi]
            else:
                self._backoff[zi] = 0
                self._retry_after[zi] = 0

    # -- the table service's view -----------------------------------------------------------
    def settled_ns(self, kinds: tuple[str, ...] = ("pond",)) -> int | None:
        """No event of the zones of ``kinds`` still to come can be stamped before this: the
        first frame of a change in them recognition has not accounted for yet (else the last
        frame seen). A press at or before it can be judged: every discard before it is known."""
        det = self.detector
        with det.lock:
            mask = np.isin(det.zone_of, [i for i, z in enumerate(self.zones) if z.kind in kinds])
            open_ = det.left_at[mask & (det.left_at >= 0)]
            return int(open_.min()) if len(open_) else det.last_ns

    def flush(self, frame: np.ndarray, t_ns: int, period_ns: int = 33_333_333,
              limit_s: float = 5.0) -> list[dict]:
        """The camera stopped at ``frame`` (``t_ns``; a recording ended): watch it as a still
        table, a frame every ``period_ns``, until recognition has read all that changed (at
        most ``limit_s`` of table time); return the events that brings."""
        out = []
        for _ in range(int(limit_s * 1e9 / period_ns)):
            t_ns += period_ns
            out += self.push(frame, t_ns)
            with self._lock:
                busy = self._busy
            if not busy and not self._due(t_ns) and not self.detector.changed_zones() and \
                    not self.tracker.waiting_zones():
                break
            if self._thread is not None:
                time.sleep(0.002)
        return out

    def new_hand(self) -> None:
        """A new hand is dealt: the tracker forgets the table before it next reads a frame."""
        with self._lock:
            self._new_hand = True

    def idle(self) -> bool:
        """No recognition running or handed over."""
        with self._lock:
            return not self._busy

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._wake.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=5)
