"""A tournament day on one table, every fault on the way: the soak that ``bench/soak.py`` runs
for ten simulated hours and the test suite for one.

The pieces run as they do on the Pi, each its own process: the table service
(:mod:`testkit.soak_table`: ``riichi-referee run``'s service with the demo's simulated
players, MockFactory buttons and rendered camera, journaling to a file on disk, linked to the
hall), the dashboard under gunicorn with ``web/gunicorn.conf.py`` as the systemd unit runs
it, reading that journal, and Debian's Mosquitto on a free loopback port. Phones (server-sent
event streams, each from its own loopback address) come and go, and a hall subscriber counts
what reaches the broker.

On the way (:class:`Plan` says when, in fractions of the day): the broker stopped for a
(simulated) minute every simulated hour; the camera unplugged and plugged back; a seat button
stuck down and another chattering, during play, each while a discard is open to the very call
that button makes (and at a moment the day's games need no press of it); 40 phones dropping their
connections at once (a reset, as a phone leaving the Wi-Fi does); the service SIGKILLed and
started again ``kills`` times at random points, ``riichi-referee check-journal`` run on the
journal after each kill; the journal's disk nearly full once (SQLite's own page quota, see
:mod:`testkit.soak_table`: no small file system can be made without root here).

:func:`run_soak` returns the figures (see ``bench/soak.py`` for what each key means).
"""
from __future__ import annotations

import dataclasses
import json
import os
import random
import selectors
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from testkit import gunicorn
from testkit.browser import free_port

ROOT = Path(__file__).resolve().parent.parent
STUCK = (2, "pon")      # the button stuck down
CHATTER = (1, "chii")   # the chattering one


@dataclasses.dataclass
class Plan:
    """One soak. Times of faults are fractions of the day (real time)."""

    hours: float = 10.0            # simulated hours
    speed: float = 20.0            # times real time
    games: str = "tenhou:5"        # testkit.soak_table.day_games
    break_minutes: float = 30.0    # table minutes between games
    camera: str = "film"           # film: rendered frames through the tracker; idle: empty
    kills: int = 5
    phones: int = 10               # the steady crowd (one leaves and one comes every churn)
    churn: float = 20.0            # real seconds between a phone leaving and another coming
    crowd: int = 40                # phones that drop at once
    seed: int = 42
    warmup: float = 0.1            # of a life of the service, before its memory counts
    camera_timeout: float = 2.0    # real seconds without a frame before it is reported
    low_disk: int = 20 * 1024 * 1024
    disk_every: float = 5.0
    kills_within: tuple[float, float] = (0.05, 0.6)
    unplug_at: float = 0.2
    drop_at: float = 0.35
    disk_at: float = 0.5
    buttons_after: float = 0.25    # the stuck and chattering buttons: in the first game after
    sample_every: float = 2.0      # real seconds between looks at the service's memory
    faults: bool = True            # False: a quiet day (what the table writes when all is well)
    min_games: int = 0             # the day goes on (up to three times its length) until this
                                   # many games are over: a busy machine plays fewer in an hour

    @property
    def seconds(self) -> float:
        return self.hours * 3600 / self.speed

    def sim(self, minutes: float) -> float:
        """Real seconds of ``minutes`` simulated minutes."""
        return minutes * 60 / self.speed


