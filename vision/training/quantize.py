"""Eight-bit copies of the two networks, which the table runs.

    python -m vision.training.quantize [--classifier vision/models/tiles.onnx] [--finder
    vision/models/finder.onnx]

A Pi (and this machine) multiplies 8-bit integers several times as fast as 32-bit floats, and
a frame of a full table is some 2 G multiply-adds in the finder and 5 G in the classifier.
Each trained float model ``NAME.onnx`` gets a copy ``NAME-int8.onnx`` (with ``NAME-int8.json``
beside it, its description plus how it was made): onnxruntime's static quantization, weights
per output channel, activations by the ranges they take on a fixed set of calibration pictures
rendered from seed 0 (the training scenes' kind), so the same float model gives the same
copy on one machine (the ranges move a little from machine to machine: the shipped eight-bit
reader for dark faces, quantized again here, came out 0.2 off in a logit). Each copy then
takes its picture in 2 x 2 blocks (:func:`picture_in_blocks`). The training scripts end
by calling :func:`quantize_classifier` and :func:`quantize_finder`; this command does the same
for a float model already made, and ``--in-blocks M-int8.onnx ...`` rewrites an eight-bit
network made before, as the shipped ones were, with no new ranges. The ``onnx`` package (the
``train`` and ``test`` extras) is needed here, not on the table.
"""
from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from referee.errors import RefereeError

#: Calibration: crops per label for the classifier, scenes (and flat-table scenes) for the finder.
CLASSIFIER_CALIBRATION_PER_LABEL = 8
FINDER_CALIBRATION_SCENES = 24
CALIBRATION_SEED = 0


def int8_path(path: str | Path) -> Path:
    """Where the eight-bit copy of the float model at ``path`` goes."""
    path = Path(path)
    return path.with_name(f"{path.stem}-int8.onnx")


def head_nodes(model_path: Path, output: str) -> list[str]:
    """The nodes from the last weighted layer (Conv, Gemm, MatMul) before ``output`` to it.

    They stay in floats: one eight-bit scale per tensor would have to span, for the finder,
    heat logits, log sizes and sub-cell offsets at once, and for the classifier the logits
    whose small gaps decide between two tiles; they are a sliver of the work."""
    import onnx

    graph = onnx.load(str(model_path)).graph
    made_by = {o: n for n in graph.node for o in n.output}
    names, todo, seen = [], [output], set()
    while todo:
        node = made_by.get(todo.pop())
        if node is None or node.name in seen:
            continue
        seen.add(node.name)
        names.append(node.name)
        if node.op_type not in ("Conv", "Gemm", "MatMul"):
            todo.extend(node.input)
    return names


