"""Per-discard reading through a film of real play: what the tracker reads of each discard
from its first good frames (as it did before fusion) against what it reads fused over every
frame where the tile lies in plain view.

    python bench/film_reading.py [--hands 1,2] [--seconds S] [--quick] [--repeatable SEED]
                                 [--out PATH]

The film is the one :mod:`bench/_game_film.py <_game_film>` scripts for
``bench/discard_timing.py`` (real Tenhou hands: draws that reach across the table, discards
brought by a hand and laid, calls, hands passing over the table), drawn with solid tiles as a
camera over a real table sees them (:class:`vision.synthesis.solid_table.SolidTable`), the
odd hands in the art's Regular style (dark ink on ivory), even ones in its Black style (light
ink on dark faces). Over it, frame by frame, what real play adds
(:class:`Disturbances`, all drawn from ``--seed``):

- **sleeves** of cloth passing over a pond soon after a discard lands (a quarter of them),
  and the discarding **hand resting** partly over its tile for its first half second or more
  (one in six);
- an **arm resting** on the table across a pond's outer rows for a few seconds now and then;
- **moving glare**: a bright spot over the newest tile a third of the time it comes, half of
  them sliding past at 15-50 mm/s, half drifting at 2-6 mm/s for 3-8 s;
- **auto-exposure steps**: the whole picture brighter or darker by up to 12%, changed over
  three frames, every 6-14 s;
- **camera shake**: bursts of 1-2 camera pixels of jitter (someone knocks the table), with
  the motion blur of the shake;
- **motion blur** on a tile for the two frames after it lands (the hand lifting away);
- the sensor's noise.

Every frame goes through the table service's own path: change detection, the scheduler, the
zone finder, the learned finder and classifier, the tracker fusing its readings and the
readings weighed with the game (:class:`vision.tracking.readings.WeighedTracker`). Time is
emulated on the Pi 5 budget of ``bench/discard_timing.py --virtual`` (each read holds one
emulated core for its CPU time here x 6.25, detection on every frame first), so the lag does
not depend on this machine's load; it does depend on which frames the core was free for, so
two runs of one film differ by a few discards. ``--repeatable SEED`` draws each read's CPU
time from SEED instead of measuring it: the run reads the same frames every time it is
played, so a fault seen in one run of ten can be found again and traced (its lag is then
not this machine's).

Single frame against fused, on the same frames: for every discard the fusing tracker reports,
the reading its first sightings gave by their votes (what a tracker that does not fuse
reports: :attr:`vision.tracking.tracker.Track.early`), reported when the read that gave the
last of them ended. ``--unfused`` (on by default) plays the film through a tracker that does
not fuse as well, with its own scheduling: its reports and lag are under ``unfused``.

A reported discard is paired with the true one of its seat (:func:`pair`). Prints the figures
and writes bench/results/film_reading.json: ``discards``; ``read_fused`` and
``read_single_frame`` (the right tile, of ``discards``); ``misread_sure`` (a report of the
wrong tile, or of none, at or above the table's confidence threshold; fused) and
``misread_sure_single_frame``; ``lag_p95_ms`` (from a discard's first frame to its report,
fused) and ``lag_p95_ms_single_frame``; under ``fused``, how far the stamps are from the
discards' first frames (``stamp_p95_ms``; ``stamped_late``: more than 100 ms off;
``stamped_early``: more than 100 ms before, when a press on the discard looks later than it
was); all of it per hand and style under ``by_hand``, with each discard's reading under
``per_discard`` (tile, confidence, lag and stamp, ms; whether it was a riichi tile, ``riichi``,
and whether each tracker reported it so, ``riichi_read``). And what the lag does to a claim:
``presses_judged_blind``, of a pon pressed half a second after each discard
(:data:`PRESS_AFTER_NS`), those the table service would judge before the camera reported the
discard (it holds a press for the camera 1.5 s at most, :data:`PRESS_HOLD_NS`), and
``press_wait_p95_ms``, how long such presses wait.
``--without glare,exposure,...`` leaves disturbances out, to see what each costs.
The dark-faced hands are read with the finder for dark faces and the second model for dark
faces, as a table whose config says ``[camera] finder = "dark"`` reads its set
(``--dark-finder``; ``--one-finder`` reads them with the default finder and pair, as a table
not told); ``--finder`` sets the one for the ivory hands.
``--misses DIR`` films each hand a second time, untimed, to write the camera's picture of what
went wrong, to look at (:func:`miss_frames`): a second after each discard missed, misread or
reported turned the wrong way (a riichi tile upright, or an upright one lying across), and at
the stamp of each report that paired with none.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

# bench/vision.py would shadow the vision package: the checkout's root goes first
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _game_film import _pond_place, render_film, script_game  # noqa: E402 - bench/ is on sys.path
from _finders import style_finders  # noqa: E402
from _results import write_results  # noqa: E402
from discard_timing import PI5_SLOWDOWN, _hands, _pct, virtual  # noqa: E402

from referee.checks import DEFAULT_CONFIDENCE_THRESHOLD  # noqa: E402
from vision.camera.zones import TILE_H_MM, TILE_W_MM, to_seat  # noqa: E402
from vision.synthesis.render import STYLES  # noqa: E402

#: One camera pixel in the top-down view at 2 px/mm: the solid table's camera sees the table
#: at about 1.1 px/mm (``SolidTable``: 0.9-0.95 of 960 px for 800 mm).
CAMERA_PX = 2.0 / 1.1
CLOTH = ((60, 45, 40), (95, 90, 85), (40, 40, 120), (150, 150, 150), (70, 100, 40))
#: A claim pressed this long after its discard landed (a quick pon), and the longest the table
#: service holds a press for the camera (``TableService(hold=)``, :class:`table.press_hold.PressHold`).
PRESS_AFTER_NS = 500_000_000
PRESS_HOLD_NS = 1_500_000_000


class Disturbances:
    """What real play adds to a rendered film (see the module docstring), planned once from
    the script's truth and drawn onto each frame by :meth:`apply`.

    ``truth``: the film's truth (:func:`_game_film.script_game`); ``frames``: its length;
    ``fps``, ``px_per_mm``: the film's; ``seed``: every draw.
    """

    KINDS = ("sleeves", "resting", "arms", "glare", "exposure", "shake", "blur", "noise")

    def __init__(self, truth: dict, frames: int, fps: float, px_per_mm: float, seed: int,
                 without=()):
        rng = np.random.default_rng(seed)
        self.without = set(without)
        self.ppm = px_per_mm
        self.size = int(round(800 * px_per_mm))
        f = lambda s: int(round(s * fps))  # noqa: E731 - seconds to frames
        slots = [(d, _slot(truth, d)) for d in truth["discards"]]
        self.sleeves, self.rests, self.glares, self.blurs = [], [], [], []
        for d, (x, y) in slots:
            land = d["frame"]
            self.blurs.append((land, land + 2, x, y, float(rng.uniform(0, np.pi))))
            if rng.random() < 0.25:      # a sleeve over the pond, soon after the discard
                seat = int((d["seat"] + rng.integers(1, 4)) % 4)
                start = land + f(rng.uniform(0.1, 0.8))
                self.sleeves.append((start, start + f(rng.uniform(0.5, 1.0)), seat, x, y,
                                     CLOTH[int(rng.integers(len(CLOTH)))]))
            if rng.random() < 1 / 6:     # the hand that laid it rests partly over it
                ux, uy = _towards(d["seat"])
                cover = rng.uniform(0.3, 0.7) * TILE_H_MM
                self.rests.append((land + 1, land + f(rng.uniform(0.5, 1.5)), d["seat"],
                                   x + ux * (cover + 30), y + uy * (cover + 30), 30.0, None))
            if rng.random() < 1 / 3:     # glare sliding over the newest tile
                a = rng.uniform(0, 2 * np.pi)
                # half slide past (someone moves under the lights), half drift slowly and
                # lie on the tile while it is read
                slow = rng.random() < 0.5
                speed = rng.uniform(2, 6) if slow else rng.uniform(15, 50)    # mm/s
                dur = f(rng.uniform(3.0, 8.0) if slow else rng.uniform(1.0, 3.0))
                start = land + f(rng.uniform(-0.3, 0.3))
                r = rng.uniform(10, 22)                     # mm: its bright core about half
                # centred on the tile halfway through its pass
                half = dur / fps / 2 * speed
                self.glares.append((start, start + dur, x - np.cos(a) * half, y - np.sin(a) * half,
                                    np.cos(a) * speed / fps, np.sin(a) * speed / fps, r,
                                    rng.uniform(120, 230)))
        # arms resting on the table's edge over a pond's outer rows
        t = f(rng.uniform(3, 10))
        while t < frames:
            seat = int(rng.integers(4))
            along = rng.uniform(330, 470)
            px, py = to_seat(along, 575 + rng.uniform(0, 25), seat, 800.0)
            self.rests.append((t, t + f(rng.uniform(2, 5)), seat, px, py, 45.0,
                               CLOTH[int(rng.integers(len(CLOTH)))]))
            t += f(rng.uniform(8, 20))
        # auto-exposure: a gain per frame, stepping every 6-14 s
        self.gain = np.ones(frames + 1, np.float32)
        t, g = 0, 1.0
        while t < frames:
            nxt = t + f(rng.uniform(6, 14))
            new = float(np.clip(1.0 + rng.uniform(-0.12, 0.12), 0.88, 1.12))
            ramp = np.linspace(g, new, 4)[1:]
            self.gain[t:t + 3] = ramp[:len(self.gain[t:t + 3])]
            self.gain[t + 3:nxt] = new
            t, g = nxt, new
        # camera shake: bursts of jitter of 1-2 camera pixels
        self.shake = np.zeros((frames + 1, 2), np.float32)
        t = f(rng.uniform(2, 8))
        while t < frames:
            n = f(rng.uniform(0.2, 0.6))
            amp = rng.uniform(1.0, 2.0) * CAMERA_PX
            self.shake[t:t + n] = rng.uniform(-amp, amp, (len(self.shake[t:t + n]), 2))
            t += n + f(rng.uniform(5, 15))
        noise = np.random.default_rng(seed + 1)
        self.noise = []
        for _ in range(4):
            # clipped to +-8 and split into what it adds and takes away, in place: the same
            # values as np.clip and two np.maximum over copies, in a third of the CPU time
            n = noise.normal(0, 2.5, (self.size, self.size, 3))
            np.minimum(n, 8, out=n)
            np.maximum(n, -8, out=n)
            up = np.maximum(n, 0).astype(np.uint8)
            np.negative(n, out=n)
            np.maximum(n, 0, out=n)
            self.noise.append((up, n.astype(np.uint8)))
        yy, xx = np.mgrid[-1:1:64j, -1:1:64j]
        self.spot = np.exp(-(xx ** 2 + yy ** 2) * 3.0).astype(np.float32)

    def apply(self, canvas: np.ndarray, i: int) -> np.ndarray:
        ppm = self.ppm
        off = self.without
        for start, end, x, y, a in self.blurs:
            if start <= i < end and "blur" not in off:
                _blur_at(canvas, x * ppm, y * ppm, a, 5)
        for start, end, seat, x, y, colour in self.sleeves:
            if start <= i < end and "sleeves" not in off:
                # across the pond and back out: the hand sweeps past the tile
                u = (i - start) / max(end - start, 1)
                ox, oy = _towards(seat)
                side = np.array([-oy, ox]) * (60 * (u - 0.5) * 2)
                _draw_arm(canvas, seat, x + side[0] + ox * 20, y + side[1] + oy * 20, 40.0,
                          colour, ppm)
        for start, end, seat, x, y, r, colour in self.rests:
            if start <= i < end and ("arms" if colour else "resting") not in off:
                _draw_arm(canvas, seat, x, y, r, colour, ppm)
        for start, end, x, y, vx, vy, r, peak in self.glares:
            if start <= i < end and "glare" not in off:
                k = i - start
                self._glare(canvas, (x + vx * k) * ppm, (y + vy * k) * ppm, r * ppm, peak)
        dx, dy = self.shake[i]
        if (dx or dy) and "shake" not in off:
            m = np.float32([[1, 0, dx], [0, 1, dy]])
            canvas = cv2.warpAffine(canvas, m, (canvas.shape[1], canvas.shape[0]),
                                    borderMode=cv2.BORDER_REPLICATE)
            _blur_at(canvas, None, None, float(np.arctan2(dy, dx)), 3)
        if self.gain[i] != 1.0 and "exposure" not in off:
            canvas = cv2.convertScaleAbs(canvas, alpha=float(self.gain[i]))
        if "noise" not in off:
            up, down = self.noise[i % len(self.noise)]
            cv2.add(canvas, up, canvas)
            cv2.subtract(canvas, down, canvas)
        return canvas

    def _glare(self, canvas, cx, cy, r, peak):
        size = max(3, int(r * 2))
        spot = cv2.resize(self.spot, (size, size)) * peak
        x0, y0 = int(cx - size / 2), int(cy - size / 2)
        x1, y1 = max(x0, 0), max(y0, 0)
        x2, y2 = min(x0 + size, canvas.shape[1]), min(y0 + size, canvas.shape[0])
        if x2 <= x1 or y2 <= y1:
            return
        part = canvas[y1:y2, x1:x2].astype(np.float32)
        part += spot[y1 - y0:y2 - y0, x1 - x0:x2 - x0, None]
        canvas[y1:y2, x1:x2] = np.clip(part, 0, 255).astype(np.uint8)


def _towards(seat: int) -> tuple[float, float]:
    """The unit vector from the table's middle towards ``seat``."""
    x, y = to_seat(400.0, 401.0, seat, 800.0)
    return x - 400.0, y - 400.0


