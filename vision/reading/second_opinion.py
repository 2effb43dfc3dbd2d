"""A doubtful tile read by a second model of another training too.

Two models trained the same way doubt and misread much the same crops; two trained
differently do not. Beside the table's model (``tiles``) ships ``tiles-dark``, made by the same
command with a quarter of its training crops drawn with each face's lightness turned over, dark
faces with light ink (``python -m vision.training.train --dark-faces 0.25 --fonts-per-label 0
--out vision/models/tiles-dark.onnx``: trained before the table's model wrote faces in fonts). A crop the table's model reads with less confidence than
:data:`~vision.reading.classifier.HALF_TURN_BELOW` (3-5% of an enrolled set's crops on the bench) is
read by the second model too, and the two readings are averaged; a crop read surely costs
nothing more.

On the rendered Black set, which neither model of the pair trained on, enrolled from one
photo of the sheet, this is what took the misread crops from 32 to 15-18 of 3900 with 8-epoch
models, and from 29 to 16 with the full training as first model (``bench/enroll.py``;
vision/README.md has the table). The second model is
enrolled from the same crops as the first: an enrolled set keeps a fit for each
(:class:`vision.reading.tileset.TileSet`).

A set not enrolled has a second model of its own: ``tiles-small-print``, made by the table's
command with half the character faces (man tiles, winds, dragons) printing their character
smaller, down to half the face across, as Hong Kong sets print it (``python -m
vision.training.train --smallest-print 0.5 --out vision/models/tiles-small-print.onnx``). The
table's model doubts a wind in such a set (West and North read at 0.3-0.7); this one reads
the winds surer, but alone it stated more wrong tiles as fact. Together they read what
neither does: on the labelled real photographs, tile by tile, 1526 -> 1535 of 1580, and on
450 rendered held-out photos 7524 -> 7583 of 9120 named, with no sure misread on the photos
(plain, in half light, under warm lamps, shaken) (vision/README.md). The dark-faces model
beside an ivory set not enrolled was a wash (a tile or two more of 1580, and less sure).

A set whose faces are dark is read with the dark-faces model beside the table's whether it
is enrolled or not: a table told so (``[camera] finder = "dark"``), and ``detect`` where it
reads a photo again with the finder for dark faces (:func:`for_dark_faces`). On 40 rendered
photos of dark-faced sets (``bench/dark_photos.py``) that pair names 0.6873 of the face-up
tiles with no sure misread, the small-print one 0.6726 with one.

``[camera] second_model`` in the table's config names the second model (relative to the
config's folder); ``""`` reads with the table's model alone. Unset, a table that runs the
shipped model gets the shipped second model for its case (:func:`shipped_second_model`); a
table given a model of its own gets none (a pair is measured together, not assumed).
"""
from __future__ import annotations

import functools
from pathlib import Path
from typing import Sequence

import numpy as np

from referee.errors import RefereeError
from table.config import beside_config

from .classifier import HALF_TURN_BELOW, MODEL_DIR, best

#: What ``python -m vision.training.train --dark-faces 0.25 --fonts-per-label 0 --out
#: vision/models/tiles-dark.onnx`` writes
#: (float weights) and the eight-bit copy the table runs.
TRAINED_SECOND_MODEL = MODEL_DIR / "tiles-dark.onnx"
SECOND_MODEL = MODEL_DIR / "tiles-dark-int8.onnx"
#: What ``python -m vision.training.train --smallest-print 0.5 --out
#: vision/models/tiles-small-print.onnx`` writes, and its eight-bit copy: the second model of a
#: set not enrolled.
TRAINED_SMALL_PRINT_MODEL = MODEL_DIR / "tiles-small-print.onnx"
SMALL_PRINT_MODEL = MODEL_DIR / "tiles-small-print-int8.onnx"
CONFIG_KEY = "second_model"


