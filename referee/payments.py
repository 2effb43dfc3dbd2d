"""Payment arithmetic: who pays whom at the end of a hand and of a game.

Pure functions over seats (0-3) and points; each returns the score change of every seat as a
list of four ints. Amounts a ruleset decides (honba value, the chombo penalty, uma and oka) are
parameters, so the rules core passes its profile's numbers and these stay the same for all.

Hand values come from :func:`referee.scoring.score_win` (``ron_payment``, ``dealer_payment``,
``non_dealer_payment``); this module adds honba and riichi sticks and settles draws, chombo,
dealer rotation and the final match points.
"""
from __future__ import annotations

from typing import Iterable, Sequence

STICK = 1000          #: a riichi deposit
HONBA_RON = 300       #: per honba, paid by the discarder on a ron
HONBA_TSUMO = 100     #: per honba, paid by each other seat on a tsumo


def _zero() -> list[int]:
    return [0, 0, 0, 0]


def nearest_first(discarder: int, seats: Iterable[int]) -> list[int]:
    """``seats`` in turn order from the discarder: the first is the one who would head-bump."""
    return sorted(set(seats), key=lambda s: (s - discarder) % 4)


def ron(winner: int, discarder: int, points: int, honba: int = 0, sticks: int = 0,
        honba_value: int = HONBA_RON) -> list[int]:
    """A ron: the discarder pays ``points`` plus ``honba_value`` per honba; the winner also
    collects ``sticks`` riichi deposits from the table."""
    if winner == discarder:
        raise ValueError("a ron needs a discarder other than the winner")
    d = _zero()
    pay = points + honba_value * honba
    d[discarder] -= pay
    d[winner] += pay + STICK * sticks
    return d


def tsumo(winner: int, dealer: int, dealer_pays: int, others_pay: int, honba: int = 0,
          sticks: int = 0, honba_value: int = HONBA_TSUMO) -> list[int]:
    """A tsumo: each other seat pays ``others_pay`` (the dealer ``dealer_pays`` when the winner
    is not the dealer) plus ``honba_value`` per honba; the winner collects ``sticks``."""
    d = _zero()
    for seat in range(4):
        if seat == winner:
            continue
        pay = (dealer_pays if seat == dealer and winner != dealer else others_pay)
        pay += honba_value * honba
        d[seat] -= pay
        d[winner] += pay
    d[winner] += STICK * sticks
    return d


def multiple_ron(discarder: int, wins: Sequence[tuple[int, int]], honba: int = 0,
                 sticks: int = 0, honba_to: str = "nearest",
                 honba_value: int = HONBA_RON) -> list[list[int]]:
    """Several rons on one discard, each winner paid by the discarder.

    ``wins`` are ``(winner, points)``; the result lists each win's score changes in the same
    order. Riichi sticks go to the winner nearest the discarder in turn order; honba too with
    ``honba_to="nearest"`` (Tenhou), or to every winner with ``honba_to="each"``.
    """
    if honba_to not in ("nearest", "each"):
        raise ValueError(f"honba_to must be 'nearest' or 'each', not {honba_to!r}")
    first = nearest_first(discarder, [w for w, _ in wins])[0]
    out = []
    for winner, points in wins:
        gets_honba = honba_to == "each" or winner == first
        out.append(ron(winner, discarder, points, honba if gets_honba else 0,
                       sticks if winner == first else 0, honba_value))
    return out


def pao_ron(winner: int, discarder: int, liable: int, points: int, honba: int = 0,
            sticks: int = 0, honba_value: int = HONBA_RON) -> list[int]:
    """A ron on a yakuman another seat is liable for (pao): the discarder and the liable seat
    pay half each; the liable seat pays the honba (Tenhou's rule)."""
    if liable == discarder:
        return ron(winner, discarder, points, honba, sticks, honba_value)
    d = _zero()
    half = points // 2
    d[discarder] -= points - half
    d[liable] -= half + honba_value * honba
    d[winner] += points + honba_value * honba + STICK * sticks
    return d


