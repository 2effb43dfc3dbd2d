"""``riichi-referee replay EVENTS.jsonl [--ruleset NAME]``: print the rulings of a table-event log.

Events are fed in order; each ruling is printed as one JSON line and flushed at once. A
malformed line stops the replay: first the rulings the good lines before it decide are
printed as at the end of the file (every open window closes, so a claim due when it closes is
not lost), then ``riichi-referee replay: FILE: line N: reason`` on standard error, and the
exit status is 2.

:func:`replay` is the whole replay on a stream of lines, for the CLI and for tests that run
many logs in one process.
"""
from __future__ import annotations

from typing import Iterable, TextIO

from .errors import MalformedEvent, RefereeError
from .events import EventReader, dumps


def replay(lines: Iterable[bytes] | Iterable[str], out: TextIO, err: TextIO, name: str,
           ruleset: str | None = None) -> int:
    """Replay the table events in ``lines``; print rulings to ``out``, a failure as one line
    to ``err`` (``riichi-referee replay: NAME: ...``). Returns the exit status: 0, or 2 for a
    malformed line (after the rulings the lines before it decide) or an unknown ruleset."""
    from .core import Referee  # after argument parsing, so --help stays quick

    def fail(message: str) -> int:
        print(f"riichi-referee replay: {name}: {message}", file=err)
        return 2

    def write(rulings: list[dict]) -> None:
        for ruling in rulings:
            out.write(dumps(ruling) + "\n")
        if rulings:
            out.flush()

    try:
        referee = Referee(ruleset)
    except RefereeError as exc:
        return fail(f"--ruleset: {exc}")
    line_no = 0
    try:
        for line_no, event in EventReader(lines):
            write(referee.feed(event))
    except RefereeError as exc:
        # a malformed line, or an event the core refuses before judging it (an unknown
        # ruleset): what the good lines before it decided still comes out
        write(referee.finish())
        if isinstance(exc, MalformedEvent) and exc.line is not None:
            return fail(str(exc))
        return fail(f"line {line_no}: {exc}")
    write(referee.finish())
    return 0


