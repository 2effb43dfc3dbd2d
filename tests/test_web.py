"""The dashboard's server side through Flask's test client: stream, login, actions, downloads."""
from __future__ import annotations

import csv
import io
import json
import re
import socket
import time

import pytest

from referee.events import parse_line
from table.hub import Hub
from table.live import LiveTable
from testkit.web import ScriptedReferee
from web import create_app, serve
from web.pin import hash_pin

PIN = "2468"
PIN_HASH = hash_pin(PIN)  # scrypt: made once for the module


class Clock:
    """A table clock the test moves by hand."""

    def __init__(self, t: float = 5000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def table(clock):
    return LiveTable(ScriptedReferee(), clock=clock)


def make_app(table, **config):
    base = {"RIICHI_KEEPALIVE": 0.3, "RIICHI_STREAM_POLL": 0.05}
    base.update(config)
    return create_app(table, pin_hash=PIN_HASH, secret_key="test-secret-key", config=base)


@pytest.fixture
def app(table):
    return make_app(table)


@pytest.fixture
def client(app):
    return app.test_client()


def start_hand(table, clock):
    table.submit({"type": "game_start", "t": clock(), "ruleset": "ema2012",
                  "scores": [25000] * 4, "names": ["Aoi", "Ben", "Chie", "Dan"]})
    table.submit({"type": "hand_start", "t": clock(), "round_wind": "E", "dealer": 0,
                  "honba": 0, "riichi_sticks": 0, "dora_indicators": ["3m"]})


def claimed_discard(table, clock) -> dict:
    """Seat 0 discards 5m, seat 2 presses pon; the window closes: one claim ruling."""
    table.submit({"type": "discard", "t": clock(), "seat": 0, "tile": "5m"})
    clock.t += 0.8
    table.submit({"type": "call", "t": clock(), "seat": 2, "call": "pon"})
    clock.t += 3.0
    (ruling,) = table.tick()
    assert ruling["type"] == "claim"
    return ruling


def csrf_of(client) -> str:
    page = client.get("/").get_data(as_text=True)
    return re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)


def login(client, pin=PIN):
    token = csrf_of(client)
    return client.post("/referee/login", data={"pin": pin, "csrf_token": token})


def referee_client(app):
    c = app.test_client()
    assert login(c).status_code == 303
    return c, csrf_of(c)


# -- the page -----------------------------------------------------------------------------

def test_spectator_page_has_no_referee_controls(client):
    r = client.get("/")
    page = r.get_data(as_text=True)
    assert r.status_code == 200
    assert "Referee login" in page
    assert "/referee/penalty" not in page and "/referee/undo" not in page
    assert "/referee/override" not in page
    assert 'data-referee="0"' in page
    assert "default-src 'self'" in r.headers["Content-Security-Policy"]
    assert "<script>" not in page  # the CSP allows no inline script


def test_referee_page_has_every_action(app):
    c, _ = referee_client(app)
    page = c.get("/").get_data(as_text=True)
    for action in ("penalty", "note", "undo", "end_game", "logout"):
        assert f"/referee/{action}" in page
    assert 'data-referee="1"' in page


def test_session_cookie_is_httponly_and_samesite_strict(client, table):
    cookie = client.get("/").headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert "Secure" not in cookie  # plain http on the table's own network by default
    secure = make_app(table, SESSION_COOKIE_SECURE=True).test_client()
    assert "Secure" in secure.get("/").headers["Set-Cookie"]


# -- the stream ---------------------------------------------------------------------------

def sse_messages(chunks):
    """Parse SSE chunks into (event, data-dict) pairs; comments give ("comment", text)."""
    for chunk in chunks:
        text = chunk.decode() if isinstance(chunk, bytes) else chunk
        for block in text.split("\n\n"):
            if not block.strip():
                continue
            if block.startswith(":"):
                yield "comment", block[1:].strip()
                continue
            fields = {}
            for line in block.split("\n"):
                key, _, value = line.partition(": ")
                fields[key] = value
            if "data" in fields:
                yield fields.get("event", "message"), json.loads(fields["data"])


