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
    Pass every deadline at or before ``t``: windows close, the round's time runs out (a live
    table calls this from a timer; replay relies on ``feed`` doing it).
``finish() -> list[dict]``
    End of the stream: close every open window (the round's time is not up for it).
``next_deadline() -> float | None``
    When the next window closes or the round's time is up, on the table clock.
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
         "hand_over": false, "game_over": false,
         "clock": {"started": null | 0.0, "time_up_at": null | 5400.0, "stopped": false,
                   "time_up": false},
         "hands_left": null | 0-2, "penalties": [ledger entries, as game_end's],
         "signatures": [seats], "referee_signed": false, "result_given": false}

Every ruling is a dict in the spec's format plus two extra keys: ``t`` (when it was decided,
on the table clock) and ``ruling_id`` (``"r1"``, ``"r2"``... deterministic, so a replay of
the same events gives the same ids).

Semantics the spec leaves open, as implemented here (see also :mod:`referee.claims`):

* A window is ``[discard t, t + claim_window]``: a press at the deadline itself is in time.
  Any discard closes the open window (the table has moved on), as do ``reveal``, ``tenpai``,
  ``hand_start`` and ``end_game``; a ``meld`` seen while a window is open waits for its
  decision. A ruleset with no timing rule (``ema2016``) has no deadline: its window closes
  only when the table moves on.
* Only a win can outrank a standing claim, so a window is decided before its deadline when
  every other seat presses ron, or under head bump when the seat after the discarder does.
* The ``claim`` ruling may carry ``ignored`` (presses that are no claim: ``own_discard``,
  ``changed_call``, ``ron_only`` on a chankan window, ``dead_hand``) and ``chankan: true``.
  Its ``rejected`` may give two reasons beyond the spec's list (:data:`referee.claims.BARRED`):
  ``own_pon`` (a kan on another player's discard of the fourth tile of the seat's own pon)
  and ``riichi`` (a chii, pon or open kan by a seat in riichi).
  Three rons under the ``double`` policy give no winners, each ron rejected ``triple_ron``,
  then a ``hand_end`` abortive ``triple_ron``. A press after its window is a separate
  ``claim`` ruling for that discard with the press rejected ``late``.
* ``wall`` counts the draws left in the live wall: 69 after the deal (the dealer's
  fourteenth tile is the first of 70 draws), one less per draw and per kan. A discard made
  with ``wall == 0`` is the last discard.
* Pond entries stay in the snapshot when called, with ``called: true`` (the table no longer
  shows them); furiten needs them.
* An accepted riichi (its discard passed without a ron) takes 1000 from the seat's score and
  adds a stick. A win called (ron awarded, tsumo pressed) is kept in ``hand.declared_wins``
  with what judging it needs; the seat's ``reveal`` is judged by :mod:`referee.wins`: a
  ``win`` ruling (extra keys ``yaku_han`` ``[[name, han]...]``, ``limit``, ``yakuman``, and
  ``liable`` under pao) whose ``payments`` include honba and riichi sticks, or a
  ``false_win``/``furiten_ron``/``no_yaku`` violation whose chombo is paid per the ruleset.
  ``hand_end`` comes once every declared win is shown (or, for a win never shown, at the next
  ``hand_start``: not counted), at ``tenpai`` for an exhaustive draw (noten payments or
  nagashi mangan), and at an abortive draw; a chombo ends the hand as ``abortive``/``chombo``
  (the riichi sticks of the hand go back). Its extra keys: ``changes`` (the hand's score
  changes), ``next`` (``dealer``, ``honba``, ``riichi_sticks`` of the next hand), ``tenpai``,
  ``nagashi``, and ``seat`` for nine terminals. A ``reveal`` with no win called on the seat's
  first turn before any call, showing nine kinds of terminals and honours and no win, is
  kyuushu kyuuhai where the ruleset has the abortive draw.
