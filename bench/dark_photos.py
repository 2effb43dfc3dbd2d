"""Photos of whole dark-faced sets read by ``detect``: the default finder, then the one for dark faces.

    python bench/dark_photos.py [--photos 40] [--seed 2024] [--dark-finder M] [--out PATH]

A photo has no config to say its set is dark, so ``detect`` reads it with the default finder
and, where the faces it found are dark (:mod:`vision.reading.dark_faces`), again with the
finder for dark faces (:func:`vision.reading.picture.detect`). This bench renders
``--photos`` held-out photos of whole tables in the art's Black style (light ink on dark
faces; ``render_scene(kind="table", tables="holdout", dark_sets=1.0)``, table tops the finders
never trained on, seeds ``--seed``, ``--seed`` + 1, ...) and counts, over their face-up
tiles: ``found`` (a box at IoU 0.5), ``precision`` (boxes on no tile, face-down stacks aside),
``named`` (found and named right), ``misread_sure`` (found and named wrong without the
``unsure`` mark: a false penalty at a table) and ``switched`` (photos read again with the
finder for dark faces). ``--dark-finder M`` reads them with another model for dark faces
(as the shipped one is loaded: the default finder still looks first). Writes
``bench/results/dark_photos.json``.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from bench._results import write_results  # noqa: E402


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--photos", type=int, default=40)
    p.add_argument("--seed", type=int, default=2024, help="the first photo's seed (training uses 0)")
    p.add_argument("--dark-finder", type=Path, default=None,
                   help="the finder for dark faces (default: the shipped one)")
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    if args.dark_finder is not None and not args.dark_finder.is_file():
        raise SystemExit(f"--dark-finder {args.dark_finder}: no such file")

    from vision.finding import learned
    from vision.finding.learned import TileFinder, match_boxes
    from vision.reading.picture import detect
    from vision.reading.tileset import load_classifier
    from vision.synthesis.faces import FaceBank
    from vision.synthesis.render import TileArt
    from vision.synthesis.scene import POSITIVE, render_scene

    if args.dark_finder is not None:
        learned.DARK_MODEL = args.dark_finder.resolve()
    dark = Path(learned.DARK_MODEL).resolve()
    looked = []
    find = TileFinder.find
    TileFinder.find = lambda self, *a, **k: looked.append(self.model_path) or find(self, *a, **k)
    # read as `detect` reads a photo of a set not enrolled: the table's model and its second
    bank, classifier = FaceBank(TileArt()), load_classifier(threads=1)
    c = dict(tiles=0, found=0, false=0, named=0, misread_sure=0, switched=0)
    t0 = time.monotonic()
    for k in range(args.photos):
        scene = render_scene(bank, np.random.default_rng(args.seed + k), (640, 480), kind="table",
                             tables="holdout", dark_sets=1.0)
        face_up = [t for t in scene.tiles if t.status == POSITIVE and t.code not in ("back", "x")]
        others = [t.quad for t in scene.tiles if t.status != POSITIVE]
        looked.clear()
        read = detect(scene.image, classifier, photo=True)
        c["switched"] += any(Path(m).resolve() == dark for m in looked)
        m = match_boxes([np.float32(t["quad"]) for t in read], [t.quad for t in face_up], others)
        c["tiles"] += len(face_up)
        c["found"] += m["tp"]
        c["false"] += m["fp"]
        for i, j in m["pairs"]:
            right = read[i]["tile"] == face_up[j].code
            c["named"] += right
            c["misread_sure"] += not right and not read[i].get("unsure", False)
    n = max(1, c["tiles"])
    result = {"photos": args.photos, "seed": args.seed, "dark_finder": str(learned.DARK_MODEL),
              "tiles": c["tiles"], "found": round(c["found"] / n, 4),
              "precision": round(c["found"] / max(1, c["found"] + c["false"]), 4),
              "named": round(c["named"] / n, 4), "misread_sure": c["misread_sure"],
              "switched": c["switched"], "wall_s": round(time.monotonic() - t0, 1)}
    print(f"{args.photos} photos of dark-faced sets, {c['tiles']} face-up tiles: found {result['found']:.4f} "
          f"(precision {result['precision']:.4f}), named {result['named']:.4f}, sure misreads "
          f"{c['misread_sure']}; {c['switched']} read again with the finder for dark faces")
    write_results("dark_photos", result, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