def open_stream(client):
    """The response and its messages as they come (several may share one write)."""
    r = client.get("/stream", buffered=False)
    assert r.status_code == 200
    assert r.mimetype == "text/event-stream"
    return r, sse_messages(iter(r.response))


def next_message(it):
    return next(it)


def test_stream_starts_with_the_full_state_on_the_table_clock(client, table, clock):
    start_hand(table, clock)
    ruling = claimed_discard(table, clock)
    r, it = open_stream(client)
    kind, msg = next_message(it)
    assert kind == "state" and msg["full"] is True
    assert msg["now"] == clock()  # the table clock, not the wall clock
    assert msg["data"]["round"]["wind"] == "E"
    assert [x["ruling_id"] for x in msg["rulings"]] == [ruling["ruling_id"]]
    assert [e["type"] for e in msg["events"]][:2] == ["game_start", "hand_start"]
    r.close()


def test_stream_relays_events_and_window_state_as_they_happen(client, table, clock):
    start_hand(table, clock)
    r, it = open_stream(client)
    next_message(it)
    table.submit({"type": "discard", "t": clock(), "seat": 0, "tile": "7p"})
    kind, msg = next_message(it)
    assert kind == "event" and msg["data"]["tile"] == "7p"
    kind, msg = next_message(it)
    assert kind == "state"
    window = msg["data"]["window"]
    assert window["tile"] == "7p" and window["deadline"] == pytest.approx(clock() + 3.0)
    assert msg["now"] == clock()
    clock.t += 1.25
    table.submit({"type": "call", "t": clock(), "seat": 1, "call": "chii"})
    next_message(it)
    kind, msg = next_message(it)
    assert msg["data"]["window"]["presses"] == [{"seat": 1, "call": "chii", "t": clock()}]
    clock.t += 2.0
    table.tick()
    kinds = [next_message(it)[0] for _ in range(2)]
    assert kinds == ["ruling", "state"]
    r.close()


def test_a_phone_that_joins_later_starts_from_the_table_as_it_is_then(client, table, clock):
    start_hand(table, clock)
    first, it = open_stream(client)
    assert next_message(it)[1]["data"]["seats"][0]["pond"] == []
    table.submit({"type": "discard", "t": clock(), "seat": 0, "tile": "7p"})
    clock.t += 0.5
    second, it = open_stream(client)
    kind, msg = next_message(it)
    assert [p["tile"] for p in msg["data"]["seats"][0]["pond"]] == ["7p"]
    assert msg["events"][-1]["tile"] == "7p" and msg["now"] == clock()
    table.set_health("camera", False, "no frame for 6 s")
    third, it = open_stream(client)
    health = next_message(it)[1]["data"]["health"]
    assert [(h["component"], h["ok"]) for h in health] == [("camera", False)]
    for r in (first, second, third):
        r.close()


def discards_in_turn(table, clock, first_seat: int, n: int) -> None:
    """``n`` discards in turn from ``first_seat``, half a second apart, nobody pressing."""
    tiles = ["1p", "9s", "2z", "7m", "4s", "8p", "1z", "3s", "6m"]
    for i in range(n):
        clock.t += 0.5
        table.submit({"type": "discard", "t": clock(), "seat": (first_seat + i) % 4,
                      "tile": tiles[i % len(tiles)]})


def test_a_phone_that_joins_long_after_a_claim_gets_the_presses_it_rests_on(clock):
    """The presses and their times are the referee's evidence for a claim window: a phone
    opened after the claim starts from the discard and presses of every claim, however many
    events came since (the recent events alone have scrolled past them), and no other old
    event."""
    from referee.core import Referee

    table = LiveTable(Referee(), clock=clock)
    start_hand(table, clock)
    discard = {"type": "discard", "t": clock(), "seat": 0, "tile": "5m"}
    table.submit(discard)
    clock.t += 0.4
    early = {"type": "call", "t": clock(), "seat": 1, "call": "chii"}
    table.submit(early)
    clock.t += 0.8
    press = {"type": "call", "t": clock(), "seat": 2, "call": "pon"}
    table.submit(press)
    clock.t += 2.0
    (claim,) = table.tick()
    assert claim["type"] == "claim" and claim["winners"] == [{"seat": 2, "call": "pon"}]
    table.submit({"type": "meld", "t": clock(), "seat": 2, "kind": "pon",
                  "tiles": ["5m", "5m", "5m"], "called": "5m", "from": 0})
    discards_in_turn(table, clock, 2, 50)
    clock.t += 3.5
    table.tick()

    r, it = open_stream(make_app(table).test_client())
    kind, msg = next_message(it)
    r.close()
    assert kind == "state" and claim in msg["rulings"]
    assert not [e for e in msg["events"] if e["type"] == "call"]   # scrolled out of these
    assert msg["evidence"] == [discard, early, press]


