"""The journal: durable, append-only, one ruling id per game, clear errors."""
import sqlite3
import time

import pytest

from table.journal import Journal, JournalError
from table.journal_table import JournalTable


def ev(t, **kw):
    kw.setdefault("type", "discard")
    if kw["type"] == "discard":
        kw.setdefault("seat", 0)
        kw.setdefault("tile", "5m")
    return {"type": kw.pop("type"), "t": t, **kw}


GAME_START = {"type": "game_start", "t": 0.0, "ruleset": "ema2012", "scores": [25000] * 4}


def test_wal_and_full_sync(tmp_path):
    j = Journal(tmp_path / "j.sqlite")
    assert j._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert j._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_events_get_sequence_numbers_and_games(tmp_path):
    j = Journal(tmp_path / "j.sqlite")
    assert j.current_game() is None
    s1 = j.append_event(GAME_START)
    s2 = j.append_event(ev(1.0))
    s3 = j.append_event(dict(GAME_START, t=2.0))
    s4 = j.append_event(ev(3.0, seat=1))
    assert [s1, s2, s3, s4] == [1, 2, 3, 4]
    assert j.current_game() == 2
    assert [s for s, _ in j.game_events(1)] == [1, 2]
    assert [e for _, e in j.game_events()] == [dict(GAME_START, t=2.0), ev(3.0, seat=1)]
    row = j._db.execute("SELECT t_mono, t_wall FROM events WHERE seq = 4").fetchone()
    assert row[0] == 3.0 and abs(row[1] - time.time()) < 60
    assert [g["events"] for g in j.games()] == [2, 2]


def test_an_event_is_visible_to_another_connection_when_append_returns(tmp_path):
    path = tmp_path / "j.sqlite"
    j = Journal(path)
    j.append_event(GAME_START)
    other = sqlite3.connect(path)
    assert other.execute("SELECT count(*) FROM events").fetchone()[0] == 1


def test_a_ruling_is_stored_once_per_game(tmp_path):
    j = Journal(tmp_path / "j.sqlite")
    seq = j.append_event(GAME_START)
    r = {"type": "claim", "t": 1.0, "ruling_id": "r1", "discard_seat": 0, "tile": "5m",
         "winners": [], "rejected": [], "window": 3.0}
    assert j.append_rulings(seq, [r]) == [r]
    assert j.append_rulings(seq, [r]) == []
    assert len(j.game_rulings()) == 1
    seq2 = j.append_event(dict(GAME_START, t=5.0))
    assert j.append_rulings(seq2, [r]) == [r]  # a new game counts its ids from r1 again


def test_events_and_rulings_are_append_only(tmp_path):
    j = Journal(tmp_path / "j.sqlite")
    j.append_event(GAME_START)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        j._db.execute("DELETE FROM events")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        j._db.execute("UPDATE events SET json = '{}'")


def test_disk_full_is_one_clear_line(tmp_path):
    j = Journal(tmp_path / "j.sqlite")
    j.append_event(GAME_START)
    pages = j._db.execute("PRAGMA page_count").fetchone()[0]
    j._db.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(JournalError) as err:
        for i in range(5000):
            j.append_event(ev(1.0 + i, tile="5m"))
    assert err.value.kind == "full"
    assert "disk is full" in str(err.value) and "\n" not in str(err.value)
    assert str(tmp_path / "j.sqlite") in str(err.value)
    # everything committed before the failure is still there
    n = len(j.game_events())
    assert n >= 1
    assert len(Journal(tmp_path / "j.sqlite", readonly=True).game_events()) == n


def test_read_only_journal_is_reported(tmp_path):
    j = Journal(tmp_path / "j.sqlite")
    j.append_event(GAME_START)
    j._db.execute("PRAGMA query_only = 1")  # what a file system remounted read-only does
    with pytest.raises(JournalError) as err:
        j.append_event(ev(1.0))
    assert err.value.kind == "readonly" and "read-only" in str(err.value)


def test_a_foreign_file_is_refused_clearly(tmp_path):
    path = tmp_path / "j.sqlite"
    path.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(JournalError) as err:
        Journal(path)
    assert err.value.kind == "damaged" and "not a journal" in str(err.value)


def test_missing_folder_is_named(tmp_path):
    with pytest.raises(JournalError, match="does not exist"):
        Journal(tmp_path / "nope" / "j.sqlite")


