"""The referee's phone at the end of a round (issue 40 parts 1 and 3, the table's side): the
round clock started, extended and stopped at a table without a hall, a penalty cancelled,
the score sheet countersigned; every one journaled before it is acted on, and every refusal
one plain line."""
from __future__ import annotations

import html
import re

import pytest
from test_web import Clock, make_app, referee_client

from referee.core import Referee
from table.live import LiveTable

NAMES = ["Aoi", "Ben", "Chie", "Dan"]


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def table(clock):
    return LiveTable(Referee(), clock=clock)


@pytest.fixture
def ref(table):
    return referee_client(make_app(table))


def game(table, clock):
    table.submit({"type": "game_start", "t": clock(), "ruleset": "wrc2015",
                  "scores": [45000, 36000, 24000, 15000], "names": NAMES})
    table.submit({"type": "hand_start", "t": clock(), "round_wind": "E", "dealer": 0,
                  "honba": 0, "riichi_sticks": 0, "dora_indicators": ["3m"]})


def refusal(response) -> str:
    """The one line a refused action says (the error page's description)."""
    text = response.get_data(as_text=True)
    return html.unescape(re.search(r'<p class="message" role="alert">(.*?)</p>', text,
                                   re.S).group(1).strip())


def test_the_referee_starts_extends_and_stops_the_round_clock_journaled_as_clock_events(
        table, clock, ref):
    client, token = ref
    game(table, clock)
    r = client.post("/referee/clock", data={"csrf_token": token, "action": "start",
                                            "minutes": "90"})
    assert r.status_code == 303
    assert table.events()[-1] == {"type": "clock", "t": clock(), "action": "start",
                                  "seconds": 5400.0, "source": "referee"}
    started = clock()
    clock.t += 600
    client.post("/referee/clock", data={"csrf_token": token, "action": "extend",
                                        "minutes": "2,5"})
    assert table.events()[-1]["seconds"] == 150.0
    assert table.snapshot()["clock"]["time_up_at"] == started + 5400 + 150
    client.post("/referee/clock", data={"csrf_token": token, "action": "stop"})
    assert (table.events()[-1]["action"], table.snapshot()["clock"]["stopped"]) == ("stop", True)
    # the page has the controls
    page = client.get("/").get_data(as_text=True)
    assert 'action="/referee/clock"' in page and 'value="extend"' in page


@pytest.mark.parametrize("form, running, code, line", [
    ({"action": "start", "minutes": ""}, False, 400,
     "Give the round's length in minutes, a number above 0 and at most 600 (not '')."),
    ({"action": "start", "minutes": "nan"}, False, 400,
     "Give the round's length in minutes, a number above 0 and at most 600 "
     "(not 'nan')."),
    ({"action": "extend", "minutes": "-5"}, True, 400,
     "Give the extra time in minutes, a number above 0 and at most 120 (not '-5')."),
    ({"action": "start", "minutes": "90"}, True, 409,
     "The round clock already runs (89:00 left): give extra time, or stop it before starting "
     "another round."),
    ({"action": "extend", "minutes": "5"}, False, 409,
     "No round clock runs at this table (not started, stopped, or its time is up): there is "
     "nothing to extend."),
    ({"action": "stop"}, False, 409,
     "No round clock runs at this table (not started, stopped, or its time is up): there is "
     "nothing to stop."),
    ({"action": "pause"}, True, 400,
     "Choose what to do with the round clock: start, extend or stop."),
])
def test_a_clock_action_that_cannot_be_done_says_why_and_journals_nothing(
        table, clock, ref, form, running, code, line):
    client, token = ref
    game(table, clock)
    if running:
        table.submit({"type": "clock", "t": clock(), "action": "start", "seconds": 5400,
                      "source": "hall"})
        clock.t += 60
    before = table.events()
    r = client.post("/referee/clock", data={"csrf_token": token, **form})
    assert r.status_code == code
    assert refusal(r) == line
    assert table.events() == before


def test_a_spectator_cannot_touch_the_clock_or_sign(table, clock):
    from test_web import csrf_of
    client = make_app(table).test_client()
    token = csrf_of(client)
    game(table, clock)
    for url, data in (("/referee/clock", {"action": "start", "minutes": "90"}),
                      ("/referee/countersign", {}), ("/referee/cancel_penalty", {})):
        assert client.post(url, data={"csrf_token": token, **data}).status_code == 403
    assert [e["type"] for e in table.events()] == ["game_start", "hand_start"]


