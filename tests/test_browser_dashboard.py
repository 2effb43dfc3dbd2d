"""The dashboard in headless Chromium, on the real rules core: what a referee's phone shows.

Screenshots at 360x800 (a phone held upright) and 1280x800 go to ``test-output/`` at the
repository root on every run.
"""
from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from referee.core import Referee
from referee.simulate import script
from table.clock import monotonic
from table.live import LiveTable
from web import create_app, serve
from web.pin import hash_pin

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "test-output"
PIN = "8642"
PIN_HASH = hash_pin(PIN)


class TableClock:
    """The table clock: monotonic, far from any other clock (so a page that used its own
    would show nonsense), and able to jump ahead or stand still for the test."""

    def __init__(self, speed: float = 1.0):
        self.speed = speed  # table seconds per real second, as a sped-up demo's clock
        self.origin = monotonic()
        self.offset = 86_400.0 * 3
        self.frozen: float | None = None
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            if self.frozen is not None:
                return self.frozen
            return self.origin + self.offset + (monotonic() - self.origin) * self.speed

    def skip(self, seconds: float) -> None:
        with self._lock:
            if self.frozen is not None:
                self.frozen += seconds
            else:
                self.offset += seconds

    def freeze(self) -> None:
        self.frozen = self()


class Dashboard:
    def __init__(self, speed: float = 1.0):
        self.clock = TableClock(speed)
        self.table = LiveTable(Referee(), clock=self.clock)
        self.app = create_app(self.table, pin_hash=PIN_HASH, secret_key="browser-tests",
                              config={"RIICHI_TABLE_NAME": "Table 3"})
        self.server = serve(self.app, "127.0.0.1", 0)
        self.url = self.server.url

    def event(self, **event):
        event.setdefault("t", self.clock())
        return self.table.submit(event)

    def close_window(self) -> list[dict]:
        """Let the claim window run out on the table clock and have the table notice."""
        self.clock.skip(self.table.snapshot()["claim_window"] + 0.05)
        return self.table.tick()

    def start(self, names=("Aoi", "Ben", "Chie", "Dan")):
        self.event(type="game_start", ruleset="ema2012", scores=[25000] * 4, names=list(names))
        self.event(type="hand_start", round_wind="E", dealer=0, honba=1, riichi_sticks=0,
                   dora_indicators=["3m"])


@pytest.fixture
def dash(request):
    d = Dashboard(getattr(request, "param", 1.0))
    yield d
    d.server.shutdown()


@pytest.fixture
def open_page(browser_pages):
    """``open_page(url, width, height)``: a page, in a context of its own with no cookies, at
    ``url``, its live view connected. Pages are the module's (see conftest.BrowserPages)."""
    pages = []

    def opener(url, width=390, height=844):
        page = browser_pages.take(width, height)
        pages.append(page)
        page.goto(url)
        if page.locator("#live").count():
            page.wait_for_selector("#live:not(.off)", timeout=5000)
        return page

    yield opener
    browser_pages.give_back(pages)


def wait_visible(page, selector, within: float):
    """Wait for ``selector``; return how long it took (fails past ``within`` seconds)."""
    started = time.monotonic()
    page.wait_for_selector(selector, state="visible", timeout=within * 1000)
    return time.monotonic() - started


# -- live ---------------------------------------------------------------------------------

def test_a_discard_and_a_claim_appear_within_a_second(dash, open_page):
    dash.start()
    page = open_page(dash.url)
    dash.clock.freeze()  # table time moves only when the test says, for exact offsets
    dash.event(type="discard", seat=0, tile="6s")
    assert wait_visible(page, '#seat-0 .pond .tile[data-tile="6s"].last', 1.0) < 1.0
    dash.clock.skip(0.7)
    dash.event(type="call", seat=1, call="chii")
    assert wait_visible(page, '#w-presses li[data-seat="1"][data-call="chii"]', 1.0) < 1.0
    assert "+0.70 s" in page.text_content('#w-presses li[data-seat="1"]')

    (ruling,) = dash.close_window()  # the core decides the claim
    assert ruling["type"] == "claim" and ruling["winners"] == [{"seat": 1, "call": "chii"}]
    item = f'#rulings li[data-ruling="{ruling["ruling_id"]}"]'
    assert wait_visible(page, item, 1.0) < 1.0
    text = page.text_content(item)
    assert "Ben (seat 1) chii" in text and "from Aoi (seat 0)" in text
    assert page.text_content("#w-count") == "closed"
    assert "Ben (seat 1) chii awarded" in page.text_content("#w-result")
    page.wait_for_selector("#banner:not([hidden])", timeout=1000)
    assert page.text_content("#banner") == "Ben (seat 1) called chii on 6s: waiting for the meld"


