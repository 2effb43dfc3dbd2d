"""The camera as the table service sees it: ``camera_feed(config_path)`` yields, per frame,
``(t_mono, events)`` with ``t_mono`` in seconds on the monotonic clock and the tracker's
events for that frame.

``[camera]`` keys: ``source`` (``picamera`` by default; ``cam:N``, a video or a folder),
``calibration`` (the file ``riichi-referee calibrate`` wrote), ``model`` (the .onnx tile
model, default the shipped one), ``threads``, ``stable_frames``.
"""
from __future__ import annotations

from pathlib import Path

from referee.errors import RefereeError


def camera_feed(config_path):
    from .calibration import load_calibration, read_config
    from .classifier import TileClassifier
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
                           stable_frames=int(camera.get("stable_frames", 3)))
    source = open_source(str(camera.get("source", "picamera")))

    def feed():
        with source:
            for frame, t_ns in source:
                yield t_ns / 1e9, tracker.update(calibration.warp(frame), t_ns)

    return feed()
