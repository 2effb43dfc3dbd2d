"""Finding tiles: rendered tables (every tile of a zone found and named), rendered scenes of
solid tiles from any camera, rows of tiles in a photo with no calibration, and real
photographs."""
import cv2
import numpy as np
import pytest

from vision.camera.zones import default_zones, seat_order_key, zone_at
from vision.finding.learned import (
    find_tiles_photo,
    find_tiles_topdown,
    match_boxes,
    shared_finder,
)
from vision.synthesis.synthetic import (
    ArtClassifier,
    Hand,
    PlacedTile,
    TableState,
    render_state,
    render_topdown,
)

PPM = 2.0


@pytest.fixture(scope="module")
def classifier(shared_data):
    # Reading rendered tiles needs the shared tile art: without it they are placeholders.
    return ArtClassifier()


@pytest.fixture(scope="module")
def reads_learned_crops(shared_data):
    """The shipped classifier, for the learned finder's faces: they are cut with a margin of
    table around them and from boxes a few pixels loose, as the classifier learned faces. The
    art matcher above compares a crop with the bare face and called faces of these rows
    ``none`` that the finder had boxed right."""
    from vision.reading.classifier import TileClassifier
    return TileClassifier(threads=1)


def _table():
    st = TableState(dora=["3p", "9z"[0] + "s"])
    st.ponds[0] = [("1m", False), ("2m", False), ("3z", False), ("4s", True), ("5p", False),
                   ("6p", False), ("7m", False), ("0s", False)]
    st.ponds[1] = [("1z", False), ("2z", False), ("9p", False)]
    st.ponds[2] = [("7s", False), ("8s", False), ("9s", False), ("6z", True)]
    st.ponds[3] = [("0m", False), ("5m", False)]
    st.melds[1] = [(["2p", "3p", "4p"], 0, None)]
    st.hands[2] = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "6z", "6z", "3s",
                   "3s", "5z"]
    return st


def _named(image, classifier):
    finding = find_tiles_topdown(image, PPM)
    labels = classifier.classify([t.crop for t in finding.tiles])
    zones = default_zones()
    out = {}
    for tile, (label, _) in zip(finding.tiles, labels):
        cx, cy = tile.centre
        zone = zone_at(zones, cx / PPM, cy / PPM)
        if zone is not None and label != "none":
            out.setdefault(zone.name, []).append((seat_order_key(zone, cx, cy), label,
                                                 tile.across))
    return {k: [(lab, across) for _, lab, across in sorted(v, key=lambda e: (round(e[0][0] / 60), e[0][1]))]
            for k, v in out.items()}


def test_every_tile_of_a_rendered_table_found_and_named(classifier):
    st = _table()
    got = _named(render_state(st, px_per_mm=PPM), classifier)
    assert [lab for lab, _ in got["pond0"]] == ["1m", "2m", "3z", "4s", "5p", "6p", "7m", "0s"]
    assert [across for _, across in got["pond0"]] == [False, False, False, True, False, False,
                                                      False, False]
    assert [lab for lab, _ in got["pond1"]] == ["1z", "2z", "9p"]
    assert [lab for lab, _ in got["pond2"]] == ["7s", "8s", "9s", "6z"]
    assert [lab for lab, _ in got["pond3"]] == ["0m", "5m"]
    assert sorted(lab for lab, _ in got["meld1"]) == ["2p", "3p", "4p"]
    assert [lab for lab, _ in got["hand2"]] == st.hands[2]
    assert [lab for lab, _ in got["dora"]] == ["back", "3p", "9s", "back", "back", "back"]


def test_tiles_found_under_uneven_light_and_other_felt(classifier):
    st = _table()
    img = render_state(st, px_per_mm=PPM).astype(np.float32)
    h, w = img.shape[:2]
    ramp = np.linspace(0.75, 1.15, w, dtype=np.float32)[None, :, None]
    img = np.clip(img * ramp, 0, 255).astype(np.uint8)
    got = _named(img, classifier)
    assert [lab for lab, _ in got["pond0"]] == ["1m", "2m", "3z", "4s", "5p", "6p", "7m", "0s"]
    assert [lab for lab, _ in got["hand2"]] == st.hands[2]


def test_a_hand_over_the_table_is_not_a_tile_and_is_marked_occluded(classifier):
    st = TableState(walls=False)
    st.ponds[0] = [("5m", False)]
    img = render_state(st, [Hand(260, 420, 3, 60)], px_per_mm=PPM)
    finding = find_tiles_topdown(img, PPM)
    labels = [lab for lab, _ in classifier.classify([t.crop for t in finding.tiles])]
    on_hand = [lab for t, lab in zip(finding.tiles, labels)
               if finding.occluded[int(t.centre[1]), int(t.centre[0])]]
    assert "5m" in labels
    assert finding.occluded[int(420 * PPM), int(260 * PPM)] > 0
    assert all(lab in ("none",) for lab in on_hand)


def _row_photo(codes, tile_px=60, gap=2, margin=25):
    """A rendered hand row on a plain background, at a scale the finder is not told."""
    ppm = tile_px / 26.0
    tiles = [PlacedTile(c, (margin / ppm) + 13 + i * (26 + gap / ppm), 40) for i, c in enumerate(codes)]
    from vision.camera.calibration import TableLayout
    layout = TableLayout(width_mm=(2 * margin / ppm) + len(codes) * (26 + gap / ppm), height_mm=80)
    return render_topdown(tiles, layout=layout, px_per_mm=ppm, markers=False)


