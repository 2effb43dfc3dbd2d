"""The eight-bit copies the table runs read the table as the trained float models do, and are
what ``python -m vision.training.quantize`` makes of them."""
import shutil

import numpy as np
import pytest

from vision.finding import learned as finder
from vision.reading import classifier
from testkit.quantized import same_quantized_weights
from vision.training.quantize import int8_path


def agreement(a, b, crops) -> float:
    pa, pb = a.probabilities(crops), b.probabilities(crops)
    return float((pa.argmax(axis=1) == pb.argmax(axis=1)).mean())


@pytest.fixture(scope="module")
def classifiers():
    return (classifier.TileClassifier(classifier.TRAINED_MODEL, threads=1),
            classifier.TileClassifier(threads=1))


def test_the_table_runs_the_eight_bit_copies_of_the_trained_models():
    assert classifier.DEFAULT_MODEL == int8_path(classifier.TRAINED_MODEL)
    assert finder.DEFAULT_MODEL == int8_path(finder.TRAINED_MODEL)
    for trained in (classifier.TRAINED_MODEL, finder.TRAINED_MODEL):
        # a quarter of the float model's bytes, give or take the head left in floats
        assert int8_path(trained).stat().st_size < 0.3 * trained.stat().st_size


def test_eight_bit_classifier_names_real_and_rendered_tiles_as_the_float_one(classifiers, shared_data):
    from testkit.camerash import camerash_crops
    from vision.synthesis.render import TileArt, render_set

    trained, fast = classifiers
    crops, _ = render_set(TileArt(shared_data / "tiles" / "fluffystuff" / "Export"), 4, seed=7,
                          backgrounds="holdout")
    assert agreement(trained, fast, crops) == 1.0
    real, _ = camerash_crops(shared_data)
    # 1 of the 541 real crops is read otherwise (measured); a few would still be noise
    assert agreement(trained, fast, real) >= 0.99


def test_eight_bit_finder_finds_the_tiles_the_float_one_finds(shared_data):
    from testkit.tables import full_table_frame
    from vision.camera.sources import read_image

    trained, fast = finder.TileFinder(finder.TRAINED_MODEL, threads=1), finder.TileFinder(threads=1)
    frame, cal = full_table_frame()
    top = cal.warp(frame)
    photo = read_image(shared_data / "photos" / "camerash" / "raw-images" / "10.jpg")
    for a, b in ((finder.find_tiles_topdown(top, cal.px_per_mm, trained),
                  finder.find_tiles_topdown(top, cal.px_per_mm, fast)),
                 (finder.find_tiles_photo(photo, finder=trained), finder.find_tiles_photo(photo, finder=fast))):
        assert len(a.tiles) > 100
        same = finder.match_boxes([t.quad for t in b.tiles], [t.quad for t in a.tiles], iou=0.8)
        assert same["fn"] == same["fp"] == 0


def test_the_shipped_eight_bit_copies_are_what_quantize_makes(tmp_path, classifiers, shared_data,
                                                              calibrated_once, holdout_crops):
    """Quantizing is deterministic (fixed calibration renders), so anyone can check that the
    fast models are the trained ones and nothing else."""
    pytest.importorskip("onnx", reason="quantizing needs the onnx package (the test and train extras)")
    from vision.training.quantize import finder_batches, quantize_classifier, quantize_finder

    for model in (classifier.TRAINED_MODEL, finder.TRAINED_MODEL, finder.TRAINED_DARK_MODEL):
        shutil.copy(model, tmp_path / model.name)
        shutil.copy(model.with_suffix(".json"), tmp_path / model.with_suffix(".json").name)
    made = quantize_classifier(tmp_path / classifier.TRAINED_MODEL.name)
    same_quantized_weights(made, classifier.DEFAULT_MODEL)
    remade = classifier.TileClassifier(made, threads=1)
    crops = holdout_crops
    # the readings agree, their probabilities within a hundredth (measured 0.0025 on an AVX2
    # machine with OpenCV 4.14, against 0.005 between the eight-bit copy and its float model)
    a, b = remade.probabilities(crops), classifiers[1].probabilities(crops)
    assert (a.argmax(axis=1) == b.argmax(axis=1)).all()
    assert np.allclose(a, b, atol=1e-2)

    # both finders on one calibration render
    scenes = finder_batches()
    for trained, fast in ((finder.TRAINED_MODEL, finder.DEFAULT_MODEL),
                          (finder.TRAINED_DARK_MODEL, finder.DARK_MODEL)):
        same_quantized_weights(quantize_finder(tmp_path / trained.name, calibration=scenes), fast)


