"""The hall's standings (issue 40 part 4): the tournament's roster and seating read with every
bad file named in one line, each signed result counted once (repeated, reordered, across a
restart), totals and positions, missing tables, and the EMA CSV and JSON exports read back."""
from __future__ import annotations

import csv
import io
import json

import pytest

from hall.standings import (
    EMA_COLUMNS,
    Standings,
    StandingsError,
    parse_round_file,
    read_roster,
    read_seating,
)

ROSTER = """name,EMA number,country
Anna Berg,4010001,SWE
Bo Chen,04010002,DEN
Carla Diaz,,ESP
Dirk Ek,04010004,NED
Eva Frost,04010005,SWE
Finn Gale,04010006,GBR
Gus Hale,04010007,IRL
Hana Ito,04010008,JPN
"""
# round 1: t1 = Anna, Bo, Carla, Dirk by seat; t2 = Eva, Finn, Gus, Hana
ROUND1 = "table,seat,player\n" + "".join(
    f"{t},{s},{p}\n" for t, ps in (("t1", ["Anna Berg", "Bo Chen", "Carla Diaz", "Dirk Ek"]),
                                   ("t2", ["Eva Frost", "Finn Gale", "Gus Hale", "Hana Ito"]))
    for s, p in enumerate(ps))
# round 2 by EMA number where there is one; t10 sorts after t2
ROUND2 = """table;seat;player
t2;0;04010001
t2;1;Eva Frost
t2;2;Carla Diaz
t2;3;4010006
t10;0;Bo Chen
t10;1;Dirk Ek
t10;2;Gus Hale
t10;3;Hana Ito
"""


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def roster(tmp_path):
    return read_roster(write(tmp_path, "roster.csv", ROSTER))


@pytest.fixture
def seatings(tmp_path, roster):
    return {1: read_seating(write(tmp_path, "r1.csv", ROUND1), roster),
            2: read_seating(write(tmp_path, "r2.csv", ROUND2), roster)}


def result(*final, signed=True):
    return {"type": "result", "scores": [25000] * 4, "final": list(final), "penalties": [],
            "signatures": [0, 1, 2, 3], "referee_signed": signed}


def test_the_roster_and_seating_are_read_as_the_tournament_software_writes_them(roster,
                                                                                 seatings):
    assert [p.name for p in roster][:3] == ["Anna Berg", "Bo Chen", "Carla Diaz"]
    assert roster[0].ema == "04010001"           # a spreadsheet dropped the leading zero
    assert roster[2].ema == "" and roster[2].country == "ESP"
    assert (roster[0].first_name, roster[0].last_name) == ("Anna", "Berg")
    assert seatings[1]["t1"] == ["Anna Berg", "Bo Chen", "Carla Diaz", "Dirk Ek"]
    assert seatings[2]["t2"] == ["Anna Berg", "Eva Frost", "Carla Diaz", "Finn Gale"]


def test_a_roster_with_first_and_last_names_keeps_them(tmp_path):
    players = read_roster(write(tmp_path, "r.csv", "Last name,First name,EMA,Nationality\n"
                                "van der Berg,Jan,04010001,NED\nYoung,Zoe,-,FRA\n"
                                "Ueda,Kei,0,JPN\n"))
    p = players[0]
    assert (p.name, p.first_name, p.last_name) == ("Jan van der Berg", "Jan", "van der Berg")
    assert [p.ema for p in players[1:]] == ["", ""]   # "-" and "0": no EMA number, as the
                                                      # EMA's own results write it


