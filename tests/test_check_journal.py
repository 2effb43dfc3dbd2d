"""``riichi-referee check-journal``: a journal the service wrote is whole; a missing event, a
ruling changed after the fact or a file that is no journal is named in one line."""
from __future__ import annotations

import sqlite3

import pytest

from app.cli import main
from referee.simulate import simulate
from table.clock import VirtualClock
from table.journal import Journal
from table.journal_check import check_journal, judged_with, note_judged_with
from table.service import ResumableTable, TableService, default_referee_factory


def played(path, events, ruleset=None):
    """The table service plays ``events`` into the journal at ``path``, as ``run`` would."""
    journal = Journal(path)
    note_judged_with(journal, ruleset, None)
    table = ResumableTable(journal, default_referee_factory(ruleset), clock=VirtualClock())
    service = TableService(table, clock=table.clock, recorded=events, inbox=False)
    service.start()
    assert service.finished.wait(120)
    service.stop()
    journal.close()
    return path


@pytest.fixture(scope="module")
def game():
    return simulate(seed=5, hands=2, ruleset="ema2012")


@pytest.fixture
def journal(tmp_path, game):
    return played(tmp_path / "journal.sqlite", game)


def tamper(path, sql, *params):
    """What a damaged card or a hand at the keyboard could do (the journal's own triggers
    forbid it, so they go first)."""
    db = sqlite3.connect(path)
    for trigger in ("events_append_only_d", "events_append_only_u",
                    "rulings_append_only_d", "rulings_append_only_u"):
        db.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    db.execute(sql, params)
    db.commit()
    db.close()


def test_a_journal_the_service_wrote_is_whole(journal, capsys):
    assert check_journal(journal) == []
    assert main(["check-journal", str(journal)]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "whole" in out


def test_a_game_stopped_with_a_window_open_is_whole(tmp_path, game):
    # the journal ends right after a discard: its window never closed on the table's clock
    last_discard = max(i for i, e in enumerate(game) if e["type"] == "discard")
    path = played(tmp_path / "j.sqlite", game[:last_discard + 1])
    assert check_journal(path) == []


def test_a_missing_event_is_named(journal, capsys):
    tamper(journal, "DELETE FROM events WHERE seq = 7")
    assert main(["check-journal", str(journal)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert any("events 7-7: missing" in line for line in lines)


def test_a_ruling_changed_after_the_fact_is_named(journal, capsys):
    db = sqlite3.connect(journal)
    rid, text = db.execute("SELECT id, json FROM rulings WHERE json LIKE '%\"claim\"%' "
                           "ORDER BY id LIMIT 1").fetchone()
    db.close()
    tamper(journal, "UPDATE rulings SET json = ? WHERE id = ?",
           text.replace('"window":', '"window": 9.9, "was":'), rid)
    assert main(["check-journal", str(journal)]) == 1
    out = capsys.readouterr().out
    assert "is not what a replay gives" in out and "9.9" in out


def test_an_event_out_of_order_is_named(journal):
    tamper(journal, "UPDATE events SET t_mono = 0.5, json = replace(json, '\"t\":', "
                    "'\"t\": 0.5, \"was\":') WHERE seq = 9")
    assert any(line.startswith("event 9: t 0.5 is before") for line in check_journal(journal))


def test_the_ruleset_the_table_judged_with_is_noted(tmp_path, game):
    path = played(tmp_path / "j.sqlite", game, ruleset="wrc2015")
    with Journal(path, readonly=True) as j:
        assert judged_with(j) == {"ruleset": "wrc2015", "confidence_threshold": None}
    assert check_journal(path) == []


def test_a_file_that_is_no_journal_is_one_problem(tmp_path, capsys):
    path = tmp_path / "notes.sqlite"
    path.write_text("not a database at all\n" * 100)
    assert main(["check-journal", str(path)]) == 1
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "not a journal" in out


def test_no_file_at_all_is_one_line_and_exit_2(tmp_path, capsys):
    assert main(["check-journal", str(tmp_path / "nothing.sqlite")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such file" in err
