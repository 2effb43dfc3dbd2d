"""Frame sources: every frame comes with a time on the table's monotonic clock."""
import time

import cv2
import numpy as np
import pytest

from referee.errors import RefereeError
from vision.camera.sources import (
    CameraSource,
    ImageFolderSource,
    PiCameraSource,
    SyntheticSource,
    VideoFileSource,
    open_source,
    read_image,
)


def _frames(n, size=(64, 48)):
    return [np.full((size[1], size[0], 3), 20 * i, np.uint8) for i in range(n)]


def test_synthetic_frames_are_stamped_at_the_frame_rate():
    src = SyntheticSource(_frames(4), fps=20, start_ns=5_000_000_000)
    stamps = [t for _, t in src]
    assert stamps == [5_000_000_000, 5_050_000_000, 5_100_000_000, 5_150_000_000]


def test_synthetic_source_from_a_function_stops_on_none():
    src = SyntheticSource(lambda i: None if i == 3 else _frames(1)[0], fps=10, start_ns=0)
    assert [t for _, t in src] == [0, 100_000_000, 200_000_000]


def test_synthetic_source_defaults_to_now_on_the_monotonic_clock():
    before = time.monotonic_ns()
    (_, t), = list(SyntheticSource(_frames(1)))
    assert before <= t <= time.monotonic_ns()


def test_video_file_time_comes_from_the_frame_position(tmp_path):
    path = tmp_path / "hand.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 25, (64, 48))
    assert writer.isOpened()
    for frame in _frames(5):
        writer.write(frame)
    writer.release()
    with VideoFileSource(path, start_ns=1_000_000_000) as src:
        got = list(src)
    assert len(got) == 5
    assert [t for _, t in got] == [1_000_000_000 + i * 40_000_000 for i in range(5)]
    # the same file gives the same times every run
    assert [t for _, t in VideoFileSource(path, start_ns=1_000_000_000)] == [t for _, t in got]


def test_a_video_that_will_not_open_is_one_clear_error(tmp_path):
    bad = tmp_path / "broken.mp4"
    bad.write_bytes(b"not a video")
    with pytest.raises(RefereeError, match="broken.mp4"):
        VideoFileSource(bad)
    with pytest.raises(RefereeError, match="missing.mp4: no such file$"):
        VideoFileSource(tmp_path / "missing.mp4")


def test_image_folder_in_name_order(tmp_path):
    for name, value in (("b.png", 200), ("a.png", 100), ("notes.txt", None)):
        if value is None:
            (tmp_path / name).write_text("x")
        else:
            cv2.imwrite(str(tmp_path / name), np.full((8, 8, 3), value, np.uint8))
    got = list(ImageFolderSource(tmp_path, fps=2, start_ns=0))
    assert [int(f[0, 0, 0]) for f, _ in got] == [100, 200]
    assert [t for _, t in got] == [0, 500_000_000]


def test_empty_folder_and_unreadable_image_are_clear_errors(tmp_path):
    with pytest.raises(RefereeError, match="no images"):
        ImageFolderSource(tmp_path)
    bad = tmp_path / "x.png"
    bad.write_bytes(b"garbage")
    with pytest.raises(RefereeError, match="cannot be read"):
        read_image(bad)


class FakeCapture:
    def __init__(self, n):
        self.n = n

    def isOpened(self):
        return True

    def set(self, *a):
        return True

    def grab(self):
        self.n -= 1
        return self.n >= 0

    def retrieve(self):
        return True, np.zeros((4, 4, 3), np.uint8)

    def release(self):
        pass


def test_camera_frames_are_stamped_when_grabbed():
    ticks = iter([111, 222, 333])
    src = CameraSource(0, capture=FakeCapture(3), clock=lambda: next(ticks))
    assert [t for _, t in src] == [111, 222, 333]


class FakeRequest:
    def __init__(self, ts):
        self.ts = ts

    def make_array(self, name):
        return np.zeros((4, 4, 3), np.uint8)

    def get_metadata(self):
        return {"SensorTimestamp": self.ts}

    def release(self):
        pass


class FakePicamera2:
    def __init__(self):
        self.stamps = iter([7_000, 40_007_000])
        self.running = False

    def start(self):
        self.running = True

    def stop(self):
        self.running = False

    def capture_request(self):
        return FakeRequest(next(self.stamps))


def test_pi_camera_uses_the_sensor_timestamp():
    cam = FakePicamera2()
    src = PiCameraSource(picamera2=cam)
    it = iter(src)
    assert [next(it)[1], next(it)[1]] == [7_000, 40_007_000]
    src.close()
    assert not cam.running


def test_open_source_spellings(tmp_path):
    cv2.imwrite(str(tmp_path / "a.png"), np.zeros((4, 4, 3), np.uint8))
    assert isinstance(open_source(str(tmp_path)), ImageFolderSource)
    with pytest.raises(RefereeError):
        open_source(str(tmp_path / "nothing.mp4"))
