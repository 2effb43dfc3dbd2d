"""The tiles in one picture: a photo, a top-down table view, or a camera picture with the
table's markers, found and named (``riichi-referee detect``).

Three kinds of picture are understood:

- a camera picture of the table with its four corner markers: it is warped to the top-down
  view and tiles are found with the calibrated tile size (boxes are given in the picture);
- a top-down table image (``px_per_mm``, as ``calibrate --topdown`` or the synthetic
  renderer write);
- any other photo of tiles (a player's hand in a row, a grid of tiles): the tile size is
  estimated from the picture.

Tiles are listed row by row, left to right: ``{"tile", "box": [x1, y1, x2, y2], "quad":
[[x, y] x 4], "across", "confidence"}``; ``tile`` is an mpsz code or ``back`` for a
face-down tile, ``quad`` the tile's outline in the picture (a tile lying askew is a turned
box) and ``confidence`` the least of the finder's and the classifier's. A reading less sure
than ``unsure_below`` carries ``"unsure": true``. The tiles of one picture are read as tiles
of one set (:mod:`vision.reading.one_set`) unless asked otherwise."""
from __future__ import annotations

import numpy as np

from .looks import LOOKS, ManyLooks

#: Readings less sure than this are marked unsure (the table's default confidence threshold).
UNSURE_BELOW = 0.8


def detect(image: np.ndarray, classifier, px_per_mm: float | None = None,
           photo: bool = False, finder=None, unsure_below: float = UNSURE_BELOW,
           one_set: bool = True, looks=LOOKS) -> list[dict]:
    """The tiles in ``image`` as dicts (see the module doc), ``none`` results left out.
    ``one_set``: read the tiles together as tiles of one set (:mod:`vision.reading.one_set`).
    ``looks``: an uncalibrated photo's faces are each read in these looks (turn, scale) and
    the readings averaged (:mod:`vision.reading.looks`); one look, ``((0, 1),)``, or None reads
    each face once. ``finder``: a photo read with the default learned finder (None, or the
    shipped one) whose tiles have dark faces (:mod:`.dark_faces`) is read again with the one
    for dark faces, and the faces the classifier doubts by the second model for dark faces
    where it reads a set not enrolled with the shipped pair
    (:func:`~vision.reading.second_opinion.for_dark_faces`)."""
    from vision.camera.calibration import MARKER_IDS, calibrate, detect_markers
    from vision.finding import learned as finders

    from .dark_faces import dark_faces
    from .one_set import read_crops
    from .second_opinion import for_dark_faces

    to_image = None     # top-down pixels -> picture pixels, for a calibrated picture
    crops = None        # the faces, where they were cut already
    markers: list[np.ndarray] = []      # no tile lies on one (see _on_a_marker)
    if px_per_mm:
        finding = finders.find_tiles_topdown(image, px_per_mm, finder)
        markers = _markers_at_edge(image, detect_markers)
    else:
        if not photo:
            markers = list(detect_markers(image).values())
        if len(markers) == len(MARKER_IDS):
            cal = calibrate(image)
            finding = finders.find_tiles_topdown(cal.warp(image), cal.px_per_mm, finder)
            to_image = np.linalg.inv(cal.topdown_matrix())
        else:
            finding = finders.find_tiles_photo(image, finder=finder)
            default = finder is None or getattr(finder, "model_path", None) == finders.DEFAULT_MODEL
            crops = [t.crop for t in finding.tiles]
            if default and dark_faces([t.crop for t in (finding.first or finding).tiles]):
                # a photo of a set with dark faces read with the default finder: it finds near
                # half of such a set's tiles, the one trained for them 0.89. Told by the
                # faces of the default finder's looks before a surer one: looking finer at a
                # dark set, it boxes pieces of the light ink
                dark = finders.shared_finder(finders.DARK_MODEL, getattr(finder, "threads", None))
                finding = finders.find_tiles_photo(image, finder=dark)
                crops = [t.crop for t in finding.tiles]
                # and its doubted faces read by the second model trained on dark faces
                classifier = for_dark_faces(classifier)
            if looks and len(looks) > 1 and hasattr(classifier, "probabilities"):
                classifier = ManyLooks(classifier, looks)
    if crops is None:
        crops = [t.crop for t in finding.tiles]
    results = read_crops(classifier, crops, one_set)
    out = []
    for tile, (label, conf) in zip(finding.tiles, results):
        if label == "none":
            continue
        quad = tile.quad if to_image is None else _in_picture(tile.quad, to_image)
        if _on_a_marker(quad, markers):
            continue
        confidence = round(min(float(conf), float(tile.score)), 3)
        reading = {"tile": str(label),
                   "box": [int(np.floor(quad[:, 0].min())), int(np.floor(quad[:, 1].min())),
                           int(np.ceil(quad[:, 0].max())), int(np.ceil(quad[:, 1].max()))],
                   "quad": [[round(float(x), 1), round(float(y), 1)] for x, y in quad],
                   "across": bool(tile.across), "confidence": confidence}
        if confidence < unsure_below:
            reading["unsure"] = True
        out.append(reading)
    return out