def pao_tsumo(winner: int, liable: int, points: int, honba: int = 0, sticks: int = 0,
              honba_value: int = HONBA_TSUMO) -> list[int]:
    """A tsumo on a yakuman another seat is liable for: that seat pays all of it, the honba of
    all three payers included."""
    d = _zero()
    pay = points + 3 * honba_value * honba
    d[liable] -= pay
    d[winner] += pay + STICK * sticks
    return d


def exhaustive_draw(tenpai: Iterable[int], total: int = 3000) -> list[int]:
    """Noten payments at an exhaustive draw: the noten seats share paying ``total`` to the
    tenpai seats (nothing moves when all or none are tenpai)."""
    tenpai = set(tenpai)
    d = _zero()
    if not 0 < len(tenpai) < 4:
        return d
    gain = total // len(tenpai)
    loss = total // (4 - len(tenpai))
    for seat in range(4):
        d[seat] = gain if seat in tenpai else -loss
    return d


def nagashi_mangan(seats: Iterable[int], dealer: int, honba: int = 0,
                   honba_value: int = HONBA_TSUMO) -> list[int]:
    """Nagashi mangan: each such seat is paid a mangan tsumo (dealer 4000 all; otherwise 4000
    from the dealer and 2000 from the others). Tenhou adds no honba and leaves the riichi
    sticks on the table."""
    d = _zero()
    for seat in seats:
        if seat == dealer:
            part = tsumo(seat, dealer, 0, 4000, honba, 0, honba_value)
        else:
            part = tsumo(seat, dealer, 4000, 2000, honba, 0, honba_value)
        d = [a + b for a, b in zip(d, part)]
    return d


def chombo(offender: int, dealer: int, style: str = "mangan", amount: int = 20000) -> list[int]:
    """What a chombo costs.

    ``style="mangan"``: the offender pays as if every other seat had won a mangan tsumo from
    it (a dealer 4000 to each; otherwise 4000 to the dealer and 2000 to the others).
    ``style="fixed"``: the offender loses ``amount`` and nobody gains (EMA: 20000 points taken
    from the final score). ``style="split"``: the offender pays ``amount`` shared equally by the
    other three.
    """
    d = _zero()
    if style == "mangan":
        for seat in range(4):
            if seat == offender:
                continue
            pay = 4000 if offender == dealer or seat == dealer else 2000
            d[seat] += pay
            d[offender] -= pay
    elif style == "fixed":
        d[offender] = -amount
    elif style == "split":
        share = amount // 3
        for seat in range(4):
            if seat != offender:
                d[seat] += share
                d[offender] -= share
    else:
        raise ValueError(f"unknown chombo style {style!r} (expected mangan, fixed or split)")
    return d


def add(*deltas: Sequence[int]) -> list[int]:
    """Sum score changes seat by seat."""
    out = _zero()
    for d in deltas:
        out = [a + b for a, b in zip(out, d)]
    return out


# --------------------------------------------------------------------------------------------
# Dealer rotation and the end of the game

def next_hand(dealer: int, honba: int, result: str, dealer_won: bool = False,
              dealer_tenpai: bool = False, chombo_repeats: bool = True) -> tuple[int, int]:
    """The dealer and honba of the next hand.

    ``result`` is ``ron``/``tsumo`` (``dealer_won``: the dealer was a winner), ``exhaustive``
    (``dealer_tenpai``), ``abortive`` or ``chombo``. A dealer win, a tenpai dealer at a draw
    and an abortive draw keep the dealer with one more honba; a non-dealer win passes the deal
    and clears the honba; a draw with the dealer noten passes the deal and adds a honba. A
    chombo replays the hand as it was (``chombo_repeats``) or is treated like an abortive draw.
    """
    if result in ("ron", "tsumo"):
        return (dealer, honba + 1) if dealer_won else ((dealer + 1) % 4, 0)
    if result == "exhaustive":
        return (dealer, honba + 1) if dealer_tenpai else ((dealer + 1) % 4, honba + 1)
    if result == "abortive":
        return dealer, honba + 1
    if result == "chombo":
        return (dealer, honba) if chombo_repeats else (dealer, honba + 1)
    raise ValueError(f"unknown hand result {result!r}")


