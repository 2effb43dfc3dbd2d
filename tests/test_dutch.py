"""The `dutch` profile: the EMA rules as the Nederlandse Mahjong Bond plays them, with the
Dutch rules of the seed, each in both directions (the rule bites; the play next to it, or the
same play under ema2012, is judged otherwise):

* a closed kan may be robbed by thirteen orphans (and by nothing else);
* after an open or added kan the new dora indicator is turned after the replacement draw and
  the discard, and not at all when the replacement tile wins (or the added tile is robbed);
* a fourth kan ends the hand unless one player made all four (then four kans, suukantsu, is
  a yakuman);
* pon on a tile one discarded earlier is allowed, ron on it is furiten.
"""
import pytest

from referee.rulesets import get_ruleset
from scenario import judge

KOKUSHI = "19m19p19s234567z7z"          # thirteen orphans waiting on East (1z)
H = "234m567m345p678s55s"               # pinfu tanyao, waits on 5s/8s


def of(rulings, kind):
    return [r for r in rulings if r["type"] == kind]


def test_the_profile_is_sourced_and_says_what_is_uncertain():
    rs = get_ruleset("dutch")
    assert rs.ankan_chankan_kokushi and rs.kan_dora == "after_discard"
    assert rs.abortive_draws == {"four_kans"} and rs.kan_limit == 4
    for fact in ("ankan_chankan_kokushi", "kan_dora", "abortive_draws", "furiten"):
        assert "issue 15" in rs.sources[fact]
    assert "furiten.nl" in rs.sources["ankan_chankan_kokushi"]
    assert {"kan_dora", "abortive_draws", "claim_window"} <= set(rs.uncertain)


# -- a closed kan robbed by thirteen orphans ---------------------------------------------------

def test_thirteen_orphans_robs_a_closed_kan():
    rulings, _ = judge("dutch", "1 c0 kan", "1.5 m0 ankan 1111z", "2 c1 ron",
                       f"5.5 reveal 1 {KOKUSHI}1z 1z")
    (claim,) = [c for c in of(rulings, "claim") if c.get("chankan")]
    assert claim["winners"] == [{"seat": 1, "call": "ron"}]
    (win,) = of(rulings, "win")
    assert "kokushi musou" in win["yaku"] and win["points"] == 32000
    assert of(rulings, "violation") == []


def test_no_other_hand_robs_a_closed_kan():
    rulings, _ = judge("dutch", "1 c0 kan", "1.5 m0 ankan 9999m", "2 c1 ron",
                       "5.5 reveal 1 78m567m345p678s55s9m 9m")
    (v,) = of(rulings, "violation")
    assert v["kind"] == "false_win" and v["penalty"] == "chombo"
    assert "thirteen orphans" in v["text"] and of(rulings, "win") == []


def test_ema2012_opens_no_window_on_a_closed_kan():
    rulings, _ = judge("ema2012", "1 c0 kan", "1.5 m0 ankan 1111z", "2 c1 ron")
    assert not [c for c in of(rulings, "claim") if c.get("chankan")]


# -- kan dora after an open or added kan -------------------------------------------------------

# seat 1 holds 444p: it calls kan on seat 0's 4p (awarded when the window closes at 4.0),
# draws its replacement and wins on it (8s). The hand's 234m gives one dora (the deal's
# indicator 1m); the kan's indicator 5s (dora 6s) would give one more, but it was turned
# before any discard.
RINSHAN = ("1 d0 4p", "1.5 c1 kan", "4.2 m1 daiminkan 4444p 4p@0", "4.5 dora 5s", "5 c1 ron",
           "6 reveal 1 234m567m67s8s22z 8s")


@pytest.mark.parametrize("ruleset, counted", [("dutch", False), ("tenhou", False),
                                              ("ema2012", True)])
def test_the_indicator_of_an_open_kan_does_not_count_when_the_replacement_wins(ruleset,
                                                                                  counted):
    rulings, _ = judge(ruleset, *RINSHAN)
    (win,) = of(rulings, "win")
    assert "rinshan kaihou" in win["yaku"]
    assert dict(win["yaku_han"])["dora"] == (2 if counted else 1)
    early = [v for v in of(rulings, "violation") if "dora indicator" in v["text"]]
    if counted:  # ema2012 turns it at once: nothing to point out
        assert early == []
    else:
        (v,) = early
        assert (v["kind"], v["seat"], v["penalty"]) == ("procedure", 1, "none")


