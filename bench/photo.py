"""How long the referee waits for a photo of a hand to be read, and what the dashboard's other
requests wait meanwhile.

gunicorn with ``web/gunicorn.conf.py`` and ``app.wsgi:app`` (the referee's dashboard, as
``riichi-referee-web-tls.service`` runs it, here over plain HTTP on loopback) over a table
service's journal. The referee logs in and sends the real photo of a hand (Camerash 6-1.png,
two rows of seven souzu, as the page sends it) and a phone's full-size photo (4032x3024 JPEG:
that hand on a felt, as a phone without the page's shrinking would send it), each ``--reads``
times, while a spectator's phone asks ``/healthz`` every 20 ms. Then the hand is scored.

Prints and writes ``bench/results/photo.json``: ``read_ms`` (p50, max) of each photo,
``score_ms`` (p50), ``healthz_ms`` (p50, p95, max) with no photo and while photos are read, and
the worker's resident memory before the first photo and after (``worker_rss_mb``).

    python bench/photo.py [--reads 5]
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import queue
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import cv2  # noqa: E402
import numpy as np  # noqa: E402
from _results import write_results  # noqa: E402

from referee.core import Referee  # noqa: E402
from table.clock import TableClock  # noqa: E402
from table.journal import Journal  # noqa: E402
from table.paths import shared_data_dir  # noqa: E402
from table.service import ResumableTable, TableService  # noqa: E402
from testkit import gunicorn  # noqa: E402
from testkit.browser import Browser, csrf, free_port  # noqa: E402
from web.pin import hash_pin, write_pin_hash  # noqa: E402

PIN = "3141"


def hand_jpeg(shared: Path) -> tuple[bytes, bytes]:
    """The hand as the page sends it, and as a phone's full-size photo."""
    sys.path.insert(0, str(ROOT / "tests"))
    from test_web_photo import hand_photo

    small, _ = hand_photo(shared)
    crop = cv2.imdecode(np.frombuffer(small, np.uint8), cv2.IMREAD_COLOR)
    rng = np.random.default_rng(3)
    phone = np.clip(rng.normal((60, 110, 40), 10, (3024, 4032, 3)), 0, 255).astype(np.uint8)
    big = cv2.resize(crop, None, fx=5, fy=5, interpolation=cv2.INTER_CUBIC)
    y, x = (3024 - big.shape[0]) // 2, (4032 - big.shape[1]) // 2
    phone[y:y + big.shape[0], x:x + big.shape[1]] = big
    ok, full = cv2.imencode(".jpg", phone, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return small, full.tobytes()


def multipart(field: str, name: str, data: bytes) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; "
            f"filename=\"{name}\"\r\nContent-Type: image/jpeg\r\n\r\n").encode() + data + \
        f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def post(port: int, cookie: str, token: str, path: str, body: bytes, kind: str):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    started = time.perf_counter()
    conn.request("POST", path, body=body, headers={
        "Cookie": cookie, "X-CSRF-Token": token, "Content-Type": kind,
        "Accept": "application/json"})
    response = conn.getresponse()
    data = json.loads(response.read())
    took = (time.perf_counter() - started) * 1000
    conn.close()
    if response.status != 200:
        raise SystemExit(f"{path}: {response.status} {data}")
    return data, took