def test_the_evidence_of_a_claim_is_its_discard_and_the_presses_up_to_the_decision(clock):
    from referee.core import Referee

    from web.stream import claim_evidence

    table = LiveTable(Referee(), clock=clock)
    start_hand(table, clock)
    table.submit({"type": "discard", "t": clock(), "seat": 0, "tile": "5m"})  # not the claim's
    discards_in_turn(table, clock, 1, 2)
    clock.t += 0.5
    table.submit({"type": "discard", "t": clock(), "seat": 3, "tile": "5m"})  # the claim's
    clock.t += 1.0
    table.submit({"type": "call", "t": clock(), "seat": 1, "call": "pon"})
    # a chii the buttons stamped before the pon but reported after it: it keeps its own time
    table.submit({"type": "call", "t": clock() - 0.2, "seat": 0, "call": "chii"})
    clock.t += 2.5
    (claim,) = table.tick()
    assert claim["winners"] == [{"seat": 1, "call": "pon"}]
    clock.t += 5.0
    (late,) = table.submit({"type": "call", "t": clock(), "seat": 2, "call": "pon"})
    assert late["rejected"][0]["reason"] == "late"      # a claim ruling of its own
    events = table.events()
    picked = [events[i] for i in claim_evidence(events, table.rulings())]
    assert [(e["type"], e["seat"], e.get("tile") or e.get("call")) for e in picked] == [
        ("discard", 3, "5m"), ("call", 1, "pon"), ("call", 0, "chii"), ("call", 2, "pon")]
    assert picked[2]["t_source"] == pytest.approx(picked[2]["t"] - 0.2)
    assert claim_evidence(events, [claim]) == claim_evidence(events, [claim, late])[:-1]


def test_stream_says_how_fast_the_table_clock_runs(clock):
    clock.speed = 10.0  # a demo at ten times real speed
    table = LiveTable(ScriptedReferee(), clock=clock)
    r, it = open_stream(make_app(table).test_client())
    assert next_message(it)[1]["rate"] == 10.0
    table.set_health("camera", True, "ok")
    assert next_message(it)[1]["rate"] == 10.0
    r.close()
    r, it = open_stream(make_app(LiveTable(ScriptedReferee(), clock=lambda: 1.0)).test_client())
    assert next_message(it)[1]["rate"] == 1.0  # a plain clock runs at real speed
    r.close()


def test_idle_stream_sends_keep_alives(client):
    r, it = open_stream(client)
    next(it)
    started = time.monotonic()
    kind, text = next_message(it)
    waited = time.monotonic() - started
    assert kind == "comment" and text == "keep-alive"
    assert 0.2 <= waited < 1.0  # RIICHI_KEEPALIVE is 0.3 s here
    r.close()


def test_keepalive_over_five_seconds_is_refused(table):
    with pytest.raises(ValueError, match="at most 5 s"):
        create_app(table, config={"RIICHI_KEEPALIVE": 6})


def test_closed_stream_frees_its_subscription(app, client, table):
    r, it = open_stream(client)
    next(it)
    assert table.hub.subscriber_count == 1
    assert app.extensions["riichi"].stream_count == 1
    r.close()
    assert table.hub.subscriber_count == 0
    assert app.extensions["riichi"].stream_count == 0


# -- who gets a stream ----------------------------------------------------------------------

def phone(app, address):
    c = app.test_client()
    c.environ_base["REMOTE_ADDR"] = address
    return c