@pytest.mark.parametrize("tile_px", [40, 64, 110])
def test_a_row_of_tiles_in_an_uncalibrated_picture(reads_learned_crops, tile_px):
    hand = ["1m", "2m", "3m", "5p", "5p", "6s", "7s", "8s", "1z", "1z", "1z", "7z", "7z"]
    img = _row_photo(hand, tile_px)
    finding = find_tiles_photo(img)
    labels = [lab for lab, _ in reads_learned_crops.classify([t.crop for t in finding.tiles])]
    assert labels == hand
    xs = [t.box[0] for t in finding.tiles]
    assert xs == sorted(xs)


def test_touching_tiles_with_no_gap_are_still_cut_apart(reads_learned_crops):
    """A flat row of the art's stickers, no bodies and no gap between them: at the size the
    first look finds them the finder cut two touching 9s into three boxes; looked at again at
    the size it is surest of (``SURE_TILE_RANGE``), each tile is one box."""
    hand = ["9s", "9s", "8s", "1p", "2p", "3p", "4z"]
    img = _row_photo(hand, 56, gap=0)
    found = find_tiles_photo(img).tiles
    labels = [lab for lab, _ in reads_learned_crops.classify([t.crop for t in found])]
    assert labels == hand


@pytest.mark.parametrize("size, least", [(1, 10), (5, 8)])
def test_tiles_photographed_at_a_slant_are_found_in_the_look_stretched_top_to_bottom(size, least):
    """Two rows of tiles photographed close by from low down (rendered, held-out table top):
    their faces come out squashed top to bottom, and the photo's own look boxes 2 of its 11
    face-up tiles; the look stretched 1.4 times top to bottom (``SLANT_STRETCH``) boxes 10,
    with no box on nothing, and it is the one kept. The same photo enlarged to a phone's 3200 x
    2400 pixels is stretched shrunk (``SLANT_MOST_SIDE``) and its boxes come back to its
    pixels: 8 found, where its own look finds 4."""
    from vision.finding.learned import match_boxes
    from vision.synthesis.faces import FaceBank
    from vision.synthesis.render import TileArt
    from vision.synthesis.scene import POSITIVE, render_scene

    scene = render_scene(FaceBank(TileArt()), np.random.default_rng(10), (640, 480), kind="grid",
                         tables="holdout")
    face_up = [t.quad * size for t in scene.tiles if t.status == POSITIVE and t.code not in ("back", "x")]
    others = [t.quad * size for t in scene.tiles if t.status != POSITIVE or t.code in ("back", "x")]
    photo = cv2.resize(scene.image, None, fx=size, fy=size, interpolation=cv2.INTER_CUBIC)
    found = match_boxes([t.quad for t in find_tiles_photo(photo).tiles], face_up, others)
    assert len(face_up) == 11 and found["tp"] >= least and found["fp"] == 0, found


@pytest.mark.parametrize("shear, size", [(0.6, 1), (-0.6, 1), (0.6, 5)])
def test_a_hand_row_photographed_from_beside_it_is_read_in_the_look_sheared_back(
        reads_learned_crops, shear, size):
    """A hand row photographed from beside it: every face a parallelogram, slanted 0.6
    sideways. The photo's own looks box it in 17-20 pieces, none of them sure, and misread
    it; the look sheared back (``SHEAR``) boxes each tile once, on its face, and every tile is
    read in order, most of them surely. The same photo enlarged five times (5,130 pixels
    wide) is sheared shrunk (``SLANT_MOST_SIDE``) and its boxes come back to its pixels."""
    hand = ["1m", "2m", "3m", "5p", "5p", "6s", "7s", "8s", "1z", "1z", "1z", "7z", "7z"]
    tile_px, margin = 64, 25
    row = _row_photo(hand, tile_px, margin=margin)
    h, w = row.shape[:2]
    slant = np.float32([[1, shear, max(0.0, -shear) * h], [0, 1, 0]])
    photo = cv2.warpAffine(row, slant, (int(w + abs(shear) * h), h),
                           borderMode=cv2.BORDER_REPLICATE)
    photo = cv2.resize(photo, None, fx=size, fy=size, interpolation=cv2.INTER_CUBIC)

    found = find_tiles_photo(photo).tiles
    readings = reads_learned_crops.classify([t.crop for t in found])
    assert [label for label, _ in readings] == hand
    assert sum(min(conf, t.score) >= 0.8 for (_, conf), t in zip(readings, found)) >= 10
    # each box on its own face: the face's centre in the row (as _row_photo lays it), slanted
    ppm = tile_px / 26.0
    for i, t in enumerate(found):
        x, y = (margin / ppm + 13 + i * (26 + 2 / ppm)) * ppm, 40 * ppm
        centre = size * np.float32([x + shear * y + max(0.0, -shear) * h, y])
        assert np.linalg.norm(np.float32(t.centre) - centre) < size * tile_px / 4, \
            (i, t.centre, centre)

    unsheared = find_tiles_photo(photo, shears=()).tiles
    assert [label for label, _ in reads_learned_crops.classify([t.crop for t in unsheared])] != hand


