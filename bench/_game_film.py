"""A film of real Tenhou hands played at a rendered table, 30 frames a second, with the frame
that first shows every discard.

The table events of a Tenhou game (:func:`referee.tenhou.import_log`) are acted out by hands
over a top-down rendering (:mod:`vision.synthesis.synthetic`): each turn the player reaches to the wall
to draw (an arm often crosses other ponds and the dora on its way), then brings the tile to its
pond, lays it (sideways for riichi) and lifts away, the fingers still at the tile's edge on the
frame it lands; a caller takes the tile out of the pond and lays the meld in its corner; kan
indicators are flipped; the winner lays the hand open; and now and then a player reaches over
the table and back, touching nothing. Times are the events' own (a discard every 1-2 s).

:func:`write_film` renders it to a video and returns the truth: the frame of every discard
(``discards``: seat, tile, riichi, frame) and meld, and the first frame of each hand.
"""
from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np

from referee.tiles import same_kind
from vision.camera.zones import TILE_W_MM, to_seat
from vision.synthesis.synthetic import (
    Hand,
    PlacedTile,
    TableState,
    overlay,
    pond_slot,
    render_state,
)

#: Bump when the film changes, so a cached video is made again.
FILM_VERSION = 1
SIZE = 800.0
HAND_R = 45.0


def _ease(u: float) -> float:
    u = min(max(u, 0.0), 1.0)
    return u * u * (3 - 2 * u)


def _towards_seat(seat: int) -> np.ndarray:
    x, y = to_seat(400.0, 401.0, seat, SIZE)
    return np.array([x - 400.0, y - 400.0])


def _edge(seat: int) -> np.ndarray:
    """Where a seat's hand comes from: just off the table in front of the player."""
    return np.array(to_seat(400.0, SIZE + 40, seat, SIZE))


class _Script:
    """What happens on which frame: state changes, and hands (with tiles they carry)."""

    def __init__(self, fps: float):
        self.fps = fps
        self.changes: dict[int, list] = defaultdict(list)
        self.moves: list[tuple[int, int, object]] = []

    def frame(self, t: float) -> int:
        return int(round(t * self.fps))

    def change(self, frame: int, fn) -> None:
        self.changes[frame].append(fn)

    def move(self, start: int, end: int, fn) -> None:
        """``fn(i) -> (hands, tiles)`` for frames ``start <= i < end``."""
        self.moves.append((start, end, fn))

    def reach(self, seat: int, path: list[tuple[int, np.ndarray]], carry=None,
              radius: float = HAND_R) -> None:
        """A hand of ``seat`` through ``path`` ((frame, point) keys, eased in between);
        ``carry``: (code, turns, until_frame): a tile at the fingertips until then."""
        start, end = path[0][0], path[-1][0]
        inward = -_towards_seat(seat)

        def at(i):
            for (f0, p0), (f1, p1) in zip(path, path[1:]):
                if f0 <= i < f1:
                    p = p0 + (p1 - p0) * _ease((i - f0) / max(f1 - f0, 1))
                    break
            else:
                p = path[-1][1]
            hands = [Hand(float(p[0]), float(p[1]), seat, radius)]
            tiles = []
            if carry is not None and i < carry[2]:
                tip = p + inward * radius * 0.75
                tiles.append(PlacedTile(carry[0], float(tip[0]), float(tip[1]), carry[1]))
            return hands, tiles

        self.move(start, end + 1, at)


def _meld_layout(seat: int, ev: dict):
    """(codes in table order, index of the sideways tile or None) of a meld event."""
    tiles = list(ev["tiles"])
    if ev["kind"] == "ankan":
        return ["back", tiles[1], tiles[2], "back"], None
    called = ev.get("called")
    rest = list(tiles)
    if called in rest:
        rest.remove(called)
    frm = ev.get("from")
    where = {(seat + 3) % 4: 0, (seat + 2) % 4: 1, (seat + 1) % 4: len(tiles) - 1}.get(frm, 0)
    rest.insert(where, called)
    return rest, where


def _pond_place(state: TableState, seat: int, idx: int) -> np.ndarray:
    """Table mm of the ``idx``-th tile of ``seat``'s pond."""
    probe = TableState(walls=False)
    probe.ponds[seat] = [(c or "1m", r) for c, r in state.ponds[seat][:idx + 1]]
    last = probe.tiles()[idx]   # the pond comes first; the dead wall after
    return np.array([last.x, last.y])


