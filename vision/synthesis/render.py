"""Render tile crops like the camera sees them, from the public-domain FluffyStuff tile faces.

The classifier is trained and measured on these crops. A rendered crop is a physical tile seen
from above: an ivory (or, for the Black style, dark) face with rounded corners and a bevel, the
face art scaled within a margin, the side of the tile with its coloured back layer showing
where the camera sees it, lying on felt or wood, lit unevenly, perhaps with a shadow, glare or a
finger over it, then degraded like a Pi or phone camera (low resolution, blur, noise, JPEG).
Everything is drawn from a seeded ``numpy.random.Generator`` so a set of crops is reproducible.

The art is read only at training and test time (here, and by :mod:`vision.synthesis.synthetic` through
:data:`ART_STEMS` and :func:`art_dir`); the shipped model never needs it.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from referee.errors import RefereeError
from referee.tiles import TILE_CODES
from table.paths import shared_data_dir

from .calligraphy import labels_written

#: Every class the classifier tells apart: the 37 tile codes, a face-down tile, and not-a-tile.
LABELS: tuple[str, ...] = TILE_CODES + ("back", "none")

#: The two FluffyStuff styles: ivory faces with dark ink, and dark faces with light ink.
STYLES = ("Regular", "Black")

ART_STEMS: dict[str, str] = {
    **{f"{n}{s}": f"{name}{n}" for s, name in (("m", "Man"), ("p", "Pin"), ("s", "Sou"))
       for n in range(1, 10)},
    "0m": "Man5-Dora", "0p": "Pin5-Dora", "0s": "Sou5-Dora",
    "1z": "Ton", "2z": "Nan", "3z": "Shaa", "4z": "Pei", "5z": "Haku", "6z": "Hatsu",
    "7z": "Chun",
}

# Art is kept at this size (w, h): big enough for the largest face we draw, small to warp fast.
_ART_SIZE = (120, 160)


def art_dir(root: Path | None = None) -> Path:
    """The folder with the ``Regular`` and ``Black`` PNG exports, or a one-line error."""
    if root is None:
        data = shared_data_dir()
        if data is None:
            raise RefereeError("tile art not found: ../shared/data is missing "
                               "(set RIICHI_SHARED_DATA to its path)")
        root = data / "tiles" / "fluffystuff" / "Export"
    root = Path(root)
    if not (root / "Regular" / "Man1.png").is_file():
        raise RefereeError(f"tile art not found in {root} (expected Regular/Man1.png)")
    return root


@dataclass
class TileArt:
    """The face art of both styles, loaded once at a working size (BGRA float32 in 0..1)."""

    root: Path | None = None
    faces: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)
    backs: dict[str, np.ndarray] = field(default_factory=dict)
    #: Fonts to write character faces in besides the art (training only; see
    #: :mod:`vision.synthesis.calligraphy`); None draws the art alone, as every default render does.
    calligraphy: object | None = None
    #: The least share of a face's width and height that a varied character face's art may
    #: be printed across (training only; see :func:`_paint_art`); None keeps the art's own
    #: range. Pins and bamboos keep theirs: sets lay them out to fill the face.
    smallest_print: float | None = None

    def __post_init__(self):
        root = art_dir(self.root)
        for style in STYLES:
            self.faces[style] = {code: _load(root / style / f"{stem}.png")
                                 for code, stem in ART_STEMS.items()}
            self.backs[style] = _load(root / style / "Back.png")


def _load(path: Path) -> np.ndarray:
    """The art at ``path`` at the working size, an array of the caller's own."""
    try:
        stat = path.stat()
    except OSError:
        raise RefereeError(f"{path}: not a BGRA PNG") from None
    return _decoded(str(path), stat.st_mtime_ns, stat.st_size).copy()


