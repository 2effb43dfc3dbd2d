"""The table's link to the hall: what the table journals goes to the hall's broker, the
journal being the outbox.

:class:`HallLink` runs one thread beside the table service. It reads the journal (its own
SQLite connection) and publishes, per :mod:`hall.topics`, every event and ruling at QoS 1 in
journal order, then the table's retained ``state`` and ``health``. The broker's PUBACKs move
an *acknowledged* mark: the events and rulings up to it are the broker's responsibility. The
mark is kept in the journal (``meta``, at most once a second, so the SD card is spared) and in
memory exactly.

Store and forward. While the broker or the Wi-Fi is away the table plays on: events go to the
journal as ever, and nothing waits on the link. On reconnecting, the link makes a *fresh*
client (nothing paho queued in memory survives) and sends everything after the acknowledged
mark, from the journal, in order, each once; an item whose PUBACK was lost with the connection
is the only one that can reach the broker twice, and the hall drops it by its ``seq``/``rid``.
After a restart of the table service the link resumes from the mark in the journal (at most a
second of already-acknowledged items is sent again, and dropped by the hall the same way); a
table that never sent anything starts with its current game.

The round start. With ``on_round``, the link also subscribes to the hall's round start
(:mod:`hall.round_start`, retained) and hands each round it has not journaled yet to the table
as a ``clock`` event (``start``, ``source`` ``"hall"``): ``on_round(event)`` journals and
judges it (the table service's ``submit``) and says whether it was journaled. The rounds
already journaled are looked up in the journal when the link starts and taken from each event
it reads, so a copy the broker hands over again (a reconnect, a broker restart, a table service
restart) starts nothing twice. A round the table could not journal (disk full) is tried again
while the link runs, its length shortened by the time that passed meanwhile.

A refused publish (MQTT 5 reason code, e.g. the ACL: the table's user is not its name) stops
the link for 30 s and says so as the table's ``hall`` health, without moving the mark: once
the broker is set right, nothing is missing.
"""
from __future__ import annotations

import collections
import json
import logging
import random
import threading
import time
from pathlib import Path
from typing import Any, Callable

from referee.events import dumps
from table.clock import monotonic
from table.journal import Journal, JournalError
from table.score_sheet import waiting_for_referee

from . import round_start, topics
from .attention import OpenItems
from .config import LinkSettings
from .mqtt import (closed_unanswered, describe_connect_failure, describe_unreached, failed,
                   make_client)

log = logging.getLogger("riichi-referee.hall")

ONLINE = dumps({"online": True}).encode()
OFFLINE = dumps({"online": False}).encode()


