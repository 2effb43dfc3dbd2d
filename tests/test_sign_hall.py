"""The hall sees a table waiting for a referee over its score sheet (issue 40 part 3): the
table's retained state says why, on a real Mosquitto on a loopback port."""
from __future__ import annotations

import time

import pytest
from test_hall_link import Table, hall

from hall.mosquitto import LocalBroker, find_mosquitto

pytestmark = pytest.mark.skipif(find_mosquitto() is None,
                                reason="mosquitto not installed (apt-get install mosquitto)")


def retained(board, name, seq, timeout=10):
    """The table's retained state once it is that of event ``seq``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        remote = board.table(name)
        if remote is not None and (remote.state or {}).get("seq") == seq:
            return remote.state
        time.sleep(0.02)
    raise AssertionError(f"no state of event {seq} from {name}")


def test_a_table_with_an_unsigned_sheet_is_waiting_for_a_referee_in_the_hall(tmp_path):
    with LocalBroker(tmp_path / "broker", "h", ["t1"]) as broker:
        board, sub = hall(broker)
        t = Table(tmp_path, broker, "t1")
        try:
            t.play([{"type": "game_start", "t": 1.0, "ruleset": "wrc2015",
                     "scores": [30000] * 4, "names": ["Aoi", "Ben", "Chie", "Dan"]},
                    {"type": "hand_start", "t": 2.0, "round_wind": "E", "dealer": 0,
                     "honba": 0, "riichi_sticks": 0, "dora_indicators": ["3m"]},
                    {"type": "referee", "t": 3.0, "action": "end_game", "text": "time"}])
            assert retained(board, "t1", t.journal.last_seq())["waiting_for_referee"] is None
            t.play([{"type": "sign", "t": 4.0 + seat, "seat": seat} for seat in (0, 1, 3)])
            state = retained(board, "t1", t.journal.last_seq())
            assert state["waiting_for_referee"] == ("Chie (seat 2) has not signed: waiting for a "
                                                    "referee to settle the sheet.")
            assert state["snapshot"]["sheet"]["status"] == "waiting_for_referee"
            t.play([{"type": "sign", "t": 9.0, "seat": 2}, {"type": "sign", "t": 10.0,
                                                             "referee": True}])
            state = retained(board, "t1", t.journal.last_seq())
            assert state["waiting_for_referee"] is None
            assert state["snapshot"]["sheet"]["status"] == "final"
        finally:
            t.close()
            sub.stop()
