"""Whole games through the Referee: correct play gives no violation, rulings are deterministic,
and the referee's own actions (note, penalty, override, undo, end_game) do what they say."""
import json

import pytest

from referee.core import Referee, final_points
from referee.errors import RefereeError
from referee.events import parse_event
from referee.rulesets import RULESETS, get_ruleset
from referee.simulate import script, simulate


def run(events, ruleset=None):
    ref = Referee(ruleset)
    out = []
    for ev in events:
        out += ref.feed(ev)
    return out + ref.finish(), ref


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_simulated_legal_games_have_no_violation(ruleset):
    for seed in (1, 2):
        events = simulate(seed=seed, hands=12, ruleset=ruleset)
        for ev in events:
            parse_event(ev)  # the generator speaks the spec
        rulings, ref = run(events)
        bad = [r for r in rulings if r["type"] == "violation"]
        assert bad == [], bad[:3]
        assert any(r["type"] == "claim" and r["winners"] for r in rulings)
        assert any(r["type"] == "hand_end" for r in rulings)


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_simulated_players_never_call_into_a_forced_kuikae(ruleset):
    # Seed 11 once made a player chii and then discard a forbidden tile because nothing
    # else was left: a call a real player could not make under a kuikae rule.
    rulings, _ = run(simulate(seed=11, hands=150, ruleset=ruleset))
    assert [r for r in rulings if r["type"] == "violation"] == []


def test_simulated_games_contain_the_plays_the_core_must_judge():
    events = simulate(seed=3, hands=40, ruleset="ema2012")
    kinds = {e.get("kind") for e in events if e["type"] == "meld"}
    assert {"chii", "pon", "daiminkan", "ankan"} <= kinds
    assert any(e.get("riichi") for e in events)
    assert any(e["type"] == "tenpai" for e in events)
    assert any(e["type"] == "reveal" for e in events)
    assert simulate(seed=3, hands=40, ruleset="ema2012") == events  # seeded


def test_rulings_are_deterministic_with_sequential_ids():
    events = simulate(seed=5, hands=6)
    a, _ = run(events)
    b, _ = run(events)
    assert a == b
    assert [r["ruling_id"] for r in a] == [f"r{i}" for i in range(1, len(a) + 1)]
    assert all(isinstance(r["t"], float) for r in a)


def test_ruleset_argument_overrides_the_game_start():
    rulings, ref = run(script("0 gs tenhou", "0 hs 0", "1 d0 3p", "1.2 c3 ron", "1.4 c2 ron"),
                       ruleset="ema2012")
    assert ref.ruleset.name == "ema2012"
    claim = [r for r in rulings if r["type"] == "claim"][0]
    assert claim["winners"] == [{"seat": 2, "call": "ron"}]


def test_unknown_ruleset_is_a_one_line_error():
    with pytest.raises(RefereeError, match="unknown ruleset 'nope'"):
        Referee("nope")
    ev = script("0 gs ema2012")[0]
    ev["ruleset"] = "house"
    with pytest.raises(RefereeError, match="house"):
        Referee().feed(ev)


BASE = ("0 gs ema2012", "0 hs 0", "1 d0 3p", "1.5 c2 pon", "2.5 d2 9s", "4 d3 1z", "5 d0 2z")


def test_referee_note_changes_nothing():
    a, ra = run(script(*BASE))
    b, rb = run(script(*BASE, "6 ref note looked at the wall"))
    sa, sb = ra.snapshot(), rb.snapshot()
    assert sb.pop("t") == 6.0 and sa.pop("t") == 5.0
    assert a == b and sa == sb


def test_override_lifts_the_dead_hand_it_caused():
    rulings, ref = run(script(*BASE))
    fg = next(r for r in rulings if r["type"] == "violation" and r["kind"] == "false_group")
    assert ref.snapshot()["seats"][2]["dead_hand"]
    ref.feed({"type": "referee", "t": 6, "action": "override", "ruling_id": fg["ruling_id"],
              "text": "the tile was taken, the camera missed it"})
    snap = ref.snapshot()
    assert snap["seats"][2]["dead_hand"] is False
    assert snap["overrides"] == [{"ruling_id": fg["ruling_id"], "t": 6.0,
                                  "text": "the tile was taken, the camera missed it"}]


@pytest.mark.parametrize("text,extra,kind,penalty", [
    ("slow play", {}, "procedure", "warning"),
    ("chombo: false riichi", {"seat": 1}, "procedure", "chombo"),
    ("kuikae after pon, dead hand", {"seat": 3}, "kuikae", "dead_hand"),
    ("anything", {"seat": 2, "kind": "false_win", "penalty": "chombo"}, "false_win", "chombo"),
])
def test_referee_penalty_is_a_violation(text, extra, kind, penalty):
    ref = Referee()
    for ev in script("0 gs ema2012", "0 hs 0"):
        ref.feed(ev)
    out = ref.feed({"type": "referee", "t": 1, "action": "penalty", "text": text, **extra})
    v = out[0]
    assert (v["type"], v["kind"], v["penalty"], v["text"]) == ("violation", kind, penalty, text)
    assert v["seat"] == extra.get("seat") and v["ruling_id"] == "r1"
    if penalty in ("chombo", "dead_hand"):
        assert ref.snapshot()["seats"][extra["seat"]]["dead_hand"]


