"""``riichi-referee detect``: tiles listed row by row with boxes and confidence."""
import json

import cv2
import pytest

from referee.cli import main
from vision.synthetic import TableState, render_camera, render_state
from vision.detect_cli import detect


def _table():
    st = TableState(walls=False, dora=["5s"])
    st.ponds[0] = [("1m", False), ("2m", False), ("3z", False), ("4s", True), ("5p", False)]
    return st


def test_detect_json_on_a_top_down_table(shared_data, tmp_path, capsys):
    path = tmp_path / "top.png"
    cv2.imwrite(str(path), render_state(_table(), px_per_mm=2.0))
    assert main(["detect", str(path), "--px-per-mm", "2", "--classifier", "art", "--json"]) == 0
    tiles = json.loads(capsys.readouterr().out)
    assert [t["tile"] for t in tiles] == ["back", "5s", "back", "back", "back", "back",
                                           "1m", "2m", "3z", "4s", "5p"]
    four_s = tiles[9]
    x1, y1, x2, y2 = four_s["box"]
    assert x2 - x1 > y2 - y1          # the riichi tile lies across
    assert all(0 < t["confidence"] <= 1 for t in tiles)


def test_detect_on_a_camera_picture_with_markers(shared_data, tmp_path, capsys):
    top = render_state(_table(), px_per_mm=2.0)
    image, table_to_image = render_camera(top, out_size=(1600, 1200), tilt=0.08, turn_deg=2)
    path = tmp_path / "camera.png"
    cv2.imwrite(str(path), image)
    assert main(["detect", str(path), "--classifier", "art"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "1m 2m 3z 4s 5p"
    # boxes are in the picture's own pixels
    tiles = detect(image, __import__("vision.synthetic", fromlist=["x"]).ArtClassifier())
    pond = [t for t in tiles if t["tile"] == "1m"][0]
    centre = cv2.perspectiveTransform(
        __import__("numpy").float64([[[400 - 80 + 13, 400 + 97 + 17.5]]]), table_to_image)[0, 0]
    x1, y1, x2, y2 = pond["box"]
    assert x1 <= centre[0] <= x2 and y1 <= centre[1] <= y2


def test_missing_or_unreadable_image_is_one_line(tmp_path, capsys):
    assert main(["detect", str(tmp_path / "nope.jpg")]) == 2
    err = capsys.readouterr().err
    assert err.strip().count("\n") == 0 and "does not exist" in err
    bad = tmp_path / "bad.jpg"
    bad.write_text("not a picture")
    assert main(["detect", str(bad)]) == 2
    assert "cannot be read" in capsys.readouterr().err


def test_real_photo_with_the_trained_model(shared_data, capsys):
    from vision.classifier import DEFAULT_MODEL
    if not DEFAULT_MODEL.is_file():
        pytest.skip(f"tile model {DEFAULT_MODEL} not built yet (python -m vision.train)")
    photo = shared_data / "photos" / "camerash" / "raw-images" / "2-5.jpg"
    assert main(["detect", str(photo), "--json"]) == 0
    tiles = json.loads(capsys.readouterr().out)
    assert len(tiles) == 9
    xs = [t["box"][0] for t in tiles]
    assert xs == sorted(xs)


def _hand_row_photo(path):
    """A photo of a row of tiles with no markers: the shared tile art drawn on a plain table."""
    from vision.calibration import TableLayout
    from vision.synthetic import PlacedTile, render_topdown
    codes = ["1m", "2m", "3m", "5p", "6s", "7s", "1z", "7z"]
    tiles = [PlacedTile(c, 20 + 13 + i * 27, 30) for i, c in enumerate(codes)]
    image = render_topdown(tiles, layout=TableLayout(width_mm=40 + 27 * len(codes), height_mm=60),
                           px_per_mm=2.2, markers=False)
    cv2.imwrite(str(path), image)
    return image, codes


def test_detect_draw_writes_the_picture_with_each_tile_outlined(shared_data, tmp_path, capsys):
    image, codes = _hand_row_photo(tmp_path / "row.png")
    out = tmp_path / "seen.png"
    assert main(["detect", str(tmp_path / "row.png"), "--json", "--draw", str(out)]) == 0
    tiles = json.loads(capsys.readouterr().out)
    assert [t["tile"] for t in tiles] == codes
    drawn = cv2.imread(str(out))
    assert drawn.shape == image.shape
    # each tile's outline is drawn on its own edge, in green when the reading is sure
    for t in tiles:
        x1, y1, x2, y2 = t["box"]
        edge = drawn[y1:y2 + 1, x1:x1 + 2].reshape(-1, 3)
        assert ((edge[:, 1] > 150) & (edge[:, 0] < 80) & (edge[:, 2] < 80)).mean() > 0.3
    assert main(["detect", str(tmp_path / "row.png"), "--draw", str(tmp_path / "no" / "x.png")]) == 2
    err = capsys.readouterr().err
    assert err.strip().count("\n") == 0 and "--draw" in err


def test_an_unsure_reading_is_marked_not_passed_off_as_certain(shared_data, tmp_path):
    """A tile whose face is mostly hidden (a finger over it) is read with little confidence:
    it is marked unsure, or not reported, but never given as a sure reading of another tile."""
    from vision.classifier import TileClassifier
    image, codes = _hand_row_photo(tmp_path / "row.png")
    x0 = int((20 + 3 * 27) * 2.2)
    covered = image.copy()
    cv2.ellipse(covered, (x0 + 30, 55), (26, 40), 0, 0, 360, (120, 160, 215), -1, cv2.LINE_AA)
    tiles = detect(covered, TileClassifier(), photo=True)
    sure = [t for t in tiles if not t.get("unsure")]
    assert all(t["confidence"] >= 0.8 for t in sure)
    assert [t["tile"] for t in sure if t["box"][2] < x0 or t["box"][0] > x0 + 60] == \
        [c for i, c in enumerate(codes) if i != 3]
    under = [t for t in tiles if t["box"][0] <= x0 + 30 <= t["box"][2]]
    assert all(t.get("unsure") or t["tile"] == "5p" for t in under)
    loose = detect(covered, TileClassifier(), photo=True, unsure_below=1.01)
    assert loose and all(t["unsure"] for t in loose)
