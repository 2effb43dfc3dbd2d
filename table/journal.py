"""The table's journal: an SQLite file that survives a pulled plug.

Every table event is committed (WAL, ``synchronous=FULL``: on disk when the call returns)
*before* the rules core sees it; rulings are stored with the sequence number of the event
that produced them. After a crash the table service rebuilds the current game from here and
goes on where it stopped (see :mod:`table.service`).

Tables:

``games``      one row per game; a ``game_start`` event opens the next one.
``events``     append-only: ``seq``, ``game_id``, ``t_mono`` (the event's ``t`` on the table
               clock), ``t_wall`` (Unix time when journaled, for people, never for judging),
               ``json`` (the event exactly as judged).
``rulings``    ``id``, ``game_id``, ``event_seq``, ``ruling_id`` (unique within a game, so no
               ruling is ever stored twice), ``t``, ``json``.
``snapshots``  the latest table snapshot per game, for the dashboard process.
``health``     the latest health report per component (camera, buttons, journal...).
``inbox``      referee actions the dashboard process submitted; the service takes them,
               journals and judges them, and writes back the event's ``seq`` (or an error).
``meta``       the table clock's offset and the boot it belongs to, the service heartbeat.

Errors of the file itself (disk full, read-only file system, a damaged or foreign file) are
raised as :class:`JournalError`, one line that names the file and what to do.

:class:`JournalTable` is the dashboard's view of a table that a service in another process
runs (gunicorn in production): it tails this file into a :class:`~table.hub.Hub`.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from referee.errors import RefereeError
from referee.events import dumps

from .clock import monotonic

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    game_id INTEGER PRIMARY KEY, first_seq INTEGER, t_wall REAL NOT NULL, ruleset TEXT);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY, game_id INTEGER NOT NULL REFERENCES games(game_id),
    t_mono REAL NOT NULL, t_wall REAL NOT NULL, json TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS events_by_game ON events(game_id, seq);
CREATE TABLE IF NOT EXISTS rulings (
    id INTEGER PRIMARY KEY, game_id INTEGER NOT NULL, event_seq INTEGER NOT NULL,
    ruling_id TEXT NOT NULL, t REAL, json TEXT NOT NULL, UNIQUE(game_id, ruling_id));
CREATE TABLE IF NOT EXISTS snapshots (
    game_id INTEGER PRIMARY KEY, seq INTEGER NOT NULL, t_wall REAL NOT NULL, json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS health (
    component TEXT PRIMARY KEY, ok INTEGER NOT NULL, text TEXT NOT NULL, t REAL, t_wall REAL);
CREATE TABLE IF NOT EXISTS inbox (
    id INTEGER PRIMARY KEY, t_wall REAL NOT NULL, json TEXT NOT NULL,
    seq INTEGER, error TEXT, done_wall REAL);
CREATE TRIGGER IF NOT EXISTS events_append_only_u BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'journal events are append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_append_only_d BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'journal events are append-only'); END;
CREATE TRIGGER IF NOT EXISTS rulings_append_only_u BEFORE UPDATE ON rulings
    BEGIN SELECT RAISE(ABORT, 'journal rulings are append-only'); END;
CREATE TRIGGER IF NOT EXISTS rulings_append_only_d BEFORE DELETE ON rulings
    BEGIN SELECT RAISE(ABORT, 'journal rulings are append-only'); END;
"""


class JournalError(RefereeError):
    """The journal file cannot be written or read: disk full, read-only, damaged.

    ``kind`` is ``full``, ``readonly``, ``damaged``, ``cannot_open`` or ``other``.
    """

    exit_code = 3

    def __init__(self, message: str, kind: str = "other"):
        self.kind = kind
        super().__init__(message)


