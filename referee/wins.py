"""Judging a revealed hand: is it a win, and what is it worth.

The rules core (:mod:`referee.core`) calls :func:`judge` when a seat lays its hand open after a
ron or a tsumo. What the camera cannot see (the concealed tiles) comes from the ``reveal``;
what the table state knows (riichi and when, ippatsu, the first go-around, the last tile,
rinshan, chankan, the ponds and the tiles that passed) becomes the :class:`Situation` the
``mahjong`` library scores with (:mod:`referee.scoring`).

The rulings, in the order a referee checks them:

* ``false_win``: the hand is not complete (four sets and a pair, seven pairs, thirteen
  orphans), the winning tile is not the one discarded, the hand was dead, or a closed kan was
  robbed by anything but thirteen orphans;
* ``furiten_ron`` (ron only), judged on the revealed hand's waits: a wait among the winner's
  own discards, called ones included (permanent furiten); a wait that passed since the
  winner's last discard (temporary); a wait that passed after the winner's riichi;
* ``no_yaku``: complete but nothing but dora.

Anything else is a win: han, fu, yaku and points from the library with the ruleset's options.
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import RefereeError
from .scoring import NotAWin, Situation, WinScore, score_win, waits
from .tiles import base, is_terminal_or_honor

_WINDS = "ESWN"
_DRAGONS = ("5z", "6z", "7z")
_WIND_TILES = ("1z", "2z", "3z", "4z")


@dataclass
class Judgement:
    """What a reveal comes to: a :class:`WinScore` (``score``) or a violation ``kind``
    (``false_win``/``furiten_ron``/``no_yaku``) with the sentence that explains it, or
    ``unscored`` when the scoring library refuses the situation (the referee decides).
    ``liable`` is the seat that pays under pao, else None."""

    score: WinScore | None = None
    kind: str | None = None
    text: str = ""
    liable: int | None = None
    waits: tuple = ()


def situation(hand, seat_no: int, win: dict, ura: list[str] | None) -> Situation:
    """How ``seat_no`` won, from the table state: ``win`` is the declared win (``from``,
    ``chankan``, ``ankan``, ``rinshan``, ``haitei``, ``first_turn``, ``ippatsu``)."""
    seat = hand.seats[seat_no]
    tsumo = win["from"] is None
    riichi = seat.riichi and not seat.is_open  # a call after riichi leaves no riichi to score
    first_turn = win.get("first_turn", False)
    chankan = bool(win.get("chankan")) and not win.get("ankan")
    return Situation(
        tsumo=tsumo,
        seat_wind=_WINDS[(seat_no - hand.dealer) % 4],
        round_wind=hand.round_wind,
        riichi=riichi and not seat.double_riichi,
        double_riichi=riichi and seat.double_riichi,
        ippatsu=riichi and win.get("ippatsu", False),
        haitei=tsumo and win.get("haitei", False) and not win.get("rinshan", False),
        houtei=not tsumo and win.get("haitei", False) and not win.get("chankan"),
        rinshan=tsumo and win.get("rinshan", False),
        chankan=chankan,
        tenhou=tsumo and first_turn and seat_no == hand.dealer,
        chiihou=tsumo and first_turn and seat_no != hand.dealer,
        renhou=not tsumo and first_turn,
        dora_indicators=tuple(d for i, d in enumerate(hand.dora_indicators)
                              if i not in win.get("uncounted_dora", ())),
        ura_indicators=tuple(ura or ()) if riichi else (),
    )


def furiten(seat, hand_waits: set[str], win_tile: str) -> str | None:
    """Why a ron by ``seat`` waiting on ``hand_waits`` is furiten, or None.

    The winning discard itself is the last tile the seat saw pass, and is not counted."""
    own = sorted(k for k in hand_waits if k in seat.pond.kinds())
    if own:
        return f"it waits on {', '.join(own)}, which it discarded itself (furiten)"
    win_kind = base(win_tile)
    passed = seat.passed_since_turn
    if passed and base(passed[-1]) == win_kind:
        passed = passed[:-1]
    temp = sorted({base(x) for x in passed} & hand_waits)
    if temp:
        return (f"{', '.join(temp)} passed since its last discard without a ron "
                "(temporary furiten)")
    if seat.riichi:
        passed = seat.passed_since_riichi
        if passed and base(passed[-1]) == win_kind:
            passed = passed[:-1]
        late = sorted({base(x) for x in passed} & hand_waits)
        if late:
            return f"{', '.join(late)} passed after its riichi without a ron (riichi furiten)"
    return None


def liable_seat(melds: list[dict], score: WinScore) -> int | None:
    """The seat that pays for a daisangen / daisuushii under pao: the one whose discard made
    the third dragon set (fourth wind set) of the winner's melds, or None."""
    names = score.yaku_names
    for yaku, kinds, need in (("daisangen", _DRAGONS, 3), ("daisuushii", _WIND_TILES, 4)):
        if yaku not in names:
            continue
        sets = [m for m in melds if m["kind"] != "chii" and m["tiles"]
                and base(m["tiles"][0]) in kinds]
        if len(sets) == need and sets[-1]["kind"] != "ankan" and sets[-1].get("from") is not None:
            return sets[-1]["from"]
    return None