def test_one_address_gets_so_many_streams_then_a_429_with_a_retry_hint(table):
    app = make_app(table, RIICHI_STREAMS_PER_CLIENT=2)
    c = phone(app, "192.168.4.20")
    first, second = open_stream(c)[0], open_stream(c)[0]
    r = c.get("/stream")
    assert r.status_code == 429
    assert int(r.headers["Retry-After"]) > 0
    assert "already has 2 live views" in r.get_data(as_text=True)
    assert c.head("/stream").status_code == 429  # the page's probe says the same
    assert open_stream(phone(app, "192.168.4.21"))[0].status_code == 200  # another phone
    first.close()  # the place comes back when a stream ends
    assert c.head("/stream").status_code == 200
    assert open_stream(c)[0].status_code == 200
    second.close()


def test_a_full_server_answers_503_but_never_to_the_referee(table):
    app = make_app(table, RIICHI_MAX_STREAMS=3, RIICHI_STREAMS_PER_CLIENT=1)
    held = [open_stream(phone(app, f"10.0.0.{i}"))[0] for i in range(3)]
    r = phone(app, "10.0.0.9").get("/stream")
    assert r.status_code == 503 and int(r.headers["Retry-After"]) > 0
    assert "as many as it takes" in r.get_data(as_text=True)
    referee = phone(app, "10.0.0.0")  # an address that already holds its one stream, too
    assert login(referee).status_code == 303
    for _ in range(2):
        r, it = open_stream(referee)
        assert next_message(it)[0] == "state"
        held.append(r)
    assert app.extensions["riichi"].gate.open == 5
    for r in held:
        r.close()
    assert app.extensions["riichi"].gate.open == 0


def test_a_stream_never_started_gives_its_place_back(table):
    app = make_app(table, RIICHI_STREAMS_PER_CLIENT=1)
    c = phone(app, "192.168.4.30")
    c.get("/stream", buffered=False).close()  # closed before its first byte
    assert app.extensions["riichi"].gate.open == 0
    assert c.head("/stream").status_code == 200


def test_stream_limits_are_sized_from_memory_and_open_files():
    from web.capacity import STREAM_BYTES, size
    assert size(64, file_limit=100_000).streams == 64 * 2**20 // STREAM_BYTES
    assert size(64, max_streams=5000, file_limit=100_000).streams == 5000
    small = size(64, max_streams=5000, file_limit=1024)  # systemd's default soft limit
    assert small.streams < 5000 and small.file_descriptors <= 1024
    assert small.connections >= 2 * small.streams  # room for pages beside every stream


def test_stream_the_hub_dropped_ends_so_the_phone_reconnects(clock):
    table = LiveTable(ScriptedReferee(), hub=Hub(queue_size=3), clock=clock)
    c = make_app(table).test_client()
    r, it = open_stream(c)
    next(it)
    for i in range(10):  # the phone reads nothing meanwhile: its queue overflows
        table.hub.publish("health", {"component": "camera", "ok": True, "text": str(i), "t": 0})
    rest = list(it)  # ends by itself after what was queued
    assert len(rest) <= 3
    r.close()


def test_state_json_and_healthz(client, table, clock):
    start_hand(table, clock)
    state = client.get("/state.json").get_json()
    assert state["data"]["names"] == ["Aoi", "Ben", "Chie", "Dan"] and state["now"] == clock()
    health = client.get("/healthz").get_json()
    assert {k: health[k] for k in ("ok", "streams", "subscribers", "streams_per_client")} == {
        "ok": True, "streams": 0, "subscribers": 0, "streams_per_client": 4}
    assert health["max_streams"] >= 100


def test_stream_serialises_the_real_cores_snapshot(clock):
    from referee.core import Referee

    table = LiveTable(Referee(), clock=clock)
    start_hand(table, clock)
    table.submit({"type": "discard", "t": clock(), "seat": 0, "tile": "0p", "riichi": True})
    r, it = open_stream(make_app(table).test_client())
    kind, msg = next_message(it)
    pond = msg["data"]["seats"][0]["pond"]
    assert pond[0]["tile"] == "0p" and pond[0]["riichi"] is True
    assert msg["data"]["window"]["discard_seat"] == 0
    r.close()


