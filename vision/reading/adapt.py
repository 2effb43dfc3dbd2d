"""Recognition adapted to one tile set: the shipped classifier plus what enrollment learned.

Enrollment gives a few crops of the tournament's own tiles, each with the code of the place it
lay in. From them, in numpy at enroll time (PyTorch is not a runtime dependency):

1. **augmented crops**: each enrolled crop turned upside down or not (half the ponds face the
   camera upside down), cut a little tighter or looser and askew (as the finder cuts), under
   other light and white balance, blurred, smaller, noisier and JPEG-compressed
   (:func:`augment`);
2. their **features**: the model's ``embedding`` output (the features its last layer reads)
   when the model has one, else its logits (a model exported before the embedding output
   existed; enrollment still helps, less);
3. **prototypes**: per enrolled code and orientation, the mean direction of its augmented
   crops' features.

:class:`EnrolledClassifier` reads a crop as the model does, then, among the codes enrolled,
weighs the model's answer with the crop's likeness to each code's prototypes (cosine, made a
distribution by a softmax of temperature ``1/sharpness``): the model still says whether a crop
is a tile at all (``none``) and how sure it is; the set's own look says which tile. Codes not
enrolled keep the model's probability as it was.

``bench/enroll.py`` compares this with a fine-tune of a last layer on the same features
(:func:`fit_head`), and the prototypes measure best (its ``after`` against
``after_last_layer``).

Tried on the Black set with the 8-epoch model that never saw it (``bench/enroll.py``'s
``black`` figures, 780 crops, 8 misread as shipped) and left as they are, since none moved the
figure: 48 or 96 augmented copies instead of 24, the number then (8 misread); the augmented
copies also lit as the renders are, with shadows and glare
(:func:`vision.synthesis.render._light`; 8); prototype weights 0.9-1.0, sharpness 30-80 and
gates from (0.5, 0.7) to (0.65, 0.85) (7 at best). Tried later,
with a second sample of 1560 crops (another seed) beside the 780, where the model enrolled so
misreads 20 and the shipped model, which trained on Black, 5: features from earlier layers
beside the embedding (8 and 20-21), the nearest augmented copies instead of their mean (8-10,
19-26), gates down to (0.1, 0.3) (8-10, 19-22), three photos of the sheet instead of one (8,
19), copies drawn by :mod:`vision.synthesis.render` with the enrolled faces as art (8, 19-21), and,
outside the numpy budget, fine-tuning the network itself in PyTorch on those drawn copies
(the last two layers or all, 2-3 epochs: 7-9, 13-15; with prototypes on top: 9, 13). What
the model does not see in an unfamiliar set's crops, a sheet of its faces cannot teach it.
The crops left misread are under glare or deep shadow, blurred, or a handful of pixels wide.
Tried since on the bench's 3900 crops (32 misread as shipped): reading an unsure crop cut 4-6%
tighter and looser too and averaging (31-33), and turning the lightness over with the light's
pattern kept (a shadow stays dark; no better on the samples above); training with uneven light,
and with dark faces (``python -m vision.training.train --dark-faces``: Black read 99% right before
enrolling, 21-29 misread after), see vision/README.md. What did reach 18 and fewer: a doubtful
crop read by a second model of another training too (one trained with dark faces beside one
without), ``bench/enroll.py --second-model``; the table reads so
(:mod:`vision.reading.second_opinion`).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np

from .classifier import TileClassifier, softmax

#: Augmented copies made of each enrolled crop. 16 since November 2026 (24 before: 48 and 96
#: read no better, above): ``python bench/enroll_augments.py``, the tests' other-inks set
#: enrolled with 6 augmentation seeds and 760 of its tiles read each time, the pair misread
#: none with 24 or 16 copies and one, surely, with 12; the table's model alone 20 with 24, 4
#: with 16, 27 with 12 (the seeds differ by as much); camerash and the shipped model on Black
#: read the same with 24, 16 and 12 (Black with the models trained without it, two trainings
#: of about an hour each, was not measured again). A fit of both models takes about 0.7 of
#: the time (38 crops: 3.2-3.5 -> 2.2-2.5 s of CPU here).
AUGMENTS = 16
#: A crop is taken for one of the enrolled tiles only as far as it looks like one: below the
#: first likeness (cosine to the nearest prototype, centred) the prototypes have no say, above
#: the second their full weight. On the real Camerash photos (one set enrolled from one of its
#: photos, its other photos read), tiles of an enrolled kind lie above 0.93 (19 in 20) and
#: tiles of kinds not enrolled below 0.41 (19 in 20, but some up to 0.6); rendered Black
#: tiles, which vary more than one real set does, above 0.67 (19 in 20).
GATE = {"embedding": (0.65, 0.85), "logits": (0.65, 0.85)}
#: How much the prototypes weigh against the model among the enrolled codes (0: the model
#: alone; 1: the prototypes alone), and how sharply likeness is turned into probability.
PROTOTYPE_WEIGHT = 0.9
SHARPNESS = 50.0


def model_fingerprint(path: str | Path) -> str:
    """sha256 of a model file: a tile set fitted on one model is refitted for another."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# -- augmentation ---------------------------------------------------------------------------

