"""The tournament round on the dashboard in headless Chromium, on the real rules core: a
chombo's fixed deduction is on the page the moment it is ruled (under WRC/EMA it no longer
comes off the table scores during play), the round clock counts down on the table clock, and
the round's rulings read plainly.

Screenshots at 360x800 and 1280x800 go to ``test-output/`` at the repository root.
"""
from __future__ import annotations

import re

import pytest
from test_browser_dashboard import OUTPUT, Dashboard, assert_fits, open_page  # noqa: F401

pytestmark = pytest.mark.browser

ROUND = 45 * 60   # the round's length, seconds


@pytest.fixture
def dash():
    d = Dashboard()
    yield d
    d.server.shutdown()


def wrc_game(d: Dashboard) -> None:
    """The hall starts the round's clock; a WRC game starts and its first hand is dealt."""
    d.event(type="clock", action="start", seconds=ROUND, source="hall")
    d.event(type="game_start", ruleset="wrc2015", scores=[25000] * 4,
            names=["Aoi", "Ben", "Chie", "Dan"])
    d.event(type="hand_start", round_wind="E", dealer=0, honba=0, riichi_sticks=0,
            dora_indicators=["3m"])
    for seat, tile in [(0, "1z"), (1, "9m"), (2, "2z")]:
        d.event(type="discard", seat=seat, tile=tile)
        d.close_window()


def chombo(d: Dashboard, seat: int) -> dict:
    (ruling, *_) = d.event(type="referee", action="penalty", seat=seat, penalty="chombo",
                           text="Riichi declared on a hand that was not ready.")
    assert ruling["type"] == "violation" and ruling["points"] == 20000
    return ruling


def clock_left(page) -> float:
    return float(page.get_attribute("#clock-left", "data-left"))


@pytest.mark.parametrize("width", [360, 1280])
def test_a_chombo_shows_its_deduction_and_the_round_clock_its_time_left(dash, open_page,
                                                                          width):
    wrc_game(dash)
    dash.clock.skip(12 * 60)   # twelve minutes into the round
    page = open_page(dash.url, width, 800)

    # The clock: time left from the table clock (days away from any clock the page has).
    page.wait_for_selector("#round-clock", state="visible", timeout=3000)
    truth = dash.table.snapshot()["clock"]["time_up_at"] - dash.clock()
    first = clock_left(page)
    assert first == pytest.approx(truth, abs=0.5)
    text = page.text_content("#clock-left")
    assert re.fullmatch(r"3[23]:\d\d", text), text   # 33 minutes left, as m:ss
    size = page.evaluate("parseFloat(getComputedStyle(document.getElementById('clock-left'))"
                         ".fontSize)")
    assert size >= 36   # read across the table
    # it counts down between updates, with nothing new from the table
    page.wait_for_function("(below) => parseFloat(document.getElementById('clock-left')"
                           ".dataset.left) < below", arg=first - 0.5, timeout=3000)

    # The chombo: the 20,000 is on the page at once, though the table's scores keep it out.
    ruling = chombo(dash, 1)
    rid = ruling["ruling_id"]
    entry = f'#ledger li.penalty[data-ruling="{rid}"]'
    page.wait_for_selector(entry, state="visible", timeout=2000)
    assert page.text_content(f"{entry} .pts") == "\u221220,000"
    assert page.text_content(f"{entry} .whom") == "Ben (seat 1)"
    assert page.text_content(f"{entry} .pname") == "Chombo"
    assert page.text_content(f"{entry} .applies") == "after uma"
    assert page.text_content(f"{entry} .why") == "Riichi declared on a hand that was not ready."
    assert page.text_content(f'#seat-1 .b-deduct[data-ruling="{rid}"]') == \
        "Penalty \u221220,000 after uma"
    assert page.text_content("#seat-1 .score") == "25,000"
    card = f'#rulings li.violation[data-ruling="{rid}"]'
    page.wait_for_selector(f"{card} .deduction", timeout=2000)
    assert page.text_content(f"{card} .deduction") == \
        "Deduction \u221220,000, on the ledger (after uma)"
    assert_fits(page, width)
    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / f"round-{width}x800.png"))
    if width < 600:
        page.screenshot(path=str(OUTPUT / f"round-{width}x800-full.png"), full_page=True)

    # Cancelled, it leaves the ledger and the seat.
    dash.event(type="referee", action="cancel_penalty", ruling_id=rid,
               text="The hand was ready after all.")
    page.wait_for_selector("#ledger", state="hidden", timeout=2000)
    assert page.locator("#seat-1 .b-deduct").count() == 0
    assert page.text_content(f"{card} .deduction") == "Deduction \u221220,000"


def test_time_up_the_game_end_and_the_signed_result_read_plainly(dash, open_page):
    wrc_game(dash)
    ruling = chombo(dash, 1)
    # the chombo ended the hand; it is dealt again, and time runs out while it is played
    dash.event(type="hand_start", round_wind="E", dealer=0, honba=0, riichi_sticks=0,
               dora_indicators=["5p"])
    page = open_page(dash.url, 360, 800)
    page.wait_for_selector("#round-clock", state="visible", timeout=3000)
    dash.clock.skip(dash.table.snapshot()["clock"]["time_up_at"] - dash.clock() + 0.1)
    (up,) = dash.table.tick()
    assert (up["type"], up["ends"]) == ("time_up", "after_this_hand")   # WRC 2015 8.2
    item = f'#rulings li[data-ruling="{up["ruling_id"]}"]'
    page.wait_for_selector(item, timeout=2000)
    assert page.text_content(f"{item} .rmain") == "Time up: this hand is the last"
    assert page.text_content(f"{item} .rule") == "Rule: WRC 2015 8.2"
    page.wait_for_selector("#round-clock.up", timeout=2000)
    assert page.text_content("#clock-left") == "Time up"
    assert page.text_content("#clock-label") == "Round clock"   # no time "left" to read
    assert page.text_content("#clock-note") == "this hand is the last"

    end, = [r for r in dash.event(type="referee", action="end_game", text="time")
            if r["type"] == "game_end"]
    item = f'#rulings li[data-ruling="{end["ruling_id"]}"]'
    page.wait_for_selector(item, timeout=2000)
    assert page.text_content(f"{item} .rmain") == "Game ends: ended by the referee"
    assert page.text_content(f"{item} .penalties") == (
        "Penalty \u221220,000 Ben (seat 1) (after uma): "
        "Riichi declared on a hand that was not ready.")
    assert "Final (after uma/oka and penalties): " in page.text_content(item)
    page.wait_for_function("() => document.getElementById('banner').textContent"
                           ".includes('Result to sign: 0 of 4 players')", timeout=2000)

    for seat in (2, 0, 1, 3):
        dash.event(type="sign", seat=seat)
    (result,) = dash.event(type="sign", referee=True)
    assert result["type"] == "result" and result["penalties"][0]["ruling_id"] == \
        ruling["ruling_id"]
    item = f'#rulings li[data-ruling="{result["ruling_id"]}"]'
    page.wait_for_selector(item, timeout=2000)
    text = page.text_content(item)
    assert "Result signed" in text and "Penalty \u221220,000 Ben (seat 1)" in text
    assert ("Signed by Chie (seat 2), Aoi (seat 0), Ben (seat 1), Dan (seat 3), the referee"
            in text)
    assert_fits(page, 360)
    OUTPUT.mkdir(exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(OUTPUT / "round-result-360x800-full.png"), full_page=True)
