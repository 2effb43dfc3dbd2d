"""Table service figures: button edge -> claim ruling on the dashboard stream, and memory.

1. Latency. The real path, in one process: a ron press on a gpiozero MockFactory pin ->
   SeatButtons (debounce) -> the service's button thread -> the journal (SQLite, WAL,
   synchronous=FULL, on this machine's disk) -> the rules core -> the hub -> the dashboard's
   SSE stream over HTTP -> a client reading it. Each sample: a discard, then the next seat's
   ron, which the core decides at once (head bump), so the time measured is the service's
   own, not a claim window's. p50/p99 of edge -> ``claim`` ruling read by the client. The ron
   is a tap of 50 ms: a press is a call only once let go and still for the chatter window
   (250 ms, ``hardware/debounce.py``), so about 300 ms of each sample is the press and its
   test, the same for every press.
2. Memory. ``riichi-referee demo`` plays a whole game (the Tenhou game when ../shared is there)
   with its dashboard; its resident memory (VmRSS) is sampled every 0.1 s. Target: < 300 MB.

    python bench/service.py [--samples 200] [--speed 25]

Prints the figures and writes bench/results/service.json.
"""
from __future__ import annotations

import argparse
import json
import platform
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from _results import write_results  # bench/ is on sys.path when run as a script

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def percentile(values: list[float], p: float) -> float:
    values = sorted(values)
    k = (len(values) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def read_stream(url: str, out: queue.Queue, stop: threading.Event) -> None:
    """A dashboard client: parse the SSE stream, hand each ruling over with its arrival time."""
    with urllib.request.urlopen(url, timeout=30) as resp:
        kind, data = None, []
        for raw in resp:
            if stop.is_set():
                return
            line = raw.decode("utf-8").rstrip("\n")
            if line.startswith("event:"):
                kind = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())
            elif line == "":
                if kind == "ruling" and data:
                    payload = json.loads("\n".join(data))
                    out.put((time.monotonic(), payload.get("data", payload)))
                kind, data = None, []


def bench_latency(samples: int) -> dict:
    import logging
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no access log per request
    import web
    from hardware.buttons import SeatButtons
    from hardware.config import SAMPLE_CONFIG, load_table_config
    from hardware.pins import mock_pin_factory
    from table.clock import TableClock
    from table.journal import Journal
    from table.service import ResumableTable, TableService, default_referee_factory

    tmp = tempfile.TemporaryDirectory(prefix="riichi-bench-")
    journal = Journal(Path(tmp.name) / "journal.sqlite")
    clock = TableClock(offset=journal.clock_offset())
    table = ResumableTable(journal, default_referee_factory("ema2012"), clock=clock)
    wiring = load_table_config(SAMPLE_CONFIG)
    factory = mock_pin_factory()
    button_queue: queue.Queue = queue.Queue()
    buttons = SeatButtons(wiring, button_queue, pin_factory=factory, under_test=True)
    service = TableService(table, clock=clock, buttons=button_queue, inbox=False)
    service.start()
    server = web.serve(web.create_app(table), "127.0.0.1", 0)
    rulings: queue.Queue = queue.Queue()
    stop = threading.Event()
    reader = threading.Thread(target=read_stream, args=(server.url + "/stream", rulings, stop),
                              daemon=True)
    reader.start()
    time.sleep(0.5)
    pressed_low = not wiring.pressed_level
    latencies = []
    misses = 0
    try:
        table.submit({"type": "game_start", "t": clock(), "ruleset": "ema2012",
                      "scores": [25000] * 4})
        for i in range(samples + 5):
            seat = i % 4
            ron = (seat + 1) % 4
            table.submit({"type": "hand_start", "t": clock(), "round_wind": "E", "dealer": seat,
                          "honba": 0, "riichi_sticks": 0, "dora_indicators": ["1m"]})
            table.submit({"type": "discard", "t": clock(), "seat": seat, "tile": "5m"})
            while not rulings.empty():
                rulings.get_nowait()
            pin = buttons.button(ron, "ron").pin
            t0 = time.monotonic()
            (pin.drive_low if pressed_low else pin.drive_high)()
            time.sleep(0.05)
            (pin.drive_high if pressed_low else pin.drive_low)()   # let go: then it is a call
            got = None
            deadline = t0 + 5
            while time.monotonic() < deadline:
                try:
                    t1, ruling = rulings.get(timeout=deadline - time.monotonic())
                except queue.Empty:
                    break
                if ruling.get("type") == "claim":
                    got = t1
                    break
            time.sleep(0.12)  # the same button again only after a pause a finger would make
            if got is None:
                misses += 1
            elif i >= 5:  # warm-up
                latencies.append((got - t0) * 1000)
    finally:
        stop.set()
        server.shutdown()
        service.stop()
        buttons.close()
        journal.close()
        tmp.cleanup()
    return {"samples": len(latencies), "missed": misses,
            "p50_ms": round(percentile(latencies, 50), 2),
            "p99_ms": round(percentile(latencies, 99), 2),
            "max_ms": round(max(latencies), 2),
            "mean_ms": round(statistics.mean(latencies), 2)}


def rss_kib(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def bench_memory(speed: float) -> dict:
    proc = subprocess.Popen([sys.executable, "-m", "app", "demo", "--no-browser", "--port",
                             "0", "--speed", str(speed), "--exit-at-end"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    samples = []
    started = time.monotonic()
    while proc.poll() is None:
        value = rss_kib(proc.pid)
        if value:
            samples.append(value)
        time.sleep(0.1)
    out, err = proc.communicate()
    if proc.returncode != 0:
        raise SystemExit(f"bench/service.py: the demo failed ({err.strip()[-300:]})")
    first = out.splitlines()[0] if out else ""
    over = [l for l in out.splitlines() if l.startswith("game over")]
    return {"game": first.replace("riichi-referee demo: ", ""),
            "result": over[0] if over else "",
            "seconds": round(time.monotonic() - started, 1), "speed": speed,
            "rss_peak_mb": round(max(samples) / 1024, 1),
            "rss_median_mb": round(statistics.median(samples) / 1024, 1),
            "target_mb": 300, "under_target": max(samples) / 1024 < 300}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200, help="button presses to time")
    parser.add_argument("--speed", type=float, default=25.0, help="demo speed for the memory run")
    args = parser.parse_args()
    latency = bench_latency(args.samples)
    print(f"button edge -> claim ruling on the dashboard stream ({latency['samples']} presses, "
          f"journal fsync included): p50 {latency['p50_ms']} ms, p99 {latency['p99_ms']} ms, "
          f"max {latency['max_ms']} ms, missed {latency['missed']}")
    memory = bench_memory(args.speed)
    print(f"resident memory during a whole demo game ({memory['game']}; {memory['speed']:g}x, "
          f"{memory['seconds']} s): peak {memory['rss_peak_mb']} MB, median "
          f"{memory['rss_median_mb']} MB (target < 300 MB)")
    results = {"latency": latency, "memory": memory,
               "machine": {"python": platform.python_version(), "machine": platform.machine(),
                           "cpus": __import__("os").cpu_count()},
               "when": time.strftime("%Y-%m-%dT%H:%M:%S")}
    write_results("service", results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
