"""Tile faces written in fonts (training only): every character tile gets a face in a set's inks,
the fonts differ from one another, and a missing font folder says so in one line."""
import numpy as np
import pytest

from referee.errors import RefereeError
from vision.synthesis.calligraphy import DEFAULT_FONT_DIR, Calligraphy, labels_written
from vision.synthesis.render import _ART_SIZE, LABELS, TileArt, render_crop

PIL = pytest.importorskip("PIL", reason="calligraphy draws with Pillow (the test and train extras)")


@pytest.fixture(scope="module")
def written():
    if not any(DEFAULT_FONT_DIR.glob("*.ttc")):
        pytest.skip(f"no CJK fonts in {DEFAULT_FONT_DIR} (Debian: apt install fonts-noto-cjk; .ci/run does)")
    return Calligraphy()


def test_written_labels_are_the_man_tiles_and_the_red_dragon():
    assert set(labels_written()) == {f"{n}m" for n in "1234567890"} | {"7z"}
    assert set(labels_written()) <= set(LABELS)


def test_every_font_face_is_read(written):
    # Sans and Serif, Regular and Bold, each in five regional forms: 20 hands.
    assert len(written.faces) >= 16


def _ink(face):
    """Mean BGR of the inked pixels."""
    inked = face[..., 3] > 0.5
    assert inked.mean() > 0.05, "the face has almost no ink"
    return face[..., :3][inked].mean(axis=0)


@pytest.mark.parametrize("label", labels_written())
def test_each_character_tile_is_written_at_the_arts_size(written, label):
    face = written.art(np.random.default_rng(1), label, _ART_SIZE)
    assert face.shape == (_ART_SIZE[1], _ART_SIZE[0], 4)
    assert face.dtype == np.float32 and 0.0 <= face.min() and face.max() <= 1.0
    _ink(face)


@pytest.mark.parametrize("label", ["1p", "5s", "1z", "3z", "4z", "5z", "6z", "back", "none"])
def test_pins_sous_winds_haku_and_hatsu_are_left_to_the_art(written, label):
    assert written.art(np.random.default_rng(0), label, _ART_SIZE) is None


def test_the_red_dragon_is_inked_red(written):
    for seed in range(5):
        b, g, r = _ink(written.art(np.random.default_rng(seed), "7z", _ART_SIZE))
        assert r > 2 * max(b, g)


def test_man_tiles_have_a_dark_number_over_a_red_man_and_the_red_five_is_all_red(written):
    h = _ART_SIZE[1]
    for seed in range(5):
        face = written.art(np.random.default_rng(seed), "9m", _ART_SIZE)
        top, bottom = face[: int(h * 0.35)], face[int(h * 0.6):]
        assert max(_ink(top)) < 0.5                     # 九 in black or navy
        b, g, r = _ink(bottom)
        assert r > 2 * max(b, g)                        # 萬 in red
        b, g, r = _ink(written.art(np.random.default_rng(seed), "0m", _ART_SIZE)[: int(h * 0.35)])
        assert r > 2 * max(b, g)                        # the red five's number is red too


def test_fonts_write_the_same_character_in_different_hands(written):
    faces = [written.art(np.random.default_rng(seed), "9m", _ART_SIZE)[..., 3] > 0.5 for seed in range(12)]
    differ = sum(np.mean(a != b) > 0.05 for a, b in zip(faces, faces[1:]))
    assert differ >= 6


def test_a_folder_without_fonts_is_one_line_naming_it(tmp_path):
    with pytest.raises(RefereeError) as exc:
        Calligraphy(tmp_path)
    assert str(tmp_path) in str(exc.value) and "\n" not in str(exc.value)


def test_written_faces_reach_harsh_crops_only_when_asked(shared_data, written):
    root = shared_data / "tiles" / "fluffystuff" / "Export"
    plain, fonts = TileArt(root), TileArt(root, calligraphy=written)
    assert plain.calligraphy is None
    # Without fonts a seed draws the same crop every time ...
    a = [render_crop(plain, "9m", np.random.default_rng(s), harsh=True) for s in range(20)]
    b = [render_crop(plain, "9m", np.random.default_rng(s), harsh=True) for s in range(20)]
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    # ... and with fonts some harsh crops of a character tile change, the gentle ones never.
    c = [render_crop(fonts, "9m", np.random.default_rng(s), harsh=True) for s in range(20)]
    assert sum(x.shape != y.shape or not np.array_equal(x, y) for x, y in zip(a, c)) >= 3
    for s in range(5):
        assert np.array_equal(render_crop(plain, "9m", np.random.default_rng(s)),
                              render_crop(fonts, "9m", np.random.default_rng(s)))