def first_layer_alone(path, rng, pooled: bool):
    """An eight-bit model of a first layer as the quantizer writes it: the picture quantized
    at scale 1, scaled as the networks scale it (x / 64), a 3 x 3 convolution with weights per
    output channel, its output quantized: of stride 2 (the finder's), or ``pooled``, of stride
    1 and then a 2 x 2 max pool (the classifier's)."""
    import onnx
    from onnx import TensorProto, helper
    from onnx import numpy_helper as nh

    def const(name, value):
        return nh.from_array(np.asarray(value), name)

    out = 8
    x_scale = np.float32(4.0 / 255)                       # x / 64 spans 0..4
    w_scale = rng.uniform(0.002, 0.008, out).astype(np.float32)
    inits = [const("one", np.float32(1)), const("zero", np.uint8(0)),
             const("k", np.uint8(255)), const("k_s", np.float32(1 / 64 / 255)),
             const("xs", x_scale), const("xz", np.uint8(0)),
             const("w", rng.integers(-127, 128, (out, 3, 3, 3)).astype(np.int8)),
             const("ws", w_scale), const("wz", np.zeros(out, np.int8)),
             const("b", rng.integers(-5000, 5000, out).astype(np.int32)),
             const("bs", (x_scale * w_scale).astype(np.float32)),
             const("bz", np.zeros(out, np.int32)),
             const("ys", np.float32(0.05)), const("yz", np.uint8(0))]
    nodes = [helper.make_node("QuantizeLinear", ["image", "one", "zero"], ["iq"]),
             helper.make_node("DequantizeLinear", ["iq", "one", "zero"], ["id"]),
             helper.make_node("DequantizeLinear", ["k", "k_s", "zero"], ["kd"]),
             helper.make_node("Mul", ["id", "kd"], ["scaled"]),
             helper.make_node("QuantizeLinear", ["scaled", "xs", "xz"], ["sq"]),
             helper.make_node("DequantizeLinear", ["sq", "xs", "xz"], ["sd"]),
             helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wd"], axis=0),
             helper.make_node("DequantizeLinear", ["b", "bs", "bz"], ["bd"], axis=0),
             helper.make_node("Conv", ["sd", "wd", "bd"], ["y"], kernel_shape=[3, 3],
                              strides=[1, 1] if pooled else [2, 2], pads=[1, 1, 1, 1]),
             # no Relu: the quantizer folds it into the output's zero point, as here
             helper.make_node("QuantizeLinear", ["y", "ys", "yz"], ["yq"]),
             helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["yd"])]
    if pooled:
        nodes += [helper.make_node("MaxPool", ["yd"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
                  helper.make_node("QuantizeLinear", ["p", "ys", "yz"], ["pq"]),
                  helper.make_node("DequantizeLinear", ["pq", "ys", "yz"], ["pd"])]
    nodes.append(helper.make_node("Identity", [nodes[-1].output[0]], ["maps"]))
    graph = helper.make_graph(
        nodes, "first_layer",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["n", 3, "h", "w"])],
        [helper.make_tensor_value_info("maps", TensorProto.FLOAT, None)], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))


