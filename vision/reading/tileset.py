"""The enrolled tile set, stored beside the table's config, and the classifier that uses it.

``riichi-referee enroll`` writes ``tileset.npz`` beside ``table.toml`` and points ``[camera]
tileset`` at it; ``run``, ``detect --config`` and the tracker read it through
:func:`load_classifier`, with the second-opinion model beside the table's
(:mod:`vision.reading.second_opinion`), which the set keeps a fit of its own for. The file holds the
enrolled crops themselves (upright, 96 x 128), their codes, what was fitted on them
(:class:`vision.reading.adapt.Adaptation`) and a description: the set's name, when it was enrolled
(wall-clock time, for people: nothing is judged on it), from which photos, and the
fingerprint of the model it was fitted with. A tile set fitted with another
model (the shipped model was retrained) is fitted again from its crops when loaded, so
enrolling never has to be repeated for a new model. ``enroll --clear`` removes the file and
sets ``tileset = ""``: the shipped model alone.
"""
from __future__ import annotations

import datetime as _dt
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np

from referee.errors import RefereeError
from referee.tiles import is_red
from table.config import beside_config, point_config_at, replacing, set_config_value

from .adapt import (
    Adaptation,
    adapted_probabilities,
    augmented_set,
    features,
    fit_prototypes,
    model_fingerprint,
)
from .classifier import TileClassifier, best, read_both_ways

log = logging.getLogger(__name__)

CONFIG_KEY = "tileset"
DEFAULT_FILE = "tileset.npz"
#: Size the enrolled crops are kept at (width, height): twice the classifier's input.
KEEP_SIZE = (96, 128)
FORMAT = 1

NO_EMBEDDING = ("the tile model has no 'embedding' output (it was exported before enrollment "
                "existed): the set is learned from the model's scores instead, which helps "
                "less; retrain it with python -m vision.training.train")


