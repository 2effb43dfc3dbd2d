"""The training script's crop pools and networks: the same pool whatever the number of
processes rendering it, the shipped network's layout under the defaults, and options that
do not fit named in one line before any work. Torch is a training-only package: the tests of
the network skip without it."""
import numpy as np
import pytest

from vision.synthesis.render import LABELS, TileArt


@pytest.fixture(scope="module")
def art(shared_data):
    return TileArt(shared_data / "tiles" / "fluffystuff" / "Export")


def _pool(art, **kw):
    from vision.training.train import render_pool

    return render_pool(art, 2, 5, "train", None, log=lambda m: None,
                       labels=("1m", "5z", "none"), harsh=True, **kw)


def test_a_chunked_pool_is_the_same_from_one_process_or_several(art):
    x1, y1 = _pool(art, chunk=4, workers=1)
    x3, y3 = _pool(art, chunk=4, workers=3)
    assert x1.shape == (6, 64, 48, 3)
    assert np.array_equal(x1, x3) and np.array_equal(y1, y3)
    assert [LABELS[i] for i in y1] == ["1m", "5z", "none"] * 2
    # another chunking is another pool: the chunk size is part of the recipe
    x2, _ = _pool(art, chunk=2, workers=1)
    assert not np.array_equal(x1, x2)


def test_an_unchunked_pool_is_drawn_from_one_generator_as_before_chunks(art):
    """chunk 0 keeps the pools of the models trained before chunks: one generator seeded by
    the pool's seed, drawing the crops in turn."""
    from vision.reading.classifier import prepare
    from vision.synthesis.render import render_crop

    x, _ = _pool(art, chunk=0, workers=4)
    rng = np.random.default_rng(5)
    before = [prepare(render_crop(art, lab, rng, harsh=True)) for lab in ("1m", "5z", "none") * 2]
    assert np.array_equal(x, np.stack(before))


def test_the_default_network_is_the_shipped_layout():
    torch = pytest.importorskip("torch")
    from vision.training import train

    net = train.build_model()
    assert sum(t.numel() for t in net.parameters()) == 622071   # vision/models/tiles.json
    convs = [m for m in net if isinstance(m, torch.nn.Conv2d)]
    assert [c.out_channels for c in convs] == [16, 32, 96, 96, 192, 192]
    deeper = train.build_model(widths=(8, 8, 16, 16), blocks=(2, 1, 3, 1))
    convs = [m for m in deeper if isinstance(m, torch.nn.Conv2d)]
    assert [c.out_channels for c in convs] == [8, 8, 8, 16, 16, 16, 16]
    assert deeper(torch.zeros(2, 3, 64, 48)).shape == (2, len(LABELS))


@pytest.mark.parametrize("argv, message", [
    (["--blocks", "1,1,2"], "argument --blocks: '1,1,2': expected four whole numbers from 1"),
    (["--blocks", "1,0,2,2"], "argument --blocks: '1,0,2,2': expected four whole numbers from 1"),
    (["--device", "gpu"], "--device 'gpu': expected cpu or cuda"),
    (["--workers", "0"], "--workers must be 1 or more"),
])
def test_training_options_that_do_not_fit_are_one_line_before_any_work(argv, message, capsys):
    from vision.training import train

    with pytest.raises(SystemExit) as stop:
        train.arguments(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
