"""The classifier's second output, ``embedding``: what the last layer reads, which enrollment
compares a tournament's tiles in. Training-only packages (torch, onnx) are not in CI: these
skip without them."""
import numpy as np
import pytest

from vision.reading.classifier import TileClassifier


def test_a_model_without_the_embedding_still_reads_and_says_so():
    shipped = TileClassifier(threads=1)
    logits, emb = shipped.outputs([np.full((64, 48, 3), 200, np.uint8)])
    assert logits.shape == (1, len(shipped.labels))
    assert (emb is None) == (not shipped.has_embedding)


def test_training_exports_the_logits_as_before_and_the_features_they_come_from(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from vision.training import train

    net = train.build_model(widths=(4, 4, 4, 8))
    out = tmp_path / "tiny.onnx"
    train.export(net, out, {"labels": list(train.LABELS), "input_width": 48, "input_height": 64})
    clf = TileClassifier(out, threads=1)
    assert clf.has_embedding
    crops = [np.random.default_rng(i).integers(0, 255, (64, 48, 3), dtype=np.uint8)
             for i in range(3)]
    logits, emb = clf.outputs(crops)
    w = net[-1].weight.detach().numpy()
    b = net[-1].bias.detach().numpy()
    assert emb.shape == (3, 8)
    np.testing.assert_allclose(emb @ w.T + b, logits, atol=1e-4)