@pytest.mark.parametrize("ruleset,seat,changes,deducted", [
    # EMA: 20,000 points off the offender, nobody else paid, after uma: a deduction on the
    # penalty ledger, not a change of the table's scores (referee.ledger)
    ("ema2012", 1, [0, 0, 0, 0], [{"seat": 1, "points": 20000, "applies": "after_uma"}]),
    # Tenhou style: a reverse mangan; a non-dealer pays the dealer 4,000 and the others 2,000.
    ("tenhou", 1, [4000, -8000, 2000, 2000], []),
    # the dealer pays 4,000 to each
    ("tenhou", 0, [-12000, 4000, 4000, 4000], []),
])
def test_referee_chombo_ends_the_hand_and_is_paid(ruleset, seat, changes, deducted):
    ref = Referee()
    for ev in script(f"0 gs {ruleset}", "0 hs 0", "1 d0 3p"):
        ref.feed(ev)
    before = ref.snapshot()["scores"]
    out = ref.feed({"type": "referee", "t": 2, "action": "penalty", "text": "false riichi",
                    "seat": seat, "penalty": "chombo"})
    assert [r["type"] for r in out] == ["violation", "hand_end"]
    end = out[1]
    assert (end["result"], end["reason"], end["changes"]) == ("abortive", "chombo", changes)
    assert end["scores"] == [b + c for b, c in zip(before, changes)]
    assert end["next"]["dealer"] == 0  # the hand is replayed with the same dealer
    ledger = [{k: p[k] for k in ("seat", "points", "applies")}
              for p in ref.snapshot()["penalties"]]
    assert ledger == deducted


def test_referee_dead_hand_penalty_does_not_end_the_hand():
    ref = Referee()
    for ev in script("0 gs ema2012", "0 hs 0", "1 d0 3p"):
        ref.feed(ev)
    out = ref.feed({"type": "referee", "t": 2, "action": "penalty", "text": "x", "seat": 2,
                    "penalty": "dead_hand"})
    assert [r["type"] for r in out] == ["violation"]
    assert ref.snapshot()["hand_over"] is False


def test_undo_voids_the_last_table_event_without_reemitting():
    ref = Referee()
    out = []
    for ev in script("0 gs ema2012", "0 hs 0", "1 d0 3p", "1.5 c2 pon", "2 m2 pon 333p 3p@0",
                     "2.8 d2 9s", "4 d3 1z"):
        out += ref.feed(ev)
    before = ref.snapshot()
    assert before["seats"][3]["pond"]
    again = ref.feed({"type": "referee", "t": 4.5, "action": "undo", "text": "misread"})
    assert again == []
    snap = ref.snapshot()
    assert snap["seats"][3]["pond"] == []  # seat 3's discard is gone
    assert snap["seats"][2]["melds"] == before["seats"][2]["melds"]  # the rest stands
    assert snap["window"]["tile"] == "9s"  # seat 2's discard is open again (until 5.8)
    # new rulings never reuse an id
    nxt = ref.feed(script("5 c3 pon")[0]) + ref.advance(6)
    assert nxt[0]["ruling_id"] == f"r{len(out) + 1}"


def test_end_game_emits_game_end_with_match_points():
    rulings, ref = run(script("0 gs ema2012", "0 hs 0", "1 d0 3p r", "2 d1 1z",
                              "3 ref end_game time limit"))
    end = rulings[-1]
    assert end["type"] == "game_end"
    assert end["scores"] == [29000, 30000, 30000, 30000]
    # seats 1-3 tie for first: they share (+15 +5 -5) / 3; seat 0 is last: -1 - 15
    assert end["final"] == [-16.0, 5.0, 5.0, 5.0]
    assert ref.snapshot()["game_over"] is True


def test_final_points_per_ruleset():
    ema = get_ruleset("ema2012")
    assert final_points([40000, 30000, 20000, 10000], ema) == [25.0, 5.0, -15.0, -35.0]
    assert final_points([35000, 35000, 20000, 10000], ema) == [15.0, 15.0, -15.0, -35.0]
    tenhou = get_ruleset("tenhou")
    # 25,000 start / 30,000 return: the 20,000 difference goes to first
    assert final_points([40000, 30000, 20000, 10000], tenhou) == [50.0, 10.0, -20.0, -40.0]
    # ties by seat order from the first dealer
    assert final_points([25000] * 4, tenhou, first_dealer=1) == [-25.0, 35.0, 5.0, -15.0]


def test_rulings_are_json_lines_in_the_spec_format():
    rulings, _ = run(simulate(seed=9, hands=4))
    for r in rulings:
        json.dumps(r)
        if r["type"] == "claim":
            assert set(r) >= {"discard_seat", "tile", "winners", "rejected", "window", "t",
                              "ruling_id"}
        if r["type"] == "hand_end":
            assert r["result"] in ("ron", "tsumo", "exhaustive", "abortive")
            assert len(r["scores"]) == 4
