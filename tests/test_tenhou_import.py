"""The Tenhou importer: meld codes, red fives, riichi, double ron, kans and their dora, the
timing of the events, gzip and bad input; then every shared log imported, checked against the
event format and the timing rules, and every recorded win scored independently.

SNIPPET is a hand-made two-hand mjlog (so something runs without ../shared):

* E1-0: seat 0 discards 5s, seat 1 chiis it (4s-5s-6s) and discards East, seat 3 pons it;
  seat 2 declares riichi on 9m; seat 3 discards 4p and seats 0 and 2 both ron.
  Seat 0 (dealer): 123456789m 234p 55s, ittsu 2 + pinfu 1, 30 fu: 5800, plus the riichi
  stick as the winner nearest the discarder: +6800. Seat 2: 123s 0p67p 789s 222z + 4p tanki,
  riichi + ippatsu + red five + ura 3 (ura indicator East: the South triplet), 40 fu,
  haneman 12000. Seat 3 pays 17800.
* E1-1: the dealer (seat 0) draws the fourth 9p and makes a closed kan (dora 7z at once);
  seat 2 makes an open kan of seat 1's White (its dora 3z after seat 2's next discard);
  seat 1 pons seat 3's Green, later adds the fourth and wins on the replacement tile:
  rinshan + Green, 20 + open honor kan 16 + tsumo 2 = 38 -> 40 fu, 2 han: 1300 from the
  dealer and 700 from each other, plus 100 each for the honba: +3000.
"""
import gzip
import json

import pytest

from app.cli import main
from referee.errors import RefereeError
from referee.events import EventReader, parse_event
from referee.scoring import is_tenpai, score_win
from referee.tenhou import import_log, import_text
from referee.tenhou.mjlog import decode_meld
from referee.tenhou.tenhou6 import interleave

SNIPPET = """<mjloggm ver="2.3">
    <GO type="169" lobby="0"/>
    <UN n0="%E3%81%82" n1="Bob" n2="Carol" n3="Dan" dan="0,0,0,0" rate="1500.00,1500.00,1500.00,1500.00" sx="M,F,F,M"/>
    <TAIKYOKU oya="0"/>
    <INIT seed="0,0,0,2,3,68" ten="250,250,250,250" oya="0" hai0="0,4,8,12,17,20,24,28,32,40,44,89,90" hai1="84,92,100,5,6,18,45,46,56,60,64,69,109" hai2="72,76,80,52,57,61,96,101,104,112,113,114,48" hai3="110,111,105,116,117,120,121,124,29,30,1,77,49"/>
    <T91/>
    <D91/>
    <N who="1" m="53351" />
    <E109/>
    <N who="3" m="41482" />
    <G105/>
    <T132/>
    <D132/>
    <U78/>
    <E100/>
    <V33/>
    <REACH who="2" step="1"/>
    <F33/>
    <REACH who="2" ten="250,250,240,250" step="2"/>
    <W9/>
    <G49/>
    <AGARI ba="0,1" hai="0,4,8,12,17,20,24,28,32,40,44,49,89,90" machi="49" ten="30,5800,0" yaku="7,1,24,2" doraHai="68" who="0" fromWho="3" sc="250,68,250,0,240,0,250,-58" />
    <AGARI ba="0,0" hai="48,49,52,57,61,72,76,80,96,101,104,112,113,114" machi="49" ten="40,12000,2" yaku="1,1,2,1,53,3,54,1" doraHai="68" doraHaiUra="108" who="2" fromWho="3" sc="318,0,250,0,240,120,192,-120" />
    <INIT seed="0,1,0,4,1,120" ten="318,250,360,72" oya="0" hai0="68,69,70,72,73,76,17,24,28,44,48,108,112" hai1="128,129,0,4,8,49,53,56,96,100,40,41,124" hai2="125,126,127,1,32,80,84,92,60,64,5,9,12" hai3="130,20,21,25,104,105,36,37,54,101,116,121,132"/>
    <T71/>
    <N who="0" m="17408" />
    <DORA hai="133" />
    <T93/>
    <D112/>
    <U18/>
    <E124/>
    <N who="2" m="31747" />
    <V97/>
    <DORA hai="117" />
    <F32/>
    <W77/>
    <G130/>
    <N who="1" m="50282" />
    <E18/>
    <V74/>
    <F74/>
    <W106/>
    <G106/>
    <T102/>
    <D102/>
    <U131/>
    <N who="1" m="50290" />
    <U107/>
    <AGARI ba="1,0" hai="0,4,8,40,41,49,53,56,96,100,107" m="50290" machi="107" ten="40,2700,0" yaku="4,1,19,1" doraHai="120,132,116" who="1" fromWho="1" sc="318,-14,250,30,360,-8,72,-8" owari="304,10.0,280,-12.0,352,46.0,64,-44.0" />
</mjloggm>
"""
EPS = 1e-6


