"""SSE fan-out of the dashboard under gunicorn: do 20 phones get every ruling, how fast, and
are the threads of phones that drop freed?

    python bench/sse.py [--clients 20] [--rulings 200] [--interval 0.05]

Starts the dashboard with the project's own gunicorn settings (web/gunicorn.conf.py: gthread,
one worker) on a free loopback port, with a table whose rulings come from a generator thread
inside the worker (``bench_app()``; the stand-in referee of :mod:`web.testing`, so the
figures are the dashboard's, not the rules core's). Each ruling is stamped on the shared
monotonic clock just before it enters the hub; each client stamps its arrival. Then half the
clients drop (a clean close, and a reset) and the bench times how long the server takes to
free their streams (``/healthz``). Prints the figures and writes ``bench/results/sse.json``.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


# -- inside the gunicorn worker -----------------------------------------------------------

def bench_app():
    """The dashboard on a table that emits BENCH_RULINGS violation rulings, one every
    BENCH_INTERVAL seconds, once BENCH_CLIENTS streams are open."""
    sys.path.insert(0, str(ROOT))
    from referee.live import Hub, LiveTable, monotonic
    from web import create_app
    from web.testing import ScriptedReferee

    class StampingHub(Hub):
        def publish(self, kind, data):
            if kind == "ruling":
                data["bench_sent"] = monotonic()
            return super().publish(kind, data)

    referee = ScriptedReferee()
    table = LiveTable(referee, hub=StampingHub())
    clients = int(os.environ.get("BENCH_CLIENTS", "20"))
    count = int(os.environ.get("BENCH_RULINGS", "200"))
    interval = float(os.environ.get("BENCH_INTERVAL", "0.05"))

    def emit():
        table.submit({"type": "game_start", "t": table.clock(), "ruleset": "ema2012",
                      "scores": [25000] * 4})
        table.submit({"type": "hand_start", "t": table.clock(), "round_wind": "E", "dealer": 0,
                      "honba": 0, "riichi_sticks": 0, "dora_indicators": ["3m"]})
        give_up = time.monotonic() + 60
        while table.hub.subscriber_count < clients and time.monotonic() < give_up:
            time.sleep(0.05)
        time.sleep(0.5)
        next_at = time.monotonic()
        for i in range(count):
            next_at += interval
            time.sleep(max(0.0, next_at - time.monotonic()))
            seat = i % 4
            referee.violation(seat, "late_call", "none", "bench", f"bench ruling {i}")
            table.submit({"type": "call", "t": table.clock(), "seat": seat, "call": "pon"})

    threading.Thread(target=emit, name="bench-emitter", daemon=True).start()
    return create_app(table, config={"RIICHI_TABLE_NAME": "SSE bench"})


# -- the bench ----------------------------------------------------------------------------

class Client(threading.Thread):
    """One phone: opens /stream on a raw socket and stamps every ruling's arrival.

    Each message the server yields is one HTTP chunk, so SSE lines are read as lines and the
    chunk-size lines between them are skipped. The thread itself drops the connection when
    told to (a socket closed from another thread stays open while a recv is blocked on it).
    """

    def __init__(self, port: int):
        super().__init__(daemon=True)
        self.port = port
        self.latencies: dict[str, float] = {}
        self.connected = threading.Event()
        self.error: str | None = None
        self.drop_as: str | None = None  # "close" or "reset"

    def run(self) -> None:
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=0.2)
        try:
            sock.sendall(b"GET /stream HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n")
            buf, kind = b"", None
            while True:
                if self.drop_as:
                    self._drop(sock)
                    return
                try:
                    data = sock.recv(65536)
                except socket.timeout:
                    continue
                if not data:
                    self.error = self.error or "server closed the stream"
                    return
                buf += data
                *lines, buf = buf.split(b"\n")
                for line in lines:
                    if line.startswith(b"event: "):
                        kind = line[7:].strip()
                        if kind == b"state":
                            self.connected.set()
                    elif line.startswith(b"data: ") and kind == b"ruling":
                        arrived = time.monotonic()
                        ruling = json.loads(line[6:])["data"]
                        self.latencies[ruling["ruling_id"]] = arrived - ruling["bench_sent"]
        except OSError as exc:
            self.error = str(exc)
        finally:
            sock.close()

    def _drop(self, sock: socket.socket) -> None:
        if self.drop_as == "reset":  # a browser killed: RST
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        else:  # a tab closed: FIN
            sock.shutdown(socket.SHUT_RDWR)
        sock.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def healthz(port: int) -> dict:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request("GET", "/healthz")
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


def wait_streams(port: int, target: int, limit: float) -> float | None:
    """Seconds until the server holds ``target`` streams or fewer (None: not within limit)."""
    started = time.monotonic()
    while time.monotonic() - started < limit:
        if healthz(port)["streams"] <= target:
            return time.monotonic() - started
        time.sleep(0.05)
    return None


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main(argv=None) -> int:
    from _results import write_results  # bench/ is on sys.path when run as a script

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--rulings", type=int, default=200)
    ap.add_argument("--interval", type=float, default=0.05, help="seconds between rulings")
    ap.add_argument("--out", default=None, help="where the JSON goes (default: "
                    "bench/results/sse.json)")
    args = ap.parse_args(argv)

    port = free_port()
    env = dict(os.environ, RIICHI_WEB_BIND=f"127.0.0.1:{port}", BENCH_CLIENTS=str(args.clients),
               BENCH_RULINGS=str(args.rulings), BENCH_INTERVAL=str(args.interval),
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "web" / "gunicorn.conf.py"),
         "--chdir", str(ROOT), "bench.sse:bench_app()"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                healthz(port)
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    print(server.stderr.read(), file=sys.stderr)
                    print("bench/sse.py: gunicorn did not start", file=sys.stderr)
                    return 1
                time.sleep(0.1)
        conf = {}
        exec(compile((ROOT / "web" / "gunicorn.conf.py").read_text(), "gunicorn.conf.py", "exec"),
             conf)

        clients = [Client(port) for _ in range(args.clients)]
        for c in clients:
            c.start()
        for c in clients:
            if not c.connected.wait(15):
                print(f"bench/sse.py: a client could not connect ({c.error})", file=sys.stderr)
                return 1
        run_for = args.rulings * args.interval + 15
        finish = time.monotonic() + run_for
        while time.monotonic() < finish and any(len(c.latencies) < args.rulings for c in clients):
            time.sleep(0.1)

        latencies = [v * 1000 for c in clients for v in c.latencies.values()]
        missing = sum(args.rulings - len(c.latencies) for c in clients)
        per_ruling_worst = {}
        for c in clients:
            for rid, v in c.latencies.items():
                per_ruling_worst[rid] = max(per_ruling_worst.get(rid, 0.0), v * 1000)

        # Phones that drop: half close cleanly, a quarter reset; the server must free them.
        streams_before = healthz(port)["streams"]
        half = args.clients // 2
        closing, resetting = clients[:half // 2], clients[half // 2:half]
        for c in closing:
            c.drop_as = "close"
        freed_close = wait_streams(port, streams_before - len(closing), 20)
        for c in resetting:
            c.drop_as = "reset"
        freed_reset = wait_streams(port, streams_before - half, 20)

        stop_started = time.monotonic()
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
        shutdown_s = time.monotonic() - stop_started
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()

    result = {
        "clients": args.clients,
        "rulings": args.rulings,
        "interval_s": args.interval,
        "gunicorn": {"worker_class": conf.get("worker_class"), "workers": conf.get("workers"),
                     "threads": conf.get("threads")},
        "deliveries": len(latencies),
        "missing": missing,
        "latency_ms": {
            "p50": round(statistics.median(latencies), 2) if latencies else None,
            "p95": round(pct(latencies, 0.95), 2) if latencies else None,
            "p99": round(pct(latencies, 0.99), 2) if latencies else None,
            "max": round(max(latencies), 2) if latencies else None,
        },
        "last_phone_ms_p95": round(pct(list(per_ruling_worst.values()), 0.95), 2)
        if per_ruling_worst else None,
        "target_p95_ms": 100,
        "dropped": {"closed": len(closing), "freed_after_close_s":
                    round(freed_close, 2) if freed_close is not None else None,
                    "reset": len(resetting), "freed_after_reset_s":
                    round(freed_reset, 2) if freed_reset is not None else None,
                    "target_s": 10},
        "shutdown_s": round(shutdown_s, 2),
        "cpus": os.cpu_count(),
    }
    lat = result["latency_ms"]
    print(f"SSE fan-out: {args.clients} clients x {args.rulings} rulings "
          f"(one every {args.interval * 1000:.0f} ms), gunicorn gthread "
          f"{conf.get('workers')} worker x {conf.get('threads')} threads")
    print(f"  delivered {len(latencies)} of {args.clients * args.rulings}, missing {missing}")
    print(f"  ruling -> phone latency: p50 {lat['p50']} ms, p95 {lat['p95']} ms, "
          f"p99 {lat['p99']} ms, max {lat['max']} ms (target p95 <= 100 ms)")
    print(f"  slowest phone per ruling, p95: {result['last_phone_ms_p95']} ms")
    print(f"  {len(closing)} phones closed: freed after {result['dropped']['freed_after_close_s']} s; "
          f"{len(resetting)} reset: freed after {result['dropped']['freed_after_reset_s']} s "
          f"(target <= 10 s)")
    print(f"  gunicorn stopped {result['shutdown_s']} s after SIGTERM with "
          f"{args.clients - half} streams open")
    write_results("sse", result, args.out)
    ok = (missing == 0 and lat["p95"] is not None and lat["p95"] <= 100
          and freed_close is not None and freed_close <= 10
          and freed_reset is not None and freed_reset <= 10)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
