"""How the table's networks are run: the onnxruntime settings the finder and the classifier share."""
from __future__ import annotations

from referee.errors import RefereeError


def session_options(threads: int | None = None):
    """onnxruntime ``SessionOptions`` for one of the table's networks.

    ``threads``: the threads one run may use, at least 1 (None: onnxruntime's choice). The threads
    sleep when a run ends instead of spinning for more work: the finder's, the classifier's and
    OpenCV's threads take turns on the same few cores every frame, and spinning ones took the
    next step's cores (a frame of a full table on two threads: 159 ms spinning, 111 ms not)."""
    import onnxruntime as ort

    if threads is not None and threads < 1:
        raise RefereeError(f"threads must be at least 1, got {threads}")
    opts = ort.SessionOptions()
    if threads is not None:
        opts.intra_op_num_threads = int(threads)
        opts.inter_op_num_threads = 1
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.add_session_config_entry("session.inter_op.allow_spinning", "0")
    return opts
