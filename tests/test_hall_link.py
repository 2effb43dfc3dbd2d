"""Tables publish to a real Mosquitto on a loopback port; the hall's board receives.

What the head referee relies on: every event and ruling a table journals reaches the hall once
and in order, even across a broker restart mid-game or a restart of the table service; the
retained state tells a hall that starts late where each table stands; a table cannot write
under another table's name.
"""
from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import threading
import time
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from hall.board import Board
from hall.config import LinkSettings, link_settings
from hall.link import HallLink
from hall.mosquitto import LocalBroker, find_mosquitto
from hall.subscriber import HallSubscriber
from referee.simulate import simulate
from table.config import ConfigError
from table.journal import Journal
from table.referee_calls import call_event
from table.service import ResumableTable
from testkit.hall import LINK_RETRY, SUBSCRIBER_RETRY

pytestmark = pytest.mark.skipif(find_mosquitto() is None,
                                reason="mosquitto not installed (apt-get install mosquitto)")

TABLES = ["t1", "t2", "t3", "t4", "t5"]
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def broker(tmp_path):
    with LocalBroker(tmp_path / "broker", "h", TABLES) as b:
        yield b


class Table:
    """A table service's journal and rules core, publishing to the hall through a HallLink."""

    def __init__(self, folder, broker, name, settings=None, **link):
        link.setdefault("retry", LINK_RETRY)
        self.path = folder / f"{name}.sqlite"
        self.journal = Journal(self.path)
        self.table = ResumableTable(self.journal)
        self.table.restore()
        self.health = []
        self.link = HallLink(self.path, settings or LinkSettings("h", name, broker.settings(name)),
                             hub=self.table.hub,
                             on_health=lambda ok, text: self.health.append((ok, text)),
                             **link).start()

    def play(self, events):
        for e in events:
            self.table.submit(e)

    def close(self):
        self.link.stop()
        self.journal.close()


def hall(broker, client_id=None):
    board = Board("h")
    sub = HallSubscriber(board, broker.settings("hall"), client_id=client_id,
                         reconnect_delay=SUBSCRIBER_RETRY).start()
    assert sub.subscribed.wait(5), board.broker_text
    return board, sub


def caught_up(board, name, journal, timeout=15):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        remote = board.table(name)
        rid = journal.outbox_rulings_after(0, 100000)
        if remote is not None and remote.last_seq == journal.last_seq() and \
                remote.last_rid == (rid[-1][0] if rid else 0):
            return remote
        time.sleep(0.02)
    raise AssertionError(f"the hall did not catch up with {name}")


def journaled(journal):
    return [e for _, e in journal.game_events()], [r for _, r in journal.game_rulings()]


def test_a_table_publishes_what_it_journals_and_retains_where_it_stands(broker, tmp_path):
    board, sub = hall(broker)
    t = Table(tmp_path, broker, "t1")
    game = simulate(seed=3, hands=1)
    t.play(game[:60])
    t.play([call_event(2, game[59]["t"] + 0.5)])
    remote = caught_up(board, "t1", t.journal)
    events, rulings = journaled(t.journal)
    assert remote.events() == events and remote.rulings() == rulings
    assert remote.duplicates == 0 and remote.gaps == []
    assert t.link.wait_idle(5)  # the state is sent at most every 0.1 s: the last one too
    # the last state, the call's, may still be on its way: wait for it (a busy machine took
    # over 2 s once), and say so if it never comes
    deadline = time.monotonic() + 15
    while (remote.state or {}).get("seq") != t.journal.last_seq() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert (remote.state or {}).get("seq") == t.journal.last_seq(), "the table's last state never came"
    tile = board.tiles()[0]
    assert tile["online"] is True and tile["level"] == 0 and "seat 2" in tile["why"]
    assert tile["seq"] == t.journal.last_seq()

    # A hall that starts now learns where the table stands from the retained messages alone.
    late, late_sub = hall(broker, client_id="late-hall")
    deadline = time.monotonic() + 15
    # waits for the state of the last event: the broker may hand over the retained state of the
    # one before it first, if the table's last state was still on its way when the hall came;
    # and for the retained word that the table is online, a topic of its own, which the broker
    # may hand over after the state (CI saw it once)
    while (late.table("t1") is None or (late.table("t1").state or {}).get("seq")
           != t.journal.last_seq() or late.table("t1").online is not True) \
            and time.monotonic() < deadline:
        time.sleep(0.02)
    state = late.table("t1").state
    assert state["seq"] == t.journal.last_seq()
    assert state["snapshot"]["scores"] == t.table.snapshot()["scores"]
    assert state["open"]["calls"] == [{"seat": 2, "t": game[59]["t"] + 0.5}]
    assert late.table("t1").online is True and late.table("t1").events() == []

    # A table that stops says so; the retained word is "offline" for anyone who asks later.
    t.close()
    deadline = time.monotonic() + 15
    while late.table("t1").online is not False and time.monotonic() < deadline:
        time.sleep(0.02)
    assert late.table("t1").online is False
    assert board.tiles()[0]["online"] is False
    late_sub.stop()
    sub.stop()