def test_a_photo_is_looked_at_sheared_only_where_a_shear_can_square_its_faces(monkeypatch):
    """Each sheared look costs a photo as much as its first, and a shear squares the faces of
    tiles lying one way only. A row seen from in front, its boxes sure, is not sheared
    (``SURE_ENOUGH_UNSHEARED``); the same row slanted 0.6 is, both ways; the slanted row beside
    itself turned a quarter, as a table's sides lie, is not (``SHEARED_ONE_WAY``)."""
    import vision.finding.learned as learned

    looks = []
    sheared_look = learned._sheared_look
    monkeypatch.setattr(learned, "_sheared_look",
                        lambda *args, **kw: looks.append(args[1]) or sheared_look(*args, **kw))
    hand = ["1m", "2m", "3m", "5p", "5p", "6s", "7s", "8s", "1z", "1z", "1z", "7z", "7z"]
    row = _row_photo(hand, 64)
    h, w = row.shape[:2]
    slanted = cv2.warpAffine(row, np.float32([[1, 0.6, 0], [0, 1, 0]]), (int(w + 0.6 * h), h),
                             borderMode=cv2.BORDER_REPLICATE)
    turned = cv2.rotate(slanted, cv2.ROTATE_90_CLOCKWISE)
    table = np.full((h + turned.shape[0], slanted.shape[1], 3), row[2, 2], np.uint8)
    table[:h] = slanted
    table[h:, :turned.shape[1]] = turned

    seen = {}
    for name, photo in (("row", row), ("slanted", slanted), ("table", table)):
        looks.clear()
        find_tiles_photo(photo)
        seen[name] = sorted(looks)
    assert seen == {"row": [], "slanted": [-learned.SHEAR, learned.SHEAR], "table": []}


ROWS = {"2-1.jpg": 9, "2-2.jpg": 7, "2-3.jpg": 8, "2-4.jpg": 9, "2-5.jpg": 9,
        "6-1.png": 36, "6-3.png": 36, "1-3.jpg": 8, "1-6.jpg": 16, "10.jpg": 144}


@pytest.mark.parametrize("name,count", sorted(ROWS.items()))
def test_real_photographs_tile_count(shared_data, name, count):
    from vision.camera.sources import read_image
    path = shared_data / "photos" / "camerash" / "raw-images" / name
    if not path.is_file():
        pytest.skip(f"{path} missing")
    finding = find_tiles_photo(read_image(path))
    # every tile, give or take one (a tile cut by the photo's edge)
    assert abs(len(finding.tiles) - count) <= 1


def test_the_labelled_real_photographs_are_found_and_named(shared_data):
    """The bench's headline (bench/vision.py, ``real_*``) held in CI: every labelled tile of
    the 25 Camerash photographs, other sets than the art, read as ``detect`` reads a photo
    (a picture's tiles as tiles of one set, :mod:`vision.reading.one_set`, each face in three
    looks, :mod:`vision.reading.looks`). Measured: all 1691 found, 1 false box (unsure),
    1539 of the 1580 riichi tiles named right (1535 in one look; 1513 and 1509 with each tile
    read alone; 1480 with every crop read once, without the half-turned second look), and no
    reading sure and wrong (in one look a picture dragon was read as a red 5m at 0.81)."""
    from testkit.photos import load_photos, reader, score_photo, totals
    from vision.reading.classifier import TileClassifier

    photos = load_photos(shared_data)
    if not all(p.path.is_file() for p in photos):
        pytest.skip("the Camerash raw photographs are not all in the shared data")
    read = reader(shared_finder(), TileClassifier(threads=1))
    total = totals({p.name: score_photo(p, read(p.image())) for p in photos})
    assert total["tiles"] == 1691 and total["riichi_tiles"] == 1580
    assert total["box_recall"] >= 0.995 and total["box_precision"] >= 0.995, total
    assert total["named"] >= 1535, total
    assert total["misread_sure"] == 0, total


def test_the_table_cameras_finder_reads_solid_tiles_in_the_calibrated_view(shared_data):
    """The finder the table service reads its camera with by default, on the top-down view of
    rendered tables of solid tiles (coloured sides, walls, standing hands, held-out table
    tops, a centre panel at times) seen from 60-90 degrees above, as calibration warps them
    (at the camera's own scale: bench/calibrated_tables.py). Measured on these 4 tables: 203
    of the 213 face-up tiles found (0.953), one false box (at 2 px per mm: 204, none); the
    felt-colour finder finds about a fifth of them."""
    from testkit.tables import scenes
    from vision.tracking.service_feed import table_finder

    finder = table_finder("table.toml", {})
    assert finder is not None       # the learned finder unless the config says "felt"
    found = tiles = false = 0
    for view, truth, _, ignore, _, px_per_mm in scenes(4, seed=7):
        finding = find_tiles_topdown(view, px_per_mm, finder)
        m = match_boxes([t.quad for t in finding.tiles], truth, ignore)
        found, tiles, false = found + m["tp"], tiles + len(truth), false + m["fp"]
    assert tiles > 150
    assert found / tiles >= 0.93, (found, tiles)
    assert false <= 0.03 * found, (false, found)


@pytest.mark.parametrize("seat", range(4))
@pytest.mark.parametrize("called", [0, 1, 2])
def test_an_added_kan_is_four_tiles_wherever_it_lies(seat, called):
    """The fourth tile stacked on a pon's sideways tile makes the meld row deeper there; all
    four tiles are still found, the two stacked ones lying across."""
    st = TableState(walls=False)
    st.melds[seat] = [(["3m", "3m", "3m"], called, "3m")]
    zones = default_zones()
    found = [t for t in find_tiles_topdown(render_state(st), PPM).tiles
             if (z := zone_at(zones, t.centre[0] / PPM, t.centre[1] / PPM)) and z.kind == "meld"]
    assert len(found) == 4
    # seats 1 and 3 see the table turned: a tile across for them stands upright in the image
    across = [t.across != bool(seat % 2) for t in found]
    assert sum(across) == 2