# -- login, CSRF, lock-out ------------------------------------------------------------------

def test_referee_logs_in_with_the_pin(app):
    c = app.test_client()
    r = login(c)
    assert r.status_code == 303 and r.headers["Location"].endswith("/")
    assert 'data-referee="1"' in c.get("/").get_data(as_text=True)


def test_the_login_page_links_back_to_the_table_anyone_may_watch(client):
    page = client.get("/referee/login").get_data(as_text=True)
    assert '<a href="/">Back to the table</a>' in page
    assert client.get("/").status_code == 200


def test_wrong_pin_is_refused_and_counts_down(client):
    r = login(client, "0000")
    assert r.status_code == 401
    assert "Wrong PIN (4 tries left" in r.get_data(as_text=True)
    assert 'data-referee="0"' in client.get("/").get_data(as_text=True)


def test_five_wrong_pins_lock_the_phone_out_even_for_the_right_pin(app):
    c = app.test_client()
    for _ in range(4):
        assert login(c, "1111").status_code == 401
    r = login(c, "1111")
    assert r.status_code == 429 and "locked for 5 minutes" in r.get_data(as_text=True)
    r = login(c, PIN)
    assert r.status_code == 429 and "locked" in r.get_data(as_text=True)
    assert 'data-referee="0"' in c.get("/").get_data(as_text=True)
    guard = app.extensions["riichi"].guard
    now = time.monotonic()
    guard.clock = lambda: now + 301  # the lock has run out
    assert login(c, PIN).status_code == 303


def test_lockout_is_per_phone(app):
    bad = app.test_client()
    for _ in range(5):
        login(bad, "1111")
    other = app.test_client()
    other.environ_base["REMOTE_ADDR"] = "10.0.0.9"
    assert login(other).status_code == 303


def test_no_pin_set_disables_login(table):
    c = create_app(table, pin_hash=None).test_client()
    page = c.get("/referee/login").get_data(as_text=True)
    assert "No referee PIN is set" in page and "set-pin" in page
    r = c.post("/referee/login", data={"pin": "1234", "csrf_token": csrf_of(c)})
    assert r.status_code == 503


def test_pin_file_is_read_at_each_login(tmp_path, table):
    from pathlib import Path

    from web.pin import write_pin_hash

    pin_file = tmp_path / "pin.hash"
    app = create_app(table, pin_hash=Path(pin_file))
    c = app.test_client()
    assert login(c).status_code == 503  # no file yet
    write_pin_hash(pin_file, PIN_HASH)
    assert login(c).status_code == 303


def test_post_without_or_with_a_wrong_csrf_token_is_forbidden(app, table, clock):
    c = app.test_client()
    c.get("/")
    assert c.post("/referee/login", data={"pin": PIN}).status_code == 403
    assert c.post("/referee/login", data={"pin": PIN, "csrf_token": "x" * 43}).status_code == 403
    # a logged-in referee's form without its token is refused too, and nothing is journaled
    start_hand(table, clock)
    ruling = claimed_discard(table, clock)
    ref, _ = referee_client(app)
    before = len(table.events())
    r = ref.post("/referee/override", data={"ruling_id": ruling["ruling_id"], "text": "no"})
    assert r.status_code == 403
    assert len(table.events()) == before


@pytest.mark.parametrize("action", ["override", "penalty", "undo", "note", "end_game"])
def test_spectator_actions_are_forbidden(client, table, clock, action):
    start_hand(table, clock)
    ruling = claimed_discard(table, clock)
    before = len(table.events())
    r = client.post(f"/referee/{action}", data={
        "csrf_token": csrf_of(client), "ruling_id": ruling["ruling_id"], "seat": "1",
        "penalty": "warning", "text": "spectator says so", "confirm": "yes"})
    assert r.status_code == 403
    assert len(table.events()) == before


