"""``riichi-referee detect``: tiles listed row by row with boxes and confidence."""
import json
from collections import Counter

import cv2
import numpy as np
import pytest

from app.cli import main
from testkit.photos import LABELS
from vision.reading.picture import detect
from vision.synthesis.synthetic import TableState, render_camera, render_state


def _table():
    st = TableState(walls=False, dora=["5s"])
    st.ponds[0] = [("1m", False), ("2m", False), ("3z", False), ("4s", True), ("5p", False)]
    return st


@pytest.fixture(scope="module")
def top_png(tmp_path_factory):
    """The table of :func:`_table` drawn top down, written once for the module's tests (each
    only reads it)."""
    path = tmp_path_factory.mktemp("top") / "top.png"
    cv2.imwrite(str(path), render_state(_table(), px_per_mm=2.0))
    return path


@pytest.fixture(scope="module")
def camera_png(tmp_path_factory):
    """The same table as a camera above it sees it (no markers), written once likewise."""
    image, _ = render_camera(render_state(_table(), px_per_mm=2.0), out_size=(1600, 1200))
    path = tmp_path_factory.mktemp("camera") / "camera.png"
    cv2.imwrite(str(path), image)
    return path


def test_detect_json_on_a_top_down_table(shared_data, top_png, capsys):
    path = top_png
    # the learned finder's faces, cut with a margin of table, are read by the shipped model
    assert main(["detect", str(path), "--px-per-mm", "2", "--json"]) == 0
    tiles = json.loads(capsys.readouterr().out)
    assert [t["tile"] for t in tiles] == ["back", "5s", "back", "back", "back", "back",
                                           "1m", "2m", "3z", "4s", "5p"]
    four_s = tiles[9]
    x1, y1, x2, y2 = four_s["box"]
    assert x2 - x1 > y2 - y1          # the riichi tile lies across
    assert all(0 < t["confidence"] <= 1 for t in tiles)


def test_detect_text_marks_each_unsure_reading_and_says_what_the_mark_means(shared_data, top_png,
                                                                           capsys):
    """Without --json a referee reads the codes: the unsure ones carry a ?, and a line says
    what it means; a picture read surely shows neither."""
    path = top_png
    assert main(["detect", str(path), "--px-per-mm", "2", "--json"]) == 0
    tiles = json.loads(capsys.readouterr().out)
    confidences = sorted({t["confidence"] for t in tiles})
    assert len(confidences) >= 2
    # a threshold between the least sure readings and the rest: some unsure, some sure
    below = (confidences[0] + confidences[1]) / 2
    assert main(["detect", str(path), "--px-per-mm", "2", "--unsure-below", f"{below}"]) == 0
    out, err = capsys.readouterr()
    words = out.split()
    assert [w.rstrip("?") for w in words] == [t["tile"] for t in tiles]
    assert [w.endswith("?") for w in words] == [t["confidence"] < below for t in tiles]
    assert err.startswith(f"?: unsure, read with confidence below {below:g}: look at")
    assert main(["detect", str(path), "--px-per-mm", "2", "--unsure-below", "0"]) == 0
    out, err = capsys.readouterr()
    assert "?" not in out and err == ""


def test_the_drawn_picture_has_a_legend_for_its_two_colours():
    """Green is sure, orange unsure: a strip below the picture says so, and the picture
    itself is not covered."""
    from vision.reading.picture import SURE_COLOUR, UNSURE_COLOUR, draw

    image = np.full((300, 400, 3), 90, np.uint8)
    tiles = [{"tile": "1m", "quad": [[50, 50], [90, 50], [90, 110], [50, 110]]},
             {"tile": "5p", "quad": [[200, 50], [240, 50], [240, 110], [200, 110]],
              "unsure": True}]
    drawn = draw(image, tiles, unsure_below=0.8)
    assert drawn.shape[1] == 400 and drawn.shape[0] > 300
    assert (drawn[150:, :][:150] == 90).all()          # below the tiles: the picture as it was
    coloured = lambda region, colour: (region == colour).all(axis=2).any()
    assert coloured(drawn[30:120, 40:100], SURE_COLOUR)
    assert coloured(drawn[30:120, 190:250], UNSURE_COLOUR)
    assert not coloured(drawn[30:120, 190:250], SURE_COLOUR)
    legend = drawn[300:].reshape(-1, 3)
    colours = {tuple(int(v) for v in p) for p in legend}
    assert SURE_COLOUR in colours and UNSURE_COLOUR in colours
    assert (legend.max(axis=1) < 60).sum() > 100       # and its words, in black