@dataclass
class TileSet:
    """An enrolled set. ``crops``: N x 128 x 96 x 3 uint8, upright; ``labels``: their codes
    (``back`` for the face-down tile); ``adaptation``: what was fitted for ``model`` (a model
    fingerprint)."""

    crops: np.ndarray
    labels: list[str]
    name: str = "enrolled set"
    enrolled_at: str = ""
    photos: list[str] = field(default_factory=list)
    model: str = ""
    adaptation: Adaptation | None = None
    corrections: int = 0
    #: the set has red fives (one per suit); a set without them never shows one
    red_fives: bool = True
    #: what was fitted for the second-opinion model (:mod:`vision.reading.second_opinion`), and that
    #: model's fingerprint: the same crops, seen through another model's features
    second_model: str = ""
    second_adaptation: Adaptation | None = None

    @staticmethod
    def keep(crop: np.ndarray) -> np.ndarray:
        """A crop as it is kept: upright (long side vertical), 96 x 128."""
        if crop.shape[1] > crop.shape[0]:
            crop = cv2.rotate(crop, cv2.ROTATE_90_CLOCKWISE)
        return cv2.resize(crop, KEEP_SIZE, interpolation=cv2.INTER_AREA)

    @classmethod
    def fit(cls, base: TileClassifier, crops: Sequence[np.ndarray], labels: Sequence[str],
            name: str = "enrolled set", photos: Sequence[str] = (), seed: int = 0,
            red_fives: bool = True, second: TileClassifier | None = None) -> "TileSet":
        """The set of ``crops`` (one per place, ``labels`` their codes) fitted for ``base``
        and, when given, for the ``second`` model that reads the doubtful crops too."""
        kept = np.stack([cls.keep(c) for c in crops]) if len(crops) else \
            np.zeros((0, KEEP_SIZE[1], KEEP_SIZE[0], 3), np.uint8)
        ts = cls(kept, list(labels), name, now_text(), list(photos), red_fives=red_fives)
        # both models learn the set from the same variations of its crops: made once
        augmented = ts.augmented(seed) if second is not None else None
        ts.refit(base, seed, augmented=augmented)
        if second is not None:
            ts.refit(second, seed, second=True, augmented=augmented)
        return ts

    def augmented(self, seed: int = 0):
        """The variations of the kept crops that a fit with ``seed`` learns the set from
        (:func:`vision.reading.adapt.augmented_set`): made once where two models are fitted."""
        return augmented_set(list(self.crops), self.labels, np.random.default_rng(seed))

    def refit(self, base: TileClassifier, seed: int = 0, second: bool = False,
              augmented=None) -> None:
        """Fit the adaptation again on the kept crops, for ``base`` (``second``: as the
        second-opinion model); ``augmented``: as for :func:`fit_prototypes`."""
        a = fit_prototypes(base, list(self.crops), self.labels, seed=seed, augmented=augmented)
        if second:
            self.second_adaptation, self.second_model = a, model_fingerprint(base.model_path)
        else:
            self.adaptation, self.model = a, model_fingerprint(base.model_path)

    def fitted(self, second: bool = False) -> tuple[Adaptation | None, str]:
        """What was fitted for the table's model (``second``: the second-opinion model's),
        and that model's fingerprint."""
        return (self.second_adaptation, self.second_model) if second else \
            (self.adaptation, self.model)

    # -- storage ----------------------------------------------------------------------------
    def save(self, path: str | Path) -> Path:
        path = Path(path)
        meta = {"format": FORMAT, "name": self.name, "enrolled_at": self.enrolled_at,
                "photos": self.photos, "model": self.model, "corrections": self.corrections,
                "red_fives": self.red_fives}
        arrays = {"crops": self.crops, "labels": np.array(self.labels, dtype="U8")}
        # the second model's fit under the same names with "second_" before them: a file
        # without them is read as before
        for prefix, a in (("", self.adaptation), ("second_", self.second_adaptation)):
            if a is None:
                continue
            if prefix:
                meta["second_model"] = self.second_model
            meta.update({prefix + "feature": a.feature, prefix + "weight": a.weight,
                         prefix + "sharpness": a.sharpness, prefix + "look": a.look})
            arrays.update({prefix + "proto_labels": a.proto_labels,
                           prefix + "prototypes": a.prototypes, prefix + "centre": a.centre})
        arrays["meta"] = np.array(json.dumps(meta))
        with replacing(path) as fh:
            np.savez_compressed(fh, **arrays)
        return path

    @classmethod
    def load(cls, path: str | Path) -> "TileSet":
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as z:
                meta = json.loads(str(z["meta"]))
                crops = z["crops"]
                labels = [str(v) for v in z["labels"]]
                adaptation, second = (_stored_adaptation(z, meta, prefix)
                                      for prefix in ("", "second_"))
        except FileNotFoundError:
            raise RefereeError(f"tile set {path}: no such file (run riichi-referee enroll, "
                               "or enroll --clear to use the shipped model alone)") from None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise RefereeError(f"tile set {path}: cannot be read ({exc}); enroll again") from None
        if meta.get("format") != FORMAT or crops.ndim != 4 or len(crops) != len(labels):
            raise RefereeError(f"tile set {path} is not one this version reads; enroll again")
        return cls(crops, labels, str(meta.get("name", "")), str(meta.get("enrolled_at", "")),
                   list(meta.get("photos", [])), str(meta.get("model", "")), adaptation,
                   int(meta.get("corrections", 0)), bool(meta.get("red_fives", True)),
                   str(meta.get("second_model", "")), second)


def _stored_adaptation(z, meta: dict, prefix: str) -> Adaptation | None:
    """The adaptation stored under ``prefix`` in an open ``.npz`` (None: none there)."""
    if prefix + "prototypes" not in z.files:
        return None
    return Adaptation(meta[prefix + "feature"], z[prefix + "proto_labels"].astype(np.int64),
                      z[prefix + "prototypes"].astype(np.float32),
                      z[prefix + "centre"].astype(np.float32), float(meta[prefix + "weight"]),
                      float(meta[prefix + "sharpness"]), str(meta.get(prefix + "look", "as_is")))


def now_text() -> str:
    """The wall-clock time, to the second, with its offset (shown to people only)."""
    return _dt.datetime.now().astimezone().isoformat(timespec="seconds")


