"""Rendered tables: top-down and camera views of a riichi table, and a video of a hand played.

Tests, the benchmark and the demo use these instead of a camera. Tiles are drawn from the
shared FluffyStuff art (``tiles/fluffystuff/Export/Regular`` under
:func:`table.paths.shared_data_dir`); when the art is absent, plain placeholder tiles
(a coloured code on an ivory body) are drawn so everything still runs.

A scene is a list of :class:`PlacedTile` (centre in table mm, quarter turns, face code or
``"back"``) and :class:`Hand` occluders. :class:`TableState` lays out a game position (ponds,
melds, dora indicators, revealed hands) at the default zones; :func:`render_topdown` draws it
with felt, ArUco markers and uneven light; :func:`render_camera` warps that into a camera's
perspective; :func:`hand_video` plays a scripted hand and returns the frames with the events a
perfect tracker would report.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Callable

import cv2
import numpy as np

from referee.errors import RefereeError
from referee.tiles import TILE_CODES
from vision.camera.calibration import TableLayout, marker_image
from vision.camera.zones import TILE_H_MM, TILE_W_MM, to_seat
from vision.finding.felt import rotation_onto_canvas

from .render import ART_STEMS, art_dir

FELT_BGR = (58, 104, 38)
BACK_BGR = (40, 120, 220)   # a common orange-yellow back


def regular_art_dir():
    """The ``Regular`` FluffyStuff exports, or None when the shared art is absent."""
    try:
        d = art_dir() / "Regular"
    except RefereeError:
        return None
    return d if (d / "Front.png").is_file() else None


def _placeholder(code: str) -> np.ndarray:
    """A 600x800 BGRA tile with the code written on it (when the art is missing)."""
    img = np.zeros((800, 600, 4), np.uint8)
    body = BACK_BGR if code == "back" else (222, 236, 242)
    cv2.rectangle(img, (20, 20), (580, 780), (*body, 255), -1)
    if code != "back":
        colour = {"m": (30, 30, 200), "p": (160, 60, 20), "s": (40, 140, 40),
                  "z": (20, 20, 20)}[code[1]]
        cv2.putText(img, code, (90, 480), cv2.FONT_HERSHEY_SIMPLEX, 9, (*colour, 255), 40,
                    cv2.LINE_AA)
    return img


@functools.lru_cache(maxsize=None)
def tile_face(code: str) -> np.ndarray:
    """The full-size BGRA image of a tile lying face up (or its back), upright (800 x 600,
    1.9 MB; kept: ``tile_face.cache_clear()`` lets them go)."""
    d = regular_art_dir()
    if d is None:
        return _placeholder(code)
    if code == "back":
        body = cv2.imread(str(d / "Front.png"), cv2.IMREAD_UNCHANGED).copy()
        # the art's back is bright red; tint the body like a usual coloured back
        mask = body[:, :, 3] > 0
        shade = body[:, :, :3].astype(np.float32) / 245.0
        body[:, :, :3][mask] = np.clip(shade[mask] * np.array(BACK_BGR, np.float32), 0, 255)
        return body
    body = _front(d)
    face = cv2.imread(str(d / f"{ART_STEMS[code]}.png"), cv2.IMREAD_UNCHANGED)
    # The face over the body, blended in float32 only where the face is partly clear: where
    # it is opaque the blend gives the face's own bytes, where clear the body's (a is exactly
    # 1 or 0 there), and blending the whole 800 x 600 picture in floats was most of the time
    # the demo's camera spends drawing a code's first sprite (it lets the faces go each frame).
    alpha = face[:, :, 3]
    out = body.copy()
    np.copyto(out[:, :, :3], face[:, :, :3], where=(alpha == 255)[:, :, None])
    ys, xs = np.nonzero((alpha > 0) & (alpha < 255))
    a = face[ys, xs, 3:4].astype(np.float32) / 255.0
    blend = face[ys, xs, :3].astype(np.float32) * a + body[ys, xs, :3].astype(np.float32) * (1 - a)
    out[ys, xs, :3] = blend.astype(np.uint8)
    return out


@functools.lru_cache(maxsize=1)
def _front(d) -> np.ndarray:
    """The art's blank tile body (BGRA), read once: every face is drawn on it."""
    body = cv2.imread(str(d / "Front.png"), cv2.IMREAD_UNCHANGED)
    body.flags.writeable = False
    return body


