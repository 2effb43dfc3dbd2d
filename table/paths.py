"""Where the shared data lives: ``../shared/data`` beside the checkout, or ``RIICHI_SHARED_DATA``.

The data is read in place and never copied into the project.
"""
from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "RIICHI_SHARED_DATA"


def shared_data_dir() -> Path | None:
    """The shared data folder, or None when it is not there.

    Looked up in order: ``$RIICHI_SHARED_DATA``; ``../shared/data`` from the project checkout
    (this file's grandparent's parent); ``../shared/data`` from the working directory.
    """
    env = os.environ.get(ENV_VAR)
    if env:
        p = Path(env).expanduser()
        return p if p.is_dir() else None
    here = Path(__file__).resolve().parent.parent
    for candidate in (here.parent / "shared" / "data", Path.cwd().parent / "shared" / "data"):
        if candidate.is_dir():
            return candidate
    return None