# -- where it is --------------------------------------------------------------------------

def tileset_path(config_path: str | Path) -> Path | None:
    """The tile set the config uses: ``[camera] tileset`` (relative to the config's folder;
    ``""`` for none), else ``tileset.npz`` beside the config when it exists, else None."""
    from vision.camera.calibration import read_config

    camera = read_config(config_path).get("camera", {})
    name = camera.get(CONFIG_KEY) if isinstance(camera, dict) else None
    if name is None:
        default = beside_config(config_path, DEFAULT_FILE)
        return default if default.is_file() else None
    if not isinstance(name, str):
        raise RefereeError(f"config {config_path}: [camera] {CONFIG_KEY} must be a file name")
    if not name:
        return None
    return beside_config(config_path, name)


def save_to_config(tileset: TileSet, config_path: str | Path) -> Path:
    """Write the set beside the config and point ``[camera] tileset`` at it."""
    config_path = Path(config_path)
    config_path.parent.mkdir(parents=True, exist_ok=True)
    target = tileset_path(config_path) or beside_config(config_path, DEFAULT_FILE)
    tileset.save(target)
    point_config_at(config_path, "camera", CONFIG_KEY, target)
    return target


def clear_config(config_path: str | Path) -> Path | None:
    """Remove the config's tile set and set ``tileset = ""``; returns the file removed."""
    config_path = Path(config_path)
    target = tileset_path(config_path)
    if target is not None and target.exists():
        target.unlink()
    if config_path.exists():
        set_config_value(config_path, "camera", CONFIG_KEY, "")
    return target


def describe_config(config_path: str | Path) -> dict | None:
    """The description of the config's tile set (None: the shipped model alone)."""
    path = tileset_path(config_path)
    if path is None:
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            n = len(z["labels"])
            kinds = len(set(str(v) for v in z["labels"]))
    except (OSError, ValueError, KeyError) as exc:
        return {"name": None, "error": f"tile set {path.name}: cannot be read ({exc})"}
    return {"name": meta.get("name"), "enrolled_at": meta.get("enrolled_at"),
            "photos": meta.get("photos", []), "tiles": n, "kinds": kinds,
            "corrections": meta.get("corrections", 0), "file": str(path),
            "red_fives": bool(meta.get("red_fives", True))}


# -- the classifier -----------------------------------------------------------------------

