"""A Mosquitto of our own on a loopback port: for the tests, the benchmark and the hall demo
(``tls``: ``{"cafile", "certfile", "keyfile"}`` for a TLS listener).

:class:`LocalBroker` writes a hall's broker files (:mod:`hall.broker`) into a folder, runs
``mosquitto -c`` on a free port of 127.0.0.1 and can be stopped and started again on the same
port with what it persisted, as a broker restarted mid-game would be.
"""
from __future__ import annotations

import getpass
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from referee.errors import RefereeError

from .broker import write_broker_files
from .config import BrokerSettings

CANDIDATES = ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto")


def find_mosquitto() -> str | None:
    """The mosquitto binary, or None (Debian: apt-get install mosquitto)."""
    found = shutil.which("mosquitto")
    if found:
        return found
    return next((c for c in CANDIDATES if os.access(c, os.X_OK)), None)


def _die_with_parent() -> None:
    """In the child: SIGTERM when the process that started it dies (a demo or test killed
    outright must not leave its broker behind). Linux only; elsewhere nothing."""
    try:
        import ctypes
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalBroker:
    """Mosquitto for one hall in ``folder`` (users: ``hall`` and each of ``tables``)."""

    def __init__(self, folder: str | os.PathLike, hall: str, tables: list[str],
                 port: int | None = None, tls: dict | None = None):
        self.binary = find_mosquitto()
        if self.binary is None:
            raise RefereeError("mosquitto is not installed (Debian: apt-get install mosquitto)")
        self.folder = Path(folder)
        self.hall = hall
        self.port = port or free_port()
        self.folder.mkdir(parents=True, exist_ok=True)
        self.tls = tls
        self.passwords = write_broker_files(
            self.folder, hall, tables, port=self.port, host="127.0.0.1",
            run_as=getpass.getuser(), persistence=self.folder, tls=tls)
        self.proc: subprocess.Popen | None = None
        self.log = self.folder / "mosquitto.log"

    def settings(self, user: str) -> BrokerSettings:
        return BrokerSettings(host="127.0.0.1", port=self.port, username=user,
                              password=self.passwords[user], keepalive=5,
                              tls_ca=Path(self.tls["cafile"]) if self.tls else None)

    def add_table(self, name: str) -> None:
        """A user for another table (the broker reads its files again: SIGHUP)."""
        self.passwords = write_broker_files(
            self.folder, self.hall, [u for u in self.passwords if u != "hall"] + [name],
            port=self.port, host="127.0.0.1", run_as=getpass.getuser(),
            persistence=self.folder, passwords=self.passwords, tls=self.tls)
        if self.proc is not None:
            self.proc.send_signal(signal.SIGHUP)
            time.sleep(0.2)

    def start(self, timeout: float = 10.0) -> "LocalBroker":
        """Run it and wait until it listens. It is stopped when the thread that started it
        ends (so start it from the main thread): a killed demo leaves no broker behind."""
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen([self.binary, "-c", str(self.folder / "riichi-hall.conf")],
                                         stdout=log, stderr=subprocess.STDOUT,
                                         preexec_fn=_die_with_parent)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RefereeError(f"mosquitto exited at start: {self.log.read_text()[-500:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.02)
        raise RefereeError(f"mosquitto did not listen on port {self.port} in {timeout:g} s")

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def stop(self, kill: bool = False) -> None:
        """Stop it: SIGTERM (it saves what it holds, as ``systemctl stop`` does) or SIGKILL."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None

    def restart(self, down: float = 0.0) -> None:
        self.stop()
        time.sleep(down)
        self.start()

    def __enter__(self) -> "LocalBroker":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
