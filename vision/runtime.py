"""How the table's networks are run: the onnxruntime settings the finder and the classifier share.

Eight-bit arithmetic must come out the same on every machine. onnxruntime runs the eight-bit
models' convolutions (uint8 activations times int8 weights) with ``VPMADDUBSW`` on an x86
processor with AVX2 but without VNNI, and that instruction saturates the sum of two products
at 32767: on such a machine the shipped finder scored the tiles of a real hand photo about 0.5
instead of 0.9 and lost two of its nine tiles, where a Pi (ARM's dot products) and an x86
processor with VNNI compute the products exactly. See :func:`int8_is_exact`.

There onnxruntime is asked for its x86 precision fix (``session.x64quantprecision``): a layer
whose eight-bit weights reach outside -64..63 has them stored as unsigned bytes and multiplied
with 16-bit products that cannot saturate, and the layers whose weights all lie inside it cannot
saturate either (255 x 64 x 2 < 32767). The eight-bit kernels then compute exactly and stay fused.
The quantized steps used to be run unfused (``session.disable_quant_qdq``: the same eight-bit
numbers through float kernels); the fused exact kernels give the same readings (the classifier's
logits within 0.02 of the unfused ones, the finder's heat within 1e-4; the same boxes and names on
the held-out solid tables) in two thirds of the time: a full table's 96 faces 100 -> 66 ms of
CPU, the finder's network 93 -> 66 ms, on this 2-core AVX2 machine under load.
"""
from __future__ import annotations

import functools
import platform
from pathlib import Path

import numpy as np

from referee.errors import RefereeError

#: The threads a session runs on when its caller names none (None: onnxruntime's choice, one
#: per core). The test suite sets 1: its two processes already keep both cores busy, and a
#: second thread in each only made them wait on one another (a tenth more CPU for the same
#: readings in the vision tests).
DEFAULT_THREADS: int | None = None

#: x86 processor flags whose eight-bit dot products do not saturate.
EXACT_INT8_FLAGS = ("avx512_vnni", "avx_vnni", "amx_int8")


@functools.cache
def int8_is_exact(machine: str | None = None, cpuinfo: str | None = None) -> bool:
    """Whether onnxruntime's fused eight-bit kernels compute exactly on this processor: always
    on ARM (a Pi), on x86 only with VNNI (``/proc/cpuinfo``'s flags; unknown counts as not)."""
    machine = (machine or platform.machine()).lower()
    if machine not in ("x86_64", "amd64", "i386", "i686", "x86"):
        return True
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text()
        except OSError:
            return False
    flags = set()
    for line in cpuinfo.splitlines():
        if line.startswith("flags"):
            flags.update(line.split(":", 1)[-1].split())
    return any(f in flags for f in EXACT_INT8_FLAGS)


def session_options(threads: int | None = None):
    """onnxruntime ``SessionOptions`` for one of the table's networks.

    ``threads``: the threads one run may use, at least 1 (None: :data:`DEFAULT_THREADS`). The threads
    sleep when a run ends instead of spinning for more work: the finder's, the classifier's and
    OpenCV's threads take turns on the same few cores every frame, and spinning ones took the
    next step's cores (a frame of a full table on two threads: 159 ms spinning, 111 ms not).

    Their working memory comes from one arena for the process (:func:`_one_arena`), grown
    as far as a run asks, with no plan of each run's memory laid out in advance (see
    :func:`_one_arena`)."""
    import onnxruntime as ort

    if threads is None:
        threads = DEFAULT_THREADS
    if threads is not None and threads < 1:
        raise RefereeError(f"threads must be at least 1, got {threads}")
    opts = ort.SessionOptions()
    if threads is not None:
        opts.intra_op_num_threads = int(threads)
        opts.inter_op_num_threads = 1
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.add_session_config_entry("session.inter_op.allow_spinning", "0")
    if not int8_is_exact():
        opts.add_session_config_entry("session.x64quantprecision", "1")
    opts.enable_mem_pattern = False
    if _one_arena():
        opts.add_session_config_entry("session.use_env_allocators", "1")
    return opts


@functools.cache
def _one_arena() -> bool:
    """Register one CPU arena for every session of the process, grown by what is asked and
    no more; False when this onnxruntime cannot (each session then keeps its own).

    Each session kept an arena of its own, grown in powers of two, and with its memory
    pattern (every run's tensors planned into one block) the finder's run on a full table
    (992 x 992) held 50 MB and the classifier's 10 MB more, for as long as the process lives.
    The finder and the classifier take turns, so one arena serves both; without the pattern
    the finder's tensors fit in 37 MB, and the classifier's in the same space. The same CPU
    time per run, to the noise of this machine (finder 65.7 and 67.9 ms, classifier 61.5
    and 61.0, least of three runs each, load 3.5)."""
    import onnxruntime as ort

    try:
        info = ort.OrtMemoryInfo("Cpu", ort.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0,
                                 ort.OrtMemType.DEFAULT)
        # no limit, grown by what is asked (1, not powers of two), default chunk sizes
        ort.create_and_register_allocator(info, ort.OrtArenaCfg(0, 1, -1, -1))
    except Exception:   # onnxruntime raises its own types; an arena per session still works
        return False
    return True


def takes_blocks(session) -> bool:
    """Whether ``session``'s network takes its pictures in 2 x 2 blocks of uint8 pixels (twelve
    channels: an eight-bit network rewritten by
    :func:`vision.training.quantize.picture_in_blocks`) rather than three channels of floats."""
    return session.get_inputs()[0].shape[1] == 12


def in_blocks(pictures):
    """BGR pictures (N x H x W x 3 uint8, H and W even) laid out as a network rewritten by
    :func:`vision.training.quantize.picture_in_blocks` takes them: each 2 x 2 block of pixels
    as twelve channels, (row, column, colour) within the block: N x 12 x H/2 x W/2 uint8."""
    n, h, w = pictures.shape[:3]
    blocks = pictures.reshape(n, h // 2, 2, w // 2, 2, 3).transpose(0, 2, 4, 5, 1, 3)
    return np.ascontiguousarray(blocks.reshape(n, 12, h // 2, w // 2), dtype=np.uint8)
