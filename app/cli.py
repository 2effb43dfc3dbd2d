"""The ``riichi-referee`` command.

Each subcommand lives in its own module with ``add_arguments(parser)`` and ``run(args) -> int``;
only the module of the command being run is imported, so ``replay`` never pays for OpenCV.
"""
from __future__ import annotations

import argparse
import difflib
import importlib
import sys

from referee.errors import RefereeError

# name -> (module in app.commands, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "replay": ("replay", "replay a table-event log and print the rulings"),
    "import-tenhou": ("import_tenhou", "turn a Tenhou log into table events"),
    "check-tenhou": ("check_tenhou", "import and replay Tenhou logs; report mismatches"),
    "run": ("run", "run the referee at a real table (GPIO buttons, camera)"),
    "demo": ("demo", "a simulated table playing a whole game, dashboard on localhost"),
    "export": ("export", "write a journaled game's events as JSON Lines"),
    "check-journal": ("check_journal", "check a journal: events in order, none missing, "
                                       "rulings as a replay gives them"),
    "buttons": ("buttons", "wiring check: print each seat-button press and light its seat"),
    "calibrate": ("calibrate", "camera calibration with ArUco markers, and table zones"),
    "detect": ("detect", "list the tiles seen in a photo or a top-down table image"),
    "enroll": ("enroll", "teach the table the tournament's own tile set from a photo "
                         "of the enrollment sheet"),
    "set-pin": ("set_pin", "set the referee PIN for the dashboard (stored hashed)"),
    "hall": ("hall", "the head referee's view of every table of a hall (MQTT broker)"),
    "hall-broker": ("hall_broker", "write a hall broker's users, ACL and settings"),
    "standings": ("standings", "the tournament's standings the hall collected: the EMA's "
                               "CSV and JSON"),
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = argparse.ArgumentParser(
        prog="riichi-referee",
        description="Referee assistant for a riichi mahjong table.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    chosen = argv[0] if argv else None
    chosen_parser = None
    for name, (module_name, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name == chosen:
            try:
                module = importlib.import_module(f"app.commands.{module_name}")
            except ImportError as exc:
                print(f"riichi-referee {name}: cannot load {module_name} ({exc})", file=sys.stderr)
                return 2
            module.add_arguments(p)
            chosen_parser = p
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        # argparse would name them under the top-level usage; the command's own says what
        # the command takes
        (chosen_parser or parser).error(_unrecognized(chosen_parser or parser, unknown))
    module = importlib.import_module(f"app.commands.{COMMANDS[args.command][0]}")
    try:
        return int(module.run(args) or 0)
    except RefereeError as exc:
        print(f"riichi-referee {args.command}: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `riichi-referee replay x | head` is fine; don't print a traceback for it.
        return 0


def _unrecognized(parser: argparse.ArgumentParser, unknown: list[str]) -> str:
    """argparse's words for arguments it does not know, with the nearest option of
    ``parser`` for a mistyped one (``--rulset``: did you mean --ruleset?)."""
    options = [o for action in parser._actions for o in action.option_strings]
    message = f"unrecognized arguments: {' '.join(unknown)}"
    for word in unknown:
        if word.startswith("-"):
            near = difflib.get_close_matches(word.split("=", 1)[0], options, n=1)
            if near:
                message += f" (did you mean {near[0]}?)"
                break
    return message


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