@pytest.mark.parametrize("before_discard", [True, False])
def test_the_indicator_of_an_open_kan_counts_once_its_maker_has_discarded(before_discard):
    # the near miss: the replacement tile does not win; seat 1 discards and the indicator
    # stands, whether the camera saw it turned just before the discard or after it. Seat 2
    # then wins on seat 1's discard with the dora (4s) in hand.
    dora = "4.5 dora 3s" if before_discard else "5.2 dora 3s"
    rulings, _ = judge("dutch", "1 d0 4p", "1.5 c1 kan", "4.2 m1 daiminkan 4444p 4p@0", dora,
                       "5 d1 8s", "5.5 c2 ron", "9 reveal 2 234m567m678p67s44s8s 8s")
    (win,) = of(rulings, "win")
    assert dict(win["yaku_han"])["dora"] == 3  # 2m (the deal's 1m) and the pair of 4s
    assert of(rulings, "violation") == []


def test_an_added_kan_robbed_never_turns_its_indicator():
    base = ("1 d0 5p", "1.5 c1 pon", "2 m1 pon 555p 5p@0", "2.8 d1 9s", "4 d2 1z",
            "5 d3 2z", "6 d0 3z", "9.5 c1 kan", "10 m1 shouminkan 5555p", "10.2 dora 3p",
            "10.5 c3 ron", "14 reveal 3 234m567m34p44p678s5p 5p")
    rulings, _ = judge("dutch", *base)
    (win,) = of(rulings, "win")
    # one dora, 2m (the deal's indicator 1m); the kan's 3p would have made the three 4p dora
    assert "chankan" in win["yaku"] and dict(win["yaku_han"])["dora"] == 1
    assert [v["seat"] for v in of(rulings, "violation")] == [1]


# -- four kans -----------------------------------------------------------------------------------

KANS_BY_SEAT_0 = ("1 c0 kan", "1.5 m0 ankan 2222m", "2 c0 kan", "2.5 m0 ankan 3333p",
                  "3 c0 kan", "3.5 m0 ankan 4444s")


def test_a_fourth_kan_by_another_player_ends_the_hand():
    rulings, _ = judge("dutch", *KANS_BY_SEAT_0, "4 d0 9m", "8 c1 kan",
                       "8.5 m1 ankan 6666m", "9 d1 9p")
    (end,) = of(rulings, "hand_end")
    assert (end["result"], end["reason"]) == ("abortive", "four_kans")
    assert end["t"] == 12.0  # once the discard after the fourth kan passed without a ron


def test_four_kans_by_one_player_play_on_and_win_as_a_yakuman():
    # the near miss: seat 0 made all four, the hand goes on; its replacement tile wins
    rulings, _ = judge("dutch", *KANS_BY_SEAT_0, "4 c0 kan", "4.5 m0 ankan 6666m",
                       "5 c0 ron", "6 reveal 0 9m9m 9m")
    (win,) = of(rulings, "win")
    assert "suukantsu" in win["yaku"] and win["yakuman"] >= 1
    (end,) = of(rulings, "hand_end")
    assert end["result"] == "tsumo"


def test_ema2012_plays_on_after_four_kans_by_two_players():
    rulings, _ = judge("ema2012", *KANS_BY_SEAT_0, "4 d0 9m", "8 c1 kan",
                       "8.5 m1 ankan 6666m", "9 d1 9p")
    assert of(rulings, "hand_end") == []


# -- pon on one's own earlier discard; ron on it is furiten ----------------------------------

OWN_3P = ("1 d0 1z", "2 d1 9m", "3 d2 3p", "4 d3 9p", "5 d0 3p")


@pytest.mark.parametrize("ruleset", ["dutch", "ema2012"])
def test_pon_on_a_tile_one_discarded_earlier_is_allowed(ruleset):
    rulings, _ = judge(ruleset, *OWN_3P, "5.5 c2 pon", "6 m2 pon 333p 3p@0", "6.5 d2 9s")
    (claim,) = of(rulings, "claim")
    assert claim["winners"] == [{"seat": 2, "call": "pon"}]
    assert of(rulings, "violation") == []


@pytest.mark.parametrize("ruleset", ["dutch", "ema2012"])
def test_ron_on_a_tile_one_discarded_earlier_is_furiten(ruleset):
    rulings, _ = judge(ruleset, *OWN_3P, "5.5 c2 ron", "9 reveal 2 234m567m3p45p678s55s 3p")
    (v,) = of(rulings, "violation")
    assert v["kind"] == "furiten_ron" and v["seat"] == 2 and v["penalty"] == "chombo"
    assert of(rulings, "win") == []
