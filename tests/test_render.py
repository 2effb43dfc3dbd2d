"""Rendered tile crops: reproducible from a seed, shaped like a detector's crops, every label."""
import numpy as np
import pytest

from referee.errors import RefereeError
from referee.tiles import TILE_CODES
from vision.render import ART_STEMS, LABELS, TileArt, art_dir, background, render_crop, render_set


@pytest.fixture(scope="module")
def art(shared_data):
    return TileArt(shared_data / "tiles" / "fluffystuff" / "Export")


def test_labels_are_the_37_codes_then_back_and_none():
    assert LABELS[:37] == TILE_CODES
    assert LABELS[37:] == ("back", "none")
    assert set(ART_STEMS) == set(TILE_CODES)


def test_same_seed_same_crops_other_seed_other_crops(art):
    a, la = render_set(art, 1, seed=7)
    b, lb = render_set(art, 1, seed=7)
    c, _ = render_set(art, 1, seed=8)
    assert la == lb == list(LABELS)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert sum(x.shape == y.shape and np.array_equal(x, y) for x, y in zip(a, c)) == 0


@pytest.mark.parametrize("label", LABELS)
def test_every_label_renders_a_camera_sized_colour_crop(art, label):
    rng = np.random.default_rng(LABELS.index(label))
    for _ in range(3):
        crop = render_crop(art, label, rng, backgrounds="holdout")
        assert crop.dtype == np.uint8 and crop.ndim == 3 and crop.shape[2] == 3
        short, long_ = sorted(crop.shape[:2])
        assert 15 <= short <= 120 and long_ <= 220
        assert crop.std() > 3  # not a flat image


def test_red_five_is_redder_than_its_plain_five(art):
    # The only thing telling 0p from 5p is red ink; the render must keep it through its
    # colour shifts, on average over many crops.
    def redness(label):
        rng = np.random.default_rng(3)
        vals = []
        for _ in range(30):
            c = render_crop(art, label, rng).astype(float)
            vals.append((c[..., 2] - c[..., :2].mean(axis=2)).clip(0).mean())
        return np.mean(vals)

    assert redness("0p") > redness("5p") * 1.3
    assert redness("0s") > redness("5s") * 1.3


def test_holdout_tables_differ_from_training_tables():
    rng = np.random.default_rng(0)
    train = np.mean([background(rng, 40, 40, "train").mean((0, 1)) for _ in range(200)], axis=0)
    rng = np.random.default_rng(0)
    hold = np.mean([background(rng, 40, 40, "holdout").mean((0, 1)) for _ in range(200)], axis=0)
    assert np.abs(train - hold).max() > 5


def test_unknown_label_is_a_one_line_error(art):
    with pytest.raises(RefereeError, match="unknown label '9z'"):
        render_crop(art, "9z", np.random.default_rng(0))


def test_missing_art_names_the_folder(tmp_path):
    with pytest.raises(RefereeError, match=str(tmp_path)):
        art_dir(tmp_path)


def test_other_sets_designs_are_drawn_for_training_only(art, monkeypatch):
    """Training (harsh) faces are drawn in other sets' designs; held-out crops, which the
    accuracy figure is measured on, draw the art as it is."""
    import vision.render as render

    calls = []
    real = render._vary_face
    monkeypatch.setattr(render, "_vary_face", lambda *a: calls.append(a[4]) or real(*a))
    render_set(art, 2, seed=5, backgrounds="holdout")
    assert calls == []
    rng = np.random.default_rng(5)
    for label in TILE_CODES:
        render_crop(art, label, rng, harsh=True)
    assert set(TILE_CODES) <= set(calls)


def test_varied_white_dragons_keep_a_blank_or_framed_face(art):
    """A framed white dragon is still mostly face colour inside its frame: the frame must not
    turn it into some other tile's drawing."""
    import vision.render as render

    rng = np.random.default_rng(11)
    for _ in range(20):
        face = np.full((80, 60, 3), 230, np.float32)
        render._dragon_frame(rng, art, face, np.full(3, 230, np.float32))
        assert (np.abs(face - 230).max(axis=2) > 40).mean() < 0.5
