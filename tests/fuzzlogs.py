"""Randomly damaged table-event logs, for the replay fuzz test (tests/test_replay_fuzz.py).

:func:`mutated_logs` takes real-looking logs (simulated games and scripted scenes) and breaks
each in one to three places the way a bad sensor, a hand-edited file or a cut copy would:
a value swapped for an object, a list, a huge or non-finite number, a wrong type or another
valid value; a key deleted; an event turned into another type; lines repeated or swapped;
bytes broken (invalid UTF-8, a NUL, a line cut short). The result is a list of byte lines.
"""
from __future__ import annotations

import json
import random

from referee.simulate import script, simulate

#: JSON texts a value may be swapped for: objects, lists, huge and non-finite numbers, wrong
#: types, and structures deep enough to trouble a recursive reader
ODD_VALUES = [
    "{}", "[]", '{"a": [1, {"b": null}]}', "[[[]]]", '["1m", {"x": 1}]', "null", "true",
    "false", "0", "-1", "4", "3.5", "1e400", "-1e400", "NaN", "Infinity", "-Infinity",
    "123456789012345678901234567890", "-99999999999999999999", "1" * 5000, "1e-320",
    '""', '"x"', '"' + "x" * 3000 + '"', '"\\u0000"', '"1m"', '"0z"', '"E"', '"ron"',
    "[" * 5000 + "]" * 5000, '{"type": "discard"}',
]
TILES = ["1m", "5m", "0m", "9p", "3s", "0s", "1z", "5z", "7z"]
TYPES = ["game_start", "hand_start", "discard", "call", "meld", "dora", "reveal", "tenpai",
         "referee"]

SCENES = [
    # kans, chankan, dora, riichi, a reveal, referee actions
    script("0 gs tenhou", "0 hs 0", "1 d0 5p", "1.5 c1 pon", "2 m1 pon 555p 5p@0",
           "2.8 d1 9s", "4 d2 1z", "5 d3 2z r", "6 d0 3z", "9.5 c1 kan",
           "10 m1 shouminkan 5555p", "10.5 dora 3m", "12 d1 4s", "12.5 c3 ron",
           "14 reveal 3 234m567m345p678s44s 4s", "15 ref note checked"),
    script("0 gs ema2012", "0 hs 0", "1 c0 kan", "1.5 m0 ankan 1111z", "2 dora 9m",
           "2.5 d0 9s", "3 c1 chii", "3.5 m1 chii 789s 9s@0", "4 d1 9s",
           "5 ref penalty kuikae dead hand", "6 d2 5m", "6.2 c0 ron",
           "8 reveal 0 234m567m345p678s55m 5m", "9 ref undo", "10 ref end_game time"),
    script("0 gs mleague", "0 hs 1 S 2z", "1 d1 1m r", "2 d2 1m", "2.5 c3 pon",
           "3 m3 pon 111m", "3.5 d3 2m", "4 d0 2m", "5 d1 3m", "6 tenpai 1,3",
           "7 hs 2 S", "8 d2 7z", "8.2 c3 ron", "8.3 c0 ron", "8.4 c1 ron",
           "10 ref override r2 misread"),
]


def _base_logs(rng: random.Random) -> list[list[dict]]:
    ruleset = rng.choice(["ema2012", "ema2016", "wrc2015", "tenhou", "mleague", "dutch"])
    if rng.random() < 0.6:
        return simulate(seed=rng.randrange(10_000), hands=1, ruleset=ruleset)
    return [dict(e) for e in rng.choice(SCENES)]


def _swap_value(rng: random.Random, event: dict) -> bytes:
    keys = list(event)
    key = rng.choice(keys)
    roll = rng.random()
    if roll < 0.6:
        value = rng.choice(ODD_VALUES)
    elif roll < 0.8 and key in ("seat", "dealer"):
        value = str(rng.randrange(4))
    elif roll < 0.9:
        value = json.dumps(rng.choice(TILES))
    else:
        value = json.dumps(rng.choice(TYPES))
    items = [f"{json.dumps(k)}: {value if k == key else json.dumps(v)}" for k, v in event.items()]
    return ("{" + ", ".join(items) + "}").encode()


def mutate(rng: random.Random, events: list[dict]) -> list[bytes]:
    """``events`` as JSON lines with one to three random faults."""
    lines = [json.dumps(e).encode() for e in events]
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(lines))
        fault = rng.randrange(8)
        try:
            event = json.loads(lines[i])
        except (ValueError, RecursionError):  # already broken by an earlier fault
            event = None
        if fault <= 2 and isinstance(event, dict) and event:
            lines[i] = _swap_value(rng, event)
        elif fault == 3 and isinstance(event, dict) and event:
            del event[rng.choice(list(event))]
            lines[i] = json.dumps(event).encode()
        elif fault == 4 and isinstance(event, dict):
            event["type"] = rng.choice(TYPES)
            lines[i] = json.dumps(event).encode()
        elif fault == 5:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif fault == 6:
            lines.insert(i, lines[i])
        else:
            cut = rng.randrange(len(lines[i]) + 1)
            junk = rng.choice([b"\xff\xfe", b"\xc3", b"\x00", b"", b"\xed\xa0\x80", b"\n"])
            lines[i] = lines[i][:cut] + junk + lines[i][cut + rng.randrange(2):]
    return lines


def mutated_logs(seed: int, count: int):
    """``count`` damaged logs (lists of byte lines), the same ones for the same ``seed``."""
    rng = random.Random(seed)
    for _ in range(count):
        yield mutate(rng, _base_logs(rng))
