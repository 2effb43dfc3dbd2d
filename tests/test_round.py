"""The tournament round in the rules core (issue 40): the round's clock and the game's end when
time is up, under each profile; the penalty ledger and the match points it leaves; the signed
result; and a journaled round replayed to the same rulings."""
import io
import json
from dataclasses import replace

import pytest

from app.cli import main
from referee.core import Referee
from referee.ledger import entry, final_with_penalties
from referee.replay import replay
from referee.rulesets import HANDS_LEFT, RULESETS, get_ruleset
from referee.simulate import filler, script
from scenario import PLAUSIBLE

#: Each profile's time-up rule as researched (notes, rules research B and C): while a hand is
#: played, between hands, a chombo in the last hand; and whether the rule text confirms it.
TIME_UP = {
    "wrc2015": ("after_this_hand", "now", "ends_game", "confirmed"),      # WRC 2015 8.2
    "ema2016": ("after_next_hand", "after_next_hand", "redeal", "uncertain"),
    "ema2025": ("after_next_hand", "after_next_hand", "ends_game", "uncertain"),
    "ema2012": ("after_next_hand", "after_next_hand", "redeal", "uncertain"),
    "dutch": ("after_next_hand", "after_next_hand", "redeal", "uncertain"),
    "tenhou": ("after_this_hand", "now", "ends_game", "uncertain"),
    "mleague": ("after_this_hand", "now", "ends_game", "uncertain"),
}


def drawn_hand(t0: float, dealer: int) -> list[dict]:
    """A hand dealt at ``t0`` played out to an exhaustive draw, all noten, ended at t0 + 9."""
    return (script(f"{t0} hs {dealer}") + filler(70, dealer, t0 + 0.5, dt=0.1, tiles=PLAUSIBLE)
            + script(f"{t0 + 9} tenpai"))


def run(events, ruleset=None):
    """Feed ``events`` in order and close the windows at the end, as a replay does."""
    ref = Referee(ruleset)
    out = []
    for ev in sorted(events, key=lambda e: e["t"]):
        out += ref.feed(ev)
    return out + ref.finish(), ref


def of(rulings, kind):
    return [r for r in rulings if r["type"] == kind]


def chombo(t, seat):
    return {"type": "referee", "t": t, "action": "penalty", "penalty": "chombo", "seat": seat,
            "text": "false riichi"}


# -- each profile's rule, as data -----------------------------------------------------------
def test_every_profile_has_a_researched_time_up_rule():
    assert set(TIME_UP) == set(RULESETS)
    for name, (during, between, last_chombo, confidence) in TIME_UP.items():
        rs = get_ruleset(name)
        assert (rs.time_up, rs.time_up_between_hands, rs.time_up_chombo) == \
            (during, between, last_chombo), name
        doubt = {"time_up", "time_up_between_hands", "time_up_chombo"} & set(rs.uncertain)
        assert bool(doubt) == (confidence == "uncertain"), name
        assert rs.time_up_rule and rs.sources["time_up"]
    assert get_ruleset("wrc2015").time_up_rule == "WRC 2015 8.2"


# -- the deadline, both sides ---------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(TIME_UP))
def test_time_up_while_a_hand_is_played(name):
    """A hand dealt just before the time-up moment is being played when time is up."""
    during = TIME_UP[name][0]
    rulings, ref = run(script(f"0 gs {name}", "0 clock start 10", "9.9 hs 0", "10.1 d0 1z"))
    up = of(rulings, "time_up")
    assert [(r["ends"], r["hands_left"], r["t"]) for r in up] == \
        [(during, HANDS_LEFT[during], 10.0)]
    assert up[0]["rule"] == get_ruleset(name).time_up_rule
    assert of(rulings, "game_end") == []   # the hand is finished first


@pytest.mark.parametrize("name", sorted(TIME_UP))
def test_time_up_between_hands(name):
    """Time up just before the next hand is dealt: the profile's rule between hands."""
    between = TIME_UP[name][1]
    events = script(f"0 gs {name}", "0 clock start 20") + drawn_hand(1, 0) + script("20.1 hs 1")
    rulings, _ = run(events)
    up = of(rulings, "time_up")
    assert [(r["ends"], r["t"]) for r in up] == [(between, 20.0)]
    ends = of(rulings, "game_end")
    if between == "now":   # WRC 2015 8.2: no dice after the gong
        assert [(e["reason"], e["t"]) for e in ends] == [("time", 20.0)]
        assert rulings.index(up[0]) < rulings.index(ends[0])
    else:
        assert ends == []


