"""`riichi-referee replay`: rulings on stdout one per line; a malformed line stops the replay
with exit 2 and a one-line message naming the line, and the rulings printed before it stand."""
import json
import subprocess
import sys

import pytest

from referee.cli import main
from referee.simulate import script, simulate

GOOD = script("0 gs ema2012", "0 hs 0", "1 d0 3p", "1.5 c2 pon", "2 m2 pon 333p 3p@0",
              "2.8 d2 9s", "4 d3 4m", "4.4 c0 chii")


def write(tmp_path, lines):
    path = tmp_path / "events.jsonl"
    path.write_text("".join((l if isinstance(l, str) else json.dumps(l)) + "\n" for l in lines))
    return path


def replay(capsys, *argv):
    code = main(["replay", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, [json.loads(l) for l in out.splitlines()], err


def test_replay_prints_one_ruling_per_line(tmp_path, capsys):
    code, rulings, err = replay(capsys, write(tmp_path, GOOD))
    assert code == 0 and err == ""
    assert [r["type"] for r in rulings] == ["claim", "claim"]
    assert rulings[0]["winners"] == [{"seat": 2, "call": "pon"}]
    # the chii on seat 3's discard is open at the end of the file: it closes then
    assert rulings[1]["winners"] == [{"seat": 0, "call": "chii"}] and rulings[1]["t"] == 7.0


def test_ruleset_option_overrides_the_game(tmp_path, capsys):
    events = script("0 gs ema2012", "0 hs 0", "1 d0 3p", "1.2 c3 ron", "1.4 c2 ron")
    path = write(tmp_path, events)
    _, head_bump, _ = replay(capsys, path)
    _, double, _ = replay(capsys, path, "--ruleset", "tenhou")
    assert len(head_bump[0]["winners"]) == 1 and len(double[0]["winners"]) == 2


BAD_LINES = {
    "not JSON": ("{oops", "not valid JSON"),
    "unknown type": ({"type": "shout", "t": 9}, "unknown event type 'shout'"),
    "unknown tile": ({"type": "discard", "t": 9, "seat": 1, "tile": "8z"}, "unknown tile code '8z'"),
    "seat 5": ({"type": "discard", "t": 9, "seat": 5, "tile": "1m"}, "outside 0-3"),
    "missing key": ({"type": "discard", "t": 9, "seat": 1}, "missing key 'tile'"),
    "t backwards": ({"type": "discard", "t": 1.0, "seat": 1, "tile": "1m"}, "goes back in time"),
}


@pytest.mark.parametrize("case", sorted(BAD_LINES))
def test_malformed_line_stops_with_exit_2_and_keeps_earlier_rulings(tmp_path, capsys, case):
    bad, reason = BAD_LINES[case]
    lines = GOOD[:-2] + [bad] + GOOD[-2:]
    path = write(tmp_path, lines)
    code, rulings, err = replay(capsys, path)
    assert code == 2
    assert err.count("\n") == 1
    assert err.startswith(f"riichi-referee replay: {path}: line {len(GOOD) - 1}: ")
    assert reason in err
    # the pon decided before the bad line was printed and stands
    assert [r["type"] for r in rulings] == ["claim"]


def test_unknown_ruleset_in_game_start_names_the_line(tmp_path, capsys):
    ev = dict(GOOD[0], ruleset="house")
    code, rulings, err = replay(capsys, write(tmp_path, [ev] + GOOD[1:]))
    assert code == 2 and "line 1" in err and "unknown ruleset 'house'" in err
    assert err.count("\n") == 1


def test_unknown_ruleset_option(tmp_path, capsys):
    code, _, err = replay(capsys, write(tmp_path, GOOD), "--ruleset", "house")
    assert code == 2 and "unknown ruleset 'house'" in err and err.count("\n") == 1


def test_missing_file_is_one_line(tmp_path, capsys):
    code, rulings, err = replay(capsys, tmp_path / "nope.jsonl")
    assert code == 2 and rulings == []
    assert err.startswith("riichi-referee replay: ") and "nope.jsonl" in err
    assert err.count("\n") == 1


def test_blank_lines_are_skipped_and_numbers_still_count_them(tmp_path, capsys):
    path = tmp_path / "e.jsonl"
    path.write_text(json.dumps(GOOD[0]) + "\n\n" + "nonsense\n")
    code, _, err = replay(capsys, path)
    assert code == 2 and ": line 3: " in err


def test_console_script_flushes_rulings_before_the_error(tmp_path):
    events = simulate(seed=2, hands=3)
    path = write(tmp_path, events + ["not json"])
    proc = subprocess.run([sys.executable, "-m", "referee", "replay", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert f"line {len(events) + 1}" in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stdout.splitlines()) > 0
