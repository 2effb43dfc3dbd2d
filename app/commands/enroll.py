"""``riichi-referee enroll``: teach the table the tournament's own tile set.

Prints the enrollment sheet (``--sheet``), or reads photos of it with one tile of each kind
laid on it and stores the set beside the table's config (:mod:`vision.enrollment.enroll`)."""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from referee.errors import RefereeError
from vision.enrollment.enroll import enroll
from vision.enrollment.sheet import PAPERS
from vision.reading.dark_faces import dark_faces

#: Exit status when the enrollment has problems (nothing saved).
EXIT_PROBLEMS = 1


def set_has_red_fives(args) -> tuple[bool | None, str]:
    """Whether the set being enrolled has red fives (None: the sheet says), and why:
    ``--no-red-fives``; else, where the table config's ruleset plays without them (EMA 2016,
    WRC), the sheet, since such a tournament's sets mostly have none but may; else yes."""
    if args.no_red_fives:
        return False, "--no-red-fives"
    config = Path(args.config)
    if config.is_file():
        from referee.rulesets import get_ruleset
        from table.config import load_config

        name = load_config(config).ruleset
        try:
            ruleset = get_ruleset(name) if name is not None else None
        except RefereeError as exc:
            raise RefereeError(f"config {config}: [service] ruleset: {exc}") from None
        if ruleset is not None and not ruleset.red_fives:
            return None, f"their places are empty; ruleset {name} in {config} plays without them"
    return True, ""


def add_arguments(parser) -> None:
    parser.add_argument("photos", nargs="*", metavar="PHOTO",
                        help="photos of the sheet with one tile of each kind on it, from the "
                             "table camera (several under different light teach more)")
    parser.add_argument("--config", default=None,
                        help="the table config the set is saved beside (default $RIICHI_CONFIG, "
                             "else ./table.toml, which must be there)")
    parser.add_argument("--sheet", metavar="FILE",
                        help="write the printable sheet here: a .pdf prints at true size (with "
                             "--paper a4, both pages in it); an image, e.g. .png, is one file "
                             "a page (with --paper a4, FILE-1.png and FILE-2.png)")
    parser.add_argument("--paper", choices=sorted(PAPERS), default="a3",
                        help="the sheet on one A3 page (default) or two A4 pages")
    parser.add_argument("--dpi", type=int, default=300, help="the sheet's resolution (300)")
    parser.add_argument("--source", help="take the photo from a camera source instead "
                                         "(picamera, cam:N, a video, a folder)")
    parser.add_argument("--name", help="the set's name on the dashboard (default: the date)")
    parser.add_argument("--model", help="the .onnx tile model (default: the config's, else "
                                        "the shipped one)")
    parser.add_argument("--clear", action="store_true",
                        help="forget the enrolled set: back to the shipped model")
    parser.add_argument("--no-red-fives", action="store_true",
                        help="the set has no red fives: leave their three places empty "
                             "(where the config's ruleset plays without them, empty places "
                             "say so without it)")
    parser.add_argument("--dry-run", action="store_true", help="check the photos; save nothing")


def finder_hint(crops, config: str) -> str | None:
    """What to tell the referee enrolling a set whose faces are dark, if the table's config
    does not read it with the finder for dark faces yet (the default one misses a fifth of such
    a set's pond tiles: bench/solid_ponds.py); None otherwise."""
    if not dark_faces(crops):
        return None
    camera = {}
    if Path(config).is_file():
        from vision.camera.calibration import read_config

        camera = read_config(config).get("camera", {})
    if isinstance(camera, dict) and camera.get("finder") == "dark":
        return None
    return (f'the set\'s faces are dark: put finder = "dark" under [camera] in {config}, so the '
            "table finds its tiles with the finder for dark faces")


