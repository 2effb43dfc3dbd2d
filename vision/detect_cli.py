"""``riichi-referee detect IMAGE [--json]``: the tiles in a photo or a top-down table image.

Three kinds of picture are understood:

- a camera picture of the table with its four corner markers: it is warped to the top-down
  view and tiles are found with the calibrated tile size (boxes are given in the picture);
- a top-down table image (``--px-per-mm``, as ``calibrate --topdown`` or the synthetic
  renderer write);
- any other photo of tiles (a player's hand in a row, a grid of tiles): the tile size is
  estimated from the picture.

Tiles are listed row by row, left to right: ``{"tile", "box": [x1, y1, x2, y2],
"confidence"}``; ``tile`` is an mpsz code or ``back`` for a face-down tile.
"""
from __future__ import annotations

import json
import sys

import numpy as np

from referee.errors import RefereeError


def add_arguments(parser) -> None:
    parser.add_argument("image", help="photo or top-down table image (PNG, JPEG...)")
    parser.add_argument("--json", action="store_true", help="print a JSON list")
    parser.add_argument("--px-per-mm", type=float, default=None,
                        help="the image is a top-down table view at this scale")
    parser.add_argument("--photo", action="store_true",
                        help="treat it as a plain photo even if table markers are seen")
    parser.add_argument("--classifier", choices=("model", "art"), default="model",
                        help="model: the ONNX tile model (default); art: match the rendered "
                             "FluffyStuff art (for synthetic tables only)")
    parser.add_argument("--model", default=None, help="path of the .onnx tile model")
    parser.add_argument("--config", default=None,
                        help="a table config: read with its model and enrolled tile set")
    parser.add_argument("--min-confidence", type=float, default=0.0,
                        help="leave out tiles named with less confidence than this")


def load_classifier(kind: str, model: str | None = None, config: str | None = None):
    if kind == "art":
        from .synthetic import ArtClassifier
        return ArtClassifier()
    from .tileset import load_classifier as table_classifier
    try:
        return table_classifier(config, model)
    except RefereeError as exc:
        raise RefereeError(f"{exc}; for rendered tables try --classifier art") from None


def detect(image: np.ndarray, classifier, px_per_mm: float | None = None,
           photo: bool = False) -> list[dict]:
    """The tiles in ``image`` as dicts (see the module doc), ``none`` results left out."""
    from . import finder

    to_image = None     # top-down pixels -> picture pixels, for a calibrated picture
    if px_per_mm:
        finding = finder.find_tiles_topdown(image, px_per_mm)
    else:
        cal = None
        if not photo:
            from .calibration import MARKER_IDS, calibrate, detect_markers
            if len(detect_markers(image)) == len(MARKER_IDS):
                cal = calibrate(image)
        if cal is not None:
            finding = finder.find_tiles_topdown(cal.warp(image), cal.px_per_mm)
            to_image = np.linalg.inv(cal.topdown_matrix())
        else:
            finding = finder.find_tiles_photo(image)
    results = classifier.classify([t.crop for t in finding.tiles]) if finding.tiles else []
    out = []
    for tile, (label, conf) in zip(finding.tiles, results):
        if label == "none":
            continue
        box = _box_in_picture(tile.box, to_image) if to_image is not None else \
            [int(v) for v in tile.box]
        out.append({"tile": str(label), "box": box, "confidence": round(float(conf), 3)})
    return out


def _box_in_picture(box, to_image: np.ndarray) -> list[int]:
    """The picture-pixel box around a top-down box's four corners mapped by ``to_image``."""
    import cv2

    x1, y1, x2, y2 = box
    pts = np.float64([[x1, y1], [x2, y1], [x2, y2], [x1, y2]]).reshape(-1, 1, 2)
    q = cv2.perspectiveTransform(pts, to_image).reshape(-1, 2)
    return [int(round(q[:, 0].min())), int(round(q[:, 1].min())),
            int(round(q[:, 0].max())), int(round(q[:, 1].max()))]


def run(args) -> int:
    from .sources import read_image

    image = read_image(args.image)
    classifier = load_classifier(args.classifier, args.model, args.config)
    tiles = [t for t in detect(image, classifier, args.px_per_mm, args.photo)
             if t["confidence"] >= args.min_confidence]
    if args.json:
        print(json.dumps(tiles))
        return 0
    if not tiles:
        print("no tiles found", file=sys.stderr)
        return 0
    # one line per row, as they were ordered
    line, last_y = [], None
    for t in tiles:
        cy = (t["box"][1] + t["box"][3]) / 2
        h = t["box"][3] - t["box"][1]
        if last_y is not None and abs(cy - last_y) > h / 2:
            print(" ".join(line))
            line = []
        line.append(t["tile"])
        last_y = cy
    print(" ".join(line))
    return 0
