"""The hall's board and page without a broker: messages fed as the subscriber would.

Which table the head referee sees first, that each event counts once, and that the hall's page
keeps the table dashboard's rules: nothing without the PIN, a CSRF token on every POST, and
no referee action through the hall's read-only copy of a table.
"""
from __future__ import annotations

import json
import re

import pytest

from hall.board import Board
from web.hall import create_hall_app
from web.pin import hash_pin

PIN = "1357"


def send(board, table, kind, data):
    board.receive(f"riichi/h/{table}/{kind}", json.dumps(data).encode())


def state(table_t0=0.0, now=100.0, violations=(), calls=(), game_over=False, seq=5):
    return {"seq": seq, "rid": 0, "game": 1, "now": now, "rate": 1.0, "game_t0": table_t0,
            "snapshot": {"round": {"wind": "E", "number": 1, "dealer": 0, "honba": 0,
                                   "riichi_sticks": 0}, "scores": [25000] * 4,
                         "game_over": game_over, "seats": []},
            "open": {"violations": list(violations), "calls": list(calls)}, "backlog": 0}


WARNING = {"ruling_id": "r4", "seat": 1, "kind": "kuikae", "penalty": "warning", "text": "x"}
CHECK = {"ruling_id": "r7", "seat": 2, "kind": "false_win", "penalty": "chombo", "text": "y",
         "check": True}
NO_PENALTY = {"ruling_id": "r2", "seat": 0, "kind": "procedure", "penalty": "none", "text": "z"}


@pytest.fixture
def board():
    b = Board("h", "Hall", game_minutes=60)
    for name, st in [("calls", state(calls=[{"seat": 3, "t": 90.0}])),
                     ("check", state(violations=[CHECK])),
                     ("warned", state(violations=[WARNING])),
                     ("offline", state()),
                     ("camera", state()),
                     ("late", state(table_t0=0.0, now=3700.0)),
                     ("fine", state(violations=[NO_PENALTY])),
                     ("over", state(game_over=True))]:
        send(b, name, "online", {"online": True})
        send(b, name, "state", st)
    send(b, "offline", "online", {"online": False})
    send(b, "camera", "health", {"components": [
        {"component": "camera", "ok": False, "text": "no camera frame for 7 s"}]})
    return b


def test_tables_come_in_the_order_a_head_referee_needs_them(board):
    assert [t["table"] for t in board.tiles()] == \
        ["calls", "check", "warned", "camera", "offline", "late", "fine", "over"]
    levels = {t["table"]: (t["level"], t["why"]) for t in board.tiles()}
    assert levels["calls"] == (0, "seat 3 calls for a referee")
    assert levels["camera"][1] == "camera: no camera frame for 7 s"
    assert levels["late"] == (5, "behind schedule")
    # "Seen: someone is going": the call drops below what nobody has looked at yet...
    assert board.mark_seen("calls")
    assert [t["table"] for t in board.tiles()][:4] == ["check", "warned", "camera", "offline"]
    assert levels != {t["table"]: (t["level"], t["why"]) for t in board.tiles()}
    # ...until the same seat calls again.
    send(board, "calls", "state", state(calls=[{"seat": 3, "t": 250.0}], seq=9))
    assert board.tiles()[0]["table"] == "calls"


def test_a_tile_says_who_plays_and_their_scores_seat_by_seat(board):
    st = state(seq=6)
    st["snapshot"].update(names=["Aoi", "Ben", "Chie", "Dan"], scores=[31000, 19000, 25000, 25000])
    send(board, "fine", "state", st)
    tile = next(t for t in board.tiles() if t["table"] == "fine")
    assert (tile["names"], tile["scores"]) == (["Aoi", "Ben", "Chie", "Dan"],
                                               [31000, 19000, 25000, 25000])


def test_an_offline_table_is_not_shown_catching_up_from_its_last_word(board):
    """What a table had left to send when it went offline is stale the moment it is: the
    tile says "offline", not "catching up: 1"."""
    stale = dict(state(seq=6), backlog=1)
    for name in ("offline", "fine"):
        send(board, name, "state", stale)
    tiles = {t["table"]: t for t in board.tiles()}
    assert tiles["offline"]["backlog"] == 0 and tiles["offline"]["why"] == "offline"
    assert tiles["fine"]["backlog"] == 1       # online and still sending: it is catching up
    assert board.table("offline").link_health()["text"].startswith("offline for")


def test_each_event_counts_once_and_a_missing_one_is_noted(board):
    for seq in (1, 2, 2, 4, 3):
        send(board, "fine", "event", {"seq": seq, "game": 1, "event": {
            "type": "discard", "t": float(seq), "seat": 0, "tile": "1m"}})
    remote = board.table("fine")
    assert [e["t"] for e in remote.events()] == [1.0, 2.0, 4.0]
    assert remote.duplicates == 2 and remote.gaps == [(3, 3)]
    assert board.tiles()[-2]["gaps"] == 1