def proc_figures(pid: int) -> dict | None:
    """Resident memory (MB), open files and threads of a process, and what it wrote."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        fds = len(os.listdir(f"/proc/{pid}/fd"))
        io = Path(f"/proc/{pid}/io").read_text()
    except OSError:
        return None
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    write = next(int(l.split()[1]) for l in io.splitlines() if l.startswith("write_bytes"))
    return {"t": time.monotonic(), "rss_mb": int(fields["VmRSS"].split()[0]) / 1024,
            "fds": fds, "threads": int(fields["Threads"]), "write_bytes": write}


# -- the service, as a child process ------------------------------------------------------
class Service:
    """The table service (:mod:`testkit.soak_table`) in a child process, started again after
    each kill on the same journal."""

    def __init__(self, folder: Path, plan: Plan, config: Path, journal: Path):
        self.folder, self.plan, self.config, self.journal = folder, plan, config, journal
        self.proc: subprocess.Popen | None = None
        self.acked: set[int] = set()
        self.lives: list[list[dict]] = []    # the samples of each process
        self.written = 0                      # write_bytes of the processes that ended
        self.ready = threading.Event()
        self.ready_seq = 0
        self.in_break: int | None = None
        self.break_since = 0.0
        self.games_started = 0
        self.replies: dict[str, str] = {}
        self.windows: list[str] = []          # the claim windows faults were injected in
        self.changed = threading.Condition()
        self.log = open(folder / "service.log", "ab")

    def start(self) -> None:
        self.ready.clear()
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH",
                                                                                  ""))
        p = self.plan
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "testkit.soak_table", "--config", str(self.config),
             "--journal", str(self.journal), "--speed", str(p.speed), "--games", p.games,
             "--break-minutes", str(p.break_minutes), "--camera", p.camera,
             "--camera-timeout", str(p.camera_timeout), "--low-disk", str(p.low_disk),
             "--disk-every", str(p.disk_every)],
            cwd=self.folder, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self.log, text=True, bufsize=1)
        self.lives.append([])
        threading.Thread(target=self._read, args=(self.proc,), daemon=True).start()

    def _read(self, proc) -> None:
        for line in proc.stdout:
            word, _, rest = line.strip().partition(" ")
            with self.changed:
                if word == "ack":
                    self.acked.add(int(rest))
                elif word == "ready":
                    self.ready_seq = int(rest)
                    self.ready.set()
                elif word == "break":
                    self.in_break = int(rest)
                    self.break_since = time.monotonic()
                elif word == "game":
                    self.in_break = None
                    self.games_started += 1
                elif word == "window":
                    self.windows.append(rest)
                elif word in ("done", "failed", "unknown"):
                    command, _, at = rest.partition(" @")
                    self.replies[command] = line.strip()
                self.changed.notify_all()

    def wait_for(self, predicate, timeout: float) -> bool:
        with self.changed:
            return self.changed.wait_for(predicate, timeout)

    def command(self, text: str, timeout: float = 30.0) -> str:
        with self.changed:
            self.replies.pop(text, None)
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()
        if not self.wait_for(lambda: text in self.replies, timeout):
            raise AssertionError(f"the service did not carry out {text!r} in {timeout} s")
        reply = self.replies[text]
        if not reply.startswith("done"):
            raise AssertionError(reply)
        return reply

    def sample(self) -> dict | None:
        figures = proc_figures(self.proc.pid) if self.proc else None
        if figures is not None:
            self.lives[-1].append(figures)
        return figures

    def _ended(self) -> None:
        life = self.lives[-1]
        if life:
            self.written += life[-1]["write_bytes"]

    def kill(self) -> None:
        self.sample()  # what it wrote, as late as can be read
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(30)
        self._ended()

    def stop(self) -> int:
        self.sample()
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait(10)
        self._ended()
        return code


# -- the dashboard under gunicorn --------------------------------------------------------
class Dashboard:
    def __init__(self, folder: Path, journal: Path):
        from web.pin import hash_pin, write_pin_hash
        self.port = free_port()
        pin = folder / "pin.hash"
        write_pin_hash(pin, hash_pin("1234"))
        env = {k: v for k, v in os.environ.items() if not k.startswith("RIICHI_")}
        env.update(RIICHI_JOURNAL=str(journal), RIICHI_PIN_HASH_FILE=str(pin),
                   RIICHI_WEB_BIND=f"127.0.0.1:{self.port}", RIICHI_REFEREE_HTTPS="0",
                   RIICHI_TABLE_NAME="soak",
                   PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""))
        self.proc, self.log = gunicorn.start(folder, env)
        gunicorn.wait_for_port(self.port, self.proc, self.log, timeout=60)

    def get(self, path: str) -> dict:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=10) as r:
            return json.loads(r.read())

    def health(self) -> dict[str, dict]:
        return {h["component"]: h for h in self.get("/state.json")["data"].get("health", [])}

    def worker(self) -> int | None:
        """The gunicorn worker's pid (the one that serves and holds the streams)."""
        try:
            text = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text()
        except OSError:
            return None
        pids = [int(p) for p in text.split()]
        return pids[0] if pids else None

    def stop(self) -> str:
        """Stop gunicorn; what it logged."""
        return gunicorn.stop(self.proc, self.log)


