"""Tile faces written in fonts (training only): every character tile gets a face in a set's inks,
the fonts differ from one another, the honours are written only when asked, and a missing
font folder or a font without a character says so in one line."""
from pathlib import Path

import numpy as np
import pytest

from referee.errors import RefereeError
from vision.synthesis.calligraphy import (
    BIRD_FONTS, BRUSH_FONT_DIRS, DEFAULT_FONT_DIR, DRAGON_FONTS, Calligraphy, labels_written)
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


@pytest.fixture(scope="module")
def honours(written):
    return Calligraphy(honours=True)


def test_with_honours_every_character_tile_is_written():
    assert set(labels_written(honours=True)) == set(labels_written()) | {"1z", "2z", "3z", "4z", "6z"}
    assert set(labels_written(honours=True)) <= set(LABELS)


@pytest.mark.parametrize("label", ["1z", "2z", "3z", "4z", "6z", "7z", "9m"])
def test_written_honours_are_inked_as_sets_print_them(honours, label):
    for seed in range(6):
        face = honours.art(np.random.default_rng(seed), label, _ART_SIZE)
        assert face.shape == (_ART_SIZE[1], _ART_SIZE[0], 4)
        b, g, r = _ink(face if label != "9m" else face[: int(_ART_SIZE[1] * 0.35)])
        if label == "6z":
            assert g > 1.3 * max(b, r)                      # 發 in green
        elif label == "7z":
            assert r > 2 * max(b, g)                        # 中 in red
        else:
            assert r < 0.5 and b >= r                       # winds and numbers: black, navy or blue


def test_written_honours_are_the_characters_not_one_blot(honours):
    """Each wind is its own character: the same font and seed write 東 and 北 apart."""
    faces = {lab: honours.art(np.random.default_rng(3), lab, _ART_SIZE)[..., 3] > 0.5
             for lab in ("1z", "2z", "3z", "4z", "6z")}
    labs = list(faces)
    for i, a in enumerate(labs):
        for b in labs[i + 1:]:
            assert np.mean(faces[a] != faces[b]) > 0.05, (a, b)


def test_the_winds_and_hatsu_are_left_to_the_art_unless_asked(written):
    for label in ("1z", "4z", "6z"):
        assert written.art(np.random.default_rng(0), label, _ART_SIZE) is None


def test_a_font_without_a_character_is_one_line_naming_it_and_the_character():
    """A font lacking a glyph draws its "missing" box, which must not be learned as 九."""
    latin = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
    if not latin.is_file():
        pytest.skip(f"no {latin} to stand for a font without CJK characters")
    with pytest.raises(RefereeError) as exc:
        Calligraphy(latin)
    assert str(latin) in str(exc.value) and "一" in str(exc.value) and "\n" not in str(exc.value)


def test_a_font_place_that_is_not_there_is_one_line_naming_it(tmp_path):
    """A brush font package not installed must stop the training, not train another reader."""
    gone = tmp_path / "kouzan-mouhitsu"
    with pytest.raises(RefereeError) as exc:
        Calligraphy([gone])
    assert str(gone) in str(exc.value) and "\n" not in str(exc.value)


def test_several_font_places_are_read_folders_and_files(written):
    one = sorted(DEFAULT_FONT_DIR.glob("*.ttc"))[0]
    both = Calligraphy([one, DEFAULT_FONT_DIR])
    assert len(both.faces) == len(written.faces) + len(Calligraphy(one).faces)
    assert both.files[0] == str(one)


def test_the_training_names_pools_of_other_fonts_apart(written, honours):
    from vision.training.train import _fonts_tag, _places

    # the first font pools (Noto, man tiles and 中) keep their cached crops' names
    assert _fonts_tag(written) == ""
    assert _fonts_tag(honours) != "" and _fonts_tag(honours) != _fonts_tag(Calligraphy(
        sorted(DEFAULT_FONT_DIR.glob("*.ttc"))[0], honours=True))
    # --fonts: places separated as paths are, "brush" for the brush fonts Debian packs
    import os
    assert _places(f"{DEFAULT_FONT_DIR}{os.pathsep}brush") == [DEFAULT_FONT_DIR, *BRUSH_FONT_DIRS]


def _installed(fonts, what: str, packages: str) -> list[Path]:
    """Those of ``fonts`` installed here; the test skips, saying which packages, if none are."""
    there = [p for p in fonts if p.is_file()]
    if not there:
        pytest.skip(f"no symbol font drawing {what} ({', '.join(map(str, fonts))}; "
                    f"Debian: apt install {packages})")
    return there


@pytest.fixture(scope="module")
def birds(written):
    return Calligraphy(birds=_installed(BIRD_FONTS, "the mahjong tiles",
                                        "fonts-symbola fonts-noto-core"))


