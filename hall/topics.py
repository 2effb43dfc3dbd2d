"""Where a table's messages go on the hall's broker, and what they carry.

Every table publishes under ``riichi/<hall>/<table>/`` (both names: letters, digits, ``-``
and ``_``; the table's name is also its broker user, which the ACL ties to that prefix):

============  =======  ========  ==================================================================
topic         QoS      retained  payload (JSON)
============  =======  ========  ==================================================================
``event``     1        no        ``{"seq", "game", "event"}``: a journaled table event (spec format)
``ruling``    1        no        ``{"rid", "seq", "game", "ruling"}``: a journaled ruling; ``rid``
                                 is its row in the journal, ``seq`` the event that produced it
``state``     1        yes       ``{"seq", "rid", "game", "now", "rate", "game_t0", "snapshot",
                                 "open": {"violations", "calls"}, "backlog",
                                 "waiting_for_referee"}``: the table now; ``backlog``: events
                                 and rulings journaled, not yet sent; ``waiting_for_referee``:
                                 why its score sheet waits for a referee, or null
``health``    1        yes       ``{"components": [{"component", "ok", "text"}...]}``
``online``    1        yes       ``{"online": true}`` on connect; ``{"online": false}`` when the
                                 table stops, or (the broker's last will) when it vanishes
============  =======  ========  ==================================================================

One topic goes the other way, from the hall to every table: ``riichi/<hall>/_hall/round``
(:func:`round_topic`; no table can be named ``_hall``, names start with a letter or digit):

============  =======  ========  ==================================================================
topic         QoS      retained  payload (JSON)
============  =======  ========  ==================================================================
``round``     1        yes       ``{"round", "seconds", "id", "expiry"}``: start round ``round``,
                                 ``seconds`` long, at every table (:mod:`hall.round_start`);
                                 MQTT 5 Message Expiry ``expiry`` s
============  =======  ========  ==================================================================

Retained, so that a table that connects late, or reconnects after a broker restart, gets it
from the broker without the hall sending it again; each table journals a given ``id`` once
(it looks in its journal first), so a copy handed over again starts nothing twice. The ACL
lets the hall's user write it and every table read it, and nothing else.

``event`` and ``ruling`` are the journal's outbox: sent in journal order, each once the broker
has not yet acknowledged it (see :class:`hall.link.HallLink`); ``seq`` and ``rid`` let the
hall drop what it already has and notice what it lacks. ``now`` is the table clock when the
state was sent and ``rate`` how fast that clock runs (1 but in a sped-up demo): the hall never
compares clocks of different tables or its own with a table's.
"""
from __future__ import annotations

import re

ROOT = "riichi"
KINDS = ("event", "ruling", "state", "health", "online")
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


#: The hall's own segment under ``riichi/<hall>/``: not a valid table name.
HALL_SEGMENT = "_hall"


def valid_name(name: object) -> bool:
    return isinstance(name, str) and NAME.fullmatch(name) is not None


def table_prefix(hall: str, table: str) -> str:
    return f"{ROOT}/{hall}/{table}"


def topic(hall: str, table: str, kind: str) -> str:
    return f"{table_prefix(hall, table)}/{kind}"


def round_topic(hall: str) -> str:
    """Where the hall starts a round at every table (hall to tables, retained)."""
    return f"{ROOT}/{hall}/{HALL_SEGMENT}/round"


def hall_subscriptions(hall: str) -> list[tuple[str, int]]:
    """What the hall subscribes to: events and rulings at QoS 1 (the broker queues them for
    the hall's session while it is away); the retained kinds at QoS 0, since each supersedes
    the last and the broker hands the latest over at every (re)subscription anyway, so a hall
    that was away is not sent every state it missed. The round it started last, likewise:
    the page shows it after a restart of the hall's server."""
    return [(f"{ROOT}/{hall}/+/{kind}", 1 if kind in ("event", "ruling") else 0)
            for kind in KINDS] + [(round_topic(hall), 0)]


def parse(hall: str, name: str) -> tuple[str, str] | None:
    """``(table, kind)`` of a topic of this hall, None for anything else."""
    parts = name.split("/")
    if len(parts) != 4 or parts[0] != ROOT or parts[1] != hall:
        return None
    if not valid_name(parts[2]) or parts[3] not in KINDS:
        return None
    return parts[2], parts[3]