class SecondOpinion:
    """Reads crops with ``first``; the crops it is doubtful of (best probability under
    ``below``) with ``second`` too, and gives the average of the two readings for those.

    ``first``, ``second``: classifiers with ``probabilities(crops)`` over the same labels (a
    :class:`~vision.reading.classifier.TileClassifier` or a
    :class:`~vision.reading.tileset.EnrolledClassifier`
    each). It has their interface: ``classify``, ``probabilities``, ``labels``;
    and ``learn`` when ``first`` learns (an enrolled set): a referee's correction is then
    fitted for both models and saved once.
    """

    def __init__(self, first, second, below: float = HALF_TURN_BELOW):
        if tuple(first.labels) != tuple(second.labels):
            raise RefereeError(f"second tile model {second.model_path}: its labels are not those "
                               f"of {first.model_path}; the two cannot be averaged")
        if not 0.0 <= below <= 1.0:
            raise RefereeError(f"a second opinion's threshold must be between 0 and 1, got {below}")
        self.first, self.second, self.below = first, second, float(below)
        self.labels = first.labels
        self.model_path = first.model_path
        self.input_width = first.input_width
        #: crops read so far, and how many of them the second model read too
        self.read = 0
        self.read_twice = 0
        if getattr(first, "learn", None) is not None:
            self.learn = self._learn   # the tracker feeds corrections to what has ``learn``

    @property
    def tileset(self):
        """The enrolled set (None: the models read as shipped)."""
        return getattr(self.first, "tileset", None)

    def probabilities(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        return self.reconsider(crops, self.first.probabilities(crops))

    def reconsider(self, crops: Sequence[np.ndarray], p: np.ndarray) -> np.ndarray:
        """``p``, the first model's reading of ``crops``, with each doubtful crop's row the
        average of it and the second model's reading."""
        doubtful = np.flatnonzero(p.max(axis=1) < self.below) if len(p) else np.zeros(0, int)
        self.read += len(p)
        self.read_twice += int(doubtful.size)
        if doubtful.size:
            again = self.second.probabilities([crops[i] for i in doubtful])
            p[doubtful] = (p[doubtful] + again) / 2
        return p

    @property
    def share_read_twice(self) -> float:
        """Of the crops read so far, the share the second model read too."""
        return round(self.read_twice / max(1, self.read), 4)

    def classify(self, crops: Sequence[np.ndarray]) -> list[tuple[str, float]]:
        return best(self.labels, self.probabilities(crops))

    def _learn(self, crop: np.ndarray, label: str, save: bool = True) -> None:
        refit = getattr(self.second, "refit", None)
        if refit is None or getattr(self.second, "tileset", None) is not self.first.tileset:
            self.first.learn(crop, label, save=False)
        else:
            # both models learn the set from the same variations of its crops (as
            # TileSet.fit does): made once, not once a model
            self.first.learn(crop, label, save=False, refit=False)
            augmented = self.first.tileset.augmented()
            self.first.refit(augmented)
            refit(augmented)
        if save:
            self.first.save()


def second_model_path(config_path: str | Path | None = None, model: str | Path | None = None,
                      enrolled: bool = False) -> Path | None:
    """The second model a table reads doubtful crops with: the config's ``[camera]
    second_model`` (relative to the config's folder; ``""``: none); unset, the shipped one for
    an ``enrolled`` set or one not (:func:`shipped_second_model`) when the table runs the
    shipped model (no ``model`` given, no ``[camera] model``); else None."""
    from vision.camera.calibration import read_config

    camera = read_config(config_path).get("camera", {}) if config_path is not None else {}
    if not isinstance(camera, dict):
        camera = {}   # the config's own error, said where the camera section is read
    name = camera.get(CONFIG_KEY)
    if name is None:
        own = model is not None or camera.get("model") is not None
        return None if own else shipped_second_model(enrolled, camera.get("finder") == "dark")
    if not isinstance(name, str):
        raise RefereeError(f"config {config_path}: [camera] {CONFIG_KEY} must be a file name "
                           "(\"\" for none)")
    if not name:
        return None
    p = beside_config(config_path, name)
    if not p.is_file():
        raise RefereeError(f"config {config_path}: [camera] {CONFIG_KEY} {p}: no such file "
                           "(\"\" reads with the table's model alone)")
    return p


def shipped_second_model(enrolled: bool, dark_faces: bool = False) -> Path | None:
    """The shipped second model beside the shipped table's model: the dark-faces one for an
    ``enrolled`` set (measured on the enrolled Black set) or one with ``dark_faces``, the
    small-print one for an ivory set not enrolled (measured on the labelled real
    photographs); None where its file is missing."""
    path = SECOND_MODEL if enrolled or dark_faces else SMALL_PRINT_MODEL
    return path if path.is_file() else None


def for_dark_faces(classifier):
    """``classifier`` for a set whose faces turned out dark: a pair reading a set not enrolled
    with the shipped small-print second model gets the shipped dark-faces one instead (loaded
    once for the process); any other classifier is returned as it is."""
    if not isinstance(classifier, SecondOpinion):
        return classifier
    second = classifier.second
    # an enrolled second keeps its fit of the set, and any other second model stays
    if getattr(second, "tileset", None) is not None or \
            Path(second.model_path) != SMALL_PRINT_MODEL or not SECOND_MODEL.is_file():
        return classifier
    return SecondOpinion(classifier.first, _dark_faces_model(getattr(second, "threads", None)),
                         classifier.below)


@functools.cache
def _dark_faces_model(threads: int | None):
    from .classifier import TileClassifier

    return TileClassifier(SECOND_MODEL, threads=threads)
