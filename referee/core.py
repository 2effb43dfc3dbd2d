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
  extension, bust, the last dealer on top) or a referee's ``end_game``; riichi sticks still
  on the table go to first place where the ruleset says so. A ``game_start`` may carry
  ``red_fives``/``open_tanyao`` (false: the game is played without) and ``game_length``
  (``east``/``south``).
* ``referee`` ``penalty``: see :meth:`Referee._referee_penalty`; ``override`` lifts a dead
  hand the overridden violation caused and lists the id under ``overrides`` in the snapshot;
  ``undo`` voids the last non-referee event and rebuilds (:meth:`Referee._undo`).
"""
from __future__ import annotations

import math

from . import payments
from .claims import ClaimWindow, arbitrate
from .rulesets import get_ruleset
from .scoring import is_complete
from .table import Hand, Table
from .tiles import base, is_terminal_or_honor
from .violations import kuikae_kinds, meld_problem, violation
from .wins import judge, nagashi_seats, nine_terminals

_CALL_TO_MELD = {"chii": "chii", "pon": "pon", "kan": "daiminkan"}
_WINDS = ("1z", "2z", "3z", "4z")


class Referee:
    """Judges one table's events; see the module docstring for the contract."""

    def __init__(self, ruleset: str | None = None):
        if ruleset is not None:
            get_ruleset(ruleset)  # an unknown name fails here, before any event
        self._forced_ruleset = ruleset
        #: every event fed, in order (undo rebuilds from it); indexes in ``_voided`` are undone
        self._log: list[dict] = []
        self._voided: set[int] = set()
        self._next_id = 1
        self._rebuilding = False
        self._reset()

    # -- public API ---------------------------------------------------------------------
    def feed(self, event: dict) -> list[dict]:
        out: list[dict] = []
        self._out = out
        if not self._rebuilding:
            self._log.append(event)
        t = float(event["t"])
        self._close_due(t, strict=True)
        if t > self.table.t:
            self.table.t = t
        getattr(self, "_on_" + event["type"])(event, t)
        return out

    def advance(self, t: float) -> list[dict]:
        out: list[dict] = []
        self._out = out
        self._close_due(t, strict=False)
        return out

    def finish(self) -> list[dict]:
        out: list[dict] = []
        self._out = out
        w = self.window
        if w is not None:
            self._close_window(w.deadline if w.deadline is not None else self.table.t)
        return out

    def next_deadline(self) -> float | None:
        w = self.window
        return w.deadline if w is not None else None

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

    def _emit(self, ruling: dict, t: float) -> dict:
        ruling["t"] = t
        ruling["ruling_id"] = f"r{self._next_id}"
        self._next_id += 1
        self._out.append(ruling)
        return ruling

    def _violation(self, kind: str, seat: int | None, text: str, t: float, **extra) -> dict:
        r = self._emit(violation(self.table.ruleset, kind, seat, text, **extra), t)
        if r["penalty"] in ("dead_hand", "chombo") and seat is not None and self.table.hand:
            # a chombo ends the hand for the table (judged by the referee); until then the
            # offender's hand is as good as dead
            self._mark_dead(seat, r["ruling_id"])
        return r

    def _mark_dead(self, seat: int, ruling_id: str) -> None:
        """The seat's hand is dead because of ``ruling_id`` (an override of it lifts that)."""
        s = self.table.hand.seats[seat]
        s.dead_hand = True
        s.dead_reasons.append(ruling_id)

    def _close_due(self, t: float, strict: bool) -> None:
        w = self.window
        if w is not None and w.deadline is not None and (
                w.deadline < t or (not strict and w.deadline <= t)):
            self._close_window(w.deadline)

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

    def _on_hand_start(self, e: dict, t: float) -> None:
        table = self.table
        if self.window is not None:
            self._close_window(t)
        hand = table.hand
        if hand is not None and hand.exhaustive_pending:
            # no tenpai event came: everyone is taken as noten
            self._end_hand(t, "exhaustive", tenpai=[])
        self._settle_unrevealed(t)
        if table.first_dealer is None:
            table.first_dealer = e["dealer"]
        table.hand = Hand(e["round_wind"], e["dealer"], e["honba"], e["riichi_sticks"],
                          e["dora_indicators"])
        self._reset_hand_tracking()

    def _on_discard(self, e: dict, t: float) -> None:
        hand = self.table.hand
        seat_no = e["seat"]
        if hand is None:
            self._violation("procedure", seat_no, f"Seat {seat_no} discarded before the hand "
                            "started; the discard is not recorded.", t)
            return
        if self.window is not None:
            self._close_window(t)  # the table has moved on
        if hand.over:
            self._violation("procedure", seat_no, f"Seat {seat_no} discarded after the hand "
                            "ended; the discard is not recorded.", t)
            return
        tile = e["tile"]
        seat = hand.seats[seat_no]
        pc = self.pending_claim
        if hand.turn != seat_no:
            self._violation("procedure", seat_no, f"Seat {seat_no} discarded out of turn "
                            f"(it was seat {hand.turn}'s turn).", t)
            hand.turn = seat_no
        elif pc is not None and pc["seat"] == seat_no and not pc["meld_seen"]:
            self._violation("procedure", seat_no, f"Seat {seat_no} discarded before exposing "
                            f"the {pc['call']} it called; expose the meld first.", t)
        if self.own_kan_press == seat_no:
            self.own_kan_press = None
        if seat.kuikae:
            if base(tile) in seat.kuikae and self.table.ruleset.kuikae_forbidden:
                self._violation("kuikae", seat_no, f"Seat {seat_no} discarded {tile} right after "
                                f"calling {seat.kuikae[0]}: swap-calling is not allowed.", t,
                                tile=tile)
            seat.kuikae = ()
        elif pc is not None and pc["seat"] == seat_no and not pc["meld_seen"] \
                and pc["call"] in ("chii", "pon") and self.table.ruleset.kuikae_forbidden \
                and base(tile) == base(pc["tile"]):
            self._violation("kuikae", seat_no, f"Seat {seat_no} discarded {tile} right after "
                            f"calling it: swap-calling is not allowed.", t, tile=tile)
        riichi = bool(e.get("riichi"))
        if riichi:
            if seat.is_open:
                self._violation("riichi_open_hand", seat_no, f"Seat {seat_no} declared riichi "
                                "with an open hand; riichi needs a concealed hand.", t)
                riichi = False
            elif seat.riichi or seat.riichi_pending:
                riichi = False  # already in riichi: a sideways tile again is no new bet
        if seat.ippatsu:
            seat.ippatsu = False  # the riichi player's next discard ends ippatsu
        index = len(hand.discards)
        entry = seat.pond.add(tile, t, riichi, index)
        entry["seat"] = seat_no
        hand.discards.append(entry)
        hand.last_discard = entry
        if riichi:
            seat.riichi_pending = True
            seat.riichi_index = index
            seat.riichi_turn = seat.turns
            seat.double_riichi = seat.turns == 0 and hand.uninterrupted
        seat.turns += 1
        seat.called_this_turn = False
        seat.passed_since_turn = []
        for other in hand.seats:
            if other is not seat:
                other.passed_since_turn.append(tile)
                if other.riichi or other.riichi_pending:
                    other.passed_since_riichi.append(tile)
        hand.rinshan = None
        hand.turn = None  # nobody's turn until the window closes
        # a claim not taken before two discards by others is a false group
        if pc is not None and pc["seat"] != seat_no and not pc["meld_seen"]:
            pc["others"] += 1
            if pc["others"] >= 2:
                self.pending_claim = None
                self._violation("false_group", pc["seat"], f"Seat {pc['seat']} called "
                                f"{pc['call']} on {pc['tile']} but did not take it before the "
                                "next two discards: a false group, the hand is dead.", t)
        ruleset = self.table.ruleset
        if ("four_winds" in ruleset.abortive_draws and hand.uninterrupted and index == 3
                and tile in _WINDS and all(d["tile"] == tile for d in hand.discards)):
            hand.abort_check = "four_winds"
        kan_blocked = "kan_limit" if len(hand.kans) >= ruleset.kan_limit else None
        self._open_window(seat_no, tile, t, last_discard=hand.wall <= 0, discard_index=index,
                          kan_blocked=kan_blocked)

    def _open_window(self, seat_no: int, tile: str, t: float, **kind) -> None:
        """Open the claim window on ``tile`` at ``t`` with the ruleset's deadline (none when
        it has no timing rule); ``kind``: the :class:`ClaimWindow` flags."""
        cw = self.table.ruleset.claim_window
        self.window = ClaimWindow(seat_no, tile, t, round(t + cw, 6) if cw is not None else None,
                                  **kind)
        self.late_presses = set()

    def _on_call(self, e: dict, t: float) -> None:
        hand = self.table.hand
        seat_no, call = e["seat"], e["call"]
        if hand is None:
            return
        w = self.window
        if w is not None and w.chankan and seat_no == w.discard_seat and call in ("kan", "ron"):
            # the kan's owner goes on with its turn (rinshan tsumo, another kan): the window
            # on its kan tile is decided now with the rons already standing
            self._close_window(t)
            w = self.window
            if hand.over:
                return
        if w is not None:
            if hand.seats[seat_no].dead_hand and seat_no != w.discard_seat:
                if not any(i["seat"] == seat_no for i in w.ignored):
                    w.ignored.append({"seat": seat_no, "call": call, "reason": "dead_hand"})
                return
            reason = w.press(seat_no, call, t)
            if reason is None:
                if w.settled(self.table.ruleset.multiple_ron):
                    self._close_window(t)
            elif reason == "wrong_seat":
                self._violation("wrong_seat_call", seat_no, f"Seat {seat_no} called chii on "
                                f"seat {w.discard_seat}'s discard; chii only from the player "
                                "on the left.", t)
            elif reason == "last_discard":
                if call == "kan":
                    self._violation("illegal_kan", seat_no, f"Seat {seat_no} called kan on the "
                                    "last discard; the last tile can only be claimed for a "
                                    "win.", t)
                else:
                    self._violation("last_discard_call", seat_no, f"Seat {seat_no} called "
                                    f"{call} on the last discard; the last tile can only be "
                                    "claimed for a win.", t)
            elif reason == "kan_limit":
                self._violation("fifth_kan", seat_no, f"Seat {seat_no} called a fifth kan; "
                                "no more kans are allowed in this hand.", t)
            return
        if hand.over:
            self._press_after_early_win(seat_no, call, t)
            return
        if seat_no == hand.turn:
            if call == "ron":
                self._declare_win(seat_no, None, None, t)
                return
            if call == "kan":
                self._check_own_kan(seat_no, t)
                self.own_kan_press = seat_no
                return
        # a press with no window open, not an own-turn call: too late for the last discard
        last = self.last_closed
        if last is None or (seat_no, call) in self.late_presses:
            return
        self.late_presses.add((seat_no, call))
        if seat_no == last.discard_seat:
            ignored = [{"seat": seat_no, "call": call, "reason": "own_discard"}]
            self._emit({"type": "claim", "discard_seat": last.discard_seat, "tile": last.tile,
                        "winners": [], "rejected": [], "window": round(t - last.opened, 3),
                        "ignored": ignored}, t)
            return
        self._emit({"type": "claim", "discard_seat": last.discard_seat, "tile": last.tile,
                    "winners": [], "rejected": [{"seat": seat_no, "call": call,
                                                 "reason": "late"}],
                    "window": round(t - last.opened, 3)}, t)

    def _press_after_early_win(self, seat_no: int, call: str, t: float) -> None:
        """A press inside a window that was decided early for a win: it lost to that win, and
        the referee sees it (once) as rejected rather than lost without a word."""
        last = self.last_closed
        if last is None or last.deadline is None or t > last.deadline \
                or seat_no == last.discard_seat or (seat_no, call) in self.late_presses:
            return
        self.late_presses.add((seat_no, call))
        reason = "head_bump" if call == "ron" else "precedence"
        self._emit({"type": "claim", "discard_seat": last.discard_seat, "tile": last.tile,
                    "winners": [], "rejected": [{"seat": seat_no, "call": call,
                                                 "reason": reason}],
                    "window": round(t - last.opened, 3)}, t)

    def _check_own_kan(self, seat_no: int, t: float) -> bool:
        """Flag a closed or added kan that the rules forbid now; True when it is legal."""
        hand = self.table.hand
        ruleset = self.table.ruleset
        if len(hand.kans) >= ruleset.kan_limit:
            self._violation("fifth_kan", seat_no, f"Seat {seat_no} declared a kan after the "
                            f"{ruleset.kan_limit}th; no more kans are allowed in this hand.", t)
            return False
        if hand.wall <= 0:
            self._violation("illegal_kan", seat_no, f"Seat {seat_no} declared a kan on the "
                            "last tile; there is no replacement tile left.", t)
            return False
        if hand.seats[seat_no].called_this_turn:
            self._violation("illegal_kan", seat_no, f"Seat {seat_no} declared a kan in the "
                            "turn it called chii or pon; a kan needs a tile drawn from the "
                            "wall.", t)
            return False
        return True

    def _on_meld(self, e: dict, t: float) -> None:
        hand = self.table.hand
        if hand is None:
            self._violation("procedure", e["seat"], f"Seat {e['seat']} exposed a meld before "
                            "the hand started.", t)
            return
        w = self.window
        if w is not None and e["kind"] in ("ankan", "shouminkan") and w.deadline is None \
                and not w.chankan:
            # no timing rule: a closed or added kan shows that the next player drew, so the
            # discard's window is over and a kan press by this seat was for its own turn
            if self._own_turn_press(w, e["seat"], "kan"):
                self.own_kan_press = e["seat"]
            else:
                self._close_window(t)
            w = self.window
        if w is not None:
            self.deferred_melds.append(e)
            return
        self._judge_meld(e, t)

    def _own_turn_press(self, w: ClaimWindow, seat_no: int, call: str) -> bool:
        """In a window with no deadline, take back ``seat_no``'s ``call`` press as an own-turn
        call: close the window at the press (without it) and give the seat its turn."""
        press = next((p for p in w.presses if p["seat"] == seat_no and p["call"] == call), None)
        if press is None or (seat_no - w.discard_seat) % 4 != 1:
            return False
        w.presses.remove(press)
        self._close_window(press["t"])
        return self.table.hand is not None and self.table.hand.turn == seat_no

    def _judge_meld(self, e: dict, t: float) -> None:
        hand = self.table.hand
        seat_no, kind, tiles = e["seat"], e["kind"], list(e["tiles"])
        seat = hand.seats[seat_no]
        ruleset = self.table.ruleset
        if kind in ("chii", "pon", "daiminkan"):
            pc = self.pending_claim
            if pc is None or pc["seat"] != seat_no:
                if any(s == seat_no for s, _ in self.late_presses):
                    self._violation("late_call", seat_no, f"Seat {seat_no} exposed a {kind} on "
                                    "a call made after the claim window; the call does not "
                                    "stand.", t)
                else:
                    self._violation("procedure", seat_no, f"Seat {seat_no} exposed a {kind} "
                                    "with no claim awarded; call with the button first.", t)
                seat.melds.append({"kind": kind, "tiles": tiles, "called": e.get("called"),
                                   "from": e.get("from")})
                return
            self.pending_claim = None
            pc["meld_seen"] = True
            expected = _CALL_TO_MELD[pc["call"]]
            problem = None
            if kind != expected:
                problem = f"exposed a {kind} after calling {pc['call']}"
            else:
                why = meld_problem(kind, tiles)
                if why:
                    problem = f"exposed {' '.join(tiles)}: {why}"
                elif pc["tile"] not in tiles or (e.get("called") is not None
                                                 and e["called"] != pc["tile"]):
                    problem = f"exposed a {kind} without the called tile {pc['tile']}"
            meld = {"kind": kind, "tiles": tiles, "called": pc["tile"], "from": pc["from"]}
            seat.melds.append(meld)
            if problem:
                self._violation("false_group", seat_no, f"Seat {seat_no} {problem}: a false "
                                "group, the hand is dead.", t)
                return
            if kind in ("chii", "pon") and ruleset.kuikae_forbidden:
                seat.kuikae = kuikae_kinds(kind, tiles, pc["tile"])
            return
        # closed or added kan on the seat's own turn
        pressed = self.own_kan_press == seat_no
        self.own_kan_press = None
        if not pressed:
            self._violation("procedure", seat_no, f"Seat {seat_no} exposed a {kind} without "
                            "declaring kan with the button first.", t)
            if hand.turn == seat_no:
                self._check_own_kan(seat_no, t)
        why = meld_problem(kind, tiles)
        added = None
        meld = {"kind": kind, "tiles": tiles, "called": None, "from": None}
        if kind == "shouminkan":
            pon = next((m for m in seat.melds if m["kind"] == "pon" and tiles
                        and base(m["tiles"][0]) == base(tiles[0])), None)
            if pon is None and not why:
                why = "there is no pon of that tile to add to"
            if pon is not None:
                rest = list(tiles)
                for x in pon["tiles"]:
                    if x in rest:
                        rest.remove(x)
                added = rest[0] if rest else tiles[-1]
                meld.update(called=pon["called"], added=added)
                meld["from"] = pon["from"]
                seat.melds[seat.melds.index(pon)] = meld
            else:
                seat.melds.append(meld)
        else:
            seat.melds.append(meld)
        if why:
            self._violation("false_group", seat_no, f"Seat {seat_no} exposed a {kind} "
                            f"{' '.join(tiles)}: {why}; a false group, the hand is dead.", t)
        self._record_kan(seat_no, kind, tiles[0] if tiles else None,
                         stands=not (kind == "shouminkan" and added is not None))
        if kind == "shouminkan" and added is not None:
            self._open_chankan(seat_no, added, t, ankan=False)
        elif kind == "ankan" and ruleset.ankan_chankan_kokushi and tiles \
                and is_terminal_or_honor(tiles[0]):
            self._open_chankan(seat_no, tiles[0], t, ankan=True)

    def _record_kan(self, seat_no: int, kind: str, tile: str | None, stands: bool = True) -> None:
        hand = self.table.hand
        hand.kans.append({"seat": seat_no, "kind": kind, "tile": tile})
        hand.wall = max(0, hand.wall - 1)  # the dead wall is replenished from the live wall
        hand.rinshan = seat_no
        hand.turn = seat_no
        if stands:
            # an added kan stands only once its chankan window passes: a robbing ron still
            # has its ippatsu (see _close_window)
            self._break_first_turn()
        if (len(hand.kans) == 4 and "four_kans" in self.table.ruleset.abortive_draws
                and len({k["seat"] for k in hand.kans}) > 1):
            hand.abort_check = "four_kans"

    def _break_first_turn(self) -> None:
        hand = self.table.hand
        hand.uninterrupted = False
        for s in hand.seats:
            s.ippatsu = False

    def _open_chankan(self, seat_no: int, tile: str, t: float, ankan: bool) -> None:
        hand = self.table.hand
        hand.chankan_tile = tile
        for other in hand.seats:
            if other.seat != seat_no:
                other.passed_since_turn.append(tile)
                if other.riichi:
                    other.passed_since_riichi.append(tile)
        self._open_window(seat_no, tile, t, chankan=True, ankan=ankan)

    def _on_dora(self, e: dict, t: float) -> None:
        hand = self.table.hand
        if hand is None:
            return
        hand.dora_indicators.append(e["indicator"])

    def _on_reveal(self, e: dict, t: float) -> None:
        w = self.window
        if w is not None and w.deadline is None and not w.chankan \
                and e["win_tile"] != w.tile and self._own_turn_press(w, e["seat"], "ron"):
            # no timing rule: a win on another tile than the open discard was a tsumo
            self._declare_win(e["seat"], None, None, t)
        if self.window is not None:
            self._close_window(t)
        if self.table.hand is None:
            return
        self._judge_reveal(e, t)

    def _on_tenpai(self, e: dict, t: float) -> None:
        if self.window is not None:
            self._close_window(t)
        hand = self.table.hand
        if hand is None:
            return
        if hand.exhaustive_pending:
            self._end_hand(t, "exhaustive", tenpai=sorted(set(e["seats"])))
        elif not hand.over:
            self._violation("procedure", None, f"Tenpai was shown with {hand.wall} tiles still "
                            "in the wall; the hand is ended as an exhaustive draw.", t)
            self._end_hand(t, "exhaustive", tenpai=sorted(set(e["seats"])))

    def _on_referee(self, e: dict, t: float) -> None:
        action = e["action"]
        if action == "note":
            return
        if action == "override":
            rid = e.get("ruling_id")
            if rid is None:
                return
            rid = str(rid)
            self.table.overrides[rid] = {"t": t, "text": e["text"]}
            hand = self.table.hand
            if hand is not None:
                for s in hand.seats:
                    if rid in s.dead_reasons:
                        s.dead_reasons.remove(rid)
                        s.dead_hand = bool(s.dead_reasons)
            return
        if action == "penalty":
            self._referee_penalty(e, t)
            return
        if action == "undo":
            self._undo(t)
            return
        if action == "end_game":
            if self.window is not None:
                self._close_window(t)
            hand = self.table.hand
            if hand is not None and hand.exhaustive_pending:
                self._end_hand(t, "exhaustive", tenpai=[])
            self._settle_unrevealed(t)
            self._end_game(t)

    def _referee_penalty(self, e: dict, t: float) -> None:
        """A penalty entered by the referee.

        ``kind``: the event's extra key ``kind`` when it is a violation kind, else the first
        violation kind the text names (``false group`` or ``false_group``...), else
        ``procedure``. ``penalty``: the extra key ``penalty``, else the first penalty the text
        names (``chombo``, ``dead hand``, ``warning``), else ``warning``. ``seat``: the extra
        key ``seat`` when it is 0-3, else null.

        A chombo given during a hand ends it as the core's own chombos do (``abortive``,
        reason ``chombo``): the ruleset's chombo is paid and the hand's riichi bets go back. The
        referee has judged, so the table is not left waiting for a hand that cannot go on.
        """
        from .events import PENALTIES, VIOLATION_KINDS
        text = e["text"]
        low = text.lower().replace("-", " ")
        kind = e.get("kind") if e.get("kind") in VIOLATION_KINDS else None
        if kind is None:
            kind = next((k for k in VIOLATION_KINDS if k != "procedure"
                         and (k in low or k.replace("_", " ") in low)), "procedure")
        penalty = e.get("penalty") if e.get("penalty") in PENALTIES else None
        if penalty is None:
            penalty = next((p for p in ("chombo", "dead_hand", "warning")
                            if p in low or p.replace("_", " ") in low), "warning")
        seat = e.get("seat")
        if not (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat <= 3):
            seat = None
        r = self._emit({"type": "violation", "seat": seat, "kind": kind, "penalty": penalty,
                        "rule": "referee decision", "text": text, "by_referee": True}, t)
        hand = self.table.hand
        if penalty in ("dead_hand", "chombo") and seat is not None and hand is not None:
            self._mark_dead(seat, r["ruling_id"])
        if penalty == "chombo" and seat is not None and hand is not None and hand.result is None:
            if self.window is not None:
                self._close_window(t)
            self._charge_chombo(seat)
            self._end_hand(t, "abortive", reason="chombo")

    def _undo(self, t: float) -> None:
        """Void the last table event not yet voided and rebuild the state without it.

        Rulings are not emitted again; ids keep counting from where they were, so a ruling
        made after the undo never reuses an id.
        """
        undo_index = len(self._log) - 1
        target = next((i for i in range(undo_index - 1, -1, -1)
                       if self._log[i]["type"] != "referee" and i not in self._voided), None)
        if target is None:
            return
        self._voided.add(target)
        saved_id, saved_out = self._next_id, self._out
        overrides = dict(self.table.overrides)
        self._rebuilding = True
        try:
            self._reset()
            self._next_id = 1
            for i, ev in enumerate(self._log[:undo_index]):
                if i in self._voided or (ev["type"] == "referee" and ev["action"] == "undo"):
                    continue
                self.feed(ev)
        finally:
            self._rebuilding = False
            self._next_id = max(saved_id, self._next_id)
            self._out = saved_out
        self.table.overrides.update(overrides)
        if t > self.table.t:
            self.table.t = t

    # -- windows ------------------------------------------------------------------------
    def _close_window(self, t: float) -> None:
        w = self.window
        if w is None:
            return
        self.window = None
        w.closed = True
        self.last_closed = w
        hand = self.table.hand
        ruleset = self.table.ruleset
        winners, rejected, triple = arbitrate(w, ruleset.multiple_ron)
        if w.received_call:
            ruling = {"type": "claim", "discard_seat": w.discard_seat, "tile": w.tile,
                      "winners": winners, "rejected": rejected,
                      "window": round(t - w.opened, 3)}
            if w.ignored:
                ruling["ignored"] = w.ignored
            if w.chankan:
                ruling["chankan"] = True
            self._emit(ruling, t)
        discarder = hand.seats[w.discard_seat]
        if triple:
            discarder.riichi_pending = False
            self._end_hand(t, "abortive", reason="triple_ron")
            return
        if winners and winners[0]["call"] == "ron":
            discarder.riichi_pending = False  # a riichi discard that deals in is no bet
            for win in winners:
                self._declare_win(win["seat"], w.discard_seat, w.tile, t, chankan=w.chankan,
                                  ankan=w.ankan)
            self._judge_deferred(t)
            return
        if w.chankan:
            hand.chankan_tile = None
            hand.turn = w.discard_seat
            self._break_first_turn()
            self._judge_deferred(t)
            return
        if discarder.riichi_pending:
            self._accept_riichi(discarder)
        if hand.abort_check is None and len(hand.riichi_seats) == 4 \
                and "four_riichi" in ruleset.abortive_draws:
            hand.abort_check = "four_riichi"
        if hand.abort_check is not None:
            reason, hand.abort_check = hand.abort_check, None
            self._end_hand(t, "abortive", reason=reason)
            return
        if winners:
            win = winners[0]
            caller = win["seat"]
            entry = hand.last_discard
            if entry is not None and entry["index"] == w.discard_index:
                entry["called"] = True
            self._break_first_turn()
            self.pending_claim = {"seat": caller, "call": win["call"], "tile": w.tile,
                                  "from": w.discard_seat, "others": 0, "meld_seen": False,
                                  "t": t}
            hand.turn = caller
            hand.seats[caller].called_this_turn = win["call"] in ("chii", "pon")
            if win["call"] == "kan":
                self._record_kan(caller, "daiminkan", w.tile)
        elif w.last_discard:
            hand.exhaustive_pending = True
            hand.over = True
            hand.turn = None
        else:
            hand.turn = (w.discard_seat + 1) % 4
            hand.wall -= 1  # the next player draws
        self._judge_deferred(t)

    def _judge_deferred(self, t: float) -> None:
        while self.deferred_melds and self.window is None:
            self._judge_meld(self.deferred_melds.pop(0), t)

    def _accept_riichi(self, seat) -> None:
        hand = self.table.hand
        seat.riichi_pending = False
        seat.riichi = True
        seat.ippatsu = True
        hand.riichi_sticks += 1
        hand.riichi_seats.append(seat.seat)
        self.table.scores[seat.seat] -= 1000

    # -- wins, hand end and game end ---------------------------------------------------
    def _declare_win(self, seat: int, from_seat: int | None, tile: str | None, t: float,
                     chankan: bool = False, ankan: bool = False) -> None:
        """A win was called (ron awarded, or tsumo pressed). Play stops; the win is judged
        when the hand is revealed (:meth:`_judge_reveal`), from the state kept here."""
        hand = self.table.hand
        s = hand.seats[seat]
        hand.declared_wins.append({
            "seat": seat, "from": from_seat, "tile": tile, "t": t, "chankan": chankan,
            "ankan": ankan,
            "rinshan": from_seat is None and hand.rinshan == seat,
            "haitei": hand.wall <= 0,
            "first_turn": hand.uninterrupted and s.turns == 0,
            "ippatsu": s.ippatsu,
            "judged": False,
        })
        hand.over = True
        hand.turn = None

    def _judge_reveal(self, e: dict, t: float) -> None:
        """Judge a revealed hand (:mod:`referee.wins`): a ``win`` ruling with its payments, or
        ``false_win``/``furiten_ron``/``no_yaku`` with the ruleset's penalty. The hand ends
        once every declared win is judged.

        A reveal with no win called: on the seat's first turn, before any call, with nine or
        more kinds of terminals and honours and no winning hand, it is kyuushu kyuuhai (an
        abortive ``nine_terminals`` where the ruleset has it); on the seat's own turn
        otherwise it is taken as a tsumo (``procedure``: press the button first); any other
        time it is a hand laid open without a win (``false_win``)."""
        hand = self.table.hand
        seat_no = e["seat"]
        win = next((w for w in hand.declared_wins
                    if w["seat"] == seat_no and not w["judged"]), None)
        if win is None:
            if hand.result is not None or hand.over:
                self._violation("procedure", seat_no, f"Seat {seat_no} laid its hand open with "
                                "no win of its own to judge; nothing changes.", t)
                return
            ruleset = self.table.ruleset
            seat = hand.seats[seat_no]
            own_turn = hand.turn == seat_no
            if own_turn and "nine_terminals" in ruleset.abortive_draws and hand.uninterrupted \
                    and seat.turns == 0 and nine_terminals(e["tiles"]) \
                    and not is_complete(e["tiles"], seat.melds):
                self._end_hand(t, "abortive", reason="nine_terminals", seat=seat_no)
                return
            if own_turn:
                self._violation("procedure", seat_no, f"Seat {seat_no} showed a winning hand "
                                "without pressing the button; taken as a tsumo.", t)
                self._declare_win(seat_no, None, None, t)
                win = hand.declared_wins[-1]
            else:
                self._chombo("false_win", seat_no, f"Seat {seat_no} laid its hand open with "
                             "no win called: a false win.", t)
                self._finish_reveals(t)
                return
        win["judged"] = True
        ruleset = self.table.ruleset
        j = judge(hand, seat_no, win, e, ruleset.scoring_options(self.table.red_fives,
                                                              self.table.open_tanyao),
                  pao=ruleset.pao)
        if j.kind == "unscored":
            self._violation("procedure", seat_no, j.text, t)
        elif j.score is None:
            self._chombo(j.kind, seat_no, j.text, t)
        else:
            self._pay_win(seat_no, win, j, t)
        self._finish_reveals(t)

    def _pay_win(self, seat_no: int, win: dict, j, t: float) -> None:
        hand = self.table.hand
        ruleset = self.table.ruleset
        ws = j.score
        honba, sticks = hand.honba, hand.riichi_sticks
        from_seat = win["from"]
        if from_seat is None:
            if j.liable is not None:
                d = payments.pao_tsumo(seat_no, j.liable, ws.points, honba, sticks)
            else:
                d = payments.tsumo(seat_no, hand.dealer, ws.dealer_payment,
                                   ws.non_dealer_payment, honba, sticks)
        else:
            rons = [w["seat"] for w in hand.declared_wins if w["from"] == from_seat]
            nearest = payments.nearest_first(from_seat, rons)[0] == seat_no
            h = honba if nearest or ruleset.multiple_ron_honba == "each" else 0
            st = sticks if nearest else 0
            if j.liable is not None:
                d = payments.pao_ron(seat_no, from_seat, j.liable, ws.points, h, st)
            else:
                d = payments.ron(seat_no, from_seat, ws.points, h, st)
        ruling = {"type": "win", "seat": seat_no, "from": from_seat, "han": ws.han,
                  "fu": ws.fu, "yaku": ws.yaku_names, "points": ws.points, "payments": d,
                  "yaku_han": [[name, han] for name, han in ws.yaku if han],
                  "limit": ws.limit, "yakuman": ws.yakuman}
        if j.liable is not None:
            ruling["liable"] = j.liable
        self._emit(ruling, t)
        hand.wins_judged.append(ruling)
        hand.win_changes = payments.add(hand.win_changes, d)

    def _chombo(self, kind: str, seat_no: int, text: str, t: float) -> None:
        r = self._violation(kind, seat_no, text, t)
        if r["penalty"] == "chombo":
            self._charge_chombo(seat_no)

    def _charge_chombo(self, seat_no: int) -> None:
        """Add the ruleset's chombo payment for ``seat_no`` to the hand's score changes."""
        hand = self.table.hand
        rs = self.table.ruleset
        hand.chombos.append(seat_no)
        hand.win_changes = payments.add(hand.win_changes, payments.chombo(
            seat_no, hand.dealer, rs.chombo_style, rs.chombo_amount))

    def _finish_reveals(self, t: float) -> None:
        """End the hand once every declared win has been judged."""
        hand = self.table.hand
        if hand.result is not None or any(not w["judged"] for w in hand.declared_wins):
            return
        if hand.wins_judged:
            self._end_hand(t, "tsumo" if hand.wins_judged[0]["from"] is None else "ron")
        elif hand.chombos:
            self._end_hand(t, "abortive", reason="chombo")
        else:
            self._end_hand(t, "abortive", reason="unjudged_win")

    def _settle_unrevealed(self, t: float) -> None:
        """Before the table moves on: wins called and never shown are not counted."""
        hand = self.table.hand
        if hand is None or hand.result is not None:
            return
        pending = [w for w in hand.declared_wins if not w["judged"]]
        if not pending:
            return
        for w in pending:
            w["judged"] = True
            self._violation("procedure", w["seat"], f"Seat {w['seat']} called a win but did "
                            "not show its hand; the win is not counted.", t)
        self._finish_reveals(t)

    def _settle(self, result: str, reason: str | None, extra: dict) -> list[int]:
        """Score changes for a hand that ended (riichi sticks taken when accepted)."""
        hand = self.table.hand
        if hand is None:
            return [0, 0, 0, 0]
        ruleset = self.table.ruleset
        if result in ("ron", "tsumo"):
            hand.sticks_after = 0
            return list(hand.win_changes)
        if reason == "chombo":
            changes = list(hand.win_changes)
            for s in hand.riichi_seats:  # the hand is replayed: its riichi bets go back
                changes[s] += payments.STICK
            hand.sticks_after = hand.riichi_sticks - len(hand.riichi_seats)
            return changes
        hand.sticks_after = hand.riichi_sticks
        if result == "exhaustive":
            nagashi = nagashi_seats(hand) if ruleset.nagashi_mangan else []
            if nagashi:
                extra["nagashi"] = nagashi
                return payments.nagashi_mangan(nagashi, hand.dealer)
            return payments.exhaustive_draw(extra.get("tenpai") or [], ruleset.noten_total)
        return [0, 0, 0, 0]

    def _next_hand(self, result: str, reason: str | None, extra: dict) -> tuple[int, int, bool]:
        """Dealer and honba of the next hand, and whether the dealer keeps the deal."""
        hand = self.table.hand
        dealer, honba = hand.dealer, hand.honba
        if result in ("ron", "tsumo"):
            won = any(w["seat"] == dealer for w in hand.wins_judged)
            nd, nh = payments.next_hand(dealer, honba, result, dealer_won=won)
        elif reason == "chombo":
            nd, nh = payments.next_hand(dealer, honba, "chombo",
                                        chombo_repeats=self.table.ruleset.chombo_repeats)
        elif result == "exhaustive":
            nd, nh = payments.next_hand(dealer, honba, result,
                                        dealer_tenpai=dealer in (extra.get("tenpai") or []))
        else:
            nd, nh = payments.next_hand(dealer, honba, "abortive")
        return nd, nh, nd == dealer

    def _end_hand(self, t: float, result: str, reason: str | None = None, **extra) -> None:
        hand = self.table.hand
        changes = self._settle(result, reason, extra)
        if reason is None and extra.get("nagashi"):
            reason = "nagashi_mangan"
        for i, c in enumerate(changes):
            self.table.scores[i] += c
        ruling = {"type": "hand_end", "result": result}
        if reason is not None:
            ruling["reason"] = reason
        ruling["scores"] = list(self.table.scores)
        ruling.update(extra)
        ruling["changes"] = list(changes)
        kept = False
        if hand is not None:
            nd, nh, kept = self._next_hand(result, reason, extra)
            ruling["next"] = {"dealer": nd, "honba": nh, "riichi_sticks": hand.sticks_after}
        self._emit(ruling, t)
        if hand is not None:
            hand.over = True
            hand.exhaustive_pending = False
            hand.turn = None
            hand.result = ruling
            if not self.table.game_over and self._game_over_after(hand, result, kept):
                self._end_game(t)

    def _game_over_after(self, hand: Hand, result: str, dealer_kept: bool) -> bool:
        table = self.table
        rs = table.ruleset
        first = table.first_dealer or 0
        wind = "ESWN".index(hand.round_wind) if hand.round_wind in "ESWN" else 0
        round_index = wind * 4 + (hand.dealer - first) % 4
        return payments.game_over(
            round_index, hand.dealer, table.scores, dealer_kept,
            result="abortive" if result not in ("ron", "tsumo", "exhaustive") else result,
            length=table.game_length or rs.game_length, target=rs.target_score,
            extension=rs.extension, bust_below_zero=rs.bust_below_zero,
            dealer_stops_when_top=rs.dealer_stops_when_top)

    def _end_game(self, t: float) -> None:
        table = self.table
        if table.game_over:
            return
        table.game_over = True
        first = table.first_dealer or 0
        sticks = table.sticks_on_table() if table.ruleset.leftover_sticks == "first" else 0
        table.scores = payments.final_scores(table.scores, sticks, first)
        if table.hand is not None:
            table.hand.sticks_after = 0
        self._emit({"type": "game_end", "scores": list(table.scores),
                    "final": final_points(table.scores, table.ruleset, first)}, t)


