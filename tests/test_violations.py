"""Violations, each written from the rule text in both directions: the offence is flagged,
the legal play next to it is not. Run on ema2012 and tenhou (and where the rule differs, on
the profile that differs)."""
import pytest

from referee.rulesets import get_ruleset
from referee.simulate import filler
from scenario import PLAUSIBLE, judge

RULESETS = ["ema2012", "tenhou"]




def violations(rulings, kind=None):
    return [r for r in rulings if r["type"] == "violation" and (kind is None or r["kind"] == kind)]


# -- kuikae ---------------------------------------------------------------------------------
CHII_4_WITH_56 = ("1 d0 4m", "1.5 c1 chii", "2 m1 chii 456m 4m@0")


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("discard,flagged", [
    ("4m", True),    # the called tile itself
    ("7m", True),    # the far side of an edge chii: calling 4 with 56 forbids 7
    ("8m", False),   # any other tile is fine
    ("3m", False),
])
def test_kuikae_after_edge_chii(ruleset, discard, flagged):
    rulings, _ = judge(ruleset, *CHII_4_WITH_56, f"2.8 d1 {discard}")
    found = violations(rulings, "kuikae")
    assert bool(found) == flagged
    if flagged:
        v = found[0]
        assert v["seat"] == 1
        assert v["penalty"] == get_ruleset(ruleset).penalty("kuikae")
        assert v["rule"] and v["text"].endswith(".")
    assert all(v["kind"] == "kuikae" for v in violations(rulings))


@pytest.mark.parametrize("ruleset", RULESETS)
def test_kuikae_far_side_from_the_top_end(ruleset):
    rulings, _ = judge(ruleset, "1 d0 7p", "1.5 c1 chii", "2 m1 chii 567p 7p@0", "2.8 d1 4p")
    assert [v["kind"] for v in violations(rulings)] == ["kuikae"]


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("discard,flagged", [("5s", True), ("2s", False), ("8s", False)])
def test_middle_tile_chii_forbids_only_the_called_tile(ruleset, discard, flagged):
    rulings, _ = judge(ruleset, "1 d0 5s", "1.5 c1 chii", "2 m1 chii 456s 5s@0",
                       f"2.8 d1 {discard}")
    assert bool(violations(rulings, "kuikae")) == flagged


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("called,meld,discard,flagged", [
    ("0p", "055p", "5p", True),   # called the red five, threw a plain five
    ("5p", "555p", "0p", True),   # called a plain five, threw the red one
    ("5p", "555p", "6p", False),
])
def test_kuikae_after_pon_red_and_plain_fives_alike(ruleset, called, meld, discard, flagged):
    rulings, _ = judge(ruleset, f"1 d0 {called}", "1.5 c2 pon",
                       f"2 m2 pon {meld} {called}@0", f"2.8 d2 {discard}")
    assert bool(violations(rulings, "kuikae")) == flagged


@pytest.mark.parametrize("ruleset", RULESETS)
def test_kuikae_only_in_the_turn_of_the_call(ruleset):
    # after the caller's next draw the same tile is an ordinary discard
    rulings, _ = judge(ruleset, "1 d0 4m", "1.5 c1 chii", "2 m1 chii 456m 4m@0", "2.8 d1 9p",
                       "4 d2 1z", "5 d3 2z", "6 d0 3z", "7 d1 4m")
    assert violations(rulings) == []


# -- false group ----------------------------------------------------------------------------
@pytest.mark.parametrize("ruleset", RULESETS)
def test_claim_not_taken_before_two_discards_by_others_is_a_false_group(ruleset):
    rulings, ref = judge(ruleset, "1 d0 3p", "1.5 c2 pon", "2.5 d2 9s", "4 d3 1z", "5 d0 2z")
    kinds = [v["kind"] for v in violations(rulings)]
    assert kinds == ["procedure", "false_group"]
    fg = violations(rulings, "false_group")[0]
    assert fg["seat"] == 2 and fg["t"] == 5.0
    assert fg["penalty"] == get_ruleset(ruleset).penalty("false_group")
    assert ref.snapshot()["seats"][2]["dead_hand"] is True


