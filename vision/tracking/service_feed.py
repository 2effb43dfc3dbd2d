"""The camera as the table service sees it: ``camera_feed(config_path)`` yields, per frame,
``(t_mono, events)``: the events recognised since the frame before (each stamped with the first
frame that showed it) and ``t_mono``, the time in seconds on the monotonic clock up to which
every discard has been reported. Every frame goes through change detection; the tile finder
and classifier read only the zones that changed (:mod:`vision.tracking.schedule`).

``[camera]`` keys: ``source`` (``picamera`` by default; ``cam:N``, a video or a folder),
``calibration`` (the file ``riichi-referee calibrate`` wrote), ``model`` (the .onnx tile
model, default the shipped one), ``tileset`` (the set ``riichi-referee enroll`` wrote),
``threads``, ``stable_frames``, ``finder`` (:data:`FINDERS`), ``fuse`` (true: each tile's
reading fused over its frames, :class:`~vision.tracking.tracker.TableTracker`; off by default,
as it gained nothing on ``bench/film_reading.py``); and ``[service]
confidence_threshold`` (readings below it carry their crop). A live camera that drops out
mid-game is opened again (:func:`reopening`). Readings are weighed with what the
game allows (:mod:`vision.tracking.readings`), and a referee's correction is fed back
(:meth:`CameraFeed.referee_event`).
"""
from __future__ import annotations

import logging
import threading
import time

from referee.errors import RefereeError

log = logging.getLogger(__name__)

#: Readings of a tile before it is believed. Recognition reads a zone only once it is still,
#: so two readings are two looks at the settled tile, not glimpses of a moving hand; a third
#: look at the same still table adds little and costs a reading (a fifth of a second on a Pi).
STABLE_READS = 2

#: Seconds between attempts to open a live camera again after it failed or stopped.
REOPEN_SECONDS = 2.0


def camera_feed(config_path, open_source=None) -> "CameraFeed":
    """The camera of the table ``config_path`` describes. ``open_source(spec)`` opens its
    ``[camera] source`` (None: :func:`vision.camera.sources.open_source`)."""
    from referee.checks import DEFAULT_CONFIDENCE_THRESHOLD
    from vision.camera.calibration import load_calibration, read_config
    from vision.camera.sources import open_source as open_camera
    from vision.reading.tileset import load_classifier

    from .readings import WeighedTracker
    from .schedule import RecognitionScheduler
    from .tracker import TableTracker

    config = read_config(config_path)
    camera = config.get("camera", {})
    if not isinstance(camera, dict):
        raise RefereeError(f"config {config_path}: [camera] must be a table")
    service = config.get("service", {})
    threshold = service.get("confidence_threshold", DEFAULT_CONFIDENCE_THRESHOLD) \
        if isinstance(service, dict) else DEFAULT_CONFIDENCE_THRESHOLD
    calibration = load_calibration(config_path)
    classifier = load_classifier(config_path, threads=camera.get("threads"))
    finder = table_finder(config_path, camera)
    tracker = WeighedTracker(TableTracker(calibration.zones, classifier, calibration.px_per_mm,
                                          stable_frames=int(camera.get("stable_frames", STABLE_READS)),
                                          finder=finder, fuse=bool(camera.get("fuse", False)),
                                          sure=float(threshold)),
                             float(threshold))
    watch = RecognitionScheduler.for_calibration(tracker, calibration)
    frames = reopening(open_source or open_camera, str(camera.get("source", "picamera")))
    return CameraFeed(frames, watch, tracker)


#: ``[camera] finder``: what finds the tiles in the calibrated view. ``"learned"`` (the
#: default) is the learned finder: on rendered tables of solid tiles seen as a camera over a
#: real table sees them it finds 98% of the face-up tiles, where the felt-colour finder, which
#: takes the commonest colour for the table, finds 21% (bench/calibrated_tables.py), and it
#: finds every tile of the labelled real photographs (bench/vision.py). ``"dark"`` is the
#: learned finder for a set whose faces are dark with light ink (``DARK_MODEL``): the default
#: one misses a fifth of such a set's pond tiles (bench/solid_ponds.py). ``"felt"`` is the
#: felt-colour finder, made for flat printed tiles on plain felt (vision/README.md).
FINDERS = ("learned", "dark", "felt")


