"""The rendered scenes the tile finder learns from: each tile's outline and whether it must be
found are what a referee looking at the picture would say."""
import numpy as np
import pytest

from vision.synthesis.bodies import lying, make_body, standing, tile_set
from vision.synthesis.faces import FaceBank
from vision.synthesis.pinhole import look_at
from vision.synthesis.scene import IGNORE, POSITIVE, draw_scene, render_scene

SIZE = (320, 240)
INFO = {"extent": (-400, -400, 400, 400), "focus": (0.0, 0.0)}


@pytest.fixture(scope="module")
def bank(shared_data):
    from vision.synthesis.render import TileArt
    return FaceBank(TileArt())


def _scene(bank, poses_codes, elevation=np.pi / 2, azimuth=0.0, px=40, hands=0, seed=3):
    rng = np.random.default_rng(seed)
    ts = tile_set(rng)
    bodies = [make_body(rng, bank, ts, code, pose(ts.size)) for pose, code in poses_codes]
    f = 400.0
    cam = look_at((0, 0, 0), elevation, azimuth, f * ts.size[0] / px, 0.0, f, SIZE)
    return draw_scene(rng, bodies, cam, SIZE, INFO, props=False, hand_count=hands), ts


def test_a_tile_seen_from_above_is_one_upright_outline_in_reading_order(bank):
    scene, ts = _scene(bank, [(lambda s: lying(0, 0, 0.0, s), "3m")])
    (tile,) = scene.tiles
    assert tile.status == POSITIVE and tile.code == "3m"
    tl, tr, br, bl = tile.quad
    w, h = np.linalg.norm(tr - tl), np.linalg.norm(bl - tl)
    assert h / w == pytest.approx(ts.size[1] / ts.size[0], rel=0.05)
    assert tl[0] < tr[0] and tl[1] < bl[1]          # read upright from seat 0's side
    assert tile.quad.mean(axis=0) == pytest.approx((SIZE[0] / 2, SIZE[1] / 2), abs=1.5)


def test_a_riichi_tile_lies_across_and_a_face_down_tile_shows_its_back(bank):
    scene, _ = _scene(bank, [(lambda s: lying(-40, 0, np.pi / 2, s), "5p"),
                             (lambda s: lying(40, 0, 0.0, s, face_up=False), "7z")])
    across, down = sorted(scene.tiles, key=lambda t: t.quad[:, 0].mean())
    w = np.linalg.norm(across.quad[1] - across.quad[0])
    h = np.linalg.norm(across.quad[3] - across.quad[0])
    assert abs(across.quad[3] - across.quad[0])[0] > abs(across.quad[3] - across.quad[0])[1]
    assert h > w and across.code == "5p"
    assert down.code == "back" and down.status == POSITIVE


def test_a_stack_shows_only_its_top_tile(bank):
    scene, ts = _scene(bank, [(lambda s: lying(0, 0, 0.0, s, face_up=False), "back"),
                              (lambda s: lying(0, 0, 0.0, s, face_up=False, z=s[2]), "back")],
                       elevation=np.deg2rad(60))
    positives = [t for t in scene.tiles if t.status == POSITIVE]
    assert len(positives) == 1
    # the top of the stack is nearer the camera: it is drawn higher in the picture
    assert positives[0].quad[:, 1].mean() < SIZE[1] / 2


def test_a_standing_hand_seen_from_above_is_no_tile_to_find_but_seen_from_its_front_it_is(bank):
    row = [(lambda s, x=x: standing(x, 0, 0.0, s), "2s") for x in (-30, 0, 30)]
    above, _ = _scene(bank, row)
    assert not [t for t in above.tiles if t.status == POSITIVE]
    front, _ = _scene(bank, row, elevation=np.deg2rad(25), azimuth=0.0)
    faces = [t for t in front.tiles if t.status == POSITIVE]
    assert len(faces) == 3 and {t.code for t in faces} == {"2s"}
    behind, _ = _scene(bank, row, elevation=np.deg2rad(25), azimuth=np.pi)
    assert {t.code for t in behind.tiles if t.status == POSITIVE} == {"back"}


