"""Ponds of touching solid tiles in the calibrated top-down view, read at every phase of the
finder's grid: what ``bench/solid_ponds.py`` measures and ``tests/test_solid_table.py`` holds.

At a real table discards are laid edge to edge in rows of six (0.6 mm apart in
:class:`vision.synthesis.synthetic.TableState`), and a riichi tile lies across among them. The
table camera reads them in the calibrated view (2 px/mm), where the learned finder looks at
the picture on a grid of 4 of its pixels: where a tile's edges fall on that grid is fixed by
where calibration put the table, so one rendered table tests one phase only. Each view is
therefore read moved right by a few pixels at a time (a third of that down): ``np.roll`` moves the
whole view, edges included, and nothing of the ponds leaves it.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

PX_PER_MM = 2.0
STYLES = ("Regular", "Black")
KINDS = [f"{n}{s}" for s in "mps" for n in range(1, 10)] + [f"{n}z" for n in range(1, 8)]


def pond_states(tables: int, seed: int):
    """``tables`` game positions: four ponds of 4-14 discards each (a riichi tile in about
    a third of them, never the first), no walls, nothing else on the table."""
    from vision.synthesis.synthetic import TableState

    rng = np.random.default_rng(seed)
    states = []
    for _ in range(tables):
        state = TableState(walls=False)
        for seat in range(4):
            n = int(rng.integers(4, 15))
            riichi = int(rng.integers(1, n)) if rng.random() < 0.35 else -1
            state.ponds[seat] = [(KINDS[int(k)], i == riichi)
                                 for i, k in enumerate(rng.integers(0, len(KINDS), n))]
        states.append(state)
    return states


def pond_truth(state) -> list[tuple[np.ndarray, str, bool]]:
    """Each tile of ``state``: its centre in the view's pixels, its code, and whether it lies
    across in the view (a riichi tile of seat 0 or 2; the others of seat 1 or 3). The dead
    wall's face-down stacks in the middle of every table come last (code ``back``)."""
    return [(np.array([t.x, t.y]) * PX_PER_MM, t.code, t.turns % 2 == 1) for t in state.tiles()]


def score_view(found, truth, shift: np.ndarray, tile_w: float) -> tuple[Counter, list[bool]]:
    """What ``found`` ((FoundTile, name) pairs of the view moved by ``shift``) did for each
    tile of ``truth`` (:func:`pond_truth`), and the boxes in the ponds' zones on no tile; and
    for each pond tile in ``truth``'s order, whether it was turned and named right. A box is
    on a tile when its centre is within half a tile's width of the tile's centre."""
    from vision.camera.zones import default_zones
    from vision.tracking.tracker import FACE_DOWN, NOT_A_TILE

    c = Counter(tiles=sum(code != "back" for _, code, _ in truth))
    centres = np.array([t.centre for t, _ in found]) - shift if found else np.zeros((0, 2))
    used = np.zeros(len(found), bool)
    right = []
    for centre, code, across in truth:
        d = np.linalg.norm(centres - centre, axis=1) if len(centres) else np.zeros(0)
        near = np.nonzero(d < 0.5 * tile_w)[0]
        used[near] = True
        if code == "back":          # a box on a face-down tile is neither right nor false
            continue
        ok = False
        if len(near) == 1:
            c["found_once"] += 1
            tile, name = found[near[0]]
            if bool(tile.across) == across:
                c["turned_right"] += 1
                if name == code:
                    c["named"] += 1
                    ok = True
        elif len(near) == 0:
            c["missed"] += 1
        else:
            c["found_twice"] += 1
        right.append(ok)
    # a box in a pond zone on no tile; one read as a face is one the tracker would take for a
    # discard (a box read as no tile or a face-down one makes no event: TableTracker.update)
    ponds = [z for z in default_zones() if z.kind == "pond"]
    for k in np.nonzero(~used)[0]:
        if any(z.contains(*(centres[k] / PX_PER_MM)) for z in ponds):
            c["false_boxes"] += 1
            c["false_faces"] += found[k][1] not in (NOT_A_TILE, FACE_DOWN)
    return c, right


def figures(c: Counter, ponds: int, ponds_right: int) -> dict:
    """The shares and counts of a :func:`score_view` total."""
    n = max(1, c["tiles"])
    return {"tiles": c["tiles"], "found_once": round(c["found_once"] / n, 4),
            "turned_right": round(c["turned_right"] / n, 4), "named": round(c["named"] / n, 4),
            "missed": c["missed"], "found_twice": c["found_twice"], "false_boxes": c["false_boxes"],
            "false_faces": c["false_faces"],
            "ponds": ponds, "ponds_all_right": round(ponds_right / max(1, ponds), 4)}


def measure(finder, classifier, tables: int = 6, shifts: int = 12, seed: int = 0,
            styles=STYLES, log=print, step: int = 1) -> dict:
    """The figures (see ``bench/solid_ponds.py``) of ``finder`` (a TileFinder, or one per
    style: {style: TileFinder}) with ``classifier`` on ``tables`` tables (SolidTable seeds
    ``seed``, ``seed`` + 1, ...) in each of ``styles``, each view read at ``shifts``
    placements ``step`` pixels apart (the grid's period is some 6.5 pixels of the view)."""
    from vision.camera.zones import TILE_W_MM
    from vision.finding.learned import find_tiles_topdown
    from vision.synthesis.render import TileArt
    from vision.synthesis.solid_table import SolidTable

    art = TileArt()
    tile_w = TILE_W_MM * PX_PER_MM
    totals, by_style = Counter(), {}
    ponds_all = ponds_right_all = 0
    for style in styles:
        c, ponds, ponds_right = Counter(), 0, 0
        find = finder[style] if isinstance(finder, dict) else finder
        for k, state in enumerate(pond_states(tables, seed)):
            view = SolidTable(seed + k, PX_PER_MM, art=art, style=style).render(state)
            truth = pond_truth(state)
            sizes = [len(p) for p in state.ponds]
            for s in range(0, shifts * step, step):
                dx, dy = s, s // 3
                moved = np.roll(view, (dy, dx), axis=(0, 1))
                tiles = find_tiles_topdown(moved, PX_PER_MM, find, classifier.input_width).tiles
                names = [lab for lab, _ in classifier.classify([t.crop for t in tiles])] if tiles else []
                got, right = score_view(list(zip(tiles, names)), truth, np.array([dx, dy]), tile_w)
                c += got
                start = 0
                for n in sizes:
                    ponds += 1
                    ponds_right += all(right[start:start + n]) and got["false_boxes"] == 0
                    start += n
        by_style[style] = figures(c, ponds, ponds_right)
        totals += c
        ponds_all += ponds
        ponds_right_all += ponds_right
        log(f"  {style}: {by_style[style]}")
    return {**figures(totals, ponds_all, ponds_right_all), "by_style": by_style}