@pytest.mark.parametrize("ruleset", RULESETS)
def test_claim_taken_after_one_discard_by_others_is_no_false_group(ruleset):
    rulings, ref = judge(ruleset, "1 d0 3p", "1.5 c2 pon", "2.5 d2 9s", "4 d3 1z",
                         "4.5 m2 pon 333p 3p@0", "5 d0 2z")
    assert [v["kind"] for v in violations(rulings)] == ["procedure"]  # discard before meld
    assert ref.snapshot()["seats"][2]["dead_hand"] is False
    assert ref.snapshot()["seats"][2]["melds"][0]["tiles"] == ["3p", "3p", "3p"]


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("meld,flagged", [
    ("pon 334p 3p@0", True),        # not a set
    ("chii 234p 3p@0", True),       # not the set called (pon called)
    ("pon 444p 4p@0", True),        # lacks the called tile
    ("pon 333p 3p@0", False),
])
def test_meld_must_be_the_set_called_with_the_called_tile(ruleset, meld, flagged):
    rulings, ref = judge(ruleset, "1 d0 3p", "1.5 c2 pon", f"2 m2 {meld}", "2.8 d2 9s")
    assert bool(violations(rulings, "false_group")) == flagged
    assert ref.snapshot()["seats"][2]["dead_hand"] == (
        flagged and get_ruleset(ruleset).penalty("false_group") in ("dead_hand", "chombo"))


@pytest.mark.parametrize("ruleset", RULESETS)
def test_meld_without_the_red_five_called_is_a_false_group(ruleset):
    rulings, _ = judge(ruleset, "1 d0 0p", "1.5 c2 pon", "2 m2 pon 555p 5p@0", "2.8 d2 9s")
    assert [v["kind"] for v in violations(rulings)] == ["false_group"]
    rulings, _ = judge(ruleset, "1 d0 0p", "1.5 c2 pon", "2 m2 pon 055p 0p@0", "2.8 d2 9s")
    assert violations(rulings) == []


# -- wrong-seat chii -------------------------------------------------------------------------
@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("seat,flagged", [(2, True), (3, True), (1, False)])
def test_chii_only_from_the_player_on_the_left(ruleset, seat, flagged):
    rulings, _ = judge(ruleset, "1 d0 3m", f"1.5 c{seat} chii")
    assert bool(violations(rulings, "wrong_seat_call")) == flagged
    claim = next(r for r in rulings if r["type"] == "claim")
    if flagged:
        assert claim["winners"] == []
        assert claim["rejected"] == [{"seat": seat, "call": "chii", "reason": "wrong_seat"}]
    else:
        assert claim["winners"] == [{"seat": 1, "call": "chii"}]


# -- the last discard ------------------------------------------------------------------------
LAST = filler(70, 0, 1.0, tiles=PLAUSIBLE)  # discards 1..70 at t=1..70; the 70th (seat 1,
#                                            t=70) is the last


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("call,kind", [("chii", "last_discard_call"), ("pon", "last_discard_call"),
                                       ("kan", "illegal_kan"), ("ron", None)])
def test_only_ron_may_claim_the_last_discard(ruleset, call, kind):
    seat = 2  # after discarder 1: chii is from the left, so only the last-discard rule bites
    rulings, _ = judge(ruleset, f"70.5 c{seat} {call}", events=LAST)
    claim = next(r for r in rulings if r["type"] == "claim")
    if kind is None:
        assert violations(rulings) == []
        assert claim["winners"] == [{"seat": 2, "call": "ron"}]
    else:
        assert [v["kind"] for v in violations(rulings)] == [kind]
        assert claim["winners"] == []
        assert claim["rejected"] == [{"seat": 2, "call": call, "reason": "last_discard"}]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_pon_on_the_second_to_last_discard_is_legal(ruleset):
    rulings, _ = judge(ruleset, "69.5 c2 pon", events=LAST[:69])
    assert violations(rulings) == []
    claim = next(r for r in rulings if r["type"] == "claim")
    assert claim["winners"] == [{"seat": 2, "call": "pon"}]


# -- illegal kans ----------------------------------------------------------------------------
@pytest.mark.parametrize("ruleset", RULESETS)
def test_no_kan_on_the_last_tile(ruleset):
    # the 69th discard (seat 0, t=69) closes at 72: seat 1 has drawn the last tile
    rulings, _ = judge(ruleset, "72.5 c1 kan", events=LAST[:69])
    assert [v["kind"] for v in violations(rulings)] == ["illegal_kan"]
    # one tile earlier there is still a replacement tile
    rulings, _ = judge(ruleset, "71.5 c0 kan", "72 m0 ankan 2222m", events=LAST[:68])
    assert violations(rulings) == []