def snippet_game(text=SNIPPET):
    return import_text(text, "snippet.mjlog")


def of_type(events, kind):
    return [e for e in events if e["type"] == kind]


# -- meld codes ------------------------------------------------------------------------------

MELDS = [
    # (who, code, red fives, expected) -- codes from real Tenhou games, decoded by hand:
    # 25631 = 25<<10 | ...: chii (bit 2), from kamicha (3); 25 = base 8 * 3 + called 1;
    # base 8 of the 21 sequence starts = 2p; tiles 2p3p4p, the middle one called
    (0, 25631, True, ("call", "chii", ["2p", "3p", "4p"], "3p", 3, None)),
    # 50761: pon (bit 3) from the next seat (1): 50761>>9 = 99 = 33*3 + 0 -> kind 33 (7z)
    (3, 50761, True, ("call", "pon", ["7z", "7z", "7z"], "7z", 0, None)),
    # 28722: added kan (bit 4) from across (2): 28722>>9 = 56 = 18*3 + 2 -> 1s, the unused
    # copy (bits 5-6 = 1) is the added tile
    (1, 28722, True, ("kan", "shouminkan", ["1s", "1s", "1s", "1s"], "1s", 3, "1s")),
    # 1024 = 4<<8, from itself: closed kan of kind 1 (2m)
    (1, 1024, True, ("kan", "ankan", ["2m", "2m", "2m", "2m"], None, None, None)),
    # 27139 = 106<<8 | 3: open kan of kind 26 (9s) from the left
    (3, 27139, True, ("call", "daiminkan", ["9s", "9s", "9s", "9s"], "9s", 2, None)),
    # 5m pon holding the red one (copy 0): 0m when the game has red fives, 5m otherwise
    (0, (4 * 3 + 0) << 9 | 3 << 5 | 0x8 | 1, True,
     ("call", "pon", ["0m", "5m", "5m"], "0m", 1, None)),
    (0, (4 * 3 + 0) << 9 | 3 << 5 | 0x8 | 1, False,
     ("call", "pon", ["5m", "5m", "5m"], "5m", 1, None)),
]


@pytest.mark.parametrize("who, code, red, expected", MELDS)
def test_meld_codes(who, code, red, expected):
    assert decode_meld(who, code, red) == expected


# -- the snippet -----------------------------------------------------------------------------

def test_snippet_game_start_and_hands():
    game = snippet_game()
    start = game.events[0]
    assert start["type"] == "game_start" and start["ruleset"] == "tenhou"
    assert start["scores"] == [25000] * 4
    assert start["names"] == ["\u3042", "Bob", "Carol", "Dan"]   # URL-decoded
    assert start["game_length"] == "south"
    hand_starts = of_type(game.events, "hand_start")
    assert [(h["round_wind"], h["dealer"], h["honba"], h["riichi_sticks"], h["dora_indicators"])
            for h in hand_starts] == [("E", 0, 0, 0, ["9p"]), ("E", 0, 1, 0, ["4z"])]
    assert [h.label for h in game.hands] == ["E1-0", "E1-1"]


