"""Calibration: the four corner markers give a top-down view of the table in millimetres."""
import tomllib

import cv2
import numpy as np
import pytest

from referee.errors import RefereeError
from vision.camera.calibration import (
    COARSEST_VIEW,
    FINEST_VIEW,
    Calibration,
    TableLayout,
    calibrate,
    camera_px_per_mm,
    detect_markers,
    load_calibration,
    marker_sheet,
    save_to_config,
    view_scale,
)
from vision.synthesis.synthetic import TableState, camera_homography, render_camera, render_state

LAYOUT = TableLayout()


@pytest.fixture(scope="module")
def camera_view():
    top = render_state(TableState(dora=["3p"]), px_per_mm=2.0)
    image, table_to_image = render_camera(top, LAYOUT, 2.0, tilt=0.15, turn_deg=6)
    return image, table_to_image


def test_markers_found_in_a_perspective_view(camera_view):
    image, _ = camera_view
    assert sorted(detect_markers(image)) == [0, 1, 2, 3]


def test_reprojection_under_two_pixels_and_table_points_land_right(camera_view):
    image, table_to_image = camera_view
    cal = calibrate(image, LAYOUT)
    assert cal.reprojection_px < 2.0
    # points all over the table map back to where the camera saw them (within 2 px)
    pts = np.array([[100, 100], [400, 400], [700, 150], [250, 720]], np.float64)
    truth = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), table_to_image).reshape(-1, 2)
    assert np.abs(cal.table_to_image(pts) - truth).max() < 2.0
    # and the image -> table direction is within a millimetre or two
    assert np.abs(cal.image_to_table(truth) - pts).max() < 2.0


def test_warped_view_is_top_down_at_the_scale(camera_view):
    image, _ = camera_view
    cal = calibrate(image, LAYOUT, px_per_mm=1.0)
    top = cal.warp(image)
    assert top.shape[:2] == (800, 800)
    # the marker of id 0 sits in the top-left corner of the warped view
    found = detect_markers(cv2.copyMakeBorder(top, 20, 20, 20, 20, cv2.BORDER_CONSTANT,
                                              value=(255, 255, 255)))
    centre = found[0].mean(axis=0) - 20
    assert np.allclose(centre, [30, 30], atol=3)


def test_every_frame_is_warped_as_the_perspective_says_even_after_recalibrating(camera_view):
    """The view's pixel places are worked out once per calibration and reused; a table that is
    calibrated again (or shown at another scale) must not keep the old places."""
    image, _ = camera_view
    cal = calibrate(image, LAYOUT, px_per_mm=1.0)

    def exact():
        return cv2.warpPerspective(image, cal.topdown_matrix(), cal.topdown_size,
                                   flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)

    def off():
        # per pixel, how far the view is from the exact warp (int16 holds any difference of
        # two uint8 values; 64-bit ints of a 1600 x 1600 view took 200 MB)
        return np.abs(cal.warp(image).astype(np.int16) - exact())

    for _ in range(2):
        diff = off()
        assert diff.max() <= 8 and diff.mean() < 0.5
    cal.px_per_mm = 2.0
    assert cal.warp(image).shape[:2] == (1600, 1600)
    assert off().mean() < 0.5
    cal.homography = np.array([[1.0, 0, 5], [0, 1, 0], [0, 0, 1]]) @ cal.homography   # 5 mm over
    assert off().mean() < 0.5


def test_a_marker_laid_turned_still_calibrates(camera_view):
    image, _ = camera_view
    found = detect_markers(image)
    x1, y1 = found[2].min(axis=0).astype(int) - 2
    x2, y2 = found[2].max(axis=0).astype(int) + 3
    turned = image.copy()
    turned[y1:y2, x1:x2] = np.rot90(image[y1:y2, x1:x2], 2)
    cal = calibrate(turned, LAYOUT)
    assert cal.reprojection_px < 2.0


def test_missing_markers_are_named(camera_view):
    image, _ = camera_view
    found = detect_markers(image)
    hidden = image.copy()
    x1, y1 = found[1].min(axis=0).astype(int) - 3
    x2, y2 = found[1].max(axis=0).astype(int) + 3
    hidden[y1:y2, x1:x2] = 60
    with pytest.raises(RefereeError, match=r"table markers 1 not found \(seen: 0, 2, 3\)"):
        calibrate(hidden, LAYOUT)