@pytest.mark.parametrize("name", sorted(TIME_UP))
def test_a_hand_dealt_at_the_moment_itself_is_before_it(name):
    """As a press at a window's deadline is in time, a hand dealt at the time-up moment was
    dealt before the gong."""
    events = script(f"0 gs {name}", "0 clock start 20") + drawn_hand(1, 0) + script(
        "20 hs 1", "20.5 d1 1z")
    up = of(run(events)[0], "time_up")
    assert [(r["ends"], r["t"]) for r in up] == [(TIME_UP[name][0], 20.0)]


@pytest.mark.parametrize("name", sorted(TIME_UP))
def test_the_game_ends_where_the_profile_says(name):
    """Time up in the first hand: the game ends after it (after_this_hand) or after one more
    (after_next_hand), with reason time."""
    events = script(f"0 gs {name}", "0 clock start 5") + drawn_hand(1, 0) + drawn_hand(11, 1) \
        + drawn_hand(21, 2)
    rulings, ref = run(events)
    ends = of(rulings, "game_end")
    hands = HANDS_LEFT[TIME_UP[name][0]]
    assert len(ends) == 1 and ends[0]["reason"] == "time"
    assert ends[0]["t"] == 10 * hands   # at the hand_end of the hand that was the last
    assert rulings[rulings.index(ends[0]) - 1]["type"] == "hand_end"
    assert ref.snapshot()["game_over"] is True
    # the table plays on after a game ended by time: the game stays ended
    assert len(of(rulings, "hand_end")) == 3 and len(ends) == 1


@pytest.mark.parametrize("name", sorted(TIME_UP))
def test_a_chombo_in_the_last_hand(name):
    """WRC 2015 8.2: not dealt again (the game ends); EMA 2016 (uncertain): dealt again;
    ema2025 (MahjongPantheon, uncertain): ends the game."""
    last_chombo = TIME_UP[name][2]
    hands = HANDS_LEFT[TIME_UP[name][0]]
    events = script(f"0 gs {name}", "0 clock start 5")
    t = 1
    for n in range(hands - 1):   # the hands before the last are played out
        events += drawn_hand(t, n)
        t += 10
    # the last hand, dealt before time is up (at 5) or after it; its chombo comes after it
    events += script(f"{t} hs {hands - 1}") + [chombo(t + 5.5, 2)] + drawn_hand(t + 6, hands - 1)
    rulings, _ = run(events)
    assert [r["t"] for r in of(rulings, "time_up")] == [5]
    ends = of(rulings, "game_end")
    if last_chombo == "ends_game":
        assert [(e["reason"], e["t"]) for e in ends] == [("time", t + 5.5)]
    else:   # dealt again, and that hand is still the last
        assert [(e["reason"], e["t"]) for e in ends] == [("time", t + 15)]


def test_a_chombo_before_the_last_hand_does_not_count():
    # ema2025: two hands after time is up; a chombo in the first is dealt again, not counted
    events = script("0 gs ema2025", "0 clock start 5", "1 hs 0") + [chombo(2, 1)] \
        + drawn_hand(11, 0) + drawn_hand(21, 1)
    rulings, _ = run(events)
    assert [(e["reason"], e["t"]) for e in of(rulings, "game_end")] == [("time", 30)]


def test_a_game_that_ends_anyway_ends_by_its_own_rule():
    # South 4 is the last deal: the time-up changes nothing there, the reason is last_hand
    events = script("0 gs wrc2015") + drawn_hand(1, 0) + script("10.5 clock start 5")
    events += [{"type": "hand_start", "t": 11, "round_wind": "S", "dealer": 3, "honba": 0,
                "riichi_sticks": 0, "dora_indicators": ["1m"]}]
    events += filler(70, 3, 11.5, dt=0.1, tiles=PLAUSIBLE) + script("20 tenpai")
    rulings, _ = run(events)
    assert [r["ends"] for r in of(rulings, "time_up")] == ["after_this_hand"]
    assert [(e["reason"], e["t"]) for e in of(rulings, "game_end")] == [("last_hand", 20)]


