"""Tile faces written in other hands: man tiles and the red dragon set in fonts.

The shipped art is one set's drawing, and the classifier learns that set's brush. Real sets
write 九, 發 or 中 in other hands (the labelled photos' Hong Kong sets read 九 as 四 or 五
until enrolled), so for training only, :class:`Calligraphy` sets those characters in the CJK
fonts of the machine (Noto Sans and Serif CJK in regular and bold, each in its Japanese,
Chinese and Korean forms, from Debian's ``fonts-noto-cjk``), laid out as a tile prints them:
the number over a red 萬, 中 in red. The result has the art's own format (BGRA
in 0..1 at the art's size), so the renderer paints, warps and colours it as it does the art.

The winds and 發 are left to the art, and five is written 五, never the Hong Kong 伍:
fine-tuning the shipped model on font-written winds and fives as well made it read real 西 as
南 and real sou birds as man tiles (Camerash crops 0.948 -> 0.926), where man and dragons
alone raised both real figures (labelled tiles 0.941 -> 0.949, Camerash 0.948 -> 0.952: of
the labelled 9m, 23 of 47 were misread, then 7), though more sou were misread, as man
(34 -> 41: the 1s birds of other sets, which no font draws). 發 was written too until a model
trained from scratch with it read ten black 北 of the labelled photos as 發: a font's 發 is a
dark, dense character in any hand, and no font wrote the 北 beside it.

``honours=True`` writes every character tile instead: the winds (black, navy or blue, as
riichi and Hong Kong sets print them) and 發 in green as well. A net that sees only man tiles
and 中 written in fonts can learn that a font's hand means one of those, so a real wind in
another hand leans to them; with every character written, no hand points to a kind. The
folders of brush fonts Debian packs (``BRUSH_FONT_DIRS``) write them as tile makers do, with
a brush, where Noto's are printed type.

``birds`` draws the 1s too, with the bird of the Unicode mahjong tile 🀐 (U+1F010) as a
symbol font draws it (``BIRD_FONTS``: Symbola's wren and Noto Sans Symbols 2's bird on a
branch, close to the Hong Kong sets'), the tile's frame cut away, in one or two inks. The
birds of real sets are drawings no character font has; a net that sees every other tile
written in other hands and the bird only as the art draws it takes a bird it does not know
for a character.

``dragons`` draws the Hong Kong sets' picture dragons too: half the red and green dragons a
font draws are the dragon 🐉 (U+1F409) as Symbola draws it (``DRAGON_FONTS``; no other font
Debian packs has one), a silhouette or its outline, mirrored, lying or stood up, in red for 中
and green for 發. No font draws the Hong Kong dragons themselves; the net is to learn that a
red or green picture of a beast is a dragon, where it took them for a red five or the bird.

The shipped reader was trained so (the training's defaults): every character tile written in
Noto and the brush fonts, the bird drawn, and the red 5m left to the art, whose written red
characters had made a Hong Kong picture red dragon a sure red five (vision/README.md, "Every
character tile written in other hands").

Pillow draws the glyphs (the ``train`` extra); nothing here runs at the table.
"""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from referee.errors import RefereeError

#: Where Debian's fonts-noto-cjk puts its fonts.
DEFAULT_FONT_DIR = Path("/usr/share/fonts/opentype/noto")
#: Brush hands Debian packs, each with every character of :data:`CHARACTERS` and the winds and
#: 發 (``apt install fonts-kouzan-mouhitsu fonts-aoyagi-soseki fonts-arphic-ukai
#: fonts-cwtex-kai fonts-lxgw-wenkai fonts-klee``): Japanese brush (Kouzan, Aoyagi Soseki),
#: Chinese regular script (UKai, cwTeX Kai, LXGW WenKai) and a pen (Klee). Kouzan's cursive
#: face is left out: its 萬 is a scribble no tile prints.
BRUSH_FONT_DIRS = tuple(Path("/usr/share/fonts/truetype") / name for name in (
    "kouzan-mouhitsu/kouzan-mouhitsu.ttf", "kouzan-mouhitsu/kouzan-mouhitsu-gyosho.ttf",
    "aoyagi-soseki", "arphic", "cwtex", "lxgw-wenkai/LXGWWenKai-Regular.ttf",
    "lxgw-wenkai/LXGWWenKai-Bold.ttf", "klee/KleeOne-SemiBold.ttf"))