def _markers_at_edge(image: np.ndarray, detect_markers, pad: int = 32) -> list[np.ndarray]:
    """The table's markers in a top-down view (its pixels). A view cut at the table's edge
    leaves the markers little of their white margin, which ArUco needs, so the picture is
    looked at with a white border around it."""
    import cv2

    framed = cv2.copyMakeBorder(image, pad, pad, pad, pad, cv2.BORDER_CONSTANT,
                                value=(255,) * (1 if image.ndim == 2 else 3))
    return [m - pad for m in detect_markers(framed).values()]


def _on_a_marker(quad: np.ndarray, markers: list[np.ndarray]) -> bool:
    """Whether a found tile's centre lies on one of the table's markers: a marker's black and
    white squares in its white margin can pass for a tile's face, and no tile lies there."""
    import cv2

    cx, cy = np.asarray(quad, np.float64).mean(axis=0)
    return any(cv2.pointPolygonTest(m.astype(np.float32), (float(cx), float(cy)), False) >= 0
               for m in markers)


def _in_picture(quad: np.ndarray, to_image: np.ndarray) -> np.ndarray:
    """A top-down quad mapped into the camera picture by ``to_image``."""
    import cv2

    pts = np.asarray(quad, np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, to_image).reshape(-1, 2)


#: The outline colours of :func:`draw` (BGR): a sure reading, and one to look at.
SURE_COLOUR = (0, 200, 0)           # green
UNSURE_COLOUR = (0, 140, 255)       # orange


def draw(image: np.ndarray, tiles: list[dict], unsure_below: float = UNSURE_BELOW) -> np.ndarray:
    """``image`` with each reading's outline and code, green when sure, orange when unsure,
    over a strip added below it that says so (the picture itself is not covered, so its pixels
    keep their places). ``unsure_below``: the confidence the readings were judged against."""
    import cv2

    h, w = image.shape[:2]
    big = max(h, w)
    thick = max(1, int(round(big / 700)))
    scale = 0.4 * thick
    font = cv2.FONT_HERSHEY_SIMPLEX
    (_, text_h), _ = cv2.getTextSize("Ag", font, scale, thick)
    strip = 2 * text_h + 8
    out = np.zeros((h + strip, w, 3), np.uint8)
    out[:h] = image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    out[h:] = 255
    for t in tiles:
        colour = UNSURE_COLOUR if t.get("unsure") else SURE_COLOUR
        pts = np.round(np.asarray(t["quad"])).astype(np.int32)
        cv2.polylines(out[:h], [pts], True, colour, thick, cv2.LINE_AA)
        x, y = pts.min(axis=0)
        (tw, th), _ = cv2.getTextSize(t["tile"], font, scale, thick)
        y = max(int(y), th + 2)
        cv2.rectangle(out[:h], (int(x), y - th - 2), (int(x) + tw + 2, y), colour, -1)
        cv2.putText(out[:h], t["tile"], (int(x) + 1, y - 2), font, scale, (0, 0, 0), thick,
                    cv2.LINE_AA)
    # the legend: a swatch of each colour and what it means
    x, base = 4, h + strip // 2 + text_h // 2
    for colour, text in ((SURE_COLOUR, "sure"),
                         (UNSURE_COLOUR, f"unsure (confidence below {unsure_below:g}): "
                                         "look at the tile")):
        cv2.rectangle(out, (x, base - text_h), (x + text_h, base), colour, -1)
        x += text_h + 4
        cv2.putText(out, text, (x, base), font, scale, (0, 0, 0), thick, cv2.LINE_AA)
        x += cv2.getTextSize(text, font, scale, thick)[0][0] + 3 * text_h
    return out
