"""``riichi-referee enroll``: teach the table the tournament's own tile set.

``riichi-referee enroll --sheet sheet.pdf`` writes the printable sheet (:mod:`vision.sheet`),
one A3 page; ``--paper a4`` writes it as two A4 pages, both in the PDF (or, for an image
name, ``sheet-1.png`` and ``sheet-2.png``; :mod:`vision.printout`). Photograph them apart or
side by side; enrollment waits for both.
``riichi-referee enroll PHOTO... --config table.toml`` (or ``--source picamera`` for a frame
from the table camera) reads every place of the sheet in each photo, checks it, fits the set
(:mod:`vision.adapt`) and saves it beside the config (:mod:`vision.tileset`). Several photos
under different light teach more than one. Each problem is one line (a marker not found, an
empty place, something that is not a tile, two places whose tiles look alike, two tiles that
read as each other's places) and nothing is saved until there is none. A set without red
fives leaves their three places empty (``--no-red-fives``; where the config's ruleset plays
without them, the sheet says which the set is), and the table never reads a five of it as a
red one.
``riichi-referee enroll --clear --config table.toml`` returns to the shipped model.
"""
from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from referee.errors import RefereeError
from referee.tiles import is_red

from .adapt import features, normalise_rows
from .classifier import softmax
from .sheet import A4_PAGES, PAPERS, pages_in, place_caption, read_sheet

#: Two places whose tiles are this alike (cosine of their features, centred on the sheet) hold,
#: most likely, two tiles of one kind. Measured on rendered sheets of sets the model knows:
#: tiles of different kinds stay below 0.3, two tiles of one kind above 0.93.
ALIKE = 0.9
#: A tile the shipped model reads as another place's code this surely, while that place's
#: tile reads as this one's, has likely been swapped with it.
SWAPPED = 0.9
#: Exit status when the enrollment has problems (nothing saved).
EXIT_PROBLEMS = 1


@dataclass
class Enrollment:
    """What the photos gave: one crop and code per place per photo, and the problems."""

    crops: list[np.ndarray] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    photos: list[str] = field(default_factory=list)
    model_right: int = 0   # enrolled crops the model alone reads right
    red_fives: bool = True   # the set has them


def base_code(code: str) -> str:
    """A place's code with a red five as its plain five (``back`` stays ``back``)."""
    return "5" + code[1] if code[0] == "0" else code


def alike_pairs(feats: np.ndarray) -> list[tuple[int, int, float]]:
    """Pairs of places whose tiles look like one kind: in the features centred on the sheet's
    mean (what all tiles of a set share is taken out), each is the other's nearest, at least
    :data:`ALIKE` alike, and at least twice as near as to any other place. A set the model
    cannot tell apart (every tile alike) raises none: only a pair that stands out does."""
    if len(feats) < 3:
        return []
    g = normalise_rows(feats - feats.mean(axis=0))
    sims = g @ g.T
    np.fill_diagonal(sims, -1.0)
    near = sims.argmax(axis=1)
    out = []
    for i, j in enumerate(near):
        if i < j and near[j] == i and sims[i, j] >= ALIKE:
            others = np.delete(np.maximum(sims[i], sims[j]), [i, j])
            if 1 - sims[i, j] <= 0.5 * (1 - others.max()):
                out.append((i, int(j), float(sims[i, j])))
    return out


def look_alike(where: str, codes: list[str], feats: np.ndarray) -> list[str]:
    """Two places whose tiles look like one kind (a red five and its plain five may)."""
    out = []
    for i, j, sim in alike_pairs(feats):
        if base_code(codes[i]) == base_code(codes[j]):
            continue
        out.append(f"{where}: places {place_caption(codes[i])} and {place_caption(codes[j])} "
                   f"hold tiles that look alike (likeness {sim:.2f}): is one of them in the "
                   "wrong place?")
    return out


def swapped(where: str, codes: list[str], read: list[str], sure: np.ndarray) -> list[str]:
    """Two tiles the model surely reads as each other's places."""
    at = {c: i for i, c in enumerate(codes)}
    out = []
    for i, c in enumerate(codes):
        j = at.get(read[i])
        if j is not None and j > i and read[j] == c and min(sure[i], sure[j]) >= SWAPPED:
            out.append(f"{where}: the tile in place {place_caption(c)} reads as "
                       f"{place_caption(codes[j])} and the one in place "
                       f"{place_caption(codes[j])} as {place_caption(c)}: are they swapped?")
    return out


def missing_pages(seen: list) -> list[str]:
    """The A4 pages no photo showed (none when the A3 sheet was)."""
    if not seen or any(page.pages == 1 for page in seen):
        return []
    out = []
    for page in A4_PAGES:
        if page not in seen:
            codes = page.codes
            out.append(f"{page.name} (places {place_caption(codes[0])} to "
                       f"{place_caption(codes[-1])}) is in no photo: photograph it with its "
                       "tiles too")
    return out


