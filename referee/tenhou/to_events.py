"""A logged game played out: the table events a camera and seat buttons would have produced,
and the results a replay of those events must reproduce.

:func:`game_events` walks each :class:`~referee.tenhou.records.LoggedHand` action by action:
it emits what is visible at the table (discards with riichi turned sideways, call presses
inside the claim window, melds with their called tile and source, dora flips, reveals at wins,
tenpai at exhaustive draws; never a concealed hand or a draw) and, following the concealed
hands, works out each win's hand and situation, so that every
:class:`~referee.tenhou.records.ExpectedHand` can be scored independently of the log's figures.

Event timing (seconds on the table clock, deterministic, non-decreasing):

* ``game_start`` at 0; each ``hand_start`` 10 s after the previous hand's last event.
* The dealer's first discard 2 s after ``hand_start``; a discard nobody calls is followed by
  the next discard 1-2 s later.
* A called discard: the ``call`` press(es) 0.3-1.5 s after it (both, for a double ron), then
  the ``meld`` 3.3 s after the discard (the window has closed) and the caller's discard 1 s
  after that; a ron's ``reveal`` 3.3 s after the discard (a second winner's 0.1 s later).
* Own-turn calls (tsumo: ``ron`` pressed by the seat whose turn it is; closed or added kan:
  ``kan``) at least 3.5 s after the previous discard, the ``meld`` or ``reveal`` 0.5 s after the
  press. An added kan opens a 3.2 s chankan window: a robbing ron's press lands inside it and
  its reveal 3.3 s after the meld; otherwise the kan owner acts 4 s after the meld.
* ``dora``: a closed kan's indicator 0.2 s after its meld; an open or added kan's just after its
  owner's next discard (0.1 s), or, when the owner declares another kan first, 3.3 s after that
  kan's meld (Tenhou flips it once the new kan stands). A rinshan win after an open kan flips
  nothing.
* ``tenpai`` 3.5 s after the last discard of an exhaustive draw. Nine terminals: the declaring
  seat's ``reveal`` (its fourteen tiles, the tile just drawn as ``win_tile``) on its own turn,
  no button pressed. The other abortive draws add nothing (the core sees them in the
  discards, kans and presses).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import fields

from .. import tiles as T
from ..scoring import Situation, is_complete, is_tenpai
from .records import (WINDS, ExpectedHand, ExpectedWin, LogError, LoggedEnd, LoggedGame,
                      LoggedHand, LoggedWin, WinFigures)

LIVE_WALL = 70  # 136 tiles - 52 dealt - 14 dead wall: draws a hand can have, rinshan included


def game_events(game: LoggedGame) -> tuple[list[dict], list[ExpectedHand]]:
    """The game's table events (``game_start`` first, then every hand's), and what each hand
    must come to. Raises LogError, naming the hand, where the play does not add up."""
    if not game.hands:
        raise LogError("no hands in the log")
    events: list[dict] = []
    start = {"type": "game_start", "t": 0.0, "ruleset": "tenhou",
             "scores": list(game.hands[0].scores)}
    if any(game.names):
        start["names"] = game.names
    if not game.red_fives:
        start["red_fives"] = False
    if not game.open_tanyao:
        start["open_tanyao"] = False
    if game.game_length:
        start["game_length"] = game.game_length
    events.append(start)
    clock = _Clock()
    expected = []
    for i, hand in enumerate(game.hands):
        try:
            expected.append(_Replay(hand, events, clock, i).run())
        except LogError as exc:
            raise LogError(f"hand {hand.label}: {exc}") from None
    return events, expected


class _Clock:
    """Milliseconds on the table clock; event times are derived, never random."""

    def __init__(self) -> None:
        self.ms = 0

    def at(self, ms: int) -> int:
        self.ms = max(self.ms, ms)
        return self.ms


def _sec(ms: int) -> float:
    return round(ms / 1000.0, 3)


class _Replay:
    """Walks one hand's actions: emits events with their times, tracks what a win needs."""

    def __init__(self, hand: LoggedHand, events: list[dict], clock: _Clock, index: int):
        self.hand = hand
        self.events = events
        self.clock = clock
        self.index = index
        self.concealed: list[list[str]] = [list(h) for h in hand.haipai]
        self.melds: list[list[dict]] = [[], [], [], []]
        self.discards: list[list[str]] = [[], [], [], []]
        self.riichi = [False] * 4
        self.double_riichi = [False] * 4
        self.ippatsu = [False] * 4
        self.riichi_paid = 0
        self.any_meld = False
        self.draws = 0
        self.last_draw: list[tuple[str, bool] | None] = [None] * 4  # (tile, rinshan)
        self.dora = [hand.dora]
        self.window_ms: int | None = None   # when the last discard (or added kan) was seen
        self.last_discard: tuple[int, str] | None = None
        self.kakan_open = False   # an added kan that a ron may still rob
        self.hold_dora: list[str] = []
        self.prev: str = "start"   # the last thing seen: start/discard/meld/ankan/shouminkan
        self.after_draw = False    # a draw (unseen) came after self.prev
        self.start_ms = 0
        self.kakan_done_ms: int | None = None
        self.last_meld_ms = 0
        self.drawer: int | None = None   # who drew last

    # -- emitting
    def emit(self, ms: int, record: dict) -> None:
        t = self.clock.at(ms)
        self.events.append({"type": record.pop("type"), "t": _sec(t), **record})

    def n(self) -> int:
        return len(self.events)

    def gap(self) -> int:
        """1.0-2.0 s between two uncalled discards, varied by the event count."""
        return 1000 + (self.n() * 37 % 11) * 100

    def press_delay(self) -> int:
        """0.3-1.5 s from a discard to a call press, varied by the event count."""
        return 300 + (self.n() * 29 % 13) * 100

    def own_turn_ms(self) -> int:
        """Earliest time for an own-turn call: after the last window has closed."""
        base = self.clock.ms + 1000
        if self.window_ms is not None:
            base = max(base, self.window_ms + 3500)
        else:
            base = max(base, self.start_ms + 2000)
        return base

    # -- the hand
    def run(self) -> ExpectedHand:
        h = self.hand
        self.start_ms = self.clock.at(self.clock.ms + (10000 if self.index else 1000))
        self.events.append({"type": "hand_start", "t": _sec(self.start_ms),
                            "round_wind": h.round_wind, "dealer": h.dealer,
                            "honba": h.honba, "riichi_sticks": h.sticks,
                            "dora_indicators": [h.dora]})
        for act in h.actions:
            getattr(self, "_" + act[0])(*act[1:])
        if h.end is None:
            raise LogError("the hand has no result")
        return self._end(h.end)

    def _draw(self, seat: int, tile: str, rinshan: bool) -> None:
        self._settle_kakan()
        self.after_draw = True
        self.draws += 1
        self.concealed[seat].append(tile)
        self.last_draw[seat] = (tile, rinshan)
        self.drawer = seat

    def _discard(self, seat: int, tile: str, riichi: bool) -> None:
        self._settle_kakan()
        if self.prev == "discard":
            ms = self.window_ms + self.gap()
        elif self.prev == "start":
            ms = self.start_ms + 2000
        else:
            ms = self.clock.ms + 1000
            if self.kakan_done_ms is not None:
                ms = max(ms, self.kakan_done_ms + 4000)
        self.kakan_done_ms = None
        self._take(seat, tile)
        if self.ippatsu[seat]:
            self.ippatsu[seat] = False
        if riichi:
            self.riichi[seat] = True
            self.ippatsu[seat] = True
            self.double_riichi[seat] = not self.discards[seat] and not self.any_meld
        self.discards[seat].append(tile)
        record = {"type": "discard", "seat": seat, "tile": tile}
        if riichi:
            record["riichi"] = True
        self.emit(ms, record)
        self.window_ms = self.clock.ms
        self.last_discard = (seat, tile)
        self.prev = "discard"
        self.after_draw = False
        for indicator in self.hold_dora:
            self._flip(self.clock.ms + 100, indicator)
        self.hold_dora = []

    def _take(self, seat: int, tile: str) -> None:
        try:
            self.concealed[seat].remove(tile)
        except ValueError:
            raise LogError(f"seat {seat} gives up {tile}, which is not in its hand") from None

    def _call(self, seat: int, kind: str, tiles: list[str], called: str, source: int) -> None:
        if self.last_discard != (source, called):
            raise LogError(f"seat {seat}'s {kind} of {called} matches no discard")
        d_ms = self.window_ms
        self.emit(d_ms + self.press_delay(),
                  {"type": "call", "seat": seat, "call": "kan" if kind == "daiminkan" else kind})
        rest = list(tiles)
        rest.remove(called)
        for tile in rest:
            self._take(seat, tile)
        meld = {"kind": kind, "tiles": T.sorted_tiles(tiles), "called": called, "from": source}
        self.melds[seat].append(meld)
        self.emit(d_ms + 3300, {"type": "meld", "seat": seat, **meld})
        self._break_first_turn()
        self.last_discard = None
        self.prev = "meld"
        self.after_draw = False

    def _kan(self, seat: int, kind: str, tiles: list[str], called, source, added) -> None:
        self._settle_kakan()
        press = self.own_turn_ms()
        self.emit(press, {"type": "call", "seat": seat, "call": "kan"})
        if kind == "ankan":
            for tile in tiles:
                self._take(seat, tile)
            meld = {"kind": "ankan", "tiles": T.sorted_tiles(tiles)}
            self.melds[seat].append(meld)
            self.emit(press + 500, {"type": "meld", "seat": seat, **meld})
            self._break_first_turn()
            self.prev = "ankan"
            self.window_ms = None
        else:
            pon = next((m for m in self.melds[seat] if m["kind"] == "pon"
                        and T.same_kind(m["tiles"][0], added)), None)
            if pon is None:
                raise LogError(f"seat {seat} adds {added} to a pon it does not have")
            self._take(seat, added)
            self.melds[seat].remove(pon)
            meld = {"kind": "shouminkan", "tiles": T.sorted_tiles(pon["tiles"] + [added]),
                    "called": pon["called"], "from": pon["from"], "added": added}
            self.melds[seat].append(meld)
            self.emit(press + 500, {"type": "meld", "seat": seat, **meld})
            self.kakan_open = True
            self.window_ms = self.clock.ms
            self.kakan_done_ms = self.clock.ms
            self.last_discard = (seat, added)
            self.prev = "shouminkan"
        self.last_meld_ms = self.clock.ms
        self.after_draw = False

    def _settle_kakan(self) -> None:
        # An added kan stands once play goes on without a ron: it breaks first-turn and
        # ippatsu chances only then (a robbing ron still has them).
        if self.kakan_open:
            self.kakan_open = False
            self.last_discard = None
            self._break_first_turn()

    def _break_first_turn(self) -> None:
        self.any_meld = True
        self.ippatsu = [False] * 4

    def _dora(self, indicator: str) -> None:
        if self.prev == "ankan" and not self.after_draw:
            self._flip(self.clock.ms + 200, indicator)
        elif self.prev == "shouminkan" and not self.after_draw:
            self._settle_kakan()
            self._flip(self.last_meld_ms + 3300, indicator)
        else:
            self.hold_dora.append(indicator)

    def _flip(self, ms: int, indicator: str) -> None:
        self.dora.append(indicator)
        self.emit(ms, {"type": "dora", "indicator": indicator})

    def _riichi_ok(self, seat: int) -> None:
        self.riichi_paid += 1

    # -- the result
    def _end(self, end: LoggedEnd) -> ExpectedHand:
        h = self.hand
        wins: list[ExpectedWin] = []
        if end.wins:
            wins = self._wins(end.wins)
        elif end.result == "exhaustive":
            tenpai = end.tenpai
            if tenpai is None:
                tenpai = self._tenpai_from(end.deltas, end.reason)
            end.tenpai = sorted(tenpai)
            base = self.window_ms if self.window_ms is not None else self.clock.ms
            self.emit(base + 3500, {"type": "tenpai", "seats": end.tenpai})
        elif end.reason == "nine_terminals" and self.drawer is not None:
            # The declaring seat lays its hand open on its own turn, no button pressed.
            seat = self.drawer
            if end.shown and Counter(end.shown.get(seat, [])) != Counter(self.concealed[seat]):
                raise LogError(f"seat {seat}'s nine terminals are not the hand the play "
                               "gives")
            self.emit(self.own_turn_ms(), {"type": "reveal", "seat": seat,
                                           "tiles": T.sorted_tiles(self.concealed[seat]),
                                           "win_tile": self.last_draw[seat][0]})
        elif end.reason == "triple_ron" and self.last_discard is not None:
            for k, seat in enumerate(_nearest(self.last_discard[0])):
                self.emit(self.window_ms + 400 + 200 * k, {"type": "call", "seat": seat,
                                                            "call": "ron"})
        if end.closing is not None:
            closing = list(end.closing)
        else:
            closing = [s + d for s, d in zip(h.scores, end.deltas)]
            for act in h.actions:
                if act[0] == "riichi_ok":
                    closing[act[1]] -= 1000
        expected = ExpectedHand(index=self.index, round_wind=h.round_wind,
                                round_number=h.round_number, dealer=h.dealer,
                                honba=h.honba, riichi_sticks=h.sticks,
                                start_scores=list(h.scores), result=end.result,
                                reason=end.reason, wins=wins, deltas=list(end.deltas),
                                scores=closing, tenpai=end.tenpai,
                                final_hands=[(T.sorted_tiles(self.concealed[s]),
                                              [dict(m) for m in self.melds[s]])
                                             for s in range(4)])
        # A real log's payments move exactly the riichi sticks on the table (to the winner);
        # a hand-edited one may not, and then its figures cannot be the expected result.
        sticks = 1000 * (h.sticks + self.riichi_paid) if wins else 0
        if end.closing is None and sum(end.deltas) != sticks:
            expected.checkable = False
            expected.note = (f"the log's payments {end.deltas} do not add up with "
                             f"{sticks // 1000} riichi stick(s) on the table (a hand-edited "
                             "log?): its scores are not compared")
        for w in wins:
            if w.han is not None:
                continue
            expected.checkable = False
            if is_complete(w.concealed, w.melds):
                expected.note = (f"the log records seat {w.seat}'s win without its value")
            else:
                expected.note = (f"the log records a win by seat {w.seat} on "
                                 f"{T.hand_str(w.concealed)} (won on {w.win_tile}), which is "
                                 "not a winning hand: a referee flags false_win")
                expected.expected_violations.append({"seat": w.seat, "kind": "false_win"})
        return expected

    def _tenpai_from(self, deltas: list[int], reason: str | None) -> list[int]:
        # Noten payments name the tenpai seats, unless nagashi mangan was paid instead or
        # nothing moved (all tenpai or all noten): then the hands tell.
        gain = [s for s in range(4) if deltas[s] > 0]
        if gain and reason is None:
            return gain
        return [s for s in range(4) if is_tenpai(self.concealed[s], self.melds[s])]

    def _wins(self, recorded: list[LoggedWin]) -> list[ExpectedWin]:
        out = []
        tsumo = recorded[0].from_seat is None
        if tsumo:
            seat = recorded[0].seat
            press = self.own_turn_ms()
            self.emit(press, {"type": "call", "seat": seat, "call": "ron"})
            reveal_ms = [press + 500]
        else:
            if self.last_discard is None:
                raise LogError("a ron with no discard to win on")
            order = sorted(recorded, key=lambda w: _nearest(w.from_seat).index(w.seat))
            delay = min(self.press_delay(), 1100)  # room for a second and third press
            for k, w in enumerate(order):
                self.emit(self.window_ms + delay + 200 * k,
                          {"type": "call", "seat": w.seat, "call": "ron"})
            reveal_ms = [self.window_ms + 3300 + 100 * k for k in range(len(recorded))]
            recorded = order
        for k, w in enumerate(recorded):
            # Tenhou gives honba and sticks to the winner nearest the discarder alone.
            concealed, win_tile, situation = self._won_hand(w, bonus=k == 0)
            record = {"type": "reveal", "seat": w.seat, "tiles": T.sorted_tiles(concealed),
                      "win_tile": win_tile}
            if situation.riichi or situation.double_riichi:
                record["ura_indicators"] = list(situation.ura_indicators)
            self.emit(reveal_ms[k], record)
            figures = {f.name: getattr(w, f.name) for f in fields(WinFigures)}
            figures["payments"] = list(w.payments)
            out.append(ExpectedWin(**figures,
                                   concealed=T.sorted_tiles(concealed), win_tile=win_tile,
                                   melds=[dict(m) for m in self.melds[w.seat]],
                                   situation=situation))
        return out

    def _won_hand(self, w: LoggedWin, bonus: bool = True) -> tuple[list[str], str, Situation]:
        h = self.hand
        seat = w.seat
        tsumo = w.from_seat is None
        if tsumo:
            if self.last_draw[seat] is None:
                raise LogError(f"seat {seat} wins by tsumo without a draw")
            win_tile, rinshan = self.last_draw[seat]
            concealed = list(self.concealed[seat])
        else:
            d_seat, win_tile = self.last_discard
            if d_seat != w.from_seat:
                raise LogError(f"seat {seat}'s ron names seat {w.from_seat}, "
                               f"but seat {d_seat} gave the tile")
            rinshan = False
            concealed = self.concealed[seat] + [win_tile]
        if w.win_tile is not None and w.win_tile != win_tile:
            raise LogError(f"seat {seat} wins on {w.win_tile}, but the play gives {win_tile}")
        if w.concealed is not None and Counter(w.concealed) != Counter(concealed):
            raise LogError(f"seat {seat}'s winning hand {T.hand_str(w.concealed)} is not the "
                           f"hand the play gives ({T.hand_str(concealed)})")
        chankan = not tsumo and self.kakan_open
        first_turn = not self.any_meld and not self.discards[seat]
        riichi = self.riichi[seat]
        n_dora = len(self.dora)
        ura: list[str] = []
        if riichi:
            ura = list(w.ura) if w.ura else list(self.hand.ura[:n_dora])
        situation = Situation(
            tsumo=tsumo,
            seat_wind=WINDS[(seat - h.dealer) % 4],
            round_wind=h.round_wind,
            riichi=riichi and not self.double_riichi[seat],
            double_riichi=self.double_riichi[seat],
            ippatsu=self.ippatsu[seat],
            haitei=tsumo and not rinshan and self.draws == LIVE_WALL,
            houtei=not tsumo and not chankan and self.draws == LIVE_WALL,
            rinshan=tsumo and rinshan,
            chankan=chankan,
            tenhou=tsumo and first_turn and seat == h.dealer,
            chiihou=tsumo and first_turn and seat != h.dealer,
            dora_indicators=tuple(self.dora),
            ura_indicators=tuple(ura),
            honba=h.honba if bonus else 0,
            kyoutaku=h.sticks + self.riichi_paid if bonus else 0,
        )
        return concealed, win_tile, situation


def _nearest(seat: int) -> list[int]:
    """The other seats in turn order from ``seat``: the nearest to its left... first."""
    return [(seat + k) % 4 for k in (1, 2, 3)]