# -- phones --------------------------------------------------------------------------------
class Phones:
    """Phones watching the dashboard's stream, all read by one thread; each phone connects
    from its own loopback address (127.0.x.y), as phones in a hall have their own."""

    def __init__(self, port: int):
        self.port = port
        self.sel = selectors.DefaultSelector()
        self.lock = threading.Lock()
        self.phones: dict[int, dict] = {}
        self.next = 1
        self.messages: list[tuple[float, str]] = []   # the watcher's (time, kind)
        self.watcher_rulings: dict[str, int] = {}
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="phones", daemon=True)
        self.thread.start()

    def connect(self, n: int, tag: str = "crowd") -> list[int]:
        ids = []
        for _ in range(n):
            with self.lock:
                i = self.next
                self.next += 1
            s = socket.create_connection(("127.0.0.1", self.port), timeout=10,
                                         source_address=(f"127.0.{i // 250 + 1}.{i % 250 + 1}",
                                                         0))
            s.sendall(b"GET /stream HTTP/1.1\r\nHost: soak\r\nAccept: text/event-stream\r\n\r\n")
            s.setblocking(False)
            with self.lock:
                self.phones[i] = {"sock": s, "tag": tag, "buf": b"", "got": 0, "open": True}
                self.sel.register(s, selectors.EVENT_READ, i)
            ids.append(i)
        return ids

    def answered(self, ids: list[int]) -> bool:
        with self.lock:
            return all(self.phones[i]["got"] > 0 for i in ids if i in self.phones)

    def leave(self, ids: list[int], reset: bool = False) -> None:
        """Phones going away: closed (``reset``: dropped, the connection reset)."""
        with self.lock:
            for i in ids:
                phone = self.phones.pop(i, None)
                if phone is None:
                    continue
                try:
                    self.sel.unregister(phone["sock"])
                except (KeyError, ValueError):
                    pass
                if reset:
                    phone["sock"].setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                             struct.pack("ii", 1, 0))
                phone["sock"].close()

    def tagged(self, tag: str) -> list[int]:
        with self.lock:
            return [i for i, p in self.phones.items() if p["tag"] == tag]

    def _loop(self) -> None:
        while not self.stop_event.is_set():
            with self.lock:
                empty = not self.phones
            if empty:
                time.sleep(0.05)
                continue
            for key, _ in self.sel.select(0.1):
                i = key.data
                with self.lock:
                    phone = self.phones.get(i)
                    if phone is None:
                        continue
                    try:
                        data = phone["sock"].recv(65536)
                    except BlockingIOError:
                        continue
                    except OSError:
                        data = b""
                    if not data:
                        self.sel.unregister(phone["sock"])
                        phone["sock"].close()
                        del self.phones[i]
                        continue
                    phone["got"] += len(data)
                    if phone["tag"] != "watcher":
                        continue
                    phone["buf"] += data
                    *blocks, phone["buf"] = phone["buf"].split(b"\n\n")
                now = time.monotonic()
                for block in blocks:
                    kind = next((line[6:].strip().decode() for line in block.split(b"\n")
                                 if line.startswith(b"event:")), None)
                    if kind is None:
                        continue
                    self.messages.append((now, kind))
                    if kind == "ruling":
                        data = next(line[5:] for line in block.split(b"\n")
                                    if line.startswith(b"data:"))
                        ruling = json.loads(data)["data"]
                        key = json.dumps({k: v for k, v in ruling.items()}, sort_keys=True)
                        self.watcher_rulings[key] = self.watcher_rulings.get(key, 0) + 1

    def first_after(self, t0: float, kinds=("event",)) -> float | None:
        for t, kind in list(self.messages):
            if t > t0 and kind in kinds:
                return t
        return None

    def close(self) -> None:
        self.stop_event.set()
        self.thread.join(2)
        self.leave(list(self.phones))