@pytest.mark.parametrize("turns", [0, 1])
def test_tiles_laid_down_askew_are_found_and_read(classifier, turns):
    """Players do not lay discards square to the table: a tile turned up to 40 degrees either
    way is still found once, lying the way it lies, and its crop is turned straight for the
    classifier."""
    angles = [0, 5, 8, 12, 15, 20, 30, 40, -10, -25, -35]
    codes = ["1m", "2p", "3s", "4z", "5m", "6p", "7s", "8m", "9p", "6z", "7z"]
    tiles = [PlacedTile(c, 120 + 55 * i, 400, turns, a) for i, (c, a) in enumerate(zip(codes, angles))]
    found = find_tiles_topdown(render_topdown(tiles, markers=False), PPM).tiles
    assert len(found) == len(tiles)
    assert [t.across for t in found] == [bool(turns)] * len(tiles)
    assert [label for label, _ in classifier.classify([t.crop for t in found])] == codes
    for t, placed in zip(found, tiles):
        assert abs(t.centre[0] / PPM - placed.x) < 3 and abs(t.centre[1] / PPM - placed.y) < 3


# -- scenes of solid tiles, as a camera sees them ---------------------------------------------------

@pytest.fixture(scope="module")
def art(shared_data):
    """The tile art, loaded once (0.6 s a time): a bank only reads it (read-only here, so a
    write would fail loudly rather than carry over into the next test's faces)."""
    from vision.synthesis.render import TileArt
    art = TileArt()
    for image in [*art.backs.values(), *(f for faces in art.faces.values() for f in faces.values())]:
        image.flags.writeable = False
    return art


@pytest.fixture
def bank(art):
    """A fresh bank for each test: the faces a bank draws depend on what was drawn from it
    before, and a scene must not change with the tests that ran first."""
    from vision.synthesis.faces import FaceBank
    return FaceBank(art)


def _found(scene, scale=1.0):
    from vision.synthesis.scene import POSITIVE
    finding = shared_finder().find(scene.image, scale)
    pos = [t.quad for t in scene.tiles if t.status == POSITIVE]
    ign = [t.quad for t in scene.tiles if t.status != POSITIVE]
    return finding, match_boxes([t.quad for t in finding.tiles], pos, ign), len(pos)


def _posed(bank, poses, elevation=90.0, azimuth=0.0, px=30, size=(480, 360), seed=1, roll=0.0):
    """A scene of tiles at ``poses`` (functions of the set's size -> pose, code), the camera
    ``elevation`` degrees above the table seeing a tile ``px`` pixels wide."""
    from vision.synthesis.bodies import make_body, tile_set
    from vision.synthesis.pinhole import look_at
    from vision.synthesis.scene import draw_scene
    rng = np.random.default_rng(seed)
    ts = tile_set(rng)
    bodies = [make_body(rng, bank, ts, code, pose(ts.size)) for pose, code in poses]
    f = 500.0
    cam = look_at((0, 0, 0), np.deg2rad(elevation), azimuth, f * ts.size[0] / px, roll, f, size)
    info = {"extent": (-500, -500, 500, 500), "focus": (0.0, 0.0)}
    return draw_scene(rng, bodies, cam, size, info, tables="holdout", props=False, hand_count=0)


def _row(n, across_at=None, face_up=True, level=0, y=0.0, gap=0.3):
    """A row of ``n`` tiles lying side by side (``level`` 1: on top of another row), the
    tile at ``across_at`` across."""
    from vision.synthesis.bodies import lying

    def pose(i):
        def at(size):
            W, L, T = size
            x = -n * W / 2 + i * (W + gap) + W / 2 + (L - W) * ((i == across_at) / 2 + (i > (across_at if across_at is not None else n)))
            return lying(x, y + ((L - W) / 2 if i == across_at else 0),
                         np.pi / 2 if i == across_at else 0.0, size, face_up=face_up, z=level * T)
        return at
    return [(pose(i), "back" if not face_up else ["1m", "5p", "9s", "6z", "2p", "7m"][i % 6])
            for i in range(n)]


@pytest.mark.parametrize("case", ["touching upright", "riichi across", "backs", "oblique 35",
                                  "tight", "askew roll"])
def test_the_finder_cuts_every_tile_of_a_rendered_row(bank, case):
    """Rows of touching tiles as the camera sees them: upright, one lying across (riichi),
    face down, from a phone held at 35 degrees, so close they fill the picture, and with the
    picture turned."""
    if case == "touching upright":
        scene = _posed(bank, _row(8, gap=0.0))
    elif case == "riichi across":
        scene = _posed(bank, _row(7, across_at=3))
    elif case == "backs":
        scene = _posed(bank, _row(9, face_up=False))
    elif case == "oblique 35":
        scene = _posed(bank, _row(8), elevation=35, px=40)
    elif case == "tight":
        scene = _posed(bank, _row(5, gap=0.0), px=90)
    else:
        scene = _posed(bank, _row(6), roll=0.6, px=36)
    finding, m, n = _found(scene)
    assert n >= 5
    if case == "backs":     # known miss, see the closing note of issue 13
        assert m["tp"] >= 4 and m["fp"] == 0, m
        return
    assert m["fn"] == 0 and m["fp"] == 0, m


