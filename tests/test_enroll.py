"""Enrollment: the printable sheet, a photo of it with the tournament's tiles read back place by
place, one line per problem and nothing saved until there is none, the set stored beside the
config and used by the table, ``--clear``."""
from __future__ import annotations

import functools

import cv2
import numpy as np
import pytest

from app.cli import main
from vision.enrollment.sheet import (
    A4_PAGES,
    PLACE_CODES,
    SheetLayout,
    read_sheet,
    render_sheet,
)
from vision.reading.classifier import HALF_TURN_BELOW, TileClassifier
from vision.reading.tileset import (
    EnrolledClassifier,
    TileSet,
    load_classifier,
    tileset_path,
)
from vision.synthesis.sheet_photo import _paste, sheet_photo
from vision.synthesis.synthetic import sized_face


def other_inks(canvas, code, cx, cy, w, h, rng):
    """A set printed in other inks than the ones the model learned (red and blue swapped):
    the shipped model misreads a third of it."""
    if code == "coin":   # something on a place that is not a tile
        cv2.circle(canvas, (int(cx), int(cy)), int(w * 0.3), (60, 140, 200), -1)
        return
    _paste(canvas, sized_face(code, w, h)[..., [2, 1, 0, 3]], cx, cy, rng.uniform(-3, 3))


def other_inks_photo(seed: int, laid: dict | None = None, **photo) -> np.ndarray:
    """``sheet_photo(other_inks, laid, seed=seed, **photo)``, read-only: tests that photograph
    the set the same way share one drawing of it per test process."""
    every = tuple(sorted((laid or {c: c for c in PLACE_CODES}).items()))
    return _other_inks_photo(seed, every, tuple(sorted(photo.items())))


@functools.lru_cache(maxsize=None)
def _other_inks_photo(seed: int, laid: tuple, photo: tuple) -> np.ndarray:
    shot = sheet_photo(other_inks, dict(laid), seed=seed, **dict(photo))
    shot.flags.writeable = False
    return shot


@functools.lru_cache(maxsize=None)
def _read_back(seed: int) -> tuple[np.ndarray, ...]:
    crops = tuple(r.crop for r in read_sheet(other_inks_photo(seed)))
    for crop in crops:
        crop.flags.writeable = False    # shared by the tests that read this photo
    return crops


def read_back(seed: int) -> list[np.ndarray]:
    """The crops, place by place, read from a photo of the sheet with the other-inks set on
    it (``seed``: the photo's light, angle and tiles' lie). Several tests read the same
    photos: each is drawn and read once per test process."""
    return list(_read_back(seed))


def table_model(clf):
    """The table's own model of what ``load_classifier`` gives: the first of a pair
    (vision.reading.second_opinion, tested in test_second_opinion.py), else itself."""
    return getattr(clf, "first", clf)


def laid(**changes):
    out = {c: c for c in PLACE_CODES}
    out.update({k.replace("_", ""): v for k, v in changes.items()})
    return out


@pytest.fixture(scope="module")
def model():
    return TileClassifier(threads=1)


@pytest.fixture(scope="module")
def enrolled(tmp_path_factory, shared_data):
    """The other-inks set enrolled from one photo through the command, as a referee does."""
    folder = tmp_path_factory.mktemp("table")
    photo = folder / "sheet.jpg"
    cv2.imwrite(str(photo), other_inks_photo(11))
    config = folder / "table.toml"
    config.write_text("[service]\ncamera_timeout = 5.0\n")
    assert main(["enroll", str(photo), "--config", str(config), "--name", "Hall A set"]) == 0
    return config


def test_the_printed_sheet_has_its_markers_and_a_place_for_every_face():
    page = render_sheet(dpi=100)
    assert page.shape[:2] == (1169, 1654)                  # A3 landscape
    places = read_sheet(page, where="sheet.png")
    assert [p.place.code for p in places] == list(PLACE_CODES)
    assert len(PLACE_CODES) == 38 and "back" in PLACE_CODES and "0p" in PLACE_CODES
    assert all(p.status == "empty" for p in places)       # nothing laid on it yet
    rects = [(p.place.x, p.place.y, p.place.x + p.place.w, p.place.y + p.place.h) for p in places]
    assert all(r[2] - r[0] >= 30 and r[3] - r[1] >= 40 for r in rects)  # the largest tiles fit


