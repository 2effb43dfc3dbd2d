"""The value of a hand the referee lays out (from a photo of it), with the table's situation.

A scoring dispute is settled from the tiles on the table: the referee photographs the revealed
hand, corrects what the camera misread, marks the winning tile, ron or tsumo and the open
melds, and asks what it is worth. What the photo cannot show (the ruleset, the round wind, the
seat's wind, the dora indicators, honba and riichi sticks) comes from the table's state as its
snapshot gives it (:meth:`referee.core.Referee.snapshot`); the value from
:func:`referee.scoring.score_win` with the ruleset's options, as the rules core scores a reveal.

``value_shown_hand(snapshot, events, seat, tiles, melds, win_tile, tsumo, riichi=None,
ippatsu=False, ura=())`` -> a JSON-ready dict: ``{"win": True, "han", "fu", "yaku": [[name,
han]], "points", "total", "limit", "payments", "table": {...}}``, or ``{"win": False,
"reason", "text", "table"}``; ``table`` says what was taken from the table. A request that
cannot be scored at all (a tile code that is no tile, no hand dealt) raises
:class:`referee.errors.RefereeError` with one line saying why.

Melds are given as the referee groups them: ``{"tiles": [...], "closed": bool}``; their kind
is what the tiles are (a run is a chii, three of a kind a pon, four an open kan, or a closed
kan when ``closed``).
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from .errors import RefereeError
from .rulesets import get_ruleset
from .scoring import Situation, score_win
from .tiles import check_tile
from .violations import meld_problem

_WINDS = "ESWN"
_WIND_NAMES = {"E": "East", "S": "South", "W": "West", "N": "North"}


def meld_of(tiles: Sequence[str], closed: bool = False) -> dict:
    """The meld the referee grouped: its kind from its tiles (see the module doc)."""
    tiles = [check_tile(t) for t in tiles]
    if len(tiles) == 4:
        kind = "ankan" if closed else "daiminkan"
    elif len(tiles) == 3 and meld_problem("pon", tiles) is None:
        kind = "pon"
    else:
        kind = "chii"
    problem = meld_problem(kind, tiles)
    if problem is not None:
        raise RefereeError(f"the meld {' '.join(tiles)} is not a meld: {problem}")
    return {"kind": kind, "tiles": tiles}


def _game_options(events: Iterable[Mapping[str, Any]]) -> tuple[bool | None, bool | None]:
    """``red_fives``/``open_tanyao`` as the current game's ``game_start`` set them."""
    red = tanyao = None
    for e in events:
        if e.get("type") == "game_start":
            red = e["red_fives"] if isinstance(e.get("red_fives"), bool) else None
            tanyao = e["open_tanyao"] if isinstance(e.get("open_tanyao"), bool) else None
    return red, tanyao


def table_situation(snapshot: Mapping[str, Any], seat: int) -> dict:
    """What the table says about ``seat``'s hand now: ruleset, winds, dora, sticks, riichi."""
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat <= 3:
        raise RefereeError(f"seat {seat!r} is not a seat (0-3)")
    rnd = snapshot.get("round")
    if not rnd:
        raise RefereeError("no hand has been dealt at this table yet: the round wind, the "
                           "seat winds and the dora are not known")
    seats = snapshot.get("seats") or []
    state = seats[seat] if seat < len(seats) else {}
    return {
        "ruleset": snapshot.get("ruleset"),
        "round_wind": rnd["wind"],
        "seat_wind": _WINDS[(seat - rnd["dealer"]) % 4],
        "dealer": rnd["dealer"],
        "honba": rnd.get("honba", 0),
        "riichi_sticks": rnd.get("riichi_sticks", 0),
        "dora_indicators": list(snapshot.get("dora_indicators") or []),
        "riichi": bool(state.get("riichi")),
        "ippatsu": bool(state.get("ippatsu")),
    }


def value_shown_hand(snapshot: Mapping[str, Any], events: Iterable[Mapping[str, Any]],
                     seat: int, tiles: Sequence[str], melds: Sequence[Mapping[str, Any]],
                     win_tile: str, tsumo: bool, riichi: bool | None = None,
                     ippatsu: bool | None = None, ura: Sequence[str] = ()) -> dict:
    """What ``seat``'s laid-out hand is worth at this table (see the module doc).

    ``tiles``: the concealed tiles, the winning tile among them; ``melds``: the referee's
    groups; ``riichi``/``ippatsu``: None takes what the table saw; ``ura``: ura dora
    indicators turned over after a riichi win."""
    table = table_situation(snapshot, seat)
    concealed = [check_tile(t) for t in tiles]
    check_tile(win_tile)
    ura = [check_tile(t) for t in ura]
    shown_melds = [meld_of(m.get("tiles", ()), bool(m.get("closed"))) for m in melds]
    table["riichi"] = table["riichi"] if riichi is None else bool(riichi)
    table["ippatsu"] = table["riichi"] and (table["ippatsu"] if ippatsu is None else bool(ippatsu))
    if any(m["kind"] != "ankan" for m in shown_melds) and table["riichi"]:
        raise RefereeError("a hand with an open meld cannot be in riichi: untick riichi or "
                           "mark the kan as closed")
    ruleset = get_ruleset(table["ruleset"])
    red, tanyao = _game_options(events)
    situation = Situation(
        tsumo=bool(tsumo), seat_wind=table["seat_wind"], round_wind=table["round_wind"],
        riichi=table["riichi"], ippatsu=table["ippatsu"],
        dora_indicators=tuple(table["dora_indicators"]),
        ura_indicators=tuple(ura) if table["riichi"] else (),
        honba=table["honba"], kyoutaku=table["riichi_sticks"])
    result = score_win(concealed, shown_melds, win_tile, situation,
                       ruleset.scoring_options(red, tanyao))
    table.update(ruleset=ruleset.name, seat=seat, tsumo=bool(tsumo), ura_indicators=list(ura),
                 winds=f"{_WIND_NAMES[table['round_wind']]} round, "
                       f"{_WIND_NAMES[table['seat_wind']]} seat")
    if not result:
        return {"win": False, "reason": result.reason, "text": result.text, "table": table,
                "melds": shown_melds}
    return {"win": True, "han": result.han, "fu": result.fu,
            "yaku": [[name, han] for name, han in result.yaku],
            "yakuman": result.yakuman, "limit": result.limit, "points": result.points,
            "total": result.total,
            "payments": {"ron": result.ron_payment, "dealer": result.dealer_payment,
                         "non_dealer": result.non_dealer_payment},
            "table": table, "melds": shown_melds}
