"""A hall under load: N tables, each playing a real game at 10x speed, into one Mosquitto on
loopback, the head referee's server (``riichi-referee hall``, gunicorn) watching them all.

Every table is the real table service (journal, rules core, claim-window timer) replaying a
game (the shared Tenhou games in turn; simulated games without ../shared) with the real
:class:`hall.link.HallLink`; tables run in a few worker processes. The hall is the real
server, with its real users and ACL on the broker. A client logged in with the hall PIN reads
the hall's ``/hall/stream`` (the tiles, what the head referee's page draws).

Figures:

* ``p50_ms``/``p95_ms`` (target p95 <= 250 ms): from a table journaling an event to the hall's
  stream carrying a tile with that event's ``seq``, for every event journaled while the broker
  was up, the seconds of reconnecting after the restart included (both ends read
  CLOCK_MONOTONIC, which all processes share); ``..._away_from_restart`` leaves out the 10 s
  after the broker came back.
* ``lost`` (target 0): events journaled by the tables that never reached the hall's stream,
  across a broker restart (SIGTERM, ``--down`` seconds, start) at ``--restart-at`` of the game.
* the broker's and the hall's CPU (seconds, and percent of one core over the run) and peak
  resident memory; the tables' worker processes likewise, for scale.

    python bench/hall.py [--tables 60] [--speed 10] [--workers 4]

Writes bench/results/hall.json. CPU heavy: run it under ``nice`` on a shared machine.
"""
from __future__ import annotations

import argparse
import http.cookiejar
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# This script is bench/hall.py: the project's `hall` package must come before bench/ on the
# path, which Python put first.
BENCH = ROOT / "bench"
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != BENCH] + \
    [str(BENCH)]

from _results import write_results  # noqa: E402

PIN = "1234"
TICKS = os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], p: float) -> float:
    values = sorted(values)
    k = (len(values) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


# -- the tables (worker processes) ---------------------------------------------------------

def load_games(n: int) -> list[list[dict]]:
    from table.paths import shared_data_dir
    data = shared_data_dir()
    logs = sorted((data / "tenhou" / "mjlog").glob("*.mjlog")) if data else []
    if logs:
        from referee.tenhou import import_log
        return [import_log(logs[i % len(logs)]).events for i in range(n)]
    from referee.simulate import simulate
    return [simulate(seed=i, hands=8) for i in range(n)]


def worker(args) -> int:
    from hall.config import BrokerSettings, LinkSettings
    from hall.link import HallLink
    from table.clock import TableClock
    from table.journal import Journal
    from table.service import ResumableTable, TableService

    names = args.names.split(",")
    passwords = json.loads(Path(args.passwords).read_text())
    games = load_games(args.first + len(names))[args.first:]
    journaled: dict[str, dict[int, float]] = {n: {} for n in names}
    tables = []
    for k, (name, events) in enumerate(zip(names, games)):
        journal = Journal(Path(args.journals) / f"{name}.sqlite")
        clock = TableClock(offset=journal.clock_offset(), speed=args.speed)
        table = ResumableTable(journal, clock=clock)

        def on_submit(event, seq, stamps=journaled[name]):
            stamps[seq] = time.monotonic()

        service = TableService(table, clock=clock, recorded=events, inbox=False,
                               on_submit=on_submit)
        link = HallLink(journal.path, LinkSettings(
            "bench", name, BrokerSettings("127.0.0.1", args.port, name, passwords[name],
                                          keepalive=5)),
            hub=table.hub, clock=clock,
            on_health=lambda ok, text, t=table: t.set_health("hall", ok, text))
        tables.append((name, journal, service, link))
    for name, journal, service, link in tables:
        link.start()
        service.start()
        time.sleep(args.stagger)            # tables start a little apart, as in a hall
    for name, journal, service, link in tables:
        service.finished.wait()
    idle = {name: link.wait_idle(120) for name, journal, service, link in tables}
    out = {"journaled": journaled, "idle": idle,
           "links": {name: dict(link.stats) for name, _, _, link in tables}}
    for name, journal, service, link in tables:
        service.stop()
        link.stop()
        journal.close()
    Path(args.out).write_text(json.dumps(out))
    return 0


# -- measuring processes -------------------------------------------------------------------

def cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS
    except (OSError, IndexError):
        return 0.0


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(c) for c in text.split()]


class Watch:
    """CPU and peak RSS of a set of processes (re-read each sample: a broker restarts)."""

    def __init__(self, pids):
        self.pids = pids              # a callable giving the pids now
        self.cpu: dict[int, float] = {}
        self.peak = 0.0

    def sample(self) -> None:
        pids = self.pids()
        for pid in pids:
            self.cpu[pid] = max(self.cpu.get(pid, 0.0), cpu_seconds(pid))
        self.peak = max(self.peak, sum(rss_mb(p) for p in pids))

    @property
    def cpu_total(self) -> float:
        return sum(self.cpu.values())


# -- the hall's stream ---------------------------------------------------------------------