def test_logout_ends_the_referee_session_for_good(app, table, clock):
    start_hand(table, clock)
    ref, token = referee_client(app)
    stolen = ref.get_cookie("riichi_session").value
    assert ref.post("/referee/logout", data={"csrf_token": token}).status_code == 303
    replay = app.test_client()
    replay.set_cookie("riichi_session", stolen)
    r = replay.post("/referee/note", data={"csrf_token": token, "text": "hi"})
    assert r.status_code == 403


# -- actions --------------------------------------------------------------------------------

def test_override_is_journaled_as_a_referee_event(app, table, clock):
    start_hand(table, clock)
    ruling = claimed_discard(table, clock)
    ref, token = referee_client(app)
    clock.t += 5
    r = ref.post("/referee/override", data={
        "csrf_token": token, "ruling_id": ruling["ruling_id"],
        "text": "  Seat 2 pressed   before the window; pon stands  "})
    assert r.status_code == 303
    event = table.events()[-1]
    assert event == {"type": "referee", "t": clock(), "action": "override",
                     "ruling_id": ruling["ruling_id"],
                     "text": "Seat 2 pressed before the window; pon stands"}


def test_override_of_an_unknown_ruling_is_refused(app, table, clock):
    start_hand(table, clock)
    ref, token = referee_client(app)
    before = len(table.events())
    r = ref.post("/referee/override", data={"csrf_token": token, "ruling_id": "r99",
                                            "text": "x"})
    assert r.status_code == 400 and "no ruling r99 in this game" in r.get_data(as_text=True)
    r = ref.post("/referee/override", data={"csrf_token": token, "ruling_id": "r1",
                                            "text": "   "})
    assert r.status_code == 400
    assert len(table.events()) == before


def test_penalty_names_seat_penalty_and_kind(app, table, clock):
    start_hand(table, clock)
    ref, token = referee_client(app)
    r = ref.post("/referee/penalty", data={"csrf_token": token, "seat": "3",
                                           "penalty": "chombo", "kind": "false_win",
                                           "text": "Showed a hand that is not complete"})
    assert r.status_code == 303
    event = table.events()[-1]
    assert (event["action"], event["seat"], event["penalty"], event["kind"]) == \
        ("penalty", 3, "chombo", "false_win")
    for bad in ({"seat": "4"}, {"penalty": "jail"}, {"kind": "rudeness"}):
        data = {"csrf_token": token, "seat": "1", "penalty": "warning", "text": "x", **bad}
        assert ref.post("/referee/penalty", data=data).status_code == 400


def test_undo_adds_an_event_and_deletes_nothing(app, table, clock):
    start_hand(table, clock)
    table.submit({"type": "discard", "t": clock(), "seat": 0, "tile": "1m"})
    clock.t += 4
    table.submit({"type": "discard", "t": clock(), "seat": 1, "tile": "9p"})
    ref, token = referee_client(app)
    target = ref.get("/referee/undo-target").get_json()
    assert target["text"] == "discard 9p by seat 1"
    before = table.events()
    r = ref.post("/referee/undo", data={"csrf_token": token, "target": target["key"],
                                        "text": "the camera misread"})
    assert r.status_code == 303
    after = table.events()
    assert after[:len(before)] == before and len(after) == len(before) + 1
    undo = after[-1]
    assert undo["action"] == "undo" and undo["undoes"]["seat"] == 1
    assert undo["text"] == "Undo discard 9p by seat 1: the camera misread"
    # the next undo takes back the event before it
    assert ref.get("/referee/undo-target").get_json()["text"] == "discard 1m by seat 0"


def test_undo_of_an_event_the_referee_did_not_see_is_refused(app, table, clock):
    start_hand(table, clock)
    table.submit({"type": "discard", "t": clock(), "seat": 0, "tile": "1m"})
    ref, token = referee_client(app)
    seen = ref.get("/referee/undo-target").get_json()["key"]
    clock.t += 4
    table.submit({"type": "discard", "t": clock(), "seat": 1, "tile": "9p"})
    before = len(table.events())
    r = ref.post("/referee/undo", data={"csrf_token": token, "target": seen})
    assert r.status_code == 409 and "discard 9p by seat 1" in r.get_data(as_text=True)
    assert len(table.events()) == before


