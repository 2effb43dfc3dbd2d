"""Frame sources: where the camera's pictures come from, each with its time on the table clock.

Every source is an iterable of ``(frame, t_ns)``: ``frame`` a BGR ``numpy`` image and ``t_ns``
an integer on ``time.monotonic_ns()`` (the clock seat-button edges are stamped on), so a
discard seen by the camera and a call pressed on a button can be compared. A source is also a
context manager; ``close()`` releases the device or file.

- :class:`PiCameraSource`: the Raspberry Pi camera through picamera2 (imported only when
  constructed); the time is the sensor's timestamp of the frame, not when Python got it.
- :class:`CameraSource`: an OpenCV video device (a USB webcam); the time is taken when the
  frame is grabbed.
- :class:`VideoFileSource`: a recorded video; the time is ``start_ns`` plus the frame's
  position in the file, so a replay gives the same times every run.
- :class:`ImageFolderSource`: the images of a folder in name order, ``1/fps`` apart.
- :class:`SyntheticSource`: frames from a list or a function (tests and the demo).

:func:`open_source` builds one from a command-line spelling.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, Iterable, Iterator

import numpy as np

from referee.errors import RefereeError, unreadable

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


class FrameSource:
    """Base class: iterate for ``(frame, t_ns)``; ``close()`` when done."""

    def frames(self) -> Iterator[tuple[np.ndarray, int]]:  # pragma: no cover - abstract
        raise NotImplementedError

    def __iter__(self) -> Iterator[tuple[np.ndarray, int]]:
        return self.frames()

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class SyntheticSource(FrameSource):
    """Frames made by the program.

    ``frames``: a list (or any iterable) of images, or a function ``f(i) -> image or None``
    called with the frame index until it returns None (or ``count`` frames were made).
    ``fps``: frames per second; frame ``i`` is stamped ``start_ns + i * 1e9 / fps``.
    ``start_ns``: time of the first frame (default: now on the monotonic clock).
    """

    def __init__(self, frames: Iterable[np.ndarray] | Callable[[int], np.ndarray | None],
                 fps: float = 10.0, start_ns: int | None = None, count: int | None = None):
        if fps <= 0:
            raise RefereeError(f"synthetic source: fps must be positive, not {fps}")
        self._frames = frames
        self.fps = float(fps)
        self.start_ns = time.monotonic_ns() if start_ns is None else int(start_ns)
        self.count = count

    def frames(self):
        if callable(self._frames):
            i = 0
            while self.count is None or i < self.count:
                frame = self._frames(i)
                if frame is None:
                    return
                yield frame, self.start_ns + round(i * 1e9 / self.fps)
                i += 1
        else:
            for i, frame in enumerate(self._frames):
                if self.count is not None and i >= self.count:
                    return
                yield frame, self.start_ns + round(i * 1e9 / self.fps)


class ImageFolderSource(FrameSource):
    """The images of ``folder`` in name order, ``1/fps`` seconds apart from ``start_ns``."""

    def __init__(self, folder: str | Path, fps: float = 10.0, start_ns: int | None = None):
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise RefereeError(f"image folder {self.folder}: no such folder")
        self.paths = sorted(p for p in self.folder.iterdir()
                            if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.paths:
            raise RefereeError(f"image folder {self.folder} holds no images "
                               f"({', '.join(IMAGE_SUFFIXES)})")
        if fps <= 0:
            raise RefereeError(f"image folder {self.folder}: fps must be positive, not {fps}")
        self.fps = float(fps)
        self.start_ns = time.monotonic_ns() if start_ns is None else int(start_ns)

    def frames(self):
        for i, path in enumerate(self.paths):
            yield read_image(path), self.start_ns + round(i * 1e9 / self.fps)


class VideoFileSource(FrameSource):
    """A video file; a frame's time is ``start_ns`` plus its position in the video.

    The position comes from the frame index and the file's frame rate (``fps`` overrides a
    rate the file lacks or gets wrong), so the same video always gives the same times.
    """

    def __init__(self, path: str | Path, start_ns: int | None = None, fps: float | None = None):
        import cv2

        self.path = Path(path)
        if not self.path.is_file():
            raise RefereeError(f"video {self.path}: no such file")
        self._cap = cv2.VideoCapture(str(self.path))
        if not self._cap.isOpened():
            raise RefereeError(f"video {self.path}: cannot be read (not a video OpenCV reads)")
        file_fps = self._cap.get(cv2.CAP_PROP_FPS)
        self.fps = float(fps or (file_fps if file_fps and file_fps > 0 else 0) or 0)
        if self.fps <= 0:
            self.close()
            raise RefereeError(f"video {self.path} has no frame rate; give fps")
        self.start_ns = time.monotonic_ns() if start_ns is None else int(start_ns)

    def frames(self):
        i = 0
        while self._cap is not None:
            ok, frame = self._cap.read()
            if not ok:
                break
            yield frame, self.start_ns + round(i * 1e9 / self.fps)
            i += 1

    def close(self):
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class CameraSource(FrameSource):
    """An OpenCV video device (``index`` as in /dev/videoN), stamped when each frame is grabbed.

    ``width``/``height``: the capture size to ask for (the device may choose another).
    ``clock``: the table clock in ns (tests pass a fake one).
    """

    def __init__(self, index: int = 0, width: int | None = None, height: int | None = None,
                 clock: Callable[[], int] = time.monotonic_ns, capture=None):
        import cv2

        self.index = index
        self.clock = clock
        self._cap = capture if capture is not None else cv2.VideoCapture(index)
        if not self._cap.isOpened():
            raise RefereeError(f"camera {index} cannot be opened (is it connected and free?)")
        if width:
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        if height:
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)

    def frames(self):
        while self._cap is not None:
            # grab() returns as the frame arrives; stamp it then, decode after.
            if not self._cap.grab():
                break
            t_ns = int(self.clock())
            ok, frame = self._cap.retrieve()
            if not ok:
                break
            yield frame, t_ns

    def close(self):
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class PiCameraSource(FrameSource):
    """The Raspberry Pi camera through picamera2, stamped with the sensor's frame timestamp.

    libcamera's ``SensorTimestamp`` is the start of the frame's exposure in ns on the kernel's
    monotonic clock (the one ``time.monotonic_ns()`` reads), so it is the moment the tile was
    seen rather than when Python received the picture.
    ``size``: main stream size in pixels. ``picamera2``: an object to use instead of
    constructing ``Picamera2()`` (tests pass a fake).
    """

    def __init__(self, size: tuple[int, int] = (2028, 1520), picamera2=None):
        if picamera2 is None:
            try:
                from picamera2 import Picamera2  # only on a Pi with the camera stack
            except ImportError:
                raise RefereeError("picamera2 is not installed (it comes with Raspberry Pi OS: "
                                   "apt install python3-picamera2)") from None
            picamera2 = Picamera2()
            config = picamera2.create_video_configuration(
                main={"size": tuple(size), "format": "RGB888"})
            picamera2.configure(config)
        self._cam = picamera2
        self._cam.start()

    def frames(self):
        while self._cam is not None:
            request = self._cam.capture_request()
            try:
                # picamera2's "RGB888" is BGR byte order, which is what OpenCV wants.
                frame = request.make_array("main")
                t_ns = int(request.get_metadata()["SensorTimestamp"])
            finally:
                request.release()
            yield frame, t_ns

    def close(self):
        if self._cam is not None:
            self._cam.stop()
            self._cam = None


def read_image(path: str | Path) -> np.ndarray:
    """A BGR image from a file, or a one-line RefereeError saying why not."""
    import cv2

    path = Path(path)
    try:
        data = np.fromfile(str(path), dtype=np.uint8)
    except OSError as exc:
        raise RefereeError(unreadable(f"image {path}", exc, "image")) from None
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise RefereeError(f"image {path}: cannot be read (not an image OpenCV decodes)")
    return image


def write_image(path: str | Path, image: np.ndarray, what: str) -> None:
    """Write ``image`` to ``path`` (the format from its name), or a one-line RefereeError
    naming ``what`` and where."""
    import cv2

    try:
        ok = cv2.imwrite(str(path), image)
    except cv2.error:   # a name OpenCV has no writer for
        ok = False
    if not ok:
        raise RefereeError(f"cannot write {what} to {path} "
                           "(a .png or .jpg path in a folder that exists)")


def open_source(spec: str, fps: float = 10.0) -> FrameSource:
    """A source from its command-line spelling.

    ``picamera``: the Pi camera; ``cam:N`` or a bare number: OpenCV device N; a folder: its
    images; any other path: a video file. (``synthetic``, a rendered hand being played, is
    the application's: :func:`app.frames.open_source`; the camera never imports the renderer.)
    """
    if spec == "picamera":
        return PiCameraSource()
    if spec.startswith("cam:") or spec.isdigit():
        try:
            index = int(spec.split(":", 1)[-1])
        except ValueError:
            raise RefereeError(f"camera {spec!r}: expected cam:N with N a number") from None
        return CameraSource(index)
    path = Path(spec)
    if path.is_dir():
        return ImageFolderSource(path, fps=fps)
    return VideoFileSource(path)
