"""The hall as the head referee's server knows it: every table's last word, from the broker.

:class:`Board` takes the broker's messages (:meth:`Board.receive`, fed by
:class:`hall.subscriber.HallSubscriber`; plain calls, so tests feed it directly) and keeps a
:class:`RemoteTable` per table. A RemoteTable is a read-only :class:`table.view.TableView`
(``snapshot``,
``hub``, ``events``, ``rulings``, ``clock``): the table dashboard of :mod:`web` shows it as it
shows a table in the same room, drawn from what the broker brought. Events and rulings are
kept once each, by their journal ``seq``/``rid`` (QoS 1 may deliver one twice); a jump in
``seq`` is noted as a gap. :meth:`Board.tiles` is the overview: one summary per table with
its attention level (:func:`hall.attention.attention`), most urgent first, and where it stands
in the tournament round (:func:`hall.round_status.round_status`).

The round: the hall's last round start (:mod:`hall.round_start`, the retained message the hall
itself published) is :attr:`Board.round`. Every signed result (a table's ``result`` ruling,
each once) is handed to the callables in :attr:`Board.on_result` as ``(table, round_no,
ruling)``, ``round_no`` being the round the table's clock was started for by the hall (the
``round_no`` of its last hall ``clock`` event; else the hall's current round): the standings
take it from there. :attr:`Board.results` keeps every result handed over.

No clock is compared between tables or with the hall's: a table's times are on its own table
clock (``now`` and ``rate`` of its last state let the hall run that clock on), and how long a
table has been offline is on the hall's monotonic clock.
"""
from __future__ import annotations

import json
import logging
import threading
from collections import Counter
from typing import Any

from referee.errors import RefereeError
from table.clock import monotonic
from table.hub import Hub
from table.journal_table import _empty_snapshot

from . import round_start, topics
from .attention import LEVELS, attention, item_key
from .round_status import DISPUTE_AFTER, round_status

log = logging.getLogger("riichi-referee.hall")


class RemoteClock:
    """A table's clock seen from the hall: its last ``now``, run on at its ``rate``."""

    def __init__(self):
        self._now: float | None = None
        self._at = 0.0
        self.speed = 1.0

    def set(self, now: float, rate: float) -> None:
        self._now, self._at = float(now), monotonic()
        self.speed = rate if rate > 0 else 1.0

    def __call__(self) -> float:
        if self._now is None:
            return 0.0
        return self._now + (monotonic() - self._at) * self.speed


class ReadOnly(RefereeError):
    """A referee action sent to the hall's copy of a table."""


