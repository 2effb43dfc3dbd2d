"""How the table's networks are run: onnxruntime settings the finder and the classifier share."""
from __future__ import annotations


def no_spinning(opts) -> None:
    """Let onnxruntime's threads sleep when a run ends instead of spinning for more work
    (``opts``: the session's ``SessionOptions``): the finder's, the classifier's and OpenCV's
    threads take turns on the same few cores every frame, and spinning ones took the next
    step's cores (a frame of a full table on two threads: 159 ms spinning, 111 ms not)."""
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.add_session_config_entry("session.inter_op.allow_spinning", "0")
