"""Is this eight-bit model that one, quantized alike? (For the checks that the shipped eight-bit
copies are what ``python -m vision.training.quantize`` makes of the float models.)"""
from __future__ import annotations

import numpy as np


def same_quantized_weights(made, shipped) -> None:
    """``made`` and ``shipped`` (ONNX files) are one network quantized alike: the same graph,
    the same eight-bit weights and weight scales. Their activation ranges may differ a little:
    they come from rendered calibration pictures, whose pixels depend on the machine's OpenCV
    and float arithmetic (on an AVX2 machine without VNNI the finder's ranges came out up to
    26% off those of the machine that made the shipped copy, the classifier's not at all; on
    an AVX-512 VNNI machine with onnxruntime 1.32 and OpenCV 4.14 the dark finder's one layer
    32% off, every other within 18%). The weights, which decide what the network computes,
    must be the same to the bit; a range within 40% only moves where eight bits of one
    activation are spent."""
    import onnx
    from onnx import numpy_helper

    a, b = onnx.load(str(made)), onnx.load(str(shipped))
    assert [(n.op_type, list(n.input)) for n in a.graph.node] == \
        [(n.op_type, list(n.input)) for n in b.graph.node]
    wa = {t.name: numpy_helper.to_array(t) for t in a.graph.initializer}
    wb = {t.name: numpy_helper.to_array(t) for t in b.graph.initializer}
    assert wa.keys() == wb.keys()
    for name, value in wa.items():
        if value.dtype == np.int8 or (name.endswith("_scale") and "output" not in name
                                      and "_quantized_scale" not in name):
            assert np.array_equal(value, wb[name]), name
        elif name.endswith("output_0_scale"):
            assert np.allclose(value, wb[name], rtol=0.4), name


def made_once(folder, name: str, make) -> list[np.ndarray]:
    """The arrays ``make()`` gives, made once for every process of a test run that shares
    ``folder`` (pytest's temporary folder above its workers') and read back by the others: the
    eight-bit checks of the two classifiers (test_quantize.py, test_second_opinion.py, each
    perhaps in a process of its own) render the same crops, some 3 s of CPU each time. A lock
    on ``name``.lock makes the others wait for the first; what they read back is the same
    bytes (``.npz``, uncompressed)."""
    import fcntl
    import os
    from pathlib import Path

    folder = Path(folder)
    path = folder / f"{name}.npz"
    with open(folder / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not path.exists():
            arrays = list(make())
            part = folder / f"{name}.part.npz"
            np.savez(part, *arrays)
            os.replace(part, path)
            return arrays
    with np.load(path) as saved:
        return [saved[f"arr_{i}"] for i in range(len(saved.files))]


def run_folder(tmp_path_factory):
    """The temporary folder every process of this test run shares (under pytest-xdist each
    worker's own is one below it)."""
    import os

    base = tmp_path_factory.getbasetemp()
    return base.parent if "PYTEST_XDIST_WORKER" in os.environ else base
