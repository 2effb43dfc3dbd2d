"""Never cry wolf: a violation that rests on a camera reading the camera is not sure of is a
"check" for the referee, not applied until confirmed; the referee's confirmation applies it,
a correction fixes the reading (and the judgement that follows from it)."""
import pytest

from referee.core import Referee
from referee.simulate import script

CROP = "data:image/jpeg;base64,/9j/AAAA"
H = "234m567m345p678s55s"   # waits on 5s and 8s


def feed(ref, events):
    out = []
    for ev in events:
        out += ref.feed(ev)
    return out


def camera(event, confidence, **extra):
    return {**event, "confidence": confidence, **extra}


def false_group_events(meld_confidence):
    evs = script("0 gs ema2012", "0 hs 0 E 1z", "1 d0 4m", "1.5 c1 chii")
    evs[2] = camera(evs[2], 0.98)
    meld = script("4.5 m1 chii 457m 4m@0")[0]
    return evs + [camera(meld, meld_confidence, unsure_tile=2, crop=CROP)]


def violations(rulings):
    return [r for r in rulings if r["type"] == "violation"]


def test_a_false_group_on_a_sure_reading_is_asserted_and_kills_the_hand():
    ref = Referee()
    v = violations(feed(ref, false_group_events(0.95)))
    assert [x["kind"] for x in v] == ["false_group"]
    assert "check" not in v[0]
    assert ref.snapshot()["seats"][1]["dead_hand"] is True


def test_a_false_group_on_an_unsure_reading_is_a_check_with_the_crop_and_nothing_applied():
    ref = Referee()
    v = violations(feed(ref, false_group_events(0.6)))
    assert [x["kind"] for x in v] == ["false_group"]
    check = v[0]
    assert check["check"] is True and check["confidence"] == 0.6
    assert check["reading"] == {"type": "meld", "seat": 1, "tile": "7m", "index": 2}
    assert check["crop"] == CROP
    assert check["penalty"] == "dead_hand"          # what it would cost if confirmed
    assert ref.snapshot()["seats"][1]["dead_hand"] is False
    assert list(ref.checks) == [check["ruling_id"]]
    assert ref.snapshot()["checks"] == [check["ruling_id"]]


def test_the_threshold_is_the_tables():
    ref = Referee(confidence_threshold=0.5)
    v = violations(feed(ref, false_group_events(0.6)))
    assert "check" not in v[0]
    assert ref.snapshot()["seats"][1]["dead_hand"] is True


def test_a_confirmed_check_is_applied():
    ref = Referee()
    rid = violations(feed(ref, false_group_events(0.6)))[0]["ruling_id"]
    out = ref.feed({"type": "referee", "t": 9, "action": "penalty", "ruling_id": rid,
                    "text": "Confirmed: the meld is 4-5-7."})
    v = violations(out)
    assert [(x["kind"], x["penalty"], x["seat"], x["confirms"]) for x in v] == \
        [("false_group", "dead_hand", 1, rid)]
    assert ref.snapshot()["seats"][1]["dead_hand"] is True
    assert ref.checks == {}


def test_a_correction_fixes_the_reading_and_no_violation_is_applied():
    ref = Referee()
    rid = violations(feed(ref, false_group_events(0.6)))[0]["ruling_id"]
    out = ref.feed({"type": "referee", "t": 9, "action": "override", "ruling_id": rid,
                    "text": "The camera misread: it is 6m.", "tile": "6m"})
    assert violations(out) == []
    snap = ref.snapshot()
    assert snap["seats"][1]["dead_hand"] is False
    assert snap["seats"][1]["melds"][0]["tiles"] == ["4m", "5m", "6m"]
    assert rid in [o["ruling_id"] for o in snap["overrides"]] and ref.checks == {}
    # the table goes on from the corrected meld: seat 1 discarding 4m now is kuikae
    more = ref.feed(camera(script("10 d1 4m")[0], 0.99))
    assert [x["kind"] for x in violations(more)] == ["kuikae"]


