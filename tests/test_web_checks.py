"""A check on the dashboard: the referee confirms it or corrects the camera's reading, and the
answer is journaled as a ``referee`` event the table acts on."""
from __future__ import annotations

import pytest
from test_web import PIN_HASH, Clock, csrf_of, login

from referee.core import Referee
from referee.simulate import script
from table.journal import Journal
from table.live import LiveTable
from web import create_app

CROP = "data:image/jpeg;base64,/9j/AAAA"


@pytest.fixture
def clock():
    return Clock(100.0)


@pytest.fixture
def table(tmp_path, clock):
    return LiveTable(Referee(), journal=Journal(tmp_path / "journal.sqlite"), clock=clock)


@pytest.fixture
def app(table):
    return create_app(table, pin_hash=PIN_HASH, secret_key="k",
                      config={"RIICHI_KEEPALIVE": 0.3, "RIICHI_STREAM_POLL": 0.05})


def referee(app):
    c = app.test_client()
    assert login(c).status_code == 303
    return c, csrf_of(c)


def unsure_false_group(table, clock) -> dict:
    """Seat 1 chii's seat 0's 4m; the camera reads the meld 4-5-7 (a false group) but is
    only 60% sure of the 7m."""
    for ev in script("100 gs ema2012", "100 hs 0 E 1z", "101 d0 4m", "101.5 c1 chii"):
        table.submit(ev)
    meld = {**script("104.5 m1 chii 457m 4m@0")[0], "confidence": 0.6, "unsure_tile": 2,
            "crop": CROP}
    clock.t = 104.5
    (check,) = [r for r in table.submit(meld) if r["type"] == "violation"]
    assert check["check"] and check["crop"] == CROP
    return check


def test_the_page_offers_confirm_and_correct_to_the_referee(app):
    c, _ = referee(app)
    page = c.get("/").get_data(as_text=True)
    assert "/referee/confirm" in page and "/referee/correct" in page


def test_a_correction_is_journaled_and_the_false_group_never_applied(app, table, clock):
    check = unsure_false_group(table, clock)
    c, token = referee(app)
    clock.t = 110.0
    r = c.post("/referee/correct", data={"csrf_token": token, "ruling_id": check["ruling_id"],
                                         "tile": "6m"})
    assert r.status_code == 303
    event = table.events()[-1]
    assert event == {"type": "referee", "t": 110.0, "action": "override",
                     "ruling_id": check["ruling_id"], "tile": "6m",
                     "text": "The camera misread 7m: it is 6m."}
    assert table.journal.game_events(table.journal.current_game())[-1][1] == event
    seat = table.snapshot()["seats"][1]
    assert seat["melds"][0]["tiles"] == ["4m", "5m", "6m"] and seat["dead_hand"] is False


def test_a_confirmation_applies_the_penalty(app, table, clock):
    check = unsure_false_group(table, clock)
    c, token = referee(app)
    r = c.post("/referee/confirm", data={"csrf_token": token, "ruling_id": check["ruling_id"]})
    assert r.status_code == 303
    event = table.events()[-1]
    assert (event["action"], event["ruling_id"], event["penalty"], event["kind"],
            event["seat"]) == ("penalty", check["ruling_id"], "dead_hand", "false_group", 1)
    assert table.snapshot()["seats"][1]["dead_hand"] is True


def test_only_checks_can_be_confirmed_or_corrected(app, table, clock):
    unsure_false_group(table, clock)
    c, token = referee(app)
    before = len(table.events())
    for path, data in (("/referee/confirm", {"ruling_id": "r99"}),
                       ("/referee/correct", {"ruling_id": "r1", "tile": "6m"}),
                       ("/referee/correct", {"ruling_id": "r2", "tile": "9x"})):
        assert c.post(path, data={"csrf_token": token, **data}).status_code == 400
    spectator = app.test_client()
    assert spectator.post("/referee/correct", data={"csrf_token": csrf_of(spectator),
                                                    "ruling_id": "r2", "tile": "6m"}
                          ).status_code == 403
    assert len(table.events()) == before
