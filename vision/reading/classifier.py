"""Tell which tile a crop shows: a small CNN run by onnxruntime.

The detector cuts one crop per tile it finds in the top-down view; :class:`TileClassifier`
names each one with an mpsz code (``1m`` .. ``7z``, red fives ``0m 0p 0s``), ``back`` for a
face-down tile or ``none`` for anything that is not a whole tile, with the network's confidence.
Crops may be any size and any quarter turn: a landscape crop (a riichi tile lying sideways) is
turned upright before it is classified, and the network itself reads tiles upright or upside
down (ponds face their owner, so the camera sees half of them upside down). A crop read with
little confidence is read once more, turned half round, and the two readings are averaged
(:func:`read_both_ways`).

The model and its label list ship in ``vision/models``: ``tiles.onnx`` + ``tiles.json``, which
``python -m vision.training.train`` makes, and the eight-bit copy the table runs,
``tiles-int8.onnx`` +
``tiles-int8.json``, which the training ends by making (:mod:`vision.training.quantize`).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np

from referee.errors import RefereeError
from vision import MODEL_DIR
from vision.runtime import in_blocks, session_options, takes_blocks

#: What ``python -m vision.training.train`` writes (float weights).
TRAINED_MODEL = MODEL_DIR / "tiles.onnx"
#: What the table runs: its eight-bit copy (:mod:`vision.training.quantize`), some three times as
#: fast
#: and reading the same (bench/vision.py measures both).
DEFAULT_MODEL = MODEL_DIR / "tiles-int8.onnx"

#: Name of the model's optional second output: the features its last layer reads.
EMBEDDING_OUTPUT = "embedding"

#: Network input, width x height: a tile upright (long side vertical).
INPUT_WIDTH, INPUT_HEIGHT = 48, 64

#: A crop whose best label is less likely than this is read a second time, turned half round.
#: A tile's box does not say which end is its top, and the net learned tiles both ways up, so
#: the turned crop is as fair a look as the first, and another one: on the labelled real
#: photographs of other sets' designs (bench/vision.py) the average of the two names 1510 of
#: 1580 tiles right against 1480 read once (the 1s birds read as 1z fell from 11 to 4, 9m read
#: as 4m from 12 to 1, though 9m read as 5m rose from 10 to 12). Reading every crop twice
#: measured the same there; crops read surely are left alone so that a frame costs little more.
HALF_TURN_BELOW = 0.9

#: Crops given to the network in one run at most; more are read in runs of this many. The
#: session keeps the working memory of the largest run it has made for as long as it lives
#: (onnxruntime's arena never shrinks), so one run of the 541 real photographed crops held
#: 290 MB more for good, runs of 64 held 62 MB, with the same numbers out to the last bit.
#: A frame of a full table (some 100 faces) takes two runs, no slower.
RUN_AT_MOST = 64
#: A batch of at least this many crops, for a classifier given two threads or more, is cut
#: into as many parts, each read by a session of one thread, at once. The network is small,
#: and a convolution cut across two threads waits on both at every layer: 96 faces (a full
#: table's first frame) took 10.3-11.1 ms on two threads of this 2-core machine in one
#: session, 8.7 in two of one thread each, with the same numbers out to the last bit (the
#: eight-bit model's scales are fixed, not worked out per batch). Fewer crops (a new discard:
#: one) are read by the one session on all its threads.
SPLIT_AT = 16


def prepare(crop: np.ndarray, width: int = INPUT_WIDTH, height: int = INPUT_HEIGHT) -> np.ndarray:
    """A crop as the network sees it: upright (long side vertical), resized, uint8 BGR HxWx3.

    Training uses this same function, so what the model learned matches what it is given.
    """
    if not isinstance(crop, np.ndarray) or crop.ndim not in (2, 3) or crop.size == 0:
        shape = getattr(crop, "shape", None)
        raise RefereeError(f"tile crop must be a non-empty HxWx3 BGR image, got shape {shape}")
    if crop.ndim == 2:
        crop = cv2.cvtColor(crop, cv2.COLOR_GRAY2BGR)
    elif crop.shape[2] == 4:
        crop = cv2.cvtColor(crop, cv2.COLOR_BGRA2BGR)
    elif crop.shape[2] != 3:
        raise RefereeError(f"tile crop must have 3 colour channels, got {crop.shape[2]}")
    if crop.dtype != np.uint8:
        crop = np.clip(crop, 0, 255).astype(np.uint8)
    h, w = crop.shape[:2]
    if w > h:
        crop = cv2.rotate(crop, cv2.ROTATE_90_CLOCKWISE)
        h, w = w, h
    if (w, h) == (width, height):
        return crop       # cut at the input's size (the table's faces): resizing copies it
    shrink = w > width or h > height
    return cv2.resize(crop, (width, height),
                      interpolation=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR)


def softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise softmax of N x C scores."""
    z = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=1, keepdims=True)


def best(labels: Sequence[str], p: np.ndarray) -> list[tuple[str, float]]:
    """``(label, probability)`` of the likeliest of ``labels`` in each row of ``p``."""
    return [(labels[i], float(p[k, i])) for k, i in enumerate(p.argmax(axis=1))]


def read_both_ways(read, crops: Sequence[np.ndarray], below: float) -> np.ndarray:
    """``read(crops)`` (N x C probabilities), where a crop whose best probability is under
    ``below`` gets the average of its reading and that of the crop turned half round."""
    p = read(crops)
    unsure = np.flatnonzero(p.max(axis=1) < below)
    if unsure.size:
        turned = read([cv2.rotate(crops[i], cv2.ROTATE_180) for i in unsure])
        p[unsure] = (p[unsure] + turned) / 2
    return p