class HallClient:
    """Logs in with the PIN and reads /hall/stream; ``arrived[table][seq]`` = when the stream
    first showed that table at ``seq`` or later."""

    def __init__(self, url: str):
        self.url = url
        jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        page = self.opener.open(url + "/login", timeout=10).read().decode()
        token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
        self.opener.open(url + "/login", data=f"pin={PIN}&csrf_token={token}".encode(),
                         timeout=10)
        self.arrived: dict[str, dict[int, float]] = {}
        self.last: dict[str, int] = {}
        self.messages = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        while not self.stop.is_set():
            try:
                with self.opener.open(self.url + "/hall/stream", timeout=30) as resp:
                    data = []
                    for raw in resp:
                        line = raw.decode().rstrip("\n")
                        if line.startswith("data:"):
                            data.append(line[5:])
                        elif line == "" and data:
                            self._tiles(json.loads("".join(data)), time.monotonic())
                            data = []
                        if self.stop.is_set():
                            return
            except OSError:
                time.sleep(0.2)

    def _tiles(self, message: dict, now: float) -> None:
        self.messages += 1
        for tile in message.get("tiles", []):
            name, seq = tile["table"], int(tile.get("seq") or 0)
            last = self.last.get(name, 0)
            if seq > last:
                seen = self.arrived.setdefault(name, {})
                for s in range(last + 1, seq + 1):
                    seen[s] = now
                self.last[name] = seq

    def json(self, path: str) -> dict:
        return json.loads(self.opener.open(self.url + path, timeout=10).read())


# -- the run -------------------------------------------------------------------------------