#: Symbol fonts Debian packs that draw the mahjong tiles, for the 1s bird (``apt install
#: fonts-symbola fonts-noto-core``).
BIRD_FONTS = (Path("/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf"),
              Path("/usr/share/fonts/truetype/noto/NotoSansSymbols2-Regular.ttf"))
#: The mahjong tile whose drawing is the bird: one of bamboos.
_BIRD = "\U0001F010"
#: Symbol fonts Debian packs that draw a dragon (🐉, U+1F409), for the picture dragons
#: (``apt install fonts-symbola``; Noto Sans Symbols 2 has none).
DRAGON_FONTS = (BIRD_FONTS[0],)
_DRAGON = "\U0001F409"
#: Of the red and green dragons a font draws, the share drawn as a picture, not written.
PICTURE_SHARE = 0.5
#: Faces used of a font collection: the Mono faces that follow are the same strokes.
FACES_PER_COLLECTION = 5

_NUMERALS = dict(zip("123456789", "一二三四五六七八九"))
_WORDS = {"7z": "中"}
#: The honours written too with ``honours=True``.
_HONOURS = {"1z": "東", "2z": "南", "3z": "西", "4z": "北", "6z": "發", "7z": "中"}
#: The characters a face may be written with.
CHARACTERS = "一二三四五六七八九萬" + "".join(_WORDS.values())
#: ... and with the honours.
ALL_CHARACTERS = CHARACTERS + "東南西北發"

# Ink (BGR, 0..1) a set prints each part in: black or navy numbers, red 萬 and 中.
_DARK = ((0.08, 0.08, 0.08), (0.35, 0.12, 0.05), (0.45, 0.2, 0.1))
_RED = ((0.15, 0.1, 0.75), (0.2, 0.15, 0.85))
# Winds: black or navy as riichi sets print them, or the brighter blue of Hong Kong sets.
_WIND = _DARK + ((0.6, 0.3, 0.08), (0.7, 0.4, 0.15))
_GREEN = ((0.2, 0.45, 0.1), (0.3, 0.55, 0.15), (0.15, 0.35, 0.05))


def labels_written(honours: bool = False, birds: bool = False,
                   dragons: bool = False) -> tuple[str, ...]:
    """The tile codes written in fonts: the man tiles and the red dragon, with ``honours``
    the winds and 發 too, with ``birds`` the 1s, with ``dragons`` 發 (drawn, if not written)."""
    return (tuple(f"{n}m" for n in "1234567890") + tuple(_HONOURS if honours else _WORDS)
            + (("6z",) if dragons and not honours else ()) + (("1s",) if birds else ()))


def font_files(places) -> list[Path]:
    """The font files (.ttc, .otf, .ttf) of ``places``: folders (their files, sorted) and files.
    A place that is not there stops it, in one line naming it: a recipe that silently lost a
    font would train another reader."""
    files = []
    for place in places:
        place = Path(place)
        if not place.exists():
            raise RefereeError(f"no font file or folder {place} (see "
                               f"vision.synthesis.calligraphy for the Debian packages)")
        files += [place] if place.is_file() else sorted(
            p for p in place.glob("*") if p.suffix.lower() in (".ttc", ".otf", ".ttf"))
    return files


