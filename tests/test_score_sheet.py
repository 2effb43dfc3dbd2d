"""The score sheet signed at the table (issue 40 part 3, the table's side): what the sheet
says, why a signature that changes nothing changed nothing, when the table waits for a
referee, and the round's clock carried from one journaled game into the next."""
from __future__ import annotations

import json

import pytest

from referee.core import Referee
from referee.events import dumps
from table.clock import VirtualClock
from table.journal import Journal
from table.journal_check import check_journal
from table.live import LiveTable
from table.score_sheet import waiting_for_referee
from table.service import ResumableTable, common_prefix

NAMES = ["Aoi", "Ben", "Chie", "Dan"]


def ended_game(table, scores=(25000,) * 4, t=100.0, ruleset="wrc2015") -> None:
    table.submit({"type": "game_start", "t": t, "ruleset": ruleset, "scores": list(scores),
                  "names": NAMES})
    table.submit({"type": "hand_start", "t": t + 1, "round_wind": "E", "dealer": 0,
                  "honba": 0, "riichi_sticks": 0, "dora_indicators": ["3m"]})


def penalty(table, seat, t, applies=None, kind="chombo"):
    event = {"type": "referee", "t": t, "action": "penalty", "seat": seat, "penalty": kind,
             "text": "Riichi on a hand that was not ready."}
    if applies:   # a fixed deduction where it comes off (the ruleset's chombo: after uma)
        event.update(penalty="points", points=20000, applies=applies)
    (ruling, *_) = table.submit(event)
    return ruling


def end(table, t):
    return [r for r in table.submit({"type": "referee", "t": t, "action": "end_game",
                                     "text": "time"}) if r["type"] == "game_end"][0]


def sign(table, t, seat=None):
    event = {"type": "sign", "t": t}
    event.update({"seat": seat} if seat is not None else {"referee": True})
    return table.submit(event)


def sheet(table):
    return table.snapshot()["sheet"]


@pytest.mark.parametrize("scores, chombo_applies, expected", [
    # scores; the chombo's 20,000 off seat 1; per seat: (before_uma, uma_oka, after_uma, final,
    # rank). WRC 2015: 30,000 to start and return (no oka), uma +15/+5/-5/-15.
    # A WRC chombo comes off after uma: the ranking stands as played, 20 match points off.
    ((45000, 36000, 24000, 15000), None,
     [(0, 15.0, 0, 30.0, 1), (0, 5.0, 20000, -9.0, 2), (0, -5.0, 0, -11.0, 3),
      (0, -15.0, 0, -30.0, 4)]),
    # A point penalty given before uma comes off the table score: seat 1 drops to third.
    ((45000, 36000, 24000, 15000), "before_uma",
     [(0, 15.0, 0, 30.0, 1), (20000, -5.0, 0, -19.0, 3), (0, 5.0, 0, -1.0, 2),
      (0, -15.0, 0, -30.0, 4)]),
])
def test_the_sheet_gives_each_seat_its_score_uma_and_oka_penalties_and_final(
        scores, chombo_applies, expected):
    table = LiveTable(Referee())
    assert table.snapshot()["sheet"] is None                # no sheet while nothing is over
    ended_game(table, scores)
    assert sheet(table) is None                               # nor while the game is played
    chombo = penalty(table, 1, 102.0, chombo_applies)
    game_end = end(table, 103.0)
    s = sheet(table)
    got = [(r["before_uma"], r["uma_oka"], r["after_uma"], r["final"], r["rank"])
           for r in s["rows"]]
    assert got == expected
    assert [r["score"] for r in s["rows"]] == list(scores)
    assert [r["name"] for r in s["rows"]] == NAMES
    # the same final points the game_end gives, and they sum to zero less the deduction
    assert [r["final"] for r in s["rows"]] == game_end["final"]
    assert sum(r["final"] for r in s["rows"]) == pytest.approx(-20.0)
    assert s["penalties"][0]["ruling_id"] == chombo["ruling_id"]
    assert (s["status"], s["reason"], s["uma"]) == ("signing", "referee", [15, 5, -5, -15])
    assert s["ended_at"] == game_end["t"] == 103.0