def _slot(truth: dict, d: dict) -> tuple[float, float]:
    """Where a true discard lies (table mm), from the film's state."""
    return d["x"], d["y"]


def _draw_arm(canvas, seat: int, x: float, y: float, r: float, cloth, ppm: float) -> None:
    """A hand at (x, y) mm and its arm to the ``seat``'s edge, in a sleeve of ``cloth`` (None:
    bare skin to the elbow)."""
    skin = (100, 140, 195)
    ex, ey = to_seat(400.0, 860.0, seat, 800.0)
    p = lambda a, b: (int(round(a * ppm)), int(round(b * ppm)))  # noqa: E731
    ux, uy = _towards(seat)
    wrist = (x + ux * r * 1.2, y + uy * r * 1.2)
    cv2.line(canvas, p(*wrist), p(ex, ey), cloth or skin, int(2.0 * r * ppm), cv2.LINE_AA)
    cv2.ellipse(canvas, p(x, y), (int(r * ppm), int(r * 0.75 * ppm)), 90 * seat, 0, 360, skin,
                -1, cv2.LINE_AA)


def _blur_at(canvas, cx, cy, angle: float, length: int) -> None:
    """Motion blur ``length`` px along ``angle``, of the tile around (cx, cy) px (None: the
    whole picture)."""
    k = np.zeros((length, length), np.float32)
    c = length // 2
    for j in range(length):
        t = j - c
        k[int(round(c + t * np.sin(angle))), int(round(c + t * np.cos(angle)))] = 1
    k /= k.sum()
    if cx is None:
        cv2.filter2D(canvas, -1, k, dst=canvas)
        return
    h = int(TILE_H_MM)        # a tile's length in px at 2 px/mm, about half a tile each way
    x1, y1 = max(int(cx) - h, 0), max(int(cy) - h, 0)
    x2, y2 = min(int(cx) + h, canvas.shape[1]), min(int(cy) + h, canvas.shape[0])
    canvas[y1:y2, x1:x2] = cv2.filter2D(canvas[y1:y2, x1:x2], -1, k)