def test_a_snapshot_written_after_its_event_was_sent_still_reaches_the_hall(broker, tmp_path):
    """The table journals an event, then its rulings and snapshot: a link that reads the event
    in between sends a state with the snapshot before it. A call press makes no ruling, so
    nothing else new came to read and the call's state never left (the hall showed the table
    one step behind until its next event; a busy run of the suite caught it)."""
    board, _sub = hall(broker)   # the subscriber runs while the test does
    t = Table(tmp_path, broker, "t1")
    game = simulate(seed=3, hands=1)
    t.play(game[:60])
    remote = caught_up(board, "t1", t.journal)
    assert t.link.wait_idle(5)
    deadline = time.monotonic() + 15
    while (remote.state or {}).get("seq") != 60 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert remote.state["seq"] == 60
    # the press, journaled as the service does, and read and sent before its snapshot is
    press = call_event(2, game[59]["t"] + 0.5)
    seq = t.journal.append_event(press)
    caught_up(board, "t1", t.journal)
    assert t.link.wait_idle(5)
    assert remote.state["seq"] == 60          # the state sent on reading it: the one before
    snap = t.table.snapshot()
    t.journal.record(seq, [], snap)
    t.table.hub.publish("state", snap)
    deadline = time.monotonic() + 15
    while (remote.state or {}).get("seq") != seq and time.monotonic() < deadline:
        time.sleep(0.01)
    assert remote.state["seq"] == seq, "the call's state never reached the hall"


def test_the_acl_refuses_a_table_writing_under_another_tables_name(broker):
    board, sub = hall(broker)
    acks, received = {}, []
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="t1-rogue",
                         protocol=mqtt.MQTTv5)
    client.username_pw_set("t1", broker.passwords["t1"])
    client.on_publish = lambda c, u, mid, rc, props: acks.__setitem__(mid, str(rc))
    client.on_message = lambda c, u, m: received.append(m.topic)
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    try:
        client.subscribe("riichi/h/#", qos=1)
        forged = client.publish("riichi/h/t2/event", json.dumps(
            {"seq": 1, "game": 1, "event": {"type": "discard", "t": 1, "seat": 0, "tile": "1m"}}),
            qos=1)
        own = client.publish("riichi/h/t1/online", json.dumps({"online": True}), qos=1)
        forged.wait_for_publish(5)
        own.wait_for_publish(5)
        deadline = time.monotonic() + 15
        while (board.table("t1") is None or len(acks) < 2) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert acks[forged.mid] == "Not authorized" and acks[own.mid] == "Success"
        # The hall has the table's own message (the wait above), which the broker handled
        # after the forged one: had the forged one gone through, the hall would have it too.
        assert board.table("t2") is None           # the hall never saw the forged event
        assert board.table("t1").online is True    # but does see the table's own topic
        assert received == []                      # a table reads nothing but the round start
    finally:
        client.loop_stop()
        client.disconnect()
        sub.stop()


def test_a_link_whose_user_the_acl_refuses_says_so_and_keeps_the_events(broker, tmp_path):
    # t3's journal, published with t4's login: every publish under riichi/h/t3 is refused.
    wrong = LinkSettings("h", "t3", broker.settings("t4"))
    t = Table(tmp_path, broker, "t3", settings=wrong)
    t.play(simulate(seed=4, hands=1)[:10])
    deadline = time.monotonic() + 10
    while not any(not ok and "refuses" in text for ok, text in t.health) and \
            time.monotonic() < deadline:
        time.sleep(0.05)
    assert any(not ok and "'t3'" in text and "ACL" in text for ok, text in t.health), t.health
    assert t.link.acked == (0, 0)  # nothing counts as sent: fixed broker, nothing missing
    t.close()


def test_store_and_forward_across_a_broker_restart_mid_game(broker, tmp_path):
    """The broker stops mid-game and comes back: the table plays on meanwhile; the hall ends
    with every event and ruling once, in journal order."""
    board, sub = hall(broker)
    t = Table(tmp_path, broker, "t2")
    game = simulate(seed=5, hands=2)
    third = len(game) // 3
    done = threading.Event()

    def play():
        for e in game:
            t.table.submit(e)
            time.sleep(0.003)
        done.set()

    player = threading.Thread(target=play)
    player.start()
    while len(t.table.events()) < third:
        time.sleep(0.005)
    broker.stop()                      # as `systemctl stop mosquitto` does: SIGTERM
    while len(t.table.events()) < 2 * third:
        time.sleep(0.005)
    assert not t.link.connected        # the table played on without the broker
    assert any(not ok for ok, _ in t.health)
    broker.start()
    player.join(30)
    assert done.is_set()
    remote = caught_up(board, "t2", t.journal, timeout=30)
    events, rulings = journaled(t.journal)
    # Nothing lost, nothing twice, in order (a PUBACK lost as the broker stopped may bring an
    # item twice over the wire: the hall drops it by its seq/rid).
    assert remote.events() == events
    assert remote.rulings() == rulings
    assert remote.gaps == []
    assert t.link.stats["connects"] == 2 and t.link.stats["resent_batches"] >= 1
    assert t.health[-1] == (True, "")
    t.close()
    sub.stop()


