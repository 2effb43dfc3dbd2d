"""Presses wait for the cameras to report every discard stamped before them, never long."""
from table.press_hold import PressHold


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def press(t, seat=1, call="pon"):
    return {"type": "call", "t": t, "seat": seat, "call": call}


def test_presses_go_once_every_camera_has_caught_up_in_time_order():
    clock = Clock()
    hold = PressHold(hold=1.5, clock=clock)
    hold.camera(0, 10.0)
    hold.camera(1, 10.4)
    hold.add(press(10.3, seat=2))
    hold.add(press(10.2, seat=1))
    assert hold.due() == []                  # camera 0 may still report a discard at 10.1
    assert hold.waiting(10.25) and not hold.waiting(10.1)
    hold.camera(0, 10.25)
    assert [p["seat"] for p in hold.due()] == [1]
    hold.camera(0, 10.5)
    assert [p["seat"] for p in hold.due()] == [2]
    assert hold.due() == [] and hold.next_release() is None


def test_a_press_earlier_than_an_event_goes_before_it():
    hold = PressHold(clock=Clock())
    hold.camera(0, 5.0)
    hold.add(press(5.2))
    hold.add(press(5.6, seat=3))
    assert [p["t"] for p in hold.due(before=5.4)] == [5.2]


def test_no_press_waits_longer_than_the_hold_nor_for_a_silent_camera():
    clock = Clock()
    hold = PressHold(hold=1.5, stall=0.5, clock=clock)
    hold.camera(0, 1.0)
    hold.add(press(2.0))
    clock.now += 0.4
    assert hold.due() == [] and abs(hold.next_release() - 1.1) < 1e-9
    clock.now += 0.2                          # no frame for 0.6 s: the camera has stalled
    assert [p["t"] for p in hold.due()] == [2.0]
    hold.camera(0, 1.0)
    hold.add(press(3.0))
    clock.now += 1.5
    hold.camera(0, 1.0)                       # frames come, but never past the press
    assert [p["t"] for p in hold.due()] == [3.0]


def test_without_cameras_nothing_waits():
    hold = PressHold(clock=Clock())
    hold.add(press(1.0))
    assert len(hold.due()) == 1
    hold.camera(0, 0.0)
    hold.camera_gone(0)
    hold.add(press(2.0))
    assert len(hold.due()) == 1


def test_a_press_under_test_holds_back_everything_stamped_after_it():
    clock = Clock()
    hold = PressHold(hold=1.5, clock=clock, test_limit=10.0)
    hold.testing((2, "pon"), 10.5)               # seat 2's pon, held down, under test
    hold.add(press(10.8, seat=3))                # a tap after it: waits, however long
    hold.add(press(10.2, seat=1, call="chii"))   # a tap before it: goes
    assert [p["seat"] for p in hold.due()] == [1]
    clock.now += 5.0                             # longer than hold: still waits for the test
    assert hold.due() == []
    assert hold.waiting(13.5)                    # a window closing at 13.5 waits for it
    assert not hold.waiting(10.4)                # one closing before the press does not
    hold.add(press(10.5, seat=2))                # the test passed: its press, then its end
    assert hold.due() == []
    hold.tested((2, "pon"))
    assert [p["seat"] for p in hold.due()] == [2, 3]   # in the order they were pressed
    assert not hold.waiting(13.5)


def test_a_test_that_never_ends_holds_nothing_back_after_the_limit():
    clock = Clock()
    hold = PressHold(hold=1.5, clock=clock, test_limit=10.0)
    hold.testing((2, "pon"), 10.5)
    hold.add(press(10.8, seat=3))
    clock.now += 9.9
    assert hold.due() == [] and hold.waiting(13.5)
    clock.now += 0.2                             # the buttons' worker is gone: go on
    assert [p["seat"] for p in hold.due()] == [3]
    assert not hold.waiting(13.5)