def game_over(round_index: int, dealer: int, scores: Sequence[int], dealer_kept: bool,
              result: str = "", length: str = "south", target: int = 30000,
              extension: bool = True, bust_below_zero: bool = True,
              dealer_stops_when_top: bool = True) -> bool:
    """Whether the game ends after a hand (Tenhou's rules; the others by parameter).

    ``round_index`` counts deals: 0-3 East 1-4, 4-7 South 1-4, 8-11 West 1-4. ``dealer_kept``:
    the dealer keeps the deal for the next hand (see :func:`next_hand`); ``result`` is the
    hand's result (an abortive draw never ends the game by itself).

    * A score below zero ends the game (``bust_below_zero``).
    * After the last deal of ``length`` (``east``/``south``) the game ends when the deal passes
      and someone has ``target``; with nobody there it goes on into the next wind
      (``extension``), which ends as soon as the deal passes with someone at ``target``, and
      at the latest after its fourth deal.
    * On the last deal (and in the extension) a dealer who keeps the deal by winning stops the
      game when alone on top with ``target`` or more (``dealer_stops_when_top``: agari-yame);
      a dealer kept by tenpai at a draw, or by an abortive draw, plays on.
    """
    if bust_below_zero and min(scores) < 0:
        return True
    last = 3 if length == "east" else 7
    if round_index < last:
        return False
    reached = max(scores) >= target
    if dealer_kept:
        if result not in ("ron", "tsumo") or not dealer_stops_when_top:
            return False
        return scores[dealer] >= target and _alone_on_top(scores, dealer)
    if round_index >= last + 4 or not extension:
        return True
    return reached


def _alone_on_top(scores: Sequence[int], seat: int) -> bool:
    return all(scores[seat] > s for i, s in enumerate(scores) if i != seat)


def final_standings(scores: Sequence[int], first_dealer: int = 0) -> list[int]:
    """Seats from first to last place; equal scores rank by seat order from the first dealer."""
    return sorted(range(4), key=lambda s: (-scores[s], (s - first_dealer) % 4))


def match_points(scores: Sequence[int], uma: Sequence[float] = (20, 10, -10, -20),
                 start: int = 25000, target: int = 30000, leftover_sticks: int = 0,
                 rounding: str = "tenhou", first_dealer: int = 0) -> list[float]:
    """Final match points (``final`` in ``game_end``) per seat.

    Each seat scores ``(points - target) / 1000`` plus the ``uma`` of its place; first place
    also takes the oka (``(target - start) * 4 / 1000``) and the ``leftover_sticks`` still on
    the table. ``rounding="tenhou"`` rounds each other seat to a whole number with a half
    rounded toward zero (first place takes what balances the table); ``"none"`` keeps
    decimals.
    """
    if len(uma) != 4:
        raise ValueError("uma needs four values, first place to last")
    order = final_standings(scores, first_dealer)
    final = list(scores)
    final[order[0]] += STICK * leftover_sticks
    out = [0.0] * 4
    oka = (target - start) * 4 / 1000
    for place, seat in enumerate(order):
        if place == 0:
            continue
        diff = final[seat] - target
        if rounding == "tenhou":
            whole, rest = divmod(abs(diff), 1000)
            value = (whole + (1 if rest > 500 else 0)) * (1 if diff >= 0 else -1)
        elif rounding == "none":
            value = diff / 1000
        else:
            raise ValueError(f"unknown rounding {rounding!r} (expected tenhou or none)")
        out[seat] = float(value + uma[place])
    first = order[0]
    if rounding == "tenhou":
        out[first] = -sum(out[s] for s in order[1:])
    else:
        out[first] = (final[first] - target) / 1000 + uma[0] + oka
    return out


def final_scores(scores: Sequence[int], leftover_sticks: int = 0,
                 first_dealer: int = 0) -> list[int]:
    """The scores at the end of the game: the sticks still on the table go to first place."""
    out = list(scores)
    out[final_standings(scores, first_dealer)[0]] += STICK * leftover_sticks
    return out