def read_photos(photos: list[tuple[str, np.ndarray]], base, layout=None,
                red_fives: bool | None = True) -> Enrollment:
    """Read the sheet in every photo ``(name, image)`` and check it with the model ``base``:
    ``layout``, one page; by default whatever pages each photo shows, and with the A4 sheet
    both of its pages must be in the photos between them. ``red_fives``: True, the set has
    red fives, each on its place; False, it has none and their places stay empty (a tile
    there is a problem); None, the sheet says: red fives laid, or their places all empty."""
    out = Enrollment()
    seen = []
    red_empty: list[str] = []   # problems, unless the set has no red fives
    for where, image in photos:
        try:
            pages = [layout] if layout is not None else pages_in(image, where)
            # a page whose markers are only partly seen is in the photo: its problem is the
            # markers, said below, not that no photo shows it
            seen += [page for page in pages if page not in seen]
            readings = [r for page in pages for r in read_sheet(image, page, where)]
        except RefereeError as exc:
            out.problems.append(str(exc))
            continue
        out.photos.append(where)
        tiles = []
        for r in readings:
            what = place_caption(r.place.code)
            red = is_red(r.place.code)
            if r.status == "empty" and red and red_fives is not False:
                red_empty.append(f"{where}: place {what} is empty" + (
                    " (a set without red fives: enroll with --no-red-fives)" if red_fives
                    else " (lay it, or leave all three red fives' places empty for a set "
                         "without them)"))
            elif r.status == "empty" and red:
                continue
            elif r.status == "empty":
                out.problems.append(f"{where}: place {what} is empty")
            elif red and red_fives is False:
                out.problems.append(f"{where}: place {what} holds a tile, but --no-red-fives "
                                    "says the set has none: leave the place empty")
            elif r.status == "not_a_tile":
                out.problems.append(f"{where}: place {what} holds something smaller than a "
                                    f"tile ({r.cover:.0%} of the place): lay the tile flat in "
                                    "the middle of its place")
            else:
                tiles.append(r)
        if not tiles:
            continue
        logits, feats, _ = features(base, [r.crop for r in tiles])
        codes = [r.place.code for r in tiles]
        p = softmax(logits)
        read = [base.labels[k] for k in p.argmax(axis=1)]
        out.problems += look_alike(where, codes, feats)
        out.problems += swapped(where, codes, read, p.max(axis=1))
        out.model_right += sum(1 for c, r in zip(codes, read) if c == r)
        out.crops += [r.crop for r in tiles]
        out.labels += codes
    out.red_fives = red_fives if red_fives is not None else \
        any(is_red(code) for code in out.labels)
    if out.red_fives:
        out.problems += red_empty
    if layout is None:
        out.problems += missing_pages(seen)
    return out


def enroll(photos: list[tuple[str, np.ndarray]], base, name: str, layout=None,
           red_fives: bool | None = True, second=None):
    """The :class:`~vision.tileset.TileSet` the photos teach, or the problems (one line each)
    and no set. ``red_fives``: whether the set has them (see :func:`read_photos`).
    ``second``: the second-opinion model, which the set is fitted for too."""
    from .tileset import TileSet

    reading = read_photos(photos, base, layout, red_fives)
    if reading.problems or not reading.crops:
        if not reading.problems:
            reading.problems.append("no photo to enroll from")
        return None, reading
    return TileSet.fit(base, reading.crops, reading.labels, name, reading.photos,
                       red_fives=reading.red_fives, second=second), reading


def set_has_red_fives(args) -> tuple[bool | None, str]:
    """Whether the set being enrolled has red fives (None: the sheet says), and why:
    ``--no-red-fives``; else, where the table config's ruleset plays without them (EMA 2016,
    WRC), the sheet, since such a tournament's sets mostly have none but may; else yes."""
    if args.no_red_fives:
        return False, "--no-red-fives"
    config = Path(args.config)
    if config.is_file():
        from referee.config import load_config
        from referee.rulesets import get_ruleset

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
    parser.add_argument("--config", default=os.environ.get("RIICHI_CONFIG", "table.toml"),
                        help="the table config the set is saved beside (default $RIICHI_CONFIG "
                             "or ./table.toml)")
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


def run(args) -> int:
    from .printout import Page, write_pages
    from .sheet import render_sheet
    from .tileset import NO_EMBEDDING, clear_config, now_text, save_to_config

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
    from .sources import read_image
    for p in args.photos:
        photos.append((p, read_image(p)))
    if args.source:
        from .calibrate_cli import _first_frame
        photos.append((args.source, _first_frame(args.source)))
    if not photos:
        raise RefereeError("give PHOTO(s) of the sheet with the tiles on it, --source, "
                           "--sheet or --clear")
    from .tileset import base_model, second_base
    base = base_model(args.config, args.model)
    second = second_base(args.config, args.model, enrolled=True)   # the set being enrolled
    if not base.has_embedding:
        print(f"note: {NO_EMBEDDING}", file=sys.stderr)
    t0 = time.monotonic()
    name = args.name or f"set enrolled {now_text()[:16].replace('T', ' ')}"
    red_fives, why = set_has_red_fives(args)
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
    if args.dry_run:
        return 0
    target = save_to_config(tileset, Path(args.config))
    print(f"tile set saved: {target} ([camera] tileset in {args.config})")
    return 0
