"""Tell systemd how the service is doing: the sd_notify protocol in a few lines.

systemd passes ``NOTIFY_SOCKET`` (a path, or ``@name`` for an abstract socket) to a unit with
``Type=notify``; each message is one datagram of ``KEY=value`` lines. Outside systemd every
call is a no-op, so the service runs the same from a terminal.
"""
from __future__ import annotations

import os
import socket


def notify(state: str, environ: dict | None = None) -> bool:
    """Send ``state`` (e.g. ``"READY=1"``, ``"WATCHDOG=1"``, ``"STATUS=..."``); True if sent."""
    env = os.environ if environ is None else environ
    address = env.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]  # abstract namespace socket
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            sock.sendall(state.encode("utf-8"))
        return True
    except OSError:
        # systemd went away or the socket is gone: the table matters more than the ping.
        return False


def watchdog_interval(environ: dict | None = None) -> float | None:
    """Seconds within which systemd expects ``WATCHDOG=1`` (``WatchdogSec``), or None."""
    env = os.environ if environ is None else environ
    usec = env.get("WATCHDOG_USEC")
    pid = env.get("WATCHDOG_PID")
    if not usec or (pid and pid.isdigit() and int(pid) != os.getpid()):
        return None
    try:
        value = int(usec)
    except ValueError:
        return None
    return value / 1e6 if value > 0 else None


class Notifier:
    """The service's side of the conversation with systemd."""

    def __init__(self, environ: dict | None = None):
        self.environ = environ

    def ready(self, status: str = "") -> bool:
        return notify("READY=1" + (f"\nSTATUS={status}" if status else ""), self.environ)

    def status(self, text: str) -> bool:
        return notify(f"STATUS={text}", self.environ)

    def watchdog(self) -> bool:
        return notify("WATCHDOG=1", self.environ)

    def stopping(self) -> bool:
        return notify("STOPPING=1", self.environ)

    @property
    def watchdog_interval(self) -> float | None:
        return watchdog_interval(self.environ)
