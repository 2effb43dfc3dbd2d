"""The round bench's short version: four tables, one result disputed and settled, the broker
restarted while results are on their way; every signed result counts in the hall's standings
once."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from hall.mosquitto import find_mosquitto
from testkit.round_bench import run

pytestmark = pytest.mark.skipif(find_mosquitto() is None,
                                reason="mosquitto not installed (apt-get install mosquitto)")


def test_a_short_round_loses_no_result_and_counts_none_twice(tmp_path):
    r = run(SimpleNamespace(tables=4, speed=40.0, workers=0, round_seconds=150.0, disputed=1,
                            dispute_after=60.0, down=1.0, timeout=120.0, catch_up=3.0,
                            journals=str(tmp_path / "journals")))
    assert r["broker_restart"] is not None
    assert (r["results_signed"], r["results_in_standings"], r["lost"], r["counted_twice"]) == \
        (4, 4, 0, 0)
    assert r["tables_missing_in_standings"] == []
    assert r["round_start_journaled"] == {"once": 4, "twice_or_more": 0, "never": 0}
    assert r["round_start_handed_over_again"] >= 4      # the restart handed it over again
    assert r["time_up_ruled"] == 4
    assert all(set(reasons) == {"time"} for reasons in r["game_end_reasons_by_ruleset"].values())
    [(table, disputed)] = r["disputed"].items()
    assert disputed == {"hall_showed_waiting_for_referee": True, "signed": True}
    assert r["undisputed_tables_shown_disputed"] == {}
