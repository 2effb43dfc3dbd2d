"""Eight-bit copies of the two networks, which the table runs.

    python -m vision.training.quantize [--classifier vision/models/tiles.onnx] [--finder
    vision/models/finder.onnx]

A Pi (and this machine) multiplies 8-bit integers several times as fast as 32-bit floats, and
a frame of a full table is some 2 G multiply-adds in the finder and 5 G in the classifier.
Each trained float model ``NAME.onnx`` gets a copy ``NAME-int8.onnx`` (with ``NAME-int8.json``
beside it, its description plus how it was made): onnxruntime's static quantization, weights
per output channel, activations by the ranges they take on a fixed set of calibration pictures
rendered from seed 0 (the training scenes' kind), so the same float model always gives the
same copy. The training scripts end by calling :func:`quantize_classifier` and
:func:`quantize_finder`; this command does the same for a float model already made. The
``onnx`` package (the ``train`` and ``test`` extras) is needed here, not on the table.
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
    """The classifier at ``src`` quantized beside it (see :func:`int8_path`)."""
    return quantize(src, int8_path(src), "crops", "logits", lambda: classifier_batches(per_label),
                    {"calibration": f"{per_label} rendered crops per label, seed {CALIBRATION_SEED}"})


def quantize_finder(src: Path, scenes: int = FINDER_CALIBRATION_SCENES,
                    calibration: list[np.ndarray] | None = None) -> Path:
    """The finder at ``src`` quantized beside it (see :func:`int8_path`). ``calibration``:
    what :func:`finder_batches` gives for ``scenes``, if it was rendered already (some 11 s of
    CPU), e.g. for two finders quantized one after the other."""
    return quantize(src, int8_path(src), "image", "maps",
                    lambda: calibration if calibration is not None else finder_batches(scenes),
                    {"calibration": f"{scenes} rendered scenes and {scenes} of the flat table, "
                                    f"seed {CALIBRATION_SEED}"})


def main(argv=None) -> int:
    from vision.finding.learned import TRAINED_MODEL as TRAINED_FINDER
    from vision.reading.classifier import TRAINED_MODEL

    p = argparse.ArgumentParser(prog="python -m vision.training.quantize", description=__doc__.splitlines()[0])
    p.add_argument("--classifier", type=Path, default=TRAINED_MODEL, help="float classifier ('' to skip)")
    p.add_argument("--finder", type=Path, default=TRAINED_FINDER, help="float finder ('' to skip)")
    args = p.parse_args(argv)
    try:
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
