"""Where the tiles of a scene lie: a table in play, a catalogue grid, a player's hand row,
tiles scattered askew. Each layout places the bodies of one :class:`~vision.synthesis.bodies.TileSet`
in table millimetres (seat 0 at +y) and says what the camera should look at: the table's
``extent`` (x0, y0, x1, y1 mm), the ``focus`` point, the ``span`` of the tiles, and for a
table the ``panel`` of an automatic table.
"""
from __future__ import annotations

import numpy as np

from referee.tiles import TILE_CODES

from .bodies import Body, TileSet, lying, make_body, standing
from .faces import FaceBank

_CODES = TILE_CODES    # what a face-up tile may show (37 codes)


def _row(rng, ts, x0, y, n, yaw_seat, gap=(0.0, 1.5), across_at=None, jitter=1.0):
    """Poses of ``n`` tiles lying in a row for a player facing +y turned ``yaw_seat``; the
    tile at ``across_at`` lies across. Returns (list of (x, y, yaw, face_up)), width."""
    W, L, _ = ts.size
    out, x = [], x0
    for i in range(n):
        wd = L if i == across_at else W
        yaw = yaw_seat + (np.pi / 2 if i == across_at else 0) + rng.normal(0, 0.02 * jitter)
        yy = y + (L - W) / 2 if i == across_at else y
        out.append((x + wd / 2, yy + rng.normal(0, 0.6 * jitter), yaw))
        x += wd + rng.uniform(*gap)
    return out, x - x0


def _seat_frame(seat: int, cx: float, cy: float):
    """Maps seat-local (x right as the seat sees it, y towards the seat) to table mm."""
    a = -seat * np.pi / 2      # seat 1 is on the right, seen from above

    def to_table(x, y):
        c, s = np.cos(a), np.sin(a)
        return cx + c * x - s * y, cy + s * x + c * y
    return to_table, a


def _codes(rng, n, back_p=0.0):
    return ["back" if rng.random() < back_p else _CODES[rng.integers(len(_CODES))] for _ in range(n)]


# The parts of a table in play. Each lays its tiles through ``add(code, pose)`` as it places
# them (making a body draws from ``rng`` too, so the order of the draws is the layout's), in a
# seat's frame: ``to_table`` maps seat-local mm to table mm and ``a`` is the seat's turn.