@pytest.mark.parametrize("ruleset", RULESETS)
def test_no_added_or_closed_kan_in_the_turn_of_a_pon(ruleset):
    rulings, _ = judge(ruleset, "1 d0 5p", "1.5 c1 pon", "2 m1 pon 555p 5p@0", "4.5 c1 kan")
    assert [v["kind"] for v in violations(rulings)] == ["illegal_kan"]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_added_kan_on_a_later_turn_is_legal(ruleset):
    rulings, ref = judge(ruleset, "1 d0 5p", "1.5 c1 pon", "2 m1 pon 555p 5p@0", "2.8 d1 9s",
                         "4 d2 1z", "5 d3 2z", "6 d0 3z", "9.5 c1 kan", "10 m1 shouminkan 5555p",
                         "11 c2 ron")
    assert violations(rulings) == []
    snap = ref.snapshot()
    assert snap["seats"][1]["melds"][0]["kind"] == "shouminkan"
    # the added tile was open to a win (chankan)
    claim = [r for r in rulings if r["type"] == "claim"][-1]
    assert claim["chankan"] is True and claim["discard_seat"] == 1 and claim["tile"] == "5p"
    assert claim["winners"] == [{"seat": 2, "call": "ron"}]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_fifth_kan(ruleset):
    kans = ["1 c0 kan", "1.2 m0 ankan 2222m", "2 c0 kan", "2.2 m0 ankan 3333m",
            "3 c0 kan", "3.2 m0 ankan 4444m", "4 c0 kan", "4.2 m0 ankan 6666m"]
    rulings, _ = judge(ruleset, *kans)
    assert violations(rulings) == []  # four kans by one player are legal
    rulings, _ = judge(ruleset, *kans, "5 c0 kan")
    assert [v["kind"] for v in violations(rulings)] == ["fifth_kan"]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_daiminkan_after_the_fourth_kan_is_rejected(ruleset):
    kans = ["1 c0 kan", "1.2 m0 ankan 2222m", "2 c0 kan", "2.2 m0 ankan 3333m",
            "3 c0 kan", "3.2 m0 ankan 4444m", "4 c0 kan", "4.2 m0 ankan 6666m"]
    rulings, _ = judge(ruleset, *kans, "5 d0 8s", "5.5 c2 kan")
    assert [v["kind"] for v in violations(rulings)] == ["fifth_kan"]
    claim = next(r for r in rulings if r["type"] == "claim")
    assert claim["rejected"] == [{"seat": 2, "call": "kan", "reason": "kan_limit"}]


# seat 1 pons seat 0's 5p; the fourth 5p is then discarded by seat 0 (seat 1 is next in turn)
# or by seat 2 (it is not)
FOURTH_5P = {
    0: ("1 d0 5p", "1.5 c1 pon", "2 m1 pon 555p 5p@0", "2.8 d1 1z", "4 d2 2z", "5 d3 3z",
        "6 d0 5p", "6.5 c1 kan"),
    2: ("1 d0 5p", "1.5 c1 pon", "2 m1 pon 555p 5p@0", "2.8 d1 1z", "4 d2 5p", "4.5 c1 kan"),
}


@pytest.mark.parametrize("ruleset", RULESETS + ["ema2016"])
@pytest.mark.parametrize("discarder", [0, 2])
@pytest.mark.parametrize("shown", ["shouminkan 5555p", "daiminkan 5555p 5p@{d}", None])
def test_no_kan_on_a_discarded_fourth_tile_to_ones_own_pon(ruleset, discarder, shown):
    # the Kan seed: "If the fourth tile was discarded by another player, it cannot be claimed
    # by kan": a kan on a discard needs three concealed tiles, and seat 1 shows three in its
    # pon. The claim is rejected; shown anyway, the kan is an illegal kan.
    lines = FOURTH_5P[discarder]
    if shown:
        lines += (f"7.5 m1 {shown.format(d=discarder)}",)
    # the next seat's discard closes the window where the ruleset has no timing rule
    rulings, ref = judge(ruleset, *lines, f"12 d{(discarder + 1) % 4} 9p")
    claim = [r for r in rulings if r["type"] == "claim"][1]
    assert (claim["discard_seat"], claim["tile"], claim["winners"]) == (discarder, "5p", [])
    assert claim["rejected"] == [{"seat": 1, "call": "kan", "reason": "own_pon"}]
    if not shown:
        assert violations(rulings) == []
        assert ref.snapshot()["seats"][1]["melds"][0]["kind"] == "pon"
        return
    # one ruling: the illegal kan (no fifth copy: the discarded 5p left the pond for the kan)
    (v,) = violations(rulings)
    assert (v["kind"], v["seat"]) == ("illegal_kan", 1)
    assert v["penalty"] == get_ruleset(ruleset).penalty("illegal_kan")
    assert v["rule"] == get_ruleset(ruleset).rule("illegal_kan") and "5p" in v["text"]
    melds = ref.snapshot()["seats"][1]["melds"]
    assert [len(m["tiles"]) for m in melds] == [4]


