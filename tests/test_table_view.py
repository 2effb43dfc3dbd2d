"""Every table a view can show answers to the table's read side (table.view.TableView): the
table service's own, one read from its journal by another process, and the hall's copy."""
from __future__ import annotations

import inspect

import pytest

from hall.board import RemoteTable
from table.journal import Journal
from table.journal_table import JournalTable
from table.live import LiveTable
from table.view import TableView


@pytest.fixture
def tables(tmp_path):
    Journal(tmp_path / "j.sqlite").close()
    journal_table = JournalTable(tmp_path / "j.sqlite", start=False)
    yield {"live": LiveTable(), "journal": journal_table, "hall": RemoteTable("t1")}
    journal_table.close()


@pytest.mark.parametrize("kind", ["live", "journal", "hall"])
def test_each_table_a_view_shows_answers_to_the_read_side(tables, kind):
    table = tables[kind]
    assert isinstance(table, TableView)
    for name in ("clock", "snapshot", "events", "rulings", "submit"):
        want = inspect.signature(getattr(TableView, name))
        got = inspect.signature(getattr(table, name))
        assert len(got.parameters) == len(want.parameters) - 1, (kind, name)
    snap = table.snapshot()
    assert len(snap["seats"]) == 4 and "health" in snap
    assert table.events() == [] and table.rulings() == []
    assert isinstance(table.clock(), float)


def test_something_else_is_not_a_table_view():
    class Half:
        hub = None

        def snapshot(self):
            return {}

    assert not isinstance(Half(), TableView)
