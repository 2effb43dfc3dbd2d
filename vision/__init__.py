"""The camera's eye: from a camera frame to table events. See vision/README.md.

By stage: :mod:`vision.camera` (frames, calibration, zones), :mod:`vision.finding`,
:mod:`vision.reading`, :mod:`vision.tracking`, :mod:`vision.enrollment`; apart, never imported at
the table, :mod:`vision.synthesis` and :mod:`vision.training`. The shipped networks lie in
``vision/models``.
"""
from pathlib import Path

#: The shipped networks (the finder's and the classifiers', float and eight-bit).
MODEL_DIR = Path(__file__).resolve().parent / "models"