# -- the hall --------------------------------------------------------------------------------
def hall_watch(broker):
    """A hall subscriber that notes every event ``seq`` and ruling ``rid`` it receives."""
    from hall.board import Board
    from hall.subscriber import HallSubscriber

    class CountingBoard(Board):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            self.seqs: set[int] = set()
            self.rids: set[int] = set()

        def receive(self, topic, payload):
            super().receive(topic, payload)
            try:
                data = json.loads(payload)
            except ValueError:
                return
            if isinstance(data, dict) and "event" in data and "seq" in data:
                self.seqs.add(int(data["seq"]))
            elif isinstance(data, dict) and "ruling" in data and "rid" in data:
                self.rids.add(int(data["rid"]))

    board = CountingBoard("soak")
    sub = HallSubscriber(board, broker.settings("hall")).start()
    if not sub.subscribed.wait(20):
        raise AssertionError(f"the hall did not subscribe: {board.broker_status()}")
    return board, sub


# -- the day -------------------------------------------------------------------------------
def check_journal(journal: Path) -> tuple[bool, str]:
    done = subprocess.run([sys.executable, "-m", "app", "check-journal", str(journal)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    return done.returncode == 0, (done.stdout + done.stderr).strip()


def life_growth(lives: list[list[dict]], warmup: float) -> dict:
    """Memory, files and threads of the service's longest life: after ``warmup`` of it, the
    median of its first minute against that of its last."""
    life = max(lives, key=lambda s: s[-1]["t"] - s[0]["t"] if s else 0)
    if len(life) < 4:
        return {}
    t0, t1 = life[0]["t"], life[-1]["t"]
    warm = [s for s in life if s["t"] >= t0 + warmup * (t1 - t0)]
    span = min(60.0, (t1 - t0) / 5)
    first = [s for s in warm if s["t"] <= warm[0]["t"] + span] or warm[:1]
    last = [s for s in warm if s["t"] >= t1 - span] or warm[-1:]

    def med(samples, key):
        return statistics.median(s[key] for s in samples)

    start, end = med(first, "rss_mb"), med(last, "rss_mb")
    return {"life_s": round(t1 - t0, 1), "rss_start_mb": round(start, 1),
            "rss_end_mb": round(end, 1), "rss_growth_pct": round(100 * (end - start) / start, 2),
            "fds_growth": int(med(last, "fds") - med(first, "fds")),
            "threads_growth": int(med(last, "threads") - med(first, "threads"))}


def journal_faults(journal_path: Path, games: list[list[dict]], acked: set[int]) -> dict:
    """What the journal lost or holds twice, against the day's scripts and the acks; and the
    claims won by a press no player made (a call the script does not have: the stuck and
    chattering buttons')."""
    from table.journal import Journal
    from testkit.soak_table import same_move

    with Journal(journal_path, readonly=True) as journal:
        seqs = {row[0] for row in journal.event_rows()}
        lost_acked = sorted(acked - seqs)
        played = journal.games()
        lost, unscripted, claims_by_faults = 0, [], 0
        duplicated = 0
        for k, game in enumerate(played):
            script = games[k % len(games)]
            got = journal.game_events(game["game_id"])
            i = 0
            for seq, event in got:
                if i < len(script) and same_move(event, script[i]):
                    i += 1
                else:
                    unscripted.append({"game": k, "seq": seq, "event": event})
            if k < len(played) - 1:
                lost += len(script) - i   # a finished game: every move of it is there
            rulings = [r for _, r in journal.game_rulings(game["game_id"])]
            seen = set()
            for r in rulings:
                key = json.dumps({k2: v for k2, v in r.items() if k2 != "ruling_id"},
                                 sort_keys=True)
                duplicated += key in seen
                seen.add(key)
            ids = [r.get("ruling_id") for r in rulings]
            duplicated += len(ids) - len(set(ids))
            calls = [u["event"] for u in unscripted
                     if u["game"] == k and u["event"].get("type") == "call"]
            for r in rulings:
                if r.get("type") != "claim":
                    continue
                opened = float(r["t"]) - float(r.get("window") or 0) - 1e-6
                for u in calls:
                    if opened <= float(u["t"]) <= float(r["t"]) + 1e-6 and any(
                            w.get("seat") == u["seat"] and w.get("call") == u["call"]
                            for w in r.get("winners", [])):
                        claims_by_faults += 1
                        break
        rid_count = journal._read("SELECT count(*) FROM rulings")[0][0]
        span = journal._read("SELECT min(t_mono), max(t_mono) FROM events")[0]
    return {"events_lost": lost + len(lost_acked), "acked_missing": lost_acked[:20],
            "unscripted_events": unscripted, "rulings_duplicated": duplicated,
            "claims_by_faulty_buttons": claims_by_faults, "games_played": len(played),
            "events_journaled": len(seqs), "rulings_journaled": rid_count,
            # the table clock stops while the camera's frames are drawn and read (the demo's
            # clock), so on a slow machine the table plays less than the hours of service
            "table_hours": round((span[1] - span[0]) / 3600, 2) if span[0] is not None else 0}


def faulty_calls(journal_path: Path, faults: list[dict], span: float = 20.0) -> int:
    """Calls journaled from a stuck or chattering button in the ``span`` table seconds after
    its fault began: the day's script has none there (the faults are injected where it needs
    no press of that button), so each would be a press no player made reaching the rules
    core, claim or not."""
    from table.journal import Journal

    with Journal(journal_path, readonly=True) as journal:
        calls = [e for e in _journal_events(journal) if e.get("type") == "call"]
    n = 0
    for f in faults:
        n += sum(1 for e in calls if (e["seat"], e["call"]) == (f["seat"], f["call"])
                 and f["t0"] - 1e-3 <= float(e.get("t_source", e["t"])) <= f["t0"] + span)
    return n


def _journal_events(journal) -> list[dict]:
    out = []
    for game in journal.games():
        out += [e for _, e in journal.game_events(game["game_id"])]
    return out


def run_soak(plan: Plan, folder: Path | None = None, say=print) -> dict:
    """Play the day of ``plan``; return the figures."""
    from hall.mosquitto import LocalBroker
    from table.journal import Journal
    from testkit.soak_table import day_games

    tmp = None
    if folder is None:
        tmp = tempfile.TemporaryDirectory(prefix="riichi-soak-")
        folder = Path(tmp.name)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(plan.seed)
    games = day_games(plan.games)
    journal = folder / "journal.sqlite"
    broker = LocalBroker(folder / "broker", "soak", ["t1"]).start()
    bs = broker.settings("t1")
    config = folder / "table.toml"
    config.write_text(
        "[service]\n[journal]\n"
        f'[hall]\nhall = "soak"\ntable = "t1"\nbroker = "127.0.0.1"\nport = {bs.port}\n'
        f'password = "{bs.password}"\nkeepalive = 5\n')
    service = Service(folder, plan, config, journal)
    results: dict = {"plan": dataclasses.asdict(plan), "faults": [], "restarts": []}
    dashboard = phones = sub = None
    faults_seen: list[dict] = []
    started = time.monotonic()
    try:
        board, sub = hall_watch(broker)
        service.start()
        if not service.ready.wait(120):
            raise AssertionError("the service did not start: see service.log")
        dashboard = Dashboard(folder, journal)
        phones = Phones(dashboard.port)
        phones.connect(1, "watcher")
        phones.connect(plan.phones)
        day = plan.seconds
        t_start = time.monotonic()
        dash_samples: list[dict] = []

        def at(fraction):
            return t_start + fraction * day

        lo, hi = plan.kills_within
        timeline = [(at(rng.uniform(lo, hi)), "kill") for _ in range(plan.kills)]
        for h in range(int(plan.hours + 0.999)):
            if (h + 0.5) / plan.hours < 1:
                timeline.append((at((h + 0.5) / plan.hours), "broker"))
        timeline += [(at(plan.unplug_at), "unplug"), (at(plan.drop_at), "drop"),
                     (at(plan.disk_at), "disk"), (at(plan.buttons_after), "buttons")]
        timeline.sort()
        if not plan.faults:
            timeline = []
        next_sample = next_churn = time.monotonic()
        buttons_done = False
        finished = 0   # games over, as the service says at each break
        while time.monotonic() < t_start + day or timeline or finished < plan.min_games:
            now = time.monotonic()
            if service.in_break is not None:
                finished = max(finished, service.in_break + 1)
            if now > t_start + 3 * day:
                break  # what was not done is in faults_not_reached
            if now >= next_sample:
                next_sample = now + plan.sample_every
                service.sample()
                worker = dashboard.worker()
                figures = proc_figures(worker) if worker else None
                if figures:
                    dash_samples.append(figures)
            if now >= next_churn:
                next_churn = now + plan.churn
                crowd = phones.tagged("crowd")
                if crowd:
                    phones.leave(crowd[:1])
                phones.connect(1)
            playing = service.in_break is None and service.ready.is_set()
            due = [item for item in timeline if item[0] <= now
                   and (item[1] != "buttons" or playing)]
            if due:
                # the buttons during play, each once a discard is open to its call
                timeline.remove(due[0])
                what = due[0][1]
                buttons_done = buttons_done or what == "buttons"
                record = run_fault(what, plan, service, broker, dashboard, phones, journal,
                                   faults_seen, say)
                record["at_hour"] = round((now - t_start) * plan.speed / 3600, 2)
                results["restarts" if what == "kill" else "faults"].append(record)
                continue
            time.sleep(0.05)
        results["buttons_injected"] = buttons_done
        results["faults_not_reached"] = [what for _, what in timeline]
        elapsed = time.monotonic() - t_start
        # The end of the day: a table restarted in a break is waited for until it plays
        # again (a break at most), the hall is given time to get everything, then the
        # service stops.
        _wait(lambda: all(phones.first_after(r["restarted"]) for r in results["restarts"]),
              plan.sim(plan.break_minutes) + 10, 0.1)
        service.sample()
        with Journal(journal, readonly=True) as j:
            last_seq = j.last_seq()
            rids = {r[0] for r in j._read("SELECT id FROM rulings")}
        events = set(range(1, last_seq + 1))
        _wait(lambda: events <= board.seqs and rids <= board.rids, 60, 0.1)
        code = service.stop()
        whole, text = check_journal(journal)
        results["final_check_journal"] = {"whole": whole, "output": text[-500:]}
        results["service_exit"] = code
        missing_events, missing_rulings = sorted(events - board.seqs), sorted(rids - board.rids)
        results["hall_lost"] = len(missing_events) + len(missing_rulings)
        results["hall_missing"] = {"events": missing_events[:20], "rulings": missing_rulings[:20]}
        remote = board.table("t1")
        results["hall_duplicates_dropped"] = remote.duplicates if remote else None
        results.update(journal_faults(journal, games, service.acked))
        results["faulty_calls_journaled"] = faulty_calls(journal, faults_seen)
        results.update(life_growth(service.lives, plan.warmup))
        if dash_samples:
            results["dashboard"] = life_growth([dash_samples], plan.warmup)
        results["watcher_rulings_twice"] = sum(1 for n in phones.watcher_rulings.values()
                                               if n > 1)
        hours = elapsed * plan.speed / 3600
        # The journal's own size: its write-ahead log folded in (the service leaves it, a few
        # MB whatever the journal holds, at its size when it stops)
        import sqlite3
        db = sqlite3.connect(journal)
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()
        size = journal.stat().st_size
        restarts = results["restarts"]
        for r in restarts:
            t0 = r.pop("restarted")
            first = phones.first_after(t0)
            r["restart_to_dashboard_s"] = None if first is None else round(first - t0, 2)
            r["recovered"] = r["recovered"] and first is not None
        shown = [r["restart_to_dashboard_s"] for r in restarts
                 if r["restart_to_dashboard_s"] is not None]
        results.update({
            "hours_simulated": round(hours, 2),
            "real_seconds": round(elapsed, 1),
            "journal_mb": round(size / 1e6, 3),
            "journal_mb_per_hour": round(size / 1e6 / hours, 3),
            "disk_write_mb_per_hour": round(service.written / 1e6 / hours, 3),
            "restarts_recovered": sum(1 for r in restarts if r["recovered"]),
            "kills": plan.kills,
            "restart_to_dashboard_s_max": max(shown) if shown else None,
            "restart_to_ready_s_max": max((r["restart_to_ready_s"] for r in restarts),
                                          default=None),
            "load_average_end": [round(x, 2) for x in os.getloadavg()],
        })
        log = dashboard.stop()
        dashboard = None
        results["dashboard_tracebacks"] = log.count("Traceback")
        return results
    finally:
        if phones is not None:
            phones.close()
        if sub is not None:
            sub.stop()
        if service.proc is not None and service.proc.poll() is None:
            service.proc.kill()
            service.proc.wait()
        if dashboard is not None:
            dashboard.stop()
        broker.stop()
        service.log.close()
        results["wall_seconds"] = round(time.monotonic() - started, 1)
        if tmp is not None:
            tmp.cleanup()


def _wait(predicate, timeout: float, step: float = 0.05) -> float | None:
    """Seconds until ``predicate()`` held (None: not within ``timeout``)."""
    t0 = time.monotonic()
    while True:
        if predicate():
            return round(time.monotonic() - t0, 2)
        if time.monotonic() - t0 > timeout:
            return None
        time.sleep(step)


def _read_from(path: Path, offset: int) -> bytes:
    with open(path, "rb") as f:
        f.seek(offset)
        return f.read()


def _at(reply: str) -> float:
    """The table time a command was carried out at (``done ... @T``)."""
    return float(reply.rsplit("@", 1)[1])


def run_fault(what: str, plan: Plan, service: Service, broker, dashboard: Dashboard,
              phones: Phones, journal: Path, faults_seen: list, say) -> dict:
    """Inject one fault and wait for the table to come through it; what happened."""
    from table.journal import Journal

    if what == "kill":
        service.kill()
        acked = set(service.acked)
        with Journal(journal, readonly=True) as j:
            seqs = {row[0] for row in j.event_rows()}
        whole, text = check_journal(journal)
        t0 = time.monotonic()
        service.start()
        ready = service.ready.wait(120)
        ready_s = time.monotonic() - t0
        record = {"fault": "kill", "acked_missing": len(acked - seqs),
                  "check_journal_whole": whole, "check_journal": text[-300:],
                  "restart_to_ready_s": round(ready_s, 2), "restarted": t0}
        # the dashboard's first sight of the table moving again is looked for at the end of
        # the day (in a break it waits for the next game; nothing else waits for it)
        record["recovered"] = bool(ready and whole and record["acked_missing"] == 0)
        say(f"kill: journal {'whole' if whole else 'NOT WHOLE: ' + text}, ready again in "
            f"{ready_s:.1f} s")
        return record
    if what == "broker":
        broker.stop()
        time.sleep(plan.sim(1))  # a simulated minute
        broker.start()
        say("broker stopped for a simulated minute and started again")
        return {"fault": "broker", "down_s": round(plan.sim(1), 2)}
    if what == "unplug":
        service.command("unplug")
        seen = _wait(lambda: dashboard.health().get("camera", {}).get("ok") is False,
                     plan.camera_timeout * 4 + 30, 0.1)
        text = dashboard.health().get("camera", {}).get("text")
        service.command("plug")
        back = _wait(lambda: dashboard.health().get("camera", {}).get("ok") is True, 60, 0.1)
        say(f"camera unplugged: on the dashboard after {seen} s ({text!r}), back after {back} s")
        return {"fault": "camera", "shown_after_s": seen, "text": text, "back_after_s": back}
    if what == "drop":
        ids = phones.connect(plan.crowd, "drop")
        _wait(lambda: phones.answered(ids), 60, 0.1)
        before = dashboard.get("/healthz")["streams"]
        phones.leave(ids, reset=True)
        back = _wait(lambda: dashboard.get("/healthz")["streams"] <= before - plan.crowd,
                     60, 0.1)
        after = dashboard.get("/healthz")["streams"]
        say(f"{plan.crowd} phones dropped at once: streams {before} -> {after} after {back} s")
        return {"fault": "phones", "streams_before": before, "streams_after": after,
                "released_after_s": back}
    if what == "disk":
        with Journal(journal, readonly=True) as j:
            before = j.last_seq()
        service.command(f"disk-low {plan.low_disk // 2}")
        shown = _wait(lambda: dashboard.health().get("disk", {}).get("ok") is False,
                      plan.disk_every * 3 + 30, 0.1)
        text = dashboard.health().get("disk", {}).get("text")
        # ten simulated minutes nearly full, and longer if the table was in a break: until
        # events have been journaled meanwhile (an hour at most)
        low_since = time.monotonic()

        def journaled() -> int:
            with Journal(journal, readonly=True) as j:
                return j.last_seq() - before

        _wait(lambda: time.monotonic() - low_since > max(plan.sim(10), plan.disk_every)
              and journaled() >= 20, plan.sim(60), 0.2)
        during = journaled()
        service.command("disk-ok")
        cleared = _wait(lambda: dashboard.health().get("disk", {}).get("ok") is True,
                        plan.disk_every * 3 + 30, 0.1)
        say(f"disk nearly full: on the dashboard after {shown} s ({text!r}); {during} events "
            f"journaled meanwhile; cleared after {cleared} s")
        return {"fault": "disk", "shown_after_s": shown, "text": text,
                "events_journaled_meanwhile": during, "cleared_after_s": cleared}
    if what == "buttons":
        service.log.flush()
        logged = (service.folder / "service.log").stat().st_size
        record: dict = {"fault": "buttons", "in_a_break": service.in_break is not None}
        injected = []
        for (seat, call), command in ((STUCK, "stick"), (CHATTER, "chatter")):
            windows = len(service.windows)
            try:
                t = _at(service.command(f"in-window {command} {seat} {call}", timeout=300))
            except AssertionError as exc:       # no window came: said, not a crash
                record.setdefault("not_injected", []).append(str(exc))
                continue
            window = service.windows[windows] if len(service.windows) > windows else None
            injected.append({"seat": seat, "call": call, "fault": command, "t1": t,
                             "window": window})
            if window is not None:
                _, _, discarder, opened, deadline, at = window.split()
                # the fault began at ``at`` (table clock), in the window of that discard
                faults_seen.append({"seat": seat, "call": call, "t0": float(at), "t1": t,
                                    "discarder": int(discarder), "opened": float(opened),
                                    "deadline": float(deadline)})

        def said(word):
            return word.encode() in _read_from(service.folder / "service.log", logged)

        # a fault lasts the (scaled) recovery time, a tenth of a second at 20x: too short to
        # be sure of catching on the dashboard, so the service's own log line is the proof
        chatter = _wait(lambda: said("chatters"), 10, 0.05)
        stuck = _wait(lambda: said("stuck down"), 10, 0.05)
        lines = _read_from(service.folder / "service.log", logged).decode(
            errors="replace").splitlines()
        text = next((line for line in lines if "chatters" in line), None)
        record.update({
            "chatter_recognised": chatter is not None, "stuck_recognised": stuck is not None,
            "text": text, "stuck_text": next((line for line in lines if "stuck down" in line),
                                             None),
            # each injected while a discard was open to its call, during play
            "in_a_window": len(injected) == 2 and all(
                i["window"] is not None and float(i["window"].split()[4]) >
                float(i["window"].split()[5]) for i in injected),
            "presses": faults_seen[-2:], "injected": injected})
        say(f"button {STUCK} stuck down and {CHATTER} chattering, each in an open claim "
            f"window during play ({[i['window'] for i in injected]}; the service: {text!r})")
        return record
    raise ValueError(what)
