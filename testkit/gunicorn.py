"""The dashboard under gunicorn with ``web/gunicorn.conf.py``, as the systemd units run it, for
the tests and benches that need the production server: start it, wait until it answers, stop
it and read what it logged."""
from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONF = ROOT / "web" / "gunicorn.conf.py"


def start(folder: Path, env: dict, app: str = "web.wsgi:app", name: str = "gunicorn"):
    """``(process, log)``: gunicorn serving ``app`` from ``folder`` with ``env``; its stderr
    goes to ``folder/NAME.log`` (a file, not a pipe: a full pipe would block the server)."""
    log = open(folder / f"{name}.log", "w+")
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", str(CONF), app],
                            cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=log)
    return proc, log


def wait_for_port(port: int, proc, log, timeout: float = 30.0) -> None:
    """Return once the server takes connections on ``port``; AssertionError with the end of
    its log if it exits first or ``timeout`` (a failure limit) passes."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                raise AssertionError(f"gunicorn did not start: {log.read()[-2000:]}") from None
            time.sleep(0.05)  # polling the condition, not waiting out a guess


def stop(proc, log) -> str:
    """Stop the server as systemd does (SIGTERM, then SIGKILL after 15 s); what it logged."""
    return stop_all([(proc, log)])[0]


def stop_all(servers) -> list[str]:
    """Stop each ``(process, log)`` of ``servers`` as :func:`stop` does, all at once: each
    takes a second or two (gunicorn's gevent worker looks at its signal once a second, then
    once a second for its open connections); what each logged."""
    for proc, _ in servers:
        proc.send_signal(signal.SIGTERM)
    return [_stopped(proc, log) for proc, log in servers]


def _stopped(proc, log) -> str:
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    log.seek(0)
    text = log.read()
    log.close()
    return text