class StatesBoard(Board):
    """A board that also keeps every state message it receives."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.states: list[dict] = []

    def receive(self, topic, payload):
        if topic.endswith("/state") and payload:
            self.states.append(json.loads(payload))
        super().receive(topic, payload)


def test_a_healthy_table_is_never_catching_up_and_one_back_from_an_outage_is(broker, tmp_path):
    """"catching up: N" on the hall's tile is what the table has journaled and not yet sent.
    A table on a working link sends each event before the state that follows it: it never
    shows as catching up. One that comes back from an outage with more than it may have in
    flight at once does, until it has sent it all."""
    board = StatesBoard("h")
    sub = HallSubscriber(board, broker.settings("hall"), reconnect_delay=SUBSCRIBER_RETRY).start()
    assert sub.subscribed.wait(5), board.broker_text
    # poll: with 4 in flight at most, the link sends the next four when it next looks (a
    # PUBACK does not wake it): every 0.25 s by default, 2.5 s for this backlog
    t = Table(tmp_path, broker, "t3", window=4, poll=0.02)
    game = simulate(seed=8, hands=1)
    for e in game[:40]:
        t.table.submit(e)
        time.sleep(0.01)        # the pace of a sped-up demo: every event its own state
    caught_up(board, "t3", t.journal)
    assert t.link.wait_idle(5)
    healthy = list(board.states)
    assert len(healthy) >= 5
    assert [s["backlog"] for s in healthy] == [0] * len(healthy)
    assert board.tiles()[0]["backlog"] == 0

    # The link is not idle while its hall still reads "catching up": hold it where the race
    # put it, the last item sent and acknowledged, the state saying so not yet sent.
    link, health, idle_early = t.link, t.link._publish_health, []

    def publish_health(journal):
        if not link._pending and link._last_state is not None and not link._last_state[3] \
                and not idle_early:
            deadline = time.monotonic() + 5
            while link.backlog and time.monotonic() < deadline:
                time.sleep(0.005)   # the last PUBACKs
            idle_early.append(link.wait_idle(0.1))
        health(journal)

    link._publish_health = publish_health
    broker.stop()
    t.play(game[40:80])         # journaled while the broker is away
    broker.start()
    caught_up(board, "t3", t.journal, timeout=30)
    assert t.link.wait_idle(10)
    assert idle_early == [False]
    deadline = time.monotonic() + 15
    # The hall judged on the state that says all is sent, not on one still in the wire: the
    # state sent on reconnecting already carries the last snapshot, with its backlog.
    while (board.states[-1]["seq"], board.states[-1]["backlog"]) != (t.journal.last_seq(), 0) \
            and time.monotonic() < deadline:
        time.sleep(0.02)
    back = board.states[len(healthy):]
    assert max(s["backlog"] for s in back) > 0      # it said it was catching up
    assert back[-1]["backlog"] == 0 and board.tiles()[0]["backlog"] == 0
    t.close()
    sub.stop()


def test_a_restarted_table_service_sends_only_what_the_broker_did_not_have(broker, tmp_path):
    board, sub = hall(broker)
    game = simulate(seed=6, hands=1)
    t = Table(tmp_path, broker, "t5")
    t.play(game[:40])
    assert t.link.wait_idle(10)
    t.close()                                  # the service stops (the mark is saved)
    first = caught_up(board, "t5", Journal(tmp_path / "t5.sqlite", readonly=True))
    t = Table(tmp_path, broker, "t5")          # and starts again on the same journal
    t.play(game[40:])
    remote = caught_up(board, "t5", t.journal)
    assert remote is first
    assert remote.events() == journaled(t.journal)[0]
    assert remote.duplicates == 0 and remote.gaps == []
    t.close()
    sub.stop()


def test_the_hall_gets_what_was_sent_while_it_was_away(broker, tmp_path):
    """The hall's server restarts: its session on the broker kept what the table sent."""
    board, sub = hall(broker, client_id="hall-A")
    t = Table(tmp_path, broker, "t4")
    game = simulate(seed=7, hands=1)
    t.play(game[:30])
    caught_up(board, "t4", t.journal)
    sub.stop()
    t.play(game[30:60])
    assert t.link.wait_idle(10)
    board2, sub2 = hall(broker, client_id="hall-A")
    deadline = time.monotonic() + 10
    while (board2.table("t4") is None or board2.table("t4").last_seq < t.journal.last_seq()) \
            and time.monotonic() < deadline:
        time.sleep(0.02)
    events = journaled(t.journal)[0]
    assert board2.table("t4").events() == events[30:60]
    t.close()
    sub2.stop()