class HallLink:
    """Publishes one table's journal to the hall's broker (see the module docstring).

    ``journal_path``: the table's journal. ``settings``: the ``[hall]`` section.
    ``hub``: the table's :class:`~table.hub.Hub`; each message on it wakes the link at once
    (without one the link looks at the journal every ``poll`` seconds). ``clock``: the table
    clock (``now`` in the state); its ``speed`` attribute, if any, is the state's ``rate``.
    ``on_health(ok, text)``: told when the link starts or stops working (the table shows it as
    health ``hall``). ``window``: events and rulings in flight (unacknowledged) at most.
    ``on_round(event) -> bool``: journal and judge the hall's round start (see the module
    docstring); None: the link does not listen for it. ``retry``: (first, longest) pause in
    seconds before trying a lost broker again, doubling from the first to the longest, each
    pause cut by up to half at random so that a hall's tables do not all come back at once.
    """

    SAVE_EVERY = 1.0
    REFUSED_PAUSE = 30.0
    STATE_EVERY = 0.1
    HEALTH_EVERY = 5.0

    def __init__(self, journal_path: str | Path, settings: LinkSettings, *, hub=None,
                 clock: Callable[[], float] | None = None,
                 on_health: Callable[[bool, str], None] | None = None,
                 window: int = 200, poll: float = 0.25, connect_timeout: float = 5.0,
                 on_round: Callable[[dict], bool] | None = None,
                 retry: tuple[float, float] = (0.5, 4.0)):
        self.path = Path(journal_path)
        self.settings = settings
        self.hub = hub
        self.clock = clock or monotonic
        self.on_health = on_health
        self.window = window
        self.poll = poll
        self.connect_timeout = connect_timeout
        self.on_round = on_round
        self.retry = retry
        self.prefix = topics.table_prefix(settings.hall, settings.table)
        b = settings.broker
        self.mark_key = f"hall_acked {b.host}:{b.port}/{settings.hall}/{settings.table}"
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        # the outbox: (event seq, ruling row) acknowledged by the broker, and what is known
        self.acked = (0, 0)
        self._seen = (0, 0)
        self._pending: collections.deque = collections.deque()
        self._inflight: collections.deque = collections.deque()  # [mid, kind, key, done]
        self._by_mid: dict[int, list] = {}
        self._early: set[int] = set()
        self._other: set[int] = set()
        self._saved: tuple[int, int] | None = None
        self._client = None
        self._connected = threading.Event()
        self._lost = threading.Event()
        self._refused: str | None = None
        self._connect_error: str | None = None
        self._open = OpenItems()
        self._game: int | None = None
        self._game_t0: float | None = None
        self._waiting_for: tuple[int | None, str | None] = (None, None)
        self._last_state: Any = None
        self._state_at = 0.0
        self._state_due = False
        self._changed = False     # the journal gained something since the last state
        self._last_health: Any = None
        self._health_at = 0.0
        self._health_due = True
        self._health_state: tuple[bool, str] | None = None
        # the hall's round starts: ids journaled, and one waiting for the journal
        self._round_lock = threading.Lock()
        self._rounds: set[str] = set()
        self._round_waiting: dict | None = None
        #: set while the broker has granted the round start's subscription on this connection
        self.listening = threading.Event()
        #: counts for tests and the benchmark
        self.stats = collections.Counter()

    # -- life -------------------------------------------------------------------------
    def start(self) -> "HallLink":
        self._thread = threading.Thread(target=self._run, name="hall-link", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Say the table is offline (retained), save the mark, disconnect."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    @property
    def connected(self) -> bool:
        return self._connected.is_set() and not self._lost.is_set()

    @property
    def backlog(self) -> int:
        """Events and rulings journaled but not yet acknowledged by the broker."""
        with self._lock:
            return len(self._pending) + len(self._inflight)

    @property
    def unsent(self) -> int:
        """Events and rulings journaled but not yet sent: the state's ``backlog``. Those in
        flight went out before the state on the same connection, so they are not behind it;
        counting them made every healthy table "catching up: 1" for a PUBACK's round trip."""
        with self._lock:
            return len(self._pending)

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Wait until everything journaled so far is acknowledged, and the state saying the
        table is caught up is sent (tests, the demo)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            # The state that says so must be out too: a PUBACK can come back while _pump,
            # having just sent the last item, has yet to send the state with backlog 0.
            sent = self._last_state
            if self.connected and self.backlog == 0 and not self._state_due and \
                    sent is not None and sent[3] and self._journal_caught_up():
                return True
            time.sleep(0.02)
        return False

    def _journal_caught_up(self) -> bool:
        try:
            with Journal(self.path, readonly=True) as j:
                rid = j.outbox_rulings_after(self.acked[1], 1)
                return j.last_seq() <= self.acked[0] and not rid
        except JournalError:
            return False

    # -- the thread ---------------------------------------------------------------------
    def _run(self) -> None:
        journal = None
        sub = None
        next_try = 0.0
        delay = self.retry[0]
        try:
            try:
                journal = Journal(self.path)
            except JournalError as exc:
                if exc.kind != "readonly":
                    raise
                journal = Journal(self.path, readonly=True)  # still worth sending
            self._load(journal)
            sub = self.hub.subscribe() if self.hub is not None else None
            while not self._stop.is_set():
                self._read_new(journal)
                if self._round_waiting is not None:
                    self._retry_round()
                if self._client is not None and self._lost.is_set():
                    self._drop_client("the connection to the hall's broker was lost")
                    next_try = time.monotonic() + delay
                if self._client is None and time.monotonic() >= next_try:
                    if self._connect(journal):
                        delay = self.retry[0]
                    else:
                        # A hall's tables all lose the broker at once: spread their retries.
                        pause = self.REFUSED_PAUSE if self._refused else \
                            delay * random.uniform(0.5, 1.0)
                        next_try = time.monotonic() + pause
                        delay = min(delay * 2, self.retry[1])
                if self.connected:
                    self._pump(journal)
                    if self._refused:
                        self._drop_client(self._refused)
                        next_try = time.monotonic() + self.REFUSED_PAUSE
                self._save(journal)
                sub = self._wait(sub)
        except JournalError as exc:
            self._health(False, f"cannot read the journal for the hall: {exc}")
            log.error("hall link stopped: %s", exc)
        except Exception:  # the link must never take the table down with it
            log.exception("hall link failed")
            self._health(False, "the link to the hall failed (see the service log)")
        finally:
            if sub is not None:
                sub.close()
            self._goodbye()
            if journal is not None:
                try:
                    self._save(journal, force=True)
                finally:
                    journal.close()

    def _wait(self, sub):
        if sub is None:
            self._stop.wait(self.poll)
            return sub
        if sub.dropped:
            sub.close()
            sub = self.hub.subscribe()
        # The table publishes "state" last, once an event's rulings and snapshot are in the
        # journal: waking on it (and on health) sends each event with all it caused at once.
        wait = self.poll
        if self._state_due:
            wait = max(0.0, min(wait, self._state_at + self.STATE_EVERY - time.monotonic()))
        deadline = time.monotonic() + wait
        while (left := deadline - time.monotonic()) > 0:
            message = sub.get(timeout=left)
            if message is not None and message["kind"] in ("state", "health"):
                self._health_due |= message["kind"] == "health"
                while (message := sub.get(timeout=0)) is not None:
                    self._health_due |= message["kind"] == "health"
                break
        return sub

    # -- the outbox ---------------------------------------------------------------------
    def _load(self, journal: Journal) -> None:
        mark = journal.get_meta(self.mark_key)
        game = journal.current_game()
        if mark:
            seq, rid = json.loads(mark)
            self.acked = (int(seq), int(rid))
        else:
            self.acked = journal.before_game(game)
        self._saved = self.acked
        if self.on_round is not None:
            self._rounds_journaled(journal)
        # What stands at the table is worked out over the whole current game.
        self._game = game
        self._seen = journal.before_game(game)
        self._read_new(journal)

    def _read_new(self, journal: Journal) -> None:
        """Take what the journal gained: keep the game's open items, queue it if connected."""
        seq, rid = self._seen
        events = journal.events_after(seq, 5000)
        rulings = journal.outbox_rulings_after(rid, 5000)
        if not events and not rulings:
            return
        self._changed = True
        items = []
        for s, game, event in events:
            rid_ = round_start.hall_round_id(event)
            if rid_ is not None:
                with self._round_lock:
                    self._rounds.add(rid_)
            if game != self._game:
                self._open = OpenItems()
                self._game, self._game_t0 = game, float(event["t"])
            elif self._game_t0 is None:
                self._game_t0 = float(event["t"])
            self._open.event(event)
            items.append(((s, 0, s), "event", s, {"seq": s, "game": game, "event": event}))
        for r, game, s, ruling in rulings:
            if game == self._game:
                self._open.ruling(ruling)
            items.append(((s, 1, r), "ruling", r, {"rid": r, "seq": s, "game": game,
                                                    "ruling": ruling}))
        items.sort(key=lambda item: item[0])
        self._seen = (events[-1][0] if events else seq, rulings[-1][0] if rulings else rid)
        if self.connected:
            a_seq, a_rid = self.acked
            with self._lock:
                self._pending.extend(i for i in items if
                                     (i[1] == "event" and i[2] > a_seq) or
                                     (i[1] == "ruling" and i[2] > a_rid))

    def _refill(self, journal: Journal) -> None:
        """After (re)connecting: everything after the acknowledged mark, from the journal."""
        a_seq, a_rid = self.acked
        items = [((s, 0, s), "event", s, {"seq": s, "game": g, "event": e})
                 for s, g, e in journal.events_after(a_seq, 1_000_000) if s <= self._seen[0]]
        items += [((s, 1, r), "ruling", r, {"rid": r, "seq": s, "game": g, "ruling": ru})
                  for r, g, s, ru in journal.outbox_rulings_after(a_rid, 1_000_000)
                  if r <= self._seen[1]]
        items.sort(key=lambda item: item[0])
        with self._lock:
            self._pending = collections.deque(items)
            self._inflight.clear()
            self._by_mid.clear()
            self._early.clear()
            self._other.clear()
        if items:
            log.info("hall link: sending %d journaled item(s) from event %d / ruling %d on",
                     len(items), a_seq + 1, a_rid + 1)
            self.stats["resent_batches"] += 1

    def _pump(self, journal: Journal) -> None:
        client = self._client
        while True:
            with self._lock:
                if not self._pending or len(self._inflight) >= self.window:
                    break
                item = self._pending.popleft()
            _, kind, key, payload = item
            body = dumps(payload).encode()
            info = client.publish(f"{self.prefix}/{kind}", body, qos=1)
            self.stats["bytes"] += len(body)
            entry = [info.mid, kind, key, False]
            with self._lock:
                self._inflight.append(entry)
                self._by_mid[info.mid] = entry
                if info.mid in self._early:
                    self._early.discard(info.mid)
                    self._done(entry)
            self.stats[kind] += 1
        self._publish_health(journal)
        caught_up = self.unsent == 0
        if self._changed or self._state_due or self._last_state is None or \
                caught_up != self._last_state[3] or self._snapshot_moved(journal):
            self._changed = False
            self._publish_state(journal)

    def _snapshot_moved(self, journal: Journal) -> bool:
        """The table wrote a snapshot after the state last sent: an event is journaled before
        its rulings and snapshot, so a state sent on reading the event can carry the snapshot
        before it, and an event that made no ruling (a call press) brings nothing else new
        to read; its snapshot went unsent until the next event."""
        if self._game is None or self._last_state is None:
            return False
        try:
            seq = journal.snapshot_seq(self._game)
        except JournalError:
            return False
        return seq is not None and seq != self._last_state[0]

    def _publish_retained(self, client, kind: str, body: bytes):
        """A retained message (state, health, online): not part of the outbox, so its PUBACK
        must not be taken for an outbox item's."""
        info = client.publish(f"{self.prefix}/{kind}", body, qos=1, retain=True)
        with self._lock:
            if info.mid in self._early:
                self._early.discard(info.mid)
            else:
                self._other.add(info.mid)
        return info

    def _on_publish(self, client, userdata, mid, reason_code, properties) -> None:
        if failed(reason_code):
            self._refused = (f"the hall's broker refuses {self.settings.table}'s messages "
                             f"({reason_code}): the table's broker user must be "
                             f"{self.settings.table!r} and the ACL must let it write "
                             f"{self.prefix}/#")
            return
        with self._lock:
            if mid in self._other:
                self._other.discard(mid)
                return
            entry = self._by_mid.get(mid)
            if entry is None:
                self._early.add(mid)  # acknowledged before _pump registered it
            else:
                self._done(entry)

    def _done(self, entry: list) -> None:
        """One PUBACK: move the mark over the acknowledged run at the front (lock held)."""
        entry[3] = True
        seq, rid = self.acked
        while self._inflight and self._inflight[0][3]:
            mid, kind, key, _ = self._inflight.popleft()
            self._by_mid.pop(mid, None)
            if kind == "event":
                seq = max(seq, key)
            else:
                rid = max(rid, key)
        self.acked = (seq, rid)
        self.stats["acked"] += 1

    def _save(self, journal: Journal, force: bool = False) -> None:
        acked = self.acked
        if acked == self._saved or journal.readonly:
            return
        now = time.monotonic()
        if not force and now - getattr(self, "_saved_at", 0.0) < self.SAVE_EVERY:
            return
        try:
            journal.set_meta(**{self.mark_key: json.dumps(list(acked))})
            self._saved, self._saved_at = acked, now
        except JournalError as exc:  # the table reports its journal itself
            log.warning("hall link: cannot save the acknowledged mark (%s)", exc)

    # -- retained state and health ---------------------------------------------------------
    def _publish_state(self, journal: Journal, force: bool = False) -> None:
        """The retained state, when it changed; at most every ``STATE_EVERY`` seconds (the
        latest is always sent: a burst of events is one state, not one each)."""
        now = time.monotonic()
        if not force and now - self._state_at < self.STATE_EVERY:
            self._state_due = True
            return
        snap = journal.snapshot_text(self._game) if self._game is not None else None
        open_ = self._open.summary()
        backlog = self.unsent
        key = (snap[0] if snap else None, self._seen, dumps(open_), backlog == 0)
        self._state_due = False
        if key == self._last_state and not force:
            return
        self._last_state, self._state_at = key, now
        rate = getattr(self.clock, "speed", 1.0)
        payload = {"seq": snap[0] if snap else self._seen[0], "rid": self._seen[1],
                   "game": self._game, "now": self.clock(),
                   "rate": float(rate) if isinstance(rate, (int, float)) and rate > 0 else 1.0,
                   "game_t0": self._game_t0, "open": open_, "backlog": backlog,
                   "waiting_for_referee": self._waiting(snap)}
        # The snapshot goes on as the journal holds it: no decoding and encoding again.
        body = (dumps(payload)[:-1] + ',"snapshot":' + (snap[1] if snap else "null") + "}") \
            .encode()
        self._publish_retained(self._client, "state", body)
        self.stats["state"] += 1
        self.stats["bytes"] += len(body)

    def _waiting(self, snap: tuple[int, str] | None) -> str | None:
        """Why the table waits for a referee over its score sheet (a player who does not sign,
        or the countersignature to come: :func:`table.score_sheet.waiting_for_referee`), or
        None. Read from the snapshot once per snapshot."""
        if snap is None:
            return None
        if self._waiting_for[0] != snap[0]:
            try:
                sheet = json.loads(snap[1]).get("sheet")
            except (ValueError, AttributeError):
                sheet = None
            self._waiting_for = (snap[0], waiting_for_referee(sheet))
        return self._waiting_for[1]

    def _publish_health(self, journal: Journal, force: bool = False) -> None:
        if not (self._health_due or force or
                time.monotonic() - self._health_at > self.HEALTH_EVERY):
            return
        self._health_due, self._health_at = False, time.monotonic()
        components = [{k: h[k] for k in ("component", "ok", "text")} for h in journal.health()]
        if components == self._last_health and not force:
            return
        self._last_health = components
        self._publish_retained(self._client, "health",
                               dumps({"components": components}).encode())

    # -- the hall's round start ----------------------------------------------------------------
    def _rounds_journaled(self, journal: Journal) -> None:
        """The round ids the journal holds (its whole history: the hall may start a round
        before the table's game, which then opens a new game in the journal)."""
        ids = set()
        for _, _, _, text in journal.event_rows():
            if '"round_id"' in text:
                rid_ = round_start.hall_round_id(json.loads(text))
                if rid_ is not None:
                    ids.add(rid_)
        with self._round_lock:
            self._rounds |= ids

    def _on_subscribe(self, client, userdata, mid, reason_codes, properties) -> None:
        if any(failed(rc) for rc in reason_codes):
            log.warning("hall link: the broker refused the round start's subscription (%s)",
                        reason_codes[0])
        else:
            self.listening.set()

    def _on_message(self, client, userdata, message) -> None:
        """paho's thread: the hall's round start (live, or the retained copy)."""
        self.stats["round_messages"] += 1
        if not message.payload:
            return  # the hall cleared it
        try:
            start = round_start.read_message(message.payload)
        except round_start.BadRoundStart as exc:
            log.warning("hall link: a round start that cannot be used (%s)", exc)
            return
        left = getattr(message.properties, "MessageExpiryInterval", None) \
            if message.properties is not None else None
        late = round_start.late_seconds(start, bool(message.retain), left)
        speed = getattr(self.clock, "speed", 1.0)
        speed = float(speed) if isinstance(speed, (int, float)) and speed > 0 else 1.0
        with self._round_lock:
            if start["id"] in self._rounds:
                self.stats["round_again"] += 1
                return
            event = round_start.clock_event(start, self.clock(), late * speed)
            if event is None:
                self._rounds.add(start["id"])
                log.warning("hall link: round %d was over before this table heard of it",
                            start["round"])
                return
            self._hand_over(event)

    def _hand_over(self, event: dict) -> None:
        """Give the round start to the table (round lock held); keep it when not journaled."""
        try:
            journaled = bool(self.on_round(event))
        except Exception:
            log.exception("hall link: the table could not take the round start")
            journaled = False
        if journaled:
            self._rounds.add(event["round_id"])
            self._round_waiting = None
            self.stats["round_started"] += 1
            log.info("hall link: round %s started by the hall, %g s", event["round_no"],
                     event["seconds"])
        else:
            self._round_waiting = event

    def _retry_round(self) -> None:
        with self._round_lock:
            event = self._round_waiting
            if event is None or event["round_id"] in self._rounds:
                self._round_waiting = None
                return
            now = self.clock()
            event = round_start.clock_event(
                {"round": event["round_no"], "id": event["round_id"],
                 "seconds": event["seconds"] + event.get("late_s", 0.0)},
                now, event.get("late_s", 0.0) + max(0.0, now - event["t"]))
            if event is None:
                self._round_waiting = None
                return
            self._hand_over(event)

    # -- connection -------------------------------------------------------------------------
    def _connect(self, journal: Journal) -> bool:
        b = self.settings.broker
        self._connected.clear()
        self._lost.clear()
        self._refused = None
        self._connect_error = None
        client = make_client(b, f"riichi-table-{self.settings.hall}-{self.settings.table}",
                             reconnect=False)
        client.will_set(f"{self.prefix}/online", OFFLINE, qos=1, retain=True)
        client.max_inflight_messages_set(self.window + 4)
        client.on_connect = self._on_connect
        client.on_connect_fail = self._on_connect_fail
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        if self.on_round is not None:
            client.on_subscribe = self._on_subscribe
            client.on_message = self._on_message
        try:
            client.connect_async(b.host, b.port, keepalive=b.keepalive, clean_start=True)
            client.loop_start()
        except Exception as exc:
            self._not_reached(f"{exc}")
            return False
        deadline = time.monotonic() + self.connect_timeout
        while not self._connected.is_set() and time.monotonic() < deadline:
            if self._connect_error or self._lost.is_set() or self._stop.is_set():
                break
            time.sleep(0.01)
        if not self._connected.is_set() or self._lost.is_set():
            client.loop_stop()
            try:
                client.disconnect()
            except Exception:
                pass
            why = self._connect_error or (closed_unanswered(b) if self._lost.is_set()
                                          else "no answer")
            self._not_reached(why)
            return False
        self._client = client
        self._refill(journal)
        self._publish_retained(client, "online", ONLINE)
        self._last_state = self._last_health = None
        self._state_at, self._health_due = 0.0, True
        self._health(True, "")
        self.stats["connects"] += 1
        log.info("hall link: connected to %s:%d as %s", b.host, b.port, self.settings.table)
        return True

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if failed(reason_code):
            self._connect_error = describe_connect_failure(reason_code)
            self._refused = self._connect_error
        else:
            if self.on_round is not None:
                # Before anything is published: the retained round start comes at once.
                client.subscribe(topics.round_topic(self.settings.hall), qos=1)
            self._connected.set()

    def _on_connect_fail(self, client, userdata) -> None:
        self._connect_error = describe_unreached(self.settings.broker)

    def _on_disconnect(self, client, userdata, flags, reason_code, properties) -> None:
        self._lost.set()

    def _drop_client(self, why: str) -> None:
        client, self._client = self._client, None
        self._connected.clear()
        self.listening.clear()
        if client is not None:
            try:
                client.loop_stop()
                client.disconnect()
            except Exception:
                pass
        with self._lock:
            self._pending.clear()
            self._inflight.clear()
            self._by_mid.clear()
        self._health(False, f"{why}; the table plays on and sends what it journals when the "
                            "broker is back")
        log.warning("hall link: %s", why)

    def _not_reached(self, why: str) -> None:
        b = self.settings.broker
        text = why if self._refused else f"cannot reach the hall's broker at {b.host}:{b.port} ({why})"
        self._health(False, text + "; the table plays on and sends what it journals when "
                                   "the broker is back")

    def _goodbye(self) -> None:
        client = self._client
        if client is None or not self.connected:
            if client is not None:
                client.loop_stop()
            return
        try:
            client.publish(f"{self.prefix}/online", OFFLINE, qos=1, retain=True) \
                .wait_for_publish(2.0)
        except Exception:
            pass
        try:
            client.disconnect()
        finally:
            client.loop_stop()
            self._client = None

    def _health(self, ok: bool, text: str) -> None:
        state = (ok, text)
        if state == self._health_state:
            return
        self._health_state = state
        if self.on_health is not None:
            try:
                self.on_health(ok, text)
            except Exception:
                log.exception("hall link: reporting health failed")
