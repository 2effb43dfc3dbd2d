"""The camera as the table service sees it: ``camera_feed(config_path)`` yields, per frame,
``(t_mono, events)`` with ``t_mono`` in seconds on the monotonic clock and the tracker's
events for that frame.

``[camera]`` keys: ``source`` (``picamera`` by default; ``cam:N``, a video or a folder),
``calibration`` (the file ``riichi-referee calibrate`` wrote), ``model`` (the .onnx tile
model, default the shipped one), ``tileset`` (the set ``riichi-referee enroll`` wrote),
``threads``, ``stable_frames``. A live camera that drops out
mid-game is opened again (:func:`reopening`).
"""
from __future__ import annotations

import logging
import time

from referee.errors import RefereeError

log = logging.getLogger(__name__)

#: Seconds between attempts to open a live camera again after it failed or stopped.
REOPEN_SECONDS = 2.0


def camera_feed(config_path):
    from .calibration import load_calibration, read_config
    from .sources import open_source
    from .tracker import TableTracker

    camera = read_config(config_path).get("camera", {})
    if not isinstance(camera, dict):
        raise RefereeError(f"config {config_path}: [camera] must be a table")
    calibration = load_calibration(config_path)
    from .tileset import load_classifier
    classifier = load_classifier(config_path, threads=camera.get("threads"))
    tracker = TableTracker(calibration.zones, classifier, calibration.px_per_mm,
                           stable_frames=int(camera.get("stable_frames", 3)))
    frames = reopening(open_source, str(camera.get("source", "picamera")))

    def feed():
        for frame, t_ns in frames:
            yield t_ns / 1e9, tracker.update(calibration.warp(frame), t_ns)

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