def test_four_seats_then_the_referee_make_the_result_final_and_the_table_says_where_it_stands():
    table = LiveTable(Referee())
    ended_game(table, (45000, 36000, 24000, 15000))
    end(table, 110.0)
    s = sheet(table)
    assert s["line"] == ("0 of 4 players have signed: to sign, hold your ron button for two "
                         "seconds.")
    for k, seat in enumerate((2, 0)):
        assert sign(table, 111.0 + k, seat) == []
    s = sheet(table)
    assert (s["status"], s["signatures"]) == ("signing", [2, 0])
    assert [r["signed"] for r in s["rows"]] == [True, False, True, False]
    assert waiting_for_referee(s) is None
    table.sign_hold = 3.0    # the table's [buttons] sign_hold_s
    assert sheet(table)["line"] == ("2 of 4 players have signed: to sign, hold your ron button "
                                    "for 3 seconds.")
    sign(table, 113.0, 1)
    # three in, one not: the one who does not sign disputes; a referee is wanted
    s = sheet(table)
    assert s["status"] == "waiting_for_referee"
    assert waiting_for_referee(s) == ("Dan (seat 3) has not signed: waiting for a referee to "
                                      "settle the sheet.")
    sign(table, 114.0, 3)
    assert waiting_for_referee(sheet(table)) == ("All four players have signed: waiting for the "
                                                 "referee to countersign.")
    (result,) = sign(table, 115.0)
    assert result["type"] == "result" and result["signatures"] == [2, 0, 1, 3]
    s = sheet(table)
    assert s["status"] == "final" and waiting_for_referee(s) is None
    assert s["line"] == "The result is final: signed by the four players and the referee."


def test_a_sign_that_changes_nothing_says_why_in_one_line_and_counts_once():
    table = LiveTable(Referee())
    ended_game(table)
    # before game_end: ignored, and the dashboard says why
    assert sign(table, 102.0, 1) == []
    snap = table.snapshot()
    assert snap["signatures"] == [] and snap["sheet"] is None
    assert snap["sign_note"] == ("Ben (seat 1)'s signature was ignored: the game has not "
                                 "ended, and the score sheet is signed after it ends.")
    assert sign(table, 102.5) == []
    assert table.snapshot()["sign_note"] == (
        "The referee's countersignature was ignored: the game has not ended, and the score "
        "sheet is signed after it ends.")
    end(table, 103.0)
    assert table.snapshot()["sign_note"] is None              # the game ended: it no longer holds
    sign(table, 104.0, 1)
    assert table.snapshot()["sign_note"] is None              # it counted
    # a second signature from the same seat counts once
    sign(table, 105.0, 1)
    snap = table.snapshot()
    assert snap["signatures"] == [1]
    assert snap["sign_note"] == "Ben (seat 1) has already signed: a signature counts once."
    sign(table, 106.0)
    sign(table, 107.0)
    snap = table.snapshot()
    assert snap["referee_signed"] is True
    assert snap["sign_note"] == "The referee has already countersigned: a signature counts once."
    for seat in (0, 2, 3):
        sign(table, 108.0 + seat, seat)
    assert table.snapshot()["result_given"] is True
    sign(table, 112.0, 2)
    assert table.snapshot()["sign_note"] == ("Chie (seat 2)'s signature changes nothing: the "
                                             "result is already final.")
    assert [r["type"] for r in table.rulings()].count("result") == 1


def test_a_referee_settles_a_dispute_and_everyone_signs_again():
    table = LiveTable(Referee())
    ended_game(table, (45000, 36000, 24000, 15000))
    chombo = penalty(table, 3, 102.0)
    end(table, 103.0)
    for seat in (0, 1, 2):
        sign(table, 104.0 + seat, seat)
    assert sheet(table)["status"] == "waiting_for_referee"    # Dan disputes the chombo
    table.submit({"type": "referee", "t": 110.0, "action": "cancel_penalty",
                  "ruling_id": chombo["ruling_id"], "text": "the hand was ready"})
    s = sheet(table)
    # the sheet they signed is not the sheet that stands: the signatures are cleared
    assert (s["status"], s["signatures"], s["penalties"]) == ("signing", [], [])
    assert s["rows"][3]["final"] == -30.0
    for seat in (3, 0, 1, 2):
        sign(table, 111.0 + seat, seat)
    (result,) = sign(table, 116.0)
    assert result["penalties"] == [] and result["final"][3] == -30.0


def journal_events(path):
    with Journal(path, readonly=True) as j:
        return [(g, json.loads(text)) for _, g, _, text in j.event_rows()]


