"""The hall's page in headless Chromium at 360x800 and 1280x800, over a board the test feeds
as the broker would (no broker, no table process): how a card reads to the head referee."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from hall.board import Board
from web import serve
from web.hall import create_hall_app
from web.pin import hash_pin

pytestmark = pytest.mark.browser

OUTPUT = Path(__file__).resolve().parent.parent / "test-output"
PIN = "2468"
PIN_HASH = hash_pin(PIN)
SIZES = [(360, 800), (1280, 800)]
NAMES = ["Aoi", "Ben", "佐藤 千恵", "Daniel Fitzgerald-Montgomery"]
CAMERA_FAULT = "no camera frame for 6 s; the seat buttons still work"
NOTE = ["This demo stages what follows on purpose; nothing is broken.",
        "t2: seat 1 calls for a referee at about 0:20; a referee answers at about 0:44",
        "t3: loses the hall's broker from about 0:28 to about 0:40, plays on and catches up",
        "t4: its camera stops from about 0:36 to about 0:52; the seat buttons still work"]


def send(board, table, kind, data):
    board.receive(f"riichi/open/{table}/{kind}", json.dumps(data).encode())


def state(scores, names=None, seq=5):
    return {"seq": seq, "rid": 0, "game": 1, "now": 100.0, "rate": 1.0, "game_t0": 0.0,
            "snapshot": {"round": {"wind": "E", "number": 3, "dealer": 2, "honba": 0,
                                   "riichi_sticks": 0}, "scores": scores, "names": names,
                         "game_over": False, "seats": []},
            "open": {"violations": [], "calls": []}, "backlog": 0}


@pytest.fixture
def fed_hall():
    board = Board("open", "Spring Open")
    send(board, "t4", "online", {"online": True})
    send(board, "t4", "state", state([34900, 11000, 34000, 20100], NAMES))
    send(board, "t4", "health", {"components": [
        {"component": "camera", "ok": False, "text": CAMERA_FAULT}]})
    send(board, "t12", "online", {"online": True})
    send(board, "t12", "state", state([25000] * 4))   # a game started without names
    app = create_hall_app(board, pin_hash=PIN_HASH, secret_key="hall-page-tests",
                          config={"RIICHI_HALL_NOTE": NOTE})
    server = serve(app, "127.0.0.1", 0)
    yield board, server
    server.shutdown()


@pytest.fixture
def hall_page(browser_pages, fed_hall):
    pages = []   # the module's, each in a context of its own (see conftest.BrowserPages)

    def opener(width, height):
        page = browser_pages.take(width, height)
        pages.append(page)
        page.goto(fed_hall[1].url + "/login")
        page.fill("#pin", PIN)
        page.click("button[type=submit]")
        page.wait_for_selector('.htile[data-table="t4"]', timeout=5000)
        page.wait_for_selector('.htile[data-table="t12"]', timeout=5000)
        return page

    yield opener
    browser_pages.give_back(pages)


LINES_OF = """(el) => {
  const r = document.createRange(); r.selectNodeContents(el);
  return new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size;
}"""


@pytest.mark.parametrize("width,height", SIZES)
def test_a_long_fault_wraps_beside_the_table_name_never_into_it(hall_page, width, height):
    page = hall_page(width, height)
    card = page.locator('.htile[data-table="t4"]')
    assert CAMERA_FAULT in card.locator(".why").inner_text()
    name = card.locator(".tname")
    assert name.inner_text() == "t4"
    assert name.evaluate(LINES_OF) == 1                 # "t4", never "t" over "4"
    box, why = card.bounding_box(), card.locator(".why").bounding_box()
    assert why["x"] + why["width"] <= box["x"] + box["width"]   # the reason stays on the card
    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / f"hall-cards-{width}x{height}.png"))


@pytest.mark.parametrize("width,height", SIZES)
def test_a_card_names_each_player_beside_their_score(hall_page, width, height):
    page = hall_page(width, height)
    card = page.locator('.htile[data-table="t4"]')
    shown = [(li.locator(".pname").inner_text(), li.locator(".pscore").inner_text())
             for li in card.locator(".players li").all()]
    assert shown == [("Aoi", "34,900"), ("Ben", "11,000"), ("佐藤 千恵", "34,000"),
                     ("Daniel Fitzgerald-Montgomery", "20,100")]
    # A long name is cut short on the card (the whole name in its title), its score kept.
    long = card.locator('.players li[data-seat="3"]')
    assert long.locator(".pname").get_attribute("title").startswith(NAMES[3])
    score, row = long.locator(".pscore").bounding_box(), card.bounding_box()
    assert score["x"] + score["width"] <= row["x"] + row["width"]
    # Without names in the game's start, the seats are named by number.
    other = page.locator('.htile[data-table="t12"] .players .pname')
    assert other.all_inner_texts() == ["Seat 0", "Seat 1", "Seat 2", "Seat 3"]


@pytest.mark.parametrize("width,height", SIZES)
def test_the_demo_note_is_on_screen_above_the_tables(hall_page, width, height):
    page = hall_page(width, height)
    note = page.locator("#hall-note")
    assert note.is_visible()
    assert note.locator("summary").inner_text() == NOTE[0]
    assert note.locator("li").all_inner_texts() == NOTE[1:]
    # above the cards, and the first card still starts on the first screen
    first = page.locator(".htile").first.bounding_box()
    assert note.bounding_box()["y"] < first["y"] < height
    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / f"hall-note-{width}x{height}.png"))