def test_game_end_reasons_bust_and_referee():
    bust = [{"type": "game_start", "t": 0, "ruleset": "tenhou",
             "scores": [500, 33500, 33000, 33000]}]
    bust += script("0 hs 1") + filler(70, 1, 0.5, dt=0.1, tiles=PLAUSIBLE) + script(
        "9 tenpai 1")
    assert [e["reason"] for e in of(run(bust)[0], "game_end")] == ["bust"]
    by_hand = script("0 gs ema2016", "0 hs 0", "1 ref end_game the referee stops it")
    assert [e["reason"] for e in of(run(by_hand)[0], "game_end")] == ["referee"]


# -- the clock as a deadline ----------------------------------------------------------------
def test_the_clock_is_a_deadline_for_a_live_table():
    ref = Referee()
    for ev in script("0 gs wrc2015", "0 clock start 600", "1 hs 0", "2 d0 1z"):
        ref.feed(ev)
    assert ref.next_deadline() == 5.0   # the discard's claim window comes first
    assert [r["type"] for r in ref.advance(5.0)] == []   # nobody called: no ruling
    assert ref.next_deadline() == 600.0
    ref.feed({"type": "clock", "t": 100, "action": "extend", "seconds": 90, "source": "hall"})
    ref.feed({"type": "clock", "t": 200, "action": "extend", "seconds": 30})
    assert ref.next_deadline() == 720.0   # start + seconds + every extend
    assert ref.advance(719.9) == []
    up = ref.advance(720.0)
    assert [(r["type"], r["ends"], r["t"]) for r in up] == [("time_up", "after_this_hand", 720)]
    assert ref.next_deadline() is None and ref.advance(10_000) == []   # ruled once
    snap = ref.snapshot()
    assert snap["clock"]["time_up"] is True and snap["hands_left"] == 1


def test_time_is_up_once_extensions_after_it_change_nothing():
    events = script("0 gs wrc2015", "0 clock start 10", "1 hs 0", "11 d0 1z",
                    "12 clock extend 600", "13 clock stop")
    rulings, ref = run(events)
    assert [r["t"] for r in of(rulings, "time_up")] == [10.0]
    assert ref.snapshot()["hands_left"] == 1


def test_a_stopped_clock_never_runs_out_and_the_end_of_the_file_is_not_time_up():
    rulings, ref = run(script("0 gs wrc2015", "0 clock start 10", "1 hs 0", "5 clock stop",
                              "30 d0 1z"))
    assert of(rulings, "time_up") == [] and ref.next_deadline() is None
    rulings, ref = run(script("0 gs wrc2015", "0 clock start 10", "1 hs 0", "9 d0 1z"))
    assert of(rulings, "time_up") == [] and ref.next_deadline() == 10.0


def test_a_window_ending_with_the_time_is_decided_first():
    # the pon's window closes at 13 = the time-up moment: the claim belongs to the hand
    rulings, _ = run(script("0 gs wrc2015", "0 clock start 13", "1 hs 0", "10 d0 3p",
                            "11 c2 pon", "20 d1 1z"))
    assert [r["type"] for r in rulings if r["type"] in ("claim", "time_up")] == \
        ["claim", "time_up"]


def test_a_clock_started_again_gives_a_game_whose_time_is_up_no_more_hands():
    rulings, ref = run(script("0 gs ema2016", "0 clock start 5", "1 hs 0", "6 clock start 2",
                              "9 d0 1z"))
    assert len(of(rulings, "time_up")) == 1 and ref.snapshot()["hands_left"] == 2
    assert ref.snapshot()["clock"]["time_up"] is True


def test_the_clock_started_before_the_game_runs_on_into_it():
    rulings, _ = run(script("0 clock start 10", "1 gs wrc2015", "2 hs 0", "11 d0 1z"))
    assert [r["ends"] for r in of(rulings, "time_up")] == ["after_this_hand"]