* ``game_end`` follows the ``hand_end`` that ends the game by the ruleset (last deal, West
  extension, bust, the last dealer's win on top: ``reason`` ``last_hand``/``bust``), by the
  round's time (``time``, :mod:`referee.round`) or a referee's ``end_game`` (``referee``);
  riichi sticks still on the table go to first place where the ruleset says so. A chombo
  whose ruleset makes it a fixed deduction (EMA, WRC) does not change the table's scores: it
  stands on the penalty ledger and comes off ``final`` (:mod:`referee.ledger`). A ``hand_start`` after
  ``game_end`` with no new ``game_start`` means the table played on: the game end is
  withdrawn (its sticks go back on the table) and the game ends again later.
* ``procedure`` rulings (no penalty) also point out what the spec calls a violation without a
  kind of its own: a fifth copy of a tile on the table (extra key ``tile``), riichi declared
  with fewer than four tiles in the wall (it does not stand), a meld whose ``from`` is not the
  discarder, and a kan dora turned early that a rinshan win or a chankan leaves uncounted. A ``game_start`` may carry
  ``red_fives``/``open_tanyao`` (false: the game is played without) and ``game_length``
  (``east``/``south``).
* ``referee`` ``penalty``: see :meth:`Referee._referee_penalty`; ``override`` lifts a dead
  hand the overridden violation caused, takes its deduction off the penalty ledger, and lists
  the id under ``overrides`` in the snapshot;
  ``undo`` voids the last non-referee event and rebuilds (:meth:`Referee._undo`).

Where each rule lives: :class:`Referee` is assembled from one part per seam of the game, each
in a module named for it, all working on the state set up in :meth:`Referee._reset`:

* :mod:`referee.turns` -- hands dealt, discards, turn order, riichi, the first go-around;
  :mod:`referee.kuikae` -- swap-calling;
* :mod:`referee.calls` -- button presses, claim windows and their decision
  (:mod:`referee.claims`: the window and the arbitration themselves);
* :mod:`referee.melds` -- called melds shown, false groups;
* :mod:`referee.kans` -- closed and added kans, the kan limit, chankan, kan dora;
* :mod:`referee.winning` -- wins declared, reveals judged (:mod:`referee.wins`) and paid,
  chombo;
* :mod:`referee.hand_end` -- ``hand_end``, dealer rotation, ``game_end``, match points;
* :mod:`referee.referee_actions` -- the referee's override, penalty, cancel_penalty, undo and
  end of game;
* :mod:`referee.round` -- the tournament round: its clock, ``time_up`` and the game's end
  after it, the penalty ledger (:mod:`referee.ledger`: deductions and the match points they
  leave), the signatures and the ``result``.
"""
from __future__ import annotations

from .calls import CallRules
from .checks import DEFAULT_CONFIDENCE_THRESHOLD, CheckRules
from .claims import ClaimWindow
from .fifth_copy import COPIES, over_four, too_many
from .hand_end import HandEndRules, final_points
from .kans import KanRules
from .melds import MeldRules
from .referee_actions import RefereeActions
from .round import RoundClock, RoundRules
from .rulesets import get_ruleset
from .table import Hand, Table
from .turns import TurnRules
from .violations import violation
from .winning import WinRules

__all__ = ["Referee", "final_points"]


class Referee(TurnRules, CallRules, MeldRules, KanRules, WinRules, HandEndRules,
              RefereeActions, CheckRules, RoundRules):
    """Judges one table's events; see the module docstring for the contract.

    ``confidence_threshold``: camera readings below it are unsure, and a violation resting on
    one is a check for the referee (:mod:`referee.checks`)."""

    def __init__(self, ruleset: str | None = None,
                 confidence_threshold: float = DEFAULT_CONFIDENCE_THRESHOLD):
        if ruleset is not None:
            get_ruleset(ruleset)  # an unknown name fails here, before any event
        self._forced_ruleset = ruleset
        self.confidence_threshold = float(confidence_threshold)
        #: every event fed, in order (undo rebuilds from it); indexes in ``_voided`` are undone
        self._log: list[dict] = []
        self._voided: set[int] = set()
        self._next_id = 1
        self._rebuilding = False
        self._reset()

    # -- public API ---------------------------------------------------------------------
    def feed(self, event: dict) -> list[dict]:
        if event["type"] == "game_start":
            # an unknown ruleset is refused before anything changes, so the rulings of the
            # events before it still come out of ``finish``
            get_ruleset(self._forced_ruleset or event["ruleset"])
        out: list[dict] = []
        self._out = out
        if not self._rebuilding:
            self._log.append(event)
            self._rebuild_at = len(self._log) - 1
        t = float(event["t"])
        self._close_due(t, strict=True)
        if t > self.table.t:
            self.table.t = t
        self._note_reading(event, t)
        getattr(self, "_on_" + event["type"])(event, t)
        return out

    def advance(self, t: float) -> list[dict]:
        out: list[dict] = []
        self._out = out
        self._close_due(t, strict=False)
        return out

    def finish(self) -> list[dict]:
        # the end of the stream is not the end of the round: a time-up moment still to come
        # is not passed
        out: list[dict] = []
        self._out = out
        w = self.window
        if w is not None:
            self._close_window(w.deadline if w.deadline is not None else self.table.t)
        return out

    def next_deadline(self) -> float | None:
        w = self.window
        due = [d for d in (w.deadline if w is not None else None, self._clock_deadline())
               if d is not None]
        return min(due) if due else None

    def snapshot(self) -> dict:
        snap = self.table.snapshot()
        if self.window is not None:
            snap["window"] = self.window.snapshot()
        hand = self.table.hand
        pc = self.pending_claim
        snap["pending_claim"] = ({k: pc[k] for k in ("seat", "call", "tile", "from")}
                                 if pc else None)
        snap["declared_wins"] = [dict(w) for w in hand.declared_wins] if hand else []
        snap["rinshan"] = hand.rinshan if hand else None
        snap["chankan_tile"] = hand.chankan_tile if hand else None
        snap["checks"] = list(self.checks)   # checks the referee has not answered yet
        snap.update(self._round_snapshot())   # the round's clock, penalties, signatures
        return snap

    @property
    def ruleset(self):
        return self.table.ruleset

    @property
    def hand(self) -> Hand | None:
        """The hand being played (state for judging reveals: see :mod:`referee.table`)."""
        return self.table.hand

    # -- bookkeeping --------------------------------------------------------------------
    def _reset(self) -> None:
        self.table = Table(get_ruleset(self._forced_ruleset))
        #: the round's clock (referee.round): it runs on across games
        self.round_clock = RoundClock()
        self.window: ClaimWindow | None = None
        #: the last window that closed in this hand (a later press on it is ``late``)
        self.last_closed: ClaimWindow | None = None
        #: a chii/pon/daiminkan awarded whose meld has not been seen yet
        self.pending_claim: dict | None = None
        #: melds seen while a window was still open: judged once it is decided
        self.deferred_melds: list[dict] = []
        #: seat that pressed kan on its own turn and whose kan meld is awaited
        self.own_kan_press: int | None = None
        #: (seat, call) presses rejected late on ``last_closed``
        self.late_presses: set = set()
        self._out: list[dict] = []
        self._reset_readings()

    def _emit(self, ruling: dict, t: float) -> dict:
        ruling["t"] = t
        ruling["ruling_id"] = f"r{self._next_id}"
        self._next_id += 1
        self._out.append(ruling)
        return ruling

    def _violation(self, kind: str, seat: int | None, text: str, t: float, **extra) -> dict:
        r = violation(self.table.ruleset, kind, seat, text, **extra)
        unsure = self._unsure_reading(kind, seat) if r["penalty"] != "none" else None
        if unsure is not None:
            # resting on a reading the camera is not sure of: asked, not applied
            r.update(self._check_keys(unsure))
            r = self._emit(r, t)
            self._hold_check(r, unsure)
            return r
        r = self._emit(r, t)
        if r["penalty"] == "points" and seat is not None:
            self._deduct(r, r["points"])
        if r["penalty"] in ("dead_hand", "chombo") and seat is not None and self.table.hand:
            # a chombo ends the hand for the table (judged by the referee); until then the
            # offender's hand is as good as dead
            self._mark_dead(seat, r["ruling_id"])
        return r

    def _check_copies(self, seat: int | None, where: str, t: float, tiles: list[str]) -> None:
        """Flag a tile seen more often than a set has it (:mod:`referee.fifth_copy`), once a
        hand per tile, after ``where`` (e.g. "seat 2's discard") put ``tiles`` on the table."""
        hand = self.table.hand
        if hand is None or not any(over_four(hand.seen, x) for x in tiles):
            return
        rs = self.table.ruleset
        red = rs.red_fives if self.table.red_fives is None else self.table.red_fives
        for tile, n in too_many(hand.seen, tiles, red):
            if tile in hand.copies_flagged:
                continue
            hand.copies_flagged.add(tile)
            held = "one red" if tile[0] == "0" else f"{COPIES}"
            self._violation("procedure", seat, f"{n} copies of {tile} are on the table after "
                            f"{where}, and a set has {held}: a misread or a tile out of "
                            "place; the referee checks the tiles.", t, tile=tile)

    def _mark_dead(self, seat: int, ruling_id: str) -> None:
        """The seat's hand is dead because of ``ruling_id`` (an override of it lifts that)."""
        s = self.table.hand.seats[seat]
        s.dead_hand = True
        s.dead_reasons.append(ruling_id)

    def _close_due(self, t: float, strict: bool) -> None:
        """Pass every deadline before ``t`` (at or before it unless ``strict``) in time order:
        a claim window's end, the round's time-up moment; at the same moment the window
        first (a claim made by then was in time, in the hand being played)."""
        def due(d: float | None) -> bool:
            return d is not None and (d < t or (not strict and d <= t))
        while True:
            w = self.window
            window_end = w.deadline if w is not None else None
            time_up = self._clock_deadline()
            if due(window_end) and (not due(time_up) or window_end <= time_up):
                self._close_window(window_end)
            elif due(time_up):
                self._time_is_up(time_up)
            else:
                return

    # -- events -------------------------------------------------------------------------
    def _on_game_start(self, e: dict, t: float) -> None:
        name = self._forced_ruleset or e["ruleset"]
        ruleset = get_ruleset(name)
        if self.window is not None:
            self._close_window(t)
        self.table = Table(ruleset)
        self.table.t = t
        self.table.scores = list(e["scores"])
        self.table.names = list(e["names"]) if e.get("names") else None
        # extra keys a log may carry: a game without red fives, an east-only game
        if isinstance(e.get("red_fives"), bool):
            self.table.red_fives = e["red_fives"]
        if isinstance(e.get("open_tanyao"), bool):
            self.table.open_tanyao = e["open_tanyao"]
        if e.get("game_length") in ("east", "south"):
            self.table.game_length = e["game_length"]
        self._reset_hand_tracking()

    def _reset_hand_tracking(self) -> None:
        self.window = None
        self.last_closed = None
        self.pending_claim = None
        self.deferred_melds = []
        self.own_kan_press = None
        self.late_presses = set()