def augment(crop: np.ndarray, rng: np.random.Generator, turn: bool | None = None) -> np.ndarray:
    """One variation of an upright tile ``crop`` (uint8 BGR) as the camera might give it in
    play; ``turn``: upside down (None: at random)."""
    h, w = crop.shape[:2]
    # the cut: each side a little in or out, the quad a little askew
    m = rng.uniform(-0.06, 0.08, 4) * np.array([w, h, w, h])
    quad = np.float32([[m[0], m[1]], [w - m[2], m[1]], [w - m[2], h - m[3]], [m[0], h - m[3]]])
    quad += rng.normal(0, 0.015 * w, quad.shape).astype(np.float32)
    c = quad.mean(0)
    rot = cv2.getRotationMatrix2D((float(c[0]), float(c[1])), rng.uniform(-5, 5), 1)
    quad = (quad @ rot[:, :2].T + rot[:, 2]).astype(np.float32)
    out_w = int(rng.integers(24, 80))
    out_h = max(8, int(round(out_w * h / w)))
    dst = np.float32([[0, 0], [out_w, 0], [out_w, out_h], [0, out_h]])
    M = cv2.getPerspectiveTransform(quad, dst)
    img = cv2.warpPerspective(crop, M, (out_w, out_h), flags=cv2.INTER_AREA,
                              borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    # light: exposure, white balance, contrast, gamma
    img *= rng.uniform(0.65, 1.25) * rng.uniform(0.9, 1.1, 3)[None, None]
    mean = img.mean()
    img = (img - mean) * rng.uniform(0.75, 1.2) + mean
    img = np.clip(img, 0, 255)
    if rng.random() < 0.4:
        img = 255 * (img / 255) ** rng.uniform(0.75, 1.35)
    if rng.random() < 0.3:   # a light gradient across the tile
        yy, xx = np.mgrid[0:out_h, 0:out_w].astype(np.float32)
        a = rng.uniform(0, 2 * np.pi)
        g = (xx * np.cos(a) + yy * np.sin(a)) / max(out_w, out_h)
        img *= (1 + rng.uniform(-0.3, 0.3) * (g - g.mean()))[..., None]
    if rng.random() < 0.5:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.1))
    img += rng.normal(0, rng.uniform(0, 6), img.shape).astype(np.float32)
    out = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.6:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 95))])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if turn if turn is not None else rng.random() < 0.5:
        out = cv2.rotate(out, cv2.ROTATE_180)
    return out


# -- features -------------------------------------------------------------------------------

def features(base: TileClassifier, crops: Sequence[np.ndarray],
             batch: int = 256) -> tuple[np.ndarray, np.ndarray, str]:
    """The model's logits for ``crops`` and the features enrollment compares them in (its
    embedding, else its logits), L2-normalised; and which feature it was."""
    logits, feats = [], []
    for i in range(0, len(crops), batch):
        lo, emb = base.outputs(crops[i:i + batch])
        logits.append(lo)
        feats.append(emb if emb is not None else lo)
    lo = np.concatenate(logits) if logits else np.zeros((0, len(base.labels)), np.float32)
    f = np.concatenate(feats) if feats else np.zeros((0, 0), np.float32)
    return lo, normalise(f), "embedding" if base.has_embedding else "logits"


def normalise(f: np.ndarray) -> np.ndarray:
    if f.size == 0:
        return f.astype(np.float32)
    if f.min() < 0:   # logits: centre them so the direction means something
        f = f - f.mean(axis=1, keepdims=True)
    return normalise_rows(f)