def test_an_undo_does_not_rule_the_time_up_twice():
    ref = Referee()
    out = []
    for ev in script("0 gs wrc2015", "0 clock start 10", "1 hs 0", "2 d0 1z", "12 d1 2z",
                     "13 ref undo misread"):
        out += ref.feed(ev)
    out += ref.feed(script("14 d1 9m")[0]) + ref.advance(100)
    assert len(of(out, "time_up")) == 1


# -- the penalty ledger ---------------------------------------------------------------------
def pen(seat, points, applies):
    return entry(seat, points, "procedure", "slow play", f"r{seat}{points}", applies)


#: (profile, scores, penalties, final): 1,000 table points to a match point; the sum of the
#: round is the negative of the deductions (uma and oka add up to nothing).
LEDGER = [
    # EMA: 30,000 start, no oka, uma 15/5/-5/-15
    ("ema2016", [45000, 35000, 25000, 15000], [], [30.0, 10.0, -10.0, -30.0]),
    # the EMA chombo: 20,000 after uma, the ranking as played
    ("ema2016", [45000, 35000, 25000, 15000], [pen(0, 20000, "after_uma")],
     [10.0, 10.0, -10.0, -30.0]),
    # the same before uma: seat 0 drops to 25,000, ties seat 2 and shares 3rd/4th... 2nd/3rd
    ("ema2016", [45000, 35000, 25000, 15000], [pen(0, 20000, "before_uma")],
     [-5.0, 20.0, -5.0, -30.0]),
    # two deductions, both kinds, on two seats
    ("ema2016", [45000, 35000, 25000, 15000],
     [pen(3, 1000, "before_uma"), pen(1, 20000, "after_uma")],
     [30.0, -10.0, -10.0, -31.0]),
    # M.League: 25,000 start, 30,000 return (oka +20 to first), uma 30/10/-10/-30
    ("mleague", [40000, 30000, 20000, 10000], [], [60.0, 10.0, -20.0, -50.0]),
    ("mleague", [40000, 30000, 20000, 10000], [pen(0, 20000, "after_uma")],
     [40.0, 10.0, -20.0, -50.0]),
    # before uma, seat 0 ties seat 2 at 20,000: seat order from the first dealer breaks it
    ("mleague", [40000, 30000, 20000, 10000], [pen(0, 20000, "before_uma")],
     [0.0, 50.0, -20.0, -50.0]),
    # Tenhou rounding: first place takes the balance of the others, then the deduction
    ("tenhou", [40000, 30000, 20000, 10000], [pen(3, 5000, "after_uma")],
     [50.0, 10.0, -20.0, -45.0]),
]


@pytest.mark.parametrize("name,scores,penalties,final", LEDGER)
def test_ledger_arithmetic(name, scores, penalties, final):
    rs = get_ruleset(name)
    got = final_with_penalties(scores, penalties, rs)
    assert got == final
    assert round(sum(got), 6) == -sum(p["points"] for p in penalties) / 1000


def test_a_ledger_entry_says_where_it_applies():
    with pytest.raises(ValueError):
        entry(0, 1000, "procedure", "x", "r1", "at_the_bar")


def points_penalty(t, seat, points, **extra):
    return {"type": "referee", "t": t, "action": "penalty", "penalty": "points", "seat": seat,
            "points": points, "text": "arguing with the referee", **extra}


def test_penalties_stand_on_game_end_and_a_cancelled_one_is_left_out():
    events = script("0 gs ema2016", "0 hs 0") + [
        points_penalty(1, 2, 5000),
        points_penalty(2, 3, 1000, applies="before_uma"),
        {"type": "referee", "t": 3, "action": "cancel_penalty", "ruling_id": "r1",
         "text": "withdrawn after review"},
        {"type": "referee", "t": 4, "action": "cancel_penalty", "ruling_id": "r99",
         "text": "no such penalty"},
    ] + script("5 ref end_game round over")
    rulings, ref = run(events)
    given = of(rulings, "violation")
    assert [(v["penalty"], v["points"], v["ruling_id"]) for v in given] == \
        [("points", 5000, "r1"), ("points", 1000, "r2")]
    end = of(rulings, "game_end")[0]
    assert end["penalties"] == [{"seat": 3, "points": 1000, "kind": "procedure",
                                 "reason": "arguing with the referee", "ruling_id": "r2",
                                 "applies": "before_uma"}]
    assert end["scores"] == [30000] * 4   # a deduction is no payment: the table is untouched
    # seat 3 ranks last at 29,000: -1 - 15; the others share +15 +5 -5
    assert end["final"] == [5.0, 5.0, 5.0, -16.0]
    assert sum(end["final"]) == -1.0


