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
