"""Claim windows and arbitration, from the rule text: ron before pon/kan before chii, several
rons per ruleset, early decisions, late, repeated and own-discard presses, own-turn calls,
chankan."""
import pytest

from referee.claims import ClaimWindow, arbitrate
from referee.simulate import script
from scenario import judge

RULESETS = ["ema2012", "tenhou"]


def claims(rulings):
    return [r for r in rulings if r["type"] == "claim"]


def only_claim(rulings):
    found = claims(rulings)
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_ron_beats_pon(ruleset):
    c = only_claim(judge(ruleset, "1 d0 3p", "1.3 c2 pon", "1.6 c3 ron")[0])
    assert c["winners"] == [{"seat": 3, "call": "ron"}]
    assert c["rejected"] == [{"seat": 2, "call": "pon", "reason": "precedence"}]
    assert c["discard_seat"] == 0 and c["tile"] == "3p"


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("big", ["pon", "kan"])
def test_pon_and_kan_beat_chii_even_when_pressed_later(ruleset, big):
    c = only_claim(judge(ruleset, "1 d0 3p", "1.2 c1 chii", f"2.5 c3 {big}")[0])
    assert c["winners"] == [{"seat": 3, "call": big}]
    assert c["rejected"] == [{"seat": 1, "call": "chii", "reason": "precedence"}]


def test_several_rons_head_bump_on_ema2012():
    c = only_claim(judge("ema2012", "1 d0 3p", "1.2 c3 ron", "1.4 c2 ron")[0])
    assert c["winners"] == [{"seat": 2, "call": "ron"}]
    assert c["rejected"] == [{"seat": 3, "call": "ron", "reason": "head_bump"}]


def test_double_ron_on_tenhou_nearest_first():
    c = only_claim(judge("tenhou", "1 d0 3p", "1.2 c3 ron", "1.4 c2 ron")[0])
    assert c["winners"] == [{"seat": 2, "call": "ron"}, {"seat": 3, "call": "ron"}]
    assert c["rejected"] == []


def test_multiple_winners_on_ema2016():
    c = only_claim(judge("ema2016", "1 d0 3p", "1.2 c3 ron", "1.4 c2 ron")[0])
    assert [w["seat"] for w in c["winners"]] == [2, 3]


def test_three_rons_abort_on_tenhou():
    rulings, ref = judge("tenhou", "1 d0 3p", "1.2 c3 ron", "1.4 c2 ron", "1.5 c1 ron")
    c = only_claim(rulings)
    assert c["winners"] == []
    assert {r["reason"] for r in c["rejected"]} == {"triple_ron"}
    end = [r for r in rulings if r["type"] == "hand_end"]
    assert end and end[0]["result"] == "abortive" and end[0]["reason"] == "triple_ron"
    # three rons cannot be outranked: decided at the third press
    assert c["t"] == 1.5


def test_three_rons_on_ema2012_head_bump_to_the_next_seat_at_once():
    rulings, _ = judge("ema2012", "1 d0 3p", "1.2 c3 ron", "1.4 c2 ron", "1.5 c1 ron")
    c = only_claim(rulings)
    assert c["winners"] == [{"seat": 1, "call": "ron"}]
    assert c["rejected"] == [{"seat": 2, "call": "ron", "reason": "head_bump"},
                             {"seat": 3, "call": "ron", "reason": "head_bump"}]
    assert not [r for r in rulings if r["type"] == "hand_end"]


def test_ron_pressed_after_an_early_head_bump_decision_is_shown_rejected():
    rulings, _ = judge("ema2012", "1 d0 3p", "1.5 c1 ron", "2.0 c3 ron", "2.1 c3 ron",
                       "5.0 c2 ron")
    found = claims(rulings)
    assert found[0]["winners"] == [{"seat": 1, "call": "ron"}] and found[0]["t"] == 1.5
    assert found[1]["winners"] == [] and found[1]["t"] == 2.0
    assert found[1]["rejected"] == [{"seat": 3, "call": "ron", "reason": "head_bump"}]
    assert len(found) == 2  # a repeat and a press after the window say nothing more