@functools.lru_cache(maxsize=256)
def sized_face(code: str, w: int, h: int) -> np.ndarray:
    """:func:`tile_face` shrunk to ``w`` x ``h`` pixels (BGRA, read-only): a photo of the
    enrollment sheet lays every tile at one size, and shrinking the full-size art was a third of
    drawing it (vision.synthesis.sheet_photo)."""
    img = cv2.resize(tile_face(code), (w, h), interpolation=cv2.INTER_AREA)
    img.flags.writeable = False     # shared by every photo that lays this tile at this size
    return img


@functools.lru_cache(maxsize=2048)
def _upright_sprite(code: str, w: int, h: int) -> np.ndarray:
    """BGRA tile ``w`` x ``h`` pixels, upright, with its rim. Apart from the turns and the
    scale it is drawn at: the finder's flat training scenes draw each table at a scale of its
    own and turn tiles askew, so few sprites come again, but their sizes in whole pixels do,
    and shrinking the full-size art is most of a sprite's time."""
    img = cv2.resize(tile_face(code), (w, h), interpolation=cv2.INTER_AREA)
    # the tile's rim: a thin darker edge, as the side of a real tile seen from above
    alpha = img[:, :, 3]
    rim = cv2.subtract(alpha, cv2.erode(alpha, np.ones((3, 3), np.uint8)))
    img[:, :, :3][rim > 0] = (img[:, :, :3][rim > 0] * 0.6).astype(np.uint8)
    img.flags.writeable = False     # shared by every sprite of this size
    return img


