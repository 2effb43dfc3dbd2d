"""Ponds of touching solid tiles in the calibrated top-down view, at every phase of the finder's grid.

    python bench/solid_ponds.py [--finder M] [--dark-finder M | --one-finder] [--tables 6] [--shifts 12]
                                [--out bench/results/solid_ponds.json]

Discards at a real table lie edge to edge, and the finder reads the calibrated view on a grid
of 4 of its pixels, so one rendered table tests one placement only (see
:mod:`testkit.solid_ponds`). This bench draws ``--tables`` tables of solid tiles
(:class:`vision.synthesis.solid_table.SolidTable`, table tops the finder never trained on) with
four ponds of 4 to 14 discards, some with a riichi tile, in both of the art's styles, and reads
each view moved by 0 to ``--shifts``-1 pixels (a third of that down).

Per tile, as a referee reads a pond: ``found_once`` (one box on it, none more), ``turned_right``
(found once and lying as it lies: across for a riichi tile, upright for the others, as its
seat sees it) and ``named`` (turned right and named right by the shipped classifier);
``missed``, ``found_twice``; ``false_boxes``: boxes in the ponds' zones on no tile, and of
them ``false_faces``, those the classifier names a tile's face (not "none" or face down): the
ones the tracker would take for discards. ``ponds_all_right``: the share of ponds (at one shift) whose
every tile is turned right and named, with no false box in the view. All of it per style under
``by_style``. The dark-faced sets are read with the finder for dark faces, as a table whose
config says ``[camera] finder = "dark"`` reads its set (``--dark-finder M``; ``--one-finder``
reads them with ``--finder``, as a table not told); ``--finder M`` sets the one for the ivory
sets.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._finders import style_finders  # noqa: E402
from bench._results import write_results  # noqa: E402
from testkit.solid_ponds import measure  # noqa: E402


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--finder", type=Path, default=None,
                   help="the finder model for the ivory sets (default: the shipped eight-bit one, "
                        "as the table runs)")
    p.add_argument("--dark-finder", type=Path, default=None,
                   help="the finder model for the dark-faced sets (default: the shipped one for dark faces)")
    p.add_argument("--one-finder", action="store_true",
                   help="read the dark-faced sets with --finder too")
    p.add_argument("--tables", type=int, default=6)
    p.add_argument("--shifts", type=int, default=12)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    from referee.errors import RefereeError
    from vision.reading.classifier import TileClassifier

    try:
        finders = style_finders(args.finder, args.dark_finder, args.one_finder)
    except RefereeError as exc:
        raise SystemExit(f"solid_ponds: {exc}")
    t0 = time.monotonic()
    result = measure(finders, TileClassifier(threads=1), args.tables, args.shifts, args.seed)
    finder, dark = finders["Regular"], finders["Black"]
    result.update(finder=str(finder.model_path), dark_finder=str(dark.model_path), tables=args.tables,
                  shifts=args.shifts, seed=args.seed, wall_s=round(time.monotonic() - t0, 1))
    print(f"ponds of touching solid tiles, {result['tiles']} tile sightings "
          f"({args.tables} tables x 2 styles x {args.shifts} shifts): found once {result['found_once']:.4f}, "
          f"turned right {result['turned_right']:.4f}, named {result['named']:.4f}; "
          f"missed {result['missed']}, found twice {result['found_twice']}, "
          f"false boxes {result['false_boxes']} ({result['false_faces']} read as a face); "
          f"ponds all right {result['ponds_all_right']:.4f} of {result['ponds']}")
    write_results("solid_ponds", result, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