def test_snippet_chii_pon_and_riichi():
    events = snippet_game().events
    melds = of_type(events, "meld")
    assert melds[0] == {"type": "meld", "t": melds[0]["t"], "seat": 1, "kind": "chii",
                        "tiles": ["4s", "5s", "6s"], "called": "5s", "from": 0}
    assert melds[1]["kind"] == "pon" and melds[1]["seat"] == 3
    assert (melds[1]["called"], melds[1]["from"]) == ("1z", 1)
    riichi = [e for e in of_type(events, "discard") if e.get("riichi")]
    assert [(e["seat"], e["tile"]) for e in riichi] == [(2, "9m")]
    # only seats that called press, with the call they made
    presses = [(e["seat"], e["call"]) for e in of_type(events, "call")]
    assert presses[:2] == [(1, "chii"), (3, "pon")]


def test_snippet_double_ron():
    game = snippet_game()
    hand = game.hands[0]
    assert hand.result == "ron"
    assert [(w.seat, w.from_seat, w.han, w.fu, w.points) for w in hand.wins] == \
        [(0, 3, 3, 30, 5800), (2, 3, 6, 40, 12000)]
    assert hand.wins[0].payments == [6800, 0, 0, -5800]
    assert hand.wins[1].payments == [0, 0, 12000, -12000]
    assert hand.scores == [31800, 25000, 36000, 7200]
    assert set(hand.wins[1].yaku_names) == {"riichi", "ippatsu", "ura dora", "red five"}
    reveals = of_type(game.events, "reveal")[:2]
    assert [r["seat"] for r in reveals] == [0, 2]
    assert "0p" in reveals[1]["tiles"] and reveals[1]["win_tile"] == "4p"
    assert reveals[1]["ura_indicators"] == ["1z"]
    assert "ura_indicators" not in reveals[0]          # seat 0 was not in riichi
    s = hand.wins[1].situation
    assert (s.riichi, s.ippatsu, s.double_riichi, s.seat_wind) == (True, True, False, "W")
    # both ron presses inside the discard's window, nearest seat first
    discard = [e for e in of_type(game.events, "discard") if e["tile"] == "4p"][0]
    rons = [e for e in of_type(game.events, "call") if e["call"] == "ron"][:2]
    assert [e["seat"] for e in rons] == [0, 2]
    assert all(0.3 - EPS <= e["t"] - discard["t"] <= 1.5 + EPS for e in rons)


def test_snippet_kans_dora_and_rinshan():
    game = snippet_game()
    events = game.events[[e["type"] for e in game.events].index("hand_start", 2):]
    kinds = [(e["type"], e.get("kind") or e.get("call") or e.get("indicator"))
             for e in events if e["type"] in ("call", "meld", "dora")]
    assert kinds == [
        ("call", "kan"), ("meld", "ankan"), ("dora", "7z"),           # closed kan: at once
        ("call", "kan"), ("meld", "daiminkan"), ("dora", "3z"),       # after the discard
        ("call", "pon"), ("meld", "pon"),
        ("call", "kan"), ("meld", "shouminkan"),                      # robbed by nobody
        ("call", "ron"),                                              # tsumo on rinshan
    ]
    daiminkan = of_type(events, "meld")[1]
    after = events[events.index(daiminkan) + 1:]
    assert after[0]["type"] == "discard" and after[0]["seat"] == 2
    assert after[1] == {"type": "dora", "t": round(after[0]["t"] + 0.1, 3), "indicator": "3z"}
    added = of_type(events, "meld")[3]
    assert added == {"type": "meld", "t": added["t"], "seat": 1, "kind": "shouminkan",
                     "tiles": ["6z"] * 4, "called": "6z", "from": 3, "added": "6z"}
    hand = game.hands[1]
    assert hand.result == "tsumo"
    win = hand.wins[0]
    assert (win.seat, win.from_seat, win.han, win.fu, win.points) == (1, None, 2, 40, 2700)
    assert win.payments == [-1400, 3000, -800, -800]
    assert win.situation.rinshan and win.situation.tsumo
    # the added kan's own dora is never flipped: the rinshan win comes first
    assert win.situation.dora_indicators == ("4z", "7z", "3z")
    assert game.final_scores == [30400, 28000, 35200, 6400]
    assert game.final_points == [10.0, -12.0, 46.0, -44.0]