def test_a_wall_of_stacked_backs_and_an_added_kan(bank):
    """Stacks of two face-down tiles (the wall) are one tile each to the camera above; an
    added kan's fourth tile lies on the called one."""
    wall = _row(8, face_up=False, y=-40) + _row(8, face_up=False, y=-40, level=1)
    pon = _row(3, across_at=1, y=40)
    kan = pon + [(lambda s: pon[1][0](s) | {"t": pon[1][0](s)["t"] + [0, 0, s[2]]}, "3m")]
    scene = _posed(bank, wall + kan, elevation=70, px=28)
    finding, m, n = _found(scene)
    assert n == 8 + 3
    # found today: the pon and its added tile, about half the wall (issue 13 stays open)
    assert m["tp"] >= 5 and m["fp"] <= 1, m


#: Box recall floors on held-out scenes shown at 480 pixels, one look: a little under what the
#: shipped finder measures (table 0.63, close 0.65, hand_row 0.76, grid 0.95, scatter 0.93;
#: the one trained for 4000 steps: 0.62, 0.72, 0.71, 0.90, 0.95); small tiles of a whole table
#: (which find_tiles_photo looks at twice) and close-ups filling the picture are its weak kinds.
SCENE_RECALL = {"table": 0.58, "close": 0.55, "hand_row": 0.7, "grid": 0.85, "scatter": 0.85}


@pytest.mark.parametrize("kind", ["table", "close", "hand_row", "grid", "scatter"])
def test_the_finder_on_rendered_scenes_of_every_kind(bank, kind):
    """Scenes it never trained on (other seeds, other table colours): most tiles that show
    are found, and little else is taken for a tile."""
    from vision.synthesis.scene import render_scene
    rng = np.random.default_rng({"table": 71, "close": 72, "hand_row": 73, "grid": 74, "scatter": 75}[kind])
    tp = fp = fn = 0
    for _ in range(3):
        _, m, _ = _found(render_scene(bank, rng, (480, 480), kind=kind, tables="holdout"))
        tp, fp, fn = tp + m["tp"], fp + m["fp"], fn + m["fn"]
    assert tp / max(1, tp + fn) >= SCENE_RECALL[kind]
    assert tp / max(1, tp + fp) >= (0.5 if kind == "close" else 0.85)


def test_a_faint_speck_far_smaller_than_the_tiles_is_not_a_tile():
    """One set's tiles are of one size: a faint peak a fifth of their area is a glint and is
    dropped; a faint tile of the right size, and any sure box, stay."""
    import numpy as np

    from vision.finding.learned import Box, drop_stray_glints

    tile = lambda score, w=30.0, l=40.0: Box(np.zeros(2), w, l, 1.57, score)
    sure = [tile(0.9), tile(0.8), tile(0.95)]
    speck, faint_tile, small_sure = tile(0.35, 13, 18), tile(0.35), tile(0.9, 13, 18)
    kept = [id(b) for b in drop_stray_glints(sure + [speck, faint_tile, small_sure])]
    assert kept == [id(b) for b in sure + [faint_tile, small_sure]]
    few = sure[:2] + [speck]            # too few sure tiles to judge a size by
    assert [id(b) for b in drop_stray_glints(few)] == [id(b) for b in few]


@pytest.mark.parametrize("apart, kept", [
    (5.0, ["a"]),                 # two peaks on one tile: the surer box stays
    (20.0, ["a", "b"]),           # touching tiles, a tile's width apart: two tiles
    (8.0, ["a", "c"]),            # b goes under a, and c, near b only, stays (b is gone)
])
def test_two_peaks_on_one_tile_are_one_box_and_neighbours_stay(apart, kept):
    """The finder's peaks a fraction of a tile apart are one tile, boxed by the surer; a box
    put out by a surer one puts out no other, so its own neighbour stays."""
    from vision.finding.learned import suppress

    names = ["b", "a", "c"] if apart == 8.0 else ["b", "a"]
    cx = np.array([apart, 0.0, 2 * apart])[:len(names)]
    score = np.array([0.8, 0.9, 0.7])[:len(names)]
    order, keep = suppress(cx, np.zeros(len(names)), np.full(len(names), 20.0), score)
    assert [names[i] for i in order[keep]] == kept


@pytest.mark.parametrize("apart, boxes", [(1, 1), (3, 2)])
def test_the_networks_peaks_a_cell_apart_are_one_box_the_surer(apart, boxes):
    """The finder's output decoded: two peaks of heat 8 pixels apart, on a tile 28 wide, are
    one tile, boxed where the surer says; two 24 pixels apart are two tiles, the surer first."""
    from vision.finding.learned import STRIDE, decode

    maps = np.zeros((8, 12, 12), np.float32)
    maps[1:3] = np.log(28 / STRIDE)        # boxes 28 pixels wide and long
    maps[3] = 1.0                          # cos 2a: lying across
    maps[0, 5, 4], maps[0, 5, 4 + 2 * apart] = 0.7, 0.9
    found = decode(maps)
    assert [b.score for b in found] == pytest.approx([0.9, 0.7][:boxes])
    assert found[0].centre == pytest.approx([(4 + 2 * apart + 0.5) * STRIDE, 5.5 * STRIDE])
    assert found[0].width == pytest.approx(28)


