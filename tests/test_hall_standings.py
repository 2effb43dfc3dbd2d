"""The standings where the head referee and the organiser see them: the hall page (Flask test
client), ``[standings]`` of hall.toml, the hall command's ``--roster``/``--seating`` and
``riichi-referee standings`` writing the EMA CSV and the JSON."""
from __future__ import annotations

import csv
import json
import re
from argparse import Namespace

import pytest

from app import cli
from app.commands.hall import open_standings, with_standings
from hall.board import Board
from hall.config import load_hall_config
from hall.standings import EMA_COLUMNS, Standings
from web.pin import hash_pin
from web.hall import create_hall_app

from test_standings import ROSTER, ROUND1, ROUND2, T1, T2, T10_R2

PIN = "2468"
PIN_HASH = hash_pin(PIN)   # once: hashing is slow on purpose


@pytest.fixture
def hall_dir(tmp_path):
    (tmp_path / "roster.csv").write_text(ROSTER, encoding="utf-8")
    (tmp_path / "round-1.csv").write_text(ROUND1, encoding="utf-8")
    (tmp_path / "round-2.csv").write_text(ROUND2, encoding="utf-8")
    (tmp_path / "hall.toml").write_text(
        '[hall]\nname = "open"\ntitle = "Spring Open"\n\n[standings]\nroster = "roster.csv"\n'
        'seating = { 1 = "round-1.csv" }\n', encoding="utf-8")
    return tmp_path


def args(**kw):
    return Namespace(**{"roster": None, "seating": [], **kw})


def test_hall_toml_names_the_files_and_the_command_line_adds_a_round(hall_dir):
    settings = with_standings(load_hall_config(hall_dir / "hall.toml"),
                              args(seating=[f"2={hall_dir / 'round-2.csv'}"]))
    own = settings.standings
    assert own.roster == hall_dir / "roster.csv" and own.file == hall_dir / "standings.json"
    assert sorted(own.seating) == [1, 2]
    standings = open_standings(settings)
    assert standings.rounds() == [1, 2] and standings.missing(2) == ["t2", "t10"]