def worker_rss_mb(master: int) -> float:
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            stat = (proc / "stat").read_text()
            if int(stat.rsplit(")", 1)[1].split()[1]) != master:
                continue
            for line in (proc / "status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        except (OSError, ValueError, IndexError):
            continue
    return float("nan")


class Poller(threading.Thread):
    """A spectator's phone asking /healthz every 20 ms; its answer times by phase."""

    def __init__(self, port: int):
        super().__init__(daemon=True)
        self.port, self.phase, self.times, self.stop = port, "idle", {}, threading.Event()

    def run(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        while not self.stop.is_set():
            started = time.perf_counter()
            conn.request("GET", "/healthz")
            conn.getresponse().read()
            self.times.setdefault(self.phase, []).append((time.perf_counter() - started) * 1000)
            self.stop.wait(0.02)
        conn.close()


def summary(values: list[float]) -> dict:
    values = sorted(values)
    return {"p50": round(statistics.median(values), 1),
            "p95": round(values[min(len(values) - 1, int(0.95 * len(values)))], 1),
            "max": round(values[-1], 1), "n": len(values)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reads", type=int, default=5, help="times each photo is read")
    args = parser.parse_args()
    shared = shared_data_dir()
    if shared is None:
        raise SystemExit("bench/photo.py: ../shared/data not found (set RIICHI_SHARED_DATA)")
    small, full = hand_jpeg(shared)
    tmp = Path(tempfile.mkdtemp(prefix="photo-bench-"))
    journal = Journal(tmp / "journal.sqlite")
    clock = TableClock(offset=journal.clock_offset())
    table = ResumableTable(journal, Referee, clock=clock)
    service = TableService(table, clock=clock, buttons=queue.Queue())
    service.start()
    service.submit({"type": "game_start", "t": clock(), "ruleset": "wrc2015",
                    "scores": [25000] * 4}, "bench")
    service.submit({"type": "hand_start", "t": clock(), "round_wind": "E", "dealer": 0,
                    "honba": 0, "riichi_sticks": 0, "dora_indicators": ["1z"]}, "bench")
    pin_file = tmp / "pin.hash"
    write_pin_hash(pin_file, hash_pin(PIN))
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RIICHI_")}
    env.update(RIICHI_JOURNAL=str(journal.path), RIICHI_PIN_HASH_FILE=str(pin_file),
               RIICHI_WEB_BIND=f"127.0.0.1:{port}", RIICHI_REFEREE_HTTPS="0",
               PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""))
    server, log = gunicorn.start(tmp, env, app="app.wsgi:app")
    try:
        try:
            gunicorn.wait_for_port(port, server, log, timeout=60)
        except AssertionError as e:
            raise SystemExit(str(e)) from None
        referee = Browser(port, "127.0.0.1")
        _, page = referee.request("GET", "/referee/login")
        referee.request("POST", "/referee/login", {"pin": PIN, "csrf_token": csrf(page)})
        _, page = referee.request("GET", "/")
        token = csrf(page)
        time.sleep(0.5)
        rss_before = worker_rss_mb(server.pid)
        poller = Poller(port)
        poller.start()
        time.sleep(2)
        reads = {}
        for name, data in (("page_photo", small), ("phone_photo", full)):
            body, kind = multipart("photo", f"{name}.jpg", data)
            poller.phase = "reading"
            took = []
            for _ in range(args.reads):
                read, ms = post(port, referee.cookie, token, "/referee/photo/read", body, kind)
                took.append(ms)
            poller.phase = "idle"
            time.sleep(0.5)
            reads[name] = {"bytes": len(data), "tiles": [t["tile"] for t in read["tiles"]],
                           "picture": [read["width"], read["height"]],
                           "read_ms": {"first": round(took[0]), **summary(took[1:] or took)}}
        rss_after = worker_rss_mb(server.pid)
        hand = "1s 1s 2s 2s 3s 3s 4s 4s 5s 5s 6s 6s 7s 7s".split()
        scores = []
        for _ in range(5):
            value, ms = post(port, referee.cookie, token, "/referee/photo/score",
                             json.dumps({"seat": 1, "tiles": hand, "win": 13,
                                         "tsumo": True}).encode(), "application/json")
            scores.append(ms)
        poller.stop.set()
        poller.join(5)
    finally:
        gunicorn.stop(server, log)
        service.stop()
        journal.close()
    result = {
        "reads": reads,
        "score_ms": summary(scores)["p50"],
        "scored": f"{value['han']} han {value['fu']} fu {value['points']}",
        "healthz_ms": {phase: summary(t) for phase, t in poller.times.items()},
        "worker_rss_mb": {"before_first_photo": round(rss_before, 1),
                          "after_photos": round(rss_after, 1)},
        "cpus": os.cpu_count(),
    }
    print(json.dumps(result, indent=2))
    write_results("photo", result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
