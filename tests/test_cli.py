"""The ``riichi-referee`` command as a whole: what a person who mistypes is told."""
import pytest

from app.cli import main


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    """``main(argv)``'s exit status (argparse's errors exit), and what it printed."""
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_a_mistyped_option_shows_the_usage_of_the_command_typed(capsys):
    code, _, err = run_cli(capsys, "replay", "game.jsonl", "--rulset", "ema2012")
    assert code == 2
    assert err.startswith("usage: riichi-referee replay ")
    assert "--ruleset NAME" in err                      # what replay takes, not COMMAND ...
    assert "unrecognized arguments: --rulset ema2012 (did you mean --ruleset?)" in err
    assert "COMMAND" not in err


@pytest.mark.parametrize("argv", [["set-pin", "--config", "x.toml"],
                                  ["export", "--journal", "j.sqlite", "--gmae", "2"]])
def test_every_command_names_its_own_usage(capsys, argv):
    code, _, err = run_cli(capsys, *argv)
    assert code == 2
    assert err.startswith(f"usage: riichi-referee {argv[0]} ")
    assert f"riichi-referee {argv[0]}: error: unrecognized arguments: " in err


def test_an_unknown_command_still_shows_the_list_of_commands(capsys):
    code, _, err = run_cli(capsys, "replya", "game.jsonl")
    assert code == 2
    assert err.startswith("usage: riichi-referee [-h] COMMAND") and "'replay'" in err
