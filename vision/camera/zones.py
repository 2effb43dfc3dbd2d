"""Where things lie on the table, in table millimetres (the top-down view's coordinates).

The table is seen from above with seat 0 at the bottom edge (``y`` largest), and turn order
going counter-clockwise as at a real table: seat 1 on the right, seat 2 at the top, seat 3 on
the left. Each seat has a **pond** (its discards, in rows of six in front of the wall), a
**meld** area (called sets, at the player's right-hand corner) and a **hand** area (along its
edge: where a hand is laid open to win). The **dora** zone holds the indicators.

A zone's ``rotation`` is how many quarter turns clockwise the top-down view must be turned for
the zone's seat to see it upright (0 for seat 0, 1 for seat 1...); tile order "left to right"
within a zone is as its seat sees it.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

from referee.errors import RefereeError

#: A riichi tile lying face up, in mm (width across, length along the player's view).
TILE_W_MM = 26.0
TILE_H_MM = 35.0
ZONE_KINDS = ("pond", "meld", "hand", "dora")


@dataclass(frozen=True)
class Zone:
    """A rectangle of the table: ``kind`` (pond/meld/hand/dora), ``seat`` (None for dora),
    ``rect`` = (x1, y1, x2, y2) in table mm, ``rotation`` = quarter turns for its seat."""

    kind: str
    seat: int | None
    rect: tuple[float, float, float, float]
    rotation: int = 0

    @property
    def name(self) -> str:
        return self.kind if self.seat is None else f"{self.kind}{self.seat}"

    def contains(self, x: float, y: float) -> bool:
        x1, y1, x2, y2 = self.rect
        return x1 <= x <= x2 and y1 <= y <= y2

    def to_dict(self) -> dict:
        d = asdict(self)
        d["rect"] = list(self.rect)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Zone":
        try:
            kind = d["kind"]
            if kind not in ZONE_KINDS:
                raise ValueError(f"unknown zone kind {kind!r}")
            rect = tuple(float(v) for v in d["rect"])
            if len(rect) != 4 or rect[0] >= rect[2] or rect[1] >= rect[3]:
                raise ValueError(f"zone rect {d['rect']!r} is not [x1, y1, x2, y2]")
            seat = d.get("seat")
            if seat is not None and seat not in (0, 1, 2, 3):
                raise ValueError(f"zone seat {seat!r} is outside 0-3")
            return cls(kind, seat, rect, int(d.get("rotation", 0)) % 4)
        except (KeyError, TypeError, ValueError) as exc:
            raise RefereeError(f"bad zone {d!r}: {exc}") from None


def to_seat(x: float, y: float, seat: int, w: float, h: float | None = None):
    """A point placed for seat 0 (bottom), turned about the centre of a ``w`` x ``h`` table
    (square when ``h`` is None) to the same place on ``seat``'s side."""
    cx, cy = w / 2, (w if h is None else h) / 2
    dx, dy = x - cx, y - cy
    for _ in range(seat):
        # seat 1 sits on the right: a quarter turn counter-clockwise on screen (y down).
        dx, dy = dy, -dx
    return cx + dx, cy + dy


def _rotate_rect(rect, seat: int, w: float, h: float):
    """``rect`` drawn for seat 0 (bottom), turned about the table centre to ``seat``'s side."""
    x1, y1, x2, y2 = rect
    ax, ay = to_seat(x1, y1, seat, w, h)
    bx, by = to_seat(x2, y2, seat, w, h)
    return (min(ax, bx), min(ay, by), max(ax, bx), max(ay, by))


def default_zones(table_w: float = 800.0, table_h: float = 800.0) -> list[Zone]:
    """The zones of a square automatic table ``table_w`` x ``table_h`` mm (walls around a
    central panel; ponds just inside the walls; melds at each player's right-hand corner)."""
    if abs(table_w - table_h) > 1e-6:
        raise RefereeError("default zones need a square table; give zones explicitly")
    s = table_w
    c = s / 2
    zones: list[Zone] = []
    # For seat 0: a pond of 6 across plus a sideways riichi tile, 4 rows deep, starting
    # 95 mm below the centre (clear of the other ponds and the dead wall); the wall beyond it;
    # along the edge the hand (left) and the melds (right, clear of the corner marker).
    pond = (c - 84, c + 93, c + 94, c + 93 + 4 * TILE_H_MM + 10)
    hand = (58.0, s - 95, c + 32, s - 10)
    meld = (c + 34, s - 95, s - 66, s - 10)
    for seat in range(4):
        # seat 1 (right edge) faces left: a quarter turn clockwise brings its view upright
        rot = seat
        zones.append(Zone("pond", seat, _rotate_rect(pond, seat, s, s), rot))
        zones.append(Zone("meld", seat, _rotate_rect(meld, seat, s, s), rot))
        zones.append(Zone("hand", seat, _rotate_rect(hand, seat, s, s), rot))
    zones.append(Zone("dora", None, (c - 88, c - 25, c + 88, c + 25), 0))
    return zones


def zone_at(zones: list[Zone], x: float, y: float) -> Zone | None:
    for zone in zones:
        if zone.contains(x, y):
            return zone
    return None


def seat_order_key(zone: Zone, x: float, y: float) -> tuple[float, float]:
    """(down, right) of a point as ``zone``'s seat sees it: sorting by it reads rows top to
    bottom (a pond's first row is the one nearest the centre) and each row left to right."""
    r = zone.rotation % 4
    if r == 0:      # seat at the bottom
        return (y, x)
    if r == 1:      # seat on the right faces left: its "down" is +x, its "right" is -y
        return (x, -y)
    if r == 2:      # seat at the top
        return (-y, -x)
    return (-x, y)  # seat on the left: its "down" is -x, its "right" is +y


def before_in_pond(zone: Zone, a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Whether the place ``a`` (table mm) lies before ``b`` in ``zone``'s order (a pond's rows
    from the middle of the table out, each left to right as the seat sees it) by more than a
    tile's place wavers from frame to frame: a row's tiles lie within half a tile's length of
    one depth."""
    a_down, a_right = seat_order_key(zone, *a)
    b_down, b_right = seat_order_key(zone, *b)
    if abs(a_down - b_down) > TILE_H_MM / 2:
        return a_down < b_down
    return a_right < b_right - TILE_W_MM / 2
