"""A picture's tiles read as tiles of one set: no kind more than four times, one red five of a
suit (vision/reading/one_set.py)."""
import numpy as np
import pytest

from vision.reading.one_set import classify_as_one_set, within_copies

LABELS = ("1s", "7z", "6z", "5m", "0m", "9m", "back", "none")


def reading(p: dict) -> list[float]:
    """One crop's probabilities, the rest spread evenly over the labels not named."""
    rest = (1.0 - sum(p.values())) / (len(LABELS) - len(p))
    return [p.get(lab, rest) for lab in LABELS]


def read(*crops) -> list[str]:
    p = np.array([reading(c) for c in crops])
    return [LABELS[i] for i in within_copies(p, LABELS)]


@pytest.mark.parametrize("crops, expected", [
    # four of a kind is a set's whole count: nothing changes, however unsure
    ([{"1s": 0.5, "6z": 0.4}] * 4, ["1s"] * 4),
    # a fifth 1s: the one that loses least by it (a green dragon read as a bird) moves
    ([{"1s": 0.9}] * 4 + [{"1s": 0.5, "6z": 0.45}], ["1s"] * 4 + ["6z"]),
    ([{"1s": 0.5, "6z": 0.45}] + [{"1s": 0.9}] * 4, ["6z"] + ["1s"] * 4),
    # two red 5m: the less sure becomes a plain 5m, still a five
    ([{"0m": 0.9}, {"0m": 0.6, "5m": 0.3}], ["0m", "5m"]),
    # a red dragon read as the red 5m it is not, beside the set's one red 5m
    ([{"0m": 0.95}, {"0m": 0.5, "7z": 0.4}], ["0m", "7z"]),
    # four 5m and a red 5m are five fives: the red one goes to its next kind
    ([{"5m": 0.9}] * 4 + [{"0m": 0.6, "5m": 0.2, "9m": 0.15}], ["5m"] * 4 + ["9m"]),
    # the next kind is full too: the one after it
    ([{"6z": 0.9}] * 4 + [{"1s": 0.9}] * 4 + [{"1s": 0.5, "6z": 0.3, "7z": 0.15}],
     ["6z"] * 4 + ["1s"] * 4 + ["7z"]),
    # backs are no kind: any number of them, and a tile is never pushed onto "back"
    ([{"back": 0.99}] * 9 + [{"1s": 0.9}] * 4 + [{"1s": 0.6, "back": 0.3, "9m": 0.05}],
     ["back"] * 9 + ["1s"] * 4 + ["9m"]),
])
def test_a_picture_holds_no_kind_more_often_than_a_set(crops, expected):
    assert read(*crops) == expected


def test_ten_read_alike_keep_four_the_surest_and_four_go_where_they_lean():
    # from a sure 1s to one leaning to a red dragon: the middle two fit neither
    crops = [{"1s": 0.9 - 0.05 * k, "7z": 0.05 + 0.05 * k} for k in range(10)]
    got = read(*crops)
    assert got[:4] == ["1s"] * 4 and got[6:] == ["7z"] * 4
    assert not {"1s", "7z", "back", "none"} & set(got[4:6])


class _Classifier:
    labels = LABELS

    def __init__(self, p):
        self.p = np.array(p)

    def probabilities(self, crops):
        return self.p[: len(crops)]


def test_a_reading_moved_off_a_fifth_copy_carries_its_own_low_confidence():
    clf = _Classifier([reading({"1s": 0.95})] * 4 + [reading({"1s": 0.55, "6z": 0.4})])
    got = classify_as_one_set(clf, [np.zeros((4, 3, 3), np.uint8)] * 5)
    assert [lab for lab, _ in got] == ["1s"] * 4 + ["6z"]
    assert got[4][1] == pytest.approx(0.4)
    assert classify_as_one_set(clf, []) == []