def test_the_referee_countersigns_only_after_game_end_and_once(table, clock, ref):
    client, token = ref
    game(table, clock)
    r = client.post("/referee/countersign", data={"csrf_token": token})
    assert r.status_code == 409
    assert refusal(r) == ("The game has not ended: the referee countersigns the score sheet "
                          "after the game ends.")
    table.submit({"type": "referee", "t": clock(), "action": "end_game", "text": "time"})
    for seat in (0, 1, 2, 3):
        table.submit({"type": "sign", "t": clock(), "seat": seat})
    assert client.get("/").status_code == 200
    r = client.post("/referee/countersign", data={"csrf_token": token})
    assert r.status_code == 303
    assert table.events()[-1] == {"type": "sign", "t": clock(), "referee": True,
                                  "source": "referee"}
    assert table.rulings()[-1]["type"] == "result"
    r = client.post("/referee/countersign", data={"csrf_token": token})
    assert (r.status_code, refusal(r)) == (409, "The result is already final: there is nothing "
                                                "to sign.")
    assert [e["type"] for e in table.events()].count("sign") == 5


def test_a_second_countersignature_is_refused_before_the_players_have_all_signed(
        table, clock, ref):
    client, token = ref
    game(table, clock)
    table.submit({"type": "referee", "t": clock(), "action": "end_game", "text": "time"})
    assert client.post("/referee/countersign", data={"csrf_token": token}).status_code == 303
    r = client.post("/referee/countersign", data={"csrf_token": token})
    assert (r.status_code, refusal(r)) == (409, "You have already countersigned this sheet: a "
                                                "signature counts once.")


def test_a_dispute_settled_by_cancelling_a_penalty_clears_the_signatures(table, clock, ref):
    client, token = ref
    game(table, clock)
    (chombo, *_) = table.submit({"type": "referee", "t": clock(), "action": "penalty",
                                 "seat": 3, "penalty": "chombo", "text": "false riichi"})
    table.submit({"type": "referee", "t": clock(), "action": "end_game", "text": "time"})
    for seat in (0, 1, 2):
        table.submit({"type": "sign", "t": clock(), "seat": seat})
    state = client.get("/state.json").get_json()["data"]
    assert state["sheet"]["status"] == "waiting_for_referee"
    r = client.post("/referee/cancel_penalty", data={"csrf_token": token, "ruling_id": "r99",
                                                     "text": "x"})
    assert (r.status_code, refusal(r)) == (400, "There is no penalty r99 standing on this "
                                                "game's ledger.")
    r = client.post("/referee/cancel_penalty", data={"csrf_token": token,
                                                     "ruling_id": chombo["ruling_id"],
                                                     "text": ""})
    assert r.status_code == 400      # why it was cancelled is journaled: it must be said
    r = client.post("/referee/cancel_penalty", data={"csrf_token": token,
                                                     "ruling_id": chombo["ruling_id"],
                                                     "text": "the hand was ready"})
    assert r.status_code == 303
    assert table.events()[-1]["action"] == "cancel_penalty"
    sheet = client.get("/state.json").get_json()["data"]["sheet"]
    assert (sheet["status"], sheet["signatures"], sheet["penalties"]) == ("signing", [], [])


def test_undo_names_a_signature_and_never_takes_back_the_clock_carried_into_a_game():
    from web.actions import describe, undo_target
    assert describe({"type": "sign", "t": 1, "seat": 2}) == "the signature of seat 2"
    assert describe({"type": "sign", "t": 1, "referee": True}) == \
        "the referee's countersignature"
    assert describe({"type": "clock", "t": 1, "action": "extend", "seconds": 300}) == \
        "round clock extend (5:00)"
    start = {"type": "game_start", "t": 1, "ruleset": "wrc2015", "scores": [30000] * 4}
    carried = {"type": "clock", "t": 1, "action": "start", "seconds": 600, "carried": True}
    assert undo_target([start, carried]) is None
    signed = {"type": "sign", "t": 9, "seat": 1}
    assert undo_target([start, carried, signed]) == (2, signed)