@pytest.mark.parametrize("ruleset", RULESETS + ["ema2016"])
def test_kan_on_a_discard_of_another_tile_by_a_seat_with_a_pon_stands(ruleset):
    # the near miss: seat 1's pon is of 5p; the 8p it calls kan on may be three in its hand
    rulings, ref = judge(ruleset, "1 d0 5p", "1.5 c1 pon", "2 m1 pon 555p 5p@0", "2.8 d1 1z",
                         "4 d2 8p", "4.5 c1 kan", "7.5 m1 daiminkan 8888p 8p@2", "8 d1 9p")
    claim = [r for r in rulings if r["type"] == "claim"][1]
    assert claim["winners"] == [{"seat": 1, "call": "kan"}] and claim["rejected"] == []
    assert violations(rulings) == []
    assert [m["kind"] for m in ref.snapshot()["seats"][1]["melds"]] == ["pon", "daiminkan"]


def test_with_no_timing_rule_a_kan_press_on_the_fourth_tile_may_be_the_seats_own_kan():
    # ema2016 has no claim window: seat 1, next in turn, presses kan just after the fourth
    # 5p and shows a closed kan of 2m: that was its own kan, not a claim on the 5p
    rulings, ref = judge("ema2016", *FOURTH_5P[0], "7.5 m1 ankan 2222m", "8 d1 9p")
    assert violations(rulings) == []
    assert [r for r in rulings if r["type"] == "claim"][1:] == []
    assert [m["kind"] for m in ref.snapshot()["seats"][1]["melds"]] == ["pon", "ankan"]


# -- riichi ----------------------------------------------------------------------------------
@pytest.mark.parametrize("ruleset", RULESETS)
def test_riichi_with_an_open_hand(ruleset):
    rulings, ref = judge(ruleset, "1 d0 5p", "1.5 c1 pon", "2 m1 pon 555p 5p@0", "2.8 d1 9s",
                         "4 d2 1z", "5 d3 2z", "6 d0 3z", "9.5 d1 4s r")
    assert [v["kind"] for v in violations(rulings)] == ["riichi_open_hand"]
    assert ref.snapshot()["seats"][1]["riichi"] is False


@pytest.mark.parametrize("ruleset", RULESETS)
def test_riichi_after_a_closed_kan_is_legal(ruleset):
    rulings, ref = judge(ruleset, "1 c0 kan", "1.2 m0 ankan 2222m", "2 d0 4s r", "6 d1 1z")
    assert violations(rulings) == []
    assert ref.snapshot()["seats"][0]["riichi"] is True


# seat 1 declares riichi (accepted when its discard passes); seat 0's 5p later comes by
IN_RIICHI = ("1 d0 1z", "2 d1 9m r", "6 d2 2z", "7 d3 3z", "8 d0 5p")
CALL_MELD = {"chii": "chii 456p 5p@0", "pon": "pon 555p 5p@0", "kan": "daiminkan 5555p 5p@0"}


@pytest.mark.parametrize("ruleset", RULESETS + ["ema2016"])
@pytest.mark.parametrize("call", ["chii", "pon", "kan"])
@pytest.mark.parametrize("shown", [True, False])
def test_no_call_after_riichi(ruleset, call, shown):
    # the Ari-Ari seed: after riichi "You can only discard the tile you draw": the claim is
    # rejected, and a meld shown anyway opens the riichi hand (the ruleset's penalty)
    lines = IN_RIICHI + (f"8.5 c1 {call}",)
    if shown:
        lines += (f"9 m1 {CALL_MELD[call]}",)
    rulings, ref = judge(ruleset, *lines, "12 d1 9p")
    claim = [r for r in rulings if r["type"] == "claim"][0]
    assert (claim["discard_seat"], claim["tile"], claim["winners"]) == (0, "5p", [])
    assert claim["rejected"] == [{"seat": 1, "call": call, "reason": "riichi"}]
    found = violations(rulings, "riichi_open_hand")
    if shown:
        (v,) = found
        assert v["seat"] == 1 and "riichi" in v["text"]
        assert v["penalty"] == get_ruleset(ruleset).penalty("riichi_open_hand")
        assert v["rule"] == get_ruleset(ruleset).rule("riichi_open_hand")
    else:
        assert found == []
    # nothing else: seat 1, next in turn, draws and discards as ever, still in riichi
    assert [v["kind"] for v in violations(rulings)] == (["riichi_open_hand"] if shown else [])
    assert ref.snapshot()["seats"][1]["riichi"] is True


