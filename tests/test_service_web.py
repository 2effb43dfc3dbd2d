"""Production layout: the table service in one process, the dashboard (JournalTable) in
another, meeting only in the journal."""
import subprocess
import sys
import time

from referee.events import dumps
from referee.simulate import simulate
from table.journal import Journal
from table.journal_table import JournalTable


def wait_until(predicate, seconds=20.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_dashboard_process_follows_the_service_and_submits_through_the_inbox(tmp_path):
    game = tmp_path / "game.jsonl"
    events = simulate(seed=3, hands=1)
    game.write_text("".join(dumps(e) + "\n" for e in events))
    config = tmp_path / "table.toml"
    config.write_text(f'[service]\nreplay = "{game}"\nspeed = 60\n')
    journal = tmp_path / "journal.sqlite"
    service = subprocess.Popen([sys.executable, "-m", "app", "run", "--config", str(config),
                                "--journal", str(journal)],
                               stderr=subprocess.PIPE, text=True)
    table = None
    try:
        assert wait_until(lambda: journal.exists() and Journal(journal).last_seq() > 0)
        table = JournalTable(journal, poll=0.02)
        sub = table.hub.subscribe()
        assert wait_until(lambda: len(table.events()) >= 10)
        kinds = set()
        assert wait_until(lambda: kinds.update(
            m["kind"] for m in iter(lambda: sub.get(0.01), None)) or {"event", "state"} <= kinds)
        snap = table.snapshot()
        assert snap["round"] is not None and len(snap["seats"]) == 4
        # a referee's note from the phone: through the inbox, journaled and judged by the service
        table.submit({"type": "referee", "t": table.clock(), "action": "note",
                      "text": "checked the wall"})
        assert wait_until(lambda: any(e["type"] == "referee" for e in table.events()))
        import web
        app = web.create_app(table)
        body = app.test_client().get("/state.json").get_json()
        assert body["data"]["seats"] and body["data"]["round"] is not None
        assert wait_until(lambda: len(table.events()) == len(events) + 1, 60)
        # the dashboard's view equals the journal's (the hand's last ruling may still be on
        # its way when the last event is in: the two reads must agree once it is)
        assert wait_until(lambda: table.rulings() == [
            r for _, r in Journal(journal).game_rulings()], 10)
    finally:
        service.terminate()
        assert service.wait(10) == 0, service.stderr.read()
        if table is not None:
            table.close()