@pytest.mark.parametrize("section, message", [
    ('seating = { one = "r.csv" }', "[standings] seating: one = 'r.csv' must be ROUND = "),
    ('seating = "r.csv"', "[standings] seating = 'r.csv' must be a table of round"),
    ('rooster = "r.csv"', "unknown key 'rooster' in [standings]"),
])
def test_a_bad_standings_section_is_one_line(tmp_path, capsys, section, message):
    (tmp_path / "hall.toml").write_text(f'[hall]\nname = "open"\n[standings]\n{section}\n')
    assert cli.main(["standings", "--config", str(tmp_path / "hall.toml")]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_bad_seating_stops_the_hall_before_it_starts(hall_dir, capsys):
    (hall_dir / "round-2.csv").write_text("table,seat,player\nt1,0,Anna Berg\nt1,0,Bo Chen\n")
    assert cli.main(["hall", "--config", str(hall_dir / "hall.toml"), "--seating",
                     f"2={hall_dir / 'round-2.csv'}"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"riichi-referee hall: seating {hall_dir / 'round-2.csv'} row 3: table t1 seat 0 is "
        "taken twice (row 2 too)")
    assert not (hall_dir / "standings.json").exists()


def test_the_standings_command_writes_what_the_hall_collected(hall_dir, capsys):
    hall = Standings(path=hall_dir / "standings.json")    # the hall's server, roster or not
    assert hall.add_result("t1", 1, T1) and hall.add_result("t2", 1, T2)
    assert hall.add_result("t10", 2, T10_R2)
    out_csv, out_json = hall_dir / "ema.csv", hall_dir / "standings-out.json"
    assert cli.main(["standings", "--config", str(hall_dir / "hall.toml"), "--seating",
                     f"2={hall_dir / 'round-2.csv'}", "--csv", str(out_csv),
                     "--json", str(out_json)]) == 0
    with open(out_csv, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert tuple(rows[0]) == EMA_COLUMNS and len(rows) == 8
    assert (rows[0]["Last name"], rows[0]["Position"], rows[0]["Score"]) == ("Berg", "1", "45000")
    data = json.loads(out_json.read_text(encoding="utf-8"))
    assert data["results"] == 3 and data["missing"] == {"2": ["t2"]}
    assert cli.main(["standings", "--config", str(hall_dir / "hall.toml")]) == 0
    printed = capsys.readouterr().out
    assert re.search(r"^\s+1\s+Anna Berg\s+SWE\s+\+45\.0\s+-\s+\+45\.0$", printed, re.M)
    assert "round 2: a result from table t10, not in that round's seating" in printed


@pytest.fixture
def client(hall_dir):
    standings = open_standings(with_standings(load_hall_config(hall_dir / "hall.toml"),
                                              args(seating=[f"2={hall_dir / 'round-2.csv'}"])))
    standings.add_result("t1", 1, T1)
    standings.add_result("t2", 1, T2)
    standings.add_result("t10", 2, T10_R2)
    app = create_hall_app(Board("open", "Spring Open"), pin_hash=PIN_HASH, secret_key="t",
                          standings=standings)
    app.testing = True
    c = app.test_client()
    page = c.get("/login").get_data(as_text=True)
    csrf = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)
    assert c.post("/login", data={"pin": PIN, "csrf_token": csrf}).status_code == 303
    return c


def table_rows(html: str) -> list[list[str]]:
    """The cells of each row of an HTML table, as text (tags dropped, spaces joined)."""
    return [[" ".join(re.sub(r"<[^>]+>", " ", c).split())
             for c in re.findall(r"<t[hd]\b[^>]*>(.*?)</t[hd]>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", html, re.S)]


def test_the_hall_page_shows_the_standings_and_the_missing_tables(client):
    page = client.get("/standings").get_data(as_text=True)
    rows = table_rows(page.split('id="standings"', 1)[1].split("</table>", 1)[0])
    assert rows[0] == ["#", "Player", "Country", "Total", "R1", "R2"]
    assert rows[1] == ["1", "Anna Berg 04010001", "SWE", "+45.0", "+45.0", "–"]
    assert [r[1] for r in rows[1:]].index("Carla Diaz") == 5      # no EMA number
    assert len(rows) == 9 and all(len(r) == 6 for r in rows)
    missing = page.split('id="missing"', 1)[1].split("</section>", 1)[0]
    assert "Round 2" in missing and '<a class="mtable" href="/t/t2/">t2</a>' in missing
    assert "Round 1" not in missing
    assert 'name="viewport"' in page                                  # readable on a phone
    assert client.get("/").get_data(as_text=True).count('href="/standings"') == 1
    assert 'id="conflicts"' not in page


def test_a_second_different_result_is_told_to_the_head_referee(hall_dir, client):
    standings = client.application.extensions["riichi"].standings
    assert not standings.add_result("t1", 1, {"final": [0.0] * 4, "referee_signed": True})
    page = client.get("/standings").get_data(as_text=True)
    assert re.search(r"1 time\s+a table sent a second, different result", page)
    assert table_rows(page.split('id="standings"', 1)[1])[1][3] == "+45.0"   # the first stands


def test_the_exports_download_from_the_page(client):
    r = client.get("/standings.csv")
    assert r.status_code == 200 and "attachment" in r.headers["Content-Disposition"]
    rows = list(csv.reader(r.get_data(as_text=True).splitlines()))
    assert tuple(rows[0]) == EMA_COLUMNS and len(rows) == 9
    data = json.loads(client.get("/standings.json").get_data(as_text=True))
    assert data["players"][0]["name"] == "Anna Berg" and data["missing"] == {"2": ["t2"]}


def test_the_standings_are_behind_the_pin_and_a_hall_without_a_roster_says_so():
    app = create_hall_app(Board("open"), pin_hash=PIN_HASH, secret_key="t")
    c = app.test_client()
    assert c.get("/standings").headers["Location"].endswith("/login")
    assert c.get("/standings.json").status_code == 401
    page = c.get("/login").get_data(as_text=True)
    csrf = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)
    c.post("/login", data={"pin": PIN, "csrf_token": csrf})
    assert 'id="no-standings"' in c.get("/standings").get_data(as_text=True)
    assert c.get("/standings.csv").status_code == 404


def test_the_hall_server_keeps_what_it_counted_across_a_restart(hall_dir):
    """What `riichi-referee hall` builds: its standings come from hall.toml, and a result
    counted before a restart is there after it, and is not counted again."""
    from app.commands.hall import build

    settings = with_standings(load_hall_config(hall_dir / "hall.toml"), args())
    _, _, app = build(settings, start=False)
    assert app.extensions["riichi"].standings.add_result("t1", 1, T1)
    _, _, app = build(settings, start=False)                  # the server restarted
    standings = app.extensions["riichi"].standings
    assert standings.missing(1) == ["t2"] and not standings.add_result("t1", 1, T1)
    assert standings.rows()[0]["total"] == 45.0