class RemoteTable:
    """One table as the broker shows it (see the module docstring)."""

    def __init__(self, name: str):
        self.name = name
        self.hub = Hub(backlog=200)
        self.clock = RemoteClock()
        self._lock = threading.RLock()
        self.online: bool | None = None
        self.online_changed = monotonic()
        self.state: dict | None = None
        self.health: dict[str, dict] = {}
        self._events: list[dict] = []
        self._rulings: list[dict] = []
        self.game: int | None = None
        self.last_seq = 0
        self.last_rid = 0
        self.duplicates = 0
        self.gaps: list[tuple[int, int]] = []
        self.version = 0
        self.level: tuple[int, float] = (7, monotonic())
        self.hall_round: int | None = None     # the round the hall last started here
        self.round_rulings: list[dict] = []    # this game's time_up, game_end, result
        self.ended_at: float | None = None     # the game seen over (table clock), if no game_end
        self.waiting_since: float | None = None  # since when the table says it waits for a referee
        self.new_results: list[dict] = []      # results not yet handed to the board's hooks

    # -- TableView (read side) -----------------------------------------------------------
    def snapshot(self) -> dict:
        # Each state message is a new dict, never changed in place: a shallow copy will do.
        with self._lock:
            snap = self.state.get("snapshot") if self.state else None
            snap = dict(snap) if snap else _empty_snapshot()
            snap["health"] = list(self.health.values()) + [self.link_health()]
            return snap

    def events(self) -> list[dict]:
        with self._lock:
            return list(self._events)

    def rulings(self) -> list[dict]:
        with self._lock:
            return list(self._rulings)

    def submit(self, event: dict) -> list[dict]:
        raise ReadOnly("the hall shows this table read-only: referee actions are taken on the "
                       "table's own dashboard")

    def link_health(self, now: float | None = None) -> dict:
        """The table's link to the hall as a health entry (``hall``)."""
        now = monotonic() if now is None else now
        if self.online is False:
            text = f"offline for {_duration(now - self.online_changed)}"
        elif self.online is None:
            text = "no word from the table yet"
        else:
            backlog = (self.state or {}).get("backlog") or 0
            text = f"catching up: {backlog} to send" if backlog else ""
        return {"component": "hall", "ok": bool(self.online), "text": text,
                "t": self.clock()}

    # -- from the broker ------------------------------------------------------------------
    def apply(self, kind: str, data: Any) -> bool:
        """One message of this table; True when it changed anything."""
        with self._lock:
            handler = getattr(self, f"_on_{kind}")
            return handler(data)

    def _on_event(self, data: dict) -> bool:
        seq, game, event = int(data["seq"]), data.get("game"), data["event"]
        if seq <= self.last_seq:
            self.duplicates += 1
            return False
        if self.last_seq and seq > self.last_seq + 1:
            self.gaps.append((self.last_seq + 1, seq - 1))
            log.warning("hall: table %s: events %d-%d never arrived", self.name,
                        self.last_seq + 1, seq - 1)
        self.last_seq = seq
        if game != self.game or event.get("type") == "game_start":
            self.game = game
            self._new_game()
        if event.get("type") == "clock" and event.get("source") == "hall" and \
                isinstance(event.get("round_no"), int):
            self.hall_round = event["round_no"]
        self._events.append(event)
        self.hub.publish("event", event)
        return True

    def _on_ruling(self, data: dict) -> bool:
        rid, game = int(data["rid"]), data.get("game")
        if rid <= self.last_rid:
            self.duplicates += 1
            return False
        self.last_rid = rid
        if self.game is not None and game != self.game:
            return False  # a ruling of a game the hall no longer shows
        ruling = data["ruling"]
        self._rulings.append(ruling)
        if ruling.get("type") in ("time_up", "game_end", "result"):
            self.round_rulings.append(ruling)
            if ruling.get("type") == "result":
                self.new_results.append(ruling)
        self.hub.publish("ruling", ruling)
        return True

    def _new_game(self) -> None:
        self._events, self._rulings = [], []
        self.round_rulings, self.ended_at, self.waiting_since = [], None, None

    def _on_state(self, data: dict) -> bool:
        old = self.state
        if old is not None and (data.get("game") or 0, data.get("seq") or 0) < \
                (old.get("game") or 0, old.get("seq") or 0):
            return False  # an older state (a retained copy arriving late)
        self.state = data
        if isinstance(data.get("now"), (int, float)):
            self.clock.set(data["now"], float(data.get("rate") or 1.0))
        if self.game is None or (data.get("game") or 0) > self.game:
            if self.game is not None:
                self._new_game()
            self.game = data.get("game")
        snap = data.get("snapshot") or {}
        if snap.get("game_over") and self.ended_at is None:
            self.ended_at = self.clock()
        if not data.get("waiting_for_referee"):
            self.waiting_since = None
        elif self.waiting_since is None:
            self.waiting_since = self.clock()
        if self.hub.subscriber_count:  # someone has the table's live view open
            self.hub.publish("state", self.snapshot())
        return True

    def _on_health(self, data: dict) -> bool:
        changed = False
        for entry in data.get("components", []):
            entry = {"component": str(entry["component"]), "ok": bool(entry["ok"]),
                     "text": str(entry.get("text") or ""), "t": self.clock()}
            old = self.health.get(entry["component"])
            self.health[entry["component"]] = entry
            if old is None or (old["ok"], old["text"]) != (entry["ok"], entry["text"]):
                self.hub.publish("health", entry)
                changed = True
        return changed

    def _on_online(self, data: dict) -> bool:
        online = bool(data.get("online"))
        if online == self.online:
            return False
        self.online, self.online_changed = online, monotonic()
        self.hub.publish("health", self.link_health())
        return True

    # -- the overview -------------------------------------------------------------------
    def round_status(self, dispute_after: float = DISPUTE_AFTER, heard: bool = True) -> dict:
        """Where this table stands in the round (:func:`hall.round_status.round_status`).
        ``heard``: the hall hears the tables now (its broker is up and settled); the time
        rule for a dispute is held back otherwise, and while the table is offline. The
        table's own word that it waits for a referee counts once it has stood
        ``WORD_STANDS`` seconds (its clock): the table says so as soon as three players have
        signed, and the fourth is usually a breath behind."""
        with self._lock:
            state = self.state or {}
            now = self.clock()
            word = state.get("waiting_for_referee")
            heard = heard and self.online is not False
            if not heard or self.waiting_since is None or \
                    now - self.waiting_since < self.WORD_STANDS:
                word = None   # not yet, or the hall's run-on clock says nothing of it now
            return round_status(state.get("snapshot"), self.round_rulings, now,
                                dispute_after, self.ended_at, word, judge_late=heard)

    #: Seconds (table clock) the table's "waiting for a referee" stands before the hall says it.
    WORD_STANDS = 20.0

    def tile(self, game_minutes: float, seen: set[str], now: float | None = None,
             dispute_after: float = DISPUTE_AFTER, heard: bool = True) -> dict:
        now = monotonic() if now is None else now
        with self._lock:
            state = self.state or {}
            snap = state.get("snapshot") or {}
            t0 = state.get("game_t0")
            playing = bool(snap) and t0 is not None and not snap.get("game_over")
            played = max(0.0, self.clock() - t0) if t0 is not None else None
            health = [{k: h[k] for k in ("component", "ok", "text")}
                      for h in self.health.values()]
            tile = {
                "table": self.name,
                "online": self.online,
                "offline_for": now - self.online_changed if self.online is False else None,
                "seq": max(self.last_seq, state.get("seq") or 0),
                "game": self.game,
                "round": snap.get("round"),
                "scores": snap.get("scores"),
                "names": snap.get("names"),
                "ruleset": snap.get("ruleset"),
                "played": played,
                "rate": self.clock.speed,
                "playing": playing,
                "game_over": bool(snap.get("game_over")),
                "open": state.get("open") or {"violations": [], "calls": []},
                "health": health,
                # what an offline table has left to send is unknown: its last word is stale
                "backlog": (state.get("backlog") or 0) if self.online is not False else 0,
                "behind": bool(game_minutes) and played is not None and
                played > game_minutes * 60,
                "gaps": len(self.gaps),
                "hall_round": self.hall_round,
                "round_status": self.round_status(dispute_after, heard),
            }
            level, why = attention(tile, seen)
            if level != self.level[0]:
                self.level = (level, now)
            tile.update(level=level, why=why, level_name=LEVELS[level],
                        level_for=now - self.level[1])
            return tile