def test_detect_finder_felt_reads_a_top_down_table_with_the_felt_colour_finder(shared_data, top_png,
                                                                                capsys):
    """``--finder felt`` brings back the old finder for a flat printed table, which the art
    matcher reads as the felt finder cuts it."""
    path = top_png
    assert main(["detect", str(path), "--px-per-mm", "2", "--finder", "felt", "--classifier", "art",
                 "--json"]) == 0
    tiles = json.loads(capsys.readouterr().out)
    assert [t["tile"] for t in tiles][-5:] == ["1m", "2m", "3z", "4s", "5p"]


@pytest.mark.parametrize("name, model", [(None, "finder-int8.onnx"), ("dark", "finder-dark-int8.onnx")])
def test_detect_finder_dark_names_the_finder_for_sets_with_dark_faces(name, model):
    """A referee checking a photo of a dark-faced set asks for its finder by name, as the
    table's config does, not by a file's path."""
    from app.commands.detect import load_finder

    assert load_finder(name).model_path.name == model


def test_a_photo_of_a_set_with_dark_faces_is_read_with_the_finder_for_them(shared_data):
    """A rendered photo of a whole table in a dark-faced set (held-out table top): the
    default finder finds 11 of its 68 face-up tiles, the one for dark faces 37. ``detect``
    reads the photo with the default one, sees the faces it found are dark and reads it again
    with the other."""
    from vision.finding.learned import find_tiles_photo, match_boxes
    from vision.reading.classifier import TileClassifier
    from vision.synthesis.faces import FaceBank
    from vision.synthesis.render import TileArt
    from vision.synthesis.scene import POSITIVE, render_scene

    scene = render_scene(FaceBank(TileArt()), np.random.default_rng(1), (640, 480), kind="table",
                         tables="holdout", dark_sets=1.0)
    face_up = [t.quad for t in scene.tiles if t.status == POSITIVE and t.code not in ("back", "x")]
    others = [t.quad for t in scene.tiles if t.status != POSITIVE]
    alone = match_boxes([t.quad for t in find_tiles_photo(scene.image).tiles], face_up, others)
    read = detect(scene.image, TileClassifier(threads=1), photo=True)
    found = match_boxes([np.float32(t["quad"]) for t in read], face_up, others)
    assert found["tp"] >= 2 * alone["tp"], (found, alone)


@pytest.mark.parametrize("dark_sets, second", [(1.0, "tiles-dark-int8.onnx"),
                                              (0.0, "tiles-small-print-int8.onnx")])
def test_a_photo_of_a_dark_set_has_its_doubts_read_by_the_dark_faces_model(
        shared_data, monkeypatch, dark_sets, second):
    """A rendered photo of a whole table read as ``detect`` reads a set not enrolled: the faces
    the table's model doubts are read by the second model trained on dark faces where the set's
    faces are dark (on 40 such photos it names 0.6873 of the face-up tiles with no sure
    misread, the small-print one 0.6726 with one: bench/dark_photos.py), by the small-print one
    where they are ivory."""
    from vision.reading.classifier import TileClassifier
    from vision.reading.tileset import load_classifier
    from vision.synthesis.faces import FaceBank
    from vision.synthesis.render import TileArt
    from vision.synthesis.scene import render_scene

    read_by = []
    probabilities = TileClassifier.probabilities
    monkeypatch.setattr(TileClassifier, "probabilities", lambda self, crops: read_by.append(
        self.model_path.name) or probabilities(self, crops))
    scene = render_scene(FaceBank(TileArt()), np.random.default_rng(1), (640, 480), kind="table",
                         tables="holdout", dark_sets=dark_sets)
    assert detect(scene.image, load_classifier(None, threads=1), photo=True)
    assert set(read_by) == {"tiles-int8.onnx", second}