def final_points(scores: list[int], ruleset, first_dealer: int = 0) -> list[float]:
    """Match points after uma and oka: (score - return) / 1000 + uma by rank, the oka
    ((return - start) x 4) to first place. Ties share the tied ranks' uma and oka under
    ``split``; under ``seat_order`` the seat nearer the first dealer ranks higher."""
    order = sorted(range(4), key=lambda s: (-scores[s], (s - first_dealer) % 4))
    bonus = list(ruleset.uma)
    bonus[0] += (ruleset.return_score - ruleset.start_score) * 4 / 1000
    per_seat = [0.0] * 4
    if ruleset.uma_ties == "split":
        i = 0
        while i < 4:
            j = i
            while j + 1 < 4 and scores[order[j + 1]] == scores[order[i]]:
                j += 1
            share = sum(bonus[i:j + 1]) / (j - i + 1)
            for k in range(i, j + 1):
                per_seat[order[k]] = share
            i = j + 1
    else:
        for rank, s in enumerate(order):
            per_seat[s] = bonus[rank]
    if ruleset.final_rounding == "tenhou":
        ret = ruleset.return_score // 1000
        out = [0.0] * 4
        for s in order[1:]:
            out[s] = float(math.floor(scores[s] / 1000 + 0.5) - ret + per_seat[s])
        out[order[0]] = -sum(out[s] for s in order[1:])
        return [round(x, 1) + 0.0 for x in out]
    return [round((scores[s] - ruleset.return_score) / 1000 + per_seat[s], 1) for s in range(4)]
