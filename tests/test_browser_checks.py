"""A check in headless Chromium: the card shows what the camera saw, the referee corrects the
reading on the phone, and the page shows the tile set the camera reads with."""
from __future__ import annotations

import numpy as np
import pytest

from referee.simulate import script
from test_browser_dashboard import PIN, browser, dash, open_page, wait_visible  # noqa: F401
from vision.readings import crop_data_uri

pytestmark = pytest.mark.browser


def unsure_meld(dash) -> dict:
    dash.start()
    for ev in script("0 d0 4m", "0.5 c1 chii"):
        dash.event(**{k: v for k, v in ev.items() if k != "t"})
    dash.close_window()
    tile = np.full((70, 52, 3), 235, np.uint8)
    tile[20:50, 15:37] = (40, 40, 200)
    meld = {k: v for k, v in script("0 m1 chii 457m 4m@0")[0].items() if k != "t"}
    (check,) = [r for r in dash.event(**meld, confidence=0.6, unsure_tile=2,
                                      crop=crop_data_uri(tile)) if r["type"] == "violation"]
    return check


def test_the_referee_sees_the_crop_and_corrects_the_reading(dash, open_page):
    dash.table.set_health("tileset", True, "Hall A set, enrolled 2026-05-01T09:30:00+02:00 "
                                           "(38 tiles)")
    check = unsure_meld(dash)
    rid = check["ruling_id"]
    page = open_page(dash.url + "/referee/login")
    page.fill("#pin", PIN)
    page.click("text=Log in")
    page.wait_for_selector("#live:not(.off)", timeout=3000)
    assert "Tiles: Hall A set, enrolled 2026-05-01" in page.text_content("#health")
    card = f'#rulings li.violation.check[data-ruling="{rid}"]'
    wait_visible(page, card, 2.0)
    text = page.text_content(card)
    assert "Check · False group" in text and "If confirmed: Dead hand" in text
    assert "The camera read 7m (meld, seat 1) only 60% sure" in text
    assert page.evaluate(f"document.querySelector('{card} img.crop').naturalWidth") > 0
    page.select_option(f"{card} select[name=tile]", "6m")
    page.click(f"{card} button:has-text('Correct the reading')")
    page.wait_for_selector("text=Reading corrected to 6m", timeout=3000)
    event = dash.table.events()[-1]
    assert (event["action"], event["ruling_id"], event["tile"]) == ("override", rid, "6m")
    assert dash.table.snapshot()["seats"][1]["melds"][0]["tiles"] == ["4m", "5m", "6m"]
    wait_visible(page, f"{card}.answered", 2.0)
    assert page.locator(f"{card} .check-actions").count() == 0
