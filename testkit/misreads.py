"""Misread crops written out, so anyone can look at what a figure counts as wrong."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np


def save_misreads(crops: list[np.ndarray], truth: list[str], predicted: list[str],
                  folder: Path, scale: int = 4) -> list[Path]:
    """Write each misread crop, enlarged ``scale`` times, as ``INDEX-TRUTH-as-PREDICTED.png``
    in ``folder``; the index is the crop's place in the held-out set, the same for every
    model. A folder that cannot be written is one line (SystemExit), not a traceback."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SystemExit(f"cannot write misread crops to {folder}: {exc.strerror}")
    written = []
    for i, (crop, t, p) in enumerate(zip(crops, truth, predicted)):
        if t != p:
            path = folder / f"{i:04d}-{t}-as-{p}.png"
            big = cv2.resize(crop, (crop.shape[1] * scale, crop.shape[0] * scale),
                             interpolation=cv2.INTER_NEAREST)
            if not cv2.imwrite(str(path), big):
                raise SystemExit(f"cannot write {path}")
            written.append(path)
    return written