def furiten_events(discard_confidence):
    evs = script("0 gs ema2012", "0 hs 0 E 1z", "1 d0 1z", "2 d1 5s", "3 d2 1z", "4 d3 1z",
                 "5 d0 9p", "6 d1 9m", "7 d2 8s", "7.5 c1 ron", f"11 reveal 1 {H} 8s")
    for i, ev in enumerate(evs):
        if ev["type"] in ("discard", "reveal"):
            evs[i] = camera(ev, 0.99)
    evs[3] = camera(evs[3], discard_confidence, crop=CROP)   # seat 1's 5s: its own wait
    return evs


def test_furiten_on_a_sure_pond_is_chombo_at_once():
    ref = Referee()
    out = feed(ref, furiten_events(0.97))
    assert [(v["kind"], "check" in v) for v in violations(out)] == [("furiten_ron", False)]
    assert [r["reason"] for r in out if r["type"] == "hand_end"] == ["chombo"]


def furiten_check(ref):
    out = feed(ref, furiten_events(0.55))
    v = violations(out)
    assert [(x["kind"], x["check"], x["reading"]["tile"]) for x in v] == \
        [("furiten_ron", True, "5s")]
    # nobody pays a chombo yet, and the hand waits for the referee
    assert [r for r in out if r["type"] == "hand_end"] == []
    return v[0]["ruling_id"]


def test_a_check_on_a_revealed_hand_holds_the_hand_until_confirmed():
    ref = Referee()
    rid = furiten_check(ref)
    out = ref.feed({"type": "referee", "t": 20, "action": "penalty", "ruling_id": rid,
                    "text": "Checked the pond: 5s it is."})
    assert [v["confirms"] for v in violations(out)] == [rid]
    end = [r for r in out if r["type"] == "hand_end"]
    assert [(e["result"], e["reason"]) for e in end] == [("abortive", "chombo")]
    # confirmed, the chombo stands: 20,000 off seat 1 after uma (the penalty ledger)
    assert end[0]["scores"] == [30000, 30000, 30000, 30000]
    assert [(p["seat"], p["points"], p["ruling_id"]) for p in ref.snapshot()["penalties"]] == \
        [(1, 20000, violations(out)[0]["ruling_id"])]


def test_a_corrected_pond_tile_lets_the_win_be_judged_and_paid():
    ref = Referee()
    rid = furiten_check(ref)
    out = ref.feed({"type": "referee", "t": 20, "action": "override", "ruling_id": rid,
                    "text": "That was 3s, not 5s.", "tile": "3s"})
    assert violations(out) == []
    win = [r for r in out if r["type"] == "win"]
    assert [(w["seat"], w["from"]) for w in win] == [(1, 2)]
    assert [r["result"] for r in out if r["type"] == "hand_end"] == ["ron"]
    pond = [e["tile"] for e in ref.snapshot()["seats"][1]["pond"]]
    assert pond == ["3s", "9m"]


def test_a_dismissed_check_on_a_revealed_hand_leaves_the_win_to_the_referee():
    ref = Referee()
    rid = furiten_check(ref)
    out = ref.feed({"type": "referee", "t": 20, "action": "override", "ruling_id": rid,
                    "text": "Not furiten; scored by hand."})
    assert [(r["result"], r["reason"]) for r in out if r["type"] == "hand_end"] == \
        [("abortive", "unjudged_win")]


def test_an_unanswered_check_does_not_hold_the_next_hand():
    ref = Referee()
    furiten_check(ref)
    out = ref.feed(script("30 hs 1")[0])
    assert [r["reason"] for r in out if r["type"] == "hand_end"] == ["unjudged_win"]
    assert ref.snapshot()["round"]["dealer"] == 1


@pytest.mark.parametrize("action", ["penalty", "override"])
def test_answers_replay_the_same_after_an_undo(action):
    """Undo rebuilds from the log: the answered check stays answered."""
    ref = Referee()
    rid = violations(feed(ref, false_group_events(0.6)))[0]["ruling_id"]
    answer = {"type": "referee", "t": 9, "action": action, "ruling_id": rid, "text": "x"}
    if action == "override":
        answer["tile"] = "6m"
    ref.feed(answer)
    before = ref.snapshot()["seats"][1]
    ref.feed(camera(script("10 d1 9p")[0], 0.99))
    ref.feed({"type": "referee", "t": 11, "action": "undo", "text": "undo the 9p"})
    after = ref.snapshot()["seats"][1]
    assert after["dead_hand"] == before["dead_hand"]
    assert after["melds"] == before["melds"]