def test_snippet_wins_score_as_recorded():
    for hand in snippet_game().hands:
        for w in hand.wins:
            got = score_win(w.concealed, w.melds, w.win_tile, w.situation,
                            {"double_yakuman": False})
            assert (got.han, got.fu, got.points) == (w.han, w.fu, w.points)
            assert got.total == w.payments[w.seat]


def test_no_red_fives_when_the_game_has_none():
    # GO type flag 0x02: a game without red fives; the copy-0 fives are plain
    game = snippet_game(SNIPPET.replace('<GO type="169"', '<GO type="171"'))
    assert game.red_fives is False
    assert game.events[0]["red_fives"] is False
    tiles = json.dumps(game.events)
    assert '"0p"' not in tiles and '"0m"' not in tiles and '"0s"' not in tiles
    assert "5p" in of_type(game.events, "reveal")[1]["tiles"]


def test_no_open_tanyao_flag():
    # GO type flag 0x04: a room without open tanyao
    game = snippet_game(SNIPPET.replace('<GO type="169"', '<GO type="173"'))
    assert game.open_tanyao is False and game.events[0]["open_tanyao"] is False
    assert "open_tanyao" not in snippet_game().events[0]


def nine_terminals_log(rule=None):
    hands = [[11, 19, 21, 29, 31, 39, 41, 42, 43, 44, 51, 12, 13],
             [14, 15, 16, 17, 18, 22, 23, 24, 25, 26, 27, 28, 32],
             [33, 34, 35, 36, 37, 38, 45, 45, 46, 46, 47, 47, 12],
             [13, 14, 15, 16, 17, 18, 22, 23, 24, 25, 26, 27, 28]]
    entry = [[0, 0, 0], [25000] * 4, [19], []]
    for s, h in enumerate(hands):
        entry += [h, [45] if s == 0 else [], []]
    entry.append(["九種九牌"])
    data = {"name": ["A", "B", "C", "D"], "log": [entry]}
    if rule is not None:
        data["rule"] = rule
    return json.dumps(data)


def test_tenhou6_red_fives_from_the_rule_or_the_tiles():
    assert import_text(nine_terminals_log(), "t6.json").red_fives is True     # a 51 in play
    assert import_text(nine_terminals_log({"disp": "般東喰", "aka": 0}),
                       "t6.json").red_fives is False
    game = import_text(nine_terminals_log({"disp": "般東", "aka": 1}), "t6.json")
    assert (game.red_fives, game.open_tanyao, game.game_length) == (True, False, "east")
    hand = game.hands[0]
    assert (hand.result, hand.reason) == ("abortive", "nine_terminals")
    # the dealer lays its fourteen tiles open on its first turn, no button pressed
    assert [e["type"] for e in game.events] == ["game_start", "hand_start", "reveal"]
    reveal = game.events[-1]
    assert (reveal["seat"], reveal["win_tile"], len(reveal["tiles"])) == (0, "5z", 14)
    assert reveal["t"] - game.events[1]["t"] >= 2.0


# -- timing ----------------------------------------------------------------------------------

