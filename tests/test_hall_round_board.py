"""The tournament round on the hall's board, messages fed as the subscriber would: where each
table stands (playing, time up, waiting for signatures, waiting for a referee, signed), its time
left on its own clock, and every signed result handed on to the standings once."""
from __future__ import annotations

import json
import re

import pytest

from hall.board import Board
from hall.round_start import round_message
from hall.topics import round_topic
from web.hall import create_hall_app
from web.pin import hash_pin


def send(board, table, kind, data):
    board.receive(f"riichi/h/{table}/{kind}", json.dumps(data).encode())


def state(now, game_over=False, clock=None, seq=5, **snap):
    return {"seq": seq, "rid": 0, "game": 1, "now": now, "rate": 1.0, "game_t0": 0.0,
            "snapshot": {"round": {"wind": "S", "number": 2, "dealer": 1, "honba": 0,
                                   "riichi_sticks": 0}, "ruleset": "wrc2015",
                         "scores": [25000] * 4, "game_over": game_over, "seats": [],
                         "clock": clock or {}, **snap},
            "open": {"violations": [], "calls": []}, "backlog": 0}


WAITS = "Dan (seat 3) has not signed: waiting for a referee to settle it"
RUNNING = {"started": 100.0, "time_up_at": 5500.0, "stopped": False, "time_up": False}
UP = {**RUNNING, "time_up": True}
HALL_START = {"type": "clock", "t": 100.0, "action": "start", "seconds": 5400, "source": "hall",
              "round_no": 4, "round_id": "abc"}
GAME_END = {"type": "game_end", "t": 5800.0, "reason": "time", "ruling_id": "r90"}
RESULT = {"type": "result", "t": 5850.0, "scores": [30000, 25000, 25000, 20000],
          "final": [30, 5, -5, -30], "penalties": [], "signatures": [2, 0, 1, 3],
          "referee_signed": True, "ruling_id": "r95"}


def ruling(rid, r):
    return {"rid": rid, "seq": 10 + rid, "game": 1, "ruling": r}


# (what the table sent, in order) -> status, time left (its clock), the level on the page
CASES = [
    ("playing, 30 min left", [("state", state(3700.0, clock=RUNNING))],
     "playing", 1800.0, 6),
    ("no round clock: playing", [("state", state(3700.0))], "playing", None, 6),
    ("time up, the last hand", [("ruling", ruling(1, {"type": "time_up", "t": 5500.0,
                                                      "ends": "after_this_hand",
                                                      "ruling_id": "r80"})),
                                ("state", state(5600.0, clock=UP))],
     "time_up", 0.0, 6),
    ("the game ended a minute ago: signing", [("ruling", ruling(2, GAME_END)),
                                             ("state", state(5860.0, True, UP,
                                                             signatures=[2, 0]))],
     "signing", 0.0, 7),
    ("four minutes, unsigned: a referee", [("ruling", ruling(2, GAME_END)),
                                          ("state", state(6040.0, True, UP,
                                                          signatures=[2, 0, 1]))],
     "disputed", 0.0, 0),
    ("the table has said for 25 s that it waits for a referee",
     [("ruling", ruling(2, GAME_END)),
      ("state", {**state(5810.0, True, UP), "waiting_for_referee": WAITS}),
      ("state", {**state(5835.0, True, UP, seq=6), "waiting_for_referee": WAITS})],
     "disputed", 0.0, 0),
    ("the table just said so: the fourth player may be signing",
     [("ruling", ruling(2, GAME_END)),
      ("state", {**state(5810.0, True, UP), "waiting_for_referee": WAITS})],
     "signing", 0.0, 7),
    ("a hall that missed game_end: from when it saw the game over",
     [("state", state(9000.0, True, UP))], "signing", 0.0, 7),
    ("signed", [("ruling", ruling(2, GAME_END)), ("ruling", ruling(3, RESULT)),
                ("state", state(9000.0, True, UP, result_given=True))], "signed", 0.0, 7),
    ("signed, the state not there yet", [("state", state(5840.0, True, UP)),
                                         ("ruling", ruling(3, RESULT))], "signed", 0.0, 7),
    ("no game", [("online", {"online": True})], None, None, 7),
]


