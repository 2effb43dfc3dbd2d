"""Label every tile of the Camerash raw photographs: a box (quad) and a code for each.

    python bench/label_photos.py [--data DIR] [--out bench/labels/camerash-raw.json]
                                 [--draw DIR] [--proposals-only] [--check] [PHOTO ...]

How the labels are proposed and corrected is :mod:`testkit.labelling` (the tests check the
proposer and the hand corrections too); this is its command line.

``--draw DIR`` writes each photo with its quads (the thick magenta side is the tile's top as it
reads) and codes, about 150 pixels to a tile, so every code can be checked against the tile;
codes where the crops and the classifier disagree are orange.
``--check`` says where the labels made now differ from the file, after a change to the
proposer or to the shipped classifier; the file is the checked one.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from table.paths import shared_data_dir  # noqa: E402
from testkit.labelling import (  # noqa: E402
    ABOUT,
    LAYOUTS,
    CropMatcher,
    apply_corrections,
    differences,
    dumps,
    photo_order,
    photo_set,
    propose,
)
from testkit.photos import LABELS, PHOTOS  # noqa: E402


# ---------------------------------------------------------------- drawing

def draw(image: np.ndarray, tiles: list[dict], tile_px: int = 150) -> np.ndarray:
    """The photo with each tile's quad (its top, as it reads, drawn thick) and code, scaled so
    a tile is about ``tile_px`` wide; a tile marked ``doubt`` gets its code in orange."""
    widths = [np.linalg.norm(np.subtract(t["quad"][1], t["quad"][0])) for t in tiles] or [tile_px]
    scale = tile_px / float(np.median(widths))
    out = cv2.resize(image, None, fx=scale, fy=scale,
                     interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC)
    for t in tiles:
        q = np.round(np.array(t["quad"]) * scale).astype(np.int32)
        colour = (0, 0, 255) if t.get("partial") else (0, 200, 0)
        cv2.polylines(out, [q], True, colour, 2, cv2.LINE_AA)
        cv2.line(out, tuple(q[0]), tuple(q[1]), (255, 0, 255), 5, cv2.LINE_AA)
        label = t["code"] + ("?" if t.get("doubt") else "")
        at = q.mean(axis=0).astype(int) + np.array([-tile_px // 4, tile_px // 2])
        size = tile_px / 150
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, size, 2)
        cv2.rectangle(out, (at[0] - 3, at[1] - th - 5), (at[0] + tw + 3, at[1] + 5), (0, 0, 0), -1)
        cv2.putText(out, label, tuple(at), cv2.FONT_HERSHEY_SIMPLEX, size,
                    (0, 165, 255) if t.get("doubt") else (255, 255, 255), 2, cv2.LINE_AA)
        r, c = t.get("grid", ("", ""))
        at = q.mean(axis=0).astype(int) + np.array([-tile_px // 4, -tile_px // 3])
        cv2.putText(out, f"{r},{c}", tuple(at),
                    cv2.FONT_HERSHEY_SIMPLEX, size * 0.5, (255, 0, 0), 1, cv2.LINE_AA)
    return out


# ---------------------------------------------------------------- command line

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=None,
                        help="the shared data folder (default: ../shared/data or $RIICHI_SHARED_DATA)")
    parser.add_argument("--out", type=Path, default=LABELS, help="the labels file to write")
    parser.add_argument("--draw", type=Path, metavar="DIR",
                        help="write each photo with its labels drawn here")
    parser.add_argument("--proposals-only", action="store_true",
                        help="leave the corrections out (to see what the proposer got wrong)")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; say where the labels made now differ from --out "
                             "(after a change to the proposer or to the shipped classifier)")
    parser.add_argument("photos", nargs="*", help="only these photos (default: all; writes no file)")
    args = parser.parse_args(argv)

    data = args.data or shared_data_dir()
    if data is None or not (data / PHOTOS).is_dir():
        print(f"no Camerash photos under {data or '../shared/data'} (set --data or RIICHI_SHARED_DATA)",
              file=sys.stderr)
        return 2
    unknown = [p for p in args.photos if p not in LAYOUTS]
    if unknown:
        print(f"no layout for {', '.join(unknown)}; known: {', '.join(sorted(LAYOUTS))}", file=sys.stderr)
        return 2
    from vision.reading.classifier import TileClassifier

    matcher, classifier = CropMatcher(data), TileClassifier(threads=1)
    photos, total, changes, disagree = [], 0, [], 0
    for photo in args.photos or sorted(LAYOUTS, key=photo_order):
        image = cv2.imread(str(data / PHOTOS / photo))
        proposals = propose(data, photo, matcher, classifier)
        if args.proposals_only:
            tiles = [{"quad": p.quad, "code": p.code, "grid": list(p.grid),
                      **({"partial": True} if p.partial else {}),
                      "match": p.match, "similarity": round(p.similarity, 3), "classifier": p.classifier,
                      "confidence": round(p.confidence, 3)}
                     for p in proposals]
            changed = []
        else:
            tiles, changed = apply_corrections(photo, proposals)
        split = sum(1 for p in proposals if p.match != p.classifier)
        total, changes, disagree = total + len(tiles), changes + changed, disagree + split
        print(f"{photo:8s} {len(tiles):4d} tiles, {sum('partial' in t for t in tiles):2d} partial, "
              f"{len(changed):3d} corrected by hand; crops and classifier differ on {split}")
        photos.append({"file": photo, "size": [image.shape[1], image.shape[0]], "set": photo_set(photo),
                       "tiles": tiles})
        if args.draw:
            args.draw.mkdir(parents=True, exist_ok=True)
            doubts = {tuple(p.grid) for p in proposals if p.match != p.classifier}
            shown = [dict(t, doubt=tuple(t["grid"]) in doubts) for t in tiles]
            cv2.imwrite(str(args.draw / (photo.rsplit(".", 1)[0] + ".png")), draw(image, shown))
    kinds = ", ".join(f"{changes.count(k)} {k}" for k in ("code", "turn", "quad", "partial", "drop")
                      if k in changes)
    print(f"{total} tiles in {len(photos)} photos; {len(changes)} corrected by hand ({kinds or 'none'}); "
          f"crops and classifier differ on {disagree}")
    about = dict(ABOUT, corrected=f"{len(changes)} of {total} tiles ({kinds or 'none'})")
    labels = {"about": about, "photos": photos}
    if args.check:
        if not args.out.is_file():
            print(f"no labels at {args.out} to check against", file=sys.stderr)
            return 2
        old = json.loads(args.out.read_text())
        if args.photos:
            old = dict(old, photos=[p for p in old["photos"] if p["file"] in args.photos])
        found = differences(old, labels)
        print("\n".join(found) if found else f"same labels as {args.out}")
        return 1 if found else 0
    if not args.photos:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(dumps(labels))
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
