"""What at a table waits for a referee, and which tables the head referee should look at first.

:class:`OpenItems` runs at the table (the table has the whole journal, a hall that started late
does not) over the current game's events and rulings: the calls for a referee standing
(:mod:`table.referee_calls`) and the violations no referee has answered yet. A violation is
answered by a ``referee`` event naming its ``ruling_id`` (override, penalty, note); one with a
penalty the referee gave is answered by its nature. A violation of a hand that has ended drops
off, except a ``check`` reading (not applied until confirmed), which stays until answered.

:func:`attention` ranks a hall tile; lower needs a referee sooner:

====  ==================================================================================
0     a seat calls for a referee, or the game's result waits for a referee (a player
      disputes it: :mod:`hall.round_status`), and the head referee has not marked it seen
1     a violation that rests on an uncertain camera reading waits to be confirmed
2     a violation with a penalty waits to be looked at
3     the table is offline mid-game, or a camera, the buttons or the journal failed
4     what the head referee marked seen (someone is on the way) and nothing newer
5     behind schedule: playing longer than the hall's ``game_minutes``
6     playing, all well
7     no game running (not started, or over)
====  ==================================================================================
"""
from __future__ import annotations

from table.referee_calls import CallTracker

LEVELS = {0: "calls for a referee", 1: "reading to confirm", 2: "violation", 3: "fault",
          4: "seen: referee on the way", 5: "behind schedule", 6: "playing", 7: "no game"}
FAULT_COMPONENTS = ("camera", "buttons", "journal", "lights", "service", "disk")


class OpenItems:
    """The current game's standing referee calls and unanswered violations."""

    def __init__(self):
        self.calls = CallTracker()
        self.violations: dict[str, dict] = {}
        self.answered: set[str] = set()

    def event(self, event: dict) -> None:
        kind = event.get("type")
        if kind == "game_start":
            self.violations, self.answered = {}, set()
        elif kind == "hand_start":
            self.violations = {k: v for k, v in self.violations.items() if v.get("check")}
        elif kind == "referee" and event.get("ruling_id") is not None:
            rid = str(event["ruling_id"])
            self.answered.add(rid)
            self.violations.pop(rid, None)
        self.calls.feed(event)

    def ruling(self, ruling: dict) -> None:
        if ruling.get("type") != "violation" or ruling.get("by_referee"):
            return
        rid = str(ruling.get("ruling_id", ""))
        if rid and rid not in self.answered:
            self.violations[rid] = ruling

    def summary(self) -> dict:
        return {
            "violations": [{k: v[k] for k in ("ruling_id", "seat", "kind", "penalty", "text",
                                              "check", "t") if k in v}
                           for v in self.violations.values()],
            "calls": [{"seat": s, "t": e.get("t")} for s, e in sorted(self.calls.standing.items())],
        }


def attention(tile: dict, seen: set[str]) -> tuple[int, str]:
    """``(level, why)`` of a hall tile (see the table above). ``seen``: the keys of the items
    the head referee marked seen (``call:<seat>:<t>``, ``violation:<ruling_id>``)."""
    open_ = tile.get("open") or {}
    calls = [c for c in open_.get("calls", []) if item_key("call", c) not in seen]
    if calls:
        seats = ", ".join(str(c["seat"]) for c in calls)
        return 0, f"seat {seats} calls for a referee"
    disputed = (tile.get("round_status") or {}).get("status") == "disputed"
    if disputed and item_key("dispute", {"game": tile.get("game")}) not in seen:
        return 0, (tile.get("round_status") or {}).get("reason") or \
            "result not signed: waiting for a referee"
    violations = [v for v in open_.get("violations", []) if item_key("violation", v) not in seen]
    checks = [v for v in violations if v.get("check")]
    if checks:
        return 1, f"{len(checks)} camera reading{'s' if len(checks) > 1 else ''} to confirm"
    serious = [v for v in violations if v.get("penalty") not in (None, "none")]
    if serious:
        v = serious[-1]
        return 2, f"{v.get('kind', 'violation').replace('_', ' ')}: " \
                  f"{v.get('penalty', '').replace('_', ' ')} for seat {v.get('seat')}"
    playing = tile.get("playing")
    if tile.get("online") is False and playing:
        return 3, "offline"
    faults = [h for h in tile.get("health", []) if h.get("component") in FAULT_COMPONENTS
              and h.get("ok") is False]
    if faults and tile.get("online") is not False:
        return 3, "; ".join(f"{h['component']}: {h.get('text') or 'fault'}" for h in faults)
    if disputed or open_.get("calls") or any(v.get("penalty") not in (None, "none") or v.get("check")
                                 for v in open_.get("violations", [])):
        return 4, LEVELS[4]
    if playing and tile.get("behind"):
        return 5, LEVELS[5]
    if playing:
        return 6, LEVELS[6]
    if tile.get("online") is False:
        return 7, "offline, no game"
    return 7, LEVELS[7]


def item_key(kind: str, item: dict) -> str:
    if kind == "call":
        return f"call:{item.get('seat')}:{item.get('t')}"
    if kind == "dispute":
        return f"dispute:{item.get('game')}"
    return f"violation:{item.get('ruling_id')}"
