"""``riichi-referee set-pin``: set the referee PIN for the dashboard (stored hashed)."""
from __future__ import annotations

import getpass
import sys

from .pin import ENV_VAR, PinError, check_pin_format, default_pin_file, hash_pin, write_pin_hash


def add_arguments(parser) -> None:
    parser.add_argument(
        "--file", metavar="PATH", default=None,
        help=f"where to write the hash (default: ${ENV_VAR}, else "
             "~/.config/riichi-referee/pin.hash)")
    parser.add_argument(
        "--stdin", action="store_true",
        help="read the PIN from the first line of standard input (for install scripts) "
             "instead of asking twice")


def _ask() -> str:
    first = getpass.getpass("New referee PIN (4-12 digits): ")
    check_pin_format(first)
    if getpass.getpass("Same PIN again: ") != first:
        raise PinError("the two PINs differ; nothing was changed")
    return first


def run(args) -> int:
    path = args.file or default_pin_file()
    if args.stdin:
        pin = sys.stdin.readline().strip()
    else:
        pin = _ask()
    written = write_pin_hash(path, hash_pin(pin))
    print(f"referee PIN set: hash written to {written}")
    return 0
