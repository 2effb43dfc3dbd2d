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
