"""``riichi-referee enroll``: teach the table the tournament's own tile set.

``riichi-referee enroll --sheet sheet.pdf`` writes the printable sheet
(:mod:`vision.enrollment.sheet`),
one A3 page; ``--paper a4`` writes it as two A4 pages, both in the PDF (or, for an image
name, ``sheet-1.png`` and ``sheet-2.png``; :mod:`vision.printout`). Photograph them apart or
side by side; enrollment waits for both.
``riichi-referee enroll PHOTO... --config table.toml`` (or ``--source picamera`` for a frame
from the table camera) reads every place of the sheet in each photo, checks it, fits the set
(:mod:`vision.reading.adapt`) and saves it beside the config (:mod:`vision.reading.tileset`).
Several photos
under different light teach more than one. Each problem is one line (a marker not found, an
empty place, something that is not a tile, two places whose tiles look alike, two tiles that
read as each other's places) and nothing is saved until there is none. A set without red
fives leaves their three places empty (``--no-red-fives``; where the config's ruleset plays
without them, the sheet says which the set is), and the table never reads a five of it as a
red one.
``riichi-referee enroll --clear --config table.toml`` returns to the shipped model.
Enrolling a set whose faces are dark with light ink (:mod:`vision.reading.dark_faces`), it
says to read it with the finder for dark faces (``[camera] finder = "dark"``) unless the
config already does.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from referee.errors import RefereeError
from referee.tiles import is_red
from vision.reading.adapt import features, normalise_rows
from vision.reading.classifier import softmax

from .sheet import A4_PAGES, pages_in, place_caption, read_sheet, sheet_markers

#: Two places whose tiles are this alike (cosine of their features, centred on the sheet) hold,
#: most likely, two tiles of one kind. Measured on rendered sheets of sets the model knows:
#: tiles of different kinds stay below 0.3, two tiles of one kind above 0.93.
ALIKE = 0.9
#: A tile the shipped model reads as another place's code this surely, while that place's
#: tile reads as this one's, has likely been swapped with it.
SWAPPED = 0.9


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
            found = sheet_markers(image, layout)    # once for the photo
            pages = [layout] if layout is not None else pages_in(image, where, found)
            # a page whose markers are only partly seen is in the photo: its problem is the
            # markers, said below, not that no photo shows it
            seen += [page for page in pages if page not in seen]
            readings = [r for page in pages for r in read_sheet(image, page, where, found)]
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
    """The :class:`~vision.reading.tileset.TileSet` the photos teach, or the problems (one line each)
    and no set. ``red_fives``: whether the set has them (see :func:`read_photos`).
    ``second``: the second-opinion model, which the set is fitted for too."""
    from vision.reading.tileset import TileSet

    reading = read_photos(photos, base, layout, red_fives)
    if reading.problems or not reading.crops:
        if not reading.problems:
            reading.problems.append("no photo to enroll from")
        return None, reading
    return TileSet.fit(base, reading.crops, reading.labels, name, reading.photos,
                       red_fives=reading.red_fives, second=second), reading