def test_the_round_clock_runs_on_into_the_next_journaled_game_and_replays_the_same(tmp_path):
    path = tmp_path / "journal.sqlite"
    table = ResumableTable(Journal(path), referee_factory=Referee, clock=VirtualClock())
    # the hall starts the round before the table starts its first game: that clock event is
    # journaled in a game of its own (the journal opens a game at each game_start)
    table.submit({"type": "clock", "t": 10.0, "action": "start", "seconds": 600,
                  "source": "hall"})
    ended_game(table, t=20.0)
    table.submit({"type": "clock", "t": 30.0, "action": "extend", "seconds": 60,
                  "source": "referee"})
    end(table, 200.0)
    for seat in range(4):
        sign(table, 201.0 + seat, seat)
    sign(table, 205.0)
    # the second game of the round: the clock still runs, 670 - 300 seconds from now
    table.submit({"type": "game_start", "t": 300.0, "ruleset": "wrc2015",
                  "scores": [25000] * 4})
    carried = table.events()[1]
    assert carried == {"type": "clock", "t": 300.0, "action": "start", "seconds": 370.0,
                       "source": "hall", "carried": True, "time_up_at": 670.0}
    assert table.snapshot()["clock"]["time_up_at"] == 670.0
    # a recorded game played at the table (rehearsal) resumes past it: the carried clock is
    # the table's own, in no recording
    assert common_prefix(table.events(), [{"type": "game_start", "t": 300.0,
                                           "ruleset": "wrc2015", "scores": [25000] * 4}]) == 1
    table.submit({"type": "hand_start", "t": 301.0, "round_wind": "E", "dealer": 0,
                  "honba": 0, "riichi_sticks": 0, "dora_indicators": ["3m"]})
    assert table.next_deadline() == 670.0
    (up,) = table.tick(670.5)
    assert (up["type"], up["t"], up["ends"]) == ("time_up", 670.0, "after_this_hand")

    # each journaled game replays alone to what the table ruled...
    assert check_journal(path) == []
    # ...and so does the whole round through one rules core, as `riichi-referee replay` does
    rows = journal_events(path)
    assert rows[0] == (1, {"type": "clock", "t": 10.0, "action": "start", "seconds": 600,
                           "source": "hall"})
    assert [g for g, e in rows if e["type"] == "game_start"] == [2, 3]
    whole = Referee()
    rulings = []
    for _, event in rows:
        rulings += whole.feed(event)
    rulings += whole.advance(670.5)
    assert [(r["type"], r["t"]) for r in rulings if r["type"] in ("time_up", "result")] == \
        [("result", 205.0), ("time_up", 670.0)]


def test_no_clock_is_carried_when_none_runs_and_a_restart_carries_one_it_missed(tmp_path):
    path = tmp_path / "journal.sqlite"
    table = ResumableTable(Journal(path), referee_factory=Referee, clock=VirtualClock())
    ended_game(table, t=20.0)
    table.submit({"type": "game_start", "t": 30.0, "ruleset": "wrc2015",
                  "scores": [25000] * 4})
    assert [e["type"] for e in table.events()] == ["game_start"]   # no clock ran: none carried
    table.submit({"type": "clock", "t": 40.0, "action": "start", "seconds": 100})
    table.submit({"type": "clock", "t": 41.0, "action": "stop"})
    table.submit({"type": "game_start", "t": 50.0, "ruleset": "wrc2015",
                  "scores": [25000] * 4})
    assert [e["type"] for e in table.events()] == ["game_start"]   # a stopped one neither

    # the service stopped between journaling a game_start and the clock it carries on
    path2 = tmp_path / "journal2.sqlite"
    with Journal(path2) as j:
        j.append_event({"type": "clock", "t": 10.0, "action": "start", "seconds": 600})
        j.append_event({"type": "game_start", "t": 20.0, "ruleset": "wrc2015",
                        "scores": [25000] * 4})
    restored = ResumableTable(Journal(path2), referee_factory=Referee, clock=VirtualClock())
    restored.restore()
    assert restored.events()[-1]["seconds"] == 590.0
    assert restored.snapshot()["clock"]["time_up_at"] == 610.0
    assert check_journal(path2) == []
    assert dumps(restored.events()[-1])   # a valid table event, as journaled


def test_a_restarted_table_still_says_why_the_last_signature_changed_nothing(tmp_path):
    path = tmp_path / "journal.sqlite"
    table = ResumableTable(Journal(path), referee_factory=Referee, clock=VirtualClock())
    ended_game(table)
    end(table, 103.0)
    sign(table, 104.0, 2)
    sign(table, 105.0, 2)
    line = "Chie (seat 2) has already signed: a signature counts once."
    assert table.snapshot()["sign_note"] == line
    restarted = ResumableTable(Journal(path), referee_factory=Referee, clock=VirtualClock())
    restarted.restore()
    snap = restarted.snapshot()
    assert (snap["sign_note"], snap["sheet"]["signatures"]) == (line, [2])


def test_a_game_starts_though_the_journal_fails_to_take_the_clock_it_carries(tmp_path):
    from table.journal import JournalError

    class FullAfterStart(Journal):
        def append_event(self, event):
            if event.get("carried"):
                raise JournalError("journal x: the disk is full", "full")
            return super().append_event(event)

    table = ResumableTable(FullAfterStart(tmp_path / "j.sqlite"), referee_factory=Referee,
                           clock=VirtualClock())
    table.submit({"type": "clock", "t": 10.0, "action": "start", "seconds": 600})
    table.submit({"type": "game_start", "t": 20.0, "ruleset": "wrc2015",
                  "scores": [25000] * 4})
    assert [e["type"] for e in table.events()] == ["game_start"]   # the game is on
    assert table.health["journal"]["ok"] is False
    assert table.health["journal"]["text"] == "journal x: the disk is full"
