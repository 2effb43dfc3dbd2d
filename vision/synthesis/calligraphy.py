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

Pillow draws the glyphs (the ``train`` extra); nothing here runs at the table.
"""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from referee.errors import RefereeError

#: Where Debian's fonts-noto-cjk puts its fonts.
DEFAULT_FONT_DIR = Path("/usr/share/fonts/opentype/noto")
#: Faces used of a font collection: the Mono faces that follow are the same strokes.
FACES_PER_COLLECTION = 5

_NUMERALS = dict(zip("123456789", "一二三四五六七八九"))
_WORDS = {"7z": "中"}
#: The characters a face may be written with.
CHARACTERS = "一二三四五六七八九萬" + "".join(_WORDS.values())

# Ink (BGR, 0..1) a set prints each part in: black or navy numbers, red 萬 and 中.
_DARK = ((0.08, 0.08, 0.08), (0.35, 0.12, 0.05), (0.45, 0.2, 0.1))
_RED = ((0.15, 0.1, 0.75), (0.2, 0.15, 0.85))


def labels_written() -> tuple[str, ...]:
    """The tile codes written in fonts: the man tiles and the red dragon."""
    return tuple(f"{n}m" for n in "1234567890") + tuple(_WORDS)


class Calligraphy:
    """Glyph masks of :data:`CHARACTERS` in every font face found in ``font_dir``.

    ``font_dir``: a folder of CJK fonts (.ttc, .otf or .ttf); each must have every character
    of :data:`CHARACTERS`. ``size``: the pixel size glyphs are rasterised at, before they are
    fitted to a face.
    """

    def __init__(self, font_dir: Path | str = DEFAULT_FONT_DIR, size: int = 96):
        try:
            from PIL import Image, ImageDraw, ImageFont
        except ImportError:
            raise RefereeError("calligraphy needs Pillow: pip install 'riichi-referee[train]'")
        font_dir = Path(font_dir)
        files = sorted(p for p in font_dir.glob("*") if p.suffix.lower() in (".ttc", ".otf", ".ttf"))
        if not files:
            raise RefereeError(f"no fonts in {font_dir} (Debian: apt install fonts-noto-cjk)")
        self.faces: list[dict[str, np.ndarray]] = []
        for path in files:
            for index in range(FACES_PER_COLLECTION if path.suffix.lower() == ".ttc" else 1):
                try:
                    font = ImageFont.truetype(str(path), size, index=index)
                except OSError:
                    break
                glyphs = {}
                for ch in CHARACTERS:
                    img = Image.new("L", (size * 2, size * 2), 0)
                    ImageDraw.Draw(img).text((size // 2, size // 2), ch, fill=255, font=font)
                    mask = np.asarray(img, np.float32) / 255.0
                    ys, xs = np.nonzero(mask > 0.1)
                    if len(ys) == 0:
                        raise RefereeError(f"{path} (face {index}) has no glyph for {ch}")
                    glyphs[ch] = mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
                self.faces.append(glyphs)

    def art(self, rng: np.random.Generator, label: str, size: tuple[int, int]) -> np.ndarray | None:
        """The face of ``label`` written in a font picked by ``rng``: BGRA float32 in 0..1 of
        ``size`` (w, h), or None for a tile left to the art (pin, sou, winds, haku)."""
        if label not in labels_written():
            return None
        glyphs = self.faces[rng.integers(len(self.faces))]
        w, h = size
        out = np.zeros((h, w, 4), np.float32)
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
            ink = np.asarray(_RED[rng.integers(len(_RED))])
            _place(out, glyphs[_WORDS[label]], (0.0, 0.05, 1.0, 0.95), ink, rng)
        return out


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
