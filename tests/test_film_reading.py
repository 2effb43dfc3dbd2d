"""bench/film_reading.py: each true discard is paired with the report of it, however late its
stamp, and a short film of real play runs through the table's whole camera path."""
import json
import sys
import threading
from pathlib import Path

import cv2
import numpy as np
import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))
from discard_timing import READ_CPU_NS, virtual  # noqa: E402
from film_reading import main, miss_frames, pair, presses_blind  # noqa: E402

# bench/ off the path again: its vision.py would shadow the vision package in later imports
sys.path.remove(str(BENCH))

FPS = 30.0


def true_ns(frame):
    return round(frame * 1e9 / FPS)


def report(seat, tile, t):
    return ({"type": "discard", "t": t, "seat": seat, "tile": tile, "confidence": 0.9}, 0)


TRUTH = [{"seat": 0, "tile": "8p", "frame": 30}, {"seat": 1, "tile": "2m", "frame": 60},
         {"seat": 0, "tile": "5z", "frame": 240}]


@pytest.mark.parametrize("reports, tiles, unpaired", [
    # on time, each its own
    ([report(0, "8p", 1.0), report(1, "2m", 2.0), report(0, "5z", 8.0)], ["8p", "2m", "5z"], 0),
    # stamped 3 s late (an exposure step moved its first look): still seat 0's first discard
    ([report(0, "8p", 4.0), report(1, "2m", 2.0), report(0, "5z", 8.0)], ["8p", "2m", "5z"], 0),
    # misread: paired, with the wrong tile
    ([report(0, "7p", 1.0), report(1, "2m", 2.0)], ["7p", "2m", None], 0),
    # another seat's report is not this seat's discard; a second report of one is false
    ([report(1, "8p", 1.0), report(1, "2m", 2.0)], [None, "2m", None], 1),
    ([report(0, "8p", 1.0), report(0, "8p", 1.1)], ["8p", None, None], 1),
    # an earlier discard reported again beside the next one is the false report, not a misread
    ([report(0, "8p", 1.0), report(0, "8p", 7.9), report(0, "5z", 8.0)], ["8p", None, "5z"], 1),
    # a report past the last counted discard's time is not false (the film was cut there)
    ([report(0, "8p", 1.0), report(2, "1z", 9.5)], ["8p", None, None], 0),
])
def test_each_true_discard_is_paired_with_its_report(reports, tiles, unpaired):
    paired, false = pair(TRUTH, reports, true_ns, true_ns(270))
    assert [None if g is None else g[0]["tile"] for _, g in paired] == tiles
    assert len(false) == unpaired



S = 1_000_000_000
# seat 0's 8p lands at 1.0 s: a pon pressed at 1.5 s waits for the camera at most 1.5 s
LANDS = [({"seat": 0, "tile": "8p", "frame": 30}, ({"tile": "8p"}, 0))]


@pytest.mark.parametrize("reported, settled, blind, wait_ms", [
    # reported at 1.3 s, the camera settled past the press at 1.6 s (known then): judged then
    (1.3, [(1.2, 1.0), (1.6, 1.6)], 0, 100.0),
    # the camera had settled past the press when it came: judged at once
    (1.3, [(1.4, 1.45), (1.5, 1.55)], 0, 0.0),
    # reported at 2.5 s, the camera settled past the press only then: judged then, not blind
    (2.5, [(1.6, 1.0), (2.5, 2.4)], 0, 1000.0),
    # reported at 3.2 s: the hold ran out at 3.0 s, the pon judged with no discard known
    (3.2, [(1.6, 1.0), (3.2, 3.1)], 1, 1500.0),
    # what the camera knew after the hold ran out does not count
    (2.0, [(3.1, 3.0)], 0, 1500.0),
])
def test_a_quick_pon_is_judged_blind_only_when_the_camera_reports_its_discard_after_the_hold(
        reported, settled, blind, wait_ms):
    paired = [(d, (e, round(reported * S))) for d, (e, _) in LANDS]
    known = [(round(k * S), round(at * S)) for k, at in settled]
    assert presses_blind(paired, known, true_ns) == (blind, [wait_ms])


def test_a_discard_never_reported_leaves_its_pon_blind():
    assert presses_blind([(LANDS[0][0], None)], [(round(1.6 * S), round(1.6 * S))], true_ns) == \
        (1, [100.0])

