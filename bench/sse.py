"""Live streams under load: do 500 phones get every ruling, how fast, and can the referee
still log in and act?

    python bench/sse.py [--streams 500] [--rulings 100] [--interval 0.2] [--referee 20]
                        [--worker-class gthread --threads 600]   # to compare another worker

The production setup on loopback: a table service process (the real ``TableService`` and
journal, with the stand-in referee of :mod:`testkit.web` ruling a violation on every call,
so the figures are the dashboard's, not the rules core's) and the dashboard under gunicorn
with ``web/gunicorn.conf.py`` and ``web.wsgi:app``, tailing that journal exactly as
``riichi-referee-web.service`` does. A separate process holds the streams, each from its own
loopback address (127.1.x.y: one phone each) and stamps every ruling's arrival; each ruling
is stamped on the shared monotonic clock when the service makes it.

Figures: ``delivered`` of ``expected`` (streams x rulings), ruling-to-arrival ``p50_ms`` /
``p95_ms``; under that load the referee's login and one action (login page, PIN, table page,
a note judged by the service), ``--referee`` times: ``referee_p99_ms`` (target <= 300 ms);
``rss_per_stream_kb``, the worker's resident memory per open stream; then a quarter of the
phones close and a quarter reset, and the bench times how long the server takes to free
them (target <= 10 s). Prints the figures and writes ``bench/results/sse.json``.

Bounded: loopback only, a fixed count of streams and requests, every wait has a limit, and
every process it starts is stopped at the end. It raises its own open-file limit (one per
stream) and says so in one line when the hard limit is too low.
"""
from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import multiprocessing
import os
import re
import resource
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # testkit is not installed: it is found in the checkout

from testkit.browser import Browser, csrf, free_port  # noqa: E402

PIN = "2468"
TARGET_P95_MS = 100
TARGET_REFEREE_P99_MS = 300
TARGET_FREED_S = 10


# -- the table service (a child process: python bench/sse.py --service JOURNAL) -------------

def service_main(journal_path: str, rulings: int, interval: float) -> int:
    """The table service on ``journal_path`` with a referee that rules a violation on every
    call. Prints ``ready``; on ``go`` on stdin submits ``rulings`` calls ``interval`` apart,
    prints ``done``; stops at ``stop`` or end of input."""
    sys.path.insert(0, str(ROOT))
    from table.clock import TableClock, monotonic
    from table.journal import Journal
    from table.service import ResumableTable, TableService
    from testkit.web import ScriptedReferee

    class BenchReferee(ScriptedReferee):
        def feed(self, event):
            rulings = super().feed(event)
            if event["type"] == "call":
                rulings.append(self._ruling({
                    "type": "violation", "seat": event["seat"], "kind": "late_call",
                    "penalty": "none", "rule": "bench", "text": "bench ruling",
                    "bench_sent": monotonic()}, event["t"]))
            return rulings

    journal = Journal(journal_path)
    clock = TableClock(offset=journal.clock_offset())
    table = ResumableTable(journal, BenchReferee, clock=clock)
    service = TableService(table, clock=clock, inbox=True)
    service.start()
    service.submit({"type": "game_start", "t": clock(), "ruleset": "ema2012",
                    "scores": [25000] * 4, "names": ["Aoi", "Ben", "Chie", "Dan"]}, "bench")
    service.submit({"type": "hand_start", "t": clock(), "round_wind": "E", "dealer": 0,
                    "honba": 0, "riichi_sticks": 0, "dora_indicators": ["3m"]}, "bench")
    print("ready", flush=True)
    try:
        if sys.stdin.readline().strip() == "go":
            next_at = time.monotonic()
            for i in range(rulings):
                next_at += interval
                time.sleep(max(0.0, next_at - time.monotonic()))
                service.submit({"type": "call", "t": clock(), "seat": i % 4, "call": "pon"},
                               "bench")
            print("done", flush=True)
            sys.stdin.readline()
    finally:
        service.stop()
        journal.close()
    return 0