def script_game(events: list[dict], hands: list[int], fps: float = 30.0, seed: int = 0):
    """The script of ``hands`` (0-based indices) of a game's events; returns the script,
    the number of frames and the truth."""
    rng = np.random.default_rng(seed)
    sc = _Script(fps)
    by_hand: list[list[dict]] = []
    for e in events:
        if e["type"] == "hand_start":
            by_hand.append([e])
        elif by_hand:
            by_hand[-1].append(e)
    truth = {"fps": fps, "discards": [], "melds": [], "hand_starts": []}
    offset = 1.0                              # seconds of film before the first hand
    # the film's state as the script runs, to know where tiles go (the rendering replays it)
    for h in hands:
        evs = by_hand[h]
        start = evs[0]
        t0 = start["t"]
        hand_frame = sc.frame(offset)
        truth["hand_starts"].append(hand_frame)
        planned = TableState(dora=list(start.get("dora_indicators", [])))

        def reset(state, dora=tuple(planned.dora)):
            fresh = TableState(dora=list(dora))
            state.ponds, state.melds, state.hands = fresh.ponds, fresh.melds, fresh.hands
            state.dora = fresh.dora

        sc.change(hand_frame, reset)
        draws = int(rng.integers(0, 68))
        last_t = offset + 1.0
        turn = 0
        for e in evs[1:]:
            t = offset + 1.0 + (e["t"] - t0)
            if e["type"] == "discard":
                seat, tile, riichi = e["seat"], e["tile"], bool(e.get("riichi"))
                land = sc.frame(t)
                # the draw: a reach to the wall's current stack and back, well before
                stack = (draws // 2) % 68
                draws += 1
                wall_seat, k = divmod(stack, 17)
                wx, wy = to_seat(400 - 8.5 * TILE_W_MM + (k + 0.5) * (TILE_W_MM + 0.3), 665,
                                 wall_seat, SIZE)
                d0 = max(sc.frame(last_t) + 3, land - int(0.95 * fps))
                if land - d0 > 26:
                    mid = d0 + 7
                    sc.reach(seat, [(d0, _edge(seat)), (mid, np.array([wx, wy])),
                                    (mid + 2, np.array([wx, wy])), (mid + 8, _edge(seat))])
                # the discard: bring it, lay it, lift away
                sx, sy = pond_slot(planned, seat)
                slot = np.array([sx, sy])
                up = _towards_seat(seat)
                turns = (seat + (1 if riichi else 0)) % 4
                sc.reach(seat, [(land - 11, _edge(seat) + 0), (land - 1, slot + up * 4),
                                (land, slot + up * (HAND_R + 14)), (land + 8, _edge(seat))],
                         carry=(tile, turns, land))

                def lay(state, seat=seat, tile=tile, riichi=riichi):
                    state.ponds[seat].append((tile, riichi))

                sc.change(land, lay)
                lay(planned)
                truth["discards"].append({"seat": seat, "tile": tile, "riichi": riichi,
                                          "frame": land})
                turn += 1
                if turn % 7 == 3:
                    # a player reaches over the table and back, touching nothing
                    who = int(rng.integers(0, 4))
                    tx, ty = to_seat(float(rng.uniform(300, 500)), float(rng.uniform(330, 470)),
                                     int(rng.integers(0, 4)), SIZE)
                    p0 = land + int(0.3 * fps)
                    sc.reach(who, [(p0, _edge(who)), (p0 + 10, np.array([tx, ty])),
                                   (p0 + 13, np.array([tx, ty])), (p0 + 24, _edge(who))],
                             radius=55.0)
                last_t = t
            elif e["type"] == "meld":
                seat = e["seat"]
                shown = sc.frame(t)
                corner = np.array(to_seat(620, 760, seat, SIZE))
                up = _towards_seat(seat)
                if e["kind"] in ("chii", "pon", "daiminkan"):
                    frm = e["from"]
                    pond = planned.ponds[frm]
                    idx = next((i for i in range(len(pond) - 1, -1, -1)
                                if pond[i][0] is not None and same_kind(pond[i][0], e["called"])),
                               None)
                    if idx is not None:
                        target = _pond_place(planned, frm, idx)
                        took = shown - 12
                        sc.reach(seat, [(took - 10, _edge(seat)), (took, target),
                                        (took + 1, target), (shown - 1, corner + up * 4),
                                        (shown, corner + up * (HAND_R + 14)),
                                        (shown + 8, _edge(seat))])

                        def take(state, frm=frm, idx=idx):
                            state.ponds[frm][idx] = (None, False)

                        sc.change(took, take)
                        take(planned)
                    codes, called = _meld_layout(seat, e)

                    def put(state, seat=seat, codes=codes, called=called):
                        state.melds[seat].append((codes, called, None))
                else:
                    sc.reach(seat, [(shown - 10, _edge(seat)), (shown - 1, corner + up * 4),
                                    (shown, corner + up * (HAND_R + 14)),
                                    (shown + 8, _edge(seat))])
                    codes, called = _meld_layout(seat, e)
                    if e["kind"] == "shouminkan":
                        def put(state, seat=seat, e=e):
                            for i, (c, k, _) in enumerate(state.melds[seat]):
                                if len(c) == 3 and same_kind(c[k if k is not None else 0],
                                                             e["called"]):
                                    state.melds[seat][i] = (c, k, e.get("added", e["called"]))
                                    return
                    else:
                        def put(state, seat=seat, codes=codes):
                            state.melds[seat].append((codes, None, None))
                sc.change(shown, put)
                put(planned)
                truth["melds"].append({"seat": seat, "kind": e["kind"], "frame": shown})
            elif e["type"] == "dora":
                shown = sc.frame(t)
                seat = int(rng.integers(0, 4))
                at = np.array([400 - 79.5 + (len(planned.dora) + 1.5) * 26.5, 400.0])
                sc.reach(seat, [(shown - 10, _edge(seat)), (shown - 1, at),
                                (shown, at + _towards_seat(seat) * (HAND_R + 14)),
                                (shown + 10, _edge(seat))])

                def flip(state, code=e["indicator"]):
                    state.dora.append(code)

                sc.change(shown, flip)
                flip(planned)
            elif e["type"] == "reveal":
                shown = sc.frame(t)
                seat = e["seat"]
                tiles = list(e["tiles"]) + [e["win_tile"]]
                row = np.array(to_seat(250, 748, seat, SIZE))
                sc.reach(seat, [(shown - 10, _edge(seat)), (shown - 1, row + _towards_seat(seat) * 4),
                                (shown, row + _towards_seat(seat) * (HAND_R + 20)),
                                (shown + 10, _edge(seat))], radius=60.0)

                def reveal(state, seat=seat, tiles=tiles):
                    state.hands[seat] = tiles

                sc.change(shown, reveal)
                reveal(planned)
        offset = offset + 1.0 + (evs[-1]["t"] - t0) + 3.0
    return sc, sc.frame(offset), truth


def render_film(sc: _Script, frames: int, px_per_mm: float = 2.0, draw=None, looks: int = 3):
    """The frames of a script, one by one (the still table is rendered once per change).

    ``draw(state, seed)``: the top-down picture of a still table (default: the flat art on
    felt, :func:`~vision.synthesis.synthetic.render_state`); ``looks``: pictures drawn of each
    still table, taken in turn (the felt's grain differs between them)."""
    if draw is None:
        draw = lambda state, seed: render_state(state, px_per_mm=px_per_mm, seed=seed)  # noqa: E731
    state = TableState()
    version = 0
    cache: dict[tuple[int, int], np.ndarray] = {}
    for i in range(frames):
        for fn in sc.changes.get(i, []):
            fn(state)
            version += 1
            cache.clear()
        key = (version, i % looks)
        if key not in cache:
            cache[key] = draw(state, i)
        canvas = cache[key].copy()
        hands, tiles = [], []
        for start, end, fn in sc.moves:
            if start <= i < end:
                h, t = fn(i)
                hands += h
                tiles += t
        if hands or tiles:
            overlay(canvas, tiles, hands, SIZE, px_per_mm)
        yield canvas


def write_film(path: Path, events: list[dict], hands: list[int], fps: float = 30.0,
               px_per_mm: float = 2.0, seed: int = 0) -> dict:
    """Render the film to ``path`` (an .mp4) unless it is there from an earlier run with the
    same settings; return the truth (also kept beside it as JSON)."""
    path = Path(path)
    meta = path.with_suffix(".json")
    key = {"version": FILM_VERSION, "hands": hands, "fps": fps, "px_per_mm": px_per_mm,
           "seed": seed, "events": len(events)}
    if path.is_file() and meta.is_file():
        saved = json.loads(meta.read_text())
        if saved.get("key") == key:
            return saved["truth"]
    sc, frames, truth = script_game(events, hands, fps, seed)
    size = int(round(SIZE * px_per_mm))
    path.parent.mkdir(parents=True, exist_ok=True)
    meta.unlink(missing_ok=True)
    part = path.with_name(path.stem + ".part" + path.suffix)
    writer = cv2.VideoWriter(str(part), cv2.VideoWriter_fourcc(*"mp4v"), fps, (size, size))
    if not writer.isOpened():
        raise RuntimeError(f"cannot write video {part}")
    try:
        for frame in render_film(sc, frames, px_per_mm):
            writer.write(frame)
    finally:
        writer.release()
    os.replace(part, path)         # a film cut short by Ctrl-C is never taken for a whole one
    truth["frames"] = frames
    meta.write_text(json.dumps({"key": key, "truth": truth}) + "\n")
    return truth