def test_a_hall_section_is_checked_in_one_line(tmp_path):
    assert link_settings({"service": {}}, tmp_path / "table.toml") is None
    pw = tmp_path / "pw"
    pw.write_text("secret\n")
    s = link_settings({"hall": {"broker": "hall.local", "hall": "spring", "table": "t07",
                                "password_file": "pw"}}, tmp_path / "table.toml")
    assert (s.hall, s.table, s.broker.username, s.broker.password, s.broker.port) == \
        ("spring", "t07", "t07", "secret", 1883)
    with pytest.raises(ConfigError, match=r"\[hall\] table = 't 7' must be a name"):
        link_settings({"hall": {"broker": "x", "hall": "h", "table": "t 7"}}, tmp_path / "a")
    with pytest.raises(ConfigError, match=r"\[hall\] needs broker"):
        link_settings({"hall": {"hall": "h", "table": "t1"}}, tmp_path / "a")
    with pytest.raises(ConfigError, match=r"password_file: no such file"):
        link_settings({"hall": {"broker": "x", "hall": "h", "table": "t1",
                                "password_file": "nope"}}, tmp_path / "a")


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl not installed")
def test_over_the_hall_ca_a_table_publishes_with_tls_and_nothing_else_gets_in(tmp_path):
    """One CA per hall, made by systemd/make-cert.sh as install-hall.sh does: it signs the
    broker's certificate, which the hall's subscriber and the table both verify. A table told
    to trust another CA, or speaking MQTT in clear, does not get through."""
    make_cert = str(ROOT / "systemd" / "make-cert.sh")
    subprocess.run([make_cert, "ca", str(tmp_path / "ca"), "test hall"], check=True)
    subprocess.run([make_cert, "ca", str(tmp_path / "other"), "another hall"], check=True)
    subprocess.run([make_cert, "server", str(tmp_path / "servers"), str(tmp_path / "ca"),
                    "broker", "127.0.0.1", "localhost"], check=True)
    tls = {"cafile": str(tmp_path / "ca" / "ca.crt"),
           "certfile": str(tmp_path / "servers" / "broker.crt"),
           "keyfile": str(tmp_path / "servers" / "broker.key")}
    with LocalBroker(tmp_path / "broker", "h", ["t1", "t2", "t3"], tls=tls) as b:
        assert b.settings("hall").tls_ca == tmp_path / "ca" / "ca.crt"
        board, sub = hall(b)
        t = Table(tmp_path, b, "t1")
        t.play(simulate(seed=8, hands=1)[:20])
        remote = caught_up(board, "t1", t.journal)
        assert remote.events() == journaled(t.journal)[0]
        t.close()
        # a table told to trust another CA does not talk to this broker
        forged = dataclasses.replace(b.settings("t2"), tls_ca=tmp_path / "other" / "ca.crt")
        t2 = Table(tmp_path, b, "t2", settings=LinkSettings("h", "t2", forged))
        # a table speaking MQTT in clear to the TLS port does not either
        clear = dataclasses.replace(b.settings("t3"), tls_ca=None)
        t3 = Table(tmp_path, b, "t3", settings=LinkSettings("h", "t3", clear))
        for table in (t2, t3):
            table.play(simulate(seed=8, hands=1)[:5])
        deadline = time.monotonic() + 10
        while not (t2.health and t3.health) and time.monotonic() < deadline:
            time.sleep(0.05)
        for table, why in ((t2, "certificate was refused"), (t3, "set tls_ca")):
            assert table.health and table.health[-1][0] is False, table.health
            assert "cannot reach" in table.health[-1][1] and why in table.health[-1][1]
            table.close()
        assert board.table("t2") is None and board.table("t3") is None
        sub.stop()
        # nor does a hall server told to trust another CA: its page says why
        other = Board("h")
        stranger = HallSubscriber(other, dataclasses.replace(
            b.settings("hall"), tls_ca=tmp_path / "other" / "ca.crt"),
            reconnect_delay=SUBSCRIBER_RETRY).start()
        try:
            deadline = time.monotonic() + 10
            while "certificate" not in (other.broker_text or "") and time.monotonic() < deadline:
                time.sleep(0.05)
            assert "the broker's certificate was refused" in other.broker_text
            assert not other.broker_online and not stranger.subscribed.is_set()
        finally:
            stranger.stop()
