"""How the bench scores a photo's readings: a sure wrong reading is what a referee would be
told as fact (a false penalty), so a misread and a tile reported where there is none count
as sure misreads when read surely, and not when marked unsure."""
from pathlib import Path

import numpy as np

from testkit.photos import Photo, score_photo, totals
from vision.reading.picture import UNSURE_BELOW


def _quad(x, y, w=40, h=54):
    return np.float32([[x, y], [x + w, y], [x + w, y + h], [x, y + h]])


def _row():
    """A row of three tiles touching, 1p 2p 3p, and a flower beside them."""
    quads = [_quad(0, 0), _quad(40, 0), _quad(80, 0), _quad(130, 0)]
    return Photo("row.jpg", Path("row.jpg"), None, quads, ["1p", "2p", "3p", "x"], [])


def test_a_tile_boxed_twice_and_read_surely_twice_is_a_sure_misread():
    photo = _row()
    # the 1p boxed once more, a little lower and shorter: the second box matches nothing
    reads = [(photo.quads[0], "1p", 0.89), (_quad(2, 20, 38, 44), "1p", 0.86),
             (photo.quads[1], "2p", 0.95), (photo.quads[2], "3p", 0.95)]
    score = score_photo(photo, reads)
    assert score["named"] == 3 and score["fp"] == 1
    assert len(score["misread_sure"]) == 1
    total = totals({"row.jpg": score})
    assert total["misread_sure"] == 1
    assert total["named_sure"] == 3 and total["sure_share"] == 1.0


def test_the_same_readings_marked_unsure_are_no_sure_misread():
    photo = _row()
    low = UNSURE_BELOW - 0.01
    reads = [(photo.quads[0], "1p", low), (_quad(2, 20, 38, 44), "1p", low),
             (photo.quads[1], "5m", low), (photo.quads[2], "3p", 0.95)]
    score = score_photo(photo, reads)
    assert score["misread_sure"] == []
    # one right reading of two is sure
    assert totals({"row.jpg": score})["sure_share"] == 0.5


def test_a_sure_misread_tile_counts_and_a_flower_read_as_a_tile_does_not():
    photo = _row()
    reads = [(photo.quads[0], "1p", 0.9), (photo.quads[1], "5m", 0.9),
             (photo.quads[2], "3p", 0.7), (photo.quads[3], "8s", 0.9)]
    score = score_photo(photo, reads)
    wrong = [score["reads"][i][1] for i in score["misread_sure"]]
    assert wrong == ["5m"]
    # right: 1p (sure) and 3p (unsure)
    assert score["named_sure"] == 1 and score["named"] == 2
