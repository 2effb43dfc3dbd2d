"""``riichi-referee detect IMAGE [--json]``: the tiles in a photo or a top-down table image.

What is read, and how (a calibrated camera picture, a top-down view, any other photo; the
tiles row by row, each ``{"tile", "box", "quad", "across", "confidence"}``), is
:mod:`vision.reading.picture`. A reading less sure than ``--unsure-below`` carries
``"unsure": true``: a referee should look at that tile rather than trust it. Without
``--json`` the tiles are printed one row a line, an unsure one with a ``?`` after its code
(``5p?``), and a line on standard error says what ``?`` means. ``--draw OUT.png`` writes the
picture with each tile's outline and code, green when sure and orange when unsure, with a
legend below it saying so, so a referee can see what the camera saw.

The tiles of one picture are read as tiles of one set (:mod:`vision.reading.one_set`): no
kind more than four times, one red five of a suit. ``--tile-by-tile`` reads each tile alone,
for a picture of more than one set.
"""
from __future__ import annotations

import json
import sys

from referee.errors import RefereeError
from vision.reading.looks import LOOKS
from vision.reading.picture import UNSURE_BELOW, detect, draw

#: ``--finder felt``: the felt-colour finder reads a calibrated view (as ``[camera] finder``).
FELT = "felt"


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
    parser.add_argument("--unsure-below", type=float, default=UNSURE_BELOW,
                        help="mark readings less sure than this as unsure (default %(default)s)")
    parser.add_argument("--draw", metavar="OUT.png", default=None,
                        help="write the picture with each tile's outline and code")
    parser.add_argument("--tile-by-tile", action="store_true",
                        help="read each tile alone, not as tiles of one set (no kind more than "
                             "four times): for a picture of more than one set")
    parser.add_argument("--one-look", action="store_true",
                        help="read each face of a photo once (default: also turned 2.5 degrees "
                             "either way, the readings averaged: surer where right, less sure "
                             "where wrong, three times the reading's time)")
    parser.add_argument("--finder", default=None,
                        help="path of the .onnx tile finder model, 'dark' for the shipped one "
                             "for sets with dark faces, or 'felt' for the felt-colour finder on a "
                             "calibrated view (default: the config's [camera] finder, else the "
                             "shipped learned finder)")


def load_finder(model: str | None = None):
    """The learned finder of ``model`` (a path, None for the shipped one, or a shipped one's
    name as ``[camera] finder`` gives it: ``"dark"``), or None for ``"felt"``."""
    from vision.finding.learned import SHIPPED, TileFinder
    return None if model == FELT else TileFinder(SHIPPED.get(model, model))


def load_classifier(kind: str, model: str | None = None, config: str | None = None):
    if kind == "art":
        from vision.synthesis.synthetic import ArtClassifier
        return ArtClassifier()
    from vision.reading.tileset import load_classifier as table_classifier
    try:
        return table_classifier(config, model)
    except RefereeError as exc:
        raise RefereeError(f"{exc}; for rendered tables try --classifier art") from None


def run(args) -> int:
    from vision.camera.sources import read_image, write_image

    if args.px_per_mm is not None and not 0 < args.px_per_mm < float("inf"):
        raise RefereeError(f"--px-per-mm must be over 0 (the top-down image's pixels a table "
                           f"mm), not {args.px_per_mm:g}")
    image = read_image(args.image)
    classifier = load_classifier(args.classifier, args.model, args.config)
    if args.finder is None and args.config:
        # the table's own finder, so the picture is read as the table reads it
        from vision.camera.calibration import read_config
        from vision.tracking.service_feed import table_finder
        finder = table_finder(args.config, read_config(args.config).get("camera", {}))
    else:
        finder = load_finder(args.finder)
    tiles = [t for t in detect(image, classifier, args.px_per_mm, args.photo, finder,
                               args.unsure_below, one_set=not args.tile_by_tile,
                               looks=None if args.one_look else LOOKS)
             if t["confidence"] >= args.min_confidence]
    if args.draw:
        write_image(args.draw, draw(image, tiles, args.unsure_below), "the --draw picture")
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
        line.append(t["tile"] + ("?" if t.get("unsure") else ""))
        last_y = cy
    print(" ".join(line))
    unsure = sum(1 for t in tiles if t.get("unsure"))
    if unsure:
        print(f"?: unsure, read with confidence below {args.unsure_below:g}: look at "
              f"{'that tile' if unsure == 1 else f'those {unsure} tiles'}", file=sys.stderr)
    return 0