HEAD_BUMP = ["ema2012", "wrc2015", "mleague"]


@pytest.mark.parametrize("ruleset", HEAD_BUMP)
def test_the_winners_repeated_presses_after_an_early_decision_count_once(ruleset):
    # seat 1 (next after the discarder) rons: nothing can outrank it, decided at once; its
    # button bounces a few ms later. Those presses must not come back rejecting its own win.
    rulings, _ = judge(ruleset, "1 d0 3p", "1.5 c1 ron", "1.503 c1 ron", "1.51 c1 ron",
                       "1.52 c1 pon")
    (c,) = claims(rulings)
    assert c["winners"] == [{"seat": 1, "call": "ron"}] and c["rejected"] == []
    assert not [x for r in rulings for x in r.get("rejected", ()) if x["seat"] == 1]


@pytest.mark.parametrize("ruleset", HEAD_BUMP)
def test_a_new_press_by_another_seat_after_an_early_decision_is_still_rejected(ruleset):
    # the near miss: seat 3 had not pressed; its ron after the decision lost to seat 1's
    rulings, _ = judge(ruleset, "1 d0 3p", "1.5 c1 ron", "1.503 c1 ron", "1.6 c3 ron",
                       "1.61 c3 ron")
    first, second = claims(rulings)
    assert first["winners"] == [{"seat": 1, "call": "ron"}]
    assert second["winners"] == []
    assert second["rejected"] == [{"seat": 3, "call": "ron", "reason": "head_bump"}]


@pytest.mark.parametrize("ruleset", HEAD_BUMP)
def test_a_rejected_press_repeated_after_an_early_decision_is_not_ruled_twice(ruleset):
    rulings, _ = judge(ruleset, "1 d0 3p", "1.2 c2 pon", "1.5 c1 ron", "1.55 c2 pon")
    (c,) = claims(rulings)
    assert c["rejected"] == [{"seat": 2, "call": "pon", "reason": "precedence"}]


@pytest.mark.parametrize("ruleset", ["tenhou", "ema2016"])
def test_repeated_presses_after_three_rons_decided_at_once_count_once(ruleset):
    # every other seat pressed ron: decided at the third press (tenhou: triple ron aborts;
    # ema2016: all three win); the bounces after it say nothing
    rulings, _ = judge(ruleset, "1 d0 3p", "1.2 c3 ron", "1.4 c2 ron", "1.5 c1 ron",
                       "1.502 c1 ron", "1.503 c2 ron", "1.6 c3 ron")
    (c,) = claims(rulings)
    assert c["t"] == 1.5


@pytest.mark.parametrize("ruleset", HEAD_BUMP + ["tenhou"])
def test_the_awarded_caller_pressing_again_after_the_window_is_not_late(ruleset):
    rulings, _ = judge(ruleset, "1 d0 3p", "1.3 c2 pon", "4.3 c2 pon", finish=False)
    (c,) = claims(rulings)
    assert c["winners"] == [{"seat": 2, "call": "pon"}]
    # the near miss: a seat that never pressed in time is late
    rulings, _ = judge(ruleset, "1 d0 3p", "1.3 c2 pon", "4.3 c2 pon", "4.4 c3 pon",
                       finish=False)
    assert claims(rulings)[-1]["rejected"] == [{"seat": 3, "call": "pon", "reason": "late"}]


def test_deadline_is_clean_on_the_table_clock():
    _, ref = judge("ema2012", "1.1 d0 3p", finish=False)
    assert ref.next_deadline() == 4.1


def test_early_decision_under_head_bump_when_the_next_seat_rons():
    rulings, _ = judge("ema2012", "1 d0 3p", "1.5 c1 ron", finish=False)
    c = only_claim(rulings)
    assert c["t"] == 1.5 and c["window"] == 0.5