# -- the phones (a child process holding every stream in one event loop) -------------------

SENT = re.compile(rb'"bench_sent":([0-9.e+-]+)')
RULING_ID = re.compile(rb'"ruling_id":"([^"]+)"')


class Phone(asyncio.Protocol):
    """One EventSource: sends the request, stamps each ruling's arrival. Each SSE message is
    one HTTP chunk, so SSE lines arrive whole and the chunk-size lines between them are
    skipped."""

    def __init__(self, request: bytes):
        self.request = request
        self.transport = None
        self.buf = b""
        self.status: int | None = None
        self.kind = b""
        self.connected = asyncio.get_running_loop().create_future()
        self.latencies: dict[str, float] = {}
        self.closed = False

    def connection_made(self, transport):
        self.transport = transport
        transport.write(self.request)

    def data_received(self, data: bytes):
        now = time.monotonic()
        self.buf += data
        *lines, self.buf = self.buf.split(b"\n")
        for line in lines:
            if self.status is None:
                if line.startswith(b"HTTP/"):
                    self.status = int(line.split()[1])
                    if self.status != 200 and not self.connected.done():
                        self.connected.set_result(self.status)
            elif line.startswith(b"event: "):
                self.kind = line[7:].strip()
                if self.kind == b"state" and not self.connected.done():
                    self.connected.set_result(200)
            elif self.kind == b"ruling" and line.startswith(b"data: "):
                sent, rid = SENT.search(line), RULING_ID.search(line)
                if sent and rid:
                    self.latencies[rid.group(1).decode()] = now - float(sent.group(1))

    def connection_lost(self, exc):
        self.closed = True
        if not self.connected.done():
            self.connected.set_result(None)

    def drop(self, how: str) -> None:
        if self.transport is None or self.closed:
            return
        if how == "reset":  # a browser killed: RST
            sock = self.transport.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.transport.abort()
        else:  # a tab closed: FIN
            self.transport.close()


def phone_address(i: int) -> str:
    return f"127.1.{i // 200}.{i % 200 + 1}"


def phones_main(conn, port: int, count: int) -> None:
    """Open ``count`` streams, then answer commands on ``conn`` until ``quit``."""
    asyncio.run(_phones(conn, port, count))


async def _phones(conn, port: int, count: int) -> None:
    loop = asyncio.get_running_loop()
    request = (f"GET /stream HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
               "Accept: text/event-stream\r\n\r\n").encode()
    phones: list[Phone] = []
    limit = asyncio.Semaphore(64)  # not a SYN flood: phones arrive in a crowd, not at once

    async def open_one(i: int) -> None:
        async with limit:
            try:
                _, phone = await loop.create_connection(
                    lambda: Phone(request), "127.0.0.1", port, local_addr=(phone_address(i), 0))
            except OSError:
                return
            phones.append(phone)
            try:
                await asyncio.wait_for(asyncio.shield(phone.connected), 30)
            except asyncio.TimeoutError:
                pass

    async def open_all(indices) -> dict:
        started = time.monotonic()
        before = len(phones)
        await asyncio.gather(*(open_one(i) for i in indices))
        new = phones[before:]
        ok = sum(1 for p in new if p.connected.done() and p.connected.result() == 200)
        refused = sorted({p.connected.result() for p in new
                          if p.connected.done() and p.connected.result() not in (200, None)})
        return {"connected": ok, "refused": refused, "seconds": time.monotonic() - started}

    conn.send(await open_all(range(count)))
    while True:
        command = await loop.run_in_executor(None, conn.recv)
        if command[0] == "progress":
            conn.send(sum(len(p.latencies) for p in phones))
        elif command[0] == "report":
            conn.send([p.latencies for p in phones])
        elif command[0] == "reopen":  # phones that dropped come back, all at once
            _, first, last = command
            conn.send(await open_all(range(first, last)))
        elif command[0] == "drop":
            _, how, first, last = command
            for phone in phones[first:last]:
                phone.drop(how)
            conn.send(True)
        else:
            for phone in phones:
                phone.drop("close")
            conn.send(True)
            return