def add_not_subtract(model_path: Path) -> int:
    """Rewrite ``x - c`` (c a constant) as ``x + (-c)`` in the model file; returns how many.

    The same sum, but onnxruntime adds eight-bit tensors and does not subtract them: the
    finder's input scaling (``x / 64 - 2``) was otherwise run in floats over every pixel,
    with a conversion each way (1.3 ms of its 16 here, and the same outputs to the bit)."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(model_path))
    graph = model.graph
    initial = {t.name: t for t in graph.initializer}
    constant = {n.output[0]: n for n in graph.node if n.op_type == "Constant"}
    uses = Counter(name for node in graph.node for name in node.input)
    done = 0
    for node in graph.node:
        if node.op_type != "Sub" or uses[node.input[1]] != 1:
            continue
        name = node.input[1]
        if name in initial:
            tensor = initial[name]
        elif name in constant and constant[name].attribute[0].name == "value":
            tensor = constant[name].attribute[0].t
        else:
            continue
        tensor.CopyFrom(numpy_helper.from_array(-numpy_helper.to_array(tensor), tensor.name))
        node.op_type = "Add"
        done += 1
    if done:
        onnx.save(model, str(model_path))
    return done


#: What a network takes once :func:`picture_in_blocks` has rewritten it (its JSON says so).
BLOCKS_INPUT = ("uint8 N x 12 x H/2 x W/2: BGR 0..255 in 2 x 2 blocks of pixels, "
                "(row, column, colour)")


def picture_in_blocks(model_path: Path) -> bool:
    """Rewrite the eight-bit network at ``model_path`` (the finder or the classifier) to take
    its picture as the table has it, uint8, in 2 x 2 blocks of pixels as twelve channels
    (:data:`BLOCKS_INPUT`; :func:`vision.runtime.in_blocks` lays pictures so), its first layer,
    a 3 x 3 convolution over the three colours, made the same sums over the blocks. Returns
    whether it was rewritten; a model of another form (already rewritten, say) is left as it is.

    - The finder's (stride 2): a 2 x 2 convolution of stride 1 over the blocks, each weight
      moved to where its pixel went, nought where a block holds a pixel it does not look at.
    - The classifier's (stride 1, then a 2 x 2 max pool): a 3 x 3 convolution over the blocks
      that gives each output channel at the four places of a block as four channels, and
      their greatest, which is what the pool took.

    Every sum is the one it was, to the bit, so what the network gives is too. Why:
    onnxruntime's eight-bit convolution over three channels runs at a tenth of the speed of the
    others. The finder's first layer, 5% of its multiply-adds, took 4.0 of its 16.2 ms on two
    threads here, and over twelve channels takes 1.5; the classifier's took 7.1 of 31.9 ms for
    96 faces on one thread, and takes 3.6 (with four times the multiply-adds, a quarter of
    them by nought) and 0.9 to split the four places. The picture's conversion to floats, and
    the network's quantizing of it back to eight bits (at scale 1, exact for whole grey
    levels), are left out too."""
    import onnx
    from onnx import TensorProto, helper
    from onnx import numpy_helper as nh

    model = onnx.load(str(model_path))
    graph = model.graph
    initial = {t.name: t for t in graph.initializer}
    made_by = {o: n for n in graph.node for o in n.output}

    def users(name):
        return [n for n in graph.node if name in n.input]

    image = graph.input[0]
    dims = image.type.tensor_type.shape.dim
    first = users(image.name)
    if (image.type.tensor_type.elem_type != TensorProto.FLOAT or len(dims) != 4
            or dims[1].dim_value != 3 or any(d.dim_value % 2 for d in dims[2:])
            or len(first) != 1 or first[0].op_type != "QuantizeLinear"):
        return False
    quant = first[0]
    scale, zero = (nh.to_array(initial[n]) for n in quant.input[1:3])
    if scale.size != 1 or float(scale) != 1.0 or int(zero) != 0:
        return False
    # the first convolution, past the input's elementwise scaling and its eight-bit steps
    conv, name = None, quant.output[0]
    while conv is None:
        after = users(name)
        if len(after) != 1 or after[0].op_type not in ("DequantizeLinear", "QuantizeLinear",
                                                       "Mul", "Add", "Conv"):
            return False
        if after[0].op_type == "Conv":
            conv = after[0]
        else:
            name = after[0].output[0]
    attrs = {a.name: helper.get_attribute_value(a) for a in conv.attribute}
    weight_dq = made_by.get(conv.input[1])
    if (attrs.get("kernel_shape") != [3, 3] or attrs.get("pads") != [1, 1, 1, 1]
            or attrs.get("group", 1) != 1 or attrs.get("dilations", [1, 1]) != [1, 1]
            or weight_dq is None or weight_dq.op_type != "DequantizeLinear"
            or weight_dq.input[0] not in initial):
        return False
    w = nh.to_array(initial[weight_dq.input[0]])               # out x 3 x 3 x 3, int8
    if attrs.get("strides") == [2, 2]:
        weights, kernel, pads = _stride_two_on_blocks(w), [2, 2], [1, 1, 0, 0]
    elif attrs.get("strides") == [1, 1] and (pool := _pool_after(conv, users, initial)):
        _take_pool_apart(graph, conv, *pool)
        weights, kernel, pads = _four_places_on_blocks(w), [3, 3], [1, 1, 1, 1]
        # the bias and the weights' scales, one per output channel, for each of the four places
        parts = set(weight_dq.input).union(*(made_by[b].input if b in made_by else [b]
                                             for b in conv.input[2:]))
        for part in parts & initial.keys():
            value = nh.to_array(initial[part])
            if value.ndim == 1 and len(value) == len(w):
                initial[part].CopyFrom(nh.from_array(np.tile(value, 4), part))
    else:
        return False
    initial[weight_dq.input[0]].CopyFrom(nh.from_array(weights, weight_dq.input[0]))
    del conv.attribute[:]
    conv.attribute.extend([helper.make_attribute("kernel_shape", kernel),
                           helper.make_attribute("strides", [1, 1]),
                           helper.make_attribute("pads", pads),
                           helper.make_attribute("dilations", [1, 1]),
                           helper.make_attribute("group", 1)])
    for user in graph.node:     # the picture goes in as the eight bits it was quantized to
        user.input[:] = [image.name if i == quant.output[0] else i for i in user.input]
    graph.node.remove(quant)
    image.type.tensor_type.elem_type = TensorProto.UINT8
    dims[1].dim_value = 12
    for d, side in ((dims[2], "h2"), (dims[3], "w2")):
        if d.dim_value:
            d.dim_value //= 2
        else:
            d.dim_param = side
    del graph.value_info[:]     # shapes recorded for the old input
    onnx.save(model, str(model_path))
    return True


def _stride_two_on_blocks(w: np.ndarray) -> np.ndarray:
    """A 3 x 3 convolution of stride 2 over three colours (weights ``w``, out x 3 x 3 x 3) as a
    2 x 2 one over the blocks (out x 12 x 2 x 2; padded by a block at the top and left): what
    stride 2 gives are the outputs at each block's first place (:func:`_four_places_on_blocks`),
    and those reach no block below or to the right."""
    return np.ascontiguousarray(_four_places_on_blocks(w)[: len(w), :, :2, :2])


def _four_places_on_blocks(w: np.ndarray) -> np.ndarray:
    """A 3 x 3 convolution of stride 1 over three colours (``w``, out x 3 x 3 x 3) as a 3 x 3
    one over the blocks giving each output channel at the block's four places (row, column
    within it) as four channels, place by place: 4 out x 12 x 3 x 3."""
    out = w.shape[0]
    blocks = np.zeros((4 * out, 12, 3, 3), w.dtype)
    for py in range(2):
        for px in range(2):
            place = slice((py * 2 + px) * out, (py * 2 + px + 1) * out)
            for ky in range(3):
                # picture row 2y + py - 1 + ky lies in block y + (py - 1 + ky) // 2
                by, dy = (py - 1 + ky) // 2 + 1, (py - 1 + ky) % 2
                for kx in range(3):
                    bx, dx = (px - 1 + kx) // 2 + 1, (px - 1 + kx) % 2
                    colours = slice((dy * 2 + dx) * 3, (dy * 2 + dx) * 3 + 3)
                    blocks[place, colours, by, bx] = w[:, :, ky, kx]
    return blocks


def _pool_after(conv, users, initial) -> tuple | None:
    """The nodes from ``conv``'s eight-bit output through a 2 x 2 max pool of stride 2 to the
    pool's eight-bit output, when that is all the output goes to and the pool's output keeps
    its scale: (quantize, dequantize, pool, quantize); else None."""
    from onnx import helper
    from onnx import numpy_helper as nh

    def only(name, op):
        after = users(name)
        return after[0] if len(after) == 1 and after[0].op_type == op else None

    quant = only(conv.output[0], "QuantizeLinear")
    dequant = quant and only(quant.output[0], "DequantizeLinear")
    pool = dequant and only(dequant.output[0], "MaxPool")
    pooled = pool and only(pool.output[0], "QuantizeLinear")
    if pooled is None:
        return None
    attrs = {a.name: helper.get_attribute_value(a) for a in pool.attribute}
    same_scale = all(a in initial and b in initial and
                     np.array_equal(nh.to_array(initial[a]), nh.to_array(initial[b]))
                     for a, b in zip(quant.input[1:3], pooled.input[1:3]))
    if (attrs.get("kernel_shape") != [2, 2] or attrs.get("strides") != [2, 2]
            or any(attrs.get("pads", [0] * 4)) or attrs.get("ceil_mode", 0) or not same_scale):
        return None
    return quant, dequant, pool, pooled


def _take_pool_apart(graph, conv, quant, dequant, pool, pooled) -> None:
    """The pool's greatest of four (:func:`_pool_after`) taken as the greatest of the four
    places' channels of ``conv``'s output instead: a Split and a Max on the eight bits."""
    from onnx import helper

    places = [f"{conv.name}_place_{k}" for k in range(4)]
    at = list(graph.node).index(dequant)
    for node in (dequant, pool, pooled):
        graph.node.remove(node)
    graph.node.insert(at, helper.make_node("Split", [quant.output[0]], places, axis=1,
                                           name=f"{conv.name}_places"))
    graph.node.insert(at + 1, helper.make_node("Max", places, [pooled.output[0]],
                                               name=f"{conv.name}_pooled"))


def quantize(src: Path, dst: Path, input_name: str, output_name: str,
             batches: Callable[[], Iterable[np.ndarray]], how: dict) -> Path:
    """Write ``dst``, the eight-bit copy of ``src`` calibrated on what ``batches()`` gives
    (float32 arrays as the network's input ``input_name`` takes them) with the layers that make
    ``output_name`` left in floats (:func:`head_nodes`), and ``dst``'s JSON: ``src``'s with
    ``quantized`` (``how``, plus the format) added."""
    try:
        from onnxruntime.quantization import (
            CalibrationDataReader,
            QuantFormat,
            QuantType,
            quantize_static,
        )
        from onnxruntime.quantization.shape_inference import quant_pre_process
    except ImportError as exc:
        raise RefereeError(f"quantizing needs the onnx package ({exc}): pip install -e '.[train]'") from None
    src, dst = Path(src), Path(dst)
    if not src.is_file():
        raise RefereeError(f"no float model to quantize at {src}")

    class Batches(CalibrationDataReader):
        def __init__(self):
            self.it = iter(batches())

        def get_next(self):
            x = next(self.it, None)
            return None if x is None else {input_name: np.ascontiguousarray(x, np.float32)}

    dst.parent.mkdir(parents=True, exist_ok=True)
    prepared = dst.with_name(dst.stem + ".prepared.onnx")
    try:
        # folds constants and records shapes, which quantization reads; the finder's input
        # size is free, so only onnx's own shape inference applies
        quant_pre_process(str(src), str(prepared), skip_symbolic_shape=True)
        add_not_subtract(prepared)
        quantize_static(str(prepared), str(dst), Batches(), quant_format=QuantFormat.QDQ,
                        per_channel=True, activation_type=QuantType.QUInt8,
                        weight_type=QuantType.QInt8,
                        nodes_to_exclude=head_nodes(prepared, output_name))
    except Exception as exc:   # onnx and onnxruntime raise their own types for a bad file
        dst.unlink(missing_ok=True)
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise RefereeError(f"{src}: not a model that can be quantized ({first})") from None
    finally:
        prepared.unlink(missing_ok=True)
    meta_src = src.with_suffix(".json")
    meta = json.loads(meta_src.read_text()) if meta_src.is_file() else {}
    meta["quantized"] = {"from": src.name, "format": "QDQ, weights int8 per channel, activations uint8",
                         **how}
    dst.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n")
    return dst


def classifier_batches(per_label: int = CLASSIFIER_CALIBRATION_PER_LABEL,
                       seed: int = CALIBRATION_SEED, batch: int = 64) -> list[np.ndarray]:
    """Rendered crops of every label, as training renders them, in network input batches."""
    from vision.reading.classifier import INPUT_HEIGHT, INPUT_WIDTH, prepare
    from vision.synthesis.render import TileArt, render_set

    crops, _ = render_set(TileArt(), per_label, seed)
    x = np.stack([prepare(c, INPUT_WIDTH, INPUT_HEIGHT) for c in crops]).transpose(0, 3, 1, 2)
    x = x.astype(np.float32)
    return [x[i:i + batch] for i in range(0, len(x), batch)]


def finder_batches(scenes: int = FINDER_CALIBRATION_SCENES, seed: int = CALIBRATION_SEED) -> list[np.ndarray]:
    """Rendered scenes, solid tiles and the flat table alike, one at a time (1 x 3 x H x W)."""
    from .scenes import render_scenes

    quiet = lambda *_: None  # noqa: E731
    images = [render_scenes(scenes, seed, None, 1, quiet)["images"],
              render_scenes(scenes, seed, None, 1, quiet, flat=True)["images"]]
    return [im.transpose(2, 0, 1)[None].astype(np.float32) for part in images for im in part]


def quantize_classifier(src: Path, per_label: int = CLASSIFIER_CALIBRATION_PER_LABEL) -> Path:
    """The classifier at ``src`` quantized beside it (see :func:`int8_path`), taking its crops
    in blocks (:func:`rewrite_in_blocks`)."""
    how = {"calibration": f"{per_label} rendered crops per label, seed {CALIBRATION_SEED}"}
    dst = quantize(src, int8_path(src), "crops", "logits", lambda: classifier_batches(per_label),
                   how)
    rewrite_in_blocks(dst)
    return dst


def quantize_finder(src: Path, scenes: int = FINDER_CALIBRATION_SCENES,
                    calibration: list[np.ndarray] | None = None) -> Path:
    """The finder at ``src`` quantized beside it (see :func:`int8_path`). ``calibration``:
    what :func:`finder_batches` gives for ``scenes``, if it was rendered already (some 11 s of
    CPU), e.g. for two finders quantized one after the other."""
    dst = quantize(src, int8_path(src), "image", "maps",
                   lambda: calibration if calibration is not None else finder_batches(scenes),
                   {"calibration": f"{scenes} rendered scenes and {scenes} of the flat table, "
                                   f"seed {CALIBRATION_SEED}"})
    rewrite_in_blocks(dst)
    return dst


def rewrite_in_blocks(path: Path) -> bool:
    """:func:`picture_in_blocks` for the eight-bit network at ``path``, its JSON beside it (where
    there is one) saying so (``quantized.input``). Returns whether it was rewritten."""
    if not picture_in_blocks(path):
        return False
    meta_path = Path(path).with_suffix(".json")
    if meta_path.is_file():
        meta = json.loads(meta_path.read_text())
        meta.setdefault("quantized", {})["input"] = BLOCKS_INPUT
        meta_path.write_text(json.dumps(meta, indent=1) + "\n")
    return True


def main(argv=None) -> int:
    from vision.finding.learned import TRAINED_MODEL as TRAINED_FINDER
    from vision.reading.classifier import TRAINED_MODEL

    p = argparse.ArgumentParser(prog="python -m vision.training.quantize", description=__doc__.splitlines()[0])
    p.add_argument("--classifier", type=Path, default=TRAINED_MODEL, help="float classifier ('' to skip)")
    p.add_argument("--finder", type=Path, default=TRAINED_FINDER, help="float finder ('' to skip)")
    p.add_argument("--in-blocks", type=Path, nargs="+", metavar="M",
                   help="only rewrite these eight-bit networks to take their picture in blocks")
    args = p.parse_args(argv)
    try:
        if args.in_blocks:
            for path in args.in_blocks:
                if not path.is_file():
                    raise RefereeError(f"no eight-bit network at {path}")
                try:
                    rewritten = rewrite_in_blocks(path)
                except Exception as exc:   # onnx raises its own types for a file not a model
                    kind = type(exc).__name__
                    raise RefereeError(f"{path}: not an ONNX model ({kind})") from None
                if not rewritten:
                    raise RefereeError(f"{path}: not an eight-bit network taking three colours")
                print(f"rewrote {path} to take its picture in 2 x 2 blocks")
            return 0
        for src, make in ((args.classifier, quantize_classifier), (args.finder, quantize_finder)):
            if str(src) in ("", "."):
                continue
            out = make(src)
            print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB) from {src} "
                  f"({src.stat().st_size / 1e6:.2f} MB)")
    except RefereeError as exc:
        raise SystemExit(str(exc))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