@pytest.mark.parametrize("messages,status,left,level", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_where_a_table_stands_in_the_round(messages, status, left, level):
    board = Board("h", dispute_after=180)
    for kind, data in messages:
        send(board, "t1", kind, data)
    tile = board.tiles()[0]
    rs = tile["round_status"]
    assert rs["status"] == status
    assert (rs["time_left"] is None) if left is None else \
        (rs["time_left"] == pytest.approx(left, abs=1.0))
    assert tile["level"] == level
    if status == "disputed":
        assert tile["why"] in ("result not signed: waiting for a referee", WAITS)
        board.mark_seen("t1")       # the head referee sends someone
        assert board.tiles()[0]["level"] == 4


def test_each_signed_result_goes_to_the_standings_once_with_its_round():
    board = Board("h")
    counted = []
    board.on_result.append(lambda table, round_no, r: counted.append((table, round_no, r)))
    send(board, "t7", "event", {"seq": 1, "game": 1, "event": {
        "type": "game_start", "t": 90.0, "ruleset": "wrc2015", "scores": [30000] * 4}})
    send(board, "t7", "event", {"seq": 2, "game": 1, "event": HALL_START})
    send(board, "t7", "ruling", ruling(3, RESULT))
    send(board, "t7", "ruling", ruling(3, RESULT))      # QoS 1 brought it twice
    assert counted == [("t7", 4, RESULT)]
    assert [(r["table"], r["round"]) for r in board.results] == [("t7", 4)]
    # A table whose hall clock start the hall never saw: the hall's own current round.
    board.receive(round_topic("h"), json.dumps(round_message(5, 5400, "def")).encode())
    assert board.round["round"] == 5
    send(board, "t8", "ruling", ruling(1, RESULT))
    assert counted[-1][:2] == ("t8", 5)


def test_a_hook_that_fails_does_not_stop_the_hall():
    board = Board("h")
    board.on_result.append(lambda *a: 1 / 0)
    later = []
    board.on_result.append(lambda *a: later.append(a))
    send(board, "t1", "ruling", ruling(1, RESULT))
    assert len(later) == 1 and board.stats["results"] == 1


PIN = "2468"


class Starter:
    def __init__(self):
        self.calls = []

    def __call__(self, round_no, seconds):
        self.calls.append((round_no, seconds))
        return round_message(round_no, seconds, "xyz")


def test_the_head_referee_starts_a_round_from_the_hall_page():
    board, starter = Board("h"), Starter()
    app = create_hall_app(board, pin_hash=hash_pin(PIN), secret_key="t", start_round=starter)
    app.testing = True
    client = app.test_client()
    assert client.post("/hall/round", json={"round": 2, "minutes": 90}).status_code == 403
    page = client.get("/login").get_data(as_text=True)
    csrf = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)
    client.post("/login", data={"pin": PIN, "csrf_token": csrf})
    page = client.get("/").get_data(as_text=True)
    assert 'id="round-start"' in page
    csrf = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)
    headers = {"X-CSRF-Token": csrf}
    r = client.post("/hall/round", json={"round": 2, "minutes": 90}, headers=headers)
    assert r.status_code == 200 and r.get_json()["round"] == 2
    assert starter.calls == [(2, 5400)]
    for bad in ({"round": 0, "minutes": 90}, {"round": 2, "minutes": -1},
                {"round": "two", "minutes": 90}, {}):
        r = client.post("/hall/round", json=bad, headers=headers)
        assert r.status_code == 400 and r.get_json()["error"]
    assert len(starter.calls) == 1


def test_a_table_the_hall_does_not_hear_is_not_said_to_wait_for_a_referee():
    board = Board("h", dispute_after=180)
    board.set_broker(True)
    send(board, "t1", "ruling", ruling(2, GAME_END))
    send(board, "t1", "state", state(6040.0, True, UP, signatures=[2, 0, 1]))
    assert board.round_status("t1")["status"] == "disputed"
    # The broker restarts: the table's signatures may be on their way; its clock runs on.
    board.set_broker(False, "lost the broker")
    assert board.round_status("t1")["status"] == "signing"
    board.set_broker(True)
    assert board.round_status("t1")["status"] == "signing"     # the tables catch up first
    board.broker_back -= board.catch_up
    assert board.round_status("t1")["status"] == "disputed"
    send(board, "t1", "online", {"online": False})              # the table itself is away
    assert board.tiles()[0]["round_status"]["status"] == "signing"
    # The table's own word likewise: what it said stands only while the hall hears it.
    send(board, "t2", "ruling", ruling(2, GAME_END))
    send(board, "t2", "state", {**state(5810.0, True, UP), "waiting_for_referee": WAITS})
    send(board, "t2", "state", {**state(5835.0, True, UP, seq=6), "waiting_for_referee": WAITS})
    assert board.round_status("t2")["status"] == "disputed"
    board.set_broker(False, "lost the broker")
    assert board.round_status("t2")["status"] == "signing"


def test_a_signed_result_at_the_hall_counts_in_the_standings_once(tmp_path):
    """What `riichi-referee hall` builds: the board hands each result to its standings."""
    from argparse import Namespace

    from app.commands.hall import build, with_standings
    from hall.config import load_hall_config
    from test_standings import ROSTER, ROUND1, T1

    (tmp_path / "roster.csv").write_text(ROSTER, encoding="utf-8")
    (tmp_path / "round-1.csv").write_text(ROUND1, encoding="utf-8")
    (tmp_path / "hall.toml").write_text(
        '[hall]\nname = "h"\n\n[standings]\nroster = "roster.csv"\n'
        'seating = { 1 = "round-1.csv" }\n', encoding="utf-8")
    settings = with_standings(load_hall_config(tmp_path / "hall.toml"),
                              Namespace(roster=None, seating=[]))
    board, _, app = build(settings, start=False)
    standings = app.extensions["riichi"].standings
    assert standings.missing(1) == ["t1", "t2"]
    send(board, "t1", "event", {"seq": 1, "game": 1, "event": {**HALL_START, "round_no": 1}})
    result = {**RESULT, **T1}
    send(board, "t1", "ruling", ruling(7, result))
    send(board, "t1", "ruling", ruling(7, result))      # delivered twice
    assert standings.missing(1) == ["t2"]
    assert standings.summary()["results"] == 1