def test_saved_to_the_config_without_touching_other_sections(tmp_path, camera_view):
    image, _ = camera_view
    config = tmp_path / "table.toml"
    config.write_text("# the table\n[buttons]\npins = [5, 6, 13, 19]  # seats 0-3\n\n"
                      "[camera]\nsource = \"picamera\"\n\n[lights]\nred = 17\n")
    cal = calibrate(image, LAYOUT)
    written = save_to_config(cal, config)
    data = tomllib.loads(config.read_text())
    assert data["buttons"] == {"pins": [5, 6, 13, 19]}
    assert data["lights"] == {"red": 17}
    assert data["camera"] == {"source": "picamera", "calibration": "calibration.json"}
    assert "# seats 0-3" in config.read_text()
    loaded = load_calibration(config)
    assert written == tmp_path / "calibration.json"
    assert np.allclose(loaded.homography, cal.homography)
    assert [z.name for z in loaded.zones] == [z.name for z in cal.zones]
    # saving again replaces the key rather than adding a second one
    save_to_config(cal, config)
    assert config.read_text().count("calibration =") == 1


def test_broken_calibration_file_is_one_line(tmp_path):
    bad = tmp_path / "calibration.json"
    bad.write_text("{\"homography\": [1, 2]}")
    with pytest.raises(RefereeError, match="not a calibration"):
        Calibration.load(bad)
    with pytest.raises(RefereeError, match="run riichi-referee calibrate"):
        Calibration.load(tmp_path / "none.json")


@pytest.mark.parametrize("scale", ["0", "-1", "20", "nan"])
def test_a_view_scale_no_table_could_use_is_one_line(tmp_path, camera_view, capsys, scale):
    """A scale of nought or less has no view to warp to, and one of 20 px per mm a view of
    16000 pixels a side, more than a Pi holds: said in one line, from the command or a
    calibration file, never a traceback."""
    from app.cli import main

    image, _ = camera_view
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), image)
    assert main(["calibrate", str(path), "--dry-run", "--px-per-mm", scale]) == 2
    err = capsys.readouterr().err.strip()
    assert "scale must be over 0 and at most 4 px per mm" in err and "\n" not in err
    saved = calibrate(image, LAYOUT).to_dict()
    saved["px_per_mm"] = float(scale)
    with pytest.raises(RefereeError, match="not a calibration .*scale must be over 0"):
        Calibration.from_dict(saved, "calibration.json")


@pytest.mark.parametrize("content, expected", [
    (b'[camera]\ncalibration = "caf\xe9.json"\n', "not UTF-8 text"),
    (b"[camera\n", "not valid TOML: "),
])
def test_a_config_the_camera_cannot_read_is_one_line(tmp_path, content, expected):
    config = tmp_path / "table.toml"
    config.write_bytes(content)
    with pytest.raises(RefereeError) as info:
        load_calibration(config)
    assert str(info.value).startswith(f"config {config}: {expected}")
    assert "\n" not in str(info.value)


def test_marker_sheet_prints_markers_at_their_size():
    page = marker_sheet(50.0, dpi=300)
    assert page.shape == (int(297 * 300 / 25.4), int(210 * 300 / 25.4))
    found = detect_markers(page)
    assert sorted(found) == [0, 1, 2, 3]
    side = np.linalg.norm(found[0][1] - found[0][0])
    assert abs(side - 50 * 300 / 25.4) < 3


def test_calibrate_command(tmp_path, camera_view):
    from app.cli import main

    image, _ = camera_view
    path = tmp_path / "table.jpg"
    cv2.imwrite(str(path), image)
    config = tmp_path / "table.toml"
    assert main(["calibrate", str(path), "--config", str(config),
                 "--sheet", str(tmp_path / "sheet.png")]) == 0
    assert (tmp_path / "calibration.json").is_file()
    assert (tmp_path / "sheet.png").is_file()
    assert main(["calibrate", str(tmp_path / "missing.jpg")]) == 2