def test_birds_are_drawn_for_the_1s_only_when_asked(written, birds):
    assert "1s" not in labels_written() and "1s" in labels_written(birds=True)
    assert written.art(np.random.default_rng(0), "1s", _ART_SIZE) is None
    for seed in range(6):
        face = birds.art(np.random.default_rng(seed), "1s", _ART_SIZE)
        assert face.shape == (_ART_SIZE[1], _ART_SIZE[0], 4)
        _ink(face)
    # the rest is as without birds
    assert birds.art(np.random.default_rng(0), "2s", _ART_SIZE) is None


def test_the_bird_is_drawn_without_the_tiles_frame(birds):
    """The symbol font draws the whole tile; only the bird inside is kept, so no written 1s
    carries a frame round its edge that no real face has."""
    for seed in range(8):
        alpha = birds.art(np.random.default_rng(seed), "1s", _ART_SIZE)[..., 3] > 0.5
        h, w = alpha.shape
        rows, cols = alpha.mean(axis=1), alpha.mean(axis=0)
        assert rows.max() < 0.6 and cols.max() < 0.6, seed


def test_a_font_without_the_bird_is_one_line_naming_it(written):
    with pytest.raises(RefereeError) as exc:
        Calligraphy(birds=[sorted(DEFAULT_FONT_DIR.glob("*.ttc"))[0]])
    assert "U+1F010" in str(exc.value) and "\n" not in str(exc.value)


@pytest.fixture(scope="module")
def dragons(written):
    return Calligraphy(dragons=_installed(DRAGON_FONTS, "a dragon", "fonts-symbola"))


def test_picture_dragons_are_drawn_red_and_green_only_when_asked(written, dragons, monkeypatch):
    """Without the honours only 中 is written; with dragons 發 joins the written labels, drawn
    as a picture or left to the art, and 中 is a picture some of the time, in red."""
    assert "6z" not in labels_written() and "6z" in labels_written(dragons=True)
    assert written.art(np.random.default_rng(0), "6z", _ART_SIZE) is None
    green = [dragons.art(np.random.default_rng(seed), "6z", _ART_SIZE) for seed in range(16)]
    drawn = [face for face in green if face is not None]
    assert 3 <= len(drawn) <= 13      # about half drawn; the rest left to the art
    for face in drawn:
        b, g, r = _ink(face)
        assert g > r and g > b
    # a red dragon is a picture or 中, red either way, about half of each
    import vision.synthesis.calligraphy as calligraphy

    def reds(share):
        monkeypatch.setattr(calligraphy, "PICTURE_SHARE", share)
        return [dragons.art(np.random.default_rng(seed), "7z", _ART_SIZE) for seed in range(16)]
    pictures, characters, red = reds(1.0), reds(0.0), reds(0.5)
    for face in red:
        b, g, r = _ink(face)
        assert r > g and r > b
    drawn = sum(np.array_equal(a, b) for a, b in zip(red, pictures))
    assert 3 <= drawn <= 13
    assert drawn + sum(np.array_equal(a, b) for a, b in zip(red, characters)) == 16
    # the rest is as without dragons
    assert dragons.art(np.random.default_rng(0), "1z", _ART_SIZE) is None


def test_a_font_without_the_dragon_is_one_line_naming_it(written):
    with pytest.raises(RefereeError) as exc:
        Calligraphy(dragons=[sorted(DEFAULT_FONT_DIR.glob("*.ttc"))[0]])
    assert "U+1F409" in str(exc.value) and "\n" not in str(exc.value)


def test_the_training_names_pools_with_dragons_apart(written, dragons):
    from vision.training.train import _dragon_places, _fonts_tag, _places

    assert _dragon_places("symbols") == list(DRAGON_FONTS) and _places("symbols") == list(BIRD_FONTS)
    assert _dragon_places("") == []
    assert _fonts_tag(dragons) not in ("", _fonts_tag(written))


def test_each_brush_font_there_writes_every_character_tile():
    """The brush fonts the training names by default for --fonts brush: each there has every
    character (a font missing 萬 or a wind would stop the training, one line naming it)."""
    there = [p for p in BRUSH_FONT_DIRS if p.exists()]
    if not there:
        pytest.skip("no brush fonts here (Debian: apt install fonts-kouzan-mouhitsu "
                    "fonts-aoyagi-soseki fonts-arphic-ukai fonts-cwtex-kai fonts-lxgw-wenkai fonts-klee)")
    brush = Calligraphy(there, honours=True)
    assert len(brush.faces) >= len(there)
    for label in labels_written(honours=True):
        _ink(brush.art(np.random.default_rng(2), label, _ART_SIZE))