BAD_ROSTERS = [
    ("name,country\nAnna,SWE\n", "row 1: no column EMA number (the header has: name, country)"),
    ("ema,country\n1,SWE\n", "row 1: no column name"),
    ("", "row 1: no header"),
    ("name,ema,country\n", ": no players (only a header)"),
    ("name,ema,country\nAnna,1,SWE\n,2,DEN\n", "row 3: no name"),
    ("name,ema,country\nAnna,1,SWE\nBo,2,\n", "row 3: Bo has no country"),
    ("name,ema,country\nAnna,1,SWE\nBo,12x,DEN\n",
     "row 3: EMA number '12x' is not a number of up to 8 digits"),
    ("name,ema,country\nAnna,1,SWE\n\nanna,2,SWE\n", "row 4: anna is listed twice (row 2 too)"),
    ("name,ema,country\nAnna,1,SWE\nBo,00000001,DEN\n",
     "row 3: EMA number 00000001 of Bo is also on row 2"),
]


@pytest.mark.parametrize("text, message", BAD_ROSTERS)
def test_a_bad_roster_is_one_line_naming_file_and_row(tmp_path, text, message):
    path = write(tmp_path, "roster.csv", text)
    with pytest.raises(StandingsError) as err:
        read_roster(path)
    line = str(err.value)
    assert line.startswith(f"roster {path}") and message in line and "\n" not in line


BAD_SEATINGS = [
    ("table,player\nt1,Anna Berg\n", "row 1: no column seat"),
    ("table,seat,player\nt1,0,Anna Berg\nt1,1,Zed\n", "row 3: unknown player 'Zed'"),
    ("table,seat,player\nt1,0,Anna Berg\nt1,0,Bo Chen\n",
     "row 3: table t1 seat 0 is taken twice (row 2 too)"),
    ("table,seat,player\nt1,0,Anna Berg\nt2,1,04010001\n",
     "row 3: Anna Berg is seated twice (table t1 seat 0 on row 2)"),
    ("table,seat,player\nt1,4,Anna Berg\n", "row 2: seat '4' must be 0, 1, 2 or 3"),
    ("table,seat,player\nt 1,0,Anna Berg\n", "row 2: table 't 1' must be a name"),
    ("table,seat,player\nt1,0,Anna Berg\nt1,1,Bo Chen\nt1,3,Dirk Ek\n",
     ": table t1 has nobody in seat 2"),
    ("table,seat,player\n\"t1\",\"0\",\"Anna Berg\"\n\n\nt1,1,Anna Berg\n",
     "row 5: Anna Berg is seated twice"),
]


@pytest.mark.parametrize("text, message", BAD_SEATINGS)
def test_a_bad_seating_is_one_line_naming_file_and_row(tmp_path, roster, text, message):
    path = write(tmp_path, "round-3.csv", text)
    with pytest.raises(StandingsError) as err:
        read_seating(path, roster)
    line = str(err.value)
    assert line.startswith(f"seating {path}") and message in line and "\n" not in line


def test_files_that_cannot_be_read_say_so(tmp_path, roster):
    with pytest.raises(StandingsError, match=r"^roster .*nope.csv: no such file$"):
        read_roster(tmp_path / "nope.csv")
    (tmp_path / "latin1.csv").write_bytes("name,ema,country\nJos\xe9,1,ESP\n".encode("latin-1"))
    with pytest.raises(StandingsError, match="not UTF-8 text"):
        read_seating(tmp_path / "latin1.csv", roster)


def test_a_bad_seating_loads_nothing_of_itself(tmp_path, roster, seatings):
    """The hall reads each file whole before it takes any of it: a bad round 3 leaves the
    standings as they were."""
    standings = Standings(roster, seatings)
    with pytest.raises(StandingsError):
        standings.set_seating(3, read_seating(write(tmp_path, "r3.csv", BAD_SEATINGS[2][0]),
                                              roster))
    assert standings.rounds() == [1, 2] and standings.missing(3) == []


@pytest.mark.parametrize("text, expected", [("2=r2.csv", (2, "r2.csv")),
                                            (" 10 = a=b.csv", (10, "a=b.csv"))])
def test_round_file(text, expected):
    assert parse_round_file(text) == expected


