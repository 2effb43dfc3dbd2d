"""``riichi-referee set-pin``: set the referee PIN for the dashboard (stored hashed)."""
from __future__ import annotations

import getpass
import sys

from web.pin import (
    ENV_VAR,
    PinError,
    check_pin_format,
    default_pin_file,
    hash_pin,
    write_pin_hash,
)


def add_arguments(parser) -> None:
    parser.add_argument(
        "--file", metavar="PATH", default=None,
        help=f"where to write the hash (default: ${ENV_VAR}, else "
             "~/.config/riichi-referee/pin.hash)")
    parser.add_argument(
        "--stdin", action="store_true",
        help="read the PIN from the first line of standard input (for install scripts) "
             "instead of asking twice; implied when standard input is not a terminal")


def _ask() -> str:
    try:
        first = getpass.getpass("New referee PIN (4-12 digits): ")
        check_pin_format(first)
        if getpass.getpass("Same PIN again: ") != first:
            raise PinError("the two PINs differ; nothing was changed")
    except EOFError:
        raise PinError("no PIN was typed; nothing was changed") from None
    return first


def _read_piped() -> str:
    """The PIN on the first line of standard input (piped in: nobody to ask twice)."""
    line = sys.stdin.readline()
    if not line.strip():
        raise PinError("no PIN on standard input; nothing was changed")
    return line.strip()


def _interactive() -> bool:
    try:
        return sys.stdin.isatty()
    except (AttributeError, ValueError):  # closed or replaced by something without a tty
        return False


def run(args) -> int:
    path = args.file or default_pin_file()
    # `echo 1234 | riichi-referee set-pin` has no terminal to ask twice on: getpass would
    # read the pipe for the first answer and find nothing for the second
    if args.stdin or not _interactive():
        pin = _read_piped()
    else:
        pin = _ask()
    written = write_pin_hash(path, hash_pin(pin))
    print(f"referee PIN set: hash written to {written}")
    return 0