def test_a_fixed_chombo_is_deducted_after_uma_and_does_not_change_the_ranking():
    # seat 1 leads by 10,000 and chombos: under EMA it stays first, 20 points poorer
    events = [{"type": "game_start", "t": 0, "ruleset": "ema2016",
               "scores": [25000, 40000, 30000, 25000]}] + script("0 hs 0") + \
        [chombo(1, 1)] + script("2 ref end_game time")
    rulings, _ = run(events)
    end = of(rulings, "game_end")[0]
    assert end["scores"] == [25000, 40000, 30000, 25000]
    assert [(p["seat"], p["points"], p["applies"]) for p in end["penalties"]] == \
        [(1, 20000, "after_uma")]
    # 1st +10 +15 - 20; 2nd 0 + 5; 3rd/4th tie at -5: share (-5 -15) / 2
    assert end["final"] == [-15.0, 5.0, 5.0, -15.0]


def test_an_override_takes_the_deduction_off_the_ledger():
    events = script("0 gs wrc2015", "0 hs 0") + [chombo(1, 2)] + script(
        "2 ref override r1 the riichi was valid", "3 ref end_game")
    end = of(run(events)[0], "game_end")[0]
    assert end["penalties"] == [] and end["final"] == [0.0] * 4   # four equal scores


def test_a_profile_may_give_a_violation_points(monkeypatch):
    cards = replace(get_ruleset("wrc2015"), name="cards",
                    penalties={**get_ruleset("wrc2015").penalties, "kuikae": "points"},
                    penalty_points={"kuikae": 2000})
    monkeypatch.setitem(RULESETS, "cards", cards)
    rulings, ref = run(script("0 gs cards", "0 hs 0", "1 d0 3p", "1.5 c2 pon",
                              "2 m2 pon 333p 3p@0", "2.8 d2 3p", "9 ref end_game"))
    v = [r for r in of(rulings, "violation") if r["kind"] == "kuikae"]
    assert [(x["penalty"], x["points"], x["seat"]) for x in v] == [("points", 2000, 2)]
    end = of(rulings, "game_end")[0]
    assert [(p["seat"], p["points"], p["kind"]) for p in end["penalties"]] == \
        [(2, 2000, "kuikae")]
    assert sum(end["final"]) == -2.0


def test_a_points_penalty_with_nothing_to_deduct_is_a_warning():
    rulings, ref = run(script("0 gs ema2016", "0 hs 0") + [
        {"type": "referee", "t": 1, "action": "penalty", "penalty": "points", "seat": 1,
         "text": "noise"}])
    assert [v["penalty"] for v in of(rulings, "violation")] == ["warning"]
    assert ref.snapshot()["penalties"] == []


# -- the signed result ----------------------------------------------------------------------
def test_the_result_comes_once_when_four_seats_and_the_referee_have_signed():
    events = script("0 gs ema2016", "0 hs 0", "1 sign 0",   # before game_end: nothing
                    "2 ref end_game", "3 sign 2", "4 sign 0", "5 sign 2", "6 sign ref",
                    "7 sign 3", "8 sign ref", "9 sign 1", "10 sign 1", "11 sign ref")
    rulings, _ = run(events)
    result = of(rulings, "result")
    assert len(result) == 1
    r = result[0]
    end = of(rulings, "game_end")[0]
    assert r["signatures"] == [2, 0, 3, 1] and r["referee_signed"] is True and r["t"] == 9
    assert (r["scores"], r["final"], r["penalties"]) == \
        (end["scores"], end["final"], end["penalties"])