@pytest.mark.parametrize("text", ["r2.csv", "0=r.csv", "x=r.csv", "2="])
def test_a_bad_round_file_is_named(text):
    with pytest.raises(StandingsError, match=f"--seating {text}: must be ROUND=FILE"):
        parse_round_file(text)


T1 = result(45.0, 5.0, -15.0, -35.0)
T2 = result(-20.5, 30.5, 12.0, -22.0)
T2_R2 = result(10.0, 20.0, -10.0, -20.0)
T10_R2 = result(-5.0, 35.0, -10.0, -20.0)


def test_a_result_counts_once_however_often_and_in_whatever_order_it_comes(roster, seatings):
    deliveries = [("t2", 1, T2), ("t1", 1, T1), ("t2", 1, T2), ("t10", 2, T10_R2),
                  ("t1", 1, T1), ("t2", 2, T2_R2), ("t10", 2, T10_R2)]
    totals = []
    for order in (deliveries, deliveries[::-1]):
        standings = Standings(roster, seatings)
        counted = [standings.add_result(*d) for d in order]
        assert counted.count(True) == 4
        totals.append({r["name"]: r["total"] for r in standings.rows()})
    assert totals[0] == totals[1]
    assert totals[0]["Anna Berg"] == 55.0           # 45.0 at t1, then 10.0 at t2 seat 0
    assert sum(totals[0].values()) == 0.0


def test_another_result_for_a_counted_table_changes_nothing(roster, seatings):
    standings = Standings(roster, seatings)
    assert standings.add_result("t1", 1, T1)
    assert not standings.add_result("t1", 1, result(0.0, 0.0, 0.0, 0.0))
    assert standings.conflicts == 1
    assert standings.rows()[0]["name"] == "Anna Berg" and standings.rows()[0]["total"] == 45.0


@pytest.mark.parametrize("table, round_no, res, message", [
    ("t1", 1, result(1.0, 2.0, 3.0), "final must be 4 numbers"),
    ("t1", 1, result(1.0, 2.0, 3.0, True), "final must be 4 numbers"),
    ("t1", 1, result(1.0, 2.0, 3.0, float("nan")), "final must be 4 numbers"),
    ("t1", 1, result(1.0, 2.0, 3.0, -6.0, signed=False), "not signed by the referee"),
    ("t1", 0, T1, "round must be a number from 1"),
    ("t/1", 1, T1, "table must be a name"),
])
def test_a_result_that_is_not_a_signed_result_is_refused(roster, seatings, table, round_no,
                                                         res, message):
    standings = Standings(roster, seatings)
    with pytest.raises(ValueError, match=message):
        standings.add_result(table, round_no, res)
    assert standings.summary()["results"] == 0


def test_a_restart_neither_loses_nor_double_counts(tmp_path, roster, seatings):
    path = tmp_path / "standings.json"
    first = Standings(roster, seatings, path)
    assert first.add_result("t1", 1, T1) and first.add_result("t2", 1, T2)
    again = Standings(roster, seatings, path)             # the hall server restarted
    assert not again.add_result("t1", 1, T1)             # the broker delivers it again
    assert again.add_result("t2", 2, T2_R2)
    third = Standings(roster, seatings, path)
    assert {r["name"]: r["total"] for r in third.rows()} == \
        {r["name"]: r["total"] for r in again.rows()}
    assert third.summary()["results"] == 3 and not (tmp_path / "standings.json.tmp").exists()


@pytest.mark.parametrize("text, message", [
    ("{not json", "not a standings file"),
    ('{"format": "something else", "results": []}', "not a standings file"),
    ('{"format": "riichi-referee standings", "results": [{"table": "t1"}]}',
     "result 1 is damaged"),
])
def test_a_damaged_standings_file_is_named_and_kept(tmp_path, text, message):
    path = write(tmp_path, "standings.json", text)
    with pytest.raises(StandingsError, match=f"standings file {path}: {message}"):
        Standings(path=path)
    assert path.read_text(encoding="utf-8") == text