# -- the referee (this process) -----------------------------------------------------------

REFEREE_STEPS = ("login_page", "pin", "table_page", "note")


def referee_round(port: int, number: int) -> list[float]:
    """Log in and add a note, as the referee's phone does; seconds each step took
    (:data:`REFEREE_STEPS`)."""
    times = [time.perf_counter()]
    phone = Browser(port, f"127.2.0.{number % 250 + 1}")
    try:
        status, page = phone.request("GET", "/referee/login")
        assert status == 200, f"login page: {status}"
        times.append(time.perf_counter())
        status, _ = phone.request("POST", "/referee/login", {"pin": PIN, "csrf_token": csrf(page)})
        assert status == 303, f"PIN: {status}"
        times.append(time.perf_counter())
        status, page = phone.request("GET", "/")
        assert status == 200 and 'data-referee="1"' in page, f"table page: {status}"
        times.append(time.perf_counter())
        status, _ = phone.request("POST", "/referee/note",
                                  {"text": f"bench note {number}", "csrf_token": csrf(page)})
        assert status == 303, f"note: {status}"
        times.append(time.perf_counter())
    finally:
        phone.close()
    return [b - a for a, b in zip(times, times[1:])]


# -- plumbing -------------------------------------------------------------------------------

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


def worker_pid(master: int) -> int | None:
    try:
        children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    except OSError:
        return None
    return int(children[0]) if children else None


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_seconds(pid: int, thread: int | None = None) -> float:
    """CPU time of a process, or of one of its threads (the main one: the event loop)."""
    path = f"/proc/{pid}/task/{thread}/stat" if thread else f"/proc/{pid}/stat"
    fields = Path(path).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pin_check_ms() -> float:
    """How long checking the PIN's hash takes here, alone: most of a login."""
    from web.pin import hash_pin, verify_pin
    stored = hash_pin(PIN)
    times = []
    for _ in range(3):
        started = time.perf_counter()
        verify_pin(stored, PIN)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def ms(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def open_files_for(streams: int) -> None:
    """Raise this process's soft open-file limit for the streams (children inherit it)."""
    want = streams * 2 + 512  # both ends of every stream live on this machine, in two processes
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= want:
        return
    if hard != resource.RLIM_INFINITY and hard < want:
        raise SystemExit(f"bench/sse.py: {streams} streams need about {want} open files, but "
                         f"the hard limit (ulimit -Hn) is {hard}; use fewer --streams")
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


def main(argv=None) -> int:
    from _results import write_results  # bench/ is on sys.path when run as a script

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--streams", "--clients", type=int, default=500)
    ap.add_argument("--rulings", type=int, default=100)
    ap.add_argument("--interval", type=float, default=0.2, help="seconds between rulings")
    ap.add_argument("--referee", type=int, default=20, help="referee logins and actions")
    ap.add_argument("--worker-class", help="another gunicorn worker, to compare (gthread)")
    ap.add_argument("--threads", type=int, help="threads of a gthread worker")
    ap.add_argument("--out", default=None, help="where the JSON goes (default: "
                    "bench/results/sse.json)")
    ap.add_argument("--service", metavar="JOURNAL", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.service:
        return service_main(args.service, args.rulings, args.interval)
    if min(args.streams, args.rulings, args.referee) < 1 or args.interval <= 0:
        ap.error("--streams, --rulings and --referee must be 1 or more, --interval above 0")
    open_files_for(args.streams)

    sys.path.insert(0, str(ROOT))
    import runpy

    from table.journal import Journal
    from web.pin import hash_pin, write_pin_hash

    tmp = tempfile.TemporaryDirectory(prefix="riichi-sse-bench-")
    journal_path = Path(tmp.name) / "journal.sqlite"
    pin_file = Path(tmp.name) / "pin.hash"
    write_pin_hash(pin_file, hash_pin(PIN))
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RIICHI_")}
    env.update(RIICHI_JOURNAL=str(journal_path), RIICHI_PIN_HASH_FILE=str(pin_file),
               RIICHI_WEB_BIND=f"127.0.0.1:{port}", PYTHONUNBUFFERED="1",
               # the crowd and the referee on one plain-http server, as before the referee's
               # pages went https-only: this measures the event loop, not TLS
               RIICHI_REFEREE_HTTPS="0",
               PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""))
    conf = runpy.run_path(str(ROOT / "web" / "gunicorn.conf.py"))
    worker_class = args.worker_class or conf["worker_class"]
    gunicorn = [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "web" / "gunicorn.conf.py")]
    if args.worker_class:
        gunicorn += ["--worker-class", args.worker_class]
    if args.threads:
        gunicorn += ["--threads", str(args.threads)]

    service = subprocess.Popen(
        [sys.executable, __file__, "--service", str(journal_path), "--rulings",
         str(args.rulings), "--interval", str(args.interval)],
        env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        text=True)
    server = phones = server_log = None
    parent = None
    try:
        if service.stdout.readline().strip() != "ready":
            print("bench/sse.py: the table service did not start", file=sys.stderr)
            return 1
        server_log = open(Path(tmp.name) / "gunicorn.log", "w+")  # a pipe could fill and block it
        server = subprocess.Popen(gunicorn + ["web.wsgi:app"], cwd=tmp.name, env=env,
                                  stdout=subprocess.DEVNULL, stderr=server_log)
        deadline = time.monotonic() + 30
        while True:
            try:
                healthz(port)
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    server_log.seek(0)
                    print(server_log.read()[-3000:], file=sys.stderr)
                    print("bench/sse.py: gunicorn did not start", file=sys.stderr)
                    return 1
                time.sleep(0.1)
        worker = worker_pid(server.pid)
        referee_round(port, 0)  # warm up: templates compiled, the PIN file read once
        time.sleep(1.0)
        rss_before = rss_kb(worker)

        parent, child = multiprocessing.Pipe()
        phones = multiprocessing.get_context("spawn").Process(
            target=phones_main, args=(child, port, args.streams), daemon=True)
        phones.start()
        if not parent.poll(120):
            print("bench/sse.py: the phones did not report", file=sys.stderr)
            return 1
        opened = parent.recv()
        streams_open = healthz(port)["streams"]
        time.sleep(1.0)
        rss_after = rss_kb(worker)
        print(f"{opened['connected']} of {args.streams} streams open in "
              f"{opened['seconds']:.1f} s (refused: {opened['refused'] or 'none'}); "
              f"worker RSS {rss_before / 1024:.1f} -> {rss_after / 1024:.1f} MiB", flush=True)

        # The rulings flow; meanwhile the referee logs in and acts, spread over the run.
        hash_ms = pin_check_ms()
        cpu_before, loop_before = cpu_seconds(worker), cpu_seconds(worker, worker)
        service.stdin.write("go\n")
        service.stdin.flush()
        run_for = args.rulings * args.interval
        referee_steps, referee_errors = [], []
        for i in range(args.referee):
            due = time.monotonic() + run_for * 0.9 / args.referee
            try:
                referee_steps.append(referee_round(port, i + 1))
            except (AssertionError, OSError) as exc:
                referee_errors.append(str(exc) or type(exc).__name__)
            time.sleep(max(0.0, due - time.monotonic()))
        expected = opened["connected"] * args.rulings
        finish = time.monotonic() + run_for + 15
        while time.monotonic() < finish:
            parent.send(("progress",))
            if parent.recv() >= expected:
                break
            time.sleep(0.2)
        cpu_used = cpu_seconds(worker) - cpu_before
        loop_used = cpu_seconds(worker, worker) - loop_before
        parent.send(("report",))
        per_phone = parent.recv()

        latencies = [v * 1000 for lat in per_phone for v in lat.values()]
        worst: dict[str, float] = {}
        for lat in per_phone:
            for rid, v in lat.items():
                worst[rid] = max(worst.get(rid, 0.0), v * 1000)

        # Phones that drop: a quarter close cleanly, a quarter reset; the server frees them.
        before = healthz(port)["streams"]
        quarter = len(per_phone) // 4
        parent.send(("drop", "close", 0, quarter))
        parent.recv()
        freed_close = wait_streams(port, before - quarter, 20)
        parent.send(("drop", "reset", quarter, 2 * quarter))
        parent.recv()
        freed_reset = wait_streams(port, before - 2 * quarter, 20)
        left_open = healthz(port)["streams"]

        # The Wi-Fi comes back: the dropped phones reconnect at once, each wanting the whole
        # game so far, while the referee logs in and acts.
        parent.send(("reopen", 0, 2 * quarter))
        storm_referee_ms = sum(referee_round(port, args.referee + 1)) * 1000
        if not parent.poll(120):
            print("bench/sse.py: the reconnecting phones did not report", file=sys.stderr)
            return 1
        storm = parent.recv()
        open_at_stop = healthz(port)["streams"]

        stop_started = time.monotonic()
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
        shutdown_s = time.monotonic() - stop_started
        server_log.seek(0)
        log_text = server_log.read()
    except (OSError, subprocess.TimeoutExpired) as exc:
        # The old setup (gthread, 40 threads) ends here: every thread holds a stream.
        print(f"bench/sse.py: the dashboard stopped answering with {args.streams} streams "
              f"open ({exc}); is every thread of the worker holding a stream?",
              file=sys.stderr)
        return 1
    finally:
        if parent is not None and phones is not None and phones.is_alive():
            try:
                parent.send(("quit",))
                parent.poll(5)
            except OSError:
                pass
        for proc in (server,):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
        if phones is not None:
            phones.join(timeout=5)
            if phones.is_alive():
                phones.kill()
        if service.poll() is None:
            try:
                service.stdin.write("stop\n")
                service.stdin.flush()
                service.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                service.kill()
                service.wait()
    with Journal(journal_path, readonly=True) as journal:
        notes = sum(1 for _, e in journal.game_events()
                    if e.get("type") == "referee" and e.get("action") == "note")
    server_log.close()
    tmp.cleanup()

    referee_ms = [sum(steps) * 1000 for steps in referee_steps]
    step_ms = {name: ms(statistics.median(steps[k] * 1000 for steps in referee_steps))
               for k, name in enumerate(REFEREE_STEPS)} if referee_steps else {}
    delivered = len(latencies)
    result = {
        "streams": args.streams,
        "streams_open": opened["connected"],
        "refused": opened["refused"],
        "rulings": args.rulings,
        "interval_s": args.interval,
        "gunicorn": {"worker_class": worker_class, "workers": conf["workers"],
                     "worker_connections": conf["worker_connections"],
                     "threads": args.threads if worker_class == "gthread" else None,
                     "max_streams": conf["sizing"].streams},
        "delivered": delivered,
        "expected": expected,
        "missing": expected - delivered,
        "p50_ms": ms(statistics.median(latencies)) if latencies else None,
        "p95_ms": ms(pct(latencies, 0.95)) if latencies else None,
        "p99_ms": ms(pct(latencies, 0.99)) if latencies else None,
        "max_ms": ms(max(latencies)) if latencies else None,
        "last_phone_p95_ms": ms(pct(list(worst.values()), 0.95)) if worst else None,
        "target_p95_ms": TARGET_P95_MS,
        "referee_rounds": args.referee,
        "referee_ok": len(referee_ms),
        "referee_errors": referee_errors[:5],
        "referee_p50_ms": ms(statistics.median(referee_ms)) if referee_ms else None,
        "referee_p99_ms": ms(pct(referee_ms, 0.99)) if referee_ms else None,
        "referee_max_ms": ms(max(referee_ms)) if referee_ms else None,
        "referee_step_p50_ms": step_ms,
        "referee_notes_journaled": notes - 2,  # not the warm-up's, nor the reconnect round's
        "target_referee_p99_ms": TARGET_REFEREE_P99_MS,
        "rss_before_mib": round(rss_before / 1024, 1),
        "rss_after_mib": round(rss_after / 1024, 1),
        "rss_per_stream_kb": round((rss_after - rss_before) / max(1, streams_open), 1),
        "pin_check_alone_ms": ms(hash_ms),
        "server_cpu_s": round(cpu_used, 2),
        "server_main_thread_cpu_s": round(loop_used, 2),
        "dropped": {"closed": quarter, "freed_after_close_s": ms(freed_close),
                    "reset": quarter, "freed_after_reset_s": ms(freed_reset),
                    "left_open": left_open, "target_s": TARGET_FREED_S},
        "reconnect": {"phones": 2 * quarter, "connected": storm["connected"],
                      "seconds": round(storm["seconds"], 2),
                      "referee_ms": ms(storm_referee_ms)},
        "shutdown_s": round(shutdown_s, 2),
        "cpus": os.cpu_count(),
    }
    print(f"SSE under load: {opened['connected']} streams x {args.rulings} rulings (one every "
          f"{args.interval * 1000:.0f} ms), gunicorn {worker_class}, 1 worker"
          + (f" x {args.threads} threads" if worker_class == "gthread" else
             f", {conf['worker_connections']} connections, at most "
             f"{conf['sizing'].streams} streams"))
    print(f"  delivered {delivered} of {expected}")
    print(f"  ruling -> phone: p50 {result['p50_ms']} ms, p95 {result['p95_ms']} ms, "
          f"p99 {result['p99_ms']} ms, max {result['max_ms']} ms (target p95 <= "
          f"{TARGET_P95_MS} ms); slowest phone per ruling p95 {result['last_phone_p95_ms']} ms")
    print(f"  referee login + note under load, {len(referee_ms)} of {args.referee} done: "
          f"p50 {result['referee_p50_ms']} ms, p99 {result['referee_p99_ms']} ms (target <= "
          f"{TARGET_REFEREE_P99_MS} ms); {result['referee_notes_journaled']} notes journaled"
          + (f"; errors: {referee_errors[:3]}" if referee_errors else ""))
    print(f"  referee steps, p50: {step_ms}; the PIN's scrypt check alone, in this process: "
          f"{ms(hash_ms)} ms")
    print(f"  worker memory: {result['rss_per_stream_kb']} KiB per stream "
          f"({result['rss_before_mib']} -> {result['rss_after_mib']} MiB); "
          f"CPU {result['server_cpu_s']} s over the rulings, {result['server_main_thread_cpu_s']} s "
          "of it in the main thread (the event loop; the rest is the PIN checks)")
    print(f"  {quarter} phones closed: freed after {ms(freed_close)} s; {quarter} reset: freed "
          f"after {ms(freed_reset)} s (target <= {TARGET_FREED_S} s)")
    print(f"  {storm['connected']} of {2 * quarter} phones reconnecting at once all had the game "
          f"after {storm['seconds']:.1f} s; the referee's login + note meanwhile took "
          f"{ms(storm_referee_ms)} ms")
    print(f"  gunicorn stopped {result['shutdown_s']} s after SIGTERM with {open_at_stop} "
          "streams open")
    if os.environ.get("BENCH_SSE_LOG"):
        print(log_text[-4000:])
    if "Traceback" in log_text:
        print("  the server logged a traceback:\n" + log_text[-2000:])
    write_results("sse", result, args.out)
    ok = (delivered == expected and expected > 0 and latencies and
          result["p95_ms"] <= TARGET_P95_MS and len(referee_ms) == args.referee and
          result["referee_p99_ms"] <= TARGET_REFEREE_P99_MS and
          freed_close is not None and freed_close <= TARGET_FREED_S and
          freed_reset is not None and freed_reset <= TARGET_FREED_S)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