@pytest.mark.usefixtures("shared_data")   # drawn with the tile art: placeholders read otherwise
@pytest.mark.parametrize("px_per_mm", [2.0, None])
def test_the_learned_finder_cuts_faces_at_the_size_asked_and_reads_them_alike(px_per_mm):
    """Cut once at the classifier's width instead of cut at their own size and resized again:
    the same tiles, every face as wide as asked, and the classifier reads them as before. A
    view at 2 px per mm holds faces wider than that, one at the camera's own scale (None: a
    1280x960 frame's, the finder's own) narrower."""
    from testkit.tables import full_table_frame
    from vision.finding.learned import TileFinder
    from vision.reading.classifier import TileClassifier

    frame, cal = full_table_frame()
    cal.px_per_mm = px_per_mm or cal.px_per_mm
    top = cal.warp(frame)
    finder, classifier = TileFinder(threads=1), TileClassifier(threads=1)
    own = find_tiles_topdown(top, cal.px_per_mm, finder)
    asked = find_tiles_topdown(top, cal.px_per_mm, finder, crop_width=classifier.input_width)
    assert [t.box for t in asked.tiles] == [t.box for t in own.tiles]
    widths = {t.crop.shape[1] for t in own.tiles}
    if px_per_mm:
        assert max(widths) > classifier.input_width
    else:
        assert max(widths) < classifier.input_width
    assert {t.crop.shape[:2] for t in asked.tiles} == \
        {(classifier.input_height, classifier.input_width)}
    a = classifier.classify([t.crop for t in own.tiles])
    b = classifier.classify([t.crop for t in asked.tiles])
    assert sum(x[0] == y[0] for x, y in zip(a, b)) >= 0.98 * len(a)


def test_a_whole_table_from_a_seat_has_its_far_tiles_found_too(bank):
    """A table photographed from a seat shows its far side small: those tiles are looked for
    again at twice the scale, and most face-up tiles are found, with little else taken for
    a tile (without the second look 166 of these 209 are found)."""
    from vision.synthesis.scene import POSITIVE, render_scene
    rng = np.random.default_rng(76)
    faces = found = tp = fp = 0
    for _ in range(3):
        scene = render_scene(bank, rng, (640, 480), kind="table", tables="holdout")
        pos = [t for t in scene.tiles if t.status == POSITIVE]
        m = match_boxes([t.quad for t in find_tiles_photo(scene.image).tiles], [t.quad for t in pos],
                        [t.quad for t in scene.tiles if t.status != POSITIVE])
        got = {j for _, j in m["pairs"]}
        up = [j for j, t in enumerate(pos) if t.code not in ("back", "x")]
        faces, found = faces + len(up), found + sum(j in got for j in up)
        tp, fp = tp + m["tp"], fp + m["fp"]
    assert faces == 209
    assert found / faces >= 0.85
    assert tp / (tp + fp) >= 0.9


@pytest.mark.parametrize("threads", [0, -2])
def test_the_finder_says_in_one_line_that_threads_must_be_positive(threads):
    from referee.errors import RefereeError
    from vision.finding.learned import TileFinder

    with pytest.raises(RefereeError, match=f"threads must be at least 1, got {threads}$"):
        TileFinder(threads=threads)


def test_a_face_cut_turned_is_what_a_box_lying_the_other_way_cuts():
    """The tracker reads a pond tile boxed lying across cut the other way too
    (``FoundTile.turned``): the face a box of the same size at the same place, a quarter
    turned, cuts. Lying across, that is the upright box's face; and upright, the across one's."""
    import math

    from vision.finding.learned import Box, cut_upright, laid_tile

    image = np.random.default_rng(3).integers(0, 256, (200, 200, 3), np.uint8)
    centre = np.array([97.5, 103.0])
    across, upright = Box(centre, 52, 70, 0.0, 0.9), Box(centre, 52, 70, math.pi / 2, 0.9)
    for boxed, other in ((across, upright), (upright, across)):
        tile = laid_tile(boxed, image, 48)
        assert tile.across == (boxed is across)
        assert np.array_equal(tile.turned(), cut_upright(image, other, max_width=48))
        assert not np.array_equal(tile.turned(), tile.crop)


def _boxed(quad, across=False, score=0.8):
    from vision.finding.found import FoundTile

    q = np.float32(quad)
    (x1, y1), (x2, y2) = q.min(axis=0), q.max(axis=0)
    return FoundTile((int(x1), int(y1), int(x2), int(y2)), across,
                     np.zeros((70, 52, 3), np.uint8), q, score)


def _rect(cx, cy, w, h):
    return [[cx - w / 2, cy - h / 2], [cx + w / 2, cy - h / 2], [cx + w / 2, cy + h / 2],
            [cx - w / 2, cy + h / 2]]