def main(args) -> int:
    from hall.mosquitto import LocalBroker, find_mosquitto, free_port
    from web.pin import hash_pin

    if find_mosquitto() is None:
        print("bench/hall.py: mosquitto is not installed (apt-get install mosquitto)",
              file=sys.stderr)
        return 2
    names = [f"t{i + 1:02d}" for i in range(args.tables)]
    tmp = tempfile.TemporaryDirectory(prefix="riichi-bench-hall-")
    folder = Path(tmp.name)
    journals = Path(args.journals) if args.journals else folder / "journals"
    journals.mkdir(parents=True, exist_ok=True)
    broker = LocalBroker(folder / "broker", "bench", names).start()
    (folder / "passwords.json").write_text(json.dumps(broker.passwords))
    (folder / "hall.password").write_text(broker.passwords["hall"])
    (folder / "pin.hash").write_text(hash_pin(PIN))
    web_port = free_port()
    (folder / "hall.toml").write_text(f"""
[hall]
name = "bench"
title = "Bench hall"
[broker]
host = "127.0.0.1"
port = {broker.port}
username = "hall"
password_file = "hall.password"
keepalive = 5
[web]
host = "127.0.0.1"
port = {web_port}
pin_hash_file = "pin.hash"
secret_key_file = "secret.key"
""")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    hall = subprocess.Popen([sys.executable, "-m", "app", "hall", "--config",
                             str(folder / "hall.toml")], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=open(folder / "hall.log", "w"))
    url = f"http://127.0.0.1:{web_port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(url + "/healthz", timeout=1).read()
            break
        except OSError:
            if time.monotonic() > deadline or hall.poll() is not None:
                print((folder / "hall.log").read_text()[-2000:], file=sys.stderr)
                raise SystemExit("bench/hall.py: the hall server did not start")
            time.sleep(0.2)
    client = HallClient(url)
    brokers = Watch(lambda: [broker.pid] if broker.pid else [])
    halls = Watch(lambda: [hall.pid] + children(hall.pid))

    games = load_games(args.tables)
    length = max((float(g[-1]["t"]) - float(g[0]["t"])) / args.speed for g in games)
    per = -(-args.tables // args.workers)
    workers = []
    started = time.monotonic()
    for w in range(args.workers):
        chunk = names[w * per:(w + 1) * per]
        if not chunk:
            continue
        out = folder / f"worker{w}.json"
        proc = subprocess.Popen([sys.executable, __file__, "--worker", "--names", ",".join(chunk),
                                 "--first", str(w * per), "--port", str(broker.port),
                                 "--passwords", str(folder / "passwords.json"),
                                 "--journals", str(journals), "--speed", str(args.speed),
                                 "--stagger", str(args.stagger), "--out", str(out)],
                                cwd=ROOT, env=env)
        workers.append((proc, out))
    tables_watch = Watch(lambda: [p.pid for p, _ in workers if p.poll() is None])
    print(f"bench/hall.py: {args.tables} tables in {len(workers)} processes at "
          f"{args.speed:g}x, games up to {length:.0f} s; broker restart at "
          f"{args.restart_at:.0%} ({args.down:g} s down)", flush=True)
    restart_at = started + args.restart_at * length
    outage = None
    while any(p.poll() is None for p, _ in workers):
        for w in (brokers, halls, tables_watch):
            w.sample()
        if outage is None and time.monotonic() >= restart_at:
            brokers.sample()
            t_stop = time.monotonic()
            broker.stop()
            time.sleep(args.down)
            broker.start()
            outage = (t_stop, time.monotonic())
            print(f"  broker restarted after {outage[1] - outage[0]:.1f} s down", flush=True)
        time.sleep(0.5)
    elapsed = time.monotonic() - started
    journaled: dict[str, dict[int, float]] = {}
    links: dict[str, dict] = {}
    idle = {}
    for proc, out in workers:
        data = json.loads(out.read_text())
        journaled.update({k: {int(s): t for s, t in v.items()} for k, v in data["journaled"].items()})
        links.update(data["links"])
        idle.update(data["idle"])
    # Give the hall's stream its last tick, then count.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(
            max(seqs, default=0) > client.last.get(name, 0) for name, seqs in journaled.items()):
        time.sleep(0.2)
    for w in (brokers, halls):
        w.sample()
    health = client.json("/healthz")
    client.stop.set()

    latencies, during, steady, lost = [], [], [], 0
    for name, seqs in journaled.items():
        seen = client.arrived.get(name, {})
        for seq, t in seqs.items():
            if seq not in seen:
                lost += 1
                continue
            delay = (seen[seq] - t) * 1000
            if outage is not None and outage[0] <= t <= outage[1]:
                during.append(delay)
            else:
                latencies.append(delay)
                if outage is None or not outage[0] <= t <= outage[1] + 10:
                    steady.append(delay)
    events = sum(len(s) for s in journaled.values())
    sent_bytes = sum(s.get("bytes", 0) for s in links.values())
    messages = sum(s.get("event", 0) + s.get("ruling", 0) + s.get("state", 0)
                   for s in links.values())
    result = {
        "tables": args.tables,
        "speed": args.speed,
        "workers": len(workers),
        "events": events,
        "elapsed_s": round(elapsed, 1),
        "p50_ms": round(percentile(latencies, 50), 1),
        "p95_ms": round(percentile(latencies, 95), 1),
        "p99_ms": round(percentile(latencies, 99), 1),
        "max_ms": round(max(latencies), 1),
        "p50_ms_away_from_restart": round(percentile(steady, 50), 1),
        "p95_ms_away_from_restart": round(percentile(steady, 95), 1),
        "lost": lost,
        "target": {"p95_ms": 250, "lost": 0},
        "broker_restart": {
            "at_s": round(outage[0] - started, 1) if outage else None,
            "down_s": round(outage[1] - outage[0], 1) if outage else None,
            "events_journaled_while_down": len(during),
            "their_arrival_after_journaling_max_s": round(max(during) / 1000, 2) if during else None,
        },
        "duplicates_dropped_by_hall": health["messages"].get("duplicates", 0),
        "links_all_acknowledged": all(idle.values()),
        "broker": {"cpu_s": round(brokers.cpu_total, 1),
                   "cpu_percent_of_one_core": round(100 * brokers.cpu_total / elapsed, 1),
                   "rss_mb_peak": round(brokers.peak, 1)},
        "hall": {"cpu_s": round(halls.cpu_total, 1),
                 "cpu_percent_of_one_core": round(100 * halls.cpu_total / elapsed, 1),
                 "rss_mb_peak": round(halls.peak, 1)},
        "tables_processes": {"cpu_s": round(tables_watch.cpu_total, 1),
                             "rss_mb_peak": round(tables_watch.peak, 1)},
        "published": {"messages": messages, "bytes": sent_bytes,
                      "messages_per_s": round(messages / elapsed, 1),
                      "kbytes_per_s": round(sent_bytes / elapsed / 1024, 1),
                      "bytes_per_table_per_real_minute_at_1x":
                          round(sent_bytes / args.tables / (elapsed / 60) / args.speed)},
        "hall_stream_messages": client.messages,
        "journals": str(journals) if args.journals else "a temporary folder on disk",
        "cpu_cores": os.cpu_count(),
        "load_average_at_end": round(os.getloadavg()[0], 2),
    }
    hall.terminate()
    try:
        hall.wait(15)
    except subprocess.TimeoutExpired:
        hall.kill()
    broker.stop()
    tmp.cleanup()
    print(json.dumps(result, indent=2))
    write_results("hall", result)
    ok = result["p95_ms"] <= 250 and lost == 0
    print(f"p95 {result['p95_ms']} ms (target <= 250), lost {lost} (target 0): "
          f"{'met' if ok else 'NOT met'}")
    return 0


def parse(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=60)
    p.add_argument("--speed", type=float, default=10.0)
    p.add_argument("--workers", type=int, default=4, help="processes the tables run in")
    p.add_argument("--restart-at", type=float, default=0.4,
                   help="when the broker restarts, as a fraction of the longest game")
    p.add_argument("--down", type=float, default=3.0, help="seconds the broker stays down")
    p.add_argument("--stagger", type=float, default=0.15,
                   help="seconds between two tables starting in a worker")
    p.add_argument("--journals", help="folder for the tables' journals (default: a temporary "
                                      "folder; /dev/shm keeps fsync out of the figures)")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--names", help=argparse.SUPPRESS)
    p.add_argument("--first", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--port", type=int, help=argparse.SUPPRESS)
    p.add_argument("--passwords", help=argparse.SUPPRESS)
    p.add_argument("--out", help=argparse.SUPPRESS)
    return p.parse_args(argv)


if __name__ == "__main__":
    a = parse()
    sys.exit(worker(a) if a.worker else main(a))
