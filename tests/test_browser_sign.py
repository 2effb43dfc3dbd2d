"""The score sheet signed at the table, on the dashboard in headless Chromium at 360x800 (a
referee's phone), on the real rules core: the referee starts the round clock, a signature
before the game's end is ignored with a line saying why, the sheet shows who signed, a
dispute is settled by cancelling a penalty (everyone signs again), and the referee
countersigns last.

Screenshots go to ``test-output/`` at the repository root.
"""
from __future__ import annotations

import pytest
from test_browser_dashboard import OUTPUT, PIN, Dashboard, assert_fits, open_page  # noqa: F401

pytestmark = pytest.mark.browser


@pytest.fixture
def dash():
    d = Dashboard()
    yield d
    d.server.shutdown()


def text_is(page, selector, text, timeout=3000):
    page.wait_for_function("([s, t]) => (document.querySelector(s) || {}).textContent === t",
                           arg=[selector, text], timeout=timeout)


def test_the_referee_sees_the_sheet_signed_settles_a_dispute_and_countersigns(dash, open_page):
    dash.event(type="game_start", ruleset="wrc2015", scores=[45000, 36000, 24000, 15000],
               names=["Aoi", "Ben", "Chie", "Dan"])
    dash.event(type="hand_start", round_wind="E", dealer=0, honba=0, riichi_sticks=0,
               dora_indicators=["3m"])
    page = open_page(dash.url + "/referee/login", 360, 800)
    page.fill("#pin", PIN)
    page.click("text=Log in")
    page.wait_for_selector("#referee", timeout=3000)

    # No hall at this table: the referee starts the round's clock from the phone.
    page.click("#clock-box summary")
    page.fill("#clock-box input[name=minutes]", "90")
    page.click("#clock-box button[value=start]")
    page.wait_for_selector("#round-clock", state="visible", timeout=3000)
    assert dash.table.events()[-1]["source"] == "referee"

    # Dan's chombo; Ben holds his ron button before the game is over: nothing, and why.
    (chombo, *_) = dash.event(type="referee", action="penalty", seat=3, penalty="chombo",
                              text="Riichi on a hand that was not ready.")
    dash.event(type="sign", seat=1)
    text_is(page, "#sign-note", "Ben (seat 1)'s signature was ignored: the game has not ended, "
                                "and the score sheet is signed after it ends.")
    assert page.is_hidden("#sheet")

    dash.event(type="referee", action="end_game", text="time")
    page.wait_for_selector("#sheet", state="visible", timeout=3000)
    assert page.is_hidden("#sign-note")
    row = '#sheet-rows tr[data-seat="3"]'
    assert [page.text_content(f"{row} {c}") for c in (".player", ".score", ".uma", ".ded",
                                                       ".final", ".sig")] == \
        ["Dan seat 3", "15,000", "\u221215.0", "\u221220,000 after uma", "\u221250.0",
         "\u2014"]
    text_is(page, "#sheet-line", "0 of 4 players have signed: to sign, hold your ron button "
                                 "for two seconds.")

    # Three sign; Dan disputes his chombo and does not: the table waits for a referee.
    for seat in (0, 1, 2):
        dash.event(type="sign", seat=seat)
    text_is(page, "#sheet-line", "Dan (seat 3) has not signed: waiting for a referee to settle "
                                 "the sheet.")
    assert page.text_content('#sheet-rows tr[data-seat="1"] .sig') == "Signed"
    assert "Waiting for a referee" in page.text_content("#banner")
    assert_fits(page, 360)
    OUTPUT.mkdir(exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(OUTPUT / "sheet-dispute-360x800.png"))

    # The referee finds the hand was ready and cancels the chombo: the sheet they signed no
    # longer stands, so everyone signs again.
    page.click("#cancel-box summary")
    page.select_option("#cancel-which", chombo["ruling_id"])
    page.fill("#cancel-box textarea[name=text]", "The hand was ready after all.")
    page.click("#cancel-box button[type=submit]")
    text_is(page, "#sheet-line", "0 of 4 players have signed: to sign, hold your ron button "
                                 "for two seconds.")
    assert page.text_content(f"{row} .final") == "\u221230.0"
    for seat in (3, 2, 1, 0):
        dash.event(type="sign", seat=seat)
    text_is(page, "#sheet-line", "All four players have signed: waiting for the referee to "
                                 "countersign.")
    page.click("#countersign button")
    text_is(page, "#sheet-line", "The result is final: signed by the four players and the "
                                 "referee.")
    assert page.is_hidden("#countersign")
    (result,) = [r for r in dash.table.rulings() if r["type"] == "result"]
    assert result["signatures"] == [3, 2, 1, 0] and result["penalties"] == []
    assert_fits(page, 360)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(OUTPUT / "sheet-final-360x800-full.png"), full_page=True)