def normalise_rows(f: np.ndarray) -> np.ndarray:
    return (f / np.maximum(np.linalg.norm(f, axis=1, keepdims=True), 1e-6)).astype(np.float32)


# -- the fit --------------------------------------------------------------------------------

@dataclass
class Adaptation:
    """What is added to the model for one set: ``codes`` enrolled, and per prototype its code
    index (into the model's labels) and unit feature vector."""

    feature: str                 # "embedding" or "logits"
    proto_labels: np.ndarray     # int, K
    prototypes: np.ndarray       # float32, K x D, unit vectors in the centred space
    centre: np.ndarray           # float32, D: what every tile of the set shares
    weight: float = PROTOTYPE_WEIGHT
    sharpness: float = SHARPNESS
    #: how the set's crops are shown to the model (a key of :data:`LOOKS`)
    look: str = "as_is"

    def shown(self, crops: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Crops as the model is shown them for this set."""
        return [LOOKS[self.look](c) for c in crops]

    def centred(self, feats: np.ndarray) -> np.ndarray:
        """Features with what the set's tiles share taken out, made unit vectors again: the
        model's features of an unfamiliar set are all alike, and what tells its tiles apart
        is what is left."""
        return normalise_rows(feats - self.centre)

    def enrolled(self) -> np.ndarray:
        return np.unique(self.proto_labels)


def augmented_set(crops: Sequence[np.ndarray], labels: Sequence[str], rng: np.random.Generator,
                  n: int = AUGMENTS) -> tuple[list[np.ndarray], list[str], list[bool]]:
    """``n`` variations of each crop (half of them upside down), their labels and turns."""
    out, out_labels, turns = [], [], []
    for crop, label in zip(crops, labels):
        for k in range(n):
            turn = k % 2 == 1
            out.append(augment(crop, rng, turn))
            out_labels.append(label)
            turns.append(turn)
    return out, out_labels, turns


def invert_lightness(crop: np.ndarray) -> np.ndarray:
    """The crop with its lightness turned over and its colours kept (Lab ``L -> 255 - L``):
    a dark face with light ink becomes a light face with dark ink of the same hues."""
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB)
    lab[..., 0] = 255 - lab[..., 0]
    return cv2.cvtColor(lab, cv2.COLOR_LAB2BGR)


#: Ways a set's crops may be shown to the model. Sets with dark faces and light ink exist; a
#: model trained on ivory faces reads them far better turned over (bench/enroll.py, the Black
#: style with a model that never saw it: 15% read right as they are, 98% turned over).
LOOKS = {"as_is": lambda c: c, "lightness_inverted": invert_lightness}
#: A look other than as the crops are is chosen only when the model reads this many more of
#: the enrolled places right with it.
LOOK_MARGIN = 4


def choose_look(base: TileClassifier, crops: Sequence[np.ndarray],
                labels: Sequence[str]) -> tuple[str, dict[str, int]]:
    """The look under which the model alone reads most enrolled crops as their places (as
    they are unless another does clearly better), and how many each look read right."""
    right = {}
    for name, show in LOOKS.items():
        read = base.classify([show(c) for c in crops])
        right[name] = sum(1 for (got, _), want in zip(read, labels) if got == want)
    best = max(right, key=lambda k: right[k])
    if right[best] < right["as_is"] + LOOK_MARGIN:
        best = "as_is"
    return best, right


def fit_prototypes(base: TileClassifier, crops: Sequence[np.ndarray], labels: Sequence[str],
                   seed: int = 0, n: int = AUGMENTS, look: str | None = None,
                   augmented: tuple[list[np.ndarray], list[str], list[bool]] | None = None
                   ) -> Adaptation:
    """Prototypes of each enrolled code, one per orientation, from augmented crops shown in
    the set's look (chosen here by :func:`choose_look` unless given). ``augmented``: what
    ``augmented_set(crops, labels, np.random.default_rng(seed), n)`` gives, when the caller
    has it already (a set fitted for two models is augmented once)."""
    if look is None:
        look = choose_look(base, crops, labels)[0]
    show = LOOKS[look]
    if augmented is None:
        augmented = augmented_set(crops, labels, np.random.default_rng(seed), n)
    aug, aug_labels, turns = augmented
    _, f, kind = features(base, [show(c) for c in aug])
    index = {lab: i for i, lab in enumerate(base.labels)}
    y = np.array([index[lab] for lab in aug_labels])
    t = np.array(turns)
    centre = f.mean(axis=0).astype(np.float32)
    g = normalise_rows(f - centre)
    protos, plabels = [], []
    for c in np.unique(y):
        for turn in (False, True):
            sel = (y == c) & (t == turn)
            if sel.any():
                m = g[sel].mean(axis=0)
                protos.append(m / max(np.linalg.norm(m), 1e-6))
                plabels.append(c)
    return Adaptation(kind, np.array(plabels, np.int64),
                      np.array(protos, np.float32).reshape(len(protos), -1), centre,
                      look=look)


def adapted_probabilities(logits: np.ndarray, feats: np.ndarray, a: Adaptation,
                          fold: Sequence[tuple[int, int]] = ()) -> np.ndarray:
    """Probabilities over the model's labels for crops with ``logits`` and (normalised)
    ``feats``, given the set's adaptation ``a``. ``fold``: label index pairs ``(gone, into)``
    for labels the set does not have: what the model gives ``gone`` it gives ``into``, before
    the set's likeness weighs in (a set without red fives: a red five is its suit's five)."""
    p = softmax(logits)
    for gone, into in fold:
        p[:, into] += p[:, gone]
        p[:, gone] = 0.0
    if len(a.prototypes) == 0 or len(p) == 0:
        return p
    sims = a.centred(feats) @ a.prototypes.T                     # N x K
    codes = a.enrolled()
    best = np.full((len(p), len(codes)), -1.0, np.float32)
    for j, c in enumerate(codes):
        best[:, j] = sims[:, a.proto_labels == c].max(axis=1)
    q = softmax(best * a.sharpness)                              # likeness among enrolled
    mass = p[:, codes].sum(axis=1, keepdims=True)                # "one of the enrolled codes"
    model = p[:, codes] / np.maximum(mass, 1e-9)
    lo, hi = GATE.get(a.feature, GATE["embedding"])
    # a crop like none of the enrolled tiles (a kind not enrolled) is left to the model
    weight = a.weight * np.clip((best.max(axis=1, keepdims=True) - lo) / (hi - lo), 0, 1)
    mix = np.exp((1 - weight) * np.log(np.maximum(model, 1e-9)) +
                 weight * np.log(np.maximum(q, 1e-9)))
    mix /= mix.sum(axis=1, keepdims=True)
    out = p.copy()
    out[:, codes] = mix * mass
    return out


def fit_head(base: TileClassifier, crops: Sequence[np.ndarray], labels: Sequence[str],
             seed: int = 0, n: int = AUGMENTS, l2: float = 1e-2, steps: int = 300,
             lr: float = 0.05) -> tuple[np.ndarray, np.ndarray, str]:
    """The alternative measured by ``bench/enroll.py``: a correction ``dW, db`` to the model's
    logits, ``logits + feats @ dW.T + db``, fitted by gradient descent (Adam, in numpy) on the
    augmented crops with an L2 pull towards no change."""
    rng = np.random.default_rng(seed)
    aug, aug_labels, _ = augmented_set(crops, labels, rng, n)
    lo, f, kind = features(base, aug)
    index = {lab: i for i, lab in enumerate(base.labels)}
    y = np.array([index[lab] for lab in aug_labels])
    C, D = lo.shape[1], f.shape[1]
    W = np.zeros((C, D), np.float32)
    b = np.zeros(C, np.float32)
    mW, vW, mb, vb = (np.zeros_like(W), np.zeros_like(W), np.zeros_like(b), np.zeros_like(b))
    onehot = np.eye(C, dtype=np.float32)[y]
    for step in range(1, steps + 1):
        p = softmax(lo + f @ W.T + b)
        g = (p - onehot) / len(y)
        gW = g.T @ f + 2 * l2 * W
        gb = g.sum(axis=0)
        for param, grad, m, v in ((W, gW, mW, vW), (b, gb, mb, vb)):
            m[:] = 0.9 * m + 0.1 * grad
            v[:] = 0.999 * v + 0.001 * grad * grad
            param -= lr * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)
    return W, b, kind
