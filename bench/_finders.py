"""The finders a bench reads each art style with, as tables set up for their sets read them."""
from __future__ import annotations

from pathlib import Path


def style_finders(finder: Path | None, dark_finder: Path | None, one_finder: bool) -> dict:
    """``{"Regular": ..., "Black": ...}``: ``finder`` (a model's path; None: the shipped
    default) for the ivory sets, and ``dark_finder`` (None: the shipped one for dark faces) for
    the dark-faced ones, as a table whose config says ``[camera] finder = "dark"`` reads them;
    ``one_finder``: ``finder`` for both, as a table not told. A path that is not there is a
    :class:`~referee.errors.RefereeError` naming its flag, before any model is loaded."""
    from referee.errors import RefereeError
    from vision.finding.learned import DARK_MODEL, TileFinder

    for flag, path in (("--finder", finder), ("--dark-finder", dark_finder)):
        if path is not None and not Path(path).is_file():
            raise RefereeError(f"{flag} {path}: no such file")
    ivory = TileFinder(finder, threads=1)
    return {"Regular": ivory,
            "Black": ivory if one_finder else TileFinder(dark_finder or DARK_MODEL, threads=1)}