def test_nothing_to_undo_at_the_start_of_a_hand(app, table, clock):
    start_hand(table, clock)
    ref, token = referee_client(app)
    assert ref.get("/referee/undo-target").get_json()["key"] is None
    assert ref.post("/referee/undo", data={"csrf_token": token}).status_code == 409


def test_note_and_end_game(app, table, clock):
    start_hand(table, clock)
    ref, token = referee_client(app)
    assert ref.post("/referee/note", data={"csrf_token": token,
                                           "text": "Seat 1 asked for a break"}).status_code == 303
    assert table.events()[-1]["action"] == "note"
    r = ref.post("/referee/end_game", data={"csrf_token": token, "text": "time limit"})
    assert r.status_code == 400  # not confirmed
    r = ref.post("/referee/end_game", data={"csrf_token": token, "text": "time limit",
                                            "confirm": "yes"})
    assert r.status_code == 303
    assert table.events()[-1]["action"] == "end_game"
    assert table.rulings()[-1]["type"] == "game_end"


def test_errors_answer_json_to_json_clients(client):
    r = client.get("/nowhere.json")
    assert r.status_code == 404 and "error" in r.get_json()


# -- downloads ------------------------------------------------------------------------------

def test_events_download_is_the_spec_format(client, table, clock):
    start_hand(table, clock)
    claimed_discard(table, clock)
    r = client.get("/download/events.jsonl")
    assert r.status_code == 200 and "attachment" in r.headers["Content-Disposition"]
    lines = r.get_data(as_text=True).splitlines()
    assert [parse_line(line, i) for i, line in enumerate(lines, 1)] == table.events()


def test_rulings_download_is_csv_with_the_referees_decisions(app, table, clock):
    start_hand(table, clock)
    ruling = claimed_discard(table, clock)
    ref, token = referee_client(app)
    ref.post("/referee/override", data={"csrf_token": token, "ruling_id": ruling["ruling_id"],
                                        "text": "=cmd|' /C calc'!A0"})
    r = app.test_client().get("/download/rulings.csv")
    assert r.mimetype == "text/csv"
    rows = list(csv.DictReader(io.StringIO(r.get_data(as_text=True))))
    assert len(rows) == 1
    row = rows[0]
    assert (row["ruling_id"], row["type"], row["tile"]) == (ruling["ruling_id"], "claim", "5m")
    assert json.loads(row["winners"]) == [{"seat": 2, "call": "pon"}]
    assert row["referee"] == "override: =cmd|' /C calc'!A0"  # begins with "o": not a formula


# -- serving --------------------------------------------------------------------------------

def test_serve_runs_streams_and_shuts_down_promptly(table):
    server = serve(make_app(table, RIICHI_STREAM_POLL=0.1), "127.0.0.1", 0)
    try:
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=2)
        sock.sendall(b"GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
        assert b"event: state" in _read_until(sock, b"event: state")
        started = time.monotonic()
    finally:
        server.shutdown()
    assert time.monotonic() - started < 2
    # the stream's own thread lets go of its subscription at its next poll (0.1 s here), which
    # may come just after shutdown returns
    freed_by = time.monotonic() + 1.0
    while table.hub.subscriber_count and time.monotonic() < freed_by:
        time.sleep(0.01)
    assert table.hub.subscriber_count == 0
    sock.close()


def test_a_phone_that_closes_its_connection_frees_its_stream_quickly(table):
    app = make_app(table, RIICHI_STREAM_POLL=0.1, RIICHI_KEEPALIVE=5.0)
    server = serve(app, "127.0.0.1", 0)
    try:
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=2)
        sock.sendall(b"GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
        _read_until(sock, b"event: state")
        assert app.extensions["riichi"].stream_count == 1
        sock.close()  # no keep-alive is due for 5 s: the closed socket alone must be noticed
        deadline = time.monotonic() + 2
        while app.extensions["riichi"].stream_count and time.monotonic() < deadline:
            time.sleep(0.05)
        assert app.extensions["riichi"].stream_count == 0
        assert table.hub.subscriber_count == 0
    finally:
        server.shutdown()


def _read_until(sock, marker: bytes) -> bytes:
    data = b""
    while marker not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data
