"""Where a table stands in the tournament round, as the hall's page shows it.

:func:`round_status` reads a table's last state (its snapshot: ``clock``, ``game_over``,
``signatures``, ``referee_signed``, ``result_given``, and a ``disputed`` flag where the table
sets one) and the rulings the hall holds of its current game (``time_up``, ``game_end``,
``result``), either of which may be missing: a hall that started late has the state but not
the rulings, and the state lags the rulings by up to 0.1 s.

====================  ===================================================================
``status``            when
====================  ===================================================================
``playing``           a game is running and the round's time is not up (or no clock runs)
``time_up``           the time is up and the game plays its last hand(s)
``signing``           the game has ended; the sheet waits for the players' and the referee's
                      signatures
``disputed``          the table says it waits for a referee over its score sheet (its
                      state's ``waiting_for_referee``: a player who does not sign, or the
                      countersignature to come), or the game ended more than
                      ``dispute_after`` seconds ago (table clock) and the sheet is still not
                      signed (a table that does not say)
``signed``            the result is signed (the ``result`` ruling)
None                  no game
====================  ===================================================================

``time_left`` is in seconds on the table's own clock (``table_now``): the hall never compares
one table's clock with another's. That clock is the table's last word run on at its rate, so
while the hall does not hear from a table (the broker restarting, the table offline) it would
run past a signature on its way: ``judge_late`` False (the board's call) holds the time rule
for ``disputed`` back then, and the table stays ``signing``.
"""
from __future__ import annotations

#: Seconds (table clock) after the game's end without a signed sheet before the hall says the
#: table waits for a referee: four players sign in well under a minute when they agree.
DISPUTE_AFTER = 180.0

LABELS = {"playing": "playing", "time_up": "time up", "signing": "waiting for signatures",
          "disputed": "waiting for a referee", "signed": "result signed"}


def round_status(snap: dict | None, rulings: list[dict], table_now: float,
                 dispute_after: float = DISPUTE_AFTER, ended_at: float | None = None,
                 disputed: bool | str | None = None, judge_late: bool = True) -> dict:
    """``{"status", "label", "time_left", "time_up", "signatures", "referee_signed",
    "ended_at", "reason"}`` of one table (see the module docstring). ``ended_at``: when the
    hall first saw the game over, on the table clock, for a game whose ``game_end`` it lacks;
    ``disputed``: the table's own word that it waits for a referee (its text, the
    ``reason``)."""
    snap = snap or {}
    clock = snap.get("clock") or {}
    kinds = {r.get("type"): r for r in rulings}
    result = kinds.get("result")
    game_end = kinds.get("game_end")
    time_up = bool(clock.get("time_up")) or "time_up" in kinds
    signed = result is not None or bool(snap.get("result_given"))
    over = bool(snap.get("game_over")) or game_end is not None or signed
    time_left = None
    if isinstance(clock.get("time_up_at"), (int, float)) and not clock.get("stopped"):
        time_left = 0.0 if time_up else max(0.0, float(clock["time_up_at"]) - table_now)
    end_t = game_end.get("t") if game_end is not None else None
    if not isinstance(end_t, (int, float)):
        end_t = ended_at
    signatures = list(result.get("signatures") or []) if result else \
        list(snap.get("signatures") or [])
    referee_signed = bool(result) or bool(snap.get("referee_signed"))
    if signed:
        status = "signed"
    elif over:
        late = judge_late and end_t is not None and table_now - end_t > dispute_after
        status = "disputed" if disputed or late else "signing"
    elif snap.get("round") is not None or snap.get("ruleset") is not None or rulings:
        status = "time_up" if time_up else "playing"
    else:
        status = None
    return {"status": status, "label": LABELS.get(status), "time_left": time_left,
            "time_up": time_up, "signatures": signatures, "referee_signed": referee_signed,
            "ended_at": end_t,
            "reason": disputed if isinstance(disputed, str) and status == "disputed" else None}