def test_sheet_round_trip(enrolled, model):
    """Enroll from one photo, then read another photo of the same set (other light, other
    camera angle, tiles laid a little differently): every tile is read right, where the model
    alone misread many."""
    config = enrolled
    clf = load_classifier(config)
    assert isinstance(table_model(clf), EnrolledClassifier)
    assert config.read_text().count('tileset = "tileset.npz"') == 1
    crops = read_back(12)
    alone = [label for label, _ in model.classify(crops)]
    assert sum(a == c for a, c in zip(alone, PLACE_CODES)) <= 32
    assert [label for label, _ in clf.classify(crops)] == list(PLACE_CODES)


def test_the_set_is_stored_beside_the_config_with_its_crops(enrolled):
    ts = TileSet.load(tileset_path(enrolled))
    assert ts.name == "Hall A set" and len(ts.labels) == 38 and ts.crops.shape == (38, 128, 96, 3)
    assert ts.enrolled_at[:4].isdigit() and ts.photos[0].endswith("sheet.jpg")


def test_detect_reads_with_the_configs_set(enrolled):
    from app.commands.detect import load_classifier as detect_classifier
    assert isinstance(table_model(detect_classifier("model", None, str(enrolled))),
                      EnrolledClassifier)


def test_a_set_copied_beside_another_tables_config_is_that_tables_set(enrolled, tmp_path):
    # a hall plays one set on every table: enrolled once, the file is copied to each table
    config = tmp_path / "table-7.toml"
    config.write_text('[camera]\nsource = "picamera"\n')
    assert type(table_model(load_classifier(config))) is TileClassifier
    (tmp_path / "tileset.npz").write_bytes(tileset_path(enrolled).read_bytes())
    clf = load_classifier(config)
    assert isinstance(table_model(clf), EnrolledClassifier) and clf.tileset.name == "Hall A set"
    crops = read_back(13)
    assert [label for label, _ in clf.classify(crops)] == list(PLACE_CODES)


def test_a_set_fitted_with_another_model_is_fitted_again(enrolled, model):
    ts = TileSet.load(tileset_path(enrolled))
    ts.model = "0" * 64
    clf = EnrolledClassifier(model, ts)
    assert clf.tileset.model != "0" * 64
    crops = read_back(13)
    assert [label for label, _ in clf.classify(crops)] == list(PLACE_CODES)


