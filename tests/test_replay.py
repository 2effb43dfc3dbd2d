"""`riichi-referee replay`: rulings on stdout one per line; a malformed line stops the replay
with exit 2 and a one-line message naming the line, and the rulings printed before it stand."""
import io
import json
import subprocess
import sys

import pytest

from app.cli import main
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
    proc = subprocess.run([sys.executable, "-m", "app", "replay", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert f"line {len(events) + 1}" in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stdout.splitlines()) > 0


# -- a malformed line does not lose what the good lines before it decided --------------------

CHII = script("0 gs ema2012", "0 hs 0", "1 d0 3p", "1.5 c1 chii")
PAST_WINDOW = [{"type": "discard", "t": 9, "seat": 1, "tile": "8z"}, "{oops",
               {"type": {}, "t": 9, "seat": 1, "tile": "1m"},
               {"type": "game_start", "t": 9, "ruleset": "house", "scores": [0, 0, 0, 0]}]


@pytest.mark.parametrize("bad", PAST_WINDOW, ids=["bad-tile", "not-json", "type-object",
                                                  "unknown-ruleset"])
def test_a_claim_due_before_a_malformed_line_is_printed_before_the_error(bad, capsys):
    # the chii's window closes at 4.0, before the bad line (t=9, or no t at all): its ruling
    # was due, and comes out as at the end of a file, then the error, then exit 2
    from referee.replay import replay as run
    both = io.StringIO()
    lines = [json.dumps(e) for e in CHII] + [bad if isinstance(bad, str) else json.dumps(bad)]
    code = run(lines, both, both, "e.jsonl")
    assert code == 2
    *rulings, error = both.getvalue().splitlines()
    claim = json.loads(rulings[0])
    assert len(rulings) == 1 and claim["type"] == "claim"
    assert claim["winners"] == [{"seat": 1, "call": "chii"}] and claim["t"] == 4.0
    assert error.startswith("riichi-referee replay: e.jsonl: line 5: ")


def test_a_malformed_line_inside_the_window_still_closes_it_as_at_the_end(capsys):
    # the near miss: no ruling was due yet at the bad line, but the end of the input closes
    # every open window, so the chii still stands
    from referee.replay import replay as run
    out, err = io.StringIO(), io.StringIO()
    lines = [json.dumps(e) for e in CHII] + ['{"type": "discard", "t": 2, "seat": 1}']
    assert run(lines, out, err, "e.jsonl") == 2
    (claim,) = [json.loads(l) for l in out.getvalue().splitlines()]
    assert claim["winners"] == [{"seat": 1, "call": "chii"}]
    assert err.getvalue().count("\n") == 1 and "missing key 'tile'" in err.getvalue()


def test_broken_bytes_are_named_at_their_own_line_after_the_good_lines(tmp_path, capsys):
    # read line by line: bad UTF-8 on line 5 does not hide lines 1-4 (a text reader decodes
    # a whole block at once and would fail before yielding any of them)
    path = tmp_path / "e.jsonl"
    path.write_bytes(b"".join(json.dumps(e).encode() + b"\n" for e in CHII)
                     + b'{"type": "note", "t": 9, "text": "caf\xe9"}\n')
    code, rulings, err = replay(capsys, path)
    assert code == 2 and ": line 5: not UTF-8 text" in err and err.count("\n") == 1
    assert [r["winners"] for r in rulings] == [[{"seat": 1, "call": "chii"}]]


# -- values of the wrong shape are malformed, named in one line ------------------------------

ODD = {
    "type-object": ({"type": {}, "t": 3, "seat": 0, "tile": "1m"}, "unknown event type {}"),
    "type-list": ({"type": ["discard"], "t": 3, "seat": 0, "tile": "1m"},
                  "unknown event type ['discard']"),
    "tile-object": ({"type": "discard", "t": 3, "seat": 0, "tile": {"a": 1}},
                    "'tile' must be a tile code"),
    "tiles-nested": ({"type": "meld", "t": 3, "seat": 0, "kind": "pon", "tiles": [["1m"]]},
                     "'tiles' must be a tile code"),
    "call-list": ({"type": "call", "t": 3, "seat": 0, "call": ["ron"]}, "unknown call"),
    "wind-object": ({"type": "hand_start", "t": 3, "round_wind": {}, "dealer": 0, "honba": 0,
                     "riichi_sticks": 0, "dora_indicators": ["1m"]}, "'round_wind' must be"),
    "action-list": ({"type": "referee", "t": 3, "action": [], "text": ""},
                    "unknown referee action []"),
    "kind-object": ({"type": "meld", "t": 3, "seat": 0, "kind": {}, "tiles": []},
                    "unknown meld kind {}"),
    "t-huge-int": ('{"type": "discard", "t": 1' + "0" * 400 + ', "seat": 0, "tile": "1m"}',
                   "'t' must be a number of seconds"),
    "t-NaN": ('{"type": "discard", "t": NaN, "seat": 0, "tile": "1m"}',
              "'t' must be a number of seconds"),
    "int-too-long": ('{"type": "discard", "t": 3, "seat": ' + "1" * 5000 + ', "tile": "1m"}',
                     "not valid JSON"),
    "deep-list": ('{"type": "discard", "t": 3, "seat": ' + "[" * 100000 + "]" * 100000
                  + ', "tile": "1m"}', "not valid JSON"),
    "honba-huge": ({"type": "hand_start", "t": 3, "round_wind": "E", "dealer": 0,
                    "honba": 10 ** 30, "riichi_sticks": 0, "dora_indicators": ["1m"]},
                   "'honba' must be a whole number from 0 to 10,000"),
    "scores-huge": ({"type": "game_start", "t": 3, "ruleset": "tenhou",
                     "scores": [10 ** 400, 0, 0, 0]}, "'scores' must be a list of 4 integers"),
}


@pytest.mark.parametrize("case", sorted(ODD))
def test_a_value_of_the_wrong_shape_is_one_line_not_a_traceback(tmp_path, capsys, case):
    bad, reason = ODD[case]
    lines = GOOD[:2] + [bad]
    code, rulings, err = replay(capsys, write(tmp_path, lines))
    assert code == 2 and err.count("\n") == 1 and len(err) < 300, err
    assert ": line 3: " in err and reason in err


def test_a_well_formed_neighbour_of_those_values_is_judged(tmp_path, capsys):
    # the near miss: the same events with values of the right shape replay cleanly
    lines = GOOD[:2] + [{"type": "discard", "t": 3, "seat": 0, "tile": "1m"},
                        {"type": "call", "t": 3.2, "seat": 2, "call": "pon"}]
    code, rulings, err = replay(capsys, write(tmp_path, lines))
    assert code == 0 and err == "" and rulings[0]["winners"] == [{"seat": 2, "call": "pon"}]