def test_totals_positions_and_ties(roster, seatings):
    standings = Standings(roster, seatings)
    standings.add_result("t1", 1, T1)
    standings.add_result("t2", 1, result(30.0, 5.0, -15.0, -20.0))  # Eva 30, Finn 5 (tie)
    rows = standings.rows()
    assert [(r["position"], r["name"], r["total"]) for r in rows] == [
        (1, "Anna Berg", 45.0), (2, "Eva Frost", 30.0), (3, "Bo Chen", 5.0),
        (3, "Finn Gale", 5.0), (5, "Carla Diaz", -15.0), (5, "Gus Hale", -15.0),
        (7, "Hana Ito", -20.0), (8, "Dirk Ek", -35.0)]
    assert rows[0]["rounds"] == {1: 45.0} and rows[0]["games"] == 1
    # the EMA's base rank: 1000 x (players - position) / (players - 1)
    assert [r["ema_base_rank"] for r in rows] == [1000, 857, 714, 714, 429, 429, 143, 0]


def test_tables_without_a_result_are_named_at_round_end(roster, seatings):
    standings = Standings(roster, seatings)
    assert standings.missing(2) == ["t2", "t10"]
    standings.add_result("t10", 2, T10_R2)
    standings.add_result("t9", 2, T1)                    # no such table in the seating
    assert standings.missing(2) == ["t2"] and standings.missing(1) == ["t1", "t2"]
    assert standings.unseated() == [(2, "t9")]
    assert standings.summary()["missing"] == {"1": ["t1", "t2"], "2": ["t2"]}


def test_a_result_before_its_seating_counts_once_the_seating_comes(roster, seatings):
    standings = Standings(roster, {1: seatings[1]})
    assert standings.add_result("t10", 2, T10_R2)
    assert {r["name"]: r["total"] for r in standings.rows()}["Bo Chen"] == 0.0
    standings.set_seating(2, seatings[2])
    assert {r["name"]: r["total"] for r in standings.rows()}["Bo Chen"] == -5.0


def test_the_ema_csv_reads_back(roster, seatings):
    standings = Standings(roster, seatings)
    for d in (("t1", 1, T1), ("t2", 1, T2), ("t2", 2, T2_R2), ("t10", 2, T10_R2)):
        standings.add_result(*d)
    out = io.StringIO(newline="")
    standings.write_csv(out)
    rows = list(csv.DictReader(io.StringIO(out.getvalue(), newline="")))
    assert tuple(rows[0]) == EMA_COLUMNS
    assert len(rows) == 8 and [int(r["Position"]) for r in rows] == sorted(
        int(r["Position"]) for r in rows)
    anna = next(r for r in rows if r["Last name"] == "Berg")
    assert anna == {"Position": "1", "First name": "Anna", "Last name": "Berg",
                    "EMA number": "04010001", "Table points": "", "Score": "55000",
                    "EMA member": "1", "Country": "SWE"}
    carla = next(r for r in rows if r["Last name"] == "Diaz")
    assert carla["EMA number"] == "" and carla["EMA member"] == "0"
    assert sum(int(r["Score"]) for r in rows) == 0


def test_the_json_export_reads_back(roster, seatings):
    standings = Standings(roster, seatings)
    standings.add_result("t1", 1, T1)
    out = io.StringIO()
    standings.write_json(out)
    data = json.loads(out.getvalue())
    assert data["rounds"] == [1, 2] and data["results"] == 1
    assert data["missing"] == {"1": ["t2"], "2": ["t2", "t10"]}
    top = data["players"][0]
    assert top["name"] == "Anna Berg" and top["rounds"] == {"1": 45.0} and top["total"] == 45.0
    assert top["position"] == 1 and top["ema"] == "04010001" and top["country"] == "SWE"