def check_flow(events):
    """The event flow the rules core relies on (see referee.tenhou.to_events' docstring)."""
    assert events[0]["type"] == "game_start"
    last_t = 0.0
    window = None        # (t, seat, tile, kind) of the last discard or added kan
    prev = None
    kakan_at = None
    presses = {}
    for e in events:
        parse_event(e)
        t = e["t"]
        assert t >= last_t, e
        last_t = t
        kind = e["type"]
        where = f"{kind} at t={t}"
        if kind == "hand_start":
            window = kakan_at = None
            presses = {}
        elif kind == "discard":
            if prev["type"] == "discard":
                assert 1.0 - EPS <= t - prev["t"] <= 2.0 + EPS, where
            if kakan_at is not None:
                assert t - kakan_at >= 3.2, where
            window = (t, e["seat"], e["tile"], "discard")
            kakan_at = None
            presses = {}
        elif kind == "call":
            if window is not None and t - window[0] <= 3.0:
                # a claim on the discard (or a chankan ron on the added kan)
                assert 0.3 - EPS <= t - window[0] <= 1.5 + EPS, where
                assert e["seat"] != window[1], where
                if window[3] == "kakan":
                    assert e["call"] == "ron", where
                presses[e["seat"]] = e["call"]
            else:
                # own turn: tsumo or a closed/added kan, after the last window closed
                assert e["call"] in ("ron", "kan"), where
                assert window is None or t - window[0] >= 3.2, where
                presses = {e["seat"]: e["call"]}
        elif kind == "meld":
            if e["kind"] in ("chii", "pon", "daiminkan"):
                assert window is not None and abs(t - window[0] - 3.3) < EPS, where
                assert (e["from"], e["called"]) == (window[1], window[2]), where
                assert presses.get(e["seat"]) == ("kan" if e["kind"] == "daiminkan"
                                                  else e["kind"]), where
                assert e["called"] in e["tiles"] and len(e["tiles"]) in (3, 4), where
            else:
                assert prev["type"] == "call" and prev["call"] == "kan", where
                assert prev["seat"] == e["seat"] and abs(t - prev["t"] - 0.5) < EPS, where
                assert len(e["tiles"]) == 4, where
                if e["kind"] == "shouminkan":
                    assert e["added"] in e["tiles"] and "called" in e and "from" in e, where
                    window = (t, e["seat"], e["added"], "kakan")
                    kakan_at = t
                    presses = {}
        elif kind == "dora":
            ok = (prev["type"] == "meld" and prev["kind"] == "ankan"
                  and abs(t - prev["t"] - 0.2) < EPS) \
                or (prev["type"] == "discard" and abs(t - prev["t"] - 0.1) < EPS) \
                or (prev["type"] == "meld" and prev["kind"] == "shouminkan"
                    and abs(t - prev["t"] - 3.3) < EPS) \
                or prev["type"] == "dora"
            assert ok, where
        elif kind == "reveal":
            assert e["win_tile"] in e["tiles"], where
            if e["seat"] not in presses:
                # nine terminals: laid open on its own turn, after the last window closed
                assert window is None or t - window[0] >= 3.2, where
            elif presses.get(e["seat"]) == "ron" and window is not None \
                    and t - window[0] >= 3.3 - EPS and t - window[0] <= 3.6:
                pass                                        # ron after the window closed
            else:
                assert prev["type"] in ("call", "reveal"), where
                assert prev["type"] == "reveal" or (prev["seat"] == e["seat"]
                                                    and abs(t - prev["t"] - 0.5) < EPS), where
        elif kind == "tenpai":
            assert window is not None and t - window[0] > 3.2, where
        prev = e


def test_snippet_flow():
    check_flow(snippet_game().events)


def test_flow_checker_catches_a_meld_inside_the_window():
    events = snippet_game().events
    meld = of_type(events, "meld")[0]
    broken = [dict(e, t=e["t"] - 1.0) if e is meld else e for e in events]
    with pytest.raises(AssertionError):
        check_flow(broken)


# -- reading files ---------------------------------------------------------------------------

