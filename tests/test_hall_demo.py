"""`riichi-referee demo --hall`: what a new user reads when it starts, and sees on the page.

The demo stages a referee call (t2), a table losing the broker (t3) and a camera fault (t4):
the start-up message and the hall's page say so, with when, so nobody takes them for faults.
"""
from __future__ import annotations

import http.cookiejar
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest
from test_demo import read_until

from app.demo import DEMO_PIN
from app.hall_demo import RECORDED, STAGED, staged_lines
from hall.mosquitto import find_mosquitto


def test_the_staged_lines_name_each_table_and_when_from_the_start():
    lines = staged_lines(["t1", "t2", "t3", "t4"], length=100.0, lead=8.0)
    assert lines == [
        "t2: seat 1 calls for a referee at about 0:23; a referee answers at about 0:53",
        "t3: loses the hall's broker from about 0:33 to about 0:48, plays on and catches up",
        "t4: its camera stops from about 0:43 to about 1:03; the seat buttons still work"]
    assert staged_lines(["t1", "t2", "t3"], length=100.0) == [  # no t4: no camera fault
        "t2: seat 1 calls for a referee at about 0:15; a referee answers at about 0:45",
        "t3: loses the hall's broker from about 0:25 to about 0:40, plays on and catches up"]
    assert staged_lines(["t1"], 100.0) == []          # a lone table: nothing staged
    assert [s[0] for s in STAGED] == [1, 2, 3]


def logged_in(url):
    """An opener holding the head referee's session on the hall at ``url``."""
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    page = opener.open(url + "/login", timeout=5).read().decode()
    token = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)
    body = urllib.parse.urlencode({"pin": DEMO_PIN, "csrf_token": token}).encode()
    assert opener.open(url + "/login", data=body, timeout=5).geturl().rstrip("/") == url
    return opener


def test_the_hall_demo_says_what_it_stages_at_start_and_on_the_page():
    if find_mosquitto() is None:
        pytest.skip("mosquitto not installed (apt-get install mosquitto)")
    proc = subprocess.Popen([sys.executable, "-m", "app", "demo", "--hall", "--no-browser",
                             "--port", "0", "--tables", "4", "--simulated", "--hands", "1",
                             "--speed", "60"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"},
                            # Ctrl-C as at a terminal, though a suite run in the background
                            # ignores SIGINT and a child inherits that
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        _, lines = read_until(proc, "t4:")
        url = next(x for x in lines if x.strip().startswith("hall:")).split()[1]
        said = "".join(lines)
        assert "on purpose, so there is something to see (nothing is broken)" in said
        for table, words in [("t2", "seat 1 calls for a referee at about "),
                             ("t3", "loses the hall's broker from about "),
                             ("t4", "its camera stops from about ")]:
            assert re.search(rf"^    {table}: {words}\d+:\d\d", said, re.M), said

        hall = logged_in(url)
        page = hall.open(url + "/", timeout=5).read().decode()
        assert "This demo stages what follows on purpose; nothing is broken." in page
        for line in (x.strip() for x in lines if re.match(r"\s+t\d: ", x)):
            assert f"<li>{line}</li>".replace("'", "&#39;") in page

        # A recorded game stands in for each table's camera and buttons: its page says so,
        # where it showed "Camera ?" and "Buttons ?" as if never heard from.
        def health(table):
            try:
                with hall.open(f"{url}/t/{table}/state.json", timeout=5) as r:
                    return {h["component"]: h for h in json.load(r)["data"]["health"]}
            except urllib.error.HTTPError as exc:
                assert exc.code == 404          # the table has not reported yet
                return {}
            except OSError:
                return None                     # the demo is over: the hall is gone

        # Without --exit-at-end the hall stays up when the games are over: the test waits for
        # t4 to say, however slowly a loaded machine lets it look, instead of racing the end.
        t4 = {}
        given_up = time.monotonic() + 60
        while "buttons" not in t4 and time.monotonic() < given_up:
            now = health("t4")
            if now is None:
                break
            t4 = now
            time.sleep(0.05)            # between looks, leave the CPU to the demo
        assert "buttons" in t4, f"t4 never said how its buttons are: {t4}"
        assert t4["buttons"]["ok"] is True and t4["buttons"]["text"] == RECORDED
        assert health("t1")["camera"]["ok"] is True
        read_until(proc, "all 4 games over", timeout=120)
        read_until(proc, "the hall stays up; Ctrl-C stops")
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            proc.wait(10)