def test_a_tile_across_cut_in_two_halves_is_put_back_together():
    """A 4p lying across looks like two 2p side by side, and the finder can box it as two
    short upright tiles. In the calibrated view (2 px/mm: a tile is 52 x 70) two such halves
    that together are a tile lying across (70 x 52) are that tile; two whole tiles side by
    side are left alone."""
    from vision.finding.found import Finding
    from vision.finding.learned import join_split_across

    view = np.full((400, 400, 3), 60, np.uint8)
    halves = Finding([_boxed(_rect(182, 200, 36, 52)), _boxed(_rect(218, 200, 36, 52))],
                     np.zeros((400, 400), np.uint8))
    joined = join_split_across(halves, view, PPM)
    assert len(joined.tiles) == 1
    tile = joined.tiles[0]
    assert tile.across and tile.box == (164, 174, 236, 226)
    assert tile.crop.shape[1] < tile.crop.shape[0]      # cut upright, as the classifier reads
    whole = Finding([_boxed(_rect(174, 200, 52, 70)), _boxed(_rect(226, 200, 52, 70))],
                    np.zeros((400, 400), np.uint8))
    assert join_split_across(whole, view, PPM) is whole


def _tiles_side_by_side(*widths, x=148):
    """A calibrated view (2 px/mm) of ivory tiles touching in a row from ``x``, each
    ``widths[k]`` pixels wide (52: upright, 70: lying across), with the thin dark seam
    between them that a real pond shows."""
    view = np.full((400, 400, 3), 60, np.uint8)
    for w in widths:
        half = 35 if w == 52 else 26
        view[200 - half:200 + half, x:x + w] = 225
        x += w
        view[170:230, x - 1:x + 2] = 110
    return view


def test_two_touching_tiles_boxed_as_one_are_cut_apart():
    """A discard laid against the tile before it, and the finder boxes the two as one tile
    lying across, too big for one (on a table of solid tiles it did, and the tracker lost both:
    bench/demo_vision.py --tiles solid). In the calibrated view the box is two tiles: cut at
    the seam, each lies as its length says."""
    from vision.finding.found import Finding
    from vision.finding.learned import split_pairs

    none = np.zeros((400, 400), np.uint8)
    view = _tiles_side_by_side(52, 52)
    two = split_pairs(Finding([_boxed(_rect(200, 200, 110, 78), across=True)], none), view, PPM)
    assert [t.across for t in two.tiles] == [False, False]
    assert [tuple(t.quad.mean(axis=0)) for t in two.tiles] == \
        [pytest.approx((174, 200), abs=3), pytest.approx((226, 200), abs=3)]
    assert all(t.crop.shape[1] < t.crop.shape[0] for t in two.tiles)
    # a riichi tile laid across beside an upright one: one of each
    view = _tiles_side_by_side(52, 70, x=140)
    two = split_pairs(Finding([_boxed(_rect(201, 200, 126, 76), across=True)], none), view, PPM)
    assert [t.across for t in two.tiles] == [False, True]
    assert [round(t.quad.mean(axis=0)[0]) for t in two.tiles] == pytest.approx([166, 227], abs=3)
    # the finder found one of the two as well: the box adds only the other
    view = _tiles_side_by_side(52, 52)
    found = Finding([_boxed(_rect(174, 200, 52, 70)), _boxed(_rect(200, 200, 110, 78), across=True)], none)
    two = split_pairs(found, view, PPM)
    assert sorted(t.quad.mean(axis=0)[0] for t in two.tiles) == pytest.approx([174, 226], abs=3)
    # a tile of a bigger set lying across, boxed a little large, is one tile
    one = Finding([_boxed(_rect(200, 200, 88, 64), across=True)], none)
    assert split_pairs(one, view, PPM) is one


def test_a_box_lying_across_a_ponds_rows_is_one_tile_boxed_big_not_two():
    """The finder boxes a 2s in seat 0's pond 77 x 99 pixels (2 px/mm), half again a tile, into
    the tile just laid in the row behind it (the film's seed 14, as the hand left). The box is
    the size of two tiles side by side, but it lies across the pond's rows: cut in two, its
    halves were two tiles lying across, one behind the other, two riichi tiles no pond holds,
    and the new tile behind was never boxed in that look (dated 6.7 s late, a false discard,
    sure). Told which way the pond's rows run, the finder leaves it whole; two tiles touching
    along a row are cut apart as ever, and a view of no one pond is cut as before."""
    from vision.finding.found import Finding
    from vision.finding.learned import split_pairs

    view = np.full((400, 400, 3), 60, np.uint8)
    # two upright tiles, one behind the other in seat 0's pond (its rows run along x)
    view[165:235, 174:226] = 225
    view[237:307, 174:226] = 225
    view[235:237, 174:226] = 110
    none = np.zeros((400, 400), np.uint8)
    big = Finding([_boxed(_rect(200, 200, 77, 99))], none)
    assert [t.box for t in split_pairs(big, view, PPM, rows_along=0).tiles] == [big.tiles[0].box]
    assert len(split_pairs(big, view, PPM).tiles) == 2
    view = _tiles_side_by_side(52, 52)
    pair = Finding([_boxed(_rect(200, 200, 110, 78), across=True)], none)
    assert [t.across for t in split_pairs(pair, view, PPM, rows_along=0).tiles] == [False, False]