@pytest.mark.parametrize("frame, scale", [
    ((1280, 960), "coarsest"),     # about 1 px per mm: the view at the finder's own scale
    ((2028, 1520), "its own"),     # the Pi HQ camera's binned frame: about 1.6
    ((4056, 3040), "finest"),      # its full frame, over 3: a finer view would only cost
])
def test_the_view_is_as_fine_as_the_camera_sees_the_table(frame, scale):
    """A top-down view finer than the camera enlarges every frame for nothing, and one coarser
    than the finder sees a table at would be enlarged again for it: the view is the camera's
    own scale where it sees the table finest, held between the two."""
    table_to_image = camera_homography(LAYOUT, 2.0, frame, tilt=0.15, turn_deg=6) @ \
        np.diag([2.0, 2.0, 1.0])
    to_table = np.linalg.inv(table_to_image)
    got = view_scale(to_table, (0.0, 0.0, 800.0, 800.0))
    seen = [camera_px_per_mm(to_table, p) for p in [(400, 400), (200, 400), (600, 400),
                                                    (400, 200), (400, 600)]]
    if scale == "coarsest":
        assert max(seen) < COARSEST_VIEW and got == COARSEST_VIEW
    elif scale == "finest":
        assert min(seen) > FINEST_VIEW and got == FINEST_VIEW
    else:
        assert COARSEST_VIEW < got < FINEST_VIEW and got == pytest.approx(max(seen), abs=0.01)


def test_the_coarsest_view_is_the_one_the_finder_is_shown_as_it_is():
    from vision.camera.zones import TILE_W_MM
    from vision.finding.learned import TOPDOWN_TILE_PX

    assert COARSEST_VIEW == TOPDOWN_TILE_PX / TILE_W_MM


def test_calibrate_makes_the_view_at_the_cameras_scale_unless_told(tmp_path, camera_view, capsys):
    from app.cli import main

    image, _ = camera_view
    assert calibrate(image, LAYOUT).px_per_mm == COARSEST_VIEW
    assert calibrate(image, LAYOUT, px_per_mm=2.0).px_per_mm == 2.0
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), image)
    config = tmp_path / "table.toml"
    for given, saved in ((None, COARSEST_VIEW), ("1.5", 1.5)):
        assert main(["calibrate", str(path), "--config", str(config)]
                    + (["--px-per-mm", given] if given else [])) == 0
        assert f"top-down view {saved:.2f} px per mm" in capsys.readouterr().out
        assert load_calibration(config).px_per_mm == saved


def test_calibrate_names_a_zone_a_glare_washes_out(tmp_path, capsys):
    """A lamp's glare over seat 2's pond lifts it close to white: calibrate says so, naming
    the zone, so the lamp is moved before play; a table lit evenly gets no such line."""
    from app.cli import main

    lines = {}
    for glare in (False, True):
        top = render_state(TableState(ponds=[[], [], [("3p", False), ("7z", False)], []]),
                           px_per_mm=2.0)
        if glare:       # seat 2's pond is at table (306-484, 157-307) mm
            lit = np.zeros(top.shape[:2], np.uint8)
            cv2.ellipse(lit, (790, 460), (260, 200), 0, 0, 360, 255, -1)
            top[lit > 0] = 255 - (255 - top[lit > 0]) // 10
        image, _ = render_camera(top, LAYOUT, 2.0, tilt=0.15, turn_deg=6)
        path = tmp_path / f"table-{glare}.png"
        cv2.imwrite(str(path), image)
        assert main(["calibrate", str(path), "--dry-run"]) == 0
        lines[glare] = [line for line in capsys.readouterr().out.splitlines() if "washed out" in line]
    assert lines[False] == []
    assert [line.split(":")[0] for line in lines[True]] == ["zone pond2"], lines[True]


def test_a_zone_cut_from_the_camera_frame_is_the_whole_view_there(camera_view):
    """The table service finds tiles zone by zone, each cut from the camera frame; the finder
    was measured on the whole view, so each zone must show it the whole view's pixels there,
    not a near copy warped another way."""
    from vision.finding.found import Finding
    from vision.finding.learned import topdown_grid
    from vision.tracking.zone_finder import ZoneFinder

    image, _ = camera_view
    cal = calibrate(image, LAYOUT)
    whole = cal.warp(image)
    shown = []

    def find(picture, px_per_mm):
        shown.append(picture.copy())
        return Finding([], np.zeros(picture.shape[:2], np.uint8))

    zones = ZoneFinder(cal.px_per_mm, to_topdown=cal.topdown_matrix(), find=find,
                       grid=topdown_grid(cal.px_per_mm))
    for _ in range(2):      # the second time from the places worked out the first
        shown.clear()
        zones(image, cal.zones)
        assert len(shown) == len(cal.zones)
        for zone, picture in zip(cal.zones, shown):
            x1, y1, x2, y2 = zones.region(zone)
            assert np.array_equal(picture, whole[y1:y2, x1:x2]), zone.name
