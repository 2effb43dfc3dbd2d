"""The hall starts a round at every table, over a real Mosquitto on a loopback port.

What the head referee relies on: every table connected when the round starts journals its
clock start once, at once; a table that comes late gets it too, with the time already gone
taken off; nothing the broker hands over again (a reconnect, a broker restart, a restarted
table service) starts the clock twice; and a table that cannot journal it does not start it.
"""
from __future__ import annotations

import time

import paho.mqtt.client as mqtt
import pytest

from hall.board import Board
from hall.config import LinkSettings
from hall.link import HallLink
from hall.mosquitto import LocalBroker, find_mosquitto
from hall.subscriber import HallSubscriber
from hall.topics import round_topic
from referee.errors import RefereeError
from table.clock import TableClock
from table.journal import Journal, JournalError
from table.service import ResumableTable, TableService
from testkit.hall import LINK_RETRY, SUBSCRIBER_RETRY

pytestmark = pytest.mark.skipif(find_mosquitto() is None,
                                reason="mosquitto not installed (apt-get install mosquitto)")


def wait_for(condition, timeout=10.0, what="the condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.02)
    raise AssertionError(f"waited {timeout:g} s for {what}")


class Table:
    """A table service (journal, rules core; no devices) with its link to the hall."""

    def __init__(self, folder, broker, name, speed=1.0):
        self.path = folder / f"{name}.sqlite"
        self.journal = Journal(self.path)
        self.clock = TableClock(offset=self.journal.clock_offset(), speed=speed)
        self.table = ResumableTable(self.journal, clock=self.clock)
        self.table.restore()
        self.service = TableService(self.table, clock=self.clock, inbox=False)
        self.name, self.broker = name, broker
        self.link = self._link()

    def _link(self):
        return HallLink(self.path, LinkSettings("h", self.name, self.broker.settings(self.name)),
                        hub=self.table.hub, clock=self.clock,
                        on_round=lambda e: self.service.submit(e, "hall") is not None,
                        retry=LINK_RETRY).start()

    def restart_link(self):
        self.link.stop()
        self.link = self._link()

    def starts(self):
        """The hall's clock starts this table journaled (its whole journal)."""
        with Journal(self.path, readonly=True) as j:
            import json
            return [json.loads(text) for _, _, _, text in j.event_rows()
                    if '"clock"' in text and '"hall"' in text]

    def close(self):
        self.link.stop()
        self.journal.close()


@pytest.fixture
def broker(tmp_path):
    with LocalBroker(tmp_path / "broker", "h", ["t1", "t2", "t3"]) as b:
        yield b


def hall(broker):
    board = Board("h")
    sub = HallSubscriber(board, broker.settings("hall"), reconnect_delay=SUBSCRIBER_RETRY).start()
    assert sub.subscribed.wait(5), board.broker_text
    return board, sub


def test_the_round_start_reaches_every_table_once_late_or_reconnected(broker, tmp_path):
    board, sub = hall(broker)
    t1, t2 = Table(tmp_path, broker, "t1"), Table(tmp_path, broker, "t2")
    wait_for(lambda: t1.link.connected and t2.link.connected, what="both links")
    published = time.monotonic()
    message = sub.start_round(3, 5400)
    for t in (t1, t2):
        wait_for(lambda: len(t.starts()) == 1, what=f"{t.name}'s clock start")
        start = t.starts()[0]
        # live: the whole round, from now on the table's clock
        assert (start["action"], start["seconds"], start["round_no"], start["round_id"]) == \
            ("start", 5400, 3, message["id"])
        assert "late_s" not in start
        clock = t.table.snapshot()["clock"]
        assert clock["started"] == start["t"] and clock["time_up_at"] == start["t"] + 5400
    wait_for(lambda: board.round is not None and board.round["id"] == message["id"],
             what="the hall's own copy of the round")

    # The broker restarts: both links reconnect and are handed the retained start again.
    broker.stop()
    broker.start()
    wait_for(lambda: t1.link.stats["round_again"] >= 1 and t2.link.stats["round_again"] >= 1,
             timeout=20, what="the retained start handed over again")
    # The table service restarts: its new link reads the journal and starts nothing again.
    t1.restart_link()
    wait_for(lambda: t1.link.stats["round_again"] >= 1, what="the restarted link's copy")
    assert len(t1.starts()) == 1 and len(t2.starts()) == 1

    # A table switched on late (its clock runs at 10x): it gets the round with the time gone
    # taken off, on the broker's count of the message's age (whole seconds).
    wait_for(lambda: time.monotonic() - published >= 2.1, what="two seconds into the round")
    t3 = Table(tmp_path, broker, "t3", speed=10)
    wait_for(lambda: len(t3.starts()) == 1, what="the late table's clock start")
    gone = time.monotonic() - published
    late = t3.starts()[0]
    assert late["round_id"] == message["id"]
    assert 10 * 2 <= late["late_s"] <= 10 * (gone + 1)
    assert late["seconds"] == pytest.approx(5400 - late["late_s"])
    for t in (t1, t2, t3):
        t.close()
    sub.stop()


def test_only_the_hall_may_start_a_round(broker, tmp_path):
    acks = {}
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="t1-rogue",
                         protocol=mqtt.MQTTv5)
    client.username_pw_set("t1", broker.passwords["t1"])
    client.on_publish = lambda c, u, mid, rc, props: acks.__setitem__(mid, str(rc))
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    try:
        forged = client.publish(round_topic("h"), b'{"round": 1, "seconds": 60, "id": "x", '
                                b'"expiry": 99}', qos=1, retain=True)
        forged.wait_for_publish(5)
        wait_for(lambda: forged.mid in acks, what="the broker's answer")
        assert acks[forged.mid] == "Not authorized"
    finally:
        client.loop_stop()
        client.disconnect()
    board, sub = hall(broker)
    sub.stop()
    with pytest.raises(RefereeError, match="no broker"):
        sub.start_round(1, 60)


def test_a_table_that_cannot_journal_the_round_start_does_not_start_its_clock(broker, tmp_path,
                                                                               monkeypatch):
    board, sub = hall(broker)
    t = Table(tmp_path, broker, "t1")
    wait_for(lambda: t.link.connected, what="the link")
    real_append = t.journal.append_event
    refused = []

    def full_disk(event):
        if event["type"] == "clock" and not refused:
            refused.append(event)
            raise JournalError("journal: the disk is full", "full")
        return real_append(event)

    monkeypatch.setattr(t.journal, "append_event", full_disk)
    sub.start_round(1, 600)
    wait_for(lambda: refused, what="the refused clock start")
    # Journaled once, when the journal took it; the clock started only then, with the time
    # that passed meanwhile taken off.
    wait_for(lambda: len(t.starts()) == 1, what="the clock start, tried again")
    start = t.starts()[0]
    assert start["t"] > refused[0]["t"] and start["seconds"] < 600
    assert start["t"] + start["seconds"] == pytest.approx(refused[0]["t"] + 600, abs=0.01)
    assert t.table.snapshot()["clock"]["started"] == start["t"]
    t.close()
    sub.stop()