@pytest.mark.parametrize("ruleset", RULESETS + ["ema2016"])
@pytest.mark.parametrize("call", ["chii", "pon", "kan"])
def test_the_same_call_before_riichi_stands(ruleset, call):
    # the near miss: without the riichi the same call is awarded
    lines = ("1 d0 1z", "2 d1 9m", "6 d2 2z", "7 d3 3z", "8 d0 5p", f"8.5 c1 {call}",
             f"9 m1 {CALL_MELD[call]}")
    rulings, _ = judge(ruleset, *lines)
    claim = [r for r in rulings if r["type"] == "claim"][0]
    assert claim["winners"] == [{"seat": 1, "call": call}] and claim["rejected"] == []
    assert violations(rulings) == []


@pytest.mark.parametrize("ruleset", RULESETS + ["ema2016"])
def test_in_riichi_a_seat_may_still_ron_and_make_its_closed_kan(ruleset):
    rulings, _ = judge(ruleset, *IN_RIICHI, "8.5 c1 ron")
    claim = [r for r in rulings if r["type"] == "claim"][0]
    assert claim["winners"] == [{"seat": 1, "call": "ron"}] and claim["rejected"] == []
    # a closed kan on its own turn is another rule's (no claim on a discard): with no timing
    # rule (ema2016) the kan pressed just after seat 0's discard is that closed kan
    rulings, _ = judge(ruleset, *IN_RIICHI, "11.5 c1 kan", "12 m1 ankan 2222m")
    assert violations(rulings) == []
    assert [r for r in rulings if r["type"] == "claim"] == []


# -- claim steps out of order ---------------------------------------------------------------
@pytest.mark.parametrize("ruleset", RULESETS)
def test_meld_with_no_claim_is_procedure(ruleset):
    rulings, _ = judge(ruleset, "1 d0 3p", "2 m2 pon 333p 3p@0", "2.8 d2 9s")
    kinds = [(v["kind"], v["penalty"]) for v in violations(rulings)]
    assert kinds[0] == ("procedure", "none")
    rulings, _ = judge(ruleset, "1 d0 3p", "1.5 c2 pon", "2 m2 pon 333p 3p@0", "2.8 d2 9s")
    assert violations(rulings) == []


@pytest.mark.parametrize("ruleset", RULESETS)
def test_discard_before_the_meld_is_procedure(ruleset):
    rulings, _ = judge(ruleset, "1 d0 3p", "1.5 c2 pon", "2.5 d2 9s", "3 m2 pon 333p 3p@0")
    assert [(v["kind"], v["penalty"]) for v in violations(rulings)] == [("procedure", "none")]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_meld_seen_inside_the_window_is_judged_after_the_decision(ruleset):
    # the player exposed quickly; a ron on the same tile still outranks the pon
    rulings, ref = judge(ruleset, "1 d0 3p", "1.3 c2 pon", "1.6 m2 pon 333p 3p@0",
                         "2.0 c3 ron")
    claim = next(r for r in rulings if r["type"] == "claim")
    assert claim["winners"] == [{"seat": 3, "call": "ron"}]
    assert claim["rejected"] == [{"seat": 2, "call": "pon", "reason": "precedence"}]
    assert [v["kind"] for v in violations(rulings)] == ["procedure"]


# -- a fifth copy of a tile on the table ------------------------------------------------------
FOUR_3P = ("1 d0 3p", "5 d1 3p", "9 d2 3p", "13 d3 3p")


@pytest.mark.parametrize("ruleset", RULESETS + ["dutch"])
def test_a_fifth_copy_on_the_table_is_flagged_once(ruleset):
    rulings, _ = judge(ruleset, *FOUR_3P, "17 d0 3p", "21 d1 3p")
    (v,) = violations(rulings)
    assert (v["kind"], v["seat"], v["tile"], v["penalty"]) == ("procedure", 0, "3p", "none")
    assert "5 copies of 3p" in v["text"] and "seat 0's discard" in v["text"]