def _pond(rng, ts: TileSet, add, to_table, a: float, gap: float) -> None:
    """A pond: rows of six (the third runs on) between the centre and the wall, perhaps with
    a riichi tile across."""
    W, L, T = ts.size
    n = int(rng.integers(0, 22))
    riichi = int(rng.integers(0, n)) if n and rng.random() < 0.3 else -1
    y0 = rng.uniform(55, 75)
    for r in range((n + 5) // 6):
        cnt = min(6, n - 6 * r) if r < 2 else n - 6 * r
        across = riichi - 6 * r if 0 <= riichi - 6 * r < cnt else None
        row, _ = _row(rng, ts, -3 * (W + gap), 0, cnt, 0.0, (0, 1.2), across)
        for (x, y, yaw) in row:
            X, Y = to_table(x, y0 + L / 2 + r * (L + rng.uniform(0.3, 2)) + y)
            add(_codes(rng, 1)[0], lying(X, Y, yaw + a, ts.size))


def _wall(rng, ts: TileSet, add, to_table, a: float, wall_r: float) -> None:
    """The wall ``wall_r`` mm out: 17 stacks of two face down, some already taken."""
    W, L, T = ts.size
    start = int(rng.integers(0, 17)) if rng.random() < 0.5 else 0
    stop = int(rng.integers(start, 18))
    for s in range(start, stop):
        X, Y = to_table(-8.5 * (W + 0.3) + (s + 0.5) * (W + 0.3), wall_r)
        for level in range(2 if rng.random() < 0.85 else 1):
            add("back", lying(X, Y, a + rng.normal(0, 0.01), ts.size, face_up=False,
                              z=level * T))


def _melds(rng, ts: TileSet, add, to_table, a: float, hand_y: float) -> None:
    """One to three melds at the player's right-hand corner: the called tile across, a
    closed kan's ends face down, now and then an added kan beside the called tile or on it."""
    W, L, T = ts.size
    right = rng.uniform(280, 350)
    for _ in range(int(rng.integers(1, 4))):
        cnt = 4 if rng.random() < 0.25 else 3
        called = int(rng.integers(0, cnt))
        row, width = _row(rng, ts, 0, 0, cnt, 0.0, (0, 0.8), called, 0.5)
        base_x = right - width
        right = base_x - rng.uniform(5, 15)
        ankan = cnt == 4 and rng.random() < 0.3
        for i, (x, y, yaw) in enumerate(row):
            X, Y = to_table(base_x + x, hand_y + y)
            face_up = not (ankan and i in (0, cnt - 1))
            add(_codes(rng, 1)[0] if face_up else "back",
                lying(X, Y, yaw + a, ts.size, face_up=face_up))
            if i == called and rng.random() < 0.25:   # an added kan
                if rng.random() < 0.5:    # beside the called tile, further in
                    X2, Y2 = to_table(base_x + x, hand_y + y - W - 0.5)
                    add(_codes(rng, 1)[0], lying(X2, Y2, yaw + a, ts.size))
                else:                     # stacked on it
                    add(_codes(rng, 1)[0], lying(X, Y, yaw + a, ts.size, z=T))


def _hand(rng, ts: TileSet, add, to_table, a: float, hand_y: float) -> None:
    """The player's hand of 13 or 14 at the edge: standing, or laid open."""
    W, L, T = ts.size
    n = 13 if rng.random() < 0.8 else 14
    face_up = rng.random() < 0.15
    row, width = _row(rng, ts, 0, 0, n, 0.0, (0, 0.5), None, 0.5)
    lean = rng.uniform(0, 0.25)
    for (x, y, yaw) in row:
        X, Y = to_table(x - width / 2 - 40, hand_y + L * 0.6)
        if face_up:
            add(_codes(rng, 1)[0], lying(X, Y, yaw + a, ts.size))
        else:   # stands facing its player
            add(_codes(rng, 1)[0], standing(X, Y, a + rng.normal(0, 0.03), ts.size,
                                           lean=lean + rng.normal(0, 0.02)))


def _dead_wall(rng, ts: TileSet, add) -> None:
    """The dead wall, seven stacks near the centre, one to four dora indicators turned up."""
    W, L, T = ts.size
    x0, y0 = rng.uniform(-60, 60), rng.uniform(-60, 60)
    yaw = rng.choice([0.0, np.pi / 2, np.pi, -np.pi / 2])
    n_dora = int(rng.integers(1, 5))
    for k in range(7):
        X = x0 + np.cos(yaw) * k * (W + 0.3)
        Y = y0 + np.sin(yaw) * k * (W + 0.3)
        add("back", lying(X, Y, yaw, ts.size, face_up=False))
        if 2 <= k < 2 + n_dora:
            add(_codes(rng, 1)[0], lying(X, Y, yaw, ts.size, z=T))
        else:
            add("back", lying(X, Y, yaw, ts.size, face_up=False, z=T))


def layout_table(rng, ts: TileSet, bank: FaceBank) -> tuple[list[Body], dict]:
    """A table in play: four ponds (rows of six, a riichi tile across), walls of stacked
    face-down tiles, the dead wall with dora indicators, melds (a called tile across, an
    added kan stacked), standing hands at the edges and sometimes a revealed hand."""
    bodies: list[Body] = []
    gap = rng.uniform(0.0, 1.2)

    def add(code, pose):
        bodies.append(make_body(rng, bank, ts, code, pose))

    wall_r = rng.uniform(205, 245)          # the wall's distance from the centre
    hand_y = wall_r + rng.uniform(45, 70)
    for seat in range(4):
        to_table, a = _seat_frame(seat, 0.0, 0.0)
        _pond(rng, ts, add, to_table, a, gap)
        if rng.random() < 0.8:
            _wall(rng, ts, add, to_table, a, wall_r)
        if rng.random() < 0.6:
            _melds(rng, ts, add, to_table, a, hand_y)
        if rng.random() < 0.7:
            _hand(rng, ts, add, to_table, a, hand_y)
    if rng.random() < 0.7:
        _dead_wall(rng, ts, add)
    e = hand_y + rng.uniform(80, 200)
    focus = bodies[rng.integers(len(bodies))].t[:2] if bodies else np.zeros(2)
    return bodies, {"extent": (-e, -e, e, e), "panel": (0.0, 0.0) if rng.random() < 0.4 else None,
                    "focus": (float(focus[0]), float(focus[1]))}


def layout_grid(rng, ts: TileSet, bank: FaceBank) -> tuple[list[Body], dict]:
    """A catalogue shot: rows and columns of face-up tiles, touching or a little apart."""
    W, L, T = ts.size
    rows, cols = int(rng.integers(1, 9)), int(rng.integers(2, 14))
    gx, gy = (0.0, 0.0) if rng.random() < 0.6 else (rng.uniform(0, 6), rng.uniform(0, 8))
    across = rng.random() < 0.15
    bodies = []
    yaw0 = rng.normal(0, 0.02)
    back_p = 0.0 if rng.random() < 0.8 else 0.3
    for r in range(rows):
        for c in range(cols):
            if rng.random() < 0.03:
                continue
            x = (c - (cols - 1) / 2) * ((L if across else W) + gx)
            y = (r - (rows - 1) / 2) * ((W if across else L) + gy)
            code = _codes(rng, 1, back_p)[0]
            bodies.append(make_body(rng, bank, ts, code, lying(
                x + rng.normal(0, 0.3), y + rng.normal(0, 0.3),
                yaw0 + (np.pi / 2 if across else 0) + rng.normal(0, 0.01), ts.size,
                face_up=code != "back")))
    ext = max(rows * L, cols * L) * 1.5 + 100
    return bodies, {"extent": (-ext, -ext, ext, ext), "focus": (0.0, 0.0),
                    "span": (cols * ((L if across else W) + gx), rows * ((W if across else L) + gy))}


def layout_hand_row(rng, ts: TileSet, bank: FaceBank) -> tuple[list[Body], dict]:
    """A player's hand: 13 or 14 tiles standing side by side (faces towards seat 0), or lying
    in a row, with melds sometimes beside it."""
    W, L, T = ts.size
    n = int(rng.integers(5, 15))
    bodies = []
    lean = rng.uniform(-0.1, 0.5)
    x = -n * W / 2
    lie = rng.random() < 0.25
    for i in range(n):
        if rng.random() < 0.04 and 0 < i < n - 1:
            x += rng.uniform(3, 15)
        code = _codes(rng, 1)[0]
        if lie:
            pose = lying(x + W / 2, 0, rng.normal(0, 0.02), ts.size)
        else:
            pose = standing(x + W / 2, 0, rng.normal(0, 0.03), ts.size, lean=lean + rng.normal(0, 0.03))
        bodies.append(make_body(rng, bank, ts, code, pose))
        x += W + rng.uniform(0, 0.6)
    if rng.random() < 0.4:   # a meld lying to the right
        cnt = 3
        called = int(rng.integers(0, 3))
        row, width = _row(rng, ts, x + 20, 40, cnt, 0.0, (0, 0.8), called, 0.5)
        for (mx, my, yaw) in row:
            bodies.append(make_body(rng, bank, ts, _codes(rng, 1)[0], lying(mx, my, yaw, ts.size)))
    ext = n * W + 400
    return bodies, {"extent": (-ext, -ext, ext, ext), "focus": (0.0, -L * 0.3 if not lie else 0.0),
                    "span": (n * W, L)}


def layout_scatter(rng, ts: TileSet, bank: FaceBank) -> tuple[list[Body], dict]:
    """Tiles lying anywhere at any angle, face up or down, some in little rows; a table
    being shuffled or a pond pushed askew."""
    W, L, T = ts.size
    n = int(rng.integers(3, 30))
    area = np.sqrt(n) * L * rng.uniform(1.3, 2.5)
    bodies, placed = [], []
    for _ in range(n * 3):
        if len(bodies) >= n:
            break
        x, y = rng.uniform(-area / 2, area / 2, 2)
        if any(np.hypot(x - px, y - py) < L * 1.05 for px, py in placed):
            continue
        placed.append((x, y))
        face_up = rng.random() < 0.75
        code = _codes(rng, 1)[0] if face_up else "back"
        bodies.append(make_body(rng, bank, ts, code, lying(x, y, rng.uniform(0, 2 * np.pi), ts.size,
                                                            face_up=face_up)))
    ext = area + 300
    return bodies, {"extent": (-ext, -ext, ext, ext), "focus": (0.0, 0.0), "span": (area, area)}


LAYOUTS = {"table": layout_table, "close": layout_table, "grid": layout_grid,
           "hand_row": layout_hand_row, "scatter": layout_scatter}
