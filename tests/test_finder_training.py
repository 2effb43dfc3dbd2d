"""The finder's training batches and scene sets (vision.training.train_finder, .scenes): what
makes a training run reproducible, whichever machine and however many processes run it.
PyTorch is not needed for these."""
from pathlib import Path

import numpy as np

from vision.training.scenes import scene_jobs
from vision.training.train_finder import batches


def _scenes(n=6, size=320):
    """``n`` small scenes, each with two tiles to find and one to ignore."""
    rng = np.random.default_rng(3)
    quads, status, owner = [], [], []
    for i in range(n):
        for k, s in enumerate((1, 1, 0)):
            x, y = 40 + 90 * k, 60 + 20 * i
            quads.append([[x, y], [x + 40, y], [x + 40, y + 56], [x, y + 56]])
            status.append(s)
            owner.append(i)
    return {"images": rng.integers(0, 256, (n, size, size, 3), dtype=np.uint8),
            "quads": np.array(quads, np.float32), "status": np.array(status, np.int8),
            "owner": np.array(owner, np.int32),
            "hands": rng.integers(0, 256, (n, size // 4, size // 4), dtype=np.uint8)}


def test_the_batches_are_the_same_however_many_processes_make_them():
    data = _scenes()
    alone = list(batches(data, 4, seed=0, steps=5, loaders=0))
    forked = list(batches(data, 4, seed=0, steps=5, loaders=2))
    assert len(alone) == len(forked) == 5
    for a, b in zip(alone, forked):
        for x, y in zip(a, b):
            assert np.array_equal(x, y)
    # and they are batches: images as the network takes them, tiles to find in the targets
    images, targets, _, _ = alone[0]
    assert images.shape == (4, 3, 256, 256) and images.dtype == np.uint8
    assert targets.shape == (4, 8, 64, 64) and (targets[:, 0] > 0.99).any()
    # every step draws its own turns and windows: no two batches alike
    assert not np.array_equal(alone[0][0], alone[1][0])


def test_another_seed_makes_other_batches():
    data = _scenes()
    a = next(batches(data, 4, seed=0, steps=1))
    b = next(batches(data, 4, seed=1, steps=1))
    assert not np.array_equal(a[0], b[0])


def test_dark_set_scenes_are_cached_apart_from_the_usual_ones():
    """A cache of the usual scenes is never read back as dark-set scenes, or the other way."""
    cache = Path("/cache")
    usual = [job[3].name for job in scene_jobs(200, 0, cache)]
    dark = [job[3].name for job in scene_jobs(200, 2, cache, dark_sets=1.0)]
    unseen = [job[3].name for job in scene_jobs(200, 0, cache, real_faces=False)]
    assert len(set(usual + dark + unseen)) == 6
    # their own seeds too: the added dark scenes are not the usual scenes' layouts in black
    assert {job[0] for job in scene_jobs(200, 0, cache)}.isdisjoint(
        job[0] for job in scene_jobs(200, 2, cache, dark_sets=1.0))
