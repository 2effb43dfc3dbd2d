"""Export: a journaled game back out as the spec's JSON Lines, replayable as it was judged."""
import json

from app.cli import main
from referee.events import read_events
from table.journal import Journal

GAME1 = [{"type": "game_start", "t": 0.0, "ruleset": "ema2012", "scores": [25000] * 4},
         {"type": "discard", "t": 1.0, "seat": 0, "tile": "5m"}]
GAME2 = [{"type": "game_start", "t": 9.0, "ruleset": "wrc2015", "scores": [30000] * 4,
          "names": ["a", "b", "c", "d"]},
         {"type": "call", "t": 9.5, "seat": 2, "call": "pon", "t_source": 9.4}]


def journal_with_two_games(path):
    j = Journal(path)
    for e in GAME1 + GAME2:
        j.append_event(e)
    j.append_rulings(4, [{"type": "violation", "t": 9.5, "ruling_id": "r1", "seat": 2,
                          "kind": "late_call", "penalty": "none", "rule": "x", "text": "y"}])
    j.close()


def test_export_writes_the_newest_game_in_the_spec_format(tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    journal_with_two_games(path)
    assert main(["export", "--journal", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(l) for l in lines] == GAME2
    assert list(read_events(lines)) == GAME2  # a valid event log: replay can read it


def test_export_a_chosen_game_to_a_file(tmp_path):
    path = tmp_path / "j.sqlite"
    journal_with_two_games(path)
    out = tmp_path / "game1.jsonl"
    assert main(["export", "--journal", str(path), "--game", "1", "-o", str(out)]) == 0
    assert [json.loads(l) for l in out.read_text().splitlines()] == GAME1


def test_export_rulings_and_list(tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    journal_with_two_games(path)
    assert main(["export", "--journal", str(path), "--rulings"]) == 0
    assert [json.loads(l)["kind"] for l in capsys.readouterr().out.splitlines()] == ["late_call"]
    assert main(["export", "--journal", str(path), "--list"]) == 0
    out = capsys.readouterr().out
    assert "game 1:" in out and "game 2:" in out and "wrc2015" in out


def test_export_errors_are_one_line(tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    journal_with_two_games(path)
    assert main(["export", "--journal", str(path), "--game", "7"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no game 7" in err
    assert main(["export", "--journal", str(tmp_path / "missing.sqlite")]) == 2  # bad input
    err = capsys.readouterr().err
    assert err == f"riichi-referee export: journal {tmp_path / 'missing.sqlite'}: no such file\n"