def test_more_tiles_than_a_set_has_room_for_leaves_the_unsure_extras_doubtful():
    # six sure 1s and nothing else they could be (a picture of two sets): the two least sure
    # stay 1s, said to be doubtful; the four surest keep their confidence
    labels = ("1s", "back")
    clf = _Classifier([[0.99 - 0.01 * k, 0.01 + 0.01 * k] for k in range(6)])
    clf.labels = labels
    got = classify_as_one_set(clf, [None] * 6)
    assert [lab for lab, _ in got] == ["1s"] * 6
    assert [c for _, c in got[:4]] == pytest.approx([0.99, 0.98, 0.97, 0.96])
    assert [c for _, c in got[4:]] == [0.5, 0.5]


def test_a_classifier_without_probabilities_reads_tile_by_tile():
    class Art:
        def classify(self, crops):
            return [("1s", 1.0)] * len(crops)
    assert classify_as_one_set(Art(), [None] * 6) == [("1s", 1.0)] * 6


@pytest.mark.parametrize("crops, expected", [
    # one fifth 1s moved off: the four kept 1s are as sure as the classifier is of them
    ([{"1s": 0.95}] * 4 + [{"1s": 0.55, "6z": 0.4}],
     [("1s", 0.95)] * 4 + [("6z", 0.4)]),
    # a Hong Kong set's four picture red dragons, all read as the one red 5m: three move to
    # the red dragon they lean to next, and the one kept is doubtful, however sure
    ([{"0m": 0.9, "7z": 0.05}, {"0m": 0.7, "7z": 0.2}, {"0m": 0.6, "7z": 0.3},
      {"0m": 0.55, "7z": 0.35}],
     [("0m", 0.5), ("7z", 0.2), ("7z", 0.3), ("7z", 0.35)]),
    # two birds taken for 1s beside the set's four: the 1s left are doubtful too, and what
    # no reading was moved off keeps its confidence
    ([{"1s": 0.92}] * 4 + [{"1s": 0.85, "9m": 0.1}] * 2 + [{"6z": 0.93}],
     [("1s", 0.5)] * 4 + [("9m", 0.1)] * 2 + [("6z", 0.93)]),
])
def test_a_kind_readings_were_moved_off_twice_is_one_the_classifier_mistakes(crops, expected):
    """A kind two readings or more had to be moved off is taken for some other design again
    and again: the readings kept on it are no surer than the game allows a fifth copy."""
    got = classify_as_one_set(_Classifier([reading(c) for c in crops]), [None] * len(crops))
    assert [lab for lab, _ in got] == [lab for lab, _ in expected]
    assert [c for _, c in got] == pytest.approx([c for _, c in expected])


@pytest.mark.parametrize("crops, expected", [
    # read once, the red 5m is as sure as the classifier is of it
    ([{"0m": 0.95}, {"5m": 0.9}], [("0m", 0.95), ("5m", 0.9)]),
    # read twice: one moves to where it leans next, and which was the set's one red 5m the
    # classifier cannot tell, so the one kept is doubtful, however sure
    ([{"0m": 0.95}, {"0m": 0.9, "7z": 0.05}], [("0m", 0.5), ("7z", 0.05)]),
    # a full set in view, every kind at its four: the red dragons read as the red 5m cannot
    # move anywhere, and the surest of them is no surer than the rest
    ([{"1s": 0.9}] * 4 + [{"6z": 0.9}] * 4 + [{"7z": 0.9}] * 4 + [{"5m": 0.9}] * 3
     + [{"9m": 0.9}] * 4 + [{"0m": 0.97}, {"0m": 0.92}],
     # (three 5m and two red ones are five fives: the least sure five is beyond them)
     [("1s", 0.9)] * 4 + [("6z", 0.9)] * 4 + [("7z", 0.9)] * 4 + [("5m", 0.9)] * 2
     + [("5m", 0.5)] + [("9m", 0.9)] * 4 + [("0m", 0.5), ("0m", 0.5)]),
])
def test_a_red_five_read_twice_is_doubtful_where_it_is_kept(crops, expected):
    """A set holds one red five of a suit: two readings of it mean another design is read as
    it, and the surest of them may be that design."""
    got = classify_as_one_set(_Classifier([reading(c) for c in crops]), [None] * len(crops))
    assert [lab for lab, _ in got] == [lab for lab, _ in expected]
    assert [c for _, c in got] == pytest.approx([c for _, c in expected])
