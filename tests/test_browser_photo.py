"""Score a hand from a photo on a 360x800 phone, in headless Chromium: the referee sends the
real photo of a hand, taps the tile marked unsure to correct it, marks the winning tile and
tsumo, and reads han, fu and points. A screenshot goes to ``test-output/``."""
from __future__ import annotations

import pytest
from test_browser_dashboard import OUTPUT, PIN, PIN_HASH, assert_fits, open_page  # noqa: F401
from test_web_photo import hand_photo

from referee.core import Referee
from table.clock import TableClock
from table.live import LiveTable
from web import create_app, serve

pytestmark = pytest.mark.browser


def test_the_referee_corrects_a_tile_of_the_photo_and_scores_the_hand(shared_data, open_page,
                                                                      tmp_path):
    from app.photo import PhotoReader

    data, labels = hand_photo(shared_data)
    photo = tmp_path / "hand.jpg"
    photo.write_bytes(data)
    clock = TableClock()
    table = LiveTable(Referee(), clock=clock)
    table.submit({"type": "game_start", "t": clock(), "ruleset": "wrc2015",
                  "scores": [25000] * 4})
    table.submit({"type": "hand_start", "t": clock(), "round_wind": "E", "dealer": 0,
                  "honba": 1, "riichi_sticks": 1, "dora_indicators": ["1z"]})
    app = create_app(table, pin_hash=PIN_HASH, secret_key="browser-tests",
                     config={"RIICHI_TABLE_NAME": "Table 3"}, photo_reader=PhotoReader())
    server = serve(app, "127.0.0.1", 0)
    try:
        page = open_page(server.url + "/referee/login", 360, 800)
        page.fill("#pin", PIN)
        page.click("text=Log in")
        page.click("#photo-box summary")
        page.set_input_files("#photo-file", str(photo))
        page.wait_for_selector("#photo-tiles .photo-tile[data-index='13']", timeout=15000)
        read = page.eval_on_selector_all("#photo-tiles .photo-tile[data-index]",
                                         "els => els.map(e => [e.querySelector('.code')"
                                         ".textContent, e.classList.contains('unsure')])")
        assert len(read) == 14
        wrong = [i for i, (code, _) in enumerate(read) if code.rstrip("?") != labels[i]]
        assert all(read[i][1] for i in wrong)     # each misreading is shown as unsure (?)
        assert all(code.endswith("?") == unsure for code, unsure in read)
        # the referee taps each tile it got wrong and picks what it is; when it got none
        # wrong, the first unsure one is confirmed the same way
        unsure = [i for i, (_, u) in enumerate(read) if u]
        for i in wrong or unsure[:1]:
            page.click(f"#photo-tiles .photo-tile[data-index='{i}']")
            page.click(f"#photo-picker .pick[data-tile='{labels[i]}']")
            assert page.text_content(f"#photo-tiles .photo-tile[data-index='{i}'] .code") \
                == labels[i]
        page.check("input[name='photo-mode'][value='win']")
        page.click("#photo-tiles .photo-tile[data-index='13']")
        page.select_option("#photo-seat", "1")
        page.check("input[name='photo-how'][value='tsumo']")
        page.click("#photo-score")
        page.wait_for_selector("#photo-verdict", timeout=5000)
        assert page.text_content("#photo-verdict") == "11 han 20 fu: sanbaiman, 24000 points"
        assert "chinitsu 6" in page.text_content("#photo-yaku")
        assert_fits(page, 360)
        OUTPUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUTPUT / "photo-score-360x800.png"), full_page=True)
    finally:
        server.shutdown()
