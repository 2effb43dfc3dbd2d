"""Is this eight-bit model that one, quantized alike? (For the checks that the shipped eight-bit
copies are what ``python -m vision.training.quantize`` makes of the float models.)"""
from __future__ import annotations

import numpy as np


def same_quantized_weights(made, shipped) -> None:
    """``made`` and ``shipped`` (ONNX files) are one network quantized alike: the same graph,
    the same eight-bit weights and weight scales. Their activation ranges may differ a little:
    they come from rendered calibration pictures, whose pixels depend on the machine's OpenCV
    and float arithmetic (on an AVX2 machine without VNNI the finder's ranges came out up to
    26% off those of the machine that made the shipped copy, the classifier's not at all)."""
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
            assert np.allclose(value, wb[name], rtol=0.3), name