def test_each_press_shows_its_time_after_the_discard_to_the_hundredth(dash, open_page):
    """The 3-second rule is judged to the hundredth of a second: the ruling and the event log
    say when each press came after the discard, in time or late."""
    dash.start()
    page = open_page(dash.url)
    dash.clock.freeze()
    dash.event(type="discard", seat=2, tile="4p")
    dash.clock.skip(1.37)
    dash.event(type="call", seat=3, call="chii")
    dash.clock.skip(1.46)
    dash.event(type="call", seat=0, call="pon")          # +2.83 s: in time
    dash.clock.skip(0.21)                                # +3.04 s: after the window
    ruling, late = dash.event(type="call", seat=1, call="ron")
    item = f'#rulings li[data-ruling="{ruling["ruling_id"]}"]'
    wait_visible(page, item + " .press-times", 2.0)
    assert page.text_content(item + " .press-times") == \
        "Presses: S3 chii +1.37 s · S0 pon +2.83 s"
    assert late["rejected"][0]["reason"] == "late"
    late_item = f'#rulings li[data-ruling="{late["ruling_id"]}"]'
    wait_visible(page, late_item + " .press-times", 2.0)
    assert "S1 ron +3.04 s" in page.text_content(late_item + " .press-times")
    page.wait_for_function("() => document.querySelector('#event-log').textContent"
                           ".includes('ron (+3.04 s after the discard)')", timeout=2000)
    assert "pon (+2.83 s after the discard)" in page.text_content("#event-log")


@pytest.mark.parametrize("width", [360, 1280])
def test_a_page_opened_long_after_a_claim_shows_its_presses_as_a_page_that_saw_it(
        dash, open_page, width):
    """The presses are the referee's evidence for the claim window: a phone opened (or
    reloaded) after sixty more discards shows them as the phone that was open at the time."""
    dash.start()
    dash.clock.freeze()
    live = open_page(dash.url, 390, 844)
    dash.event(type="discard", seat=0, tile="5m")
    dash.clock.skip(1.2)
    dash.event(type="call", seat=2, call="pon")
    (ruling,) = dash.close_window()
    dash.event(type="meld", seat=2, kind="pon", tiles=["5m", "5m", "5m"], called="5m",
               **{"from": 0})
    for i in range(60):   # more than the recent events either page keeps
        dash.clock.skip(0.5)
        dash.event(type="discard", seat=(2 + i) % 4, tile=["1p", "9s", "2z", "7m", "4s"][i % 5])
    wall = f'Wall {dash.table.snapshot()["wall"]}'
    item = f'#rulings li[data-ruling="{ruling["ruling_id"]}"] .press-times'
    live.wait_for_function(f"() => document.getElementById('wall').textContent === {wall!r}",
                           timeout=5000)
    wait_visible(live, item, 2.0)
    assert live.text_content(item) == "Presses: S2 pon +1.20 s"

    later = open_page(dash.url, width, 800)
    wait_visible(later, f'#rulings li[data-ruling="{ruling["ruling_id"]}"]', 2.0)
    wait_visible(later, item, 2.0)
    assert later.text_content(item) == "Presses: S2 pon +1.20 s"


def test_a_violation_card_shows_penalty_rule_and_what_was_seen(dash, open_page):
    dash.start()
    page = open_page(dash.url)
    dash.event(type="discard", seat=0, tile="8s")
    (violation,) = dash.event(type="call", seat=2, call="chii")  # chii across the table
    assert violation["kind"] == "wrong_seat_call"
    card = f'#rulings li.violation[data-ruling="{violation["ruling_id"]}"]'
    wait_visible(page, card, 1.0)
    text = page.text_content(card)
    assert violation["rule"] in text and violation["text"] in text
    assert "Call from the wrong seat" in text and "No penalty" in text
    assert "1 violation" in page.text_content("#seat-2 .badges")