def table_finder(config_path, camera):
    """The learned :class:`~vision.finding.learned.TileFinder` the config's ``[camera] finder`` asks
    for, or None for the felt-colour finder. ``camera``: the config's ``[camera]`` section."""
    if not isinstance(camera, dict):
        raise RefereeError(f"config {config_path}: [camera] must be a table")
    kind = camera.get("finder", "learned")
    if kind not in FINDERS:
        raise RefereeError(f"config {config_path}: [camera] finder must be one of "
                           f"{', '.join(FINDERS)}, got {kind!r}")
    if kind == "felt":
        return None
    from vision.finding.learned import SHIPPED, shared_finder
    return shared_finder(SHIPPED[kind], threads=camera.get("threads"))


class CameraFeed:
    """The camera's frames through the tracker, as ``(t_mono, events)`` per frame; and the way
    back for a referee's correction of a reading (:meth:`referee_event`)."""

    def __init__(self, frames, watch, tracker):
        self.frames = frames
        self.watch = watch          # the RecognitionScheduler the frames go through
        self.tracker = tracker
        self._lock = threading.Lock()

    def __iter__(self):
        last = None
        try:
            for frame, t_ns in self.frames:
                with self._lock:
                    events = self.watch.push(frame, t_ns)
                last = frame, t_ns
                # the time up to which every discard has been reported: presses wait for it
                yield self.watch.settled_ns() / 1e9, events
            if last is not None:
                # a recording ended: what it showed last is still read to the end
                with self._lock:
                    events = self.watch.flush(*last)
                yield self.watch.settled_ns() / 1e9, events
        finally:
            self.watch.close()

    def view_health(self) -> tuple[bool, str]:
        """Whether the camera sees the zones the table reads: ``(True, "")``, or ``(False,
        text)`` naming each zone a glare washed out over
        :data:`vision.finding.washed.NOTICE_SHARE` of it or more when it was last searched
        (the table service shows it to the referee as the health "view")."""
        from vision.finding.washed import noticed

        # a copy first: the recognition thread adds a zone the first time it searches it
        shares = dict(getattr(getattr(self.watch, "find", None), "washed", None) or {})
        washed = [f"{name} ({share:.0%})" for name, share in noticed(shares)]
        if not washed:
            return True, ""
        return False, (f"a glare washes out {', '.join(washed)}: tiles there are read late or "
                       f"not at all; move the lamp or turn the camera")

    def referee_event(self, event: dict, rulings: list[dict]) -> None:
        """A referee event journaled: a correction of a check (``override`` naming a check
        ruling, with ``tile``) is fed back to the tracker and, in the background (fitting
        takes seconds), to the enrolled tile set."""
        if event.get("type") != "referee" or event.get("action") != "override" or \
                not event.get("tile") or event.get("ruling_id") is None:
            return
        rid = str(event["ruling_id"])
        check = next((r for r in rulings if str(r.get("ruling_id")) == rid and r.get("check")),
                     None)
        if check is None:
            return

        def learn():
            try:
                with self._lock:
                    learnt = self.tracker.learn(event, check)
                if learnt:
                    log.info("the tile set learnt %s from the referee's correction of %s",
                             event["tile"], rid)
            except Exception:  # learning is a bonus; the correction itself is journaled
                log.exception("could not learn from the correction of %s", rid)

        threading.Thread(target=learn, name="learn", daemon=True).start()


def is_live(spec: str) -> bool:
    """A camera (the Pi camera or an OpenCV device), not a recording."""
    return spec == "picamera" or spec.startswith("cam:") or spec.isdigit()


def reopening(open_source, spec: str, wait: float = REOPEN_SECONDS, sleep=time.sleep):
    """The frames of source ``spec`` (opened by ``open_source(spec)``), as ``(frame, t_ns)``.

    A live camera that fails or stops mid-game (a loose ribbon cable, a USB reset) is opened
    again every ``wait`` seconds until it answers, so the table does not stay blind until
    someone restarts the service; meanwhile the service reports no camera frames, and the
    seat buttons work on. A recording ends, or fails, as it does. The first opening is not
    retried: a camera that is not there at start is a configuration error, said at once.
    """
    live = is_live(spec)
    source = open_source(spec)
    while True:
        try:
            with source:
                yield from source
        except Exception as exc:  # drivers raise their own types
            if not live:
                raise
            log.warning("camera %s failed (%s); opening it again", spec, exc)
        else:
            if not live:
                return
            log.warning("camera %s stopped sending frames; opening it again", spec)
        while True:
            sleep(wait)
            try:
                source = open_source(spec)
                break
            except Exception as exc:
                log.warning("camera %s still cannot be opened (%s)", spec, exc)