def test_a_photo_of_an_ivory_set_is_read_with_the_default_finder_only(shared_data, monkeypatch):
    from testkit.photos import load_photos
    from vision.finding.learned import DEFAULT_MODEL, TileFinder
    from vision.reading.classifier import TileClassifier

    looks = []
    find = TileFinder.find
    monkeypatch.setattr(TileFinder, "find",
                        lambda self, *a, **k: looks.append(self.model_path) or find(self, *a, **k))
    photo = next(p for p in load_photos(shared_data) if p.name == "6-1.png")
    assert detect(photo.image(), TileClassifier(threads=1), photo=True, looks=None)
    assert looks and set(looks) == {DEFAULT_MODEL}


def test_a_dim_photo_of_an_ivory_set_is_read_with_the_default_finder(shared_data, monkeypatch):
    """A phone photo taken in a dim hall: the ivory faces come out grey (Camerash 1-3 at half
    its light: the crops' median grey under 128, as a dark-faced set's). Their ground is still
    lighter than their ink, so the photo is not read again with the finder for dark faces,
    which found none of its 8 tiles; the default finder finds them all."""
    from testkit.photos import load_photos
    from vision.finding.learned import DEFAULT_MODEL, TileFinder, match_boxes
    from vision.reading.classifier import TileClassifier

    looks = []
    find = TileFinder.find
    monkeypatch.setattr(TileFinder, "find",
                        lambda self, *a, **k: looks.append(self.model_path) or find(self, *a, **k))
    photo = next(p for p in load_photos(shared_data) if p.name == "1-3.jpg")
    dim = (photo.image().astype(np.float32) * 0.5).astype(np.uint8)
    read = detect(dim, TileClassifier(threads=1), photo=True, looks=None)
    assert looks and set(looks) == {DEFAULT_MODEL}
    found = match_boxes([np.float32(t["quad"]) for t in read], photo.quads, photo.ignore)
    assert found["tp"] == len(photo.quads) == 8


def test_a_photo_under_warm_light_is_read_with_its_faces_made_white(shared_data):
    """Camerash 1-1 as a hall's warm lamps would tint it (blue 0.65, green 0.9, red 1.1): the
    finder missed 2 of its 36 tiles and was sure of 12 of the right readings; with the faces'
    ivory ground made grey (vision.finding.colour_cast) it finds all 36, 22 read surely."""
    from testkit.photos import load_photos, score_photo
    from vision.reading.classifier import TileClassifier

    photo = next(p for p in load_photos(shared_data) if p.name == "1-1.jpg")
    warm = np.clip(photo.image() * np.array([0.65, 0.9, 1.1]), 0, 255).astype(np.uint8)
    read = detect(warm, TileClassifier(threads=1), photo=True, looks=None)
    score = score_photo(photo, [(np.float32(t["quad"]), t["tile"], t["confidence"]) for t in read])
    assert score["tp"] == len(photo.quads) == 36
    assert score["named_sure"] >= 20 and not score["misread_sure"]