@pytest.mark.parametrize("dash", [1.0, 2.0], indirect=True, ids=["real-time", "demo-2x"])
def test_the_countdown_runs_on_the_table_clock(dash, open_page):
    dash.start()
    page = open_page(dash.url)
    dash.event(type="discard", seat=0, tile="9p")
    page.wait_for_selector("#window.open", timeout=1000)
    deadline = dash.table.snapshot()["window"]["deadline"]

    def reading():
        left = float(page.get_attribute("#w-count", "data-left"))
        return left, deadline - dash.clock()

    first, truth = reading()
    # The table clock is days away from any clock the page has: only the server's `now`
    # can give the right remaining time.
    assert first == pytest.approx(truth, abs=0.25)
    scale1 = page.evaluate("getComputedStyle(document.getElementById('w-fill')).transform")
    time.sleep(0.5 / dash.clock.speed)  # half a second of table time
    second, truth = reading()
    assert second == pytest.approx(truth, abs=0.25)
    assert 0.3 < first - second < 0.8
    scale2 = page.evaluate("getComputedStyle(document.getElementById('w-fill')).transform")
    assert scale1 != scale2  # the bar shrinks with it
    dash.close_window()
    page.wait_for_selector("#window.closed", timeout=1000)
    assert page.text_content("#w-result") == "Window closed: no claim."


def test_a_phone_over_its_stream_limit_is_told_why_and_gets_in_once_a_place_frees(
        browser, open_page, monkeypatch):
    monkeypatch.setattr("web.capacity.RETRY_PER_CLIENT", 1)  # seconds: a short test
    d = Dashboard()
    d.app.extensions["riichi"].gate.per_client = 1
    try:
        d.start()
        first = open_page(d.url)  # the one stream this address may hold
        context = browser.new_context(viewport={"width": 390, "height": 844})
        second = context.new_page()
        second.goto(d.url)
        second.wait_for_selector("#live.refused", timeout=5000)
        assert second.text_content("#live").startswith(
            "Too many live views from this phone or network: retrying in 1 s")
        first.close()
        second.wait_for_selector("#live:not(.off)", timeout=5000)
        d.event(type="discard", seat=0, tile="6s")
        wait_visible(second, '#seat-0 .pond .tile[data-tile="6s"]', 2.0)
        context.close()
    finally:
        d.server.shutdown()


# -- the referee and the spectator ----------------------------------------------------------

def claim_ruling(dash) -> dict:
    dash.start()
    dash.event(type="discard", seat=0, tile="5m")
    dash.clock.skip(0.4)
    dash.event(type="call", seat=2, call="pon")
    (ruling,) = dash.close_window()
    return ruling


def test_a_referee_logs_in_and_overrides_a_ruling(dash, open_page):
    ruling = claim_ruling(dash)
    rid = ruling["ruling_id"]
    page = open_page(dash.url + "/referee/login")
    page.fill("#pin", PIN)
    page.click("text=Log in")
    page.wait_for_selector("text=Logged in as referee.", timeout=3000)
    page.wait_for_selector("#live:not(.off)", timeout=3000)
    item = f'#rulings li[data-ruling="{rid}"]'
    page.click(f"{item} details.override-box summary")
    page.fill(f"{item} textarea[name=text]", "Seat 2 pressed after the window: no pon")
    page.click(f"{item} button:has-text('Override {rid}')")
    page.wait_for_selector("text=Ruling " + rid + " overridden.", timeout=3000)
    event = dash.table.events()[-1]
    assert {k: event[k] for k in ("type", "action", "ruling_id", "text")} == {
        "type": "referee", "action": "override", "ruling_id": rid,
        "text": "Seat 2 pressed after the window: no pon"}
    assert dash.table.snapshot()["overrides"][0]["ruling_id"] == rid  # the core took it
    wait_visible(page, f"{item}.is-overridden .overridden", 1.0)
    assert "no pon" in page.text_content(f"{item} .overridden")