def test_gzip_input_gives_the_same_events(tmp_path):
    path = tmp_path / "game.mjlog"
    path.write_bytes(gzip.compress(SNIPPET.encode("utf-8")))
    assert import_log(path).events == snippet_game().events


def test_cli_writes_events_as_jsonl(tmp_path, capsys):
    src = tmp_path / "game.mjlog"
    src.write_text(SNIPPET, encoding="utf-8")
    out = tmp_path / "events.jsonl"
    assert main(["import-tenhou", str(src), "-o", str(out)]) == 0
    with open(out, encoding="utf-8") as f:
        events = [e for _, e in EventReader(f)]
    assert events == snippet_game().events
    hands = sum(e["type"] == "hand_start" for e in events)
    # one line says it worked, and what it wrote
    said = capsys.readouterr()
    assert said.out == f"wrote {out}: {len(events)} events, {hands} hand{'s' * (hands != 1)}, " \
                       f"from {src}\n" and said.err == ""
    assert main(["import-tenhou", str(src)]) == 0
    said = capsys.readouterr()
    # piped on: the events alone on standard output, the line on standard error
    assert [json.loads(x) for x in said.out.splitlines()] == events
    assert said.err == (f"riichi-referee import-tenhou: wrote {len(events)} events, {hands} "
                        f"hand{'s' * (hands != 1)}, from {src}\n")


BAD_INPUT = [
    ("missing.mjlog", None),
    ("notes.txt", b"just some notes\n"),
    ("empty.json", b""),
    ("broken.mjlog", b"<mjloggm><INIT seed="),
    ("other.xml", b"<html><body/></html>"),
    ("other.json", b'{"games": []}'),
    ("broken.gz", b"\x1f\x8b\x08\x00garbage"),
    ("binary.mjlog", b"\xff\xfe\x00\x01"),
    ("nohands.mjlog", b'<mjloggm ver="2.3"><GO type="169"/></mjloggm>'),
    ("bad-tile.json", json.dumps({"log": [[[0, 0, 0], [25000] * 4, [99], []]
                                          + [[], [], []] * 4 + [["流局", [0, 0, 0, 0]]]]})
     .encode()),
]


@pytest.mark.parametrize("name, content", BAD_INPUT, ids=[b[0] for b in BAD_INPUT])
def test_bad_input_is_one_line_naming_the_file(tmp_path, capsys, name, content):
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(RefereeError) as err:
        import_log(path)
    message = str(err.value)
    assert name in message and "\n" not in message
    assert main(["import-tenhou", str(path)]) == 2
    stderr = capsys.readouterr().err
    assert stderr.count("\n") == 1 and name in stderr and "Traceback" not in stderr


# -- the order of a tenhou.net/6 hand --------------------------------------------------------

def test_a_call_on_the_second_of_two_identical_discards():
    """Seat 0 throws East twice before seat 2 draws again; seat 2's pon can only be of the
    second one, or seat 2 would have no draw left for its next turn."""
    d = lambda t: ("draw", t)                  # noqa: E731
    x = lambda t: ("discard", t, False)        # noqa: E731
    pon = ("call", "pon", ["1z", "1z", "1z"], "1z", 0)
    takes = [[d("1z"), d("1z")], [d("2m")], [d("3m"), pon], [d("4m"), d("5m")]]
    discards = [[x("1z"), x("1z")], [x("2m")], [x("3m"), x("9p")], [x("4m"), x("5m")]]
    actions = interleave(takes, discards, dealer=0)
    order = [(a[0], a[1]) for a in actions if a[0] in ("discard", "call")]
    assert order == [("discard", 0), ("discard", 1), ("discard", 2), ("discard", 3),
                     ("discard", 0), ("call", 2), ("discard", 2), ("discard", 3)]


# -- every shared log ------------------------------------------------------------------------

