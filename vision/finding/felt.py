"""Finding tiles in a picture and cropping each one for the classifier.

Nothing here depends on exact pixels of the rendered art: tiles are found as bodies that
differ from the table (felt) and cut apart at their seams using what is known of their size.

1. **Foreground**: pixels whose colour is far from the table's (the most common colour,
   measured in Lab on the chroma mostly, so light falling off towards the edges does not
   matter).
2. **Components** of the foreground: a lone tile, a row of touching tiles, touching rows,
   or a hand over the table.
3. **Seams**: within a component, columns (rows) where the body is interrupted or darker
   than the tile's face over most of its height. Cuts are chosen among seam candidates and the
   grid positions the tile size predicts, by dynamic programming, so every piece is a tile
   upright (``w`` x ``h``) or lying across (``h`` x ``w``).
4. **Check**: a piece that is not filled like a tile body is left out; what a component
   holds besides tiles is reported as ``occluded`` (a hand, an arm) so a tracker knows those
   places are hidden rather than empty.

:func:`find_tiles` works on a top-down table view with a known scale (``px_per_mm``), and
:func:`felt_tiles_photo` on any photo, estimating the tile size from the seams' period.
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.camera.zones import TILE_H_MM, TILE_W_MM

from .found import Finding, FoundTile, box_quad, order_rows


def _found(box: tuple[int, int, int, int], across: bool, crop: np.ndarray) -> FoundTile:
    """A tile this finder found: its box is its outline, and it is sure of it."""
    tile = FoundTile(box, across, crop, box_quad(box), 1.0)
    # the outline's centre, as FoundTile.centre takes it (the mean of the four corners in
    # float32, exact for whole pixels), without a numpy mean for each of some 100 tiles a frame
    x1, y1, x2, y2 = box
    tile.centre = ((x1 + x2) / 2, (y1 + y2) / 2)
    return tile


def background_colour(lab: np.ndarray) -> np.ndarray:
    """The table's colour: the median of a sparse sample (the felt covers most of a table)."""
    sample = lab[::7, ::7].reshape(-1, 3).astype(np.float32)
    return np.median(sample, axis=0)


def foreground_mask(image: np.ndarray, threshold: float = 16.0,
                    bg: np.ndarray | None = None) -> np.ndarray:
    """255 where ``image`` differs from the table colour ``bg`` (Lab; the table's own colour
    when None) by more than ``threshold``, lightness counting half as much as chroma."""
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)
    if bg is None:
        bg = background_colour(lab)
    # against the colour as a scalar: filling a whole picture with it took 6 ms of the 25 a
    # tracker's frame spends here (800 x 800), the difference itself 0.4
    ref = np.clip(np.round(bg), 0, 255).astype(np.uint8)
    diff = cv2.absdiff(lab, (float(ref[0]), float(ref[1]), float(ref[2]), 0.0))
    l, a, b = cv2.split(diff)
    dist = cv2.add(cv2.add(a, b), cv2.multiply(l, 0.5, dtype=cv2.CV_8U))
    # the L1 distance runs about 1.3x the Euclidean one
    _, mask = cv2.threshold(dist, threshold * 1.3, 255, cv2.THRESH_BINARY)
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))