class Board:
    """Every table of one hall (see the module docstring).

    ``hall``: the hall's name (the topic segment). ``title``: shown on the page.
    ``game_minutes``: a game played longer than this is behind schedule (0: no schedule).
    ``dispute_after``: seconds (table clock) after a game's end without a signed result
    before the table is shown waiting for a referee. ``catch_up``: seconds after the broker
    came back during which that is not said of a table the hall may not have heard yet.
    """

    def __init__(self, hall: str, title: str | None = None, game_minutes: float = 0,
                 dispute_after: float = DISPUTE_AFTER, catch_up: float = 10.0):
        self.hall = hall
        self.title = title or hall
        self.game_minutes = game_minutes
        self.tables: dict[str, RemoteTable] = {}
        self.seen: dict[str, set[str]] = {}
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self.version = 0
        self.broker_online: bool | None = None
        self.broker_changed = monotonic()
        self.broker_text = "connecting to the broker"
        self.broker_back: float | None = None   # when it came back after it was lost
        self.stats = Counter()
        self.dispute_after = dispute_after
        self.catch_up = catch_up
        #: the hall's last round start (:mod:`hall.round_start`), as the broker holds it
        self.round: dict | None = None
        #: callables ``(table, round_no, result_ruling)``, each told every signed result once
        self.on_result: list = []
        #: every result handed to ``on_result``: ``{"table", "round", "ruling", "at"}``
        self.results: list[dict] = []

    def table(self, name: str) -> RemoteTable | None:
        return self.tables.get(name)

    def receive(self, topic: str, payload: bytes) -> None:
        """One message from the broker (any thread). Bad messages are counted and logged,
        never raised: one broken table must not stop the hall."""
        parsed = topics.parse(self.hall, topic)
        if parsed is None:
            if topic == topics.round_topic(self.hall):
                self._on_round(payload)
                return
            self.stats["foreign"] += 1
            return
        name, kind = parsed
        try:
            if not payload:  # a retained message cleared
                if kind != "online":
                    return
                payload = b'{"online": false}'
            data = json.loads(payload)
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            with self._lock:
                table = self.tables.get(name)
                if table is None:
                    table = self.tables[name] = RemoteTable(name)
            changed = table.apply(kind, data)
        except (ValueError, KeyError, TypeError) as exc:
            self.stats["bad"] += 1
            log.warning("hall: a bad %s message from table %s (%s)", kind, name, exc)
            return
        self.stats[kind] += 1
        if not changed:
            if kind in ("event", "ruling"):
                self.stats["duplicates"] += 1
            return
        if table.new_results:
            self._results(table)
        self._bump(name)

    def _on_round(self, payload: bytes) -> None:
        if not payload:
            return  # cleared: the page keeps showing the last round it knew
        try:
            start = round_start.read_message(payload)
        except round_start.BadRoundStart as exc:
            self.stats["bad"] += 1
            log.warning("hall: a round start that cannot be used (%s)", exc)
            return
        if self.round is None or self.round["id"] != start["id"]:
            self.round = {**start, "heard": monotonic()}
            self._bump(None)

    def _results(self, table: RemoteTable) -> None:
        """Hand the table's new signed results to the hooks (a hook that fails is logged:
        the hall goes on, and the result stays in :attr:`results`)."""
        with table._lock:
            new, table.new_results = table.new_results, []
            round_no = table.hall_round
        if round_no is None and self.round is not None:
            round_no = self.round["round"]
        for ruling in new:
            self.results.append({"table": table.name, "round": round_no, "ruling": ruling,
                                 "at": monotonic()})
            self.stats["results"] += 1
            for hook in list(self.on_result):
                try:
                    hook(table.name, round_no, ruling)
                except Exception:
                    log.exception("hall: a result hook failed for table %s", table.name)

    def _bump(self, name: str | None) -> None:
        with self._changed:
            self.version += 1
            if name is not None:
                self.tables[name].version = self.version
            self._changed.notify_all()

    def set_broker(self, online: bool, text: str = "") -> None:
        if online != self.broker_online or text != self.broker_text:
            if online != self.broker_online:
                self.broker_changed = monotonic()
                if online and self.broker_online is False:
                    self.broker_back = self.broker_changed
            self.broker_online, self.broker_text = online, text
            self._bump(None)

    def hears_tables(self, now: float | None = None) -> bool:
        """Whether what the board shows is the tables' word now: its broker is up, and not
        just back (``catch_up``: the tables' links retry at most 4 s apart, then send what
        they journaled meanwhile). Before it is, no table is said to wait for a referee
        because the hall heard nothing from it."""
        now = monotonic() if now is None else now
        return self.broker_online is not False and \
            (self.broker_back is None or now - self.broker_back >= self.catch_up)

    def round_status(self, name: str) -> dict | None:
        table = self.tables.get(name)
        return table.round_status(self.dispute_after, self.hears_tables()) \
            if table is not None else None

    def wait(self, version: int, timeout: float) -> int:
        """Block until the board changes past ``version`` (or ``timeout``); the new version."""
        with self._changed:
            if self.version <= version:
                self._changed.wait(timeout)
            return self.version

    def tiles(self, since: int = -1, now: float | None = None) -> list[dict]:
        """Tiles of the tables changed after version ``since`` (all by default), most urgent
        first: by level, then longest at that level, then by name."""
        now = monotonic() if now is None else now
        with self._lock:
            tables = [t for t in self.tables.values() if t.version > since]
        heard = self.hears_tables(now)
        tiles = [t.tile(self.game_minutes, self.seen.get(t.name, set()), now,
                        self.dispute_after, heard) for t in tables]
        tiles.sort(key=lambda t: (t["level"], -t["level_for"], t["table"]))
        return tiles

    def mark_seen(self, name: str) -> bool:
        """The head referee saw what table ``name`` shows now (someone is on the way)."""
        table = self.tables.get(name)
        if table is None:
            return False
        open_ = (table.state or {}).get("open") or {}
        keys = {item_key("call", c) for c in open_.get("calls", [])}
        keys |= {item_key("violation", v) for v in open_.get("violations", [])}
        if self.round_status(name)["status"] == "disputed":
            keys.add(item_key("dispute", {"game": table.game}))
        with self._lock:
            self.seen[name] = self.seen.get(name, set()) | keys
        self._bump(name)
        return True

    def broker_status(self, now: float | None = None) -> dict:
        now = monotonic() if now is None else now
        return {"online": self.broker_online, "text": self.broker_text,
                "for": now - self.broker_changed}


def _duration(seconds: float) -> str:
    seconds = int(max(0, seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"