def test_a_broken_message_is_counted_never_raised(board):
    board.receive("riichi/h/fine/state", b"{not json")
    board.receive("riichi/h/fine/event", b'{"seq": 9}')
    board.receive("riichi/other-hall/x/state", b"{}")
    board.receive("riichi/h/bad name/state", b"{}")
    assert board.stats["bad"] == 2 and board.stats["foreign"] == 2
    assert board.table("bad name") is None


@pytest.fixture
def client(board):
    app = create_hall_app(board, pin_hash=hash_pin(PIN), secret_key="t")
    app.testing = True
    return app.test_client()


def token(client, path="/login"):
    page = client.get(path).get_data(as_text=True)
    return re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)


def test_nothing_of_the_hall_without_the_pin(client):
    assert client.get("/").headers["Location"].endswith("/login")
    assert client.get("/hall/tiles.json").status_code == 401
    assert client.get("/hall/stream").status_code == 401
    assert client.get("/t/warned/").headers["Location"].endswith("/login")
    assert client.get("/t/warned/state.json").headers["Location"].endswith("/login")
    assert client.post("/login", data={"pin": PIN}).status_code == 403   # no CSRF token
    r = client.post("/login", data={"pin": "0000", "csrf_token": token(client)})
    assert r.status_code == 401 and "Wrong PIN (4 tries left" in r.get_data(as_text=True)
    assert client.post("/login", data={"pin": PIN, "csrf_token": token(client)}).status_code \
        == 303
    tiles = client.get("/hall/tiles.json").get_json()
    assert tiles["tiles"][0]["table"] == "calls" and tiles["tables"] == 8


def links_of(page: str) -> list[str]:
    return re.findall(r'<a href="([^"]+)"', page)


def test_every_link_on_the_hall_login_leads_somewhere_else(client):
    """The hall is all behind the PIN: a link "back to the hall" on its login page led to the
    login page again. Before the login there is no such link; once logged in, it leads to the
    hall."""
    page = client.get("/login").get_data(as_text=True)
    for href in links_of(page):
        r = client.get(href, follow_redirects=True)
        assert r.request.path != "/login", f"{href} leads back to the login page"
    assert "Back to the hall" not in page
    client.post("/login", data={"pin": PIN, "csrf_token": token(client)})
    page = client.get("/login").get_data(as_text=True)
    assert links_of(page) == ["/"]
    r = client.get("/", follow_redirects=True)
    assert r.request.path == "/" and 'id="tiles"' in r.get_data(as_text=True)


def test_the_hall_page_carries_a_note_when_the_hall_has_one(board):
    """The demo stages a referee call, a table offline and a camera fault: its note says so on
    the page, so nobody takes them for faults. A hall without a note has none."""
    note = ["This demo stages what follows on purpose; nothing is broken.",
            "t3: loses the hall's broker from about 0:28 to about 0:40, plays on and catches up"]
    pages = []
    for config in ({"RIICHI_HALL_NOTE": note}, {}):
        app = create_hall_app(board, pin_hash=hash_pin(PIN), secret_key="t", config=config)
        c = app.test_client()
        c.post("/login", data={"pin": PIN, "csrf_token": token(c)})
        pages.append(c.get("/").get_data(as_text=True))
    with_note, without = pages
    assert f"<summary>{note[0]}</summary>" in with_note
    assert "<li>t3: loses the hall&#39;s broker from about 0:28" in with_note
    assert 'id="hall-note"' not in without and 'id="tiles"' in without


def test_the_hall_shows_tables_but_acts_for_none(client, board):
    client.post("/login", data={"pin": PIN, "csrf_token": token(client)})
    csrf = token(client, "/")
    assert client.post("/hall/seen/warned").status_code == 403           # CSRF
    assert client.post("/hall/seen/warned", headers={"X-CSRF-Token": csrf}).status_code == 200
    assert client.post("/hall/seen/nope", headers={"X-CSRF-Token": csrf}).status_code == 404
    page = client.get("/t/warned/").get_data(as_text=True)
    assert "All tables" in page and "/t/warned/referee/note" not in page  # no action forms
    r = client.post("/t/warned/referee/note", data={"text": "hi", "csrf_token": csrf})
    assert r.status_code == 403 and b"read-only" in r.data
    state_ = client.get("/t/warned/state.json").get_json()
    assert state_["data"]["scores"] == [25000] * 4
    assert client.get("/t/unknown/").status_code == 404
    # logging out at the hall ends the table views too
    client.post("/logout", data={"csrf_token": csrf})
    assert client.get("/t/warned/").status_code == 303
