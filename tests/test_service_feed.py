"""The camera as the table service sees it: a live camera that drops out is opened again."""
import numpy as np
import pytest

from referee.errors import RefereeError
from vision.tracking.service_feed import is_live, reopening


class FlakyCamera:
    """Yields ``good`` frames, then fails (or just stops, ``fail=False``)."""

    def __init__(self, first_t: int, good: int, fail: bool = True):
        self.first_t, self.good, self.fail = first_t, good, fail
        self.closed = False

    def __iter__(self):
        for i in range(self.good):
            yield np.zeros((4, 4, 3), np.uint8), self.first_t + i
        if self.fail:
            raise OSError("camera frontend has timed out")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.closed = True


class Opener:
    """open_source stand-in: hands out the given cameras in turn; ``None`` fails to open."""

    def __init__(self, *cameras):
        self.cameras = list(cameras)
        self.opened = []

    def __call__(self, spec):
        cam = self.cameras.pop(0)
        if cam is None:
            raise RefereeError(f"camera {spec}: not found")
        self.opened.append(cam)
        return cam


def _take(gen, n):
    return [t for _, t in (next(gen) for _ in range(n))]


@pytest.mark.parametrize("spec", ["picamera", "cam:0", "0"])
def test_a_live_camera_that_fails_is_opened_again_until_it_answers(spec):
    opener = Opener(FlakyCamera(100, 3), None, None, FlakyCamera(200, 2, fail=False),
                    FlakyCamera(300, 1))
    waits = []
    frames = reopening(opener, spec, wait=2.0, sleep=waits.append)
    # frames before the failure, then (after two failed openings) the camera's new frames,
    # then again after it simply stopped
    assert _take(frames, 6) == [100, 101, 102, 200, 201, 300]
    assert waits == [2.0, 2.0, 2.0, 2.0]
    assert all(cam.closed for cam in opener.opened[:-1])


def test_a_camera_missing_at_start_is_a_one_line_error_at_once():
    with pytest.raises(RefereeError, match="camera picamera: not found"):
        next(reopening(Opener(None), "picamera", sleep=lambda s: pytest.fail("retried")))


def test_a_recording_ends_or_fails_as_it_does():
    assert [t for _, t in reopening(Opener(FlakyCamera(1, 2, fail=False)), "game.mp4",
                                    sleep=lambda s: pytest.fail("retried"))] == [1, 2]
    with pytest.raises(OSError):
        list(reopening(Opener(FlakyCamera(1, 2)), "frames/", sleep=lambda s: pytest.fail("retried")))


def test_live_means_a_camera_not_a_file():
    assert is_live("picamera") and is_live("cam:1") and is_live("2")
    assert not is_live("game.mp4") and not is_live("frames") and not is_live("synthetic")