def _describe(path: Path, exc: sqlite3.Error) -> JournalError:
    name = getattr(exc, "sqlite_errorname", "") or ""
    text = str(exc)
    if name.startswith("SQLITE_FULL") or "disk is full" in text:
        return JournalError(f"journal {path}: the disk is full; free some space "
                            "(new events are refused until then)", "full")
    if name.startswith("SQLITE_READONLY") or "readonly" in text or "read-only" in text:
        return JournalError(f"journal {path}: the file or its file system is read-only; "
                            "check the SD card and that the service user owns the file", "readonly")
    if name.startswith(("SQLITE_NOTADB", "SQLITE_CORRUPT")) or "not a database" in text \
            or "malformed" in text:
        return JournalError(f"journal {path}: not a journal or damaged ({text}); move it aside "
                            "to start a new one (export what you can first)", "damaged")
    if name.startswith("SQLITE_CANTOPEN") or "unable to open" in text:
        return JournalError(f"journal {path}: cannot be opened ({text}); check the folder exists "
                            "and the service user may write it", "cannot_open")
    if name.startswith(("SQLITE_IOERR",)):
        return JournalError(f"journal {path}: input/output error ({text}); the storage may be "
                            "failing", "readonly")
    return JournalError(f"journal {path}: {text}", "other")