def fill_holes(mask: np.ndarray, max_side: float | None = None) -> np.ndarray:
    """``mask`` with the regions it encloses filled in; with ``max_side``, only those whose
    bounding box is shorter than that on both sides."""
    h, w = mask.shape
    flood = np.zeros((h + 2, w + 2), np.uint8)
    flood[1:-1, 1:-1] = mask
    cv2.floodFill(flood, None, (0, 0), 128)
    # 0 where the flood reached, 255 elsewhere: the same bytes as a np.where, in one pass
    filled = cv2.compare(flood[1:-1, 1:-1], 128, cv2.CMP_NE)
    if max_side is None:
        return filled
    holes = cv2.subtract(filled, mask)
    contours, _ = cv2.findContours(holes, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    big = [c for c in contours if max(cv2.boundingRect(c)[2:]) >= max_side]
    if big:
        cv2.drawContours(filled, big, -1, 0, -1)
        filled = cv2.bitwise_or(filled, mask)   # what lay inside such a hole stays
    return filled


def _cuts(profile: np.ndarray, sizes: list[float], tol: float = 0.16,
          heights: np.ndarray | None = None, split_height: float = 0.0,
          second_cost: float = 0.0) -> list[int] | None:
    """Cut ``[0, len(profile)]`` into pieces whose lengths are each one of ``sizes`` (within
    ``tol``), cutting where ``profile`` (a seam score, higher = likelier seam) is high.

    ``heights``: the body's height at each position; with it, a piece of ``sizes[0]`` (an
    upright tile) must average taller than ``split_height`` and one of ``sizes[1]`` (lying
    across) shorter. ``second_cost``: what each piece of ``sizes[1]`` costs against the
    seam scores (a prior for the first size). Candidates are the profile's local maxima and
    the grid positions the sizes predict from either end; dynamic programming picks the best
    chain. None when no chain fits.
    """
    n = len(profile)
    if n == 0:
        return None
    cand = {0, n}
    if n > 2:
        p = profile
        peaks = np.flatnonzero((p[1:-1] >= p[:-2]) & (p[1:-1] >= p[2:]) & (p[1:-1] > 0.2)) + 1
        cand.update(int(i) for i in peaks)
    for s in sizes:
        k = 1
        while k * s < n:
            cand.add(int(round(k * s)))
            cand.add(int(round(n - k * s)))
            k += 1
    pts = sorted(c for c in cand if 0 <= c <= n)
    values = profile.tolist()
    score = {c: (float(values[min(c, n - 1)]) if 0 < c < n else 0.0) for c in pts}
    # Python floats in the loop below: the same sums, without a numpy scalar per look
    csum = None if heights is None else np.concatenate([[0.0], np.cumsum(heights)]).tolist()
    longest = max(sizes) * (1 + tol)
    best: dict[int, tuple[float, int | None]] = {0: (0.0, None)}
    for j in range(1, len(pts)):
        c = pts[j]
        top = None
        for i in range(j - 1, -1, -1):
            a = pts[i]
            length = c - a
            if length > longest:
                break
            if a not in best:
                continue
            k, dev = 0, abs(length - sizes[0]) / sizes[0]
            if len(sizes) > 1:
                dev1 = abs(length - sizes[1]) / sizes[1]
                if dev1 < dev:
                    k, dev = 1, dev1
            if dev > tol:
                continue
            if csum is not None and len(sizes) > 1:
                tall = (csum[c] - csum[a]) / length
                if (k == 0) != (tall > split_height):
                    continue
            value = best[a][0] + score[c] - 6.0 * dev - (second_cost if k == 1 else 0.0)
            if top is None or value > top[0]:
                top = (value, a)
        if top is not None:
            best[c] = top
    if n not in best:
        return None
    out = [n]
    while best[out[-1]][1] is not None:
        out.append(best[out[-1]][1])
    return sorted(out)


def _dips(gray: np.ndarray, axis: int, window: float) -> np.ndarray:
    """Pixels clearly darker than the brightest pixel within ``window`` along the axis that
    crosses a seam (``axis`` 1: along rows, so vertical seams show; 0: along columns)."""
    k = max(3, int(window) | 1)
    kernel = np.ones((1, k) if axis == 1 else (k, 1), np.uint8)
    return gray < 0.92 * cv2.dilate(gray, kernel)


def _seam_profile(dips: np.ndarray, body: np.ndarray, axis: int) -> np.ndarray:
    """Seam score along one axis (0..1): the share of the band that is a gap or a dark line
    there. A seam between touching tiles crosses the whole band, its blank margins included;
    a stroke of a tile's face does not reach the margins. ``axis`` = 0 scores columns,
    1 scores rows."""
    line = dips | ~body
    n = line.shape[axis]
    q = max(1, n // 4)
    if axis == 0:
        parts = (line, line[:q], line[n - q:])
    else:
        parts = (line, line[:, :q], line[:, n - q:])
    # a share as a count over a length: the float64 quotient a mean gives (it sums the flags
    # exactly), without a mean's own overhead, which the finder pays some 200 000 times a film
    return _smooth(np.minimum.reduce([p.sum(axis=axis) / p.shape[axis] for p in parts]))


def _row_seam_profile(dips: np.ndarray, body: np.ndarray) -> np.ndarray:
    """Seam score of each row (0..1), as :func:`_seam_profile` scores them, but each column
    counts only between its body's first and last row: where a row of tiles is shorter than
    the rows beside it (a pond's last row), the felt past its end is no seam, or every line
    across that row would look like one and the rows would be cut at the wrong height."""
    line = dips | ~body
    n_rows, n_cols = line.shape
    has = body.any(axis=0)
    top = np.where(has, body.argmax(axis=0), n_rows)
    bottom = np.where(has, n_rows - 1 - body[::-1].argmax(axis=0), -1)
    rows = np.arange(n_rows)[:, None]
    inside = (rows >= top) & (rows <= bottom)
    q = max(1, n_cols // 4)
    scores = []
    for cols in (slice(None), slice(0, q), slice(n_cols - q, None)):
        counted = inside[:, cols].sum(axis=1)
        hits = (line[:, cols] & inside[:, cols]).sum(axis=1)
        # a part with no body at some row says nothing there
        scores.append(np.where(counted > 0, hits / np.maximum(counted, 1), 1.0))
    return _smooth(np.minimum.reduce(scores))


def _split_component(gray: np.ndarray, comp: np.ndarray, w: float, h: float,
                     allow_across: bool) -> list[tuple[tuple[int, int, int, int], float]]:
    """Pieces within a component's bounding box, cut into tiles: ``(box, seam)`` with box =
    (x1, y1, x2, y2) and seam = the weakest seam score of its cuts inside the component (how
    sure we are it was cut at a real gap; 1.0 when it stands alone)."""
    H, W = comp.shape
    body = comp > 0
    present_cols = body.any(axis=0)
    row_sizes = [h, w] if allow_across else [h]
    g = gray.astype(np.float32)
    xdips, ydips = _dips(g, 1, w / 3), _dips(g, 0, w / 3)
    # rows first, measured only over columns where the component has body
    yprof = _row_seam_profile(ydips[:, present_cols], body[:, present_cols]) \
        if present_cols.any() else np.zeros(H)
    # Rows of tiles lying across are rare (a riichi tile alone in a new row, an added kan's
    # tile): without a prior, three rows of upright tiles (3 x 36 mm) also cut as four rows
    # lying across (4 x 27), and more cuts collect more seam score from the tiles' strokes.
    ycuts = _cuts(yprof, row_sizes, second_cost=0.35) or _even(H, row_sizes)
    ylist = yprof.tolist()
    out = []
    sizes = [w, h] if allow_across else [w]
    for y1, y2 in zip(ycuts[:-1], ycuts[1:]):
        band = body[y1:y2]
        rows_present = band.any(axis=1)
        if not rows_present.any():
            continue
        xprof = _seam_profile(xdips[y1:y2][rows_present], band[rows_present], 0)
        band_h = y2 - y1
        heights = band.sum(axis=0).astype(np.float64)
        # a band as tall as an upright tile may mix upright and sideways tiles; a shorter
        # one holds only tiles lying across
        mixed = allow_across and band_h > (w + h) / 2
        band_sizes = sizes if (mixed or not allow_across) else [h]
        filled = heights / band_h > 0.12      # the band's mean, from the sums at hand
        for xa, xb in _runs(filled):
            if xb - xa < 0.5 * w:
                continue
            prof = xprof[xa:xb]
            xcuts = _cut_run(prof, heights[xa:xb], band_sizes, mixed, 0.95 * (w + h) / 2)
            # the scores as Python floats: the same numbers, and a max of three of them is
            # cheaper in a list than in a numpy slice
            near = prof.tolist()
            for c1, c2 in zip(xcuts[:-1], xcuts[1:]):
                # a cut's seam score: the best within a pixel of it (seams are thin)
                inner = [max(near[max(c - 1, 0):c + 2]) for c in (c1, c2) if 0 < c < len(near)]
                inner += [max(ylist[max(c - 1, 0):c + 2]) for c in (y1, y2)
                          if 0 < c < H and body[max(c - 2, 0):c + 2, xa + c1:xa + c2].any()]
                out.append(((xa + c1, y1, xa + c2, y2), min(inner) if inner else 1.0))
    return out


def _stack_columns(body: np.ndarray, w: float, h: float) -> tuple[int, int] | None:
    """The columns of an added kan's stack, if the row has one: two tiles lying across, one
    on the other's far side, make the row about 2 x 27 mm deep where upright tiles are 36."""
    depth = body.sum(axis=0)
    deep = depth > 1.3 * h
    runs = [(a, b) for a, b in _runs(deep) if b - a >= 0.5 * h]
    if len(runs) != 1:
        return None
    a, b = runs[0]
    if b - a > 1.25 * h or not 1.7 * w < depth[a:b].max() < 2.4 * w or b - a > 0.8 * len(depth):
        return None     # a block of pond rows, not one row with a stack in it
    # the run misses the tiles' rounded corners: widen it to a tile's length, about its middle
    grow = max(0.0, (h - (b - a)) / 2)
    return max(0, int(round(a - grow))), min(body.shape[1], int(round(b + grow)))


def _split_around_stack(gray, comp, w, h, stack):
    """Cut an added kan's stack as two tiles lying across, one above the other, and the rest of
    the row on either side of it on its own."""
    out = []
    a, b = stack
    for xa, xb, stacked in ((0, a, False), (a, b, True), (b, comp.shape[1], False)):
        part = comp[:, xa:xb]
        rows = np.flatnonzero(part.any(axis=1))
        if xb - xa < 0.5 * w or not len(rows):
            continue
        ya, yb = int(rows[0]), int(rows[-1]) + 1
        if stacked:
            # one cut between the two tiles, at the clearest seam near the middle
            g = gray[ya:yb, xa:xb].astype(np.float32)
            dips = _dips(g, 0, w / 3)
            prof = _smooth(dips.sum(axis=1) / dips.shape[1])
            mid = (yb - ya) // 2
            r = max(1, int(0.2 * w))
            cut = mid - r + int(np.argmax(prof[mid - r:mid + r + 1])) if len(prof) > mid + r else mid
            out += [((xa, ya, xb, ya + cut), 1.0), ((xa, ya + cut, xb, yb), 1.0)]
            continue
        for (x1, y1, x2, y2), seam in _split_component(gray[ya:yb, xa:xb], part[ya:yb], w, h,
                                                       True):
            out.append(((x1 + xa, y1 + ya, x2 + xa, y2 + ya), seam))
    return out


def _cut_run(prof: np.ndarray, heights: np.ndarray, sizes: list[float], mixed: bool,
             split_height: float) -> list[int]:
    """Cuts of a run of touching tiles. Where the body is shorter than ``split_height`` the
    tiles lie across (``sizes[1]``), elsewhere upright (``sizes[0]``); each stretch is cut
    evenly (tiles in a row are the same size) and each cut then moved to the clearest seam
    within a few percent of a tile."""
    n = len(prof)
    stretches = [(0, n, 0)]
    if mixed:
        # rounded corners make a tile's edge columns short: judge on a running median
        k = max(3, int(sizes[0] / 3) | 1)
        pad = np.pad(heights.astype(np.float32), (k // 2, k // 2), mode="edge")
        smooth = cv2.medianBlur(np.minimum(pad, 255).astype(np.uint8).reshape(1, -1),
                                k).ravel()[k // 2:k // 2 + n].astype(np.float32)
        short = smooth < split_height
        stretches = [(a, b, 1) for a, b in _runs(short)] + \
            [(a, b, 0) for a, b in _runs(~short)]
        # a sliver (a rounded corner) is not a tile: fold it into its neighbour
        stretches = sorted(st for st in stretches if st[1] - st[0] >= 0.4 * sizes[0])
        if not stretches:
            return [0, n]
        fixed = []
        for i, (a, b, k) in enumerate(stretches):
            a = 0 if i == 0 else fixed[-1][1]
            b = n if i == len(stretches) - 1 else b
            fixed.append((a, b, k))
        # where an upright tile meets one lying across, the height changes over a few
        # pixels (rounded corners): the boundary is where the short tile's level ends
        r = max(1, int(0.2 * sizes[0]))
        for i in range(len(fixed) - 1):
            a, b, k = fixed[i]
            short_side = fixed[i] if k == 1 else fixed[i + 1]
            level = float(np.median(heights[short_side[0]:short_side[1]])) + 1.5
            lo, hi = max(b - r, a + 1), min(b + r, fixed[i + 1][1] - 1)
            low = np.flatnonzero(heights[lo:hi] <= level) + lo
            if len(low):
                b = int(low[-1] + 1) if k == 1 else int(low[0])
                fixed[i] = (a, b, k)
                fixed[i + 1] = (b, fixed[i + 1][1], fixed[i + 1][2])
        stretches = fixed
    cuts = [0]
    near = prof.tolist()    # the same scores as floats: cheaper to look at a few of them
    for a, b, k in stretches:
        size = sizes[min(k, len(sizes) - 1)]
        count = max(1, int(round((b - a) / size)))
        for i in range(1, count + 1):
            c = a + int(round(i * (b - a) / count))
            if a < c < n and i < count:
                # only a small move, and only to a clearly better seam: a tile's own
                # strokes (a bamboo stick near its edge) must not pull the cut in
                r = max(1, int(0.05 * size))
                lo, hi = max(c - r, 1), min(c + r + 1, n - 1)
                best = max(near[lo:hi]) if hi > lo else None
                if best is not None and best > max(0.5, near[c] + 0.2):
                    c = lo + near[lo:hi].index(best)    # the first best, as np.argmax

            cuts.append(c)
    cuts[-1] = n
    return sorted(set(cuts))


def _smooth(p: np.ndarray) -> np.ndarray:
    if len(p) < 3:
        return p
    return np.convolve(p, np.array([0.25, 0.5, 0.25]), mode="same")


def _even(n: int, sizes: list[float]) -> list[int]:
    k = max(1, int(round(n / sizes[0])))
    return [int(round(i * n / k)) for i in range(k + 1)]


def _runs(flags: np.ndarray) -> list[tuple[int, int]]:
    """The (start, end) of each run of true flags."""
    edges = np.flatnonzero(np.diff(np.concatenate(([0], np.asarray(flags, np.int8), [0]))))
    return list(zip(edges[::2].tolist(), edges[1::2].tolist()))


def _tighten(comp: np.ndarray, box, w: float, h: float, allow_across: bool):
    """The body's own box within a cut piece, if the piece is a tile; else None."""
    x1, y1, x2, y2 = box
    piece = comp[y1:y2, x1:x2]
    if piece.size == 0:
        return None
    # means as sums over lengths: the same float64 quotients (a mean of bytes sums them
    # exactly) without a mean's overhead, paid some 100 times a frame
    ys = np.flatnonzero(piece.sum(axis=1) / piece.shape[1] > 0.12 * 255)
    xs = np.flatnonzero(piece.sum(axis=0) / piece.shape[0] > 0.12 * 255)
    if len(ys) == 0 or len(xs) == 0:
        return None
    bx1, bx2 = x1 + xs[0], x1 + xs[-1] + 1
    by1, by2 = y1 + ys[0], y1 + ys[-1] + 1
    bw, bh = bx2 - bx1, by2 - by1
    fill = int(comp[by1:by2, bx1:bx2].sum()) / int(bw * bh) / 255
    shapes = [(w, h)] + ([(h, w)] if allow_across else [])
    fits = any(abs(bw - sw) <= 0.25 * sw and abs(bh - sh) <= 0.25 * sh for sw, sh in shapes)
    if not fits or fill < 0.72:
        return None
    return (int(bx1), int(by1), int(bx2), int(by2))


def _component_tiles(gray: np.ndarray, comp: np.ndarray, w: float, h: float,
                     allow_across: bool, min_seam: float, turn: bool):
    """The tiles of one component: ``(box, seam)`` in its own pixels. ``turn``: cut it as a
    column of tiles (transposed), not a row."""
    if turn:
        pieces = [((b[1], b[0], b[3], b[2]), sc) for b, sc in
                  _split_component(np.ascontiguousarray(gray.T), np.ascontiguousarray(comp.T),
                                   w, h, allow_across)]
    else:
        pieces = _split_component(gray, comp, w, h, allow_across)
    out = _tight_tiles(comp, pieces, w, h, allow_across, min_seam)
    # A row with an added kan's two tiles stacked in it does not cut as one row: cut it around
    # the stack too, and keep that reading unless it finds fewer tiles.
    stack = _stack_columns((comp.T if turn else comp) > 0, w, h) if allow_across else None
    if stack is not None:
        g, c = (np.ascontiguousarray(gray.T), np.ascontiguousarray(comp.T)) if turn else (gray, comp)
        pieces = _split_around_stack(g, c, w, h, stack)
        if turn:
            pieces = [((b[1], b[0], b[3], b[2]), sc) for b, sc in pieces]
        around = _tight_tiles(comp, pieces, w, h, allow_across, min_seam)
        if len(around) >= len(out):
            out = around
    return out


def _tight_tiles(comp, pieces, w, h, allow_across, min_seam):
    out = []
    for box, seam_score in pieces:
        if seam_score < min_seam:
            continue
        tight = _tighten(comp, box, w, h, allow_across)
        if tight is not None:
            out.append((tight, seam_score))
    return out


def find_tiles(image: np.ndarray, tile_w_px: float, tile_h_px: float | None = None,
               allow_across: bool = True, mask: np.ndarray | None = None,
               pad: int = 1, work_tile_px: float = 30.0, min_seam: float = 0.15) -> Finding:
    """The tiles in ``image`` whose tiles are ``tile_w_px`` x ``tile_h_px`` when upright.

    ``allow_across``: tiles may lie sideways (a riichi discard, a called tile).
    ``mask``: the foreground, when the caller knows it better than the felt colour does.
    ``work_tile_px``: finding runs on a copy scaled so a tile is about this wide (speed);
    crops come from the full image. ``min_seam``: how clear a cut between touching pieces
    must be for them to count as tiles (a hand is one body with no seams).
    Returns a :class:`Finding`; tile order is rows top to bottom, left to right.
    """
    tile_h_px = tile_h_px or tile_w_px * TILE_H_MM / TILE_W_MM
    # an integer shrink factor: area resampling is fast then, and keeps thin seams
    factor = max(1, int(np.ceil(float(tile_w_px) / work_tile_px - 0.25)))
    scale = 1.0 / factor
    small = image if factor == 1 else cv2.resize(
        image, (image.shape[1] // factor, image.shape[0] // factor),
        interpolation=cv2.INTER_AREA)
    w, h = float(tile_w_px) * scale, float(tile_h_px) * scale
    if mask is None:
        fg = foreground_mask(small)
        # a tile's green or dark strokes can match the felt: close them into the body and
        # fill the holes they leave
        k = max(3, int(w / 5) | 1)
        fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE,
                              cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        # ... but not the felt between tiles: the strip beside a riichi tile lying across
        # or the place of a tile taken from a pond, closed in by the tiles around it, must
        # stay felt or the rows would be cut as if a tile lay there
        fg = fill_holes(fg, max_side=0.75 * w)
    else:
        fg = mask if scale == 1.0 else cv2.resize(mask, (small.shape[1], small.shape[0]),
                                                  interpolation=cv2.INTER_NEAREST)
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(fg, connectivity=4)
    min_area = 0.35 * w * h
    tiles: list[FoundTile] = []
    covered = np.zeros_like(fg)
    full_h, full_w = image.shape[:2]
    for i in range(1, count):
        x, y, bw, bh, area = stats[i]
        if area < min_area:
            continue
        comp = (labels[y:y + bh, x:x + bw] == i).astype(np.uint8) * 255
        g = gray[y:y + bh, x:x + bw]
        found = _best_cut(g, comp, w, h, allow_across, min_seam, area)
        # A tile (or two or three touching) laid down askew: cut the component turned
        # straight too, and keep that unless it finds fewer tiles (its crops are straight for
        # the classifier). Longer rows and blocks are laid square; a hand is not worth turning.
        skew = _skew(comp) if area < 3.5 * w * h else 0.0
        if abs(skew) >= 3.0:
            gr, cr, back = _turn_straight(g, comp, skew, h)
            turned = _best_cut(gr, cr, w, h, allow_across, min_seam, area)
            if len(turned) >= len(found):
                for (x1, y1, x2, y2), _ in turned:
                    corners = cv2.transform(np.float32([[[x1, y1], [x2, y1], [x2, y2], [x1, y2]]]),
                                            back)[0] + (x, y)
                    cv2.fillPoly(covered, [np.round(corners).astype(np.int32)], 255)
                    tiles.append(_askew_tile(image, corners / scale, (x2 - x1) / scale,
                                             (y2 - y1) / scale, skew, pad))
                continue
        # the component's place as Python ints: the same sums and quotients, rounded as
        # Python floats rather than numpy scalars (some 400 a frame)
        ix, iy = int(x), int(y)
        for tight, _ in found:
            x1, y1, x2, y2 = tight[0] + ix, tight[1] + iy, tight[2] + ix, tight[3] + iy
            covered[y1:y2, x1:x2] = 255
            X1, Y1 = int(round(x1 / scale)), int(round(y1 / scale))
            X2, Y2 = min(int(round(x2 / scale)), full_w), min(int(round(y2 / scale)), full_h)
            crop = image[max(Y1 - pad, 0):Y2 + pad, max(X1 - pad, 0):X2 + pad]
            tiles.append(_found((X1, Y1, X2, Y2), (X2 - X1) > (Y2 - Y1), crop))
    occluded = cv2.bitwise_and(fg, cv2.bitwise_not(covered))
    occluded = cv2.morphologyEx(occluded, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    # a sliver of a tile's edge left outside its box is not a hand: a tracker would take the
    # tiles next to it for hidden and never confirm them
    parts, _ = cv2.findContours(occluded, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    slivers = [c for c in parts if cv2.contourArea(c) < 0.3 * w * h]
    if slivers:
        cv2.drawContours(occluded, slivers, -1, 0, -1)
    if scale != 1.0:
        # most frames hide nothing: enlarging an empty mask only makes a bigger empty one
        occluded = cv2.resize(occluded, (full_w, full_h), interpolation=cv2.INTER_NEAREST) \
            if cv2.countNonZero(occluded) else np.zeros((full_h, full_w), np.uint8)
    return Finding(order_rows(tiles), occluded)


def _best_cut(g, comp, w, h, allow_across, min_seam, area):
    """The tiles of a component cut as a row or, for a column, turned: whichever finds more."""
    bh, bw = comp.shape
    # a column of tiles (a side seat's pond or melds) is cut as a row, turned; a block
    # about as tall as wide (a side seat's pond of four rows: 4 x 36 mm by 6 x 27) can be
    # either, and is cut both ways: the way that yields more tiles is the right one
    column = allow_across and bh > bw * 1.2
    turned = [column] if not allow_across or not 0.8 * bw < bh < 1.35 * bw or \
        area < 4 * w * h else [column, not column]
    best = None
    for turn in turned:
        found = _component_tiles(g, comp, w, h, allow_across, min_seam, turn)
        rank = (len(found), sum(sc for _, sc in found))
        if best is None or rank > best[0]:
            best = (rank, found)
    return best[1]


def _skew(comp: np.ndarray) -> float:
    """How far (degrees, -45..45) the component's smallest enclosing rectangle is turned from
    the image axes."""
    outline, _ = cv2.findContours(comp, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not outline:
        return 0.0
    angle = cv2.minAreaRect(np.concatenate(outline))[2]
    return float((angle + 45.0) % 90.0 - 45.0)


def rotation_onto_canvas(w: int, h: int, degrees: float) -> tuple[np.ndarray, tuple[int, int]]:
    """The affine map turning a ``w`` x ``h`` image by ``degrees`` (counter-clockwise, as
    ``cv2.getRotationMatrix2D``) about its centre, and the (width, height) of the smallest
    canvas that holds all of the turned image."""
    a = np.deg2rad(degrees)
    ow = int(np.ceil(w * abs(np.cos(a)) + h * abs(np.sin(a))))
    oh = int(np.ceil(w * abs(np.sin(a)) + h * abs(np.cos(a))))
    rot = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
    rot[:, 2] += ((ow - w) / 2, (oh - h) / 2)
    return rot, (ow, oh)


def _turn_straight(g, comp, skew, h):
    """The component and its grey pixels turned by ``skew`` (so its rectangle is straight),
    with the affine map from the turned pixels back to the component's."""
    m = int(0.5 * h) + 2
    gp = cv2.copyMakeBorder(g, m, m, m, m, cv2.BORDER_REPLICATE)
    cp = cv2.copyMakeBorder(comp, m, m, m, m, cv2.BORDER_CONSTANT, value=0)
    H, W = cp.shape
    rot, (ow, oh) = rotation_onto_canvas(W, H, skew)
    gr = cv2.warpAffine(gp, rot, (ow, oh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    cr = cv2.warpAffine(cp, rot, (ow, oh), flags=cv2.INTER_NEAREST, borderValue=0)
    back = cv2.invertAffineTransform(rot)
    back[:, 2] -= m
    # cut both to the turned component's own box: the cutter reads rows from its shape
    cr = np.where(cr > 127, 255, 0).astype(np.uint8)
    ys, xs = np.flatnonzero(cr.any(axis=1)), np.flatnonzero(cr.any(axis=0))
    if len(ys) and len(xs):
        oy, ox = int(ys[0]), int(xs[0])
        gr, cr = gr[oy:ys[-1] + 1, ox:xs[-1] + 1], cr[oy:ys[-1] + 1, ox:xs[-1] + 1]
        back[:, 2] += back[:, :2] @ np.float64([ox, oy])
    return np.ascontiguousarray(gr), np.ascontiguousarray(cr), back


def _askew_tile(image, corners, tw, th, skew, pad) -> FoundTile:
    """A tile whose corners (full-image pixels) are turned by ``skew``: its box is the upright
    box around it, its crop the tile turned straight (``tw`` x ``th`` plus ``pad``)."""
    full_h, full_w = image.shape[:2]
    x1, y1 = np.floor(corners.min(axis=0)).astype(int)
    x2, y2 = np.ceil(corners.max(axis=0)).astype(int)
    box = (max(int(x1), 0), max(int(y1), 0), min(int(x2), full_w), min(int(y2), full_h))
    cx, cy = corners.mean(axis=0)
    ow, oh = int(round(tw)) + 2 * pad, int(round(th)) + 2 * pad
    rot = cv2.getRotationMatrix2D((float(cx), float(cy)), skew, 1.0)
    rot[:, 2] += (ow / 2 - cx, oh / 2 - cy)
    crop = cv2.warpAffine(image, rot, (ow, oh), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)
    return _found(box, tw > th, crop)


def felt_tiles_topdown(topdown: np.ndarray, px_per_mm: float) -> Finding:
    """Tiles in a top-down table view made by :meth:`Calibration.warp` (``px_per_mm``)."""
    return find_tiles(topdown, TILE_W_MM * px_per_mm, TILE_H_MM * px_per_mm)


# -- photos without calibration ------------------------------------------------------------------

def _period(profile: np.ndarray, lo: int, hi: int) -> tuple[int, float]:
    """The strongest repeat length of ``profile`` between ``lo`` and ``hi``, and how strong
    (the normalised autocorrelation there, 0..1)."""
    p = profile - profile.mean()
    n = len(p)
    denom = float((p * p).sum()) or 1.0
    hi = min(hi, n - 2)
    if hi <= lo:
        return 0, 0.0
    ac = np.array([(p[:n - k] * p[k:]).sum() / denom for k in range(lo, hi + 1)])
    peaks = [k for k in range(1, len(ac) - 1) if ac[k] >= ac[k - 1] and ac[k] >= ac[k + 1]]
    if not peaks:
        return 0, 0.0
    top = max(ac[k] for k in peaks)
    # the first strong peak, not a multiple of it
    for k in peaks:
        if ac[k] >= 0.75 * top:
            return lo + k, float(ac[k])
    return 0, 0.0  # pragma: no cover


def tile_size_from_photo(image: np.ndarray, mask: np.ndarray) -> tuple[float, float]:
    """Estimate (width, height) in pixels of the upright tiles in a photo: the repeat length
    of the seams across and down the tiled area; a single row is as tall as the area."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    ys, xs = np.nonzero(mask)
    y1, y2, x1, x2 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    g = gray[y1:y2, x1:x2]
    # seams: strong brightness changes across them (edges of the tile bodies)
    gx = np.abs(cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3))
    gy = np.abs(cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3))
    bh, bw = g.shape
    if bw > 2.5 * bh:
        # one row of tiles (a hand): as tall as the row; the width from the seams' period
        px, sx = _period(gx.mean(axis=0), int(0.5 * bh), int(bh))
        w = float(px) if sx > 0.1 and 0.55 * bh <= px <= 0.95 * bh else 0.75 * bh
        return w, float(bh)
    py, sy = _period(gy.mean(axis=1), max(8, bh // 16), bh // 1)
    px, sx = _period(gx.mean(axis=0), max(6, bw // 40), bw // 1)
    rows_ok = sy > 0.25 and py < 0.9 * bh
    cols_ok = sx > 0.2 and px < 0.9 * bw
    if rows_ok and cols_ok and 0.55 * py <= px <= 0.95 * py:
        return float(px), float(py)
    if rows_ok:
        return 0.75 * py, float(py)
    if cols_ok:
        return float(px), px / 0.75
    return 0.75 * bh, float(bh)


def photo_mask(image: np.ndarray) -> np.ndarray:
    """Foreground of a photo: what differs from the colour around its border, or the whole
    picture when tiles fill it up to the border."""
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)
    border = np.concatenate([lab[:3].reshape(-1, 3), lab[-3:].reshape(-1, 3),
                             lab[:, :3].reshape(-1, 3), lab[:, -3:].reshape(-1, 3)])
    bg = np.median(border.astype(np.float32), axis=0)
    mask = foreground_mask(image, 16.0, bg)
    if mask.mean() / 255 < 0.05 or _looks_like_tile_face(bg):
        # a white page or tiles up to the border: take the bright bodies and their seams
        mask = np.full(mask.shape, 255, np.uint8)
    return mask


def _looks_like_tile_face(lab_colour: np.ndarray) -> bool:
    L, a, b = lab_colour
    return L > 150 and abs(a - 128) < 14 and abs(b - 128) < 30


def felt_tiles_photo(image: np.ndarray, max_side: int = 1000) -> Finding:
    """Tiles in an uncalibrated photo (a hand in a row, a grid of tiles), upright ones only,
    the size estimated from the picture (found on a copy at most ``max_side`` pixels wide or
    tall; boxes and crops are in the full picture)."""
    scale = min(1.0, max_side / max(image.shape[:2]))
    small = image if scale == 1.0 else cv2.resize(image, None, fx=scale, fy=scale,
                                                  interpolation=cv2.INTER_AREA)
    mask = photo_mask(small)
    w, h = tile_size_from_photo(small, mask)
    # the size came from the seams' own period: cut on that grid even where a seam is faint
    finding = find_tiles(small, w, h, allow_across=False, mask=mask, min_seam=0.0)
    if scale == 1.0:
        return finding
    full_h, full_w = image.shape[:2]
    tiles = []
    for t in finding.tiles:
        x1, y1, x2, y2 = (int(round(v / scale)) for v in t.box)
        x2, y2 = min(x2, full_w), min(y2, full_h)
        tiles.append(_found((x1, y1, x2, y2), t.across, image[y1:y2, x1:x2]))
    occluded = cv2.resize(finding.occluded, (full_w, full_h), interpolation=cv2.INTER_NEAREST)
    return Finding(tiles, occluded)