def _pipeline(fuse: bool, classifier, finder, slowdown: float, ppm: float, costs=None):
    """The table service's camera path (:mod:`vision.tracking.service_feed`), in emulated time
    (``costs``: a generator to draw its CPU times from, for a repeatable schedule)."""
    from vision.camera.zones import default_zones
    from vision.tracking.change import ChangeDetector, topdown_to_table
    from vision.tracking.readings import WeighedTracker
    from vision.tracking.schedule import RecognitionScheduler
    from vision.tracking.service_feed import STABLE_READS
    from vision.tracking.tracker import TableTracker
    from vision.tracking.zone_finder import ZoneFinder

    zones = default_zones()
    tracker = WeighedTracker(TableTracker(zones, classifier, ppm, stable_frames=STABLE_READS,
                                          finder=finder, fuse=fuse),
                             DEFAULT_CONFIDENCE_THRESHOLD)
    zone_finder = ZoneFinder.for_tracker(tracker, ppm)
    size = int(800 * ppm)
    detector = ChangeDetector(zones, topdown_to_table(ppm), (size, size))
    return virtual(RecognitionScheduler, slowdown, costs)(tracker, detector, zone_finder)


def pair(truth: list[dict], got: list[tuple[dict, int]], true_ns, end_ns: int):
    """Each true discard with a report of its seat stamped from half a second before its first
    frame to half a second before the seat's next discard (a stamp may come late: an exposure
    step or a hand over the place moves the first frame the place looked as it was read): one
    of its tile if there is one (an earlier discard reported again beside it is the false
    one), else the earliest; or None. And the reports paired with none (those stamped after
    ``end_ns``, past the film's last counted discard, left out)."""
    left = sorted(got, key=lambda g: g[0]["t"])
    out = []
    for k, d in enumerate(truth):
        t = true_ns(d["frame"])
        nxt = next((true_ns(e["frame"]) for e in truth[k + 1:] if e["seat"] == d["seat"]),
                   end_ns + 5e8)
        near = [g for g in left if g[0]["seat"] == d["seat"] and
                t - 5e8 <= g[0]["t"] * 1e9 < nxt - 5e8]
        hit = next((g for g in near if g[0]["tile"] == d["tile"]), near[0] if near else None)
        if hit is not None:
            left.remove(hit)
        out.append((d, hit))
    return out, [g for g in left if g[0]["t"] * 1e9 < end_ns]