def test_clock_offset_keeps_table_time_from_going_back(tmp_path, monkeypatch):
    j = Journal(tmp_path / "j.sqlite")
    j.append_event(dict(GAME_START, t=5000.0))
    monkeypatch.setattr("table.journal.boot_id", lambda: "boot-a")
    offset = j.clock_offset(mono_now=6000.0)
    assert offset == 0.0  # the monotonic clock is already past the journal
    # a reboot: monotonic restarts near zero, the table clock continues from 5000
    monkeypatch.setattr("table.journal.boot_id", lambda: "boot-b")
    offset = j.clock_offset(mono_now=12.0)
    assert 12.0 + offset == pytest.approx(5000.0)
    # a process restart within the same boot keeps the same offset
    assert j.clock_offset(mono_now=30.0) == offset
    assert j.stored_clock_offset() == offset


def test_inbox_round_trip(tmp_path):
    j = Journal(tmp_path / "j.sqlite")
    item = j.inbox_put({"type": "referee", "t": 1.0, "action": "note", "text": "hi"})
    assert j.inbox_pending() == [(item, {"type": "referee", "t": 1.0, "action": "note",
                                         "text": "hi"})]
    j.inbox_done(item, seq=7)
    assert j.inbox_pending() == [] and j.inbox_result(item) == (7, None)


def test_journal_table_tails_into_a_hub(tmp_path):
    path = tmp_path / "j.sqlite"
    j = Journal(path)
    seq = j.append_event(GAME_START)
    j.record(seq, [], {"t": 0.0, "scores": [25000] * 4, "seats": []})
    table = JournalTable(path, start=False)
    sub = table.hub.subscribe()
    assert table.snapshot()["scores"] == [25000] * 4
    seq = j.append_event(ev(1.0))
    r = {"type": "claim", "t": 4.0, "ruling_id": "r1", "discard_seat": 0, "tile": "5m",
         "winners": [], "rejected": [], "window": 3.0}
    j.record(seq, [r], {"t": 4.0, "scores": [1, 2, 3, 4], "seats": []})
    j.set_health("camera", False, "no frame for 6 s", 4.0)
    table.poll_once()
    kinds = []
    while (m := sub.get(timeout=0.01)) is not None:
        kinds.append((m["kind"], m["data"].get("type") or m["data"].get("component")))
    assert kinds == [("event", "discard"), ("ruling", "claim"), ("state", None),
                     ("health", "camera")]
    assert table.snapshot()["scores"] == [1, 2, 3, 4]
    assert table.events() == [GAME_START, ev(1.0)]
    assert table.rulings() == [r]
    table.poll_once()
    assert sub.get(timeout=0.01) is None  # nothing new, nothing sent
    table.close()


def test_journal_table_says_when_the_service_stops_answering(tmp_path):
    import time
    path = tmp_path / "j.sqlite"
    j = Journal(path)
    j.append_event(GAME_START)
    j.heartbeat()
    table = JournalTable(path, start=False)
    table.STALE_AFTER = 0.1
    table.poll_once()
    assert "service" not in table.health
    time.sleep(0.2)
    table.poll_once()  # nothing new in the journal: the silence itself is the news
    assert table.health["service"]["ok"] is False
    j.heartbeat()
    table.poll_once()
    assert table.health["service"]["ok"] is True
    table.close()


def test_journal_table_submit_goes_through_the_inbox(tmp_path):
    import threading
    path = tmp_path / "j.sqlite"
    j = Journal(path)
    j.append_event(GAME_START)
    table = JournalTable(path, start=False, wait=3.0)

    def service():  # what the table service's inbox thread does
        for _ in range(100):
            for item, event in j.inbox_pending():
                seq = j.append_event(event)
                j.append_rulings(seq, [{"type": "violation", "t": 1.0, "ruling_id": "r9",
                                        "seat": 0, "kind": "procedure", "penalty": "none",
                                        "rule": "x", "text": "y"}])
                j.inbox_done(item, seq)
                return
            time.sleep(0.02)

    th = threading.Thread(target=service)
    th.start()
    rulings = table.submit({"type": "referee", "t": 1.0, "action": "note", "text": "ok"})
    th.join()
    assert [r["ruling_id"] for r in rulings] == ["r9"]
    table.close()