def test_a_spectator_cannot_act_nor_can_a_form_without_its_token(dash, open_page):
    ruling = claim_ruling(dash)
    form = {"ruling_id": ruling["ruling_id"], "text": "I say so"}
    spectator = open_page(dash.url)
    assert spectator.locator(".override-box").count() == 0
    assert spectator.locator("#referee").count() == 0
    token = spectator.get_attribute('meta[name="csrf-token"]', "content")
    r = spectator.request.post(dash.url + "/referee/override",
                               form={**form, "csrf_token": token})
    assert r.status == 403
    referee = open_page(dash.url + "/referee/login")
    referee.fill("#pin", PIN)
    referee.click("text=Log in")
    referee.wait_for_selector("#referee", timeout=3000)
    r = referee.request.post(dash.url + "/referee/override", form=form)  # no token
    assert r.status == 403
    assert [e["type"] for e in dash.table.events()].count("referee") == 0


# -- how it looks ---------------------------------------------------------------------------

JAPANESE_NAMES = ("佐藤 あおい", "鈴木 ケン", "高橋 千恵", "渡辺 大輔")


def busy_table(dash) -> None:
    """A hand in progress on the real core, players with Japanese names: ponds with a riichi,
    a called tile and a pon, claim rulings, two violation cards, health reports, and a window
    open with two presses."""
    d = dash
    d.start(JAPANESE_NAMES)
    for seat, tile in [(0, "1z"), (1, "9m"), (2, "2z"), (3, "7z"), (0, "1p")]:
        d.event(type="discard", seat=seat, tile=tile)
        d.close_window()
    d.event(type="discard", seat=1, tile="5p")
    d.clock.skip(0.6)
    d.event(type="call", seat=2, call="pon")
    d.clock.skip(0.3)
    d.event(type="call", seat=3, call="chii")
    d.close_window()
    d.event(type="meld", seat=2, kind="pon", tiles=["0p", "5p", "5p"], called="5p",
            **{"from": 1})
    d.event(type="discard", seat=2, tile="8s")
    d.close_window()
    for seat, tile, riichi in [(3, "4z", False), (0, "0s", False), (1, "3z", True),
                               (2, "6m", False), (3, "2m", False), (0, "9s", False),
                               (1, "7p", False), (2, "1s", False)]:
        d.event(type="discard", seat=seat, tile=tile, riichi=riichi)
        d.close_window()
    d.event(type="referee", action="penalty", seat=3, penalty="warning", kind="procedure",
            text="Seat 3 keeps pressing chii on discards from across the table.")
    d.table.set_health("camera", True, "30 fps")
    d.table.set_health("buttons", False, "seat 3 button not answering")
    d.clock.freeze()  # the window below stays open for the screenshots
    d.event(type="discard", seat=3, tile="6p")
    d.clock.skip(0.45)
    d.event(type="call", seat=0, call="chii")
    d.clock.skip(0.8)
    d.event(type="call", seat=2, call="pon")