@functools.lru_cache(maxsize=4 * len(ART_STEMS))
def _decoded(path: str, mtime_ns: int, size: int) -> np.ndarray:
    # Decoding the full-size PNGs is most of a TileArt's 0.6 s of CPU, and a process that
    # renders (a training run, the test suite) makes one TileArt after another from the same
    # files; keyed by the file's time and size, so art changed on disk is read again.
    im = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    if im is None or im.ndim != 3 or im.shape[2] != 4:
        raise RefereeError(f"{path}: not a BGRA PNG")
    return cv2.resize(im, _ART_SIZE, interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0


# --- colours ---------------------------------------------------------------------------------

# Background families: hue ranges (OpenCV 0..180) of felt, and wood tones. The held-out set uses
# other hues and other wood so that accuracy there is not accuracy on memorised tables.
_FELT = {
    "train": [(35, 85), (100, 125), (170, 180), (0, 8)],
    "holdout": [(85, 100), (128, 165), (10, 25)],
}
_WOOD = {
    "train": [((40, 80, 140), (20, 50, 95)), ((60, 110, 170), (35, 70, 120))],
    "holdout": [((30, 60, 110), (15, 35, 70)), ((90, 150, 200), (60, 110, 160))],
}

# Tile back colours (BGR) seen on real sets: yellow, orange, blue, green, red, pink, purple,
# teal, tan. Black backs are left out: seen from above with no side showing, a black back is a
# Black-style blank white dragon, and no one, camera or referee, can tell them apart.
_BACKS = [(40, 200, 240), (30, 140, 240), (160, 90, 30), (60, 140, 40), (40, 40, 200),
          (170, 120, 240), (140, 60, 110), (200, 160, 60), (20, 90, 160)]


def _jitter(rng, colour, amount=25):
    return np.clip(np.asarray(colour, np.float32) + rng.uniform(-amount, amount, 3), 0, 255)


def _back_colour(rng) -> np.ndarray:
    """A tile back's colour, jittered but kept clearly coloured (HSV saturation >= 0.45).

    A washed-out back (a pale pink, say) is an ivory face under a warm light, so a back is
    only drawn in a colour that a face never takes."""
    while True:
        c = _jitter(rng, _BACKS[rng.integers(len(_BACKS))], 30)
        if c.max() - c.min() >= 0.45 * c.max():
            return c


def _ivory(rng) -> np.ndarray:
    # Ivory, cream, bone or bluish white; real faces are never pure white under hall light.
    base = np.array([rng.uniform(200, 245), rng.uniform(215, 250), rng.uniform(225, 252)])
    return np.clip(base + rng.uniform(-8, 8), 0, 255).astype(np.float32)


def _hsv_colour(rng, hue_range, s=(60, 200), v=(40, 160)) -> np.ndarray:
    hsv = np.uint8([[[rng.uniform(*hue_range) % 180, rng.uniform(*s), rng.uniform(*v)]]])
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


# --- backgrounds -----------------------------------------------------------------------------

def background(rng, h: int, w: int, family: str = "train") -> np.ndarray:
    """A table surface patch, float32 BGR 0..255: felt (fibre noise), wood (grain) or plastic.

    ``family``: ``"train"`` or ``"holdout"`` tables (disjoint felt hues and wood), or
    ``"backlike"``: felt and plastic the colour of some set's tile backs (on training wood), so
    that training shows bare table of every back colour and the net must find a tile's body,
    not its colour, to call it ``back``.
    """
    kind = rng.choice(["felt", "felt", "wood", "plain"])
    if family == "backlike":
        if kind == "wood":
            family = "train"
        else:
            colour = _back_colour(rng)
            fibre = cv2.GaussianBlur(_noise(rng, (h, w)), (0, 0), 0.8)
            amount = 0.08 if kind == "felt" else rng.uniform(0.0, 0.03)
            img = colour[None, None] * (1 + amount * fibre[..., None])
            return np.clip(img + 3 * _noise(rng, (h, w, 3)), 0, 255)
    if kind == "felt":
        colour = _hsv_colour(rng, _FELT[family][rng.integers(len(_FELT[family]))])
        fibre = cv2.GaussianBlur(_noise(rng, (h, w)), (0, 0), 0.8)
        img = colour[None, None] * (1 + 0.08 * fibre[..., None])
    elif kind == "wood":
        light, dark = (np.array(c, np.float32) for c in _WOOD[family][rng.integers(2)])
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        angle = rng.uniform(0, np.pi)
        t = xx * np.cos(angle) + yy * np.sin(angle)
        warp = cv2.resize(_noise(rng, (h // 8 + 2, w // 8 + 2)), (w, h)) * 25
        grain = 0.5 + 0.5 * np.sin((t + warp) * rng.uniform(0.15, 0.6) * (2 if family == "holdout" else 1))
        img = dark * grain[..., None] + light * (1 - grain[..., None])
    else:
        grey = rng.uniform(30, 220)
        img = np.full((h, w, 3), grey, np.float32) + rng.uniform(-15, 15, 3)
    return np.clip(img + 3 * _noise(rng, (h, w, 3)), 0, 255)


@functools.cache
def _noise_bank() -> np.ndarray:
    # drawn when first used, not on import: the table service and the demo import this module
    # for the art's names and never draw noise, and the bank is 3 MB
    return np.random.default_rng(20240611).standard_normal((512, 512, 3), dtype=np.float32)


def _noise(rng, shape) -> np.ndarray:
    """Unit normal noise: a random window of a fixed bank (drawing fresh noise is the slow part)."""
    h, w = shape[:2]
    if h > 512 or w > 512:
        return rng.standard_normal(shape, dtype=np.float32)
    y, x = rng.integers(0, 513 - h), rng.integers(0, 513 - w)
    win = _noise_bank()[y:y + h, x:x + w]
    if rng.random() < 0.5:
        win = win[::-1]
    return win[..., 0] if len(shape) == 2 else win


# --- the tile body ---------------------------------------------------------------------------

_CORNER = np.deg2rad(np.linspace(0, 90, 5))
_CORNER_ANGLES = np.concatenate([_CORNER + np.deg2rad(a0) for a0 in (-90, 0, 90, 180)])
_CORNER_SIGNS = np.repeat(np.float32([[1, -1], [1, 1], [-1, 1], [-1, -1]]), 5, axis=0)
_UNIT = np.stack([np.cos(_CORNER_ANGLES), np.sin(_CORNER_ANGLES)], 1).astype(np.float32)


def _rounded_rect(x, y, w, h, r) -> np.ndarray:
    centre = np.float32([x + w / 2, y + h / 2])
    half = np.float32([w / 2 - r, h / 2 - r])
    return centre + _CORNER_SIGNS * half + r * _UNIT


def _fill(canvas, poly, colour, shift=4):
    cv2.fillPoly(canvas, [np.round(poly * (1 << shift)).astype(np.int32)], colour.tolist(),
                 lineType=cv2.LINE_AA, shift=shift)


def _face_image(rng, art: TileArt, label: str, fw: int, fh: int,
                varied: bool = False, styles: tuple[str, ...] = STYLES,
                dark: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The top of the tile, (fh, fw) float32 BGR, and the side colour under it (face layer).

    ``varied`` draws other sets' designs than the art's own (see :func:`_vary_face`).
    ``styles``: the FluffyStuff styles it may be drawn in (both: Regular 85% of the time).
    ``dark``: the face of a set with dark faces and light ink, drawn as the Regular face with
    its lightness turned over (:func:`turn_lightness`) before light falls on it."""
    if dark:
        top, layer = _face_image(rng, art, label, fw, fh, varied, ("Regular",))
        if label == "back":
            return top, turn_lightness(layer)
        return turn_lightness(top), turn_lightness(layer)
    style = STYLES[0] if rng.random() < 0.85 else STYLES[1]
    if style not in styles:
        style = styles[0]   # the same draws either way, so the default stays reproducible
    if label == "back":
        return _back_image(rng, art, fw, fh)
    face_colour = _ivory(rng) if style == "Regular" else np.full(3, rng.uniform(15, 60), np.float32)
    face = np.empty((fh, fw, 3), np.float32)
    face[:] = face_colour
    if varied:
        _vary_face(rng, art, face, face_colour, label, style)
        return face, face_colour
    if style == "Regular" and label in ("5z",) and rng.random() < 0.3:
        # Some sets frame the white dragon; a blank is still the common riichi design.
        m = rng.uniform(0.14, 0.22)
        ink = _hsv_colour(rng, (95, 125), (120, 255), (60, 160))
        p = _rounded_rect(fw * m, fh * m, fw * (1 - 2 * m), fh * (1 - 2 * m), fw * 0.05)
        _fill(face, p, ink)
        m2 = m + rng.uniform(0.03, 0.06)
        p = _rounded_rect(fw * m2, fh * m2, fw * (1 - 2 * m2), fh * (1 - 2 * m2), fw * 0.03)
        _fill(face, p, face_colour)
    src = art.faces[style][label]
    _paint_art(rng, face, src, style)
    return face, face_colour


#: Of the character faces drawn in other sets' designs, the share written in a font rather than
#: bent from the art, when the art carries fonts (:attr:`TileArt.calligraphy`).
CALLIGRAPHY_SHARE = 0.5

#: The tiles whose face is a character (or two): the man tiles, the winds, 發 and 中, the
#: codes the fonts write. Sets print these at many sizes, some half the face across with a
#: wide margin.
CHARACTER_TILES = labels_written(honours=True)

#: Corner indices that Hong Kong and Western sets print on their tiles, by tile code.
_INDEX = {"1z": "E", "2z": "S", "3z": "W", "4z": "N", "5z": "BPW", "6z": "FGC", "7z": "CRZ"}


def turn_lightness(img: np.ndarray) -> np.ndarray:
    """``img`` (float BGR 0..255) with each pixel's lightness turned over and its colour kept:
    every channel moves by ``255 - 2 x luma``, so ivory becomes near black, dark ink light,
    and a red five stays red."""
    luma = img @ np.float32([0.114, 0.587, 0.299])
    return np.clip(img + (255 - 2 * luma)[..., None], 0, 255).astype(np.float32)


def _vary_face(rng, art: TileArt, face, face_colour, label: str, style: str) -> None:
    """Paint ``label`` as another set might print it, for training only.

    The art is one set's drawing; real sets differ in calligraphy and decoration, and the
    net must not lean on this set's exact strokes: the glyph is bent by a smooth random warp,
    the white dragon is framed in many designs (blue, black or green, one to three rings,
    sometimes a character or ornament inside, as on Hong Kong sets), and some tiles carry a
    small corner index (E, S, W, N, a number...) as Hong Kong and Western sets do.
    """
    fh, fw = face.shape[:2]
    if style == "Regular" and label == "5z" and rng.random() < 0.5:
        _dragon_frame(rng, art, face, face_colour)
    else:
        src = None
        # Dark faces are Black's: its light ink is the art's, not a font's.
        if art.calligraphy is not None and style == "Regular" and rng.random() < CALLIGRAPHY_SHARE:
            src = art.calligraphy.art(rng, label, _ART_SIZE)
        if src is None:
            src = art.faces[style][label]
        _paint_art(rng, face, _warp_art(rng, src), style,
                   art.smallest_print if label in CHARACTER_TILES else None)
    if rng.random() < 0.2:
        text = _INDEX.get(label) or ("5" if label[0] == "0" else label[0])
        ch = text[rng.integers(len(text))]
        ink = (_jitter(rng, (40, 40, 190), 30) if rng.random() < 0.5
               else _hsv_colour(rng, (95, 125), (120, 255), (40, 140)) if rng.random() < 0.5
               else np.full(3, rng.uniform(10, 60), np.float32))
        if style == "Black":
            ink = 255 - ink * 0.5
        scale = fw / 110 * rng.uniform(0.7, 1.1)
        x = int(fw * rng.uniform(0.04, 0.1)) if rng.random() < 0.5 else int(fw * rng.uniform(0.72, 0.8))
        y = int(fh * rng.uniform(0.1, 0.16))
        mask = np.zeros((fh, fw), np.uint8)  # putText draws on 8-bit images only
        cv2.putText(mask, ch, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, 255,
                    max(1, int(round(fw / 40))), cv2.LINE_AA)
        a = mask.astype(np.float32)[..., None] / 255
        face[:] = face * (1 - a) + ink * a


def _dragon_frame(rng, art: TileArt, face, face_colour) -> None:
    """A framed white dragon of one of many designs, painted on ``face``."""
    fh, fw = face.shape[:2]
    hue = rng.choice([110.0, 110.0, 60.0, -1.0])
    ink = (np.full(3, rng.uniform(15, 60), np.float32) if hue < 0
           else _hsv_colour(rng, (hue - 12, hue + 12), (120, 255), (50, 160)))
    m = rng.uniform(0.1, 0.24)
    for _ in range(int(rng.integers(1, 4))):  # rings
        t = rng.uniform(0.025, 0.07)
        outer = _rounded_rect(fw * m, fh * m * 0.8, fw * (1 - 2 * m), fh * (1 - 1.6 * m), fw * 0.05)
        _fill(face, outer, ink)
        inner = _rounded_rect(fw * (m + t), fh * (m * 0.8 + t * 0.8), fw * (1 - 2 * (m + t)),
                              fh * (1 - 1.6 * (m + t)), fw * 0.03)
        _fill(face, inner, face_colour)
        m += t + rng.uniform(0.02, 0.06)
        if m > 0.36:
            break
    r = rng.random()
    if r < 0.3:
        # A character inside the frame, as on the Hong Kong white dragons (a small glyph of
        # another tile stands in for it; it must not turn the tile into that tile).
        other = art.faces["Regular"][rng.choice(["1z", "2z", "3z", "4z", "6z", "7z", "1m", "2m"])]
        inside = face[int(fh * (m + 0.02)):int(fh * (1 - m - 0.02)), int(fw * (m + 0.02)):int(fw * (1 - m - 0.02))]
        if min(inside.shape[:2]) > 6:
            _paint_art(rng, inside, _warp_art(rng, other), "Regular")
    elif r < 0.5:
        # Ornament: corner marks inside the frame.
        for cx in (m + 0.04, 1 - m - 0.04):
            for cy in (m * 0.8 + 0.04, 1 - m * 0.8 - 0.04):
                cv2.circle(face, (int(cx * fw), int(cy * fh)), max(1, int(fw * 0.03)), ink.tolist(), -1,
                           cv2.LINE_AA)


def _warp_art(rng, src: np.ndarray) -> np.ndarray:
    """The art bent by a smooth random displacement (a few pixels), as another hand drew it."""
    h, w = src.shape[:2]
    amp = rng.uniform(1.5, 5.0)
    coarse = rng.standard_normal((2, 4, 3)).astype(np.float32)
    dx = cv2.resize(coarse[0], (w, h), interpolation=cv2.INTER_CUBIC) * amp
    dy = cv2.resize(coarse[1], (w, h), interpolation=cv2.INTER_CUBIC) * amp
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    # A shear or slant as well: calligraphy leans differently between sets.
    shear = rng.uniform(-0.12, 0.12)
    return cv2.remap(src, xx + dx + shear * (yy - h / 2), yy + dy, cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_CONSTANT, borderValue=0)


def _paint_art(rng, face, src, style, smallest: float | None = None):
    """``src`` painted onto ``face``, scaled, inked and placed as one set among many prints it.
    ``smallest``: half the time the art is printed smaller, down to this share of the face
    (some sets print a character half the face across, with a wide margin); None keeps the
    art's own range, and draws no more from ``rng``."""
    fh, fw = face.shape[:2]
    # Scale the art within a margin, each axis on its own: sets differ in how big they print.
    sx, sy = rng.uniform(0.72, 0.95), rng.uniform(0.74, 0.95)
    if smallest is not None and rng.random() < 0.5:
        k = rng.uniform(min(1.0, smallest / 0.72), 1.0)
        sx, sy = sx * k, sy * k
    aw, ah = max(4, int(fw * sx)), max(4, int(fh * sy))
    a = cv2.resize(src, (aw, ah), interpolation=cv2.INTER_AREA)
    rgb, alpha = a[..., :3].copy(), a[..., 3].copy()
    # Stroke weight: thinner or bolder ink than the drawing.
    k = rng.integers(-1, 2) if aw > 40 else 0
    if k:
        ker = np.ones((2, 2), np.uint8)
        alpha = cv2.dilate(alpha, ker) if k > 0 else cv2.erode(alpha, ker)
        if k > 0:
            rgb = cv2.erode(rgb, ker)  # spread the ink colour into the grown stroke
    rgb = _shift_ink(rng, rgb, style)
    if rng.random() < 0.3:
        alpha = cv2.GaussianBlur(alpha, (0, 0), rng.uniform(0.3, 0.8))
    ox = int(round((fw - aw) / 2 + rng.uniform(-0.04, 0.04) * fw))
    oy = int(round((fh - ah) / 2 + rng.uniform(-0.04, 0.04) * fh))
    ox, oy = int(np.clip(ox, 0, fw - aw)), int(np.clip(oy, 0, fh - ah))
    region = face[oy:oy + ah, ox:ox + aw]
    region[:] = region * (1 - alpha[..., None]) + rgb * 255 * alpha[..., None]


def _shift_ink(rng, rgb, style):
    """Move ink colours a little (hue, saturation, value), and sometimes turn black ink navy."""
    u8 = np.clip(rgb * 255, 0, 255).astype(np.uint8)
    hsv = cv2.cvtColor(u8, cv2.COLOR_BGR2HSV).astype(np.float32)
    hsv[..., 0] = (hsv[..., 0] + rng.uniform(-5, 5)) % 180
    hsv[..., 1] *= rng.uniform(0.7, 1.15)
    hsv[..., 2] *= rng.uniform(0.75, 1.1)
    out = cv2.cvtColor(np.clip(hsv, 0, 255).astype(np.uint8), cv2.COLOR_HSV2BGR).astype(np.float32)
    if style == "Regular" and rng.random() < 0.35:
        dark = (hsv[..., 2] < 90) & (hsv[..., 1] < 120)
        out[dark] = _hsv_colour(rng, (95, 125) if rng.random() < 0.7 else (40, 80),
                                (120, 255), (50, 110))
    if style == "Regular" and rng.random() < 0.3:
        # Other sets ink their pins green where these are navy, their bamboo blue, their
        # winds black... Swap the non-red inks among blue, green and black; red stays red,
        # since red is all that tells a red five from a plain one.
        chroma = hsv[..., 1] > 70
        for lo, hi in ((95, 135), (35, 90)):
            group = chroma & (hsv[..., 0] >= lo) & (hsv[..., 0] < hi)
            if rng.random() < 0.6 and group.any():
                target = rng.choice([110.0, 60.0, -1.0])
                g = hsv[group]
                if target < 0:
                    g[:, 1] *= 0.2
                    g[:, 2] *= 0.5
                else:
                    g[:, 0] = target + rng.uniform(-8, 8)
                patch = cv2.cvtColor(np.clip(g, 0, 255).astype(np.uint8)[None], cv2.COLOR_HSV2BGR)[0]
                out[group] = patch.astype(np.float32)
    return out / 255.0


def _back_image(rng, art, fw, fh):
    r = rng.random()
    if r < 0.25:
        style = STYLES[0] if rng.random() < 0.7 else STYLES[1]
        src = art.backs[style]
        img = cv2.resize(src[..., :3], (fw, fh), interpolation=cv2.INTER_AREA) * 255
        # Recolour the red back to any back colour, keeping its shading.
        lum = img.mean(axis=2, keepdims=True) / max(1.0, img.mean())
        img = lum * _back_colour(rng)[None, None]
    else:
        img = np.empty((fh, fw, 3), np.float32)
        img[:] = _back_colour(rng)
    return np.clip(img, 0, 255), _ivory(rng)


def draw_tile(rng, canvas, art, label, x, y, fw, fh, side, back_colour=None, varied=False,
              styles=STYLES, dark=False):
    """Draw a tile whose top face has its corner at (x, y) on ``canvas`` (float32 BGR).

    ``side`` is the (dx, dy) offset, in pixels, at which the bottom of the tile shows past its
    top, as a camera off to one side sees it; the layer nearest the top is face-coloured, the
    rest is the coloured back. ``varied``: the face in other sets' designs (training only).
    ``styles``: the art styles the face may be drawn in. ``dark``: a set with dark faces and
    light ink (see :func:`_face_image`).
    """
    top, layer = _face_image(rng, art, label, fw, fh, varied, styles, dark)
    if back_colour is None:
        back_colour = _back_colour(rng)
    if label == "back":
        layer, back_colour = _jitter(rng, top.reshape(-1, 3).mean(0), 10), layer
    r = fw * rng.uniform(0.08, 0.18)
    split = rng.uniform(0.35, 0.7)
    steps = max(2, int(np.hypot(*side)) + 1)
    ts = np.linspace(1.0, 0.0, steps)
    # every step's outline at once, as _rounded_rect and _fill work each out (the same sums
    # in the same types): a crop draws some twenty, and numpy's calls were most of their time
    centres = np.stack([x + side[0] * ts + fw / 2, y + side[1] * ts + fh / 2], 1).astype(np.float32)
    half = np.float32([fw / 2 - r, fh / 2 - r])
    outlines = centres[:, None] + _CORNER_SIGNS * half + r * _UNIT
    outlines = np.round(outlines * (1 << 4)).astype(np.int32)
    for t, outline in zip(ts, outlines):
        colour = (back_colour if t > split else layer) * (0.7 + 0.15 * t)
        cv2.fillPoly(canvas, [outline], colour.tolist(), lineType=cv2.LINE_AA, shift=4)
    # The top: a bevel darkens its rim and a soft light gradient crosses it.
    mask = np.zeros((fh, fw), np.float32)
    _fill(mask, _rounded_rect(0, 0, fw, fh, r), np.array([1.0]))
    bevel = cv2.GaussianBlur(mask, (0, 0), max(1.0, fw * rng.uniform(0.03, 0.08)))
    shade = (1 - rng.uniform(0.1, 0.35)) + rng.uniform(0.1, 0.35) * bevel
    top = top * shade[..., None]
    x0, y0 = int(round(x)), int(round(y))
    H, W = canvas.shape[:2]
    xa, ya, xb, yb = max(0, x0), max(0, y0), min(W, x0 + fw), min(H, y0 + fh)
    if xa >= xb or ya >= yb:
        return
    m = mask[ya - y0:yb - y0, xa - x0:xb - x0, None]
    region = canvas[ya:yb, xa:xb]
    region[:] = region * (1 - m) + top[ya - y0:yb - y0, xa - x0:xb - x0] * m


# --- light, occlusion and camera -------------------------------------------------------------

def _light(rng, img, harsh=False):
    h, w = img.shape[:2]
    return lit(img, light_steps(rng, h, w, harsh))


def light_steps(rng, h: int, w: int, harsh: bool = False) -> list[tuple[str, np.ndarray]]:
    """The light :func:`_light` casts on an ``h`` x ``w`` picture: a falloff, maybe a shadow
    and a glare, as steps for :func:`lit` (``("times", field)`` or ``("plus", field)``). The
    same generator state gives the same light: a still table under one light (a
    :class:`~vision.synthesis.solid_table.SolidTable`'s frames) works it out once, and the
    shadow's wide blur is most of a frame's time."""
    steps = []
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    a = rng.uniform(0, 2 * np.pi)
    g = (xx * np.cos(a) + yy * np.sin(a)) / max(h, w)
    steps.append(("times", (1 + rng.uniform(-0.35, 0.35) * (g - g.mean()))[..., None]))
    if rng.random() < 0.35:  # a shadow: a hand, a player, the camera arm
        mask = np.zeros((h, w), np.float32)
        pts = rng.uniform([-0.3 * w, -0.3 * h], [1.3 * w, 1.3 * h], (rng.integers(3, 6), 2))
        cv2.fillPoly(mask, [pts.astype(np.int32)], 1.0)
        mask = cv2.GaussianBlur(mask, (0, 0), rng.uniform(1, 0.12 * w))
        steps.append(("times", (1 - rng.uniform(0.2, 0.55) * mask)[..., None]))
    if rng.random() < 0.3:  # glare of hall lights on the glossy face
        mask = np.zeros((h, w), np.float32)
        c = (int(rng.uniform(0.2, 0.8) * w), int(rng.uniform(0.2, 0.8) * h))
        ax = (int(rng.uniform(0.05, 0.25) * w) + 1, int(rng.uniform(0.03, 0.2) * h) + 1)
        cv2.ellipse(mask, c, ax, rng.uniform(0, 180), 0, 360, 1.0, -1)
        mask = cv2.GaussianBlur(mask, (0, 0), rng.uniform(1, 4))
        steps.append(("plus", (rng.uniform(60, 200) if harsh else rng.uniform(50, 160)) * mask[..., None]))
    return steps


def lit(img, steps):
    """``img`` (float, in place) under the light of :func:`light_steps`."""
    for how, field in steps:
        if how == "times":
            img *= field
        else:
            img += field
    return img


def _skin(rng, img, mask):
    """Paint skin, a little rounded by shading, where ``mask`` (float, 0..1) is set."""
    skin = _jitter(rng, rng.choice([(120, 160, 215), (90, 130, 190), (60, 90, 140), (150, 185, 230)]), 20)
    mask = cv2.GaussianBlur(mask, (0, 0), 1.2)
    shade = 0.75 + 0.25 * cv2.GaussianBlur(mask, (0, 0), max(1.0, img.shape[1] * 0.08))
    img[:] = img * (1 - mask[..., None]) + (skin * shade[..., None]) * mask[..., None]
    return img


def _finger(rng, img, cover=(0.1, 0.35)):
    """A fingertip over part of the crop, coming in from an edge ``cover`` of the way."""
    h, w = img.shape[:2]
    mask = np.zeros((h, w), np.float32)
    edge = rng.integers(4)
    depth = rng.uniform(*cover)
    cx = rng.uniform(0.2, 0.8) * w
    cy = rng.uniform(0.2, 0.8) * h
    if edge == 0:
        cy = -h * (0.5 - depth)
    elif edge == 1:
        cy = h * (1.5 - depth)
    elif edge == 2:
        cx = -w * (0.5 - depth)
    else:
        cx = w * (1.5 - depth)
    axes = (int(w * rng.uniform(0.15, 0.3)) + 1, int(h * 0.5) + 1)
    if edge >= 2:
        axes = (int(w * 0.5) + 1, int(h * rng.uniform(0.12, 0.25)) + 1)
    cv2.ellipse(mask, (int(cx), int(cy)), axes, rng.uniform(-25, 25), 0, 360, 1.0, -1)
    return _skin(rng, img, mask)


def _hand(rng, img, x, y, fw, fh):
    """A hand over the tile whose top is at (x, y), (fw, fh): the back of the hand hides the
    face (only its corners may show) and the wrist or fingers run off to an edge of the crop.

    Labelled ``none``, so it must really hide the tile: a hand that leaves the face readable
    would teach the net to call a readable tile nothing."""
    h, w = img.shape[:2]
    mask = np.zeros((h, w), np.float32)
    cx = x + fw * (0.5 + rng.uniform(-0.12, 0.12))
    cy = y + fh * (0.5 + rng.uniform(-0.12, 0.12))
    axes = (int(fw * rng.uniform(0.58, 0.85)) + 1, int(fh * rng.uniform(0.58, 0.85)) + 1)
    cv2.ellipse(mask, (int(cx), int(cy)), axes, rng.uniform(-20, 20), 0, 360, 1.0, -1)
    # The arm: a band from the palm to a random edge of the canvas.
    a = rng.uniform(0, 2 * np.pi)
    far = (cx + np.cos(a) * 2 * max(w, h), cy + np.sin(a) * 2 * max(w, h))
    cv2.line(mask, (int(cx), int(cy)), (int(far[0]), int(far[1])), 1.0,
             int(min(fw, fh) * rng.uniform(0.8, 1.2)))
    return _skin(rng, img, mask)


def camera(rng, img: np.ndarray, harsh: bool = False) -> np.ndarray:
    """Degrade a clean float crop like a Pi or phone camera; returns uint8 BGR.

    ``harsh`` adds more noise and lower JPEG quality (see :func:`render_crop`)."""
    # Each step works in place on the float64 copy the first makes (the caller's picture is
    # left alone): the same operations in the same order as fresh arrays would give, without
    # a full-frame temporary per step (a camera frame is 29 MB of float64).
    img = np.multiply(img, rng.uniform(0.9, 1.1, 3)[None, None])  # white balance, exposure
    img *= rng.uniform(0.6, 1.25)
    np.clip(img, 0, 255, out=img)
    if rng.random() < 0.5:
        gamma = rng.uniform(0.7, 1.4)
        img /= 255
        np.power(img, gamma, out=img)
        img *= 255
    if rng.random() < 0.3:  # saturation change: cheap sensors and phone processing differ
        grey = img.mean(axis=2, keepdims=True)
        img -= grey
        img *= rng.uniform(0.6, 1.4)
        img += grey
    r = rng.random()
    if r < 0.4:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.3))
    elif r < 0.55:  # motion blur of a hand-moved tile
        k = int(rng.integers(3, 6))
        ker = np.zeros((k, k), np.float32)
        ker[k // 2] = 1.0 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1)
        ker = cv2.warpAffine(ker, rot, (k, k))
        img = cv2.filter2D(img, -1, ker / max(ker.sum(), 1e-6))
    if rng.random() < 0.2:  # phone-style sharpening halo
        halo = cv2.GaussianBlur(img, (0, 0), 1.5)
        np.subtract(img, halo, out=halo)
        halo *= rng.uniform(0.3, 1.0)
        img += halo
    sigma = rng.uniform(0, 10 if harsh else 8)
    grain = np.clip(img, 1, 255)
    grain /= 128
    np.sqrt(grain, out=grain)
    np.multiply(_noise(rng, img.shape) * sigma, grain, out=grain)
    img += grain
    if rng.random() < 0.3:  # chroma noise, blotchy
        h, w = img.shape[:2]
        c = cv2.resize(_noise(rng, (max(1, h // 4), max(1, w // 4), 3)), (w, h)) * rng.uniform(2, 8)
        img += c
    out = np.clip(img, 0, 255, out=img).astype(np.uint8)
    if rng.random() < 0.7:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(25 if harsh else 35, 95))])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


# --- crops -----------------------------------------------------------------------------------

#: How far (of the canvas) a fingertip on a tile's edge reaches in; see render_crop.
_FINGERTIP = (0.28, 0.36)

#: Tiles with a blank top: half of one looks like a whole one.
_BLANK = ("5z", "back")


def _cut_label(rng) -> str:
    """The tile a badly cut ``none`` crop shows part of: any tile but a blank one, since half a
    white dragon or half a back is read, by eye as by the net, as the whole tile."""
    while True:
        lab = LABELS[rng.integers(0, 38)]
        if lab not in _BLANK:
            return lab


def render_crop(art: TileArt, label: str, rng: np.random.Generator, *,
                backgrounds: str = "train", harsh: bool = False,
                styles: tuple[str, ...] = STYLES, dark_faces: float = 0.0,
                hard_views: float = 0.0) -> np.ndarray:
    """One crop of ``label`` (a tile code, ``"back"`` or ``"none"``) as the detector cuts it.

    Returns uint8 BGR, the tile roughly filling it in any of the four 90-degree orientations and
    at a camera-like resolution (a tile 28 to 80 pixels wide). ``backgrounds`` is ``"train"`` or
    ``"holdout"``: disjoint table colours and wood, so a held-out set shows other tables.
    ``"backlike"`` (training only) lays the tile on felt the colour of a tile back.
    ``harsh``: smaller tiles (from 22 pixels), more noise and glare, worse JPEG, and faces in
    other sets' designs (warped strokes, framed white dragons, corner indices). Most training
    crops use it so the net must read tiles by their coarse shapes rather than the fine strokes
    of this one set's art; held-out sets use only the gentler default, which draws the art as
    it is. ``styles``: the art styles tiles may be drawn in (a model trained without
    ``Black`` is measured on it by ``bench/enroll.py``). ``dark_faces``: the share of crops
    whose tiles are of a set with dark faces and light ink (training only; at 0 nothing is
    drawn for it, so the default crops stay as they were). ``hard_views``: the share of crops
    seen as a phone sees a table (training only; see :func:`_hard_view`): the solid tile
    tilted 20 to 45 degrees, under warm or cold light, cut a little off-centre. At 0 nothing
    is drawn for it either.
    """
    if label not in LABELS:
        raise RefereeError(f"unknown label {label!r} (expected a tile code, 'back' or 'none')")
    dark = bool(dark_faces) and rng.random() < dark_faces
    hard = _hard_view(rng) if hard_views and rng.random() < hard_views else None
    fw = int(rng.integers(46, 62))
    fh = int(round(fw * rng.uniform(1.25, 1.42)))
    H, W = int(fh * 2.2), int(fw * 2.6)
    canvas = background(rng, H, W, backgrounds)
    side_len = fw * rng.choice([0.0, rng.uniform(0, 0.12), rng.uniform(0.05, 0.35)], p=[0.25, 0.45, 0.3])
    ang = rng.uniform(0, 2 * np.pi)
    if hard is not None:
        # Seen from the side at ``tilt``: the body shows its thickness (a riichi tile is about
        # 0.8 of its width thick) times tan(tilt) before the view squeezes it by cos(tilt).
        side_len = fw * min(0.75, 0.8 * np.tan(hard.tilt))
        ang = hard.towards
    side = (side_len * np.cos(ang), side_len * np.sin(ang))
    gap = rng.uniform(0, 0.08) * fw
    x, y = (W - fw) / 2, (H - fh) / 2
    kind = label
    if label == "none":
        kind = rng.choice(["table", "table", "partial", "partial", "between", "hand", "stick"])
    # Neighbours: ponds and hands are rows of tiles, so slivers of others show at the edges.
    back_colour = _back_colour(rng)
    nb_labels = [LABELS[i] for i in rng.integers(0, 38, 4)]
    if kind == "between":
        # Two half tiles: the crop sits on the gap between two neighbours.
        horizontal = rng.random() < 0.5
        for k, d in enumerate((-1, 1)):
            ox, oy = ((fw + gap) / 2 * d, 0) if horizontal else (0, (fh + gap) / 2 * d)
            draw_tile(rng, canvas, art, nb_labels[k], x + ox, y + oy, fw, fh, side, back_colour, harsh,
                      styles, dark)
    else:
        if rng.random() < 0.6:
            for k, (dx, dy) in enumerate(((-1, 0), (1, 0), (0, -1), (0, 1))):
                if rng.random() < 0.45:
                    draw_tile(rng, canvas, art, nb_labels[k], x + dx * (fw + gap),
                              y + dy * (fh + gap), fw, fh, side, back_colour, harsh, styles, dark)
        if kind == "partial":
            # Only a part of a tile in the crop: the detector cut one badly.
            frac = rng.uniform(0.25, 0.5)
            if rng.random() < 0.5:
                x += rng.choice([-1, 1]) * fw * (1 - frac)
            else:
                y += rng.choice([-1, 1]) * fh * (1 - frac)
        if kind in LABELS or kind == "partial" or (kind == "hand" and rng.random() < 0.7):
            lab = (kind if kind in LABELS else _cut_label(rng) if kind == "partial"
                   else LABELS[rng.integers(0, 38)])
            draw_tile(rng, canvas, art, lab, x, y, fw, fh, side, back_colour, harsh, styles, dark)
        if kind == "stick":
            _stick(rng, canvas, x + fw / 2, y + fh / 2, fw)
    canvas = _light(rng, canvas, harsh)
    quad, cut_size = _cut(rng, label, kind, (x, y, fw, fh), side, (W, H))
    if kind == "hand":
        canvas = _hand(rng, canvas, (W - fw) / 2, (H - fh) / 2, fw, fh)
    elif rng.random() < 0.15:
        # A fingertip on the tile's edge, as a player straightens it. It hides at most a fifth
        # of the top (the tile is 0.6 to 1.6 tile heights into a 2.2-high canvas): a man tile's
        # numeral is its top third, and a label that cannot be read is no label.
        canvas = _finger(rng, canvas, _FINGERTIP)
    if hard is not None:
        canvas, quad, cut_size = _see_hard(rng, hard, canvas, quad, label, (fw, fh))
    return _sample(rng, canvas, quad, cut_size, harsh)


@dataclass
class _HardView:
    """How a hard view sees the table: ``tilt`` (radians from straight down) towards
    ``towards`` (radians on the canvas), light ``cast`` as BGR gains."""

    tilt: float
    towards: float
    cast: np.ndarray


def _hard_view(rng) -> _HardView:
    """A view of the kind phone photos of real tables show and the default crops do not: the
    tile 20 to 45 degrees off straight down, under tungsten (warm: blue and green fall) or
    shade and LED (cold: red falls) light that the camera's white balance did not undo. The
    cast stays mild enough that ivory never takes a back's saturation (see
    :func:`_back_colour`): a warm-lit white dragon must not turn into a back."""
    tilt = np.deg2rad(rng.uniform(20, 45))
    warmth = rng.uniform(-1, 1)
    if warmth > 0:
        cast = np.float32([1 - 0.25 * warmth, 1 - 0.12 * warmth, 1.0])
    else:
        cast = np.float32([1.0, 1 + 0.05 * warmth, 1 + 0.15 * warmth])
    return _HardView(float(tilt), float(rng.uniform(0, 2 * np.pi)), cast)


def _see_hard(rng, hard: _HardView, canvas, quad, label: str, tile_size):
    """``canvas`` as the hard view sees it: squeezed by cos(tilt) along the tilt, the near
    side a little wider than the far (perspective), in the light's cast; and the finder's cut
    ``quad`` moved with it, then a little off-centre (blank tiles keep their rim: their cut
    only grows). Returns the canvas, the cut and the cut's size before the camera."""
    H, W = canvas.shape[:2]
    fw, fh = tile_size
    c = np.float32([W / 2, H / 2])
    along = np.float32([np.cos(hard.towards), np.sin(hard.towards)])
    across = np.float32([-along[1], along[0]])
    squeeze = np.cos(hard.tilt)
    keystone = rng.uniform(0.0, 0.12) * np.sin(hard.tilt)
    src = np.float32([c + sa * along * W + sc * across * W for sa, sc in
                      ((-1, -1), (-1, 1), (1, 1), (1, -1))])
    # the far end (towards the body's side) a little narrower than the near one
    dst = np.float32([c + sa * along * W * squeeze + sc * across * W * (1 + sa * keystone)
                      for sa, sc in ((-1, -1), (-1, 1), (1, 1), (1, -1))])
    M = cv2.getPerspectiveTransform(src, dst)
    canvas = cv2.warpPerspective(canvas, M, (W, H), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REFLECT)
    canvas *= hard.cast
    quad = cv2.perspectiveTransform(quad[None].astype(np.float32), M)[0]
    centre = quad.mean(0)
    if label in _BLANK:
        quad = centre + (quad - centre) * rng.uniform(1.0, 1.12)
    else:
        quad = quad + rng.uniform(-0.1, 0.1, 2).astype(np.float32) * np.float32([fw, fh])
    cut_w = (np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[2] - quad[3])) / 2
    cut_h = (np.linalg.norm(quad[3] - quad[0]) + np.linalg.norm(quad[2] - quad[1])) / 2
    return np.clip(canvas, 0, 255), quad.astype(np.float32), (cut_w, cut_h)


def _stick(rng, canvas, cx: float, cy: float, fw: float) -> None:
    """A riichi or point stick lying on the table, centred at (cx, cy), for tiles ``fw`` wide."""
    L, T = fw * rng.uniform(1.2, 2.0), fw * rng.uniform(0.12, 0.2)
    stick = _rounded_rect(cx - L / 2, cy - T / 2, L, T, T / 2)
    rot = cv2.getRotationMatrix2D((cx, cy), rng.uniform(0, 180), 1)
    stick = stick @ rot[:, :2].T + rot[:, 2]
    _fill(canvas, stick, _ivory(rng))
    cv2.circle(canvas, (int(cx), int(cy)), max(1, int(T / 3)),
               _jitter(rng, (40, 40, 200), 30).tolist(), -1, cv2.LINE_AA)


def _cut(rng, label: str, kind: str, tile, side, canvas_size) -> tuple[np.ndarray, tuple]:
    """Where the detector cuts the crop: the tile's top (``tile``: x, y, w, h on the canvas)
    plus a little margin (or a little cut off), in perspective. Returns the quad (TL, TR, BR,
    BL) and the cut's width and height before the perspective."""
    x, y, fw, fh = tile
    W, H = canvas_size
    sx0, sy0 = min(0, side[0]), min(0, side[1])
    sx1, sy1 = max(0, side[0]), max(0, side[1])
    inc = rng.random() < 0.5  # the detector may or may not include the visible side
    # A blank tile (back or white dragon) is cut with its rim: a crop inside one is a patch of
    # colour, which bare felt or a pale table is too, so only the body of the tile tells them
    # apart. A tile with art can be cut into; its art still says what it is.
    m = rng.uniform(0.02 if label in _BLANK else -0.08, 0.12, 4) * np.array([fw, fh, fw, fh])
    x0 = x - m[0] + (sx0 if inc else 0)
    y0 = y - m[1] + (sy0 if inc else 0)
    x1 = x + fw + m[2] + (sx1 if inc else 0)
    y1 = y + fh + m[3] + (sy1 if inc else 0)
    if kind in ("partial",):
        x0, y0, x1, y1 = (W - fw) / 2 - m[0], (H - fh) / 2 - m[1], (W + fw) / 2 + m[2], (H + fh) / 2 + m[3]
    quad = np.float32([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    quad += rng.normal(0, 0.025 * fw, quad.shape).astype(np.float32)
    c = quad.mean(0)
    rot = cv2.getRotationMatrix2D(tuple(float(v) for v in c), rng.uniform(-6, 6), 1)
    quad = (quad @ rot[:, :2].T + rot[:, 2]).astype(np.float32)
    return quad, (x1 - x0, y1 - y0)


def _sample(rng, canvas, quad: np.ndarray, cut_size, harsh: bool) -> np.ndarray:
    """The crop the camera makes of ``quad``: 22 (``harsh``) or 28 to 80 pixels wide, as high
    as the cut's shape (``cut_size``: width, height) says, through the camera, in any of the
    four orientations."""
    cut_w, cut_h = cut_size
    out_w = int(rng.integers(22 if harsh else 28, 80))
    out_h = max(8, int(round(out_w * cut_h / max(1.0, cut_w))))
    dst = np.float32([[0, 0], [out_w, 0], [out_w, out_h], [0, out_h]])
    M = cv2.getPerspectiveTransform(quad, dst)
    # Warp at 2x then shrink: an antialiased downscale like a sensor's.
    M2 = np.diag([2.0, 2.0, 1.0]).astype(np.float64) @ M
    crop = cv2.warpPerspective(canvas, M2, (out_w * 2, out_h * 2), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REFLECT)
    crop = cv2.resize(crop, (out_w, out_h), interpolation=cv2.INTER_AREA)
    crop = camera(rng, crop, harsh)
    return np.ascontiguousarray(np.rot90(crop, int(rng.integers(4))))


def render_set(art: TileArt, n_per_label: int, seed: int, *, backgrounds: str = "train",
               labels: tuple[str, ...] = LABELS,
               styles: tuple[str, ...] = STYLES) -> tuple[list[np.ndarray], list[str]]:
    """``n_per_label`` crops of every label, reproducibly from ``seed``."""
    rng = np.random.default_rng(seed)
    crops, names = [], []
    for _ in range(n_per_label):
        for lab in labels:
            crops.append(render_crop(art, lab, rng, backgrounds=backgrounds, styles=styles))
            names.append(lab)
    return crops, names