def test_the_misses_are_pictured_where_the_place_is_in_plain_view():
    """--misses: a missed or misread discard a second after it landed, a riichi tile reported
    upright (a riichi declaration lost) or an upright one lying across, a report of nothing at
    its own stamp; what was read right is not pictured."""
    per_discard = [
        {"frame": 120, "seat": 0, "tile": "4z", "fused": ["4z", 0.94, 518.7],
         "riichi": False, "riichi_read": {"fused": False}},
        {"frame": 1170, "seat": 0, "tile": "5z", "fused": None,
         "riichi": False, "riichi_read": {"fused": None}},
        {"frame": 1800, "seat": 3, "tile": "3s", "fused": ["3s", 0.95, 700.0],
         "riichi": True, "riichi_read": {"fused": False}},
        {"frame": 2100, "seat": 1, "tile": "1p", "fused": ["1p", 0.93, 600.0],
         "riichi": False, "riichi_read": {"fused": True}},
        {"frame": 2400, "seat": 2, "tile": "6s", "fused": ["6s", 0.97, 500.0],
         "riichi": True, "riichi_read": {"fused": True}},
        {"frame": 2655, "seat": 2, "tile": "4p", "fused": ["2p", 0.81, 510.6],
         "riichi": False, "riichi_read": {"fused": False}},
    ]
    false = [{"t": 70.9, "seat": 0, "tile": "8p", "confidence": 0.946}]
    assert miss_frames(per_discard, false, 30.0, 2) == [
        (1200, "hand2-039.0s-seat0-missed-5z.jpg", "hand 2, seat 0: 5z laid at 39.0 s, not reported"),
        (1830, "hand2-060.0s-seat3-riichi-3s.jpg",
         "hand 2, seat 3: 3s laid at 60.0 s, reported upright, no riichi"),
        (2127, "hand2-070.9s-seat0-false-8p.jpg",
         "hand 2, seat 0: 8p (0.946) stamped at 70.9 s, no discard of it"),
        (2130, "hand2-070.0s-seat1-upright-1p.jpg",
         "hand 2, seat 1: 1p laid at 70.0 s, reported lying across, a riichi"),
        (2685, "hand2-088.5s-seat2-misread-4p.jpg", "hand 2, seat 2: 4p laid at 88.5 s, read as 2p (0.81)"),
    ]
    assert miss_frames(per_discard[:1], [], 30.0, 1) == []


class _Scheduler:
    """A stand-in for the table's scheduler: a read whenever the core is free."""

    def __init__(self, threaded=True):
        self._lock, self._busy = threading.Lock(), False

    def push(self, frame, t_ns):
        if not self._busy:
            self._run_job()
        return [{"t": t_ns}]

    def _run_job(self):
        sum(range(20000))       # some CPU time, which a repeatable schedule does not measure


def test_a_repeatable_schedule_reads_the_same_frames_every_time_it_is_played():
    """--repeatable: a fault seen in one run of ten is found again by playing its seed."""
    def play(seed):
        core = virtual(_Scheduler, 6.25, np.random.default_rng(seed))()
        return [at for k in range(60) for _, at in core.push_at(None, k * 33_333_333)]

    once = play(7)
    assert once == play(7) and once != play(8)
    # each read holds the emulated core for a Pi's time of a read here
    reads = [at - k * 33_333_333 for k, at in enumerate(once) if at > k * 33_333_333 + 1e8]
    assert reads and all(6.25 * READ_CPU_NS[0] <= r <= 6.25 * (READ_CPU_NS[1] + 1e6)
                         for r in reads)


def test_a_misses_folder_that_cannot_be_made_is_one_line_before_any_film(tmp_path, capsys):
    taken = tmp_path / "a-file"
    taken.write_text("")
    assert main(["--quick", "--misses", str(taken / "misses")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"film_reading: --misses {taken / 'misses'}: ") and err.count("\n") == 1


def test_a_finder_that_is_not_there_is_one_line_before_any_film(shared_data, tmp_path, capsys):
    for flag in ("--finder", "--dark-finder"):
        assert main(["--quick", flag, str(tmp_path / "none.onnx")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err == [f"film_reading: {flag} {tmp_path / 'none.onnx'}: no such file"]


def test_a_short_film_of_real_play_runs_through_the_whole_camera_path(shared_data, tmp_path):
    out = tmp_path / "film_reading.json"
    # the bench's main in this process, as `python bench/film_reading.py --quick` runs it: a
    # process of its own would import numpy, OpenCV and onnxruntime again. It runs OpenCV on
    # one thread; the tests after it get theirs back.
    threads = cv2.getNumThreads()
    try:
        assert main(["--quick", "--out", str(out)]) == 0
    finally:
        cv2.setNumThreads(threads)
    r = json.loads(out.read_text())
    assert r["film"]["styles"] == ["Regular", "Black"]
    # the dark-faced hand is read as a table told its set is dark reads it
    assert [Path(h["finder"]).name for h in r["by_hand"]] == ["finder-int8.onnx", "finder-dark-int8.onnx"]
    assert r["discards"] > 4
    for name in ("fused", "single_frame", "unfused"):
        f = r[name]
        assert f["read"] + f["misread"] + f["missed"] == r["discards"]
    assert (r["read_fused"], r["read_single_frame"]) == (r["fused"]["read"],
                                                        r["single_frame"]["read"])
    assert 0 < r["lag_p50_ms"] <= r["lag_p95_ms"]
    # the reading from the first frames is never reported after the fused one
    for hand in r["by_hand"]:
        for row in hand["per_discard"]:
            if row["fused"] and row["single_frame"]:
                assert row["single_frame"][2] <= row["fused"][2]
    # the Regular art on ivory the reader knows: no sure misread there
    assert r["by_hand"][0]["fused"]["misread_sure"] == 0