@pytest.mark.parametrize("pooled", [False, True], ids=["finder", "classifier"])
def test_a_network_taking_its_picture_in_blocks_computes_what_it_did_to_the_bit(tmp_path, pooled):
    """The first layer over 2 x 2 blocks of uint8 pixels is the same sums as over the picture
    (the tiles' edges, the picture's border, every weight in its place; the classifier's pool
    the greatest of a block's four places), so the rewritten network gives what it gave (the
    shipped finders and readers too: measured on a full table's view, a photo and 151 crops,
    1 and 2 threads); a model rewritten once is left as it is."""
    pytest.importorskip("onnx", reason="rewriting a model needs the onnx package (the test extra)")
    import onnxruntime as ort

    from vision.runtime import in_blocks, session_options
    from vision.training.quantize import picture_in_blocks

    rng = np.random.default_rng(3)
    path = tmp_path / "first-int8.onnx"
    first_layer_alone(path, rng, pooled)
    pictures = [rng.integers(0, 256, (n, h, w, 3), dtype=np.uint8)
                for n, h, w in ((1, 64, 96), (3, 32, 32))]

    def outputs(blocks):
        session = ort.InferenceSession(str(path), session_options(1),
                                       providers=["CPUExecutionProvider"])
        given = [in_blocks(p) if blocks else p.transpose(0, 3, 1, 2).astype(np.float32)
                 for p in pictures]
        return [session.run(None, {"image": x})[0] for x in given]

    before = outputs(False)
    assert picture_in_blocks(path)
    after = outputs(True)
    for a, b in zip(before, after):
        assert a.shape == b.shape and a.any()
        assert np.array_equal(a, b)
    assert not picture_in_blocks(path)


def test_the_table_runs_its_networks_on_pictures_in_blocks():
    for model in (finder.DEFAULT_MODEL, finder.DARK_MODEL):
        assert finder.TileFinder(model, threads=1).in_blocks
    for model in classifier.MODEL_DIR.glob("tiles*-int8.onnx"):
        assert classifier.TileClassifier(model, threads=1).in_blocks, model.name


def test_rewriting_what_is_no_eight_bit_network_in_blocks_is_one_line(tmp_path):
    pytest.importorskip("onnx", reason="rewriting a model needs the onnx package (the test extra)")
    from vision.training import quantize

    missing, junk = tmp_path / "gone-int8.onnx", tmp_path / "junk-int8.onnx"
    junk.write_bytes(b"not a model at all")
    shipped = tmp_path / "finder-int8.onnx"
    shutil.copy(finder.DEFAULT_MODEL, shipped)
    for path, line in ((missing, f"no eight-bit network at {missing}"),
                       (junk, f"{junk}: not an ONNX model (DecodeError)"),
                       (shipped, f"{shipped}: not an eight-bit network taking three colours")):
        with pytest.raises(SystemExit) as stop:
            quantize.main(["--in-blocks", str(path)])
        assert str(stop.value) == line
    assert shipped.read_bytes() == finder.DEFAULT_MODEL.read_bytes()


def test_quantizing_a_model_that_is_not_there_is_one_line(tmp_path, capsys):
    from vision.training import quantize

    missing = tmp_path / "tiles.onnx"
    with pytest.raises(SystemExit) as stop:
        quantize.main(["--classifier", str(missing), "--finder", ""])
    assert str(stop.value) == f"no float model to quantize at {missing}"
    assert not quantize.int8_path(missing).exists()


def test_quantizing_a_file_that_is_no_model_is_one_line(tmp_path):
    pytest.importorskip("onnx", reason="quantizing needs the onnx package (the test and train extras)")
    from vision.training import quantize

    broken = tmp_path / "finder.onnx"
    broken.write_bytes(b"not a network")
    with pytest.raises(SystemExit) as stop:
        quantize.main(["--classifier", "", "--finder", str(broken)])
    message = str(stop.value)
    assert message.startswith(f"{broken}: not a model that can be quantized (") and "\n" not in message
    assert not quantize.int8_path(broken).exists()


@pytest.mark.parametrize("machine, flags, exact", [
    ("aarch64", "", True),                               # a Pi: ARM's dot products are exact
    ("x86_64", "fpu sse4_1 avx avx2 fma", False),        # VPMADDUBSW saturates
    ("x86_64", "fpu avx2 avx512f avx512_vnni", True),
    ("x86_64", "fpu avx2 avx_vnni", True),
    ("x86_64", None, False),                             # flags unknown: assume the worst
])
def test_eight_bit_kernels_are_trusted_only_where_they_are_exact(machine, flags, exact):
    from vision.runtime import int8_is_exact

    cpuinfo = None if flags is None else f"processor\t: 0\nflags\t\t: {flags}\n"
    if flags is None:
        assert int8_is_exact.__wrapped__(machine, "") is exact
    else:
        assert int8_is_exact.__wrapped__(machine, cpuinfo) is exact