def boot_id() -> str:
    """This boot's id (Linux), so the journal knows when ``monotonic()`` restarted at zero."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


class Journal:
    """The durable record of one table: implements :class:`table.live.Journal`.

    ``path``: the SQLite file (created with its folder's permission when missing).
    ``readonly``: open for reading only (export, the dashboard's tail); writes raise.
    ``timeout``: seconds to wait for another process's write lock (the dashboard adds to the
    inbox while the service writes events).

    One connection is shared by the caller's threads under a lock; SQLite's WAL lets other
    processes read while this one writes.
    """

    def __init__(self, path: str | os.PathLike, readonly: bool = False, timeout: float = 5.0):
        self.path = Path(path)
        self.readonly = readonly
        self._lock = threading.RLock()
        try:
            if readonly:
                if not self.path.exists():
                    raise JournalError(f"journal {self.path}: no such file", "cannot_open")
                uri = f"file:{self.path}?mode=ro"
                self._db = sqlite3.connect(uri, uri=True, timeout=timeout,
                                           isolation_level=None, check_same_thread=False)
            else:
                if not self.path.parent.is_dir():
                    raise JournalError(f"journal {self.path}: folder {self.path.parent} does not "
                                       "exist", "cannot_open")
                self._db = sqlite3.connect(str(self.path), timeout=timeout,
                                           isolation_level=None, check_same_thread=False)
                mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
                if mode.lower() != "wal":
                    raise JournalError(f"journal {self.path}: could not switch to WAL mode "
                                       f"(got {mode})", "other")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            if not readonly:
                self._db.executescript(_SCHEMA)
                self._db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)",
                                 (str(SCHEMA_VERSION),))
            self._db.execute("SELECT count(*) FROM events").fetchone()
        except sqlite3.Error as exc:
            raise _describe(self.path, exc) from None

    # -- plumbing ---------------------------------------------------------------------
    def _write(self, fn):
        """Run ``fn(db)`` in one immediate transaction; map SQLite errors to JournalError."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    result = fn(self._db)
                    self._db.execute("COMMIT")
                    return result
                except BaseException:
                    if self._db.in_transaction:
                        self._db.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise _describe(self.path, exc) from None

    def _read(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self._lock:
            try:
                return self._db.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise _describe(self.path, exc) from None

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- the live.Journal protocol ----------------------------------------------------
    def append_event(self, event: dict) -> int:
        """Commit one event (a ``game_start`` opens a new game); return its ``seq``.

        The event is on disk when this returns (``synchronous=FULL``).
        """
        text = dumps(event)

        def write(db):
            game_id = self._current_game(db)
            if event.get("type") == "game_start" or game_id is None:
                game_id = db.execute(
                    "INSERT INTO games (t_wall, ruleset) VALUES (?, ?)",
                    (time.time(), event.get("ruleset"))).lastrowid
            cur = db.execute("INSERT INTO events (game_id, t_mono, t_wall, json) "
                             "VALUES (?, ?, ?, ?)",
                             (game_id, float(event["t"]), time.time(), text))
            db.execute("UPDATE games SET first_seq = ? WHERE game_id = ? AND first_seq IS NULL",
                       (cur.lastrowid, game_id))
            return game_id, cur.lastrowid

        return self._write(write)[1]

    def append_rulings(self, seq: int, rulings: list[dict]) -> list[dict]:
        """Store rulings produced by event ``seq``; return those that were not stored yet.

        A ruling whose ``ruling_id`` the game already holds is skipped: that is what keeps a
        ruling from being stored (and sent) twice after a restart.
        """
        return self.record(seq, rulings)

    def record(self, seq: int, rulings: list[dict], snapshot: dict | None = None) -> list[dict]:
        """Store rulings and the latest snapshot in one transaction; return the new rulings."""
        if not rulings and snapshot is None:
            return []

        def write(db):
            game_id = self._game_of(db, seq)
            fresh = []
            for ruling in rulings:
                rid = str(ruling.get("ruling_id", ""))
                if not rid:
                    # No id from the core: key it on content so a replay still matches.
                    rid = "h" + hashlib.sha1(dumps(ruling).encode()).hexdigest()[:16]
                cur = db.execute(
                    "INSERT OR IGNORE INTO rulings (game_id, event_seq, ruling_id, t, json) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (game_id, seq, rid, ruling.get("t"), dumps(ruling)))
                if cur.rowcount:
                    fresh.append(ruling)
            if snapshot is not None:
                db.execute("INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?, ?)",
                           (game_id, seq, time.time(), dumps(snapshot)))
            return fresh

        return self._write(write)

    # -- games ------------------------------------------------------------------------
    @staticmethod
    def _current_game(db) -> int | None:
        row = db.execute("SELECT max(game_id) FROM games").fetchone()
        return row[0]

    @staticmethod
    def _game_of(db, seq: int) -> int:
        row = db.execute("SELECT game_id FROM events WHERE seq = ?", (seq,)).fetchone()
        if row is not None:
            return row[0]
        row = db.execute("SELECT max(game_id) FROM games").fetchone()
        if row[0] is not None:
            return row[0]
        return db.execute("INSERT INTO games (t_wall) VALUES (?)", (time.time(),)).lastrowid

    def current_game(self) -> int | None:
        """The newest game's id (the one a restarted service resumes), or None."""
        return self._read("SELECT max(game_id) FROM games")[0][0]

    def games(self) -> list[dict]:
        rows = self._read(
            "SELECT g.game_id, g.t_wall, g.ruleset, count(e.seq), min(e.seq), max(e.seq) "
            "FROM games g LEFT JOIN events e ON e.game_id = g.game_id "
            "GROUP BY g.game_id ORDER BY g.game_id")
        return [{"game_id": r[0], "started": r[1], "ruleset": r[2], "events": r[3],
                 "first_seq": r[4], "last_seq": r[5]} for r in rows]

    def game_events(self, game_id: int | None = None) -> list[tuple[int, dict]]:
        """``(seq, event)`` of one game (the current one by default), in order."""
        if game_id is None:
            game_id = self.current_game()
        rows = self._read("SELECT seq, json FROM events WHERE game_id = ? ORDER BY seq",
                          (game_id,))
        return [(seq, json.loads(text)) for seq, text in rows]

    def game_rulings(self, game_id: int | None = None) -> list[tuple[int, dict]]:
        """``(event_seq, ruling)`` of one game, in the order they were stored."""
        if game_id is None:
            game_id = self.current_game()
        rows = self._read("SELECT event_seq, json FROM rulings WHERE game_id = ? ORDER BY id",
                          (game_id,))
        return [(seq, json.loads(text)) for seq, text in rows]

    def integrity(self) -> list[str]:
        """SQLite's own check of the file (``PRAGMA integrity_check``): ``[]`` when sound, else
        its lines."""
        lines = [str(r[0]) for r in self._read("PRAGMA integrity_check")]
        return [] if lines == ["ok"] else lines

    def event_rows(self) -> list[tuple[int, int, float, str]]:
        """Every event as stored: ``(seq, game_id, t_mono, json)``, in ``seq`` order."""
        return self._read("SELECT seq, game_id, t_mono, json FROM events ORDER BY seq")

    def last_seq(self) -> int:
        return self._read("SELECT coalesce(max(seq), 0) FROM events")[0][0]

    def last_t(self) -> float | None:
        """The latest time on the table clock the journal knows of (events and rulings)."""
        row = self._read("SELECT max(t_mono) FROM events")[0][0]
        rrow = self._read("SELECT max(t) FROM rulings")[0][0]
        values = [v for v in (row, rrow) if v is not None]
        return max(values) if values else None

    # -- tailing (the dashboard process) ------------------------------------------------
    def events_after(self, seq: int, limit: int = 1000) -> list[tuple[int, int, dict]]:
        rows = self._read("SELECT seq, game_id, json FROM events WHERE seq > ? ORDER BY seq "
                          "LIMIT ?", (seq, limit))
        return [(s, g, json.loads(text)) for s, g, text in rows]

    def rulings_after(self, rowid: int, limit: int = 1000) -> list[tuple[int, int, dict]]:
        rows = self._read("SELECT id, game_id, json FROM rulings WHERE id > ? ORDER BY id "
                          "LIMIT ?", (rowid, limit))
        return [(i, g, json.loads(text)) for i, g, text in rows]

    def outbox_rulings_after(self, rowid: int, limit: int = 1000) -> list[tuple[int, int, int, dict]]:
        """``(id, game_id, event_seq, ruling)`` stored after row ``rowid``, in order: what a
        forwarder (the hall link) has not sent yet."""
        rows = self._read("SELECT id, game_id, event_seq, json FROM rulings WHERE id > ? "
                          "ORDER BY id LIMIT ?", (rowid, limit))
        return [(i, g, s, json.loads(text)) for i, g, s, text in rows]

    def before_game(self, game_id: int | None) -> tuple[int, int]:
        """``(seq, ruling row)`` just before ``game_id`` began: a forwarder that has sent
        nothing yet starts there, with the current game rather than every game ever played."""
        if game_id is None:
            return 0, 0
        seq = self._read("SELECT coalesce(min(seq), 1) - 1 FROM events WHERE game_id >= ?",
                         (game_id,))[0][0]
        rid = self._read("SELECT coalesce(max(id), 0) FROM rulings WHERE game_id < ?",
                         (game_id,))[0][0]
        return seq, rid

    def snapshot_text(self, game_id: int) -> tuple[int, str] | None:
        """``(seq, snapshot as stored JSON)``: for a forwarder that sends it on as it is."""
        rows = self._read("SELECT seq, json FROM snapshots WHERE game_id = ?", (game_id,))
        return (rows[0][0], rows[0][1]) if rows else None

    def snapshot_seq(self, game_id: int) -> int | None:
        """The event the game's last snapshot was written after (None: no snapshot yet)."""
        rows = self._read("SELECT seq FROM snapshots WHERE game_id = ?", (game_id,))
        return rows[0][0] if rows else None

    def snapshot(self, game_id: int | None = None) -> tuple[int, dict] | None:
        """``(seq, snapshot)`` last written for a game (the current one by default)."""
        if game_id is None:
            game_id = self.current_game()
        rows = self._read("SELECT seq, json FROM snapshots WHERE game_id = ?", (game_id,))
        return (rows[0][0], json.loads(rows[0][1])) if rows else None

    # -- health -----------------------------------------------------------------------
    def set_health(self, component: str, ok: bool, text: str, t: float | None = None) -> None:
        self._write(lambda db: db.execute(
            "INSERT OR REPLACE INTO health VALUES (?, ?, ?, ?, ?)",
            (component, int(bool(ok)), text, t, time.time())))

    def health(self) -> list[dict]:
        rows = self._read("SELECT component, ok, text, t, t_wall FROM health ORDER BY component")
        return [{"component": c, "ok": bool(ok), "text": text, "t": t, "t_wall": w}
                for c, ok, text, t, w in rows]

    # -- meta: the table clock and the heartbeat --------------------------------------
    def data_version(self) -> int:
        """A number that changes whenever another connection commits to the file (SQLite's
        ``PRAGMA data_version``): a reader that sees it unchanged has nothing new to read."""
        return self._read("PRAGMA data_version")[0][0]

    def get_meta(self, key: str) -> str | None:
        rows = self._read("SELECT value FROM meta WHERE key = ?", (key,))
        return rows[0][0] if rows else None

    def set_meta(self, **values: Any) -> None:
        self._write(lambda db: db.executemany(
            "INSERT OR REPLACE INTO meta VALUES (?, ?)",
            [(k, str(v)) for k, v in values.items()]))

    def clock_offset(self, mono_now: float | None = None) -> float:
        """Seconds to add to ``monotonic()`` to get the table clock, kept continuous.

        ``monotonic()`` restarts near zero at each boot, while the journal's times must never
        go backwards. Within one boot the stored offset stands (a restarted process reads the
        same clock). After a reboot the table clock resumes at the last time the journal
        knows (events and rulings): the minutes the table was dark do not count, so a window
        left open by a power cut closes within its own length after the restart, and no wall
        clock is ever used to judge anything. Saved in ``meta`` for the dashboard's clock.
        """
        mono_now = monotonic() if mono_now is None else mono_now
        this_boot = boot_id()
        stored_boot = self.get_meta("boot_id")
        stored = self.get_meta("clock_offset")
        last_t = self.last_t()
        if stored is not None and stored_boot == this_boot and this_boot:
            offset = float(stored)
        else:
            offset = 0.0
        if last_t is not None and mono_now + offset < last_t:
            offset = last_t - mono_now
        if not self.readonly:
            self.set_meta(boot_id=this_boot, clock_offset=repr(offset))
        return offset

    def stored_clock_offset(self) -> float:
        """The offset the service wrote for this boot (0 when none: a fresh table)."""
        if self.get_meta("boot_id") != boot_id():
            return 0.0
        value = self.get_meta("clock_offset")
        return float(value) if value is not None else 0.0

    def heartbeat(self) -> None:
        self.set_meta(heartbeat=repr(time.time()))

    # -- the inbox: referee actions from the dashboard process -------------------------
    def inbox_put(self, event: dict) -> int:
        return self._write(lambda db: db.execute(
            "INSERT INTO inbox (t_wall, json) VALUES (?, ?)",
            (time.time(), dumps(event))).lastrowid)

    def inbox_pending(self) -> list[tuple[int, dict]]:
        rows = self._read("SELECT id, json FROM inbox WHERE seq IS NULL AND error IS NULL "
                          "ORDER BY id")
        return [(i, json.loads(text)) for i, text in rows]

    def inbox_done(self, item_id: int, seq: int | None = None, error: str | None = None) -> None:
        self._write(lambda db: db.execute(
            "UPDATE inbox SET seq = ?, error = ?, done_wall = ? WHERE id = ?",
            (seq, error, time.time(), item_id)))

    def inbox_result(self, item_id: int) -> tuple[int | None, str | None]:
        rows = self._read("SELECT seq, error FROM inbox WHERE id = ?", (item_id,))
        return rows[0] if rows else (None, "no such inbox item")

    def rulings_of(self, seq: int) -> list[dict]:
        rows = self._read("SELECT json FROM rulings WHERE event_seq = ? ORDER BY id", (seq,))
        return [json.loads(r[0]) for r in rows]

    def free_bytes(self) -> int | None:
        """Bytes the journal can still grow by: the free space of its file system, or less
        where SQLite's own page quota (``PRAGMA max_page_count`` on this connection) leaves
        less; None when neither can be read."""
        room = []
        try:
            room.append(shutil.disk_usage(self.path.parent).free)
        except OSError:
            pass
        try:
            limit = self._read("PRAGMA max_page_count")[0][0]
            pages = self._read("PRAGMA page_count")[0][0]
            size = self._read("PRAGMA page_size")[0][0]
            room.append(max(0, limit - pages) * size)
        except (JournalError, IndexError):
            pass
        return min(room) if room else None

    def shrink_wal(self) -> None:
        """Fold the write-ahead log into the file and cut it to nothing (it otherwise keeps
        its largest size, a few MB, on disk): room a nearly full disk needs more."""
        if not self.readonly:
            self._read("PRAGMA wal_checkpoint(TRUNCATE)")

    #: Pages the write-ahead log may hold on a nearly full disk before it is folded in.
    SMALL_WAL_PAGES = 16

    def keep_wal_small(self, small: bool) -> None:
        """On a nearly full disk (``small``), fold the write-ahead log into the file every
        :data:`SMALL_WAL_PAGES` pages and keep it no larger on disk: by SQLite's defaults it
        grows to about 4 MB before that, which alone could fill the last megabytes and
        refuse events the file itself still had room for. ``False``: the defaults again."""
        if self.readonly:
            return
        pages = self.SMALL_WAL_PAGES if small else 1000
        size = self._read("PRAGMA page_size")[0][0]
        self._read(f"PRAGMA wal_autocheckpoint = {pages}")
        self._read(f"PRAGMA journal_size_limit = {pages * size if small else -1}")


