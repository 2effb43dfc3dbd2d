"""The referee: table events in, rulings out.

This module is the contract the rest of the project codes against (the table service, the
dashboard, the replay CLI, the Tenhou checker). Its public surface:

``Referee(ruleset=None)``
    ``ruleset`` is a profile name that overrides the ``ruleset`` of ``game_start`` (the CLI's
    ``--ruleset``); without it the game's own, else ``ema2012``.
``feed(event) -> list[dict]``
    Judge one checked event (see :mod:`referee.events`). Deadlines that fall before the
    event's ``t`` are handled first, so their rulings come first in the list.
``advance(t) -> list[dict]``
    Close every window whose deadline is at or before ``t`` (a live table calls this from a
    timer; replay relies on ``feed`` doing it).
``finish() -> list[dict]``
    End of the stream: close every open window.
``next_deadline() -> float | None``
    When the next window closes, on the table clock.
``snapshot() -> dict``
    The table as the dashboard draws it, JSON-ready::

        {"t": 12.5, "ruleset": "ema2012", "claim_window": 3.0,
         "names": null | [4 str], "scores": [4 int],
         "round": null | {"wind": "E", "number": 1, "dealer": 0, "honba": 0, "riichi_sticks": 0},
         "turn": null | seat, "wall": 70, "dora_indicators": ["3m"],
         "seats": [{"seat": 0, "riichi": false, "dead_hand": false,
                    "pond": [{"tile": "5m", "t": 1.0, "riichi": false, "called": false}],
                    "melds": [{"kind": "pon", "tiles": ["5m","5m","0m"], "called": "5m",
                               "from": 2}]}, ...4],
         "window": null | {"discard_seat": 1, "tile": "5m", "opened": 11.0, "deadline": 14.0,
                           "chankan": false, "last_discard": false,
                           "presses": [{"seat": 2, "call": "pon", "t": 11.8}]},
         "hand_over": false, "game_over": false}

Every ruling is a dict in the spec's format plus two extra keys: ``t`` (when it was decided,
on the table clock) and ``ruling_id`` (``"r1"``, ``"r2"``... deterministic, so a replay of
the same events gives the same ids).
"""
