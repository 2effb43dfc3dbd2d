"""The camera as the table service sees it: ``camera_feed(config_path)`` yields, per frame,
``(t_mono, events)``: the events recognised since the frame before (each stamped with the first
frame that showed it) and ``t_mono``, the time in seconds on the monotonic clock up to which
every discard has been reported. Every frame goes through change detection; the tile finder
and classifier read only the zones that changed (:mod:`vision.schedule`).

``[camera]`` keys: ``source`` (``picamera`` by default; ``cam:N``, a video or a folder),
``calibration`` (the file ``riichi-referee calibrate`` wrote), ``model`` (the .onnx tile
model, default the shipped one), ``threads``, ``stable_frames``. A live camera that drops out
mid-game is opened again (:func:`reopening`).
"""
from __future__ import annotations

import logging
import time
from pathlib import Path

from referee.errors import RefereeError

log = logging.getLogger(__name__)

#: Readings of a tile before it is believed. Recognition reads a zone only once it is still,
#: so two readings are two looks at the settled tile, not glimpses of a moving hand; a third
#: look at the same still table adds little and costs a reading (a fifth of a second on a Pi).
STABLE_READS = 2

#: Seconds between attempts to open a live camera again after it failed or stopped.
REOPEN_SECONDS = 2.0


def camera_feed(config_path):
    from .calibration import load_calibration, read_config
    from .classifier import TileClassifier
    from .schedule import RecognitionScheduler
    from .sources import open_source
    from .tracker import TableTracker

    camera = read_config(config_path).get("camera", {})
    if not isinstance(camera, dict):
        raise RefereeError(f"config {config_path}: [camera] must be a table")
    calibration = load_calibration(config_path)
    model = camera.get("model")
    if model is not None and not Path(model).is_absolute():
        model = Path(config_path).parent / model
    classifier = TileClassifier(model, threads=camera.get("threads"))
    tracker = TableTracker(calibration.zones, classifier, calibration.px_per_mm,
                           stable_frames=int(camera.get("stable_frames", STABLE_READS)))
    watch = RecognitionScheduler.for_calibration(tracker, calibration)
    frames = reopening(open_source, str(camera.get("source", "picamera")))

    def feed():
        last = None
        try:
            for frame, t_ns in frames:
                events = watch.push(frame, t_ns)
                last = frame, t_ns
                # the time up to which every discard has been reported: presses wait for it
                yield watch.settled_ns() / 1e9, events
            if last is not None:
                # a recording ended: what it showed last is still read to the end
                yield watch.settled_ns() / 1e9, watch.flush(*last)
        finally:
            watch.close()

    return feed()


def is_live(spec: str) -> bool:
    """A camera (the Pi camera or an OpenCV device), not a recording."""
    return spec == "picamera" or spec.startswith("cam:") or spec.isdigit()


def reopening(open_source, spec: str, wait: float = REOPEN_SECONDS, sleep=time.sleep):
    """The frames of source ``spec`` (opened by ``open_source(spec)``), as ``(frame, t_ns)``.

    A live camera that fails or stops mid-game (a loose ribbon cable, a USB reset) is opened
    again every ``wait`` seconds until it answers, so the table does not stay blind until
    someone restarts the service; meanwhile the service reports no camera frames, and the
    seat buttons work on. A recording ends, or fails, as it does. The first opening is not
    retried: a camera that is not there at start is a configuration error, said at once.
    """
    live = is_live(spec)
    source = open_source(spec)
    while True:
        try:
            with source:
                yield from source
        except Exception as exc:  # drivers raise their own types
            if not live:
                raise
            log.warning("camera %s failed (%s); opening it again", spec, exc)
        else:
            if not live:
                return
            log.warning("camera %s stopped sending frames; opening it again", spec)
        while True:
            sleep(wait)
            try:
                source = open_source(spec)
                break
            except Exception as exc:
                log.warning("camera %s still cannot be opened (%s)", spec, exc)
