"""The production dashboard with a crowd watching: gunicorn with ``web/gunicorn.conf.py`` and
``web.wsgi:app`` over a table service's journal, as ``riichi-referee-web.service`` runs it.

The old setup (gthread, 40 threads) stopped answering the referee once 40 phones watched;
here more phones than that watch, and the referee still logs in and acts. Loopback only,
a fixed number of connections, every wait bounded.
"""
from __future__ import annotations

import os
import queue
import socket
import time
from pathlib import Path

import pytest

from table.clock import TableClock
from table.journal import Journal
from table.service import ResumableTable, TableService
from testkit import gunicorn
from testkit.browser import Browser, csrf, free_port
from testkit.web import ScriptedReferee
from web.pin import hash_pin, write_pin_hash

ROOT = Path(__file__).resolve().parent.parent
PIN = "5791"
OLD_THREADS = 40
PER_ADDRESS = 4  # the default streams per client address
ADDRESSES = 15   # 15 phones' addresses x 4 streams = 60 streams, more than the old threads


def open_stream(port: int, address: str, cookie: str = "") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(address, 0))
    extra = f"Cookie: {cookie}\r\n" if cookie else ""
    sock.sendall(f"GET /stream HTTP/1.1\r\nHost: table\r\nAccept: text/event-stream\r\n{extra}"
                 "\r\n".encode())
    return sock


def read_until(sock: socket.socket, marker: bytes, limit: float = 10.0) -> bytes:
    data, deadline = b"", time.monotonic() + limit
    while marker not in data:
        if time.monotonic() > deadline:
            raise AssertionError(f"no {marker!r} within {limit} s; got {data[:300]!r}")
        chunk = sock.recv(65536)
        if not chunk:
            raise AssertionError(f"closed before {marker!r}; got {data[:300]!r}")
        data += chunk
    return data


@pytest.fixture
def production(tmp_path):
    """A table service on a journal (it takes the dashboard's actions from the inbox) and
    gunicorn serving the dashboard on a free loopback port; yields the port."""
    journal = Journal(tmp_path / "journal.sqlite")
    clock = TableClock(offset=journal.clock_offset())
    table = ResumableTable(journal, ScriptedReferee, clock=clock)
    service = TableService(table, clock=clock, buttons=queue.Queue())
    service.start()
    service.submit({"type": "game_start", "t": clock(), "ruleset": "ema2012",
                    "scores": [25000] * 4}, "test")
    pin_file = tmp_path / "pin.hash"
    write_pin_hash(pin_file, hash_pin(PIN))
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RIICHI_")}
    env.update(RIICHI_JOURNAL=str(journal.path), RIICHI_PIN_HASH_FILE=str(pin_file),
               RIICHI_WEB_BIND=f"127.0.0.1:{port}",
               # The crowd and the referee on one plain-http server: this measures capacity;
               # the https-only referee is tests/test_web_tls.py's.
               RIICHI_REFEREE_HTTPS="0",
               PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""))
    server, log = gunicorn.start(tmp_path, env)
    try:
        gunicorn.wait_for_port(port, server, log)
        yield port, journal
    finally:
        text = gunicorn.stop(server, log)
        service.stop()
        journal.close()
    assert "Traceback" not in text, text


def test_more_phones_than_the_old_threads_and_the_referee_still_logs_in_and_acts(production):
    port, journal = production
    streams = []
    try:
        for i in range(ADDRESSES * PER_ADDRESS):
            streams.append(open_stream(port, f"127.3.0.{i // PER_ADDRESS + 1}"))
        for sock in streams:
            read_until(sock, b"event: state")
        assert len(streams) > OLD_THREADS

        # One phone more from an address that has its four: refused, with a retry hint.
        extra = open_stream(port, "127.3.0.1")
        head = read_until(extra, b"\r\n\r\n").split(b"\r\n\r\n")[0].decode()
        extra.close()
        assert head.startswith("HTTP/1.1 429")
        assert "retry-after:" in head.lower()

        # The referee, from that same address: login page, PIN, table page, a note.
        started = time.monotonic()
        referee = Browser(port, "127.3.0.1")
        status, page = referee.request("GET", "/referee/login")
        assert status == 200
        status, _ = referee.request("POST", "/referee/login",
                                    {"pin": PIN, "csrf_token": csrf(page)})
        assert status == 303
        status, page = referee.request("GET", "/")
        assert status == 200 and 'data-referee="1"' in page
        status, _ = referee.request("POST", "/referee/note", {
            "text": "Seat 2 asked for a ruling", "csrf_token": csrf(page)})
        assert status == 303
        took = time.monotonic() - started
        # The old setup did not answer the login page within 15 s; scrypt and two inbox
        # polls take well under a second, even on a busy two-core machine.
        assert took < 5.0, f"the referee's login and note took {took:.1f} s"

        # The note is journaled, judged, and reaches the phones watching.
        notes = [e for _, e in journal.game_events()
                 if e["type"] == "referee" and e.get("action") == "note"]
        assert [n["text"] for n in notes] == ["Seat 2 asked for a ruling"]
        read_until(streams[-1], "Seat 2 asked for a ruling".encode())

        # The referee's own live view is never refused, over the address's limit or not.
        own = open_stream(port, "127.3.0.1", referee.cookie)
        streams.append(own)
        read_until(own, b"event: state")
        referee.close()
    finally:
        for sock in streams:
            sock.close()
