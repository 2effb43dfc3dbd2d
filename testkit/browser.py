"""A phone on the dashboard over plain HTTP, for the tests and the streaming bench
(``bench/sse.py``): no JavaScript, one keep-alive connection from a loopback address of its
own (so the server sees one client per phone), and the few things a referee's round needs.
"""
from __future__ import annotations

import http.client
import re
import socket
import urllib.parse


class Browser:
    """A referee's phone: one keep-alive connection from its own address, a cookie jar of one.

    ``port``: the dashboard's loopback port; ``address``: the phone's own loopback address
    (127.x.y.z), so that per-client limits count it apart from the others."""

    def __init__(self, port: int, address: str):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15,
                                               source_address=(address, 0))
        self.cookie = ""

    def request(self, method: str, path: str, form: dict | None = None) -> tuple[int, str]:
        """``(status, body)`` of one request; ``form`` is sent url-encoded as a POST body."""
        headers = {"Cookie": self.cookie} if self.cookie else {}
        body = None
        if form is not None:
            body = urllib.parse.urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        self.conn.request(method, path, body=body, headers=headers)
        response = self.conn.getresponse()
        text = response.read().decode("utf-8", "replace")
        cookie = response.getheader("Set-Cookie")
        if cookie:
            self.cookie = cookie.split(";", 1)[0]
        return response.status, text

    def close(self):
        self.conn.close()


def csrf(page: str) -> str:
    """The CSRF token a dashboard page carries, to send back with a form."""
    return re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)


def free_port() -> int:
    """A loopback port free now, to serve the dashboard on."""
    return free_ports(1)[0]


def free_ports(count: int) -> list[int]:
    """``count`` different loopback ports free now. Asked one at a time, the kernel may give
    the port it just gave back again: two gunicorns of one test were told the same port, and
    plain http was sent to the https one (connection reset)."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()