@pytest.mark.parametrize("lies_across", [False, True])
def test_a_tile_boxed_half_way_between_upright_and_across_lies_as_its_edges_show(lies_across):
    """The finder turned a square-ish face (a 1p) 40 degrees: in the calibrated view it is
    laid along the axis its edges run (upright, or across as a riichi tile), at a tile's size;
    a tile found turned a little (laid askew) keeps its turn."""
    import cv2

    from vision.finding.found import Finding
    from vision.finding.learned import square_up

    view = np.full((400, 400, 3), (40, 110, 40), np.uint8)
    w, h = (70, 52) if lies_across else (52, 70)
    cv2.rectangle(view, (200 - w // 2, 200 - h // 2), (200 + w // 2, 200 + h // 2), (225, 235, 240), -1)
    a = np.deg2rad(40)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    turned = (np.float32(_rect(0, 0, 52, 70)) @ rot.T + 200).tolist()
    found = square_up(Finding([_boxed(turned, across=not lies_across)], np.zeros((400, 400), np.uint8)),
                      view, PPM)
    tile = found.tiles[0]
    assert tile.across == lies_across
    assert tile.box == (200 - w // 2, 200 - h // 2, 200 + w // 2, 200 + h // 2)
    a = np.deg2rad(8)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    askew = Finding([_boxed((np.float32(_rect(0, 0, 52, 70)) @ rot.T + 200).tolist())],
                    np.zeros((400, 400), np.uint8))
    assert square_up(askew, view, PPM) is askew


def _found_tile(x, y, w, l, score):
    """A found tile lying upright with its outline at (x, y), ``w`` wide and ``l`` long."""
    from vision.finding.found import FoundTile

    quad = np.float32([[x, y], [x + w, y], [x + w, y + l], [x, y + l]])
    return FoundTile((int(x), int(y), int(x + w), int(y + l)), False, np.zeros((8, 6, 3), np.uint8),
                     quad, score)


def test_one_tile_is_one_box_and_touching_tiles_stay_two():
    """A photo's hand row: tiles touching, their boxes a little loose so they overlap at the
    seams, stay one box each; a tile boxed a second time (a smaller box lower on its face, as
    the issue's 1p read twice at 0.89 and 0.86) is one tile, the surer box kept; a box over
    two touching tiles, less sure than each, goes and the two stay. Only a sure box puts out
    another."""
    from vision.finding.learned import one_box_a_tile

    row = [_found_tile(40 * k - 3, 0, 46, 60, 0.9) for k in range(5)]     # 6 px of overlap
    assert one_box_a_tile(row) == row
    twice = _found_tile(43, 12, 34, 46, 0.86)
    assert one_box_a_tile(row + [twice]) == row
    surer_second = _found_tile(43, 12, 34, 46, 0.95)
    kept = one_box_a_tile(row + [surer_second])
    assert surer_second in kept and row[1] not in kept and len(kept) == 5
    pair = _found_tile(80, 0, 80, 60, 0.5)
    assert one_box_a_tile(row + [pair]) == row
    # two faint boxes on one place are both read unsure: neither is dropped, for the faint
    # box that is less sure is as often the real tile
    faint = [_found_tile(0, 0, 46, 60, 0.6), _found_tile(3, 12, 34, 46, 0.5)]
    assert one_box_a_tile(faint) == faint


def test_an_unsure_box_of_a_size_no_tile_has_there_is_not_on_the_table():
    """A whole table photographed from a seat: the tiles shrink steadily with distance (one
    plane); a cup or a cap beside the table that the finder boxes unsurely, three times the
    width a tile has there, is no tile; the far tiles, small but as small as the plane makes
    them, stay, and so does a sure box of any size."""
    from vision.finding.learned import on_the_table

    tiles = []
    for row in range(6):
        y = 600 - 90 * row
        w = 48 - 6 * row                          # near rows wide, far rows narrow
        tiles += [_found_tile(100 + 1.05 * w * k, y, w, 1.35 * w, 0.45 if row == 5 else 0.9)
                  for k in range(8)]
    cup = _found_tile(560, 170, 3 * 18, 3 * 24, 0.4)
    assert on_the_table(tiles + [cup]) == tiles
    sure_cup = _found_tile(560, 170, 3 * 18, 3 * 24, 0.85)
    assert on_the_table(tiles + [sure_cup]) == tiles + [sure_cup]
    # a few tiles tell no plane: all stay
    assert on_the_table(tiles[:5] + [cup]) == tiles[:5] + [cup]


def test_an_outline_looked_for_about_its_box_is_the_best_of_it_moved_there():
    """``outline_edges`` looks for each outline at the box and about it (a box can lie a few
    pixels off its tile) with every side's steps taken once for all the moves: the same
    numbers, to the bit, as the outline measured at the box and at each move, the best kept."""
    from vision.finding.learned import OUTLINE_SHARE, OUTLINE_SHIFTS, _outline_fit, _side_steps

    rng = np.random.default_rng(5)
    for k in range(40):
        gray = rng.integers(0, 255, (100, 110)).astype(np.float32)
        if k % 2:   # a tile's outline somewhere near the middle, off the box by a few pixels
            gray = np.full((100, 110), 60, np.float32)
            x, y = 55 + rng.integers(-5, 6), 50 + rng.integers(-5, 6)
            gray[y - 35:y + 35, x - 26:x + 26] = 200
        centre = (55 + rng.uniform(-3, 3), 50 + rng.uniform(-3, 3))
        for w, h in ((52, 70), (70, 52)):
            moved = max(_side_steps(gray, (centre[0] + dx, centre[1] + dy), w, h, share=OUTLINE_SHARE)
                        for dx in OUTLINE_SHIFTS for dy in OUTLINE_SHIFTS)
            still = _side_steps(gray, centre, w, h, share=OUTLINE_SHARE)
            assert _outline_fit(gray, centre, w, h, OUTLINE_SHIFTS, OUTLINE_SHARE) == (still, moved)
