"""The demo's simulated camera, the real tracker on rendered ponds, over a stretch of a real
Tenhou game. (Apart from tests/test_tracker.py so the suite's processes can watch this film
and the others at once.)"""
import pytest


def test_simulated_camera_reports_every_discard_of_a_tenhou_stretch(shared_data):
    """The demo's SimulatedCamera (real TableTracker on rendered ponds) over hands 3 to 5 of
    the first Tenhou game (a left seat's third pond row, a riichi tile closed in by the next
    row, 5s and 6s whose sticks reach the tile's edge): every discard reported once, in the
    three frames it gets, at the time of its first frame; nothing else reported."""
    from app.demo import SimulatedCamera, _take_from_pond
    from referee.tenhou import import_log

    logs = sorted((shared_data / "tenhou" / "mjlog").glob("*.mjlog"))
    if not logs:
        pytest.skip("no Tenhou logs in the shared data")
    events = import_log(logs[0]).events
    starts = [i for i, e in enumerate(events) if e["type"] == "hand_start"]
    stretch = events[starts[3]:starts[6]]
    camera = SimulatedCamera(speed=1.0)
    frames = iter(camera)
    per_change = max(camera.FRAMES_PER_CHANGE, camera.tracker.gone_frames)
    reported, missed, late, discards = 0, [], [], 0
    t = 100.0
    for event in stretch:
        if event["type"] == "hand_start":
            camera.show("new_hand", t)
            continue
        if event["type"] == "discard":
            seat, tile, riichi = event["seat"], event["tile"], bool(event.get("riichi"))
            discards += 1
            camera.expect(seat, tile)
            camera.show(lambda s, seat=seat, tile=tile, r=riichi: s.ponds[seat].append((tile, r)),
                        t)
        elif event["type"] == "meld" and event.get("called") and event.get("from") is not None:
            camera.show(_take_from_pond(event["from"], event["called"]), t)
        else:
            continue
        for _ in range(per_change):
            _, out = next(frames)
            for e in out:
                reported += 1
                if abs(e["t"] - t) > 1e-6:
                    late.append(e)
        if event["type"] == "discard" and camera.cancel(event["seat"], event["tile"]):
            missed.append((event["seat"], event["tile"], t))
        t += 1.0
    camera.close()
    assert discards > 150
    assert missed == []
    assert camera.false_reports == []
    assert late == []
    assert reported == discards