def test_no_early_decision_while_a_nearer_ron_is_possible():
    rulings, ref = judge("ema2012", "1 d0 3p", "1.5 c2 ron", finish=False)
    assert claims(rulings) == []
    assert ref.next_deadline() == 4.0
    assert claims(ref.advance(4.0))[0]["winners"] == [{"seat": 2, "call": "ron"}]


def test_tenhou_waits_for_a_possible_second_ron():
    rulings, ref = judge("tenhou", "1 d0 3p", "1.5 c1 ron", finish=False)
    assert claims(rulings) == []
    c = claims(ref.advance(4.0))[0]
    assert c["t"] == 4.0 and c["window"] == 3.0


@pytest.mark.parametrize("ruleset", RULESETS)
def test_pon_waits_for_the_window_since_a_ron_could_still_come(ruleset):
    rulings, ref = judge(ruleset, "1 d0 3p", "1.3 c2 pon", finish=False)
    assert claims(rulings) == []
    assert ref.snapshot()["window"]["presses"] == [{"seat": 2, "call": "pon", "t": 1.3}]
    c = claims(ref.advance(4.0))[0]
    assert c["winners"] == [{"seat": 2, "call": "pon"}] and c["t"] == 4.0


@pytest.mark.parametrize("ruleset", RULESETS)
def test_press_after_the_window_is_late(ruleset):
    rulings, _ = judge(ruleset, "1 d0 3p", "4.5 c2 pon")
    c = only_claim(rulings)
    assert c["winners"] == []
    assert c["rejected"] == [{"seat": 2, "call": "pon", "reason": "late"}]
    assert not [r for r in rulings if r["type"] == "violation"]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_press_at_the_deadline_is_in_time(ruleset):
    c = only_claim(judge(ruleset, "1 d0 3p", "4.0 c2 pon")[0])
    assert c["winners"] == [{"seat": 2, "call": "pon"}]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_next_discard_closes_the_window_and_a_later_press_is_for_the_new_discard(ruleset):
    rulings, _ = judge(ruleset, "1 d0 3p", "2 d1 7s", "2.5 c3 pon")
    c = only_claim(rulings)
    assert c["discard_seat"] == 1 and c["tile"] == "7s"
    assert c["winners"] == [{"seat": 3, "call": "pon"}]


def test_no_timing_rule_on_ema2016_a_claim_stands_until_the_next_discard():
    rulings, ref = judge("ema2016", "1 d0 3p", "9.5 c2 pon", finish=False)
    assert claims(rulings) == [] and ref.next_deadline() is None
    rulings2 = ref.feed(script("10 m2 pon 333p 3p@0")[0]) + \
        ref.feed(script("11 d2 9s")[0])
    c = only_claim(rulings2)
    assert c["winners"] == [{"seat": 2, "call": "pon"}]
    assert not [r for r in rulings2 if r["type"] == "violation"]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_repeated_presses_count_once(ruleset):
    c = only_claim(judge(ruleset, "1 d0 3p", "1.3 c2 pon", "1.4 c2 pon", "1.9 c2 pon")[0])
    assert c["winners"] == [{"seat": 2, "call": "pon"}]
    assert c["rejected"] == [] and "ignored" not in c