def test_where_they_are_not_the_eight_bit_kernels_are_asked_for_their_precision_fix(monkeypatch):
    from vision import runtime

    monkeypatch.setattr(runtime, "int8_is_exact", lambda: False)
    opts = runtime.session_options()
    assert opts.get_session_config_entry("session.x64quantprecision") == "1"
    with pytest.raises(RuntimeError):   # not set: the quantized steps stay fused
        opts.get_session_config_entry("session.disable_quant_qdq")
    monkeypatch.setattr(runtime, "int8_is_exact", lambda: True)
    with pytest.raises(RuntimeError):   # an exact machine needs no fix
        runtime.session_options().get_session_config_entry("session.x64quantprecision")


def test_the_fused_eight_bit_networks_compute_what_the_unfused_ones_do():
    """On every machine the table's sessions give what the same eight-bit numbers give through
    float kernels (``session.disable_quant_qdq``), which cannot saturate. On an AVX2 processor
    without VNNI the fused kernels alone are off by up to 1.4 in a logit (measured); with the
    precision fix by 0.02. The finder's heat without the fix: 0.89 off in this corner, 4 of
    its 16 tiles lost (141 of 167 found on the whole view); with it, the two round their
    sums differently (one step of eight bits here and there): up to 0.019 off in the heat on
    the whole view for the shipped finder, 0.021 for a retrained one, the same tiles found
    (measured, 27 Nov)."""
    import onnxruntime as ort

    from testkit.tables import full_table_frame
    from vision.runtime import session_options

    def unfused(path):
        opts = session_options(1)
        opts.add_session_config_entry("session.disable_quant_qdq", "1")
        return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])

    frame, cal = full_table_frame()
    top = cal.warp(frame)
    fast = finder.TileFinder(threads=1)
    small = np.ascontiguousarray(top[:640, :640])
    maps = fast.maps(small)
    x = finder.network_input(small, fast.in_blocks)
    exact = unfused(fast.model_path).run(None, {fast.input: x})[0][0]
    assert np.abs(maps[0] - exact[0]).max() < 0.05
    assert len(finder.decode(maps)) == len(finder.decode(exact)) > 10

    reader = classifier.TileClassifier(threads=1)
    found = finder.find_tiles_topdown(top, cal.px_per_mm, fast, reader.input_width)
    batch = reader.batch([t.crop for t in found.tiles][:64])
    logits = reader._session.run(None, {reader._input: batch})[0]
    exact = unfused(reader.model_path).run(None, {reader._input: batch})[0]
    assert np.abs(logits - exact).max() < 0.1
    assert (logits.argmax(axis=1) == exact.argmax(axis=1)).all()


ARENA_PROBE = """
import sys

import numpy as np

if sys.argv[1:] == ["own"]:     # as before: an arena per session, and its memory pattern
    from vision import runtime
    made = runtime.session_options

    def session_options(threads=None):
        opts = made(threads)
        opts.enable_mem_pattern = True
        return opts

    runtime._one_arena = lambda: False
    import vision.finding.learned, vision.reading.classifier
    vision.finding.learned.session_options = session_options
    vision.reading.classifier.session_options = session_options

from vision.finding.learned import TileFinder
from vision.reading.classifier import TileClassifier

def rss_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024

finder, reader = TileFinder(threads=1), TileClassifier(threads=1)
before = rss_mb()
for _ in range(2):
    finder.maps(np.full((992, 992, 3), 90, np.uint8))      # a full table's view, as the finder sees it
    reader.classify([np.full((65, 48, 3), 200, np.uint8)] * 64)
print(rss_mb() - before)
"""


@pytest.mark.skipif(not __import__("pathlib").Path("/proc/self/status").is_file(),
                    reason="reads the process's memory from /proc")
def test_the_finder_and_the_classifier_work_in_one_arena_of_what_they_need():
    """What a full table's frame leaves held, numpy's copies of the input included, each
    session in an arena of its own with its memory pattern against one arena without: 73-75
    against 48-49 MB with the fused eight-bit kernels, 148 against 73 with the quantized steps
    unfused (measured)."""
    import subprocess
    import sys

    def held(*args) -> float:
        out = subprocess.run([sys.executable, "-c", ARENA_PROBE, *args], capture_output=True,
                             text=True, check=True,
                             cwd=__import__("pathlib").Path(__file__).parent.parent)
        return float(out.stdout.split()[-1])

    assert held() < held("own") - 15