def presses_blind(paired, settled, true_ns, after_ns: int = PRESS_AFTER_NS,
                  hold_ns: int = PRESS_HOLD_NS) -> tuple[int, list[float]]:
    """How a claim pressed ``after_ns`` after each true discard fares at the table service:
    it waits until the camera has settled past the press (``settled``: (emulated ns the service
    knew it, the scheduler's ``settled_ns()``) after each frame), or ``hold_ns`` at most. The
    presses judged before their discard was reported (or with it never reported), and how long
    each press waited (ms)."""
    blind, waits = 0, []
    for d, g in paired:
        press = true_ns(d["frame"]) + after_ns
        release = press + hold_ns
        for known, at in settled:
            if known >= release:
                break
            if at is not None and at >= press:
                release = max(press, known)
                break
        waits.append(round((release - press) / 1e6, 1))
        blind += g is None or g[1] > release
    return blind, waits


def score(paired, false, true_ns, threshold: float) -> dict:
    """The figures of one tracker over the paired discards."""
    right = [d for d, g in paired if g is not None and g[0]["tile"] == d["tile"]]
    wrong = [(d, g) for d, g in paired if g is not None and g[0]["tile"] != d["tile"]]
    sure = lambda e: e.get("confidence", 1.0) >= threshold  # noqa: E731
    lags = [(g[1] - true_ns(d["frame"])) / 1e6 for d, g in paired if g is not None]
    stamps = [(g[0]["t"] * 1e9 - true_ns(d["frame"])) / 1e6 for d, g in paired if g is not None]
    errors = [abs(e) for e in stamps]
    return {
        "read": len(right),
        "misread": len(wrong),
        "missed": sum(g is None for _, g in paired),
        "false": len(false),
        "misread_sure": sum(sure(g[0]) for _, g in wrong) + sum(sure(e) for e, _ in false),
        "right_sure": sum(sure(g[0]) for d, g in paired if g is not None and
                          g[0]["tile"] == d["tile"]),
        "riichi_wrong": sum(bool(g[0].get("riichi")) != d["riichi"] for d, g in paired
                            if g is not None),
        "lag_p50_ms": _pct(lags, 50),
        "lag_p95_ms": _pct(lags, 95),
        "lag_max_ms": round(max(lags), 1) if lags else None,
        # stamped more than 100 ms off its first frame (bench/discard_timing.py's concern)
        "stamped_late": sum(e > 100 for e in errors),
        # of those, stamped before it: a press on it then looks later than it was
        "stamped_early": sum(e < -100 for e in stamps),
        "stamp_p95_ms": _pct(errors, 95),
    }


