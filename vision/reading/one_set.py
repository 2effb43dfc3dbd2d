"""The tiles in one picture come from one set: no kind is read more often than a set holds it.

A set has four tiles of each kind, and at most one red five of a suit
(:mod:`referee.fifth_copy`). A picture the classifier reads with a fifth 1s, or with two red
5m, holds misreads, and the copies it reads alike are most often a design it has not seen (a
bird 1s, a picture dragon) read the same wrong way. So the readings of one picture are read
together: while a kind is read more often than a set has it, the reading
of it that loses least by it (the classifier's log-probability of its reading less that of
its next likeliest kind with room left) takes that next kind. Each move takes one tile off
a kind that has too many, so it ends after at most as many moves as there are extra copies.

A reading moved this way carries the classifier's probability of its new kind, which is low
as a rule, so the referee sees it unsure rather than a fifth copy stated as fact. Where two
readings or more had to be moved off one kind, the classifier takes some other design for it
again and again, and cannot tell which of the readings it keeps there are the real ones: they
are marked doubtful too (:data:`TAKEN_FOR_ANOTHER`). A set holds one red five of a suit, so
a red five read twice or more is a design read as it over and over (a picture red dragon, a
smeared one most of all), and the reading kept on it is doubtful too, however sure: in the
labelled photos shaken (``bench/vision.py``), a red dragon read as the red 5m at 0.90 was
otherwise stated as fact. Where no kind
has room left (a picture of more tiles than a set has, a Hong Kong set's flowers among them),
a reading stays beyond its kind's four; it and any other beyond the surest four are marked
doubtful (:data:`DOUBTFUL`). A picture with no kind read five times is read
exactly as the classifier reads each tile.

On the labelled real photographs (``bench/vision.py``), most of them whole Hong Kong sets
laid out, this raises the tiles found and named from 0.9557 to 0.9715; on a live table, where
a kind is rarely in view four times, it changes few readings.
"""
from __future__ import annotations

from collections import Counter
from typing import Sequence

import numpy as np

from referee.fifth_copy import over_four
from referee.tiles import TILE_CODES, is_red

#: The most a reading that breaks what the game allows (a fifth copy, two readings of one
#: tile that disagree) can be trusted.
DOUBTFUL = 0.5
#: A kind that this many of a picture's readings had to be moved off is one the classifier
#: takes some other design for, over and over (a Hong Kong set's birds read as 3m, its four
#: picture red dragons as the one red 5m): which of its readings are the real ones it cannot
#: tell, so those left on it are doubtful too.
TAKEN_FOR_ANOTHER = 2


def within_copies(p: np.ndarray, labels: Sequence[str]) -> np.ndarray:
    """The label index of each row of ``p`` (N x len(labels) probabilities), read together
    so that no tile kind is chosen more often than a set holds it; a label that is no tile
    (``back``, ``none``) is never moved to or from."""
    choice = p.argmax(axis=1) if len(p) else np.zeros(0, int)
    faces = np.array([lab in TILE_CODES for lab in labels])
    seen = Counter(labels[i] for i in choice if faces[i])
    if not any(over_four(seen, tile) for tile in seen):
        return choice
    log = np.log(np.maximum(p, 1e-9))
    order = np.argsort(-p, axis=1)
    while True:
        best = None     # (cost, crop, new label index)
        for k, i in enumerate(choice):
            if not faces[i] or not over_four(seen, labels[i]):
                continue
            seen[labels[i]] -= 1
            for j in order[k]:
                if j == i or not faces[j]:
                    continue
                seen[labels[j]] += 1
                fits = not over_four(seen, labels[j])
                seen[labels[j]] -= 1
                if fits:
                    cost = log[k, i] - log[k, j]
                    if best is None or cost < best[0]:
                        best = (cost, k, j)
                    break
            seen[labels[i]] += 1
        if best is None:
            return choice
        _, k, j = best
        seen[labels[choice[k]]] -= 1
        seen[labels[j]] += 1
        choice[k] = j


def classify_as_one_set(classifier, crops: Sequence[np.ndarray]) -> list[tuple[str, float]]:
    """``classifier.classify(crops)``, the crops read together as tiles of one set (see the
    module doc). A classifier that gives no probabilities is read crop by crop."""
    if len(crops) == 0:
        return []
    if not hasattr(classifier, "probabilities"):
        return classifier.classify(crops)
    p = classifier.probabilities(crops)
    labels = classifier.labels
    chosen = within_copies(p, labels)
    out = [(labels[i], float(p[k, i])) for k, i in enumerate(chosen)]
    first = p.argmax(axis=1)     # each crop's reading before the set was weighed in
    moved_off = Counter(labels[i] for i, j in zip(first, chosen) if i != j)
    read_as = Counter(labels[i] for i in first)
    seen: Counter = Counter()
    for k in sorted(range(len(out)), key=lambda k: -out[k][1]):
        label, confidence = out[k]
        if label in TILE_CODES:
            seen[label] += 1
            if over_four(seen, label) or moved_off[label] >= TAKEN_FOR_ANOTHER \
                    or (is_red(label) and read_as[label] > 1):
                out[k] = (label, min(confidence, DOUBTFUL))
    return out


def read_crops(classifier, crops: Sequence[np.ndarray], one_set: bool = True) -> list[tuple[str, float]]:
    """``classifier``'s ``(label, confidence)`` for each crop: read together as tiles of one
    set (:func:`classify_as_one_set`), or each alone (``one_set`` False)."""
    if len(crops) == 0:
        return []
    return classify_as_one_set(classifier, crops) if one_set else classifier.classify(crops)
