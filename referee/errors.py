"""Errors that reach a person as one clear line, never a traceback."""


class RefereeError(Exception):
    """Bad input or a missing piece, described in one line that says what and where.

    The CLI prints it as ``riichi-referee COMMAND: message`` and exits with ``exit_code``.
    """

    exit_code = 2


class TileError(RefereeError, ValueError):
    """A tile code that is not mpsz notation."""


class MalformedEvent(RefereeError):
    """A table-event line that breaks the format (not JSON, unknown type, missing key...).

    ``line`` is the 1-based line number where known, so messages can name it.
    """

    def __init__(self, message: str, line: int | None = None):
        self.line = line
        self.reason = message
        super().__init__(f"line {line}: {message}" if line is not None else message)


def unreadable(where: str, exc: OSError, kind: str = "") -> str:
    """The one wording, in every command, for a file that cannot be read, as one line:
    ``WHERE: no such file``, ``WHERE: is a folder, not a KIND file`` or ``WHERE: cannot be
    read (REASON)``.

    ``where`` names the file for people (``image photo.jpg``, ``config table.toml``, or the
    path alone); ``exc`` is what opening or reading it raised; ``kind`` what it should have
    been (``log``, ``image``...; blank: any file)."""
    if isinstance(exc, FileNotFoundError):
        return f"{where}: no such file"
    if isinstance(exc, IsADirectoryError):
        article = "an" if kind[:1] in tuple("aeiou") else "a"
        return f"{where}: is a folder, not {article} {kind + ' ' if kind else ''}file"
    return f"{where}: cannot be read ({exc.strerror or exc})"
