"""The finder's training scenes: rendered in seeded chunks, cached one by one.

Shared by the finder's training (:mod:`vision.training.train_finder`) and the eight-bit copy's
calibration (:mod:`vision.training.quantize`), which renders scenes of the same kind."""
from __future__ import annotations

import multiprocessing
import time
from pathlib import Path

import cv2
import numpy as np

from table.paths import shared_data_dir
from vision.finding.learned import STRIDE

#: Bumped whenever vision/synthesis/scene.py (or a module it draws with) changes what it draws,
#: so an old cache is not reused. 3: a tile side seen edge-on no longer writes NaN into the
#: picture (2 of the 6 scenes of the default training's second chunk had such pixels, whose
#: value after the cast to uint8 depended on the machine); the shipped finder was trained on
#: version 2's scenes.
SCENE_VERSION = 3


#: The same for vision/synthesis/flat_scene.py (the simulated camera's table).
FLAT_VERSION = 1


SCENE_SIZE = 320

#: Scenes a chunk: each has its own seed and cache file.
CHUNK = 100


def render_chunk(args):
    seed, n, size, path, flat, dark_sets, real_faces = args
    if path is not None and Path(path).is_file():
        with np.load(path) as z:
            return {k: z[k] for k in z.files}
    from vision.synthesis.render import TileArt
    from vision.synthesis.faces import FaceBank, load_real_faces
    from vision.synthesis.scene import render_scene

    if flat:
        from vision.synthesis.flat_scene import render_flat_scene
        draw = lambda rng: render_flat_scene(rng, (size, size))
    else:
        bank = FaceBank(TileArt(), load_real_faces(shared_data_dir()) if real_faces else None)
        draw = lambda rng: render_scene(bank, rng, (size, size), dark_sets=dark_sets)
    rng = np.random.default_rng(seed)
    images, quads, status, owner, hands = [], [], [], [], []
    for i in range(n):
        sc = draw(rng)
        images.append(sc.image)
        hands.append(cv2.resize(sc.hands, (size // STRIDE, size // STRIDE), interpolation=cv2.INTER_AREA))
        for t in sc.tiles:
            quads.append(t.quad)
            status.append(t.status)
            owner.append(i)
    part = {"images": np.stack(images), "quads": np.array(quads, np.float32).reshape(-1, 4, 2),
            "status": np.array(status, np.int8), "owner": np.array(owner, np.int32),
            "hands": np.stack(hands)}
    if path is not None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        np.savez(str(path) + ".tmp.npz", **part)
        Path(str(path) + ".tmp.npz").replace(path)
    return part


def scene_jobs(n: int, seed: int, cache: Path | None, size: int = SCENE_SIZE, flat: bool = False,
               dark_sets: float = 0.0, real_faces: bool = True) -> list[tuple]:
    """The chunks of :func:`render_scenes` as jobs for :func:`render_chunk` (several sets of
    scenes can then be rendered by one pool of processes)."""
    jobs = []
    # what the scenes were drawn with, in the cache's names when not the old default
    kind = ("" if not dark_sets else f"-dark{round(dark_sets * 100)}") + ("" if real_faces else "-noreal")
    for k in range((n + CHUNK - 1) // CHUNK):
        name = f"flat-seed{seed}-chunk{k}-n{CHUNK}-s{size}-v{FLAT_VERSION}" if flat else \
            f"scenes-seed{seed}-chunk{k}-n{CHUNK}-s{size}-v{SCENE_VERSION}{kind}"
        path = None if cache is None else cache / f"{name}.npz"
        jobs.append(((seed + 7919 * flat) * 100003 + k, min(CHUNK, n - k * CHUNK), size, path, flat,
                     dark_sets, real_faces))
    return jobs


def render_scenes(n: int, seed: int, cache: Path | None, workers: int, log=print,
                  size: int = SCENE_SIZE, flat: bool = False, dark_sets: float = 0.0,
                  real_faces: bool = True) -> dict:
    """``n`` scenes rendered from ``seed`` (``flat``: of the simulated camera's table,
    :mod:`vision.synthesis.flat_scene`), in chunks of 100 that each have their own seed (so the
    scenes do not depend on the number of workers) and are cached one by one (so an
    interrupted run picks up where it stopped). Solid-tile scenes: ``dark_sets`` of them show
    a whole set of dark faces (:func:`vision.synthesis.scene.render_scene`); ``real_faces``
    pastes the Camerash photographs' faces among the art's (:class:`FaceBank`)."""
    jobs = scene_jobs(n, seed, cache, size, flat, dark_sets, real_faces)
    t0 = time.monotonic()
    parts = []
    if workers > 1:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            for i, part in enumerate(pool.imap(render_chunk, jobs)):
                parts.append(part)
                log(f"  scenes {min(n, (i + 1) * CHUNK)}/{n} ({time.monotonic() - t0:.0f} s)")
    else:
        for i, job in enumerate(jobs):
            parts.append(render_chunk(job))
            log(f"  scenes {min(n, (i + 1) * CHUNK)}/{n} ({time.monotonic() - t0:.0f} s)")
    offset = 0
    owners = []
    for p in parts:
        owners.append(p["owner"] + offset)
        offset += len(p["images"])
    return {"images": np.concatenate([p["images"] for p in parts]),
            "quads": np.concatenate([p["quads"] for p in parts]),
            "status": np.concatenate([p["status"] for p in parts]),
            "owner": np.concatenate(owners),
            "hands": np.concatenate([p["hands"] for p in parts])}
