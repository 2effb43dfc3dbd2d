"""How bench/buttons.py judges the calls that came out of its storm: against the edges the mock
pins really stamped, so that its verdict does not depend on how busy the machine was."""
from hardware.buttons import ButtonFault
from hardware.config import SAMPLE_CONFIG, load_table_config
from testkit.button_storm import judge

WIRING = load_table_config(SAMPLE_CONFIG)
PON = WIRING.button(1, "pon")
KAN = WIRING.button(2, "kan")


def call(t, b):
    return (t + 0.0003, {"type": "call", "t": t, "seat": b.seat, "call": b.call})


def fault(b, t, suspect):
    return ButtonFault(b.seat, b.call, b.pin, t, False, "chatters", t, suspect, False, "")


def judged(calls, faults=(), real=(), paused=()):
    j = judge(WIRING, list(calls), list(faults), list(real), list(paused))
    return {k: j[k] for k in ("real_calls", "lost", "doubled", "chatter_onset_calls",
                              "calls_before_chatter_pauses", "unexplained_calls")}


def test_a_real_press_is_its_call_stamped_with_its_edge_exactly():
    assert judged([call(10.0, PON)], real=[(PON.pin, 10.0)]) == dict(
        real_calls=1, lost=0, doubled=0, chatter_onset_calls=0, calls_before_chatter_pauses=0,
        unexplained_calls=0)
    # a microsecond off, or another button's: lost, and a call no press explains
    for other in (call(10.000001, PON), call(10.0, KAN)):
        j = judged([other], real=[(PON.pin, 10.0)])
        assert (j["lost"], j["unexplained_calls"]) == (1, 1)
    assert judged([call(10.0, PON)] * 2, real=[(PON.pin, 10.0)])["doubled"] == 1


def test_a_chattering_pin_may_make_the_call_its_fault_names_and_no_other():
    chatter_calls = [call(20.0, KAN), call(20.3, KAN)]
    j = judged(chatter_calls, faults=[fault(KAN, 20.07, suspect=20.0)])
    assert (j["chatter_onset_calls"], j["unexplained_calls"]) == (1, 1)


def test_calls_before_a_chattering_pin_went_still_are_a_glitch_not_chatter():
    # the driver was held up after 20.04 for more than a chatter window: to the referee, kan
    # chattered from 20.0 to 20.04, too briefly to show as chatter, and then was still
    paused = [(KAN.pin, 20.0, 20.04)]
    j = judged([call(20.0, KAN), call(20.01, KAN)], paused=paused)
    assert (j["calls_before_chatter_pauses"], j["unexplained_calls"]) == (2, 0)
    # no more than such a glitch can make without being chatter (4 presses)
    calls = [call(20.0 + 0.01 * k, KAN) for k in range(5)]
    j = judged(calls, paused=[(KAN.pin, 20.0, 20.045)])
    assert (j["calls_before_chatter_pauses"], j["unexplained_calls"]) == (4, 1)
    # nor a call before the stretch began, nor one after it, nor another button's
    for t, b in [(19.99, KAN), (20.05, KAN), (20.0, PON)]:
        j = judged([call(t, b)], paused=paused)
        assert (j["calls_before_chatter_pauses"], j["unexplained_calls"]) == (0, 1)


def test_a_stuck_button_is_expected_to_make_no_call_from_its_jam_to_its_release():
    stuck = [(PON.pin, 30.0, 40.0)]
    # the press that jammed it, and one a late lift made, are no calls: nothing is lost
    j = judge(WIRING, [], [], [(PON.pin, 30.0), (PON.pin, 33.0)], [], stuck)
    assert (j["stuck_presses"], j["real_presses"], j["lost"]) == (2, 0, 0)
    # a call from it is one no press explains (the referee would see a claim no one made)
    j = judge(WIRING, [call(30.0, PON)], [], [(PON.pin, 30.0)], [], stuck)
    assert j["unexplained_calls"] == 1
    # a press after its release counts again
    j = judge(WIRING, [call(41.0, PON)], [], [(PON.pin, 41.0)], [], stuck)
    assert (j["real_calls"], j["lost"], j["unexplained_calls"]) == (1, 0, 0)
