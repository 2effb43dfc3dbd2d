"""Rulesets are data: each profile's facts as the rule texts give them, with sources."""
import pytest

from referee.errors import RefereeError
from referee.events import PENALTIES, VIOLATION_KINDS
from referee.rulesets import ABORTIVE, MULTIPLE_RON, RULESETS, get_ruleset


def test_the_required_profiles_exist_and_ema2012_is_the_default():
    assert {"ema2012", "ema2016", "wrc2015", "tenhou", "mleague"} <= set(RULESETS)
    assert get_ruleset(None).name == "ema2012"


def test_unknown_profile_is_a_clear_error():
    with pytest.raises(RefereeError) as exc:
        get_ruleset("house")
    assert "unknown ruleset 'house'" in str(exc.value) and "ema2012" in str(exc.value)
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_every_profile_is_complete_and_sourced(name):
    rs = get_ruleset(name)
    assert rs.multiple_ron in MULTIPLE_RON
    assert set(rs.abortive_draws) <= set(ABORTIVE)
    assert rs.kan_dora in ("immediate", "after_discard")
    for kind in VIOLATION_KINDS:
        assert rs.penalty(kind) in PENALTIES
        assert rs.rule(kind)
    for fact in ("claim_window", "multiple_ron", "kuikae_forbidden", "abortive_draws",
                 "kan_dora", "uma", "penalties"):
        assert rs.sources.get(fact), f"{name}: no source for {fact}"
    for fact in rs.uncertain:
        assert fact in rs.sources, f"{name}: uncertain {fact} says nothing"
    d = rs.describe()
    assert d["name"] == name and len(d["uma"]) == 4


def test_ema2012_facts_from_the_spec():
    rs = get_ruleset("ema2012")
    assert rs.claim_window == 3.0
    assert rs.multiple_ron == "head_bump"
    assert rs.kuikae_forbidden
    assert rs.penalty("false_group") == "dead_hand"
    assert rs.kan_limit == 4 and not rs.abortive_draws
    assert rs.penalty("procedure") == "none"


def test_ema2016_has_multiple_winners_no_timing_no_abortive_draws():
    rs = get_ruleset("ema2016")
    assert rs.claim_window is None and rs.multiple_ron == "all" and not rs.abortive_draws


def test_tenhou_double_ron_triple_aborts_and_late_kan_dora():
    rs = get_ruleset("tenhou")
    assert rs.multiple_ron == "double"
    assert {"triple_ron", "four_kans", "four_riichi", "four_winds"} <= rs.abortive_draws
    assert rs.kan_dora == "after_discard" and rs.ankan_chankan_kokushi