def test_a_hand_over_a_tile_hides_it_and_is_marked(bank):
    scene, _ = _scene(bank, [(lambda s: lying(0, 0, 0.0, s), "9p")], hands=1, seed=5)
    assert scene.hands.max() == 255
    covered = [t for t in scene.tiles if t.visible < 0.65]
    assert all(t.status == IGNORE for t in covered)


def test_scenes_are_reproducible_from_their_seed(bank):
    a = render_scene(bank, np.random.default_rng(11), (160, 160))
    b = render_scene(bank, np.random.default_rng(11), (160, 160))
    assert np.array_equal(a.image, b.image)
    assert [t.code for t in a.tiles] == [t.code for t in b.tiles]


def test_a_side_seen_edge_on_draws_nothing(bank):
    """A tile's side in a plane through the camera is a line in the picture: nothing of it is
    drawn (warping onto that line is singular, and painted NaN into the picture)."""
    from vision.synthesis.raster import _warp_onto
    canvas = np.full((40, 60, 3), 100.0, np.float32)
    side = np.full((32, 8, 3), 200.0, np.float32)
    src = np.float32([[0, 0], [8, 0], [8, 32], [0, 32]])
    edge_on = np.array([[30.0, 5.0], [30.0, 30.0], [30.0, 31.0], [30.0, 4.0]])
    _warp_onto(canvas, None, side, np.ones((32, 8), np.float32), src, edge_on)
    assert np.isfinite(canvas).all() and (canvas == 100.0).all()
    seen = np.array([[20.0, 5.0], [40.0, 5.0], [40.0, 30.0], [20.0, 30.0]])
    _warp_onto(canvas, None, side, np.ones((32, 8), np.float32), src, seen)
    assert (canvas[15, 30] == 200.0).all() and (canvas[15, 5] == 100.0).all()  # seen: drawn



def test_touching_tiles_straight_under_the_camera_make_a_clean_picture(bank):
    """Eight tiles side by side with no gap, the camera straight above the side two of them
    share (the finder's test row, which once came out with NaN pixels)."""
    import warnings
    rng = np.random.default_rng(1)
    ts = tile_set(rng)
    W = ts.size[0]
    bodies = [make_body(rng, bank, ts, code, lying(-8 * W / 2 + i * W + W / 2, 0, 0.0, ts.size))
              for i, code in enumerate(["1m", "5p", "9s", "6z", "2p", "7m"] * 2) if i < 8]
    cam = look_at((0, 0, 0), np.deg2rad(90.0), 0.0, 500.0 * W / 30, 0.0, 500.0, (480, 360))
    info = {"extent": (-500, -500, 500, 500), "focus": (0.0, 0.0)}
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)   # NaN cast to pixels warns
        scene = draw_scene(rng, bodies, cam, (480, 360), info, tables="holdout", props=False,
                           hand_count=0)
    assert sum(t.status == POSITIVE for t in scene.tiles) == 8



def test_a_dark_set_prints_every_face_dark_and_the_usual_scenes_are_unchanged(bank):
    """A real set is printed in one style. A set asked to be dark (the art's Black style) has a
    dark face for every kind, and no real photograph's light face among them; faces drawn one
    at a time are mostly light. A scene asked for no dark set is the scene drawn before the
    option existed, pixel for pixel."""
    rng = np.random.default_rng(4)
    real = [(np.full((128, 96, 3), 230, np.uint8), "1m")]
    photos = FaceBank(bank.art, real)

    def face_grey(styles, code):
        face, _, _ = photos.face(rng, code, styles=styles)
        return float(np.median(face.mean(axis=2)))
    codes = ["1m", "5p", "9s", "1z", "5z", "6z", "7z"] * 6
    dark = [face_grey(("Black",), c) for c in codes]
    one_by_one = [face_grey(None, c) for c in codes]
    assert max(dark) < 80
    assert np.mean(np.array(one_by_one) > 150) > 0.7
    scene = render_scene(bank, np.random.default_rng(11), (320, 320), kind="grid", dark_sets=1.0)
    assert len(scene.tiles) >= 8
    usual = render_scene(bank, np.random.default_rng(11), (320, 320), kind="grid")
    same = render_scene(bank, np.random.default_rng(11), (320, 320), kind="grid", dark_sets=0.0)
    assert np.array_equal(usual.image, same.image) and not np.array_equal(usual.image, scene.image)