def miss_frames(per_discard: list[dict], false_reports: list[dict], fps: float,
                hand: int) -> list[tuple[int, str, str]]:
    """What ``--misses`` writes of one hand (its ``per_discard`` and fused ``false_reports``):
    (frame, file name, caption) for each discard missed, misread or reported turned the wrong
    way, a second after it landed (the hand gone, the place in plain view), and each report
    paired with no discard, at its stamp. Seat 0 sits at the bottom of the picture."""
    out = []
    for d in per_discard:
        got = d["fused"]
        riichi = d.get("riichi", False)
        turned = got is not None and d.get("riichi_read", {}).get("fused", riichi) != riichi
        if got is not None and got[0] == d["tile"] and not turned:
            continue
        t = d["frame"] / fps
        what = "not reported" if got is None else f"read as {got[0]} ({got[1]})"
        kind = "missed" if got is None else "misread"
        if turned and got[0] == d["tile"]:
            kind = "riichi" if riichi else "upright"
            what = ("reported upright, no riichi" if riichi else "reported lying across, a riichi")
        out.append((d["frame"] + int(round(fps)), f"hand{hand}-{t:05.1f}s-seat{d['seat']}-{kind}-{d['tile']}.jpg",
                    f"hand {hand}, seat {d['seat']}: {d['tile']} laid at {t:.1f} s, {what}"))
    for e in false_reports:
        out.append((int(round(e["t"] * fps)), f"hand{hand}-{e['t']:05.1f}s-seat{e['seat']}-false-{e['tile']}.jpg",
                    f"hand {hand}, seat {e['seat']}: {e['tile']} ({e['confidence']}) stamped at "
                    f"{e['t']:.1f} s, no discard of it"))
    return sorted(out)