@pytest.mark.parametrize("ruleset", RULESETS + ["dutch"])
def test_four_copies_are_a_whole_set_and_not_flagged(ruleset):
    rulings, _ = judge(ruleset, *FOUR_3P, "17 d0 4p")
    assert violations(rulings) == []


def test_a_fifth_copy_counts_melds_and_dora_indicators_not_a_called_tile_twice():
    # 3p: two in seat 2's pon, the called one taken from seat 0's pond (not counted again),
    # one dora indicator, one in a pond = 4; a fifth in a pond is one too many
    lines = ("1 d0 3p", "1.5 c2 pon", "2 m2 pon 333p 3p@0", "2.5 d2 9s", "3 dora 3p",
             "6 d3 1z", "10 d0 9m")
    rulings, _ = judge("tenhou", *lines)
    assert violations(rulings) == []
    rulings, _ = judge("tenhou", *lines, "14 d1 3p")
    (v,) = violations(rulings)
    assert v["tile"] == "3p" and v["seat"] == 1


@pytest.mark.parametrize("ruleset, flagged", [("ema2012", True), ("wrc2015", False)])
def test_a_second_red_five_is_flagged_where_the_set_has_one(ruleset, flagged):
    # ema2012 plays with one red five per suit; wrc2015 without, where a 0p is only a five
    rulings, _ = judge(ruleset, "1 d0 0p", "5 d1 0p")
    assert [v.get("tile") for v in violations(rulings)] == (["0p"] if flagged else [])


# -- riichi with fewer than four tiles left in the wall --------------------------------------

@pytest.mark.parametrize("ruleset", RULESETS + ["dutch"])
@pytest.mark.parametrize("before, flagged", [(66, True), (65, False)])
def test_riichi_needs_four_tiles_left_in_the_wall(ruleset, before, flagged):
    # after 66 discards the next player has drawn: 3 tiles are left, too few; after 65, 4
    seat = before % 4
    rulings, ref = judge(ruleset, f"{before + 1} d{seat} 3p r",
                         events=filler(before, 0, 1.0, tiles=PLAUSIBLE), finish=False)
    found = violations(rulings)
    if flagged:
        (v,) = found
        assert (v["kind"], v["seat"], v["penalty"]) == ("procedure", seat, "none")
        assert "3 tiles left in the wall" in v["text"]
    else:
        assert found == []
    ref.advance(before + 10)  # the riichi discard passes
    snap = ref.snapshot()
    assert snap["seats"][seat]["riichi"] is not flagged
    start = get_ruleset(ruleset).start_score
    assert snap["scores"][seat] == (start if flagged else start - 1000)


# -- a meld's `from` is the discarder --------------------------------------------------------

@pytest.mark.parametrize("ruleset", RULESETS + ["dutch"])
@pytest.mark.parametrize("shown, flagged", [("@3", True), ("@1", True), ("@0", False),
                                            ("", False)])
def test_a_meld_from_another_seat_than_the_discarder_is_pointed_out(ruleset, shown, flagged):
    rulings, _ = judge(ruleset, "1 d0 3p", "1.5 c2 pon", f"2 m2 pon 333p 3p{shown}",
                       "2.5 d2 9s")
    found = violations(rulings)
    if flagged:
        (v,) = found
        assert (v["kind"], v["seat"], v["penalty"]) == ("procedure", 2, "none")
        assert f"from seat {shown[1]}" in v["text"] and "seat 0's discard" in v["text"]
    else:
        assert found == []


@pytest.mark.parametrize("ruleset", ["ema2012", "tenhou", "dutch"])
def test_the_running_count_of_tiles_on_the_table_is_a_recount(ruleset):
    # the core keeps the count as tiles appear and move; it must equal a recount of the
    # ponds, melds, indicators and reveals after every event of real-looking games
    from referee.core import Referee
    from referee.fifth_copy import seen_on_table
    from referee.simulate import simulate

    ref = Referee()
    checked = 0
    for ev in simulate(seed=11, hands=4, ruleset=ruleset):
        ref.feed(ev)
        hand = ref.hand
        if hand is not None:
            assert +hand.seen == seen_on_table(hand), ev
            checked += 1
    assert checked > 200
