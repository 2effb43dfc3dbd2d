"""A tournament round from the hall's start to the signed results, for ``bench/round.py``
and its short version in the tests: see bench/round.py for what runs and what it measures.

:class:`TableSet` runs some tables (in this process, or in a worker process of the bench);
:func:`run` runs the round with its broker, hall and tables, and returns the figures.
"""
from __future__ import annotations

import heapq
import json
import os
import random
import subprocess
import tempfile
import threading
import time
from pathlib import Path

RULESETS = ("wrc2015", "ema2016", "ema2025", "ema2012", "dutch")
HAND_COUNT = 6          # hands simulated per game: the time rule ends it well before
DISPUTING_SEAT = 2


def percentile(values: list[float], p: float) -> float:
    values = sorted(values)
    if not values:
        return float("nan")
    k = (len(values) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


# -- the games -------------------------------------------------------------------------------

def ends_by_time(events: list[dict], round_seconds: float) -> bool:
    """Whether this game, its round clock started as its first hand is about to be dealt,
    ends by its ruleset's time rule (not by a bust or its last hand first)."""
    from referee.core import Referee
    referee = Referee()
    referee.feed(dict(events[0]))
    referee.feed({"type": "clock", "t": events[0]["t"], "action": "start",
                  "seconds": round_seconds, "source": "hall"})
    for event in events[1:]:
        for ruling in referee.feed(dict(event)):
            if ruling["type"] == "game_end":
                return ruling.get("reason") == "time"
    return False


def plan(index: int, round_seconds: float) -> tuple[str, int, list[dict]]:
    """Table ``index``'s ruleset, seed and game (the same for the same arguments)."""
    from referee.simulate import simulate
    ruleset = RULESETS[index % len(RULESETS)]
    for seed in range(1000 * index, 1000 * index + 40):
        events = simulate(seed=seed, hands=HAND_COUNT, ruleset=ruleset)
        if ends_by_time(events, round_seconds):
            return ruleset, seed, events
    raise RuntimeError(f"round: no game of {ruleset} ends by time in a round of "
                     f"{round_seconds:g} s (table {index})")


# -- the tables ------------------------------------------------------------------------------

class TableSet:
    """Some tables of the hall, each as the module docstring says, driven by one scheduler
    thread (the simulated players and referee of all of them)."""

    def __init__(self, names, first, port, passwords, journals, speed, round_seconds,
                 disputed, dispute_after, called):
        from hall.config import BrokerSettings, LinkSettings
        from hall.link import HallLink
        from table.clock import TableClock
        from table.journal import Journal
        from table.service import ResumableTable, TableService

        self.speed = speed
        self.dispute_after = dispute_after
        self.called = called        # called(name): the hall shows the table waiting for a referee
        self.to_settle: list = []   # disputed tables whose referee has not come yet
        self.lags: list[float] = []  # real seconds each event came after its moment
        self.lock = threading.Condition()
        self.queue: list = []          # (due monotonic, n, table, event)
        self.n = 0
        self.tables = []
        self.done = threading.Event()
        self.ready = threading.Event()
        self.stop = threading.Event()
        bench = self

        class Table(ResumableTable):
            """The rules core and journal; notes when time_up, game_end and result come."""

            def _record(self, seq, rulings):
                super()._record(seq, rulings)
                for r in rulings:
                    if r["type"] == "time_up" and self.info["time_up_mono"] is None:
                        self.info["time_up_mono"] = time.monotonic()
                        self.info["time_up"] = {k: r.get(k) for k in ("ends", "rule", "t")}
                    elif r["type"] == "game_end" and self.info["game_end"] is None:
                        self.info["game_end"] = {"reason": r.get("reason"), "t": r["t"],
                                                 "mono": time.monotonic()}
                        bench.signatures(self, float(r["t"]))
                    elif r["type"] == "result":
                        self.info["result"] = True

        for k, name in enumerate(names):
            index = first + k
            ruleset, seed, events = plan(index, round_seconds)
            journal = Journal(Path(journals) / f"{name}.sqlite")
            clock = TableClock(offset=journal.clock_offset(), speed=speed)
            table = Table(journal, clock=clock)
            table.name, table.events_plan, table.clock_ = name, events, clock
            table.rng = random.Random(index)
            table.info = {"ruleset": ruleset, "seed": seed, "disputed": name in disputed,
                          "start_mono": None, "time_up_mono": None, "time_up": None,
                          "game_end": None, "result": False, "sign_mono": None}
            service = TableService(table, clock=clock, inbox=False)
            table.service = service

            def on_round(event, table=table):
                if table.service.submit(event, "hall") is None:
                    return False
                bench.round_started(table, float(table.last_t))
                return True

            link = HallLink(journal.path, LinkSettings(
                "bench", name, BrokerSettings("127.0.0.1", port, name, passwords[name],
                                              keepalive=5)),
                hub=table.hub, clock=clock, on_round=on_round,
                on_health=lambda ok, text, t=table: t.set_health("hall", ok, text))
            table.link = link
            self.tables.append(table)

    # -- the schedule ----------------------------------------------------------------------
    def at(self, table, t: float, event: dict) -> None:
        """``event`` at table time ``t`` (its clock's moment, on CLOCK_MONOTONIC)."""
        c = table.clock_
        due = c.origin + (t - c.origin - c.offset) / c.speed
        with self.lock:
            self.n += 1
            heapq.heappush(self.queue, (due, self.n, table, {**event, "t": round(t, 3)}))
            self.lock.notify()

    def round_started(self, table, t0: float) -> None:
        """The clock started: the players begin; the game's stream from its first hand on."""
        c = table.clock_
        # the moment the link heard the start (its t), on CLOCK_MONOTONIC
        table.info["start_mono"] = c.origin + (t0 - c.origin - c.offset) / c.speed
        events = table.events_plan
        for event in events[1:]:
            self.at(table, t0 + (float(event["t"]) - float(events[0]["t"])), event)

    def signatures(self, table, end_t: float) -> None:
        """The game is over: the players sign, a few seconds apart, then the referee; at a
        disputed table one player waits for the referee."""
        rng = table.rng
        seats = [0, 1, 2, 3]
        rng.shuffle(seats)
        t = end_t + rng.uniform(5, 10)
        signing = [s for s in seats if not (table.info["disputed"] and s == DISPUTING_SEAT)]
        for seat in signing:
            self.at(table, t, {"type": "sign", "seat": seat})
            t += rng.uniform(1, 4)
        if table.info["disputed"]:
            with self.lock:
                self.to_settle.append(table)    # the referee comes when the hall calls
            return
        self.at(table, t + rng.uniform(2, 5), {"type": "sign", "referee": True})

    def _referee(self) -> None:
        """The referee: to a table the hall shows waiting for a referee, after a walk; hears
        the player out, the player signs, the referee countersigns."""
        while not self.stop.wait(0.1):
            with self.lock:
                due = [t for t in self.to_settle if self.called(t.name)]
                self.to_settle = [t for t in self.to_settle if t not in due]
            for table in due:
                rng = table.rng
                t = table.clock_() + rng.uniform(15, 30)
                self.at(table, t, {"type": "referee", "action": "note",
                                   "text": "score dispute settled: the sheet stands"})
                t += rng.uniform(5, 10)
                self.at(table, t, {"type": "sign", "seat": DISPUTING_SEAT})
                self.at(table, t + rng.uniform(2, 5), {"type": "sign", "referee": True})

    def _drive(self) -> None:
        while not self.stop.is_set():
            with self.lock:
                while not self.queue or self.queue[0][0] > time.monotonic():
                    wait = self.queue[0][0] - time.monotonic() if self.queue else 0.5
                    self.lock.wait(max(0.0, min(wait, 0.5)))
                    if self.stop.is_set():
                        return
                due, _, table, event = heapq.heappop(self.queue)
            if table.info["game_end"] is not None and event["type"] not in ("sign", "referee"):
                continue            # the game is over: the players stop playing
            # Stamped when it happens, as the camera and the buttons stamp it: a driver that
            # runs late plays late, it does not write the past.
            late = time.monotonic() - due
            self.lags.append(late)
            event["t"] = table.clock_()
            table.service.submit(event, "bench")
            if event["type"] == "sign" and event.get("referee") and table.info["result"]:
                table.info["sign_mono"] = time.monotonic()   # journaled, result with it
                if all(t.info["result"] for t in self.tables):
                    self.done.set()

    # -- life --------------------------------------------------------------------------------
    def start(self) -> "TableSet":
        for table in self.tables:
            table.service.start()
            table.service.submit({"type": "game_start", "t": table.clock_(),
                                  "ruleset": table.info["ruleset"],
                                  "scores": table.events_plan[0]["scores"]}, "bench")
            table.link.start()
        threading.Thread(target=self._drive, name="players", daemon=True).start()
        threading.Thread(target=self._referee, name="referee", daemon=True).start()

        def wait_ready():
            while not all(t.link.listening.is_set() for t in self.tables):
                if self.stop.wait(0.05):
                    return
            self.ready.set()
        threading.Thread(target=wait_ready, daemon=True).start()
        return self

    def finish(self, timeout: float) -> dict:
        self.done.wait(timeout)
        idle = {t.name: t.link.wait_idle(60) for t in self.tables}
        out = {}
        for table in self.tables:
            rows = table.journal.event_rows()
            starts = sum(1 for *_, text in rows if '"round_id"' in text)
            out[table.name] = {**table.info, "round_start_journaled": starts,
                               "lag_p95_s": round(percentile(self.lags, 95), 3),
                               "lag_max_s": round(max(self.lags, default=0.0), 3),
                               "idle": idle[table.name], "link": dict(table.link.stats)}
        self.stop.set()
        with self.lock:
            self.lock.notify_all()
        for table in self.tables:
            table.service.stop()
            table.link.stop()
            table.journal.close()
        return out


# -- the run -----------------------------------------------------------------------------------

def bench_standings(folder: Path, names: list[str]):
    """The hall's standings for the bench: four players a table, seated for round 1."""
    from hall.standings import open_standings
    roster = ["name,EMA number,country"]
    seating = ["table,seat,player"]
    for name in names:
        for seat in range(4):
            player = f"Player {name}-{seat}"
            roster.append(f"{player},,NLD")
            seating.append(f"{name},{seat},{player}")
    (folder / "roster.csv").write_text("\n".join(roster) + "\n", encoding="utf-8")
    (folder / "round-1.csv").write_text("\n".join(seating) + "\n", encoding="utf-8")
    return open_standings(folder / "standings.json", folder / "roster.csv",
                          {1: folder / "round-1.csv"})


def run(args, worker_argv=None) -> dict:
    """The round (``args``: bench/round.py's options); its figures. ``worker_argv(chunk
    options)``: the command of a worker process (with ``args.workers`` > 0)."""
    from hall.board import Board
    from hall.mosquitto import LocalBroker, find_mosquitto
    from hall.subscriber import HallSubscriber

    if find_mosquitto() is None:
        raise RuntimeError("round: mosquitto is not installed (apt-get install mosquitto)")
    names = [f"t{i + 1:02d}" for i in range(args.tables)]
    rng = random.Random(40)
    disputed = sorted(rng.sample(names, min(args.disputed, len(names))))
    tmp = tempfile.TemporaryDirectory(prefix="riichi-bench-round-")
    folder = Path(tmp.name)
    shm = None
    if args.journals:
        journals = Path(args.journals)
    elif Path("/dev/shm").is_dir():
        # Each table's Pi has its own SD card; here 60 journals would share one disk, whose
        # fsyncs (synchronous=FULL, one per event) then queue behind each other.
        shm = tempfile.TemporaryDirectory(prefix="riichi-bench-round-", dir="/dev/shm")
        journals = Path(shm.name)
    else:
        journals = folder / "journals"
    journals.mkdir(parents=True, exist_ok=True)
    broker = LocalBroker(folder / "broker", "bench", names).start()
    (folder / "passwords.json").write_text(json.dumps(broker.passwords))

    board = Board("bench", dispute_after=args.dispute_after, catch_up=args.catch_up)
    standings = bench_standings(folder, names)
    counted: list[tuple[str, int, float]] = []      # what the standings counted, and when
    handed: list[tuple[str, int]] = []              # every result the board handed on

    def to_standings(table, round_no, ruling):
        handed.append((table, round_no))
        if standings.add_result(table, round_no, ruling):
            counted.append((table, round_no, time.monotonic()))
    board.on_result.append(to_standings)
    sub = HallSubscriber(board, broker.settings("hall"), client_id="bench-hall").start()
    if not sub.subscribed.wait(10):
        raise RuntimeError(f"round: the hall did not connect ({board.broker_text})")

    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    started = time.monotonic()
    procs, sets = [], []
    seen: dict[str, dict[str, float]] = {n: {} for n in names}   # status -> first seen
    called = folder / "called"      # a file per table the hall shows waiting for a referee
    called.mkdir()
    if args.workers <= 0:
        sets.append(TableSet(names, 0, broker.port, broker.passwords, journals, args.speed,
                             args.round_seconds, set(disputed), args.dispute_after,
                             lambda name: "disputed" in seen[name]).start())
    else:
        per = -(-args.tables // args.workers)
        for w in range(args.workers):
            chunk = names[w * per:(w + 1) * per]
            if not chunk:
                continue
            out = folder / f"worker{w}.json"
            procs.append((subprocess.Popen(
                worker_argv(["--names", ",".join(chunk),
                 "--first", str(w * per), "--port", str(broker.port),
                 "--passwords", str(folder / "passwords.json"), "--journals", str(journals),
                 "--speed", str(args.speed), "--round-seconds", str(args.round_seconds),
                 "--disputed-tables", ",".join(d for d in disputed if d in chunk),
                 "--dispute-after", str(args.dispute_after), "--timeout", str(args.timeout),
                 "--called", str(called),
                 "--out", str(out)]), env=env), out))

    def all_ready() -> bool:
        if sets:
            return all(s.ready.is_set() for s in sets)
        for proc, out in procs:
            if proc.poll() not in (None, 0):
                raise RuntimeError("round: a worker failed")
        return all(Path(str(out) + ".ready").exists() for _, out in procs)

    deadline = time.monotonic() + 300
    while not all_ready():
        if time.monotonic() > deadline:
            raise RuntimeError("round: the tables did not connect in 300 s")
        time.sleep(0.1)
    setup_s = time.monotonic() - started
    print(f"bench/round.py: {args.tables} tables ready in {setup_s:.0f} s; round 1 "
          f"({args.round_seconds:g} s of table time at {args.speed:g}x) starts now; "
          f"disputed: {', '.join(disputed) or 'none'}", flush=True)
    published = time.monotonic()
    sub.start_round(1, args.round_seconds)

    outage = None

    def running() -> bool:
        if sets:
            return not all(s.done.is_set() for s in sets)
        return any(p.poll() is None for p, _ in procs)

    hard_stop = time.monotonic() + args.timeout
    while running() and time.monotonic() < hard_stop:
        now = time.monotonic()
        for name in names:
            rs = board.round_status(name) or {}
            status = rs.get("status")
            if status == "disputed" and len(rs.get("signatures") or ()) == 4:
                status = "countersign"  # all four signed: the referee's signature to come
            if status is not None and status not in seen[name]:
                seen[name][status] = now
                if status == "disputed":
                    (called / name).write_text("a referee is on the way")
        if outage is None and len(counted) >= max(1, args.tables // 3):
            t_stop = time.monotonic()
            broker.stop()
            time.sleep(args.down)
            broker.start()
            outage = (t_stop, time.monotonic())
            print(f"  broker restarted ({outage[1] - outage[0]:.1f} s down) with "
                  f"{len(counted)} results at the hall", flush=True)
        time.sleep(0.1)

    tables: dict[str, dict] = {}
    if sets:
        for s in sets:
            tables.update(s.finish(args.timeout))
    else:
        for proc, out in procs:
            proc.wait()
            tables.update(json.loads(out.read_text()))
    signed = {n for n, t in tables.items() if t["result"]}
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not signed <= {c[0] for c in counted}:
        time.sleep(0.1)
    elapsed = time.monotonic() - published
    sub.stop()
    broker.stop()

    keys = [(table, round_no) for table, round_no, _ in counted]
    at_hall = {table: at for table, _, at in reversed(counted)}   # the first arrival each
    latencies, while_down, catching_up = [], [], []
    for n in signed:
        if n not in at_hall or tables[n]["sign_mono"] is None:
            continue
        delay = (at_hall[n] - tables[n]["sign_mono"]) * 1000
        signed_at = tables[n]["sign_mono"]
        if outage is not None and (outage[0] <= signed_at <= outage[1] or
                                   signed_at < outage[0] < at_hall[n]):
            while_down.append(delay)      # signed while it was down, or on its way then
        elif outage is not None and outage[1] < signed_at <= outage[1] + board.catch_up:
            catching_up.append(delay)
        else:
            latencies.append(delay)
    time_ups = [t["time_up_mono"] for t in tables.values() if t["time_up_mono"] is not None]
    starts = [t["start_mono"] for t in tables.values() if t["start_mono"] is not None]
    reasons: dict[str, dict[str, int]] = {}
    for t in tables.values():
        reason = (t["game_end"] or {}).get("reason") or "none"
        reasons.setdefault(t["ruleset"], {}).setdefault(reason, 0)
        reasons[t["ruleset"]][reason] += 1
    result = {
        "tables": args.tables,
        "speed": args.speed,
        "round_seconds_table_time": args.round_seconds,
        "workers": len(procs) or 1,
        "results_signed": len(signed),
        "results_in_standings": standings.summary()["results"],
        "results_in_standings_note": "the hall's hall.standings.Standings (240 players seated "
                                     "by a round-1 seating CSV), fed by the board's on_result",
        "lost": len(signed - {k[0] for k in keys}),
        "counted_twice": len(keys) - len(set(keys)),
        "handed_to_standings_again": len(handed) - len(set(handed)),
        "tables_missing_in_standings": standings.missing(1),
        "sign_to_standings_p50_ms": round(percentile(latencies, 50), 1),
        "sign_to_standings_p95_ms": round(percentile(latencies, 95), 1),
        "sign_to_standings_max_ms": round(max(latencies), 1) if latencies else None,
        "sign_to_standings_note": "results countersigned away from the broker restart; those "
                                  "countersigned while it was down (or on their way to the hall "
                                  "when it stopped), or in the catch_up s after it came back (the tables reconnect up to 4 s apart, then send "
                                  "what they journaled meanwhile), are counted below and in "
                                  "..._all",
        "signed_while_broker_down_or_on_the_way_then": {
            "results": len(while_down),
            "reached_hall_after_max_s": round(max(while_down) / 1000, 2) if while_down
            else None},
        "signed_in_catch_up_after_broker_back": {
            "results": len(catching_up),
            "p50_ms": round(percentile(catching_up, 50), 1) if catching_up else None,
            "max_ms": round(max(catching_up), 1) if catching_up else None},
        "sign_to_standings_p95_ms_all": round(
            percentile(latencies + while_down + catching_up, 95), 1),
        "clock_skew_max_ms": round((max(time_ups) - min(time_ups)) * 1000, 1)
        if time_ups else None,
        "round_start_heard_spread_ms": round((max(starts) - min(starts)) * 1000, 1)
        if starts else None,
        "time_up_ruled": len(time_ups),
        "game_end_reasons_by_ruleset": reasons,
        "time_up_rules": sorted({(t["time_up"] or {}).get("rule") or "" for t in tables.values()}),
        "round_start_journaled": {"once": sum(1 for t in tables.values()
                                              if t["round_start_journaled"] == 1),
                                  "twice_or_more": sum(1 for t in tables.values()
                                                       if t["round_start_journaled"] > 1),
                                  "never": sum(1 for t in tables.values()
                                               if t["round_start_journaled"] == 0)},
        "round_start_handed_over_again": sum(t["link"].get("round_again", 0)
                                             for t in tables.values()),
        "disputed": {n: {"hall_showed_waiting_for_referee": "disputed" in seen[n],
                         "signed": tables[n]["result"]} for n in disputed},
        "undisputed_tables_shown_disputed": {
            n: {"after_game_end_s": round(seen[n]["disputed"] - tables[n]["game_end"]["mono"], 2),
                "before_countersigned_s": round(tables[n]["sign_mono"] - seen[n]["disputed"], 2)
                if tables[n]["sign_mono"] else None}
            for n in names if n not in disputed and "disputed" in seen[n]},
        "hall_showed_time_up": sum(1 for n in names if "time_up" in seen[n]),
        "broker_restart": {"at_s_after_round_start": round(outage[0] - published, 1),
                           "down_s": round(outage[1] - outage[0], 1),
                           "results_at_hall_before": max(1, args.tables // 3)}
        if outage else None,
        "duplicates_dropped_by_hall": board.stats.get("duplicates", 0),
        "links_all_acknowledged": all(t["idle"] for t in tables.values()),
        "players_late_p95_s": max(t["lag_p95_s"] for t in tables.values()),
        "players_late_max_s": max(t["lag_max_s"] for t in tables.values()),
        "players_late_note": "how late the simulated players' events came after their moment "
                             "(real s; the busiest worker): a busy machine, not the tables",
        "journals": args.journals or ("/dev/shm (memory): on one disk, 60 tables' fsyncs queue "
                                      "behind each other, which no table's own SD card does"
                                      if shm else "a temporary folder on disk"),
        "round_to_last_result_s": round(elapsed, 1),
        "catch_up_s": args.catch_up,
        "setup_s": round(setup_s, 1),
        "cpu_cores": os.cpu_count(),
        "load_average_at_end": round(os.getloadavg()[0], 2),
        "target": {"results_signed": args.tables, "results_in_standings": args.tables,
                   "lost": 0, "counted_twice": 0, "sign_to_standings_p95_ms": 500,
                   "clock_skew_max_ms": 250},
    }
    tmp.cleanup()
    if shm is not None:
        shm.cleanup()
    return result


def met(result: dict) -> bool:
    t = result["target"]
    return (result["results_signed"] == t["results_signed"] and
            result["results_in_standings"] == t["results_in_standings"] and
            result["lost"] == 0 and result["counted_twice"] == 0 and
            result["sign_to_standings_p95_ms"] <= t["sign_to_standings_p95_ms"] and
            (result["clock_skew_max_ms"] or 0) <= t["clock_skew_max_ms"])