def shared_logs(shared_data):
    logs = sorted((shared_data / "tenhou").rglob("*.*"))
    assert len([p for p in logs if p.suffix == ".mjlog"]) == 33
    assert len([p for p in logs if p.suffix == ".json"]) == 20
    return logs


@pytest.mark.shared
def test_every_shared_log_imports_with_valid_timed_events(shared_data):
    for path in shared_logs(shared_data):
        game = import_log(path)
        assert game.hands, path.name
        assert len(of_type(game.events, "hand_start")) == len(game.hands), path.name
        check_flow(game.events)
        # nothing a camera cannot see
        assert not any(e["type"] in ("draw", "tsumo") for e in game.events)


@pytest.mark.shared
def test_every_recorded_win_scores_as_the_log_says(shared_data):
    """Han, fu, points, yaku and the winner's gain of every win in the shared logs, scored
    from the revealed hand and a situation worked out from the play (riichi, ippatsu,
    haitei, rinshan, chankan... as the log's moves show them, not its yaku list)."""
    checked = 0
    for path in shared_logs(shared_data):
        for hand in import_log(path).hands:
            for w in hand.wins:
                if w.han is None:
                    continue
                where = f"{path.name} {hand.label} seat {w.seat}"
                got = score_win(w.concealed, w.melds, w.win_tile, w.situation,
                                {"double_yakuman": False})
                assert got, where
                assert (got.han, got.points) == (w.han, w.points), where
                if w.fu is not None and not w.yakuman:
                    assert got.fu == w.fu, where
                assert sorted(got.yaku_names) == sorted(w.yaku_names), where
                if hand.checkable:
                    assert got.total == w.payments[w.seat], where
                checked += 1
    assert checked == 293


@pytest.mark.shared
def test_closing_scores_chain_and_tenpai_hands(shared_data):
    for path in shared_logs(shared_data):
        game = import_log(path)
        for i, hand in enumerate(game.hands):
            where = f"{path.name} {hand.label}"
            if i + 1 < len(game.hands):
                assert hand.scores == game.hands[i + 1].start_scores, where
            if hand.result == "exhaustive" and game.format == "mjlog":
                # the log shows the tenpai hands; the others must be noten
                shown = [s for s in range(4) if is_tenpai(*hand.final_hands[s])]
                assert shown == hand.tenpai, where


@pytest.mark.shared
def test_shared_edge_cases(shared_data):
    t6 = shared_data / "tenhou" / "tenhou6"
    chankan = import_log(t6 / "chankan.json").hands[0]
    assert chankan.wins[0].situation.chankan and chankan.wins[0].from_seat == 3
    rinshan = import_log(t6 / "rinshan.json").hands[0]
    assert rinshan.wins[0].situation.rinshan and rinshan.wins[0].from_seat is None
    double = import_log(t6 / "double_ron.json").hands[0]
    assert [(w.seat, w.from_seat) for w in double.wins] == [(0, 3), (2, 3)]
    kans = import_log(t6 / "suukantsu_0.json")
    assert len(of_type(kans.events, "dora")) == 4
    assert [m["kind"] for m in kans.hands[0].wins[0].melds] == \
        ["daiminkan", "shouminkan", "ankan", "shouminkan"]
    both = import_log(t6 / "double_kakan_then_chankan.json")
    assert not of_type(both.events, "dora")      # the robbed kan flips nothing
    for name, reason in [("kyushukyuhai.json", "nine_terminals"),
                         ("four_reach.json", "four_riichi")]:
        hand = import_log(t6 / name).hands[0]
        assert (hand.result, hand.reason) == ("abortive", reason)
    nine = import_log(t6 / "kyushukyuhai.json").events[-1]
    assert (nine["type"], nine["seat"], len(nine["tiles"])) == ("reveal", 0, 14)
    edited = import_log(t6 / "confusing_nakis_2.json").hands[0]
    assert not edited.checkable
    assert edited.expected_violations == [{"seat": 1, "kind": "false_win"}]
