"""The standings page in headless Chromium on a phone (360x800): the page never scrolls
sideways, the standings table does, and each player's name stays in view while it does."""
from __future__ import annotations

from pathlib import Path

import pytest

from hall.board import Board
from hall.standings import Player, Standings
from web import serve
from web.hall import create_hall_app
from web.pin import hash_pin

pytestmark = pytest.mark.browser

OUTPUT = Path(__file__).resolve().parent.parent / "test-output"
PIN = "2468"
ROUNDS = 6


def test_on_a_phone_the_table_scrolls_and_the_names_stay(browser):
    names = ["Anna Berg", "Bo Chen", "Daniel Fitzgerald-Montgomery", "佐藤 千恵"]
    roster = [Player(n, f"0401000{i}", c, *n.rpartition(" ")[::2])
              for i, (n, c) in enumerate(zip(names, ["SWE", "DEN", "IRL", "JPN"]))]
    seatings = {r: {"t1": names[r % 4:] + names[:r % 4]} for r in range(1, ROUNDS + 1)}
    standings = Standings(roster, {**seatings, ROUNDS + 1: {"t1": names, "t2": names[::-1]}})
    for r in range(1, ROUNDS + 1):
        standings.add_result("t1", r, {"final": [45.3, 5.2, -15.1, -35.4],
                                       "referee_signed": True})
    app = create_hall_app(Board("open", "Spring Open"), pin_hash=hash_pin(PIN),
                          secret_key="standings-page", standings=standings)
    server = serve(app, "127.0.0.1", 0)
    context = browser.new_context(viewport={"width": 360, "height": 800})
    try:
        page = context.new_page()
        page.goto(server.url + "/login")
        page.fill("#pin", PIN)
        page.click("button[type=submit]")
        page.click("#standings-link")                    # from the hall's page
        page.wait_for_selector("#standings")
        assert page.locator("#standings tbody tr").count() == 4
        assert page.locator("#missing").inner_text().startswith("Round 7")
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        box = page.locator(".standings-scroll")
        assert box.evaluate("(el) => el.scrollWidth > el.clientWidth")  # 8 columns on 360 px
        OUTPUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUTPUT / "standings-360x800.png"))
        row = page.locator("#standings tbody tr").first
        name, total = row.locator("th.who"), row.locator("td.total")
        assert name.inner_text().startswith("Daniel Fitzgerald")     # the leader, long name
        # on the first screen: the position, the name and the total, side by side
        assert 0 <= name.bounding_box()["x"] and \
            name.bounding_box()["x"] + name.bounding_box()["width"] <= total.bounding_box()["x"]
        assert total.bounding_box()["x"] + total.bounding_box()["width"] <= 360
        # scrolled to the last round, the position and name stay and cover none of it
        box.evaluate("(el) => { el.scrollLeft = el.scrollWidth; }")
        last = row.locator("td.num").last
        named = name.bounding_box()
        assert 0 <= named["x"] and named["x"] + named["width"] <= last.bounding_box()["x"]
        assert last.bounding_box()["x"] + last.bounding_box()["width"] <= 360
        assert row.locator("td.pos").bounding_box()["x"] >= 0
        page.screenshot(path=str(OUTPUT / "standings-360x800-scrolled.png"))
    finally:
        context.close()
        server.shutdown()