def write_misses(folder: Path, sc, frames: int, ppm: float, draw, noise, wanted) -> None:
    """The film played again (the same script, ``draw`` and disturbances, so the same pictures)
    up to the last of ``wanted`` (:func:`miss_frames`), each written with its caption."""
    if not wanted:
        return
    folder.mkdir(parents=True, exist_ok=True)
    at: dict[int, list] = {}
    for frame, name, caption in wanted:
        at.setdefault(min(frame, frames - 1), []).append((name, caption))
    last = max(at)
    for i, frame in enumerate(render_film(sc, frames, ppm, draw=draw, looks=1)):
        if i in at:
            picture = noise.apply(frame, i)
            for name, caption in at[i]:
                shown = picture.copy()
                cv2.putText(shown, caption, (12, 36), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 0), 5)
                cv2.putText(shown, caption, (12, 36), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 255, 255), 2)
                cv2.imwrite(str(folder / name), shown, [cv2.IMWRITE_JPEG_QUALITY, 90])
        if i >= last:
            break


def play(events, hand: int, style: str, args, classifier, finder, art=None) -> dict:
    """One hand of the film in one style through the fusing tracker (and, with
    ``args.unfused``, one that does not fuse, beside it); the figures and each discard's
    readings. ``art``: the tile art (:class:`vision.synthesis.render.TileArt`, both styles;
    None: loaded for this hand)."""
    from vision.reading.one_set import DOUBTFUL
    from vision.synthesis.solid_table import SolidTable

    fps, ppm = args.fps, 2.0
    sc, frames, truth = script_game(events, [hand], fps, args.seed + hand)
    if args.seconds is not None:
        frames = min(frames, int(args.seconds * fps))
    # a discard in the film's last second is not counted (nor reported as false)
    truth["discards"] = [d for d in truth["discards"] if d["frame"] < frames - fps]
    _place_discards(sc, truth, frames)
    table = SolidTable(args.seed + hand, ppm, style=style, art=art)
    noise = Disturbances(truth, frames, fps, ppm, args.seed + 100 + hand, args.without)
    costs = lambda k: None if args.repeatable is None else \
        np.random.default_rng([args.repeatable, hand, k])  # noqa: E731
    runs = {"fused": _pipeline(True, classifier, finder, args.slowdown, ppm, costs(0))}
    if args.unfused:
        runs["unfused"] = _pipeline(False, classifier, finder, args.slowdown, ppm, costs(1))
    got = {k: [] for k in runs}
    # the fusing tracker's first sightings read by their votes, reported when the read that
    # gave the last of them ended: the reading and the moment of a tracker that does not fuse
    got["single_frame"] = []
    ends: dict[int, int] = {}
    period = 1e9 / fps
    true_ns = lambda f: round(f * period)  # noqa: E731

    settled: list[tuple[int, int | None]] = []     # (when the service knew it, settled_ns)

    def push(frame, t_ns):
        for name, run in runs.items():
            out = run.push_at(frame, t_ns)
            got[name] += out
            if name != "fused":
                continue
            # what the last read settled is known when the emulated core finished it
            settled.append((max(t_ns, run.free_at), run.settled_ns()))
            if run._read_cpu:
                ends[t_ns] = run.free_at
            for e, at in out:
                track = run.tracker._single_track(e) if e["type"] == "discard" else None
                if track is None or track.early is None:
                    continue
                label, conf, early_ns = track.early
                if "doubt" in e:
                    conf = min(conf, DOUBTFUL)
                got["single_frame"].append(({**e, "tile": label, "confidence": round(conf, 3)},
                                            ends.get(early_ns, at)))

    draw = lambda state, seed: table.render(state)  # noqa: E731
    last = None
    render_s = 0.0
    c = time.process_time()
    for i, frame in enumerate(render_film(sc, frames, ppm, draw=draw, looks=1)):
        frame = noise.apply(frame, i)
        render_s += time.process_time() - c
        push(frame, true_ns(i))
        last = frame
        c = time.process_time()
    t_ns = true_ns(frames)
    for _ in range(int(3 * fps)):            # the table stays still a while
        t_ns += round(period)
        push(last, t_ns)
    out = {"hand": hand + 1, "style": style, "frames": frames, "discards": len(truth["discards"]),
           "render_cpu_s": round(render_s, 1)}
    per = {}
    for name in got:
        reports = [(e, at) for e, at in got[name] if e["type"] == "discard"]
        paired, false = pair(truth["discards"], reports, true_ns, true_ns(frames - fps))
        out[name] = score(paired, false, true_ns, DEFAULT_CONFIDENCE_THRESHOLD)
        if name in runs:
            runs[name].close()
            out[name]["cpu_pi_core"] = round(sum(runs[name].used_ns.values()) / t_ns, 3)
            out[name]["recognitions"] = runs[name].stats["passes"]
        per[name] = paired
        if name == "fused":
            blind, waits = presses_blind(paired, settled, true_ns)
            out[name]["presses_blind"] = blind
            out[name]["press_waits_ms"] = waits
        out[name]["false_reports"] = [{k: e[k] for k in ("t", "seat", "tile", "confidence")}
                                      for e, _ in false]
    out["per_discard"] = [
        {"frame": d["frame"], "seat": d["seat"], "tile": d["tile"],
         **{name: (None if per[name][k][1] is None else
                   [per[name][k][1][0]["tile"], per[name][k][1][0].get("confidence"),
                    round((per[name][k][1][1] - true_ns(d["frame"])) / 1e6, 1),
                    round((per[name][k][1][0]["t"] * 1e9 - true_ns(d["frame"])) / 1e6, 1)])
            for name in got},
         "riichi": d["riichi"],
         "riichi_read": {name: None if per[name][k][1] is None else
                         bool(per[name][k][1][0].get("riichi")) for name in got}}
        for k, d in enumerate(truth["discards"])]
    if args.misses is not None:
        write_misses(args.misses, sc, frames, ppm, draw, noise,
                     miss_frames(out["per_discard"], out["fused"]["false_reports"], fps, hand + 1))
    return out