def run(args) -> int:
    from vision.enrollment.sheet import render_sheet
    from vision.printout import Page, write_pages
    from vision.reading.tileset import (
        NO_EMBEDDING,
        clear_config,
        now_text,
        save_to_config,
    )

    # The arguments are checked before any work (a photo read, a model loaded): where the set
    # goes, and the config's ruleset.
    named = args.config or os.environ.get("RIICHI_CONFIG")
    args.config = named or "table.toml"
    reads_photos = bool(args.photos or args.source)
    if not (reads_photos or args.sheet or args.clear):
        raise RefereeError("give PHOTO(s) of the sheet with the tiles on it, --source, "
                           "--sheet or --clear")
    saves = (reads_photos and not args.dry_run) or args.clear
    if saves and not named and not Path(args.config).is_file():
        # a set saved beside a table.toml made up here would reach no table
        raise RefereeError(f"config {args.config}: no such file (name the table's config with "
                           "--config, or RIICHI_CONFIG: the set is saved beside it)")
    red_fives, why = set_has_red_fives(args) if reads_photos else (True, "")
    if args.sheet:
        layouts = PAPERS[args.paper]
        files = write_pages(args.sheet, [Page(render_sheet(page, dpi=args.dpi), page.width_mm,
                                              page.height_mm) for page in layouts],
                            "the enrollment sheet")
        for k, page in enumerate(layouts):
            target = files[k] if len(files) > 1 else files[0]   # a PDF holds every page
            orientation = "landscape" if page.width_mm > page.height_mm else "portrait"
            print(f"enrollment sheet: {target} ({page.name}, {page.paper} {orientation} at "
                  f"{args.dpi} dpi; print at 100%)")
        if not args.photos and not args.source and not args.clear:
            return 0
    if args.clear:
        removed = clear_config(args.config)
        print(f"tile set {'removed: ' + str(removed) if removed else 'none enrolled'}; "
              f"{args.config} now uses the shipped model alone")
        return 0
    photos = []
    from vision.camera.sources import read_image
    for p in args.photos:
        photos.append((p, read_image(p)))
    if args.source:
        from .calibrate import _first_frame
        photos.append((args.source, _first_frame(args.source)))
    from vision.reading.tileset import base_model, second_base
    base = base_model(args.config, args.model)
    second = second_base(args.config, args.model, enrolled=True)   # the set being enrolled
    if not base.has_embedding:
        print(f"note: {NO_EMBEDDING}", file=sys.stderr)
    t0 = time.monotonic()
    name = args.name or f"set enrolled {now_text()[:16].replace('T', ' ')}"
    tileset, reading = enroll(photos, base, name, red_fives=red_fives, second=second)
    if tileset is None:
        for line in reading.problems:
            print(f"riichi-referee enroll: {line}", file=sys.stderr)
        print(f"riichi-referee enroll: nothing saved ({len(reading.problems)} "
              f"problem{'s' if len(reading.problems) != 1 else ''})", file=sys.stderr)
        return EXIT_PROBLEMS
    seconds = time.monotonic() - t0
    n = len(reading.labels)
    print(f"enrolled {name!r}: {n} tiles from {len(reading.photos)} photo"
          f"{'s' if len(reading.photos) != 1 else ''} in {seconds:.1f} s; the model alone read "
          f"{reading.model_right} of them right"
          + (f"; fitted for {second.model_path.name} too, which reads the doubtful tiles again"
             if second is not None else ""))
    if not tileset.red_fives:
        print(f"the set has no red fives ({why}): a five is never read as a red one")
    if tileset.adaptation.look != "as_is":
        print(f"the set's crops are shown to the model {tileset.adaptation.look.replace('_', ' ')} "
              "(it reads them better so: dark faces, light ink)")
    hint = finder_hint(reading.crops, args.config)
    if hint:
        print(hint)
    if args.dry_run:
        return 0
    target = save_to_config(tileset, Path(args.config))
    print(f"tile set saved: {target} ([camera] tileset in {args.config})")
    return 0
