"""The table's read side: what the dashboard and the hall read of a table.

Three tables answer to it: :class:`table.live.LiveTable` (the table service's own table, in the
same process as the dashboard in the demo and the tests), :class:`table.journal_table.JournalTable`
(a table run by a service in another process, read from its journal: the dashboard under
gunicorn) and :class:`hall.board.RemoteTable` (a table as the hall's broker shows it, read-only).
A view (:func:`web.create_app`) takes any of them and never asks which.
"""
from __future__ import annotations

from typing import Protocol, runtime_checkable

from .hub import Hub


@runtime_checkable
class TableView(Protocol):
    """A table as a view reads it."""

    #: Every message of the table as it happens (``event``, ``ruling``, ``state``, ``health``).
    hub: Hub

    def clock(self) -> float:
        """Now, on the table's clock (seconds, monotonic): what a view times claim windows by."""

    def snapshot(self) -> dict:
        """The table as it stands: the rules core's snapshot plus the health of each part."""

    def events(self) -> list[dict]:
        """The current game's table events so far, in order."""

    def rulings(self) -> list[dict]:
        """The current game's rulings so far, in order."""

    def submit(self, event: dict) -> list[dict]:
        """Hand the table a referee's event; its rulings. A read-only table raises a
        :class:`referee.errors.RefereeError` saying where the referee acts instead."""
