"""The labelled real photographs the tile finder is measured on (bench/labels/camerash-raw.json)
and the tool that proposed them (testkit.labelling, run by bench/label_photos.py).

A yardstick with a wrong mark makes every figure read off it wrong, so the labels are held to
what a referee knows of a mahjong set and of a photo: every tile a convex quad inside its
picture, no two tiles on the same spot, no kind more than four times in one set, and a whole
catalogue set holding each of the 34 kinds exactly four times.
"""
import json
from collections import Counter

import cv2
import numpy as np
import pytest

from referee.tiles import TILE_CODES
from testkit import labelling
from testkit.labelling import propose_boxes, quad_iou
from testkit.photos import CODES, LABELS, MPSZ


@pytest.fixture(scope="module")
def labels():
    return json.loads(LABELS.read_text())


def _signed_area(quad):
    q = np.asarray(quad, float)
    x, y = q[:, 0], q[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def _convex(quad) -> bool:
    q = np.asarray(quad, float)
    edges = np.roll(q, -1, axis=0) - q
    nxt = np.roll(edges, -1, axis=0)
    turns = edges[:, 0] * nxt[:, 1] - edges[:, 1] * nxt[:, 0]
    return all(t > 0 for t in turns) or all(t < 0 for t in turns)


def test_labels_say_where_they_come_from_and_point_into_the_shared_photos(labels):
    about = labels["about"]
    assert about["licence"] == "MIT"
    assert "Camerash/mahjong-dataset" in about["source"]
    assert about["root"].startswith("photos/camerash/raw-images")
    assert len(labels["photos"]) == 25
    assert len({p["file"] for p in labels["photos"]}) == 25


def test_every_tile_is_a_convex_quad_read_upright_inside_its_photo(labels):
    for photo in labels["photos"]:
        w, h = photo["size"]
        assert photo["set"] == ("1" if photo["file"].startswith("1-") else
                                "2" if photo["file"].startswith("2-") else
                                "6" if photo["file"].startswith("6-") else None), photo["file"]
        for tile in photo["tiles"]:
            where = f"{photo['file']} {tile['grid']}"
            quad = np.asarray(tile["quad"], float)
            assert quad.shape == (4, 2), where
            assert _convex(quad), where
            # TL, TR, BR, BL run clockwise on the screen whichever way up the tile lies
            assert _signed_area(quad) > 0, where
            assert (quad[:, 0] >= 0).all() and (quad[:, 0] <= w).all(), where
            assert (quad[:, 1] >= 0).all() and (quad[:, 1] <= h).all(), where
            tw = np.linalg.norm(quad[1] - quad[0])
            th = np.linalg.norm(quad[3] - quad[0])
            assert tile["code"] in CODES and tile["code"] != "back", where
            assert tile.get("partial", False) in (True, False), where
            if not tile.get("partial"):
                # a whole tile face stands upright: taller than wide, about 3:4
                assert 0.6 < tw / th < 0.95, where


def test_a_cut_off_tile_touches_the_photos_edge(labels):
    for photo in labels["photos"]:
        w, h = photo["size"]
        for tile in photo["tiles"]:
            if tile.get("partial"):
                q = np.asarray(tile["quad"], float)
                assert (q[:, 0].min() < 2 or q[:, 0].max() > w - 3
                        or q[:, 1].min() < 2 or q[:, 1].max() > h - 3), (photo["file"], tile["grid"])


def test_no_two_tiles_lie_on_the_same_spot(labels):
    for photo in labels["photos"]:
        quads = [np.asarray(t["quad"], float) for t in photo["tiles"]]
        boxes = [(q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max()) for q in quads]
        for i in range(len(quads)):
            for j in range(i + 1, len(quads)):
                a, b = boxes[i], boxes[j]
                if a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]:
                    continue
                assert quad_iou(quads[i], quads[j]) < 0.05, (photo["file"], i, j)


def test_no_photo_shows_a_kind_more_often_than_a_set_holds_it(labels):
    for photo in labels["photos"]:
        counts = Counter(t["code"] for t in photo["tiles"] if t["code"] in MPSZ)
        assert max(counts.values(), default=0) <= 4, (photo["file"], counts.most_common(3))


def test_each_catalogue_photo_of_a_whole_set_holds_all_34_kinds_four_times(labels):
    whole = [p for p in labels["photos"] if len(p["tiles"]) >= 136]
    assert sorted(p["file"] for p in whole) == sorted(
        ["3.png", "4.jpg", "5.jpg", "7.jpg", "8.jpg", "9.jpg", "10.jpg", "11.jpg", "12.jpg", "13.jpg"])
    for photo in whole:
        counts = Counter(t["code"] for t in photo["tiles"])
        assert {c: counts[c] for c in TILE_CODES if not c.startswith("0")} == \
            {c: 4 for c in TILE_CODES if not c.startswith("0")}, photo["file"]
        assert set(counts) <= set(TILE_CODES) | {"x"}