def test_an_enrolled_set_reads_a_doubtful_tile_turned_half_round_too(enrolled):
    """As the shipped model does (vision.reading.classifier.read_both_ways): a crop the enrolled set
    reads with doubt gets the average of its reading and the turned crop's; a sure one is
    left as it was."""
    clf = table_model(load_classifier(enrolled))
    crops = read_back(12)
    # half of each face hidden under grey card: some readings become doubtful
    crops += [np.where(np.arange(c.shape[0])[:, None, None] < c.shape[0] // 2, c, 128).astype(np.uint8)
              for c in crops]
    shown = clf.probabilities(crops)
    clf.base.half_turn_below = 0.0
    try:
        once = clf.probabilities(crops)
        turned = clf.probabilities([np.ascontiguousarray(c[::-1, ::-1]) for c in crops])
    finally:
        clf.base.half_turn_below = HALF_TURN_BELOW
    doubt = once.max(axis=1) < HALF_TURN_BELOW
    assert 3 <= doubt.sum() < len(crops), doubt.sum()
    assert np.allclose(shown[~doubt], once[~doubt])
    assert np.allclose(shown[doubt], (once[doubt] + turned[doubt]) / 2, atol=1e-5)


def test_enroll_clear_goes_back_to_the_shipped_model(tmp_path, enrolled):
    config = tmp_path / "table.toml"
    config.write_text(enrolled.read_text())
    (tmp_path / "tileset.npz").write_bytes(tileset_path(enrolled).read_bytes())
    assert isinstance(table_model(load_classifier(config)), EnrolledClassifier)
    assert main(["enroll", "--clear", "--config", str(config)]) == 0
    assert not (tmp_path / "tileset.npz").exists()
    assert 'tileset = ""' in config.read_text()
    assert type(table_model(load_classifier(config))) is TileClassifier


# -- the sheet on two A4 pages ----------------------------------------------------------------

def test_the_a4_sheet_is_two_portrait_pages_holding_every_place_once(tmp_path, capsys):
    assert main(["enroll", "--sheet", str(tmp_path / "sheet.png"), "--paper", "a4",
                 "--dpi", "100"]) == 0
    assert "A4 page 2 of 2" in capsys.readouterr().out
    codes = []
    for k in (1, 2):
        page = cv2.imread(str(tmp_path / f"sheet-{k}.png"))
        assert page.shape[:2] == (1169, 827)                # A4 portrait
        places = read_sheet(page, where=f"sheet-{k}.png")
        assert all(p.status == "empty" for p in places)
        assert all(p.place.w >= 30 and p.place.h >= 40 for p in places)
        codes += [p.place.code for p in places]
    assert sorted(codes) == sorted(PLACE_CODES)
    assert not (tmp_path / "sheet.png").exists()


def two_pages(tmp_path, seed=21, side_by_side=False):
    """Photos of both A4 pages with the other-inks set on them: two, or one of both."""
    shots = [other_inks_photo(seed + k, layout=page,
                              size=(640, 960) if side_by_side else (1280, 960))
             for k, page in enumerate(A4_PAGES)]
    if side_by_side:
        shots = [np.hstack(shots)]
    paths = []
    for k, shot in enumerate(shots):
        paths.append(tmp_path / f"page-{k + 1}.jpg")
        cv2.imwrite(str(paths[-1]), shot)
    return [str(p) for p in paths]


@pytest.mark.parametrize("side_by_side", [False, True], ids=["apart", "side-by-side"])
def test_a4_round_trip(tmp_path, model, side_by_side, shared_data):
    """Both A4 pages, photographed apart or side by side, enroll the set as the A3 sheet
    does: another photo of the set is then read right. Needs the shared art: the placeholder
    faces drawn without it look too alike for the set to be told apart."""
    config = tmp_path / "table.toml"
    assert main(["enroll", *two_pages(tmp_path, side_by_side=side_by_side),
                 "--config", str(config)]) == 0
    ts = TileSet.load(tileset_path(config))
    assert sorted(ts.labels) == sorted(PLACE_CODES)
    crops = read_back(12)
    assert [label for label, _ in load_classifier(config).classify(crops)] == list(PLACE_CODES)


def test_one_a4_page_alone_is_one_line_and_saves_nothing(tmp_path, capsys):
    first, _ = two_pages(tmp_path)
    config = tmp_path / "table.toml"
    assert main(["enroll", first, "--config", str(config)]) == 1
    err = [line for line in capsys.readouterr().err.splitlines() if not line.startswith("note:")]
    assert err == ["riichi-referee enroll: A4 page 2 of 2 (places 1s to face down) is in no "
                   "photo: photograph it with its tiles too",
                   "riichi-referee enroll: nothing saved (1 problem)"]
    assert not config.exists() and not (tmp_path / "tileset.npz").exists()


# -- one line per problem, nothing saved ----------------------------------------------------

def enroll_lines(tmp_path, capsys, **photo):
    path = tmp_path / "sheet.jpg"
    cv2.imwrite(str(path), other_inks_photo(photo.pop("seed", 14), **photo))
    config = tmp_path / "table.toml"
    status = main(["enroll", str(path), "--config", str(config)])
    err = [line for line in capsys.readouterr().err.splitlines() if not line.startswith("note:")]
    assert status == 1
    assert err[-1].startswith("riichi-referee enroll: nothing saved")
    assert not config.exists() and not (tmp_path / "tileset.npz").exists()
    return err[:-1]


def test_a_marker_not_found_is_one_line(tmp_path, capsys):
    layout = SheetLayout()
    x, y = layout.width_mm - layout.margin_mm - layout.marker_mm, layout.margin_mm
    lines = enroll_lines(tmp_path, capsys, cover=(x - 2, y - 2, x + layout.marker_mm + 2,
                                                  y + layout.marker_mm + 2))
    assert len(lines) == 1
    assert "sheet marker 11 (top-right) not found" in lines[0]
    assert lines[0].startswith(f"riichi-referee enroll: {tmp_path / 'sheet.jpg'}: ")


@pytest.mark.usefixtures("shared_data")   # drawn with the tile art: placeholders read otherwise
def test_a_covered_marker_of_an_a4_page_names_the_page(tmp_path, capsys):
    """With page 2 photographed well and page 1 with a marker covered, the one problem is the
    marker: page 1 is in a photo, and is not also said to be missing."""
    page = A4_PAGES[0]
    x, y = page.width_mm - page.margin_mm - page.marker_mm, page.margin_mm
    _, second = two_pages(tmp_path)
    path = tmp_path / "sheet.jpg"
    cv2.imwrite(str(path), other_inks_photo(14, layout=page, cover=(
        x - 2, y - 2, x + page.marker_mm + 2, y + page.marker_mm + 2)))
    assert main(["enroll", str(path), second, "--config", str(tmp_path / "table.toml")]) == 1
    err = [line for line in capsys.readouterr().err.splitlines() if not line.startswith("note:")]
    assert len(err) == 2 and err[-1] == "riichi-referee enroll: nothing saved (1 problem)"
    assert f"{path}: sheet marker 15 (top-right of A4 page 1 of 2) not found" in err[0]


def test_a_photo_without_the_sheet_is_one_line(tmp_path, capsys):
    path = tmp_path / "table.jpg"
    cv2.imwrite(str(path), np.full((480, 640, 3), (40, 110, 40), np.uint8))
    assert main(["enroll", str(path), "--config", str(tmp_path / "table.toml")]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0] == (f"riichi-referee enroll: {path}: no marker of the enrollment sheet found "
                      "(ArUco ids 10-21): the whole sheet must be in the picture, flat and lit")
    assert len(err) == 2


def test_an_empty_place_is_one_line(tmp_path, capsys):
    assert enroll_lines(tmp_path, capsys, laid=laid(_7p=None)) == [
        f"riichi-referee enroll: {tmp_path / 'sheet.jpg'}: place 7p is empty"]


@pytest.mark.usefixtures("shared_data")   # drawn with the tile art: placeholders read otherwise
def test_something_smaller_than_a_tile_is_one_line(tmp_path, capsys):
    (line,) = enroll_lines(tmp_path, capsys, laid=laid(_2s="coin"))
    assert "place 2s holds something smaller than a tile" in line


def test_a_tile_that_looks_like_another_places_tile_is_one_line(shared_data, tmp_path, capsys):
    # with the shared art's faces: placeholder faces all look alike
    (line,) = enroll_lines(tmp_path, capsys, laid=laid(_4m="3m"))
    assert "places 3m and 4m hold tiles that look alike" in line
    assert "is one of them in the wrong place?" in line


def test_every_problem_is_said_at_once(tmp_path, capsys):
    lines = enroll_lines(tmp_path, capsys, laid=laid(_7p=None, _4m="3m", _1z=None))
    assert len(lines) == 3
    for phrase in ("place 7p is empty", "place 1z East is empty", "places 3m and 4m"):
        assert sum(phrase in line for line in lines) == 1, phrase


# -- a set without red fives (EMA 2016, WRC) ----------------------------------------------------

NO_REDS = dict(_0m=None, _0p=None, _0s=None)


def regular(canvas, code, cx, cy, w, h, rng):
    """A set in the art's own inks, red fives red."""
    _paste(canvas, sized_face(code, w, h), cx, cy, rng.uniform(-3, 3))


def test_a_set_without_red_fives_is_enrolled_with_their_places_empty(tmp_path, capsys, model,
                                                                     shared_data):
    """EMA 2016 and WRC play without red fives and their sets have none: the referee leaves
    the three red-five places empty, and the table then never reads a five as a red one."""
    path = tmp_path / "sheet.jpg"
    cv2.imwrite(str(path), sheet_photo(regular, laid=laid(**NO_REDS), seed=16))
    config = tmp_path / "table.toml"
    assert main(["enroll", str(path), "--config", str(config), "--no-red-fives"]) == 0
    assert "the set has no red fives (--no-red-fives)" in capsys.readouterr().out
    ts = TileSet.load(tileset_path(config))
    assert not ts.red_fives and len(ts.labels) == 35 and not any(c[0] == "0" for c in ts.labels)
    # another photo of the sheet with red fives on their places, as if a set with them
    # were read: the set that has none reads each as its plain five
    crops = [r.crop for r in read_sheet(sheet_photo(regular, seed=12))]
    read = [label for label, _ in load_classifier(config).classify(crops)]
    assert read == [("5" + c[1]) if c[0] == "0" else c for c in PLACE_CODES]
    # where the set is taken to have red fives, the red ones are read as red
    ts.red_fives = True
    read = [label for label, _ in EnrolledClassifier(model, ts).classify(crops)]
    assert read == list(PLACE_CODES)


def ruleset_enroll(tmp_path, capsys, **places):
    """Enroll a photo of the sheet at a table whose ruleset plays without red fives."""
    path = tmp_path / "sheet.jpg"
    cv2.imwrite(str(path), other_inks_photo(16, laid(**places)))
    config = tmp_path / "table.toml"
    config.write_text('[service]\nruleset = "ema2016"\n')
    status = main(["enroll", str(path), "--config", str(config)])
    return status, capsys.readouterr(), config


@pytest.mark.usefixtures("shared_data")   # drawn with the tile art: placeholders read otherwise
def test_where_the_ruleset_has_no_red_fives_their_empty_places_say_the_set_has_none(
        tmp_path, capsys):
    status, said, config = ruleset_enroll(tmp_path, capsys, **NO_REDS)
    assert status == 0
    assert (f"the set has no red fives (their places are empty; ruleset ema2016 in {config} "
            "plays without them)") in said.out
    assert not TileSet.load(tileset_path(config)).red_fives


def test_where_the_ruleset_has_no_red_fives_a_set_with_them_still_enrolls_them(tmp_path, capsys):
    status, said, config = ruleset_enroll(tmp_path, capsys)
    assert status == 0 and "no red fives" not in said.out
    ts = TileSet.load(tileset_path(config))
    assert ts.red_fives and {"0m", "0p", "0s"} <= set(ts.labels)


def test_where_the_ruleset_has_no_red_fives_one_red_five_missing_is_one_line(tmp_path, capsys):
    status, said, config = ruleset_enroll(tmp_path, capsys, _0p=None)
    assert status == 1 and not config.with_name("tileset.npz").exists()
    assert said.err.splitlines()[0] == (
        f"riichi-referee enroll: {tmp_path / 'sheet.jpg'}: place 0p red 5 is empty (lay it, or "
        "leave all three red fives' places empty for a set without them)")


def test_an_unknown_ruleset_in_the_config_is_one_line_naming_the_config(tmp_path, capsys):
    path = tmp_path / "sheet.jpg"
    cv2.imwrite(str(path), other_inks_photo(16))
    config = tmp_path / "table.toml"
    config.write_text('[service]\nruleset = "ema2099"\n')
    assert main(["enroll", str(path), "--config", str(config)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(
        f"riichi-referee enroll: config {config}: [service] ruleset: unknown ruleset 'ema2099'")


def test_enroll_without_a_config_says_so_before_reading_any_photo(tmp_path, capsys,
                                                                 monkeypatch):
    """No --config, no RIICHI_CONFIG and no ./table.toml: the set would be saved beside a
    config no table reads. Said at once, before a photo is read or a model loaded."""
    import vision.camera.sources

    read = []
    monkeypatch.setattr(vision.camera.sources, "read_image", lambda p: read.append(p))
    monkeypatch.delenv("RIICHI_CONFIG", raising=False)
    monkeypatch.chdir(tmp_path)
    for argv in (["enroll", "sheet.jpg"], ["enroll", "--clear"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err == ("riichi-referee enroll: config table.toml: no such file (name the "
                       "table's config with --config, or RIICHI_CONFIG: the set is saved "
                       "beside it)\n")
    assert read == [] and not (tmp_path / "table.toml").exists()


def test_a_bad_ruleset_in_the_config_is_named_before_any_photo_is_read(tmp_path, capsys):
    config = tmp_path / "table.toml"
    config.write_text('[service]\nruleset = "ema2099"\n')
    # the photo is not there either: the config, an argument, is checked first
    assert main(["enroll", str(tmp_path / "sheet.jpg"), "--config", str(config)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "ruleset: unknown ruleset 'ema2099'" in err[0]


@pytest.mark.usefixtures("shared_data")   # drawn with the tile art: placeholders read otherwise
def test_empty_red_five_places_of_a_set_with_red_fives_say_how_to_enroll_without(tmp_path, capsys):
    lines = enroll_lines(tmp_path, capsys, laid=laid(**NO_REDS), seed=16)
    assert lines == [f"riichi-referee enroll: {tmp_path / 'sheet.jpg'}: place {c} red 5 is empty "
                     "(a set without red fives: enroll with --no-red-fives)"
                     for c in ("0m", "0p", "0s")]


@pytest.mark.usefixtures("shared_data")   # drawn with the tile art: placeholders read otherwise
def test_a_tile_on_a_red_five_place_of_a_set_without_them_is_one_line(tmp_path, capsys):
    path = tmp_path / "sheet.jpg"
    cv2.imwrite(str(path), other_inks_photo(16, laid(_0m=None, _0p=None)))
    config = tmp_path / "table.toml"
    assert main(["enroll", str(path), "--config", str(config), "--no-red-fives"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0] == (f"riichi-referee enroll: {path}: place 0s red 5 holds a tile, but "
                      "--no-red-fives says the set has none: leave the place empty")
    assert len(err) == 2 and not config.exists()


def test_two_tiles_swapped_are_one_line(tmp_path, capsys, shared_data):
    path = tmp_path / "sheet.jpg"
    cv2.imwrite(str(path), sheet_photo(regular, laid=laid(_1p="9p", _9p="1p"), seed=3))
    assert main(["enroll", str(path), "--config", str(tmp_path / "table.toml")]) == 1
    err = capsys.readouterr().err
    assert "the tile in place 1p reads as 9p and the one in place 9p as 1p: are they swapped?" \
        in err


def test_the_dashboard_is_told_which_set_and_when(enrolled, tmp_path):
    from app.commands.run import show_tileset
    from table.config import load_config
    from table.live import LiveTable

    table = LiveTable()
    show_tileset(table, load_config(enrolled))
    entry = table.health["tileset"]
    assert entry["ok"] and entry["text"].startswith("Hall A set, enrolled 20")
    assert entry["text"].endswith("(38 tiles)")
    bare = tmp_path / "table.toml"
    bare.write_text("[service]\n")
    show_tileset(table, load_config(bare))
    assert table.health["tileset"]["text"] == "shipped model (no tile set enrolled)"


def test_the_dashboard_says_a_set_has_no_red_fives(enrolled, tmp_path):
    from app.commands.run import show_tileset
    from table.config import load_config
    from table.live import LiveTable

    config = tmp_path / "table.toml"
    config.write_text(enrolled.read_text())
    ts = TileSet.load(tileset_path(enrolled))
    ts.red_fives = False
    ts.save(tmp_path / "tileset.npz")
    table = LiveTable()
    show_tileset(table, load_config(config))
    assert table.health["tileset"]["text"].endswith("(38 tiles, no red fives)")


def test_a_referee_correction_is_learnt_and_kept(enrolled, model, tmp_path):
    path = tmp_path / "tileset.npz"
    path.write_bytes(tileset_path(enrolled).read_bytes())
    clf = EnrolledClassifier(model, TileSet.load(path), path)
    crop = read_back(15)[PLACE_CODES.index("7s")]
    clf.learn(crop, "7s")
    kept = TileSet.load(path)
    assert (kept.corrections, len(kept.labels), kept.labels[-1]) == (1, 39, "7s")


def test_a_referee_naming_a_red_five_shows_the_set_has_them(enrolled, model, tmp_path):
    path = tmp_path / "tileset.npz"
    ts = TileSet.load(tileset_path(enrolled))
    ts.red_fives = False
    ts.save(path)
    clf = EnrolledClassifier(model, TileSet.load(path), path)
    crop = read_back(15)[PLACE_CODES.index("0p")]
    clf.learn(crop, "0p")
    assert TileSet.load(path).red_fives


@functools.lru_cache(maxsize=None)
def _sheet_crops(style: str) -> tuple[np.ndarray, ...]:
    from vision.synthesis.render import TileArt
    from vision.synthesis.sheet_photo import art_drawer

    return tuple(r.crop for r in read_sheet(sheet_photo(art_drawer(TileArt(), styles=(style,)), seed=3)))


@pytest.mark.parametrize("style, dark", [("Regular", False), ("Black", True)])
def test_enrolling_tells_a_set_with_dark_faces_from_an_ivory_one(shared_data, style, dark):
    from vision.reading.dark_faces import dark_faces

    assert dark_faces(list(_sheet_crops(style))) is dark


@pytest.mark.parametrize("config_says, told", [(None, True), ('finder = "learned"', True),
                                               ('finder = "dark"', False)])
def test_enrolling_a_dark_set_says_to_read_it_with_the_finder_for_dark_faces(
        shared_data, tmp_path, config_says, told):
    """The default finder misses a fifth of a dark set's pond tiles (bench/solid_ponds.py):
    the referee enrolling one is told how to set the table up for it, unless it already is;
    an ivory set says nothing."""
    from app.commands.enroll import finder_hint

    config = tmp_path / "table.toml"
    config.write_text("[camera]\n" + (config_says + "\n" if config_says else ""))
    hint = finder_hint(list(_sheet_crops("Black")), str(config))
    assert (hint is not None) is told
    if told:
        assert 'finder = "dark"' in hint and str(config) in hint
    assert finder_hint(list(_sheet_crops("Regular")), str(config)) is None