def judge(hand, seat_no: int, win: dict, reveal: dict, options: dict,
          pao: bool = False) -> Judgement:
    """Judge ``seat_no``'s revealed hand for the declared ``win`` (see :func:`situation`).

    ``reveal`` is the ``reveal`` event; ``options`` the ruleset's scoring options."""
    seat = hand.seats[seat_no]
    tiles = list(reveal["tiles"])
    win_tile = reveal["win_tile"]
    melds = seat.melds
    if seat.dead_hand:
        return Judgement(kind="false_win", text=f"Seat {seat_no} declared a win with a dead "
                         "hand; a dead hand cannot win.")
    if win["from"] is not None and win.get("tile") is not None \
            and base(win["tile"]) != base(win_tile):
        return Judgement(kind="false_win", text=f"Seat {seat_no} called ron on {win['tile']} "
                         f"but showed a hand won on {win_tile}.")
    if win_tile not in tiles:
        return Judgement(kind="false_win", text=f"Seat {seat_no} showed a hand without its "
                         f"winning tile {win_tile}.")
    rest = list(tiles)
    rest.remove(win_tile)
    hand_waits = waits(rest, melds)
    if base(win_tile) not in hand_waits:
        return Judgement(kind="false_win", text=f"Seat {seat_no} declared a win, but "
                         f"{' '.join(tiles)} is not a complete hand: a false win.",
                         waits=tuple(sorted(hand_waits)))
    if win.get("ankan") and not thirteen_orphans(tiles):
        return Judgement(kind="false_win", text=f"Seat {seat_no} robbed a closed kan; only "
                         "thirteen orphans may win on a closed kan.")
    if win["from"] is not None:
        why = furiten(seat, hand_waits, win_tile)
        if why:
            return Judgement(kind="furiten_ron", text=f"Seat {seat_no} called ron on "
                             f"{win_tile} but {why}; a furiten hand may not win by ron.",
                             waits=tuple(sorted(hand_waits)))
    sit = situation(hand, seat_no, win, reveal.get("ura_indicators"))
    try:
        score = score_win(tiles, melds, win_tile, sit, options)
    except RefereeError as exc:
        # a situation the scoring library refuses: the referee values the hand by hand
        return Judgement(kind="unscored", text=f"Seat {seat_no}'s win could not be valued "
                         f"({exc}); the referee values it.", waits=tuple(sorted(hand_waits)))
    if isinstance(score, NotAWin):
        if score.reason == "no_yaku":
            return Judgement(kind="no_yaku", text=f"Seat {seat_no} declared a win on "
                             f"{win_tile} with no yaku (dora are not a yaku).",
                             waits=tuple(sorted(hand_waits)))
        return Judgement(kind="false_win", text=f"Seat {seat_no} declared a win but "
                         f"{score.text}: a false win.", waits=tuple(sorted(hand_waits)))
    liable = liable_seat(melds, score) if pao else None
    if liable == seat_no:
        liable = None
    return Judgement(score=score, liable=liable, waits=tuple(sorted(hand_waits)))


def thirteen_orphans(tiles: list[str]) -> bool:
    """Fourteen terminals and honours of all thirteen kinds (kokushi musou)."""
    return len(tiles) == 14 and all(is_terminal_or_honor(x) for x in tiles) \
        and len({base(x) for x in tiles}) == 13


def nine_terminals(tiles: list[str]) -> bool:
    """Fourteen tiles with nine or more distinct terminal and honour kinds (kyuushu kyuuhai)."""
    return len(tiles) == 14 and len({base(x) for x in tiles if is_terminal_or_honor(x)}) >= 9


def nagashi_seats(hand) -> list[int]:
    """Seats whose every discard is a terminal or honour, none called away (nagashi mangan)."""
    out = []
    for s in hand.seats:
        entries = s.pond.entries
        if entries and all(not e["called"] and is_terminal_or_honor(e["tile"]) for e in entries):
            out.append(s.seat)
    return out
