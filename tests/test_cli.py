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


# -- bad input: one line, one wording, exit 2 in every command --------------------------------

#: A command naming a file that is not there, and how the file is named in the one line
#: (``WHERE: no such file``, the wording of referee.errors.unreadable).
MISSING = [
    (["replay", "{missing}"], "{missing}"),
    (["import-tenhou", "{missing}"], "{missing}"),
    (["check-tenhou", "{missing}"], "{missing}"),
    (["export", "--journal", "{missing}"], "journal {missing}"),
    (["check-journal", "{missing}"], "journal {missing}"),
    (["detect", "{missing}"], "image {missing}"),
    (["calibrate", "{missing}", "--config", "{tmp}/table.toml"], "image {missing}"),
    (["demo", "--game", "{missing}.jsonl", "--no-web"], "--game {missing}.jsonl"),
    (["demo", "--game", "{missing}", "--no-web"], "{missing}"),
    (["run", "--config", "{missing}"], "config {missing}"),
    (["enroll", "{missing}", "--config", "{tmp}/table.toml"], "image {missing}"),
    (["buttons", "--config", "{missing}", "--simulate"], "{missing}"),
    (["hall", "--config", "{missing}"], "config {missing}"),
]


@pytest.mark.parametrize("argv, where", MISSING, ids=[a[0] for a, _ in MISSING])
def test_a_missing_file_is_one_line_in_one_wording_and_exit_2(tmp_path, capsys, argv, where):
    fill = lambda s: s.format(missing=tmp_path / "nope", tmp=tmp_path)
    code, out, err = run_cli(capsys, *map(fill, argv))
    assert code == 2, err
    assert err.count("\n") == 1, err
    line = err.strip()
    assert line.startswith(f"riichi-referee {argv[0]}: {fill(where)}: no such file"), line
    assert "Traceback" not in err and out == ""


@pytest.mark.parametrize("argv, where", [
    (["replay", "{folder}"], "{folder}: is a folder, not an event log file"),
    (["import-tenhou", "{folder}"], "{folder}: is a folder, not a log file"),
    (["detect", "{folder}"], "image {folder}: is a folder, not an image file"),
    (["demo", "--game", "{folder}.jsonl", "--no-web"],
     "--game {folder}.jsonl: is a folder, not an event log file"),
], ids=["replay", "import-tenhou", "detect", "demo"])
def test_a_folder_named_for_a_file_says_so_in_the_same_words(tmp_path, capsys, argv, where):
    (tmp_path / "f.jsonl").mkdir()
    fill = lambda s: s.format(folder=tmp_path / "f" if "{folder}." in s else tmp_path)
    code, _, err = run_cli(capsys, *map(fill, argv))
    assert code == 2 and err.strip() == f"riichi-referee {argv[0]}: {fill(where)}", err


def test_export_of_something_that_is_no_journal_is_bad_input_exit_2(tmp_path, capsys):
    # 3 is the table service's "the journal is unusable" (systemd does not restart on it);
    # to export, a wrong file is a wrong argument
    (tmp_path / "notes.txt").write_text("not a journal\n" * 100)
    code, _, err = run_cli(capsys, "export", "--journal", str(tmp_path / "notes.txt"))
    assert code == 2 and err.count("\n") == 1
    assert f"journal {tmp_path / 'notes.txt'}: not a journal" in err