class Calligraphy:
    """Glyph masks of :data:`CHARACTERS` in every font face found in ``font_dir``.

    ``font_dir``: a folder of CJK fonts (.ttc, .otf or .ttf), a font file, or a list of
    them; each font must have every character it is to write. ``size``: the pixel size glyphs
    are rasterised at, before they are fitted to a face. ``honours``: write the winds and 發
    as well as the man tiles and 中 (see the module doc). ``birds``: symbol fonts (folders
    or files) whose mahjong tile 🀐 draws the 1s bird; none leaves the 1s to the art.
    ``dragons``: symbol fonts whose 🐉 draws the picture dragons (:data:`PICTURE_SHARE` of
    the red and green dragons); none writes them only.
    """

    def __init__(self, font_dir=DEFAULT_FONT_DIR, size: int = 96, honours: bool = False,
                 birds=(), dragons=()):
        try:
            from PIL import ImageFont
        except ImportError:
            raise RefereeError("calligraphy needs Pillow: pip install 'riichi-referee[train]'")
        places = [font_dir] if isinstance(font_dir, (str, Path)) else list(font_dir)
        files = font_files(places)
        if not files:
            raise RefereeError(f"no fonts in {', '.join(map(str, places))} "
                               f"(Debian: apt install fonts-noto-cjk)")
        self.honours = honours
        self.words = _HONOURS if honours else _WORDS
        characters = ALL_CHARACTERS if honours else CHARACTERS
        #: What the fonts are, for a cache's name: the files, and whether honours are written.
        self.files = [str(p) for p in files]
        self.faces: list[dict[str, np.ndarray]] = []
        for path in files:
            for index in range(FACES_PER_COLLECTION if path.suffix.lower() == ".ttc" else 1):
                try:
                    font = ImageFont.truetype(str(path), size, index=index)
                except OSError:
                    break
                glyphs = {}
                for ch in characters:
                    glyphs[ch] = _glyph(font, ch, size)
                    if glyphs[ch] is None:
                        raise RefereeError(f"{path} (face {index}) has no glyph for {ch}")
                self.faces.append(glyphs)
        bird_files = font_files(birds)
        self.birds = [_bird(path, size * 2) for path in bird_files]
        self.files += [str(p) for p in bird_files]
        dragon_files = font_files(dragons)
        self.dragons = [_picture(path, _DRAGON, size * 2) for path in dragon_files]
        self.files += [str(p) for p in dragon_files]

    def art(self, rng: np.random.Generator, label: str, size: tuple[int, int]) -> np.ndarray | None:
        """The face of ``label`` written in a font picked by ``rng``: BGRA float32 in 0..1 of
        ``size`` (w, h), or None for a tile left to the art (pin, sou, winds, haku)."""
        if label not in labels_written(self.honours, bool(self.birds), bool(self.dragons)):
            return None
        w, h = size
        out = np.zeros((h, w, 4), np.float32)
        if label == "1s":
            # one ink, or two meeting across the bird (a green body, a red head)
            inks = [np.asarray(ink) for ink in (_GREEN + _RED + _WIND)]
            a, b = (inks[i] for i in rng.integers(len(inks), size=2))
            _place(out, self.birds[rng.integers(len(self.birds))], (0.05, 0.05, 0.95, 0.95), a, rng)
            turn = rng.uniform(0, 2 * np.pi)
            ys, xs = np.mgrid[0:h, 0:w]
            ramp = ((xs / w - 0.5) * np.cos(turn) + (ys / h - 0.5) * np.sin(turn))[..., None]
            mix = np.clip(ramp * rng.uniform(2, 6) + 0.5, 0, 1) if rng.random() < 0.6 else 0.0
            out[..., :3] = out[..., :3] * (1 - mix) + b * mix
            return out
        if label in ("6z", "7z") and self.dragons and rng.random() < PICTURE_SHARE:
            inks = _RED if label == "7z" else _GREEN
            _place(out, _pictured(rng, self.dragons[rng.integers(len(self.dragons))]),
                   (0.04, 0.04, 0.96, 0.96), np.asarray(inks[rng.integers(len(inks))]), rng)
            return out
        if label == "6z" and not self.honours:
            return None     # drawn with dragons, but 發 is written only with the honours
        glyphs = self.faces[rng.integers(len(self.faces))]
        dark = np.asarray(_DARK[rng.integers(len(_DARK))])
        if label.endswith("m"):
            n = "5" if label[0] == "0" else label[0]
            numeral = _NUMERALS[n]
            red = np.asarray(_RED[rng.integers(len(_RED))])
            # The number over 萬; the split between them moves from set to set.
            split = rng.uniform(0.4, 0.5)
            _place(out, glyphs[numeral], (0.0, 0.0, 1.0, split), red if label[0] == "0" else dark, rng)
            _place(out, glyphs["萬"], (0.0, split + 0.02, 1.0, 1.0), red, rng)
        else:
            inks = _RED if label == "7z" else _GREEN if label == "6z" else _WIND
            ink = np.asarray(inks[rng.integers(len(inks))])
            _place(out, glyphs[self.words[label]], (0.0, 0.05, 1.0, 0.95), ink, rng)
        return out


