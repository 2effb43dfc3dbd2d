"""A short tournament day (one simulated hour, every fault of ``bench/soak.py``'s ten), on
loopback only: the table service as a child process killed and restarted, the dashboard under
gunicorn, phones coming, going and dropping at once, the hall's Mosquitto stopped and
started, the camera unplugged, a button stuck and one chattering during play (each while a
discard is open to its call), the journal's disk nearly full. What a referee relies on: nothing journaled is lost or doubled, the hall
gets everything, the journal is whole after every kill, each fault is said on the dashboard,
and a faulty button wins no claim.

Cheap on purpose (the suite's time is short): 600x, games of four simulated hands, a camera
that sees an empty table (discards reach the table directly), two kills instead of five.
"""
from __future__ import annotations

import pytest

from hall.mosquitto import find_mosquitto
from testkit.soak import Plan, run_soak

pytestmark = pytest.mark.skipif(find_mosquitto() is None,
                                reason="mosquitto not installed (apt-get install mosquitto)")

SHORT = Plan(hours=1, speed=600, games="simulated:4:3", break_minutes=15, camera="idle",
             kills=2, phones=5, churn=1.0, crowd=40, camera_timeout=0.5,
             low_disk=1024 * 1024, disk_every=0.5, sample_every=0.5, min_games=2)


@pytest.fixture(scope="module")
def day(tmp_path_factory):
    return run_soak(SHORT, folder=tmp_path_factory.mktemp("soak"), say=lambda text: None)


def fault(day, name):
    return next(f for f in day["faults"] if f["fault"] == name)


def test_every_fault_happened(day):
    assert day["faults_not_reached"] == []
    assert {f["fault"] for f in day["faults"]} == {"camera", "phones", "broker", "disk",
                                                  "buttons"}
    assert len(day["restarts"]) == SHORT.kills
    assert day["hours_simulated"] >= SHORT.hours


def test_nothing_journaled_is_lost_or_doubled_and_the_hall_has_it_all(day):
    assert day["events_lost"] == 0 and day["acked_missing"] == []
    assert day["rulings_duplicated"] == 0
    assert day["hall_lost"] == 0, day["hall_missing"]
    assert day["watcher_rulings_twice"] == 0
    assert day["games_played"] >= 2


def test_the_journal_is_whole_after_every_kill_and_the_table_comes_back(day):
    for restart in day["restarts"]:
        assert restart["check_journal_whole"], restart["check_journal"]
        assert restart["acked_missing"] == 0
        assert restart["recovered"] and restart["restart_to_dashboard_s"] is not None
    assert day["restarts_recovered"] == SHORT.kills
    assert day["final_check_journal"]["whole"], day["final_check_journal"]["output"]
    assert day["service_exit"] == 0
    assert day["dashboard_tracebacks"] == 0


def test_each_fault_is_said_on_the_dashboard(day):
    camera = fault(day, "camera")
    assert camera["shown_after_s"] is not None and "camera frame" in camera["text"]
    assert camera["back_after_s"] is not None
    disk = fault(day, "disk")
    assert disk["shown_after_s"] is not None and "nearly full" in disk["text"]
    assert disk["events_journaled_meanwhile"] > 0  # it kept journaling
    assert disk["cleared_after_s"] is not None
    phones = fault(day, "phones")
    # the dropped phones' streams were let go, the others kept
    assert phones["streams_after"] <= phones["streams_before"] - SHORT.crowd
    assert phones["streams_after"] >= 1


def test_the_stuck_and_chattering_buttons_claim_nothing_in_an_open_window(day):
    buttons = fault(day, "buttons")
    assert buttons.get("not_injected") is None, buttons
    assert not buttons["in_a_break"]
    assert buttons["in_a_window"], buttons["injected"]     # during play, a discard open
    assert buttons["chatter_recognised"], "the chattering button was not told from presses"
    assert buttons["stuck_recognised"], "the stuck button was not told from a finger's hold"
    assert day["claims_by_faulty_buttons"] == 0
    assert day["faulty_calls_journaled"] == 0              # not even a losing press
    # and no event reached the journal that no player made
    assert day["unscripted_events"] == []