def _place_discards(sc, truth: dict, frames: int) -> None:
    """Where each true discard lies (table mm, ``x`` and ``y``), by playing the script's
    changes to its frame."""
    from vision.synthesis.synthetic import TableState

    state = TableState()
    by_frame: dict[int, list[dict]] = {}
    for d in truth["discards"]:
        by_frame.setdefault(d["frame"], []).append(d)
    for i in range(frames):
        for fn in sc.changes.get(i, []):
            fn(state)
        for d in by_frame.get(i, []):
            d["x"], d["y"] = (float(v) for v in
                              _pond_place(state, d["seat"], len(state.ponds[d["seat"]]) - 1))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", default="1,2",
                        help="hands of the game to film (1-based); styles alternate by hand")
    parser.add_argument("--seconds", type=float, default=None,
                        help="film only each hand's first SECONDS")
    parser.add_argument("--quick", action="store_true",
                        help="a short look for the suite: the first 9.5 s of hands 1 and 2 "
                             "(their first five discards)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fps", type=float, default=30.0)
    parser.add_argument("--slowdown", type=float, default=PI5_SLOWDOWN,
                        help="Pi 5 time per unit of this machine's CPU time")
    parser.add_argument("--repeatable", type=int, default=None, metavar="SEED",
                        help="draw each read's CPU time from SEED instead of measuring it, so "
                             "the run reads the same frames every time (to find a fault again; "
                             "the lag is then not this machine's)")
    parser.add_argument("--unfused", action=argparse.BooleanOptionalAction, default=True,
                        help="also play the film through a tracker that does not fuse, its "
                             "own scheduling and all (default on; its figures under "
                             "'unfused')")
    parser.add_argument("--second-opinion", action="store_true",
                        help="crops the table's model doubts read by the second model of a "
                             "set enrolled (tiles-dark) instead of that of a set not enrolled "
                             "(default, tiles-small-print, as bench/discard_timing.py)")
    parser.add_argument("--without", default="",
                        help="disturbances left out, comma-separated, of: "
                             + ", ".join(Disturbances.KINDS))
    parser.add_argument("--finder", type=Path, default=None,
                        help="the finder to film the Regular (ivory) hands with (.onnx; default: "
                             "the shipped one), to compare a newly trained one")
    parser.add_argument("--dark-finder", type=Path, default=None,
                        help="the finder to film the Black (dark-faced) hands with, as a table "
                             "whose config says [camera] finder = \"dark\" (.onnx; default: the "
                             "shipped one for dark faces)")
    parser.add_argument("--one-finder", action="store_true",
                        help="film every hand with --finder, as a table that was not told its "
                             "set's faces are dark")
    parser.add_argument("--misses", type=Path, default=None,
                        help="write the camera's picture of each discard missed, misread or "
                             "turned the wrong way, and of each false report, into this folder "
                             "(films each hand again)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    args.without = {w for w in args.without.split(",") if w}
    unknown = args.without - set(Disturbances.KINDS)
    if unknown:
        parser.error(f"--without: no disturbance {', '.join(sorted(unknown))}")
    if args.misses is not None:
        try:   # before the film, not after minutes of it
            args.misses.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            print(f"film_reading: --misses {args.misses}: {exc.strerror}", file=sys.stderr)
            return 2
    if args.quick:
        # hand 1's discards at 4.0 and 8.3 s, hand 2's at 4.0, 6.0 and 7.3 s, each reported
        # within the 3 s the table then stays still; the next lands at 9.0 s
        args.hands, args.seconds = "1,2", 9.5
    cv2.setNumThreads(1)

    from referee.tenhou import import_log
    from table.paths import shared_data_dir
    from referee.errors import RefereeError
    from vision.reading.second_opinion import for_dark_faces
    from vision.reading.tileset import load_classifier
    from vision.synthesis.render import TileArt

    data = shared_data_dir()
    if data is None:
        print("film_reading: ../shared/data not found (set RIICHI_SHARED_DATA)", file=sys.stderr)
        return 2
    log = sorted((data / "tenhou" / "mjlog").glob("*.mjlog"))[0]
    events = import_log(log).events
    classifier = load_classifier(threads=1)
    if args.second_opinion:
        from vision.reading.second_opinion import SecondOpinion
        from vision.reading.tileset import base_model, second_base

        classifier = SecondOpinion(base_model(threads=1), second_base(threads=1, enrolled=True))
    try:
        # the film's dark hands read as a table told its set's faces are dark reads them
        finders = style_finders(args.finder, args.dark_finder, args.one_finder)
    except RefereeError as exc:
        print(f"film_reading: {exc}", file=sys.stderr)
        return 2
    finder = finders["Regular"]
    # and their doubted faces with the second model a table told so reads them with
    classifiers = {"Regular": classifier,
                   "Black": classifier if args.one_finder else for_dark_faces(classifier)}
    # both styles' art, loaded once for every hand (some 0.9 s of CPU each time)
    art = TileArt()
    started = time.monotonic()
    parts = []
    for hand in _hands(args.hands):
        style = STYLES[hand % len(STYLES)]
        part = play(events, hand, style, args, classifiers[style], finders[style], art)
        part["finder"] = str(finders[style].model_path)
        parts.append(part)
        print(f"hand {hand + 1} ({style}): {part['discards']} discards; read from the first "
              f"frames {part['single_frame']['read']}, fused {part['fused']['read']}" +
              (f", by the unfused tracker {part['unfused']['read']}" if args.unfused else ""))
    names = ("single_frame", "fused") + (("unfused",) if args.unfused else ())
    total = {name: {} for name in names}
    for name in names:
        for key in ("read", "misread", "missed", "false", "misread_sure", "right_sure",
                    "riichi_wrong", "stamped_late", "stamped_early"):
            total[name][key] = sum(p[name][key] for p in parts)
        stamps = [abs(row[name][3]) for p in parts for row in p["per_discard"] if row[name]]
        total[name]["stamp_p95_ms"] = _pct(stamps, 95)
        lags = [row[name][2] for p in parts for row in p["per_discard"] if row[name]]
        total[name]["lag_p50_ms"] = _pct(lags, 50)
        total[name]["lag_p95_ms"] = _pct(lags, 95)
    discards = sum(p["discards"] for p in parts)
    fused, single = total["fused"], total["single_frame"]
    fused["presses_blind"] = sum(p["fused"]["presses_blind"] for p in parts)
    fused["press_wait_p95_ms"] = _pct([w for p in parts for w in p["fused"]["press_waits_ms"]], 95)
    result = {
        "film": {"log": log.name, "hands": [p["hand"] for p in parts],
                 "finder": str(finder.model_path),
                 "dark_finder": str(finders["Black"].model_path),
                 "styles": [p["style"] for p in parts], "frames": sum(p["frames"] for p in parts),
                 "fps": args.fps, "seconds_per_hand": args.seconds, "seed": args.seed},
        "second_opinion": args.second_opinion,
        "discards": discards,
        "read_fused": fused["read"],
        "read_single_frame": single["read"],
        "read_fused_share": round(fused["read"] / max(discards, 1), 4),
        "read_single_frame_share": round(single["read"] / max(discards, 1), 4),
        "misread_sure": fused["misread_sure"],
        "misread_sure_single_frame": single["misread_sure"],
        "lag_p50_ms": fused["lag_p50_ms"],
        "lag_p95_ms": fused["lag_p95_ms"],
        "lag_p50_ms_single_frame": single["lag_p50_ms"],
        "lag_p95_ms_single_frame": single["lag_p95_ms"],
        "presses_judged_blind": fused["presses_blind"],
        "press_wait_p95_ms": fused["press_wait_p95_ms"],
        "disturbances_left_out": sorted(args.without),
        "confidence_threshold": DEFAULT_CONFIDENCE_THRESHOLD,
        "slowdown": round(args.slowdown, 3),
        "repeatable": args.repeatable,
        "fused": fused,
        "single_frame": single,
        "unfused": total.get("unfused"),
        "by_hand": parts,
        "wall_s": round(time.monotonic() - started, 1),
    }
    for k, v in result.items():
        if k not in ("by_hand",):
            print(f"{k}: {v}")
    write_results("film_reading", result, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