@pytest.mark.parametrize("ruleset", RULESETS)
def test_press_on_own_discard_is_ignored_with_a_reason(ruleset):
    c = only_claim(judge(ruleset, "1 d0 3p", "1.3 c0 pon")[0])
    assert c["winners"] == [] and c["rejected"] == []
    assert c["ignored"] == [{"seat": 0, "call": "pon", "reason": "own_discard"}]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_changed_call_keeps_the_higher_claim(ruleset):
    c = only_claim(judge(ruleset, "1 d0 3p", "1.3 c2 pon", "1.8 c2 ron")[0])
    assert c["winners"] == [{"seat": 2, "call": "ron"}]
    assert c["ignored"] == [{"seat": 2, "call": "pon", "reason": "changed_call"}]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_ron_on_own_turn_is_tsumo(ruleset):
    rulings, ref = judge(ruleset, "1 d0 3p", "4.5 c1 ron",
                         "5 reveal 1 123456789m1122p 2p")
    assert claims(rulings) == []
    keys = ("seat", "from", "tile", "t", "chankan", "rinshan", "haitei")
    assert [{k: w[k] for k in keys} for w in ref.hand.declared_wins] == [
        {"seat": 1, "from": None, "tile": None, "t": 4.5, "chankan": False, "rinshan": False,
         "haitei": False}]
    assert ref.snapshot()["hand_over"] is True


@pytest.mark.parametrize("ruleset", RULESETS)
def test_kan_on_own_turn_is_a_closed_kan(ruleset):
    rulings, ref = judge(ruleset, "1 d0 3p", "4.5 c1 kan", "5 m1 ankan 7777s", "6 d1 1z")
    assert claims(rulings) == [] and not [r for r in rulings if r["type"] == "violation"]
    assert ref.snapshot()["seats"][1]["melds"][0]["kind"] == "ankan"
    assert ref.snapshot()["wall"] == 69 - 1 - 1 - 1  # seat 1 drew, kan replacement, seat 2 drew


@pytest.mark.parametrize("ruleset", RULESETS)
def test_added_kan_tile_is_open_to_chankan_for_the_window_only(ruleset):
    base = ["1 d0 5p", "1.5 c1 pon", "2 m1 pon 555p 5p@0", "2.8 d1 9s", "4 d2 1z",
            "5 d3 2z", "6 d0 3z", "9.5 c1 kan", "10 m1 shouminkan 5555p"]
    c = claims(judge(ruleset, *base, "12.5 c3 ron")[0])[-1]
    assert c["chankan"] is True and c["winners"] == [{"seat": 3, "call": "ron"}]
    c = claims(judge(ruleset, *base, "12.5 c3 pon")[0])[-1]
    assert c["winners"] == [] and c["ignored"] == [{"seat": 3, "call": "pon",
                                                    "reason": "ron_only"}]
    c = claims(judge(ruleset, *base, "13.5 c3 ron")[0])[-1]
    assert c["rejected"] == [{"seat": 3, "call": "ron", "reason": "late"}]


@pytest.mark.parametrize("ruleset,robbable", [("ema2012", False), ("tenhou", True)])
def test_closed_kan_open_to_thirteen_orphans_where_the_ruleset_allows(ruleset, robbable):
    rulings, _ = judge(ruleset, "1 c0 kan", "1.5 m0 ankan 1111z", "2.5 c2 ron")
    found = [c for c in claims(rulings) if c.get("chankan")]
    assert bool(found) == robbable
    if robbable:
        assert found[0]["winners"] == [{"seat": 2, "call": "ron"}]


def test_ron_on_a_riichi_discard_voids_the_riichi():
    rulings, ref = judge("ema2012", "1 d0 3p r", "1.5 c1 ron")
    assert ref.snapshot()["seats"][0]["riichi"] is False
    assert ref.snapshot()["scores"][0] == 30000


def test_arbitrate_is_pure_and_orders_winners_from_the_discarder():
    w = ClaimWindow(2, "5m", 0.0, 3.0)
    for seat, t in ((1, 0.5), (0, 0.6), (3, 0.7)):
        assert w.press(seat, "ron", t) is None
    winners, rejected, triple = arbitrate(w, "all")
    assert [x["seat"] for x in winners] == [3, 0, 1] and not triple
    winners, rejected, triple = arbitrate(w, "head_bump")
    assert winners == [{"seat": 3, "call": "ron"}]
    assert [r["reason"] for r in rejected] == ["head_bump", "head_bump"]
