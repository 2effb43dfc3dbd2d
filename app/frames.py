"""Where the application's frames come from: the camera's sources, and a rendered one.

``synthetic`` is a rendered table hand being played: a way to try ``calibrate`` or ``run``
without a camera. It lives here, on the floor that wires the others together, because the
camera's own code (:mod:`vision.camera.sources`) never imports the renderer.
"""
from __future__ import annotations

from vision.camera.sources import FrameSource, SyntheticSource
from vision.camera.sources import open_source as open_camera

SYNTHETIC = "synthetic"


def open_source(spec: str, fps: float = 10.0) -> FrameSource:
    """A source from its command-line spelling: :func:`vision.camera.sources.open_source`'s
    spellings, and ``synthetic``."""
    if spec == SYNTHETIC:
        from vision.synthesis.synthetic import demo_hand_frames
        return SyntheticSource([f for f, _ in demo_hand_frames()], fps=fps)
    return open_camera(spec, fps)
