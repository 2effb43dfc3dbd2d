"""The dashboard's photo reader: what reads the tiles of a photo the referee sends.

The dashboard (web/) cannot import the camera's code (vision/): the app floor hands it a
callable, ``reader(data: bytes) -> {"tiles", "width", "height"}``, that raises
:class:`referee.errors.RefereeError` with one line when the upload is no picture. The models
are loaded on the first photo, not when the dashboard starts: most games never need one, and
the Pi's memory is better kept for the camera until then.
"""
from __future__ import annotations

from pathlib import Path

#: Threads onnxruntime may use for one photo: the Pi's other cores stay with the table
#: service's camera, which must not fall behind while the referee settles a dispute.
THREADS = 2


class PhotoReader:
    """Reads the tiles of a phone photo with the table's own tile model and enrolled set.

    ``config``: the table's TOML config (its ``[camera]`` model and enrolled tile set), or
    None for the shipped model. ``threads``: onnxruntime threads per model.

    One photo at a time: the dashboard never calls it again before a call has returned
    (:mod:`web.photo`), and it holds no lock of its own, because it runs in a real thread
    beside gevent's event loop, where a lock shared with the loop must not be taken."""

    def __init__(self, config: str | Path | None = None, threads: int = THREADS):
        self.config = config
        self.threads = threads
        self._models = None

    def _load(self):
        if self._models is None:
            from vision.camera.calibration import read_config
            from vision.finding.learned import SHIPPED, shared_finder
            from vision.reading.tileset import load_classifier
            # A phone photo is no calibrated view: a learned finder reads it whatever the
            # table's camera uses, the one for dark faces where the table's set has them
            # (and where the photo shows them: vision.reading.picture.detect)
            camera = read_config(self.config).get("camera", {}) if self.config else {}
            kind = camera.get("finder") if isinstance(camera, dict) else None
            model = SHIPPED.get(kind) if isinstance(kind, str) else None   # "felt", unset: default
            self._models = (load_classifier(self.config, threads=self.threads),
                            shared_finder(model, threads=self.threads))
        return self._models

    def __call__(self, data: bytes) -> dict:
        from vision.reading.phone_photo import decode_photo, read_photo

        image = decode_photo(data)  # a bad upload says so before any model is loaded
        classifier, finder = self._load()
        return read_photo(image, classifier, finder)
