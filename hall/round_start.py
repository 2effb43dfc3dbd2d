"""The hall starts a round at every table at once: one retained message, taken once per table.

The head referee's server publishes ``{"round", "seconds", "id", "expiry"}`` to
:func:`hall.topics.round_topic` (QoS 1, *retained*, with an MQTT 5 Message Expiry Interval of
``expiry`` seconds). Every table's link subscribes to it; the table journals one ``clock``
event ``start`` with ``source`` ``"hall"`` and, as extra keys, ``round_no`` and ``round_id``.

Why retained: a table that connects late (its Pi rebooted, its Wi-Fi came back) and a table
that reconnects after a broker restart both get the round start from the broker as soon as
they subscribe, with nobody at the hall doing anything again. Why it is never journaled twice:
each start has its own ``id``, and the table looks for it in its journal before journaling it
(a reconnect, a broker restart or a table service restart hands the same message over again).

How late a table is: a message delivered live (the table was subscribed when the hall
published it) carries no retain flag and starts the clock now, so every connected table starts
within the broker's delivery spread. A retained copy handed over on subscribing is older:
the broker counts its Message Expiry Interval down while it holds it (MQTT 5, 3.3.2.3.3), so
``expiry`` minus what is left is how long ago the hall started the round, on the broker's
clock and to the second; the table then starts its clock with that much less (``late_s``, an
extra key, says by how much). No wall clock is read on either side. Once ``expiry`` has passed
the broker drops the message: a table switched on after the round's end starts nothing.
"""
from __future__ import annotations

import json
import math
import secrets

from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

#: Seconds the broker keeps the round start after the round's length: a round runs late with
#: extra time given at a table, and a table that comes back then must still get it.
EXPIRY_MARGIN = 3600
#: The longest round the hall starts (a tournament's round is hours at most).
MAX_SECONDS = 24 * 3600


class BadRoundStart(ValueError):
    """A round start message that cannot be used (one line: what is wrong)."""


def round_message(round_no: int, seconds: float, id: str | None = None) -> dict:
    """The hall's round start: round ``round_no`` (1 and up), ``seconds`` long on every
    table's clock. ``id``: made up (random) when None."""
    if isinstance(round_no, bool) or not isinstance(round_no, int) or not 1 <= round_no <= 999:
        raise BadRoundStart(f"the round must be a number from 1 to 999, not {round_no!r}")
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or \
            not math.isfinite(seconds) or not 0 < seconds <= MAX_SECONDS:
        raise BadRoundStart(f"the round's length must be more than 0 and at most "
                            f"{MAX_SECONDS // 3600} hours, not {seconds!r} s")
    seconds = float(seconds)
    return {"round": round_no, "seconds": seconds, "id": id or secrets.token_hex(8),
            "expiry": int(math.ceil(seconds)) + EXPIRY_MARGIN}


def publish_properties(message: dict) -> Properties:
    """PUBLISH properties: the expiry the broker counts down (see the module docstring)."""
    props = Properties(PacketTypes.PUBLISH)
    props.MessageExpiryInterval = int(message["expiry"])
    return props


def read_message(payload: bytes) -> dict:
    """The round start in ``payload``, checked; :class:`BadRoundStart` when it is not one."""
    try:
        data = json.loads(payload)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadRoundStart(f"not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise BadRoundStart("not a JSON object")
    if not isinstance(data.get("id"), str) or not data["id"]:
        raise BadRoundStart("no id")
    expiry = data.get("expiry")
    if isinstance(expiry, bool) or not isinstance(expiry, int) or expiry <= 0:
        raise BadRoundStart("no expiry")
    return {**round_message(data.get("round"), data.get("seconds"), data["id"]),
            "expiry": expiry}


def late_seconds(message: dict, retained: bool, expiry_left: int | None) -> float:
    """Real seconds since the hall started the round: 0 for a live delivery; for a retained
    copy, the expiry the hall set minus what the broker says is left (0 when it says
    nothing)."""
    if not retained or expiry_left is None:
        return 0.0
    return float(max(0, int(message["expiry"]) - int(expiry_left)))


def clock_event(message: dict, t: float, late_table_s: float = 0.0) -> dict | None:
    """The ``clock`` event a table journals for ``message`` at ``t`` on its clock, having
    heard of it ``late_table_s`` table seconds after the hall started it; None when the round
    was over by then."""
    seconds = message["seconds"] - late_table_s
    if seconds <= 0:
        return None
    event = {"type": "clock", "t": t, "action": "start", "seconds": round(seconds, 3),
             "source": "hall", "round_no": message["round"], "round_id": message["id"]}
    if late_table_s > 0:
        event["late_s"] = round(late_table_s, 3)
    return event


def hall_round_id(event: dict) -> str | None:
    """The hall's round id of a journaled event: set for a hall's clock start, else None."""
    if event.get("type") == "clock" and event.get("source") == "hall" and \
            event.get("action") == "start" and isinstance(event.get("round_id"), str):
        return event["round_id"]
    return None