def test_no_result_without_the_referee_or_a_seat():
    seats = script("0 gs ema2016", "0 hs 0", "2 ref end_game", "3 sign 0", "3 sign 1",
                   "3 sign 2", "3 sign 3")
    assert of(run(seats)[0], "result") == []
    three = script("0 gs ema2016", "0 hs 0", "2 ref end_game", "3 sign ref", "3 sign 1",
                   "3 sign 2", "3 sign 3", "4 sign 2")
    assert of(run(three)[0], "result") == []


def test_a_penalty_cancelled_after_game_end_is_signed_again():
    events = script("0 gs ema2016", "0 hs 0") + [points_penalty(1, 2, 4000)] + script(
        "2 ref end_game", "3 sign 0", "3 sign 1", "3 sign ref",
        "4 ref cancel_penalty r1 the referee reconsidered",
        "5 sign 2", "5 sign 3")   # those who signed before must sign the new sheet
    rulings, _ = run(events)
    assert of(rulings, "game_end")[0]["penalties"] != []
    assert of(rulings, "result") == []
    rulings, _ = run(events + script("6 sign 1", "6 sign 0", "7 sign ref"))
    result = of(rulings, "result")
    assert [(r["signatures"], r["penalties"], sum(r["final"])) for r in result] == \
        [([2, 3, 1, 0], [], 0.0)]


# -- a journaled round replayed -------------------------------------------------------------
#: A hand-written journal of a WRC round: the hall starts the clock, the referee extends it,
#: time runs out in the second hand, which is the last; the sheet is signed.
ROUND = [
    {"type": "clock", "t": 0, "action": "start", "seconds": 15, "source": "hall"},
    {"type": "game_start", "t": 0.5, "ruleset": "wrc2015", "scores": [30000] * 4},
    *drawn_hand(1, 0),
    {"type": "clock", "t": 10.5, "action": "extend", "seconds": 2, "source": "referee"},
    *drawn_hand(11, 1),
    {"type": "sign", "t": 30, "seat": 1}, {"type": "sign", "t": 31, "seat": 3},
    {"type": "sign", "t": 32, "seat": 0}, {"type": "sign", "t": 33, "seat": 2},
    {"type": "sign", "t": 34, "referee": True},
]


def live(events):
    """The rulings a live table gives: deadlines passed by its timer between events."""
    ref = Referee()
    out = []
    for ev in events:
        while ref.next_deadline() is not None and ref.next_deadline() < ev["t"]:
            out += ref.advance(ref.next_deadline())
        out += ref.feed(ev)
    return out + ref.finish()


def test_a_journaled_round_replays_to_the_same_time_up_game_end_and_result():
    text = "".join(json.dumps(e) + "\n" for e in ROUND)
    out, err = io.StringIO(), io.StringIO()
    assert replay(io.StringIO(text), out, err, "round.jsonl") == 0 and err.getvalue() == ""
    replayed = [json.loads(line) for line in out.getvalue().splitlines()]
    assert replayed == live(ROUND)
    kinds = [r["type"] for r in replayed]
    assert kinds == ["hand_end", "time_up", "hand_end", "game_end", "result"]
    up, end, result = replayed[1], replayed[3], replayed[4]
    assert (up["ends"], up["t"], up["rule"]) == ("after_this_hand", 17.0, "WRC 2015 8.2")
    assert (end["reason"], end["t"]) == ("time", 20)
    assert result["signatures"] == [1, 3, 0, 2] and result["final"] == end["final"]


def test_riichi_referee_replay_judges_clock_and_sign(tmp_path, capsys):
    path = tmp_path / "round.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in ROUND))
    assert main(["replay", str(path)]) == 0
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["type"] for r in printed][-3:] == ["hand_end", "game_end", "result"]


def test_a_malformed_clock_line_stops_the_replay_naming_it():
    lines = [json.dumps(e) for e in ROUND[:2]] + [
        '{"type":"clock","t":1,"action":"extend","seconds":"two minutes"}']
    out, err = io.StringIO(), io.StringIO()
    assert replay(lines, out, err, "round.jsonl") == 2
    assert err.getvalue().startswith("riichi-referee replay: round.jsonl: line 3: clock: ")
    assert err.getvalue().count("\n") == 1