class EnrolledClassifier:
    """The shipped classifier adapted to an enrolled set, with its interface
    (``classify(crops) -> [(label, confidence)]``, ``probabilities``, ``labels``).

    ``base``: the :class:`~vision.reading.classifier.TileClassifier`. ``tileset``: the enrolled set;
    fitted again for ``base`` when it was fitted with another model. ``path``: where the set
    is stored (a referee's correction, :meth:`learn`, is saved there). ``second``: ``base`` is
    the second-opinion model (:mod:`vision.reading.second_opinion`), which the set keeps a fit of its
    own for.
    """

    def __init__(self, base: TileClassifier, tileset: TileSet, path: str | Path | None = None,
                 second: bool = False):
        self.base = base
        self.tileset = tileset
        self.path = Path(path) if path is not None else None
        self.second = second
        self.labels = base.labels
        self.model_path = base.model_path
        self.input_width = base.input_width
        feature = "embedding" if base.has_embedding else "logits"
        adaptation, model = tileset.fitted(second)
        if adaptation is None or adaptation.feature != feature or \
                model != model_fingerprint(base.model_path):
            log.info("tile set %r was fitted with another model: fitting it again for %s",
                     tileset.name, base.model_path.name)
            tileset.refit(base, second=second)
        if not base.has_embedding:
            log.warning("%s", NO_EMBEDDING)
        # a set without red fives never shows one: what looks like one is its suit's five
        index = {label: i for i, label in enumerate(self.labels)}
        self._reds_as_fives = [(i, index["5" + label[1]]) for label, i in index.items()
                               if is_red(label) and "5" + label[1] in index]

    @property
    def adaptation(self) -> Adaptation:
        return self.tileset.fitted(self.second)[0]

    def probabilities(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        if len(crops) == 0:
            return np.zeros((0, len(self.labels)), np.float32)
        a = self.adaptation

        def read(cs):
            logits, feats, _ = features(self.base, a.shown(cs))
            return adapted_probabilities(logits, feats, a,
                                         () if self.tileset.red_fives else self._reds_as_fives)
        # as the shipped model reads: a doubtful crop is read turned half round too
        return read_both_ways(read, crops, self.base.half_turn_below)

    def classify(self, crops: Sequence[np.ndarray]) -> list[tuple[str, float]]:
        return best(self.labels, self.probabilities(crops))

    def ranked(self, crops: Sequence[np.ndarray], k: int = 3) -> list[list[tuple[str, float]]]:
        """The ``k`` likeliest labels of each crop, best first."""
        return ranked(self, crops, k)

    def learn(self, crop: np.ndarray, label: str, save: bool = True, refit: bool = True) -> None:
        """A referee's correction fed back: ``crop`` is ``label``; it joins the enrolled
        crops, the set is fitted again (``refit``; False: the caller fits it, as a pair of
        models does, :mod:`vision.reading.second_opinion`), and saved when it has a file."""
        ts = self.tileset
        ts.crops = np.concatenate([ts.crops, TileSet.keep(crop)[None]])
        ts.labels.append(label)
        ts.corrections += 1
        if is_red(label):
            ts.red_fives = True   # the referee says this set has a red five
        if refit:
            self.refit()
        if save:
            self.save()

    def refit(self, augmented=None) -> None:
        """Fit this model's adaptation again on the set's crops as they now are;
        ``augmented``: as for :func:`vision.reading.adapt.fit_prototypes`."""
        self.tileset.refit(self.base, second=self.second, augmented=augmented)

    def save(self) -> None:
        """Store the set where it was read from (nothing when it has no file)."""
        if self.path is not None:
            self.tileset.save(self.path)


def ranked(classifier, crops: Sequence[np.ndarray], k: int = 3) -> list[list[tuple[str, float]]]:
    """The ``k`` likeliest labels of each crop by ``classifier.probabilities``."""
    p = classifier.probabilities(crops)
    order = np.argsort(-p, axis=1)[:, :k]
    return [[(classifier.labels[i], float(p[n, i])) for i in row] for n, row in enumerate(order)]


def base_model(config_path: str | Path | None = None, model: str | Path | None = None,
               threads: int | None = None) -> TileClassifier:
    """The tile model a table uses: ``model``, else the config's ``[camera] model`` (relative
    to the config's folder), else the shipped one."""
    from vision.camera.calibration import read_config

    if model is None and config_path is not None:
        camera = read_config(config_path).get("camera", {})
        model = camera.get("model") if isinstance(camera, dict) else None
        if model is not None:
            model = beside_config(config_path, model)
    return TileClassifier(model, threads=threads)


def second_base(config_path: str | Path | None = None, model: str | Path | None = None,
                threads: int | None = None, enrolled: bool = False) -> TileClassifier | None:
    """The second-opinion model a table reads doubtful crops with (None: none), by
    :func:`vision.reading.second_opinion.second_model_path`; ``enrolled``: the table reads an enrolled
    set."""
    from .second_opinion import second_model_path

    path = second_model_path(config_path, model, enrolled)
    return TileClassifier(path, threads=threads) if path is not None else None


def load_classifier(config_path: str | Path | None = None, model: str | Path | None = None,
                    threads: int | None = None):
    """The classifier a table uses: :func:`base_model` adapted to the config's enrolled tile
    set when it has one, with the second model (:func:`second_base`) reading the crops it
    is doubtful of, when there is one (by default: with the shipped model on an enrolled set)."""
    from .second_opinion import SecondOpinion

    base = base_model(config_path, model, threads)
    path = tileset_path(config_path) if config_path is not None else None
    second = second_base(config_path, model, threads, enrolled=path is not None)
    if path is None:
        first, other = base, second
    else:
        ts = TileSet.load(path)
        first = EnrolledClassifier(base, ts, path)
        other = EnrolledClassifier(second, ts, path, second=True) if second is not None else None
    return SecondOpinion(first, other) if other is not None else first