def test_detect_on_a_camera_picture_with_markers(shared_data, tmp_path, capsys):
    top = render_state(_table(), px_per_mm=2.0)
    image, table_to_image = render_camera(top, out_size=(1600, 1200), tilt=0.08, turn_deg=2)
    path = tmp_path / "camera.png"
    cv2.imwrite(str(path), image)
    assert main(["detect", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "1m 2m 3z 4s 5p"
    # boxes are in the picture's own pixels
    tiles = detect(image, __import__("vision.synthesis.synthetic", fromlist=["x"]).ArtClassifier())
    pond = [t for t in tiles if t["tile"] == "1m"][0]
    centre = cv2.perspectiveTransform(
        __import__("numpy").float64([[[400 - 80 + 13, 400 + 97 + 17.5]]]), table_to_image)[0, 0]
    x1, y1, x2, y2 = pond["box"]
    assert x1 <= centre[0] <= x2 and y1 <= centre[1] <= y2


@pytest.mark.parametrize("finder", [None, "learned", "dark", "felt", "sideways"])
def test_detect_with_a_config_reads_a_calibrated_picture_with_the_tables_finder(
        shared_data, camera_png, tmp_path, capsys, monkeypatch, finder):
    """A referee checking a camera picture with the table's config sees what the table sees:
    the finder its ``[camera] finder`` names (the learned one unless it says otherwise; the one
    for dark faces where it says ``"dark"``)."""
    from vision.finding.learned import DARK_MODEL, DEFAULT_MODEL, TileFinder

    looks = []
    find = TileFinder.find
    monkeypatch.setattr(TileFinder, "find",
                        lambda self, *a, **k: looks.append(self.model_path) or find(self, *a, **k))
    path = camera_png
    config = tmp_path / "table.toml"
    config.write_text("[camera]\n" + (f'finder = "{finder}"\n' if finder else ""))
    code = main(["detect", str(path), "--config", str(config), "--json"])
    out, err = capsys.readouterr()
    if finder == "sideways":
        assert code == 2 and out == ""
        assert err.strip().endswith("[camera] finder must be one of learned, dark, felt, got 'sideways'")
        assert err.strip().count("\n") == 0
        return
    assert code == 0 and json.loads(out)
    assert bool(looks) == (finder != "felt")
    assert set(looks) <= {DARK_MODEL if finder == "dark" else DEFAULT_MODEL}


def test_detect_with_a_config_whose_camera_is_no_table_is_one_line(shared_data, top_png, tmp_path,
                                                                    capsys):
    path = top_png
    config = tmp_path / "table.toml"
    config.write_text("camera = 5\n")
    assert main(["detect", str(path), "--config", str(config)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.endswith(f"config {config}: [camera] must be a table")


def test_missing_or_unreadable_image_is_one_line(tmp_path, capsys):
    assert main(["detect", str(tmp_path / "nope.jpg")]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"riichi-referee detect: image {tmp_path / 'nope.jpg'}: no such file"
    bad = tmp_path / "bad.jpg"
    bad.write_text("not a picture")
    assert main(["detect", str(bad)]) == 2
    assert f"image {bad}: cannot be read (not an image" in capsys.readouterr().err
    assert main(["detect", str(tmp_path)]) == 2
    assert f"image {tmp_path}: is a folder, not an image file" in capsys.readouterr().err


@pytest.mark.parametrize("scale", ["0", "-2", "inf"])
def test_a_top_down_scale_of_nought_or_less_is_one_line(top_png, capsys, scale):
    """A top-down image at nought pixels a mm, or fewer, has no tiles to find: said in one
    line, not an OpenCV assertion from deep in the finder."""
    assert main(["detect", str(top_png), "--px-per-mm", scale]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("riichi-referee detect: --px-per-mm must be over 0") and "\n" not in err


def test_real_photo_with_the_trained_model(shared_data, capsys):
    from vision.reading.classifier import DEFAULT_MODEL
    if not DEFAULT_MODEL.is_file():
        pytest.skip(f"tile model {DEFAULT_MODEL} not built yet (python -m vision.training.train)")
    photo = shared_data / "photos" / "camerash" / "raw-images" / "2-5.jpg"
    assert main(["detect", str(photo), "--json"]) == 0
    tiles = json.loads(capsys.readouterr().out)
    assert len(tiles) == 9
    xs = [t["box"][0] for t in tiles]
    assert xs == sorted(xs)


def _labelled_photo(shared_data, name="2-1.jpg"):
    """A real photo (a row of a set's tiles) and its labelled tiles (quad, code)."""
    labels = json.loads(LABELS.read_text())
    photo = [p for p in labels["photos"] if p["file"] == name][0]
    image = cv2.imread(str(shared_data / "photos" / "camerash" / "raw-images" / name))
    return image, [(np.float32(t["quad"]), t["code"]) for t in photo["tiles"]]


def test_detect_draw_writes_the_picture_with_each_tile_outlined(shared_data, tmp_path, capsys):
    image, truth = _labelled_photo(shared_data)
    path = tmp_path / "row.jpg"
    cv2.imwrite(str(path), image)
    out = tmp_path / "seen.png"
    assert main(["detect", str(path), "--json", "--draw", str(out)]) == 0
    tiles = json.loads(capsys.readouterr().out)
    assert abs(len(tiles) - len(truth)) <= 1
    drawn = cv2.imread(str(out))
    # the picture as it was, with the legend in a strip below it
    assert drawn.shape[1:] == image.shape[1:] and drawn.shape[0] > image.shape[0]
    drawn = drawn[:image.shape[0]]
    # each tile's outline is drawn on its own edge: green when the reading is sure, orange not
    h, w = drawn.shape[:2]
    for t in tiles:
        # the middle of an edge that lies in the picture (a tile at its border is cut off)
        q = t["quad"]
        mids = [((q[k][0] + q[k - 1][0]) / 2, (q[k][1] + q[k - 1][1]) / 2) for k in range(4)]
        inside = [(int(round(x)), int(round(y))) for x, y in mids if 0 <= x < w - 0.5 and 0 <= y < h - 0.5]
        assert inside, t
        x, y = inside[0]
        b, g, r = drawn[y, x].astype(int)
        orange, green = r > 180 and 90 < g < 190 and b < 90, g > 150 and r < 120 and b < 120
        assert (orange if t.get("unsure") else green), (t, (b, g, r))
    assert main(["detect", str(path), "--draw", str(tmp_path / "no" / "x.png")]) == 2
    err = capsys.readouterr().err
    assert err.strip().count("\n") == 0 and "--draw" in err


def test_an_unsure_reading_is_marked_not_passed_off_as_certain(shared_data):
    """A tile whose face is mostly hidden (a finger over it) is read with little confidence:
    it is marked unsure, or not reported, but never given as a sure reading of another tile."""

    from vision.reading.classifier import TileClassifier
    image, truth = _labelled_photo(shared_data)
    quad, code = truth[3]
    centre = quad.mean(axis=0)
    w = float(np.linalg.norm(quad[1] - quad[0]))
    covered = image.copy()
    cv2.ellipse(covered, (int(centre[0]), int(centre[1])), (int(0.45 * w), int(0.6 * w)), 0, 0, 360,
                (120, 160, 215), -1, cv2.LINE_AA)
    tiles = detect(covered, TileClassifier(), photo=True)
    under = [t for t in tiles if cv2.pointPolygonTest(quad, tuple(np.mean(t["quad"], axis=0)), False) >= 0]
    assert all(t.get("unsure") or t["tile"] == code for t in under), under
    assert any(not t.get("unsure") for t in tiles)     # the others are still read surely
    loose = detect(covered, TileClassifier(), photo=True, unsure_below=1.01)
    assert loose and all(t["unsure"] for t in loose)


@pytest.mark.parametrize("name", ["6-1.png", "6-3.png"])
def test_a_photo_of_one_set_is_read_with_no_fifth_copy(shared_data, tmp_path, capsys, name):
    """Real photos of one set (36 tiles each, 33 and 36 of riichi kinds): read as one set, as
    ``detect`` reads by default, every kind is there at most four times and nearly all are
    named right, and never fewer than read tile by tile. (With the shipped models 6-3 is read
    whole and 6-1 but for two of its Hong Kong birds, read as 7m, unsure; the reader before
    them read both whole. Tile by tile, six 7s or six 5m have come out of them; that is the
    models' draw, not a behaviour: a finder or reader that misreads less there must not fail
    this test. tests/test_one_set.py holds the rule itself on readings made up for it.)"""
    from testkit.photos import load_photos, score_photo
    from referee.tiles import base

    photo = [p for p in load_photos(shared_data) if p.name == name][0]
    path = tmp_path / name
    cv2.imwrite(str(path), photo.image())

    def read(*flags):
        assert main(["detect", str(path), "--json", *flags]) == 0
        tiles = json.loads(capsys.readouterr().out)
        reads = [(np.float32(t["quad"]), t["tile"], t["confidence"]) for t in tiles]
        return max(Counter(base(t["tile"]) for t in tiles).values()), score_photo(photo, reads)["named"]

    most, named = read()
    assert most <= 4 and named >= sum(code != "x" for code in photo.codes) - 2
    _, named_alone = read("--tile-by-tile")
    assert named_alone <= named