def fonts_drawing(page, selector: str) -> dict[str, int]:
    """The fonts Chromium drew ``selector``'s text with: family name -> glyphs drawn."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument")["root"]["nodeId"]
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    finally:
        cdp.detach()
    return {f["familyName"]: f["glyphCount"] for f in fonts}


def assert_names_drawn(page) -> None:
    """Every player's name is on the page and its kana and kanji are drawn by a Japanese
    font, not as empty boxes (Debian: fonts-noto-cjk)."""
    for seat, name in enumerate(JAPANESE_NAMES):
        selector = f"#seat-{seat} .name"
        assert page.text_content(selector).startswith(name)
        fonts = fonts_drawing(page, selector)
        japanese = sum(n for family, n in fonts.items() if "JP" in family or "Japan" in family)
        wide = sum(1 for ch in name if ord(ch) > 0x2E80)  # kana and kanji
        assert japanese >= wide, f"seat {seat}: {name!r} drawn with {fonts}"
    # A phone with several CJK fonts (Chinese ones too) takes the first the page names: a
    # Japanese one comes before any other, so kanji names take their Japanese forms.
    stack = [f.strip().strip('"') for f in page.evaluate(
        "getComputedStyle(document.querySelector('#seat-0 .name')).fontFamily").split(",")]
    cjk = [f for f in stack if any(k in f for k in ("CJK", "Hiragino", "Gothic", "YaHei"))]
    assert cjk and ("JP" in cjk[0] or "Hiragino" in cjk[0]), stack


def assert_fits(page, width: int) -> None:
    overflow = page.evaluate("""(width) => {
        const out = [];
        for (const el of document.querySelectorAll('body *')) {
            const r = el.getBoundingClientRect();
            if (r.width && (r.right > width + 0.5 || r.left < -0.5)) out.push(el.tagName + '.' + el.className);
        }
        return {out, scroll: document.documentElement.scrollWidth};
    }""", width)
    assert overflow["scroll"] <= width, "the page scrolls sideways"
    assert overflow["out"] == [], "elements stick out of the screen"


@pytest.mark.parametrize("width,height", [(360, 800), (1280, 800)])
def test_screenshots_phone_and_desktop(dash, open_page, width, height):
    busy_table(dash)
    OUTPUT.mkdir(exist_ok=True)
    page = open_page(dash.url, width, height)
    page.wait_for_selector("#rulings li.violation", timeout=3000)
    page.wait_for_selector('#w-presses li[data-seat="2"]', timeout=3000)
    page.wait_for_selector('.hb.bad[data-component="buttons"]', timeout=3000)
    assert_fits(page, width)
    assert_names_drawn(page)
    # Tiles are drawn by the page, labelled, and big enough to read at arm's length.
    red = page.locator('#seat-0 .tile[data-tile="0s"]')
    assert red.get_attribute("aria-label") == "5s red"
    riichi = page.locator('#seat-1 .side .tile[data-tile="3z"]')
    assert riichi.get_attribute("aria-label") == "3z West, sideways"
    called = page.locator('#seat-1 .tile[data-tile="5p"]')
    assert called.get_attribute("aria-label") == "5p, called"
    box = page.locator('#seat-0 .pond .tile').first.bounding_box()
    assert box["width"] >= 28 and box["height"] >= 38
    # the pon's called tile lies sideways, first: it came from the left (seat 1)
    assert page.locator("#seat-2 .meld .side").count() == 1
    assert page.locator("#seat-2 .meld > :first-child").get_attribute("class") == "side"
    # the referee's penalty is one card (the core's ruling), not a card and a duplicate entry
    assert page.locator("#rulings li.violation:has-text('referee decision')").count() == 1
    assert page.locator('#rulings li[data-action="penalty"]').count() == 0
    page.screenshot(path=str(OUTPUT / f"dashboard-{width}x{height}.png"))
    if width < 600:
        page.screenshot(path=str(OUTPUT / f"dashboard-{width}x{height}-full.png"),
                        full_page=True)


def test_referee_view_fits_a_phone(dash, open_page):
    busy_table(dash)
    OUTPUT.mkdir(exist_ok=True)
    page = open_page(dash.url + "/referee/login", 360, 800)
    page.fill("#pin", PIN)
    page.click("text=Log in")
    page.wait_for_selector("#referee", timeout=3000)
    page.wait_for_selector("#rulings li.violation", timeout=3000)
    for summary in page.locator("#referee summary").all():
        summary.click()
    page.locator("#rulings details.override-box summary").first.click()
    page.wait_for_function("() => document.getElementById('undo-what').textContent !== '…'",
                           timeout=3000)
    assert page.text_content("#undo-what") == "pon pressed by seat 2"
    assert_fits(page, 360)
    page.evaluate("window.scrollTo(0, 0)")  # the sticky claim window sits at the top
    page.screenshot(path=str(OUTPUT / "dashboard-referee-360x800-full.png"), full_page=True)


# -- a check: a violation resting on a reading the camera was not sure of --------------------

def unsure_meld(dash) -> dict:
    import numpy as np

    from vision.tracking.readings import crop_data_uri

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