def _glyph(font, ch: str, size: int) -> np.ndarray | None:
    """``ch`` drawn by ``font`` (Pillow, at ``size`` px) as a mask in 0..1 cut to its ink, or
    None where the font lacks it: it then draws nothing, or its "missing" box, which must not
    be learned as a character."""
    from PIL import Image, ImageDraw

    img = Image.new("L", (size * 2, size * 2), 0)
    ImageDraw.Draw(img).text((size // 2, size // 2), ch, fill=255, font=font)
    mask = np.asarray(img, np.float32) / 255.0
    ys, xs = np.nonzero(mask > 0.1)
    if len(ys) == 0 or bytes(font.getmask(ch)) == bytes(font.getmask("\ue000")):
        return None
    return mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def _bird(path: Path, size: int) -> np.ndarray:
    """The bird of the mahjong tile 🀐 in the symbol font at ``path``, its tile frame cut away:
    a glyph mask as :class:`Calligraphy` keeps them."""
    mask = _picture(path, _BIRD, size)
    # The frame is the rows and columns inked nearly across; cut inside it and its round corners.
    h, w = mask.shape
    rows = np.nonzero((mask > 0.5).mean(axis=1) > 0.6)[0]
    cols = np.nonzero((mask > 0.5).mean(axis=0) > 0.6)[0]
    top = rows[rows < h // 2].max(initial=0) + h // 25
    bottom = rows[rows > h // 2].min(initial=h) - h // 25
    left = cols[cols < w // 2].max(initial=0) + w // 25
    right = cols[cols > w // 2].min(initial=w) - w // 25
    inner = mask[top:bottom, left:right]
    ys, xs = np.nonzero(inner > 0.1)
    if len(ys) == 0:
        raise RefereeError(f"{path}: the mahjong tile {_BIRD} (U+1F010) has nothing inside its frame")
    return inner[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def _picture(path: Path, ch: str, size: int) -> np.ndarray:
    """The picture ``ch`` draws in the symbol font at ``path``, as a glyph mask."""
    from PIL import ImageFont

    mask = _glyph(ImageFont.truetype(str(path), size), ch, size)
    if mask is None:
        raise RefereeError(f"{path} draws no {ch} (U+{ord(ch):04X})")
    return mask


def _pictured(rng, mask: np.ndarray) -> np.ndarray:
    """A picture as another set might draw it: a silhouette or its outline, mirrored or not,
    lying as the font draws it or stood up (the Hong Kong sets' dragons rise up the tile)."""
    if rng.random() < 0.5:
        mask = mask[:, ::-1]
    turn = rng.integers(3)
    if turn:
        mask = np.rot90(mask, 1 if turn == 1 else -1)
    if rng.random() < 0.5:
        # an outline drawing: the silhouette less its inside
        width = max(2, int(min(mask.shape) * rng.uniform(0.03, 0.07)))
        inside = cv2.erode(mask, np.ones((width, width), np.uint8))
        mask = np.clip(mask - inside, 0.0, 1.0)
    return np.ascontiguousarray(mask, np.float32)


def _place(out: np.ndarray, glyph: np.ndarray, box, ink, rng) -> None:
    """Fit ``glyph`` into the fractional ``box`` (x0, y0, x1, y1) of ``out``, keeping most of
    its aspect (a tile's character is a little taller or wider in some sets), in ``ink``."""
    h, w = out.shape[:2]
    bw, bh = (box[2] - box[0]) * w, (box[3] - box[1]) * h
    gh, gw = glyph.shape
    aspect = gw / gh * rng.uniform(0.85, 1.2)
    fit = min(bw / (aspect * gh), bh / gh) * rng.uniform(0.85, 1.0)
    nh, nw = max(2, int(gh * fit)), max(2, int(gh * fit * aspect))
    nw = min(nw, int(bw))
    # Area resampling overshoots 1 by a rounding error; the renderer takes alpha as 0..1.
    g = np.clip(cv2.resize(glyph, (nw, nh), interpolation=cv2.INTER_AREA), 0.0, 1.0)
    x0 = int(box[0] * w + (bw - nw) / 2)
    y0 = int(box[1] * h + (bh - nh) / 2)
    region = out[y0:y0 + nh, x0:x0 + nw]
    a = np.maximum(region[..., 3], g[:region.shape[0], :region.shape[1]])
    region[..., :3] = np.where(g[:region.shape[0], :region.shape[1], None] > region[..., 3:4],
                               ink, region[..., :3])
    region[..., 3] = a