@functools.lru_cache(maxsize=512)
def _tile_sprite(code: str, quarter_turns: int, px_per_mm: float, angle: float = 0.0) -> np.ndarray:
    """BGRA tile scaled to ``px_per_mm``, turned ``quarter_turns`` clockwise and then ``angle``
    degrees more (clockwise; a tile laid down askew)."""
    w = max(4, int(round(TILE_W_MM * px_per_mm)))
    h = max(4, int(round(TILE_H_MM * px_per_mm)))
    img = np.array(np.rot90(_upright_sprite(code, w, h), -(quarter_turns % 4)))
    if angle:
        h, w = img.shape[:2]
        m, (ow, oh) = rotation_onto_canvas(w, h, -angle)
        img = cv2.warpAffine(img, m, (ow, oh), flags=cv2.INTER_LINEAR,
                             borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    return img


@dataclass
class PlacedTile:
    """A tile on the table: ``code`` (mpsz or ``"back"``), centre ``x``, ``y`` in mm,
    ``turns``: quarter turns clockwise from upright for seat 0 (odd = lying across);
    ``angle``: degrees more, clockwise (a tile laid down askew)."""

    code: str
    x: float
    y: float
    turns: int = 0
    angle: float = 0.0


@dataclass
class Hand:
    """A player's hand and arm over the table: the hand's centre (mm), reaching in from the
    edge of ``seat``."""

    x: float
    y: float
    seat: int = 0
    radius_mm: float = 55.0


@dataclass
class TableState:
    """A game position to draw: per seat ``ponds`` (list of (code, riichi), rows of six from
    the player's left, the fourth row running on; code None leaves a tile's place empty, as a
    called tile does when the player does not close the gap), ``melds`` (list
    of (codes, called_index, added) where ``called_index`` is the sideways tile and ``added``
    a code stacked on it for a shouminkan; "back" codes are face down), ``hands`` (revealed
    concealed tiles, the last one set apart as the winning tile), ``dora`` indicators, and
    ``walls`` (draw the face-down walls)."""

    ponds: list = field(default_factory=lambda: [[], [], [], []])
    melds: list = field(default_factory=lambda: [[], [], [], []])
    hands: list = field(default_factory=lambda: [[], [], [], []])
    dora: list = field(default_factory=list)
    walls: bool = True
    size_mm: float = 800.0

    def copy(self) -> "TableState":
        return TableState([list(p) for p in self.ponds], [list(m) for m in self.melds],
                          [list(h) for h in self.hands], list(self.dora), self.walls,
                          self.size_mm)

    def tiles(self) -> list[PlacedTile]:
        s = self.size_mm
        c = s / 2
        out: list[PlacedTile] = []

        def put(seat, code, x, y, across=False):
            X, Y = to_seat(x, y, seat, s)
            out.append(PlacedTile(code, X, Y, (seat + (1 if across else 0)) % 4))

        gap = 0.6
        for seat in range(4):
            # pond: rows of six from the left, first row nearest the centre
            x, row, col = c - 80, 0, 0
            for code, riichi in self.ponds[seat]:
                w = TILE_H_MM if riichi else TILE_W_MM
                y = c + 97 + row * (TILE_H_MM + 1.0) + TILE_H_MM / 2
                if code is not None:        # None: the place of a tile called away
                    put(seat, code, x + w / 2, y, riichi)
                x += w + gap
                col += 1
                if col == 6 and row < 3:
                    x, row, col = c - 80, row + 1, 0
            # melds from the right-hand corner leftwards
            right = s - 72
            for codes, called, added in self.melds[seat]:
                widths = [TILE_H_MM if i == called else TILE_W_MM for i in range(len(codes))]
                x = right - sum(widths) - gap * (len(codes) - 1)
                right = x - 8
                for i, code in enumerate(codes):
                    w = widths[i]
                    if i == called:
                        put(seat, code, x + w / 2, s - 14 - TILE_W_MM / 2, True)
                        if added:
                            put(seat, added, x + w / 2, s - 14 - TILE_W_MM * 1.5 - gap, True)
                    else:
                        put(seat, code, x + w / 2, s - 14 - TILE_H_MM / 2)
                    x += w + gap
            # a revealed hand along the edge, the winning tile set apart
            hand = self.hands[seat]
            x = 64.0
            for i, code in enumerate(hand):
                if i == len(hand) - 1 and len(hand) > 1:
                    x += 8
                put(seat, code, x + TILE_W_MM / 2, s - 52)
                x += TILE_W_MM + gap
            if self.walls:
                for k in range(17):
                    put(seat, "back", c - 8.5 * TILE_W_MM + (k + 0.5) * (TILE_W_MM + 0.3),
                        c + 265, False)
        # the dead wall's top row (six stacks, drawn in the middle where the camera sees it
        # best): indicators face up from the second
        for k in range(6):
            code = "back"
            if 1 <= k < 1 + len(self.dora):
                code = self.dora[k - 1]
            out.append(PlacedTile(code, c - 79.5 + (k + 0.5) * (TILE_W_MM + 0.5), c, 0))
        return out


@functools.lru_cache(maxsize=4)
def _felt(size_px: tuple[int, int], seed: int) -> np.ndarray:
    # one channel at a time, the distance from the centre broadcast from a row and a column:
    # the same numbers as a whole float picture and a full grid of coordinates, which made a
    # 1600 x 1600 table's felt pass through 100 MB (the demo's memory keeps what it once held)
    w, h = size_px
    rng = np.random.default_rng(seed)
    xs = np.arange(w, dtype=np.float32)[None, :]
    ys = np.arange(h, dtype=np.float32)[:, None]
    shade = 1.1 - 0.35 * np.sqrt(((xs - w / 2) / w) ** 2 + ((ys - h / 2) / h) ** 2)
    small = rng.normal(0, 6, (h // 4 + 1, w // 4 + 1, 1)).astype(np.float32)
    grain = cv2.resize(small, (w, h))
    out = np.empty((h, w, 3), np.uint8)
    for c in range(3):
        layer = np.float32(FELT_BGR[c]) * shade
        layer += grain
        np.clip(layer, 0, 255, out=layer)
        out[:, :, c] = layer
    return out


def felt(size_px: tuple[int, int], seed: int = 0) -> np.ndarray:
    """Green felt with grain and a light falloff towards the edges, as under a hall lamp
    (three grain patterns, so frames of a video differ a little)."""
    return _felt(tuple(size_px), seed % 3).copy()


def _paste(canvas: np.ndarray, sprite: np.ndarray, cx: float, cy: float) -> None:
    h, w = sprite.shape[:2]
    x0, y0 = int(round(cx - w / 2)), int(round(cy - h / 2))
    x1, y1 = max(x0, 0), max(y0, 0)
    x2, y2 = min(x0 + w, canvas.shape[1]), min(y0 + h, canvas.shape[0])
    if x1 >= x2 or y1 >= y2:
        return
    sp = sprite[y1 - y0:y2 - y0, x1 - x0:x2 - x0]
    a = sp[:, :, 3:4].astype(np.float32) / 255.0
    region = canvas[y1:y2, x1:x2].astype(np.float32)
    canvas[y1:y2, x1:x2] = (sp[:, :, :3] * a + region * (1 - a)).astype(np.uint8)


class _Sprite:
    """A tile sprite made ready to paste often (a film pastes the same few hundred sprites
    some 40 000 times): :func:`_paste` of it, pixel for pixel, but the opaque body (98% of a
    tile) is copied and only its antialiased edge blended, with the blend's own float32
    arithmetic (an opaque pixel blends to itself, a clear one to the table under it)."""

    def __init__(self, sprite: np.ndarray):
        self.sprite = sprite
        self.h, self.w = sprite.shape[:2]
        alpha = sprite[:, :, 3]
        self.body = np.ascontiguousarray(sprite[:, :, :3])
        self.opaque = np.ascontiguousarray(np.broadcast_to((alpha == 255)[:, :, None],
                                                           self.body.shape))
        self.ys, self.xs = np.nonzero((alpha > 0) & (alpha < 255))
        a = sprite[self.ys, self.xs, 3:4].astype(np.float32) / 255.0
        self.inked = self.body[self.ys, self.xs] * a      # as _paste's sp * a
        self.through = 1 - a                              # and its (1 - a)

    def paste(self, canvas: np.ndarray, cx: float, cy: float) -> None:
        x0, y0 = int(round(cx - self.w / 2)), int(round(cy - self.h / 2))
        if x0 < 0 or y0 < 0 or x0 + self.w > canvas.shape[1] or y0 + self.h > canvas.shape[0]:
            _paste(canvas, self.sprite, cx, cy)    # cut by the canvas's edge
            return
        region = canvas[y0:y0 + self.h, x0:x0 + self.w]
        np.copyto(region, self.body, where=self.opaque)
        edge = region[self.ys, self.xs].astype(np.float32)
        region[self.ys, self.xs] = (self.inked + edge * self.through).astype(np.uint8)


@functools.lru_cache(maxsize=512)
def _ready_sprite(code: str, quarter_turns: int, px_per_mm: float, angle: float = 0.0) -> _Sprite:
    return _Sprite(_tile_sprite(code, quarter_turns, px_per_mm, angle))


def _draw_hand(canvas: np.ndarray, hand: Hand, size_mm: float, ppm: float) -> None:
    """A skin-coloured hand with its arm running to the seat's edge."""
    skin = (110, 150, 205)
    ex, ey = to_seat(size_mm / 2, size_mm + 60, hand.seat, size_mm)  # the arm leaves the table
    p = lambda x, y: (int(round(x * ppm)), int(round(y * ppm)))
    cv2.line(canvas, p(hand.x, hand.y), p(ex, ey), skin, int(70 * ppm), cv2.LINE_AA)
    cv2.ellipse(canvas, p(hand.x, hand.y), (int(hand.radius_mm * ppm),
                                             int(hand.radius_mm * 0.8 * ppm)),
                30 * hand.seat, 0, 360, (100, 140, 195), -1, cv2.LINE_AA)


def render_topdown(tiles: list[PlacedTile], hands: list[Hand] | None = None,
                   layout: TableLayout | None = None, px_per_mm: float = 2.0,
                   seed: int = 0, markers: bool = True) -> np.ndarray:
    """The table seen straight from above at ``px_per_mm``, with its corner markers."""
    layout = layout or TableLayout()
    size = (int(round(layout.width_mm * px_per_mm)), int(round(layout.height_mm * px_per_mm)))
    img = felt(size, seed)
    if markers:
        for i in range(4):
            corners = layout.marker_corners(i) * px_per_mm
            x0, y0 = corners[0]
            side = int(round(layout.marker_mm * px_per_mm))
            quiet = int(round(4 * px_per_mm))
            xa, ya = int(round(x0)), int(round(y0))
            img[max(ya - quiet, 0):ya + side + quiet, max(xa - quiet, 0):xa + side + quiet] = 255
            img[ya:ya + side, xa:xa + side] = marker_image(i, side)[:, :, None]
    return overlay(img, tiles, hands, layout.width_mm, px_per_mm)


def overlay(canvas: np.ndarray, tiles: list[PlacedTile] = (), hands: list[Hand] | None = None,
            size_mm: float = 800.0, px_per_mm: float = 2.0) -> np.ndarray:
    """Draw ``tiles``, then ``hands`` over them, onto a top-down rendering (in place; returned).
    A video can render the still table once and draw only what moves on each frame."""
    for t in tiles:
        _ready_sprite(t.code, t.turns, float(px_per_mm), t.angle).paste(
            canvas, t.x * px_per_mm, t.y * px_per_mm)
    for hand in hands or []:
        _draw_hand(canvas, hand, size_mm, px_per_mm)
    return canvas


def camera_homography(layout: TableLayout, px_per_mm: float, out_size=(1280, 960),
                      tilt: float = 0.12, turn_deg: float = 4.0) -> np.ndarray:
    """Top-down pixels -> camera pixels for a camera a little off-centre and tilted: the far
    edge of the table looks ``tilt`` narrower than the near one."""
    w, h = layout.width_mm * px_per_mm, layout.height_mm * px_per_mm
    ow, oh = out_size
    scale = 0.86 * min(ow, oh) / max(w, h)
    cx, cy = ow / 2, oh / 2
    half_w, half_h = w * scale / 2, h * scale / 2
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = np.float32([[cx - half_w * (1 - tilt), cy - half_h], [cx + half_w * (1 - tilt), cy - half_h],
                      [cx + half_w, cy + half_h], [cx - half_w, cy + half_h]])
    a = np.deg2rad(turn_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]], np.float32)
    dst = (dst - [cx, cy]) @ rot.T + [cx, cy]
    return cv2.getPerspectiveTransform(src, dst.astype(np.float32))


def render_camera(topdown: np.ndarray, layout: TableLayout | None = None,
                  px_per_mm: float = 2.0, out_size=(1280, 960), tilt: float = 0.12,
                  turn_deg: float = 4.0, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A camera's picture of a top-down rendering, and the table-mm -> image homography."""
    layout = layout or TableLayout()
    m = camera_homography(layout, px_per_mm, out_size, tilt, turn_deg)
    img = cv2.warpPerspective(topdown, m, out_size, flags=cv2.INTER_AREA,
                              borderValue=(40, 40, 40))
    rng = np.random.default_rng(seed)
    img = np.clip(img.astype(np.int16) + rng.normal(0, 3, img.shape).astype(np.int16), 0, 255)
    table_to_image = m @ np.diag([px_per_mm, px_per_mm, 1.0])
    return img.astype(np.uint8), table_to_image


def render_state(state: TableState, hands: list[Hand] | None = None,
                 px_per_mm: float = 2.0, seed: int = 0) -> np.ndarray:
    layout = TableLayout(state.size_mm, state.size_mm)
    return render_topdown(state.tiles(), hands, layout, px_per_mm, seed)


# -- a hand being played -----------------------------------------------------------------------

def pond_slot(state: TableState, seat: int) -> tuple[float, float]:
    """Table mm of where ``seat``'s next discard goes (for aiming a hand at it)."""
    probe = state.copy()
    probe.walls = False
    probe.ponds[seat].append(("1m", False))
    before = {(round(t.x, 1), round(t.y, 1)) for t in state.copy().tiles()}
    for t in probe.tiles():
        if (round(t.x, 1), round(t.y, 1)) not in before:
            return t.x, t.y
    return state.size_mm / 2, state.size_mm / 2


class _Reel:
    """The frames of a hand being filmed: each shot renders ``state`` as it is at that moment,
    ``1/fps`` after the one before. ``sink``: called with each ``(frame, t_ns)`` as it is
    drawn, instead of keeping the frames in :attr:`frames` (a long hand's 200 full-table
    frames are 1.5 GB)."""

    def __init__(self, state: TableState, fps: float, px_per_mm: float, start_ns: int,
                 sink: Callable[[np.ndarray, int], None] | None = None):
        self.state = state
        self.px_per_mm = px_per_mm
        self.start_ns = start_ns
        self.period = 1e9 / fps
        self.frames: list[tuple[np.ndarray, int]] = []
        self.sink = sink if sink is not None else lambda frame, t_ns: \
            self.frames.append((frame, t_ns))
        self.shots = 0

    def _t_ns(self) -> int:
        return self.start_ns + round(self.shots * self.period)

    def now(self) -> float:
        """Seconds of the next frame: the first to show a change made now."""
        return self._t_ns() / 1e9

    def shot(self, hands: list[Hand] | None = None, n: int = 1) -> None:
        for _ in range(n):
            t_ns = self._t_ns()
            frame = render_state(self.state, hands, self.px_per_mm, seed=self.shots)
            self.shots += 1
            self.sink(frame, t_ns)

    def discard(self, seat: int, tile: str, riichi: bool,
                bringing: int) -> tuple[dict, tuple[float, float]]:
        """``seat`` discards ``tile``: a hand brings it (``bringing`` frames), lays it and
        lifts away towards its seat, hiding the tiles behind it for a frame. Returns the
        discard event and where the tile lies (mm)."""
        x, y = pond_slot(self.state, seat)
        self.shot([Hand(x, y, seat)], n=bringing)
        self.state.ponds[seat].append((tile, riichi))
        ev = {"type": "discard", "t": self.now(), "seat": seat, "tile": tile}
        if riichi:
            ev["riichi"] = True
        ux, uy = to_seat(400, 401, seat, 800)
        ux, uy = ux - 400, uy - 400
        self.shot([Hand(x + ux * 95, y + uy * 95, seat, 45)], n=1)
        return ev, (x, y)


def hand_video(fps: float = 10.0, px_per_mm: float = 2.0, seed: int = 0,
               start_ns: int = 1_000_000_000,
               sink: Callable[[np.ndarray, int], None] | None = None):
    """A scripted hand: 13 discards round the table (one sideways for riichi), a pon that
    takes a tile out of a pond, a new dora indicator, a hand sweeping across the ponds, and a
    revealed winning hand.

    Returns ``(frames, expected)``: frames as a list of ``(topdown_image, t_ns)`` and the
    events a tracker should report (``t`` = first frame showing the tile). With ``sink``
    each frame is handed to ``sink(frame, t_ns)`` as it is drawn instead, and ``frames`` is
    empty: a tracker can watch the hand without all of it in memory at once.
    """
    rng = np.random.default_rng(seed)
    state = TableState(dora=["3p"])
    reel = _Reel(state, fps, px_per_mm, start_ns, sink)
    shot, now = reel.shot, reel.now
    expected: list[dict] = []
    shot(n=3)
    discards = [(0, "1z", False), (1, "9m", False), (2, "7z", False), (3, "1p", False),
                (0, "9s", False), (1, "4z", False), (2, "2m", True), (3, "5s", False),
                (0, "0p", False), (1, "8p", False)]
    pon_after = 9  # seat 3 pons the 8p of seat 1, who sits across from it
    for i, (seat, tile, riichi) in enumerate(discards):
        expected.append(reel.discard(seat, tile, riichi, bringing=2)[0])
        shot(n=int(rng.integers(4, 6)))
        if i == pon_after:
            # seat 3 calls pon: the 8p leaves seat 1's pond, the meld appears at seat 3
            state.ponds[1].pop()
            shot([Hand(*to_seat(650, 760, 3, 800), 3)], n=2)
            state.melds[3].append((["8p", "8p", "8p"], 1, None))
            expected.append({"type": "meld", "t": now(), "seat": 3, "kind": "pon",
                             "tiles": ["8p", "8p", "8p"], "called": "8p", "from": 1})
            shot(n=5)
    # a hand sweeps across the middle of the table: nothing happens
    for k in range(5):
        shot([Hand(200 + k * 100, 420 + 20 * k, 0, 60)])
    shot(n=3)
    # a new dora indicator is flipped (a kan elsewhere, say)
    shot([Hand(400 - 79.5 + 2.5 * 26.5, 400, 2)], n=1)
    state.dora.append("7z")
    expected.append({"type": "dora", "t": now(), "indicator": "7z"})
    shot(n=5)
    # seat 0 discards once more, then seat 2 wins and lays the hand open
    state.ponds[0].append(("3s", False))
    expected.append({"type": "discard", "t": now(), "seat": 0, "tile": "3s"})
    shot(n=5)
    hand = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "6z", "6z", "6z", "3s", "3s"]
    shot([Hand(400, 120, 2, 80)], n=2)
    state.hands[2] = hand
    expected.append({"type": "reveal", "t": now(), "seat": 2, "tiles": hand, "win_tile": "3s"})
    shot(n=6)
    return reel.frames, expected


def long_hand_video(fps: float = 10.0, px_per_mm: float = 2.0, seed: int = 1,
                    start_ns: int = 1_000_000_000, turns: int = 74,
                    sink: Callable[[np.ndarray, int], None] | None = None):
    """A long hand: ``turns`` discards round the table, so every pond runs to 18 or more
    tiles in rows of six and on into a fourth row; riichi tiles lie sideways in the middle of
    rows (seats 3 and 1 in their second row, seat 0 in its third); three calls
    take tiles out of ponds, leaving their places empty between other tiles, and put melds
    down; every discard is brought by a hand that hides the place (and, lifting away, the
    tiles behind), and a hand sweeps across the table at the deepest point of the hand.

    Returns ``(frames, expected)`` as :func:`hand_video` does: the ``discard`` and ``meld``
    events, ``t`` = the first frame showing the tile; plus ``called``, the (seat, tile) of
    the tiles taken from ponds, in order. ``sink``: as for :func:`hand_video`.
    """
    rng = np.random.default_rng(seed)
    state = TableState(dora=["5m"])
    reel = _Reel(state, fps, px_per_mm, start_ns, sink)
    shot, now = reel.shot, reel.now
    expected: list[dict] = []
    called: list[tuple[int, str]] = []
    codes = list(TILE_CODES)

    riichi_at = {(3, 8), (1, 9), (0, 15)}       # (seat, index of the discard in its pond)
    # after turn: (caller, kind, the called tile's meld, where the sideways tile lies);
    # pon from across, chii from the left, pon from the right
    calls = {21: (3, "pon", ["7z", "7z", "7z"], 1), 42: (3, "chii", ["4p", "3p", "5p"], 0),
             57: (0, "pon", ["2s", "2s", "2s"], 2)}
    shot(n=3)
    for turn in range(turns):
        seat = turn % 4
        tile = calls[turn][2][0] if turn in calls else codes[int(rng.integers(len(codes)))]
        riichi = (seat, len(state.ponds[seat])) in riichi_at
        ev, (x, y) = reel.discard(seat, tile, riichi, bringing=1)
        expected.append(ev)
        shot(n=2)
        if turn in calls:
            caller, kind_, tiles, at = calls[turn]
            # the caller takes the tile just discarded and leaves its place empty
            shot([Hand(x, y, caller, 45)], n=1)
            state.ponds[seat][-1] = (None, False)
            called.append((seat, tile))
            shot([Hand(*to_seat(650, 760, caller, 800), caller)], n=1)
            state.melds[caller].append((tiles, at, None))
            expected.append({"type": "meld", "t": now(), "seat": caller, "kind": kind_,
                             "tiles": tiles, "called": tile, "from": seat})
            shot(n=4)
        if turn == turns // 2:
            for k in range(5):       # a hand sweeps across the ponds: nothing happens
                shot([Hand(180 + k * 110, 600 - 40 * k, 0, 60)])
            shot(n=3)
    return reel.frames, expected, called


def demo_hand_frames(fps: float = 10.0):
    """The frames of :func:`hand_video` (for ``open_source("synthetic")``)."""
    return hand_video(fps)[0]


# -- a classifier that knows the rendered art ---------------------------------------------------

def _template_feature(crop: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """A face shrunk to ``size`` (upright; lying across, shrunk the other way and turned)."""
    size = size if crop.shape[0] >= crop.shape[1] else size[::-1]
    f = cv2.resize(crop, size, interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
    if f.shape[0] < f.shape[1]:
        f = np.rot90(f)
    return f.ravel()


@functools.lru_cache(maxsize=4)
def _art_templates(art, size: tuple[int, int]) -> tuple[tuple[str, ...], np.ndarray]:
    """The labels and templates of :class:`ArtClassifier`: each face of the art at ``art``
    (None: the placeholders) turned four ways and shrunk. Kept: they depend on the art alone,
    and each classifier made them again from the 38 full-size faces (some 0.3 s of CPU; a
    test file of scenes makes one per scene)."""
    labels, feats = [], []
    for code in list(TILE_CODES) + ["back"]:
        img = tile_face(code)[:, :, :3]
        h, w = img.shape[:2]
        if h % size[1] == 0 and w % size[0] == 0:
            # Shrunk by whole factors, area resampling averages blocks, which turn with the
            # picture: the face is shrunk once and the small one turned, the same bytes as
            # turning the full-size face each way (a strided copy of 1.4 MB each) and
            # shrinking that.
            small = cv2.resize(np.ascontiguousarray(img), size, interpolation=cv2.INTER_AREA)
            for k in range(4):
                labels.append(code)
                f = np.rot90(small, k).astype(np.float32) / 255.0
                if f.shape[0] < f.shape[1]:
                    f = np.rot90(f)
                feats.append(f.ravel())
            continue
        for k in range(4):
            labels.append(code)
            feats.append(_template_feature(np.ascontiguousarray(np.rot90(img, k)), size))
    out = np.stack(feats)
    out.flags.writeable = False     # shared by every classifier
    return tuple(labels), out


class ArtClassifier:
    """Recognises tiles drawn from the same art as these renderings, by nearest template.

    A stand-in with :class:`vision.reading.classifier.TileClassifier`'s interface for tests and the
    demo when the ONNX model is absent; it knows nothing of real tiles. Labels: the 37 codes,
    ``back`` and ``none`` (nothing close enough).
    """

    SIZE = (12, 16)

    def __init__(self, reject: float = 0.25):
        self.reject = reject
        labels, self.feats = _art_templates(regular_art_dir(), tuple(self.SIZE))
        self.labels = list(labels)

    def _feature(self, crop: np.ndarray) -> np.ndarray:
        return _template_feature(crop, self.SIZE)

    def classify(self, crops: list[np.ndarray]) -> list[tuple[str, float]]:
        out = []
        for crop in crops:
            if crop is None or crop.size == 0 or min(crop.shape[:2]) < 4:
                out.append(("none", 0.0))
                continue
            f = self._feature(crop)
            d = np.sqrt(np.mean((self.feats - f) ** 2, axis=1))
            i = int(np.argmin(d))
            conf = float(max(0.0, 1.0 - d[i] / (2 * self.reject)))
            out.append((self.labels[i], round(conf, 3)) if d[i] < self.reject else ("none", 0.0))
        return out
