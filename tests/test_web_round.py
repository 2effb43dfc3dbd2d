"""What the dashboard's server gives a page about the tournament round (issue 40): the round
clock, the penalty ledger and the places on the page that show them."""
from __future__ import annotations

from test_web import Clock, make_app

from referee.core import Referee
from table.live import LiveTable


def test_state_json_carries_the_round_clock_and_a_chombo_on_the_ledger():
    clock = Clock()
    table = LiveTable(Referee(), clock=clock)
    client = make_app(table).test_client()
    started = clock()
    table.submit({"type": "clock", "t": started, "action": "start", "seconds": 2700,
                  "source": "hall"})
    table.submit({"type": "game_start", "t": clock(), "ruleset": "wrc2015",
                  "scores": [25000] * 4, "names": ["Aoi", "Ben", "Chie", "Dan"]})
    table.submit({"type": "hand_start", "t": clock(), "round_wind": "E", "dealer": 0,
                  "honba": 0, "riichi_sticks": 0, "dora_indicators": ["3m"]})
    clock.t += 60
    (chombo, _) = table.submit({"type": "referee", "t": clock(), "action": "penalty",
                                "seat": 1, "penalty": "chombo", "text": "a false riichi"})
    state = client.get("/state.json").get_json()
    data = state["data"]
    # the page counts down from these and the table clock's `now`, never the phone's clock
    assert data["clock"] == {"started": started, "time_up_at": started + 2700,
                             "stopped": False, "time_up": False}
    assert state["now"] == clock() and data["hands_left"] is None
    assert data["penalties"] == [{"seat": 1, "points": 20000, "kind": chombo["kind"],
                                  "reason": "a false riichi", "ruling_id": chombo["ruling_id"],
                                  "applies": "after_uma"}]
    assert data["scores"] == [25000] * 4   # WRC 2015 7.1: the table's score is not changed
    page = client.get("/").get_data(as_text=True)
    assert 'id="round-clock"' in page and 'id="ledger"' in page

    table.submit({"type": "referee", "t": clock(), "action": "cancel_penalty",
                  "ruling_id": chombo["ruling_id"], "text": "the riichi was valid"})
    assert client.get("/state.json").get_json()["data"]["penalties"] == []