class TileClassifier:
    """Names tile crops with the shipped ONNX model.

    ``model_path``: the ``.onnx`` file (default: the one shipped in ``vision/models``); its label
    list is read from the ``.json`` file of the same name beside it.
    ``threads``: CPU threads onnxruntime may use for one batch (default: onnxruntime's choice;
    on the Pi, leave a core for the camera and the tracker). Two or more: a batch of
    :data:`SPLIT_AT` crops or more is read in that many parts at once, a session of one thread
    each.
    ``half_turn_below``: a crop read with less confidence than this is read again turned half
    round and the two readings averaged (:data:`HALF_TURN_BELOW`); 0 reads every crop once.
    """

    def __init__(self, model_path: str | Path | None = None, threads: int | None = None,
                 half_turn_below: float = HALF_TURN_BELOW):
        if not 0.0 <= half_turn_below <= 1.0:
            raise RefereeError(f"half_turn_below must be between 0 and 1, got {half_turn_below}")
        self.half_turn_below = float(half_turn_below)

        path = Path(model_path) if model_path is not None else DEFAULT_MODEL
        meta_path = path.with_suffix(".json")
        if not path.is_file():
            raise RefereeError(f"tile model {path}: no such file "
                               "(train one with python -m vision.training.train)")
        if not meta_path.is_file():
            raise RefereeError(f"tile model labels {meta_path}: no such file")
        try:
            meta = json.loads(meta_path.read_text())
            self.labels: tuple[str, ...] = tuple(meta["labels"])
            self.input_width = int(meta["input_width"])
            self.input_height = int(meta["input_height"])
        except (ValueError, KeyError, TypeError) as exc:
            raise RefereeError(f"{meta_path}: not a tile model description ({exc})") from None
        #: the threads one batch may use, as given (None: onnxruntime's choice)
        self.threads = threads
        self._session = self._load(path, threads)
        #: big batches are read in this many parts at once (:data:`SPLIT_AT`)
        self.parts = int(threads) if threads is not None and int(threads) > 1 else 1
        self._part_sessions: list = []     # one thread each, made when first needed
        self._pool = None
        self._input = self._session.get_inputs()[0].name
        #: the crops taken in 2 x 2 blocks of uint8 pixels (vision.runtime.takes_blocks)
        self.in_blocks = takes_blocks(self._session)
        outputs = [o.name for o in self._session.get_outputs()]
        #: whether the model also gives its penultimate features (output ``embedding``, which
        #: tile-set enrollment compares crops in); older models give logits only
        self.has_embedding = EMBEDDING_OUTPUT in outputs
        self._outputs = [outputs[0]] + ([EMBEDDING_OUTPUT] if self.has_embedding else [])
        self.model_path = path

    @staticmethod
    def _load(path: Path, threads: int | None):
        import onnxruntime as ort

        opts = session_options(threads)
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        try:
            return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own types for corrupt files
            raise RefereeError(f"{path}: cannot load tile model ({exc})") from None

    def batch(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        """The network input for ``crops``: float32 N x 3 x H x W, BGR 0..255, or, for an
        eight-bit model that takes them so, in 2 x 2 blocks of uint8 pixels
        (:func:`vision.runtime.in_blocks`)."""
        x = np.stack([prepare(c, self.input_width, self.input_height) for c in crops])
        if self.in_blocks:
            return in_blocks(x)
        return np.ascontiguousarray(x.transpose(0, 3, 1, 2), dtype=np.float32)

    def outputs(self, crops: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray | None]:
        """The network's logits (N x len(labels)) and, when the model has it, its embedding
        (N x D, the features the last layer reads; None otherwise)."""
        if len(crops) == 0:
            return np.zeros((0, len(self.labels)), np.float32), None
        if self.parts > 1 and len(crops) >= SPLIT_AT:
            sessions = self._parts()
            cuts = np.linspace(0, len(crops), self.parts + 1).astype(int).tolist()
            jobs = [(session, crops[a:b]) for session, a, b in zip(sessions, cuts, cuts[1:])]
            others = [self._pool.submit(self._read, *job) for job in jobs[1:]]
            runs = self._read(*jobs[0]) + [run for job in others for run in job.result()]
        else:
            runs = self._read(self._session, crops)
        return (np.concatenate([out[0] for out in runs]),
                np.concatenate([out[1] for out in runs]) if self.has_embedding else None)

    def _read(self, session, crops: Sequence[np.ndarray]) -> list:
        """``session``'s outputs for ``crops``, in runs of :data:`RUN_AT_MOST` at most."""
        return [session.run(self._outputs, {self._input: self.batch(crops[i:i + RUN_AT_MOST])})
                for i in range(0, len(crops), RUN_AT_MOST)]

    def _parts(self) -> list:
        if not self._part_sessions:
            from concurrent.futures import ThreadPoolExecutor

            self._part_sessions = [self._load(self.model_path, 1) for _ in range(self.parts)]
            self._pool = ThreadPoolExecutor(self.parts - 1, thread_name_prefix="classifier")
        return self._part_sessions

    def probabilities(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        """Softmax over :attr:`labels` for every crop, N x len(labels); an unsure crop's is the
        average of its two readings (:func:`read_both_ways`)."""
        if len(crops) == 0:
            return np.zeros((0, len(self.labels)), np.float32)
        return read_both_ways(lambda cs: softmax(self.outputs(cs)[0]), crops,
                              self.half_turn_below)

    def classify(self, crops: Sequence[np.ndarray]) -> list[tuple[str, float]]:
        """``(label, confidence)`` for each crop, in order, in one batch.

        A label is an mpsz tile code, ``"back"`` (face down) or ``"none"`` (not a whole tile).
        """
        return best(self.labels, self.probabilities(crops))
