"""The table as another process sees it: the journal tailed into a hub."""
from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from referee.errors import RefereeError
from referee.events import parse_event

from .clock import monotonic
from .hub import Hub
from .journal import Journal, JournalError


class JournalTable:
    """The dashboard's TableView when the table service runs in another process.

    Tails the journal every ``poll`` seconds (by rowid: cheap) and publishes what is new on
    ``hub`` exactly as a :class:`~table.live.LiveTable` would: ``event``, ``ruling``,
    ``state`` (the snapshot the service wrote) and ``health``. It also reports, as health
    ``service``, a service whose heartbeat stopped, and as ``journal`` a disk nearly full.
    ``submit`` hands a referee action to the service through the inbox and waits up to
    ``wait`` seconds for its rulings.
    """

    STALE_AFTER = 15.0  # seconds without a heartbeat before the dashboard says so
    LOW_DISK = 20 * 1024 * 1024
    DISK_EVERY = 5.0  # seconds between looks at the free space

    def __init__(self, path: str | os.PathLike, hub: Hub | None = None, poll: float = 0.03,
                 wait: float = 2.0, start: bool = True):
        self.path = Path(path)
        self.hub = hub if hub is not None else Hub()
        self.poll = poll
        self.wait = wait
        self._journal = Journal(self.path, readonly=True)
        self._writer: Journal | None = None
        self._lock = threading.Lock()
        self._game_id = self._journal.current_game()
        self._last_seq = 0
        self._last_ruling = 0
        self._snapshot_seq = -1
        self._snapshot: dict | None = None
        self._health: dict[str, dict] = {}
        # The service's clock offset changes only when it starts: read when the journal
        # changes, not at each clock() (every stream stamps every message it sends with it).
        self._clock_offset = self._journal.stored_clock_offset()
        self._data_version: int | None = None
        self._beat: str | None = None
        self._disk_checked = -float("inf")
        self._disk_low = False
        self._stop = threading.Event()
        # Start from the current game: a dashboard opened mid-game shows what came before
        # through snapshot()/events()/rulings(), and its stream only what comes after.
        self._skip_to_current()
        self._thread = threading.Thread(target=self._run, name="journal-tail", daemon=True)
        if start:
            self._thread.start()

    def _skip_to_current(self) -> None:
        self._last_seq = self._journal.last_seq()
        rows = self._journal._read("SELECT coalesce(max(id), 0) FROM rulings")
        self._last_ruling = rows[0][0]
        snap = self._journal.snapshot(self._game_id)
        if snap is not None:
            self._snapshot_seq, self._snapshot = snap
        for entry in self._journal.health():
            self._health[entry["component"]] = entry

    # -- TableView --------------------------------------------------------------------
    def clock(self) -> float:
        return monotonic() + self._clock_offset

    def snapshot(self) -> dict:
        with self._lock:
            snap = dict(self._snapshot) if self._snapshot is not None else _empty_snapshot()
            snap["health"] = list(self._health.values())
            return snap

    def events(self) -> list[dict]:
        return [e for _, e in self._journal.game_events(self._journal.current_game())]

    def rulings(self) -> list[dict]:
        return [r for _, r in self._journal.game_rulings(self._journal.current_game())]

    @property
    def health(self) -> dict[str, dict]:
        with self._lock:
            return dict(self._health)

    def submit(self, event: dict) -> list[dict]:
        """Check the event, put it in the inbox and return its rulings once the service has
        judged it (empty after ``wait`` seconds: they still come on the stream)."""
        event = parse_event(dict(event))
        with self._lock:
            if self._writer is None:
                self._writer = Journal(self.path)
        item = self._writer.inbox_put(event)
        deadline = time.monotonic() + self.wait
        while time.monotonic() < deadline:
            seq, error = self._journal.inbox_result(item)
            if error:
                raise RefereeError(error)
            if seq is not None:
                return self._journal.rulings_of(seq)
            time.sleep(self.poll)
        return []

    def set_health(self, component: str, ok: bool, text: str = "") -> None:
        entry = {"component": component, "ok": ok, "text": text, "t": self.clock()}
        with self._lock:
            old = self._health.get(component)
            self._health[component] = entry
            if old is not None and old.get("ok") == ok and old.get("text") == text:
                return
        self.hub.publish("health", entry)

    # -- tail ---------------------------------------------------------------------------
    def poll_once(self) -> None:
        """Publish what the journal gained since the last call (the thread calls this).

        When no other connection has written since the last call, nothing is read: an idle
        table costs the dashboard's event loop one tiny query per poll."""
        version = self._journal.data_version()
        if version != self._data_version:
            self._read_news()
            self._data_version = version  # only once all of it was read
        self._check_service()

    def _read_news(self) -> None:
        self._clock_offset = self._journal.stored_clock_offset()
        self._beat = self._journal.get_meta("heartbeat")
        for seq, game_id, event in self._journal.events_after(self._last_seq):
            self._last_seq = seq
            self._game_id = game_id
            self.hub.publish("event", event)
        for rowid, game_id, ruling in self._journal.rulings_after(self._last_ruling):
            self._last_ruling = rowid
            self.hub.publish("ruling", ruling)
        snap = self._journal.snapshot(self._game_id) if self._game_id is not None else None
        if snap is not None and (snap[0] != self._snapshot_seq or snap[1] != self._snapshot):
            with self._lock:
                self._snapshot_seq, self._snapshot = snap
            self.hub.publish("state", self.snapshot())
        for entry in self._journal.health():
            entry = {k: entry[k] for k in ("component", "ok", "text", "t")}
            with self._lock:
                old = self._health.get(entry["component"])
                self._health[entry["component"]] = entry
            if old is None or old.get("ok") != entry["ok"] or old.get("text") != entry["text"]:
                self.hub.publish("health", entry)

    def _check_service(self) -> None:
        beat = self._beat
        if beat is not None:
            age = time.time() - float(beat)
            if age > self.STALE_AFTER:
                self.set_health("service", False, f"the table service has not answered for "
                                f"{age:.0f} s (is riichi-referee.service running?)")
            elif self._health.get("service", {}).get("ok") is False:
                self.set_health("service", True, "")
        if time.monotonic() - self._disk_checked < self.DISK_EVERY:
            return
        self._disk_checked = time.monotonic()
        free = self._journal.free_bytes()
        if free is not None and free < self.LOW_DISK:
            self._disk_low = True
            self.set_health("disk", False, f"the disk holding {self.path} is nearly full "
                            f"({free // 1024} KiB left)")
        elif free is not None and self._disk_low:
            # Only what this check said: the service also reports health ``disk`` (it knows
            # SQLite's own limits too), and that word stands until the service takes it back.
            self._disk_low = False
            self.set_health("disk", True, "")

    def _run(self) -> None:
        while not self._stop.wait(self.poll):
            try:
                self.poll_once()
            except JournalError as exc:
                self.set_health("journal", False, str(exc))
                self._stop.wait(1.0)

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2)
        self._journal.close()
        if self._writer is not None:
            self._writer.close()


def _empty_snapshot() -> dict:
    return {"t": None, "ruleset": None, "claim_window": None, "names": None,
            "scores": [0, 0, 0, 0], "round": None, "turn": None, "wall": None,
            "dora_indicators": [],
            "seats": [{"seat": s, "riichi": False, "dead_hand": False, "pond": [], "melds": []}
                      for s in range(4)],
            "window": None, "hand_over": False, "game_over": False}