def test_tile_counts_per_photo(labels):
    counts = {p["file"]: len(p["tiles"]) for p in labels["photos"]}
    assert counts == {
        "1-1.jpg": 36, "1-2.jpg": 36, "1-3.jpg": 8, "1-4.jpg": 8, "1-5.jpg": 20, "1-6.jpg": 16,
        "2-1.jpg": 9, "2-2.jpg": 7, "2-3.jpg": 8, "2-4.jpg": 9, "2-5.jpg": 9,
        "3.png": 144, "4.jpg": 156, "5.jpg": 156, "6-1.png": 36, "6-2.png": 36, "6-3.png": 36,
        "6-4.png": 36, "7.jpg": 156, "8.jpg": 144, "9.jpg": 144,
        "10.jpg": 144, "11.jpg": 144, "12.jpg": 144, "13.jpg": 144}
    assert sum(counts.values()) == 1786


def test_the_labels_file_holds_every_hand_correction(labels):
    """Editing CORRECTIONS without writing the labels again would leave the two apart."""
    by_file = {p["file"]: {tuple(t["grid"]): t for t in p["tiles"]} for p in labels["photos"]}
    for photo, fixes in labelling.CORRECTIONS.items():
        for key, fix in fixes.items():
            r, c = map(int, key.split(","))
            code = fix if isinstance(fix, str) else fix.get("code")
            if code is not None:
                assert by_file[photo][r, c]["code"] == code, (photo, key)


def test_labels_match_the_shared_photos(labels, shared_data):
    root = shared_data / "photos" / "camerash" / "raw-images"
    assert sorted(p.name for p in root.iterdir()) == sorted(p["file"] for p in labels["photos"])
    for photo in labels["photos"]:
        image = cv2.imread(str(root / photo["file"]), cv2.IMREAD_REDUCED_GRAYSCALE_2)
        assert image is not None, photo["file"]
        h, w = image.shape
        assert abs(w - photo["size"][0] / 2) <= 1 and abs(h - photo["size"][1] / 2) <= 1, photo["file"]


def _grid_picture(rows=3, cols=5, tw=60, th=80, margin=12, seed=3):
    """Ivory tiles touching in a grid on green felt, parted by thin dark seams, with dark
    strokes for art (one of them a long frame line near a side, as on a white dragon)."""
    rng = np.random.default_rng(seed)
    img = np.full((2 * margin + rows * th, 2 * margin + cols * tw, 3), (40, 110, 40), np.uint8)
    truth = []
    for r in range(rows):
        for c in range(cols):
            x0, y0 = margin + c * tw, margin + r * th
            cv2.rectangle(img, (x0, y0), (x0 + tw - 1, y0 + th - 1), (215, 230, 235), -1)
            cv2.rectangle(img, (x0, y0), (x0 + tw - 1, y0 + th - 1), (120, 130, 135), 1)
            for _ in range(3):
                cx, cy = rng.integers(x0 + 18, x0 + tw - 18), rng.integers(y0 + 18, y0 + th - 18)
                cv2.circle(img, (int(cx), int(cy)), 7, (30, 60, 30), 2)
            if (r + c) % 3 == 0:
                cv2.rectangle(img, (x0 + 10, y0 + 9), (x0 + tw - 11, y0 + th - 10), (20, 20, 20), 2)
            truth.append([[x0, y0], [x0 + tw, y0], [x0 + tw, y0 + th], [x0, y0 + th]])
    return img, truth


def test_proposer_puts_a_box_on_every_tile_of_a_grid():
    img, truth = _grid_picture()
    boxes = propose_boxes(img, 3, 5)
    assert len(boxes) == 15
    for box, quad in zip(boxes, truth):
        assert quad_iou(box.quad, quad) > 0.85, (box.row, box.col)
        assert not box.partial


def test_proposer_marks_the_tiles_the_photos_edge_cuts():
    img, truth = _grid_picture()
    cut = img[:, : 12 + 4 * 60 + 36]          # the last column keeps 36 of its 60 pixels
    boxes = propose_boxes(cut, 3, 5)
    assert [b.partial for b in boxes] == [c == 4 for _ in range(3) for c in range(5)]
    for box in boxes:
        if box.col == 4:
            assert max(x for x, _ in box.quad) >= cut.shape[1] - 2
