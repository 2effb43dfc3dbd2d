"""The value of a revealed winning hand, on top of the ``mahjong`` library (>= 2.1).

Pure functions over simple data: tiles are mpsz codes (``"5m"``, ``"0p"`` for a red five),
melds are the plain dicts of ``meld`` events (``{"kind": "pon", "tiles": [...], "called": ...,
"from": ...}``). Nothing here knows about seats, turns or the table: the caller (the rules core)
works out the :class:`Situation` from the table state and passes the ruleset's options.

``score_win(concealed, melds, win_tile, situation, options)``
    -> :class:`WinScore` (han, fu, yaku, points, payments) or :class:`NotAWin`
    (``false_win``: not a complete hand; ``no_yaku``: complete but without a yaku).
``waits(concealed_13, melds)`` -> the tile kinds that would complete the hand (furiten, tenpai).
``is_complete(concealed_14, melds)`` -> four sets and a pair, seven pairs or thirteen orphans.

Options (a mapping; missing names take the defaults in :data:`DEFAULT_OPTIONS`):

``red_fives`` (bool)
    red fives count one han each (and exist in the set).
``open_tanyao`` (bool)
    all simples counts on an open hand (kuitan).
``double_yakuman`` (``True``/``False``/``"daisuushii"``)
    thirteen-sided kokushi, single-wait suuankou, pure chuuren and daisuushii count double;
    ``"daisuushii"``: only daisuushii does (EMA RCR 2012).
``kiriage`` (bool)
    4 han 30 fu and 3 han 60 fu are rounded up to mangan.
``kazoe_limit`` (``"yakuman"``/``"sanbaiman"``/``"none"``)
    what 13 or more han from ordinary yaku is worth.
``renhou`` (``"none"``/``"mangan"``/``"yakuman"``)
    how a ron before one's first draw counts (only asked for when ``situation.renhou``).
``open_pinfu_fu`` (bool)
    an open hand that would be 20 fu is rounded to 30 on ron (the usual rule).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from mahjong.agari import Agari
from mahjong.constants import EAST, NORTH, SOUTH, WEST
from mahjong.hand_calculating.hand import HandCalculator
from mahjong.hand_calculating.hand_config import HandConfig, HandConstants, OptionalRules
from mahjong.meld import Meld

from . import tiles as T
from .errors import RefereeError

DEFAULT_OPTIONS: dict[str, Any] = {
    "red_fives": True,
    "open_tanyao": True,
    "double_yakuman": True,
    "kiriage": False,
    "kazoe_limit": "yakuman",
    "renhou": "none",
    "open_pinfu_fu": True,
}

_KAZOE = {"yakuman": HandConstants.KAZOE_LIMITED, "sanbaiman": HandConstants.KAZOE_SANBAIMAN,
          "none": HandConstants.KAZOE_NO_LIMIT}
_WIND_34 = {"E": EAST, "S": SOUTH, "W": WEST, "N": NORTH}

#: Stable English names of the yaku, by the ``mahjong`` library's yaku_id. These are the names
#: rulings carry, so they must not change with the library's display names.
YAKU_NAMES: dict[int, str] = {
    0: "menzen tsumo", 1: "riichi", 2: "open riichi", 3: "ippatsu", 4: "chankan",
    5: "rinshan kaihou", 6: "haitei", 7: "houtei", 8: "double riichi",
    9: "double open riichi", 10: "nagashi mangan", 11: "renhou", 12: "pinfu", 13: "tanyao",
    14: "iipeikou", 15: "white dragon", 16: "green dragon", 17: "red dragon",
    18: "seat wind east", 19: "seat wind south", 20: "seat wind west", 21: "seat wind north",
    22: "round wind east", 23: "round wind south", 24: "round wind west",
    25: "round wind north", 26: "sanshoku doujun", 27: "ittsu", 28: "chanta",
    29: "honroutou", 30: "toitoi", 31: "sanankou", 32: "sankantsu", 33: "sanshoku doukou",
    34: "chiitoitsu", 35: "shousangen", 36: "honitsu", 37: "junchan", 38: "ryanpeikou",
    39: "chinitsu",
    100: "kokushi musou", 101: "chuuren poutou", 102: "suuankou", 103: "daisangen",
    104: "shousuushii", 105: "ryuuiisou", 106: "suukantsu", 107: "tsuuiisou",
    108: "chinroutou", 109: "daisharin", 110: "daichisei", 111: "daisuushii",
    112: "kokushi musou 13-sided wait", 113: "suuankou single wait",
    114: "junsei chuuren poutou", 115: "tenhou", 116: "chiihou", 117: "renhou",
    118: "sashikomi", 119: "paarenchan",
    120: "dora", 121: "red five", 122: "ura dora",
}


@dataclass(frozen=True)
class Situation:
    """How and when the hand was won: what the table knows beyond the tiles.

    ``seat_wind``/``round_wind`` are ``E``/``S``/``W``/``N``; the dealer is the East seat.
    Indicators are tile codes as flipped (the dora is the next tile). ``honba`` and
    ``kyoutaku`` (riichi sticks on the table) only change :attr:`WinScore.total`.
    """

    tsumo: bool = False
    seat_wind: str = "E"
    round_wind: str = "E"
    riichi: bool = False
    double_riichi: bool = False
    ippatsu: bool = False
    haitei: bool = False
    houtei: bool = False
    rinshan: bool = False
    chankan: bool = False
    tenhou: bool = False
    chiihou: bool = False
    renhou: bool = False
    dora_indicators: tuple[str, ...] = ()
    ura_indicators: tuple[str, ...] = ()
    honba: int = 0
    kyoutaku: int = 0

    @property
    def is_dealer(self) -> bool:
        return self.seat_wind == "E"


@dataclass(frozen=True)
class WinScore:
    """A valid win's value.

    ``points`` is the hand's value before honba and sticks: on a ron what the discarder pays,
    on a tsumo the sum of what the others pay. ``ron_payment`` (ron), ``dealer_payment`` (a
    non-dealer's tsumo: what the dealer pays) and ``non_dealer_payment`` (tsumo: what each
    non-dealer pays) are the base payments; :mod:`referee.payments` turns them into score
    changes with honba and sticks. ``total`` is the winner's gain including both.
    ``yakuman`` counts yakuman (a double yakuman is 2); counted (kazoe) yakuman is 0 there
    and shows in ``limit``.
    """

    han: int
    fu: int
    yaku: tuple[tuple[str, int], ...]
    yakuman: int
    limit: str
    points: int
    ron_payment: int
    dealer_payment: int
    non_dealer_payment: int
    total: int

    @property
    def yaku_names(self) -> list[str]:
        return [name for name, han in self.yaku if han]

    def __bool__(self) -> bool:
        return True


@dataclass(frozen=True)
class NotAWin:
    """A revealed hand that does not win: ``reason`` is ``false_win`` or ``no_yaku``."""

    reason: str
    text: str

    def __bool__(self) -> bool:
        return False


@dataclass
class _Options:
    red_fives: bool
    renhou: str
    rules: OptionalRules = field(repr=False)
    #: the double forms other than daisuushii count single (``double_yakuman="daisuushii"``)
    single_double_forms: bool = False


def _options(options: Mapping[str, Any] | None) -> _Options:
    opts = dict(DEFAULT_OPTIONS)
    if options:
        # A ruleset carries more than scoring needs; the other names are not ours.
        opts.update({k: v for k, v in options.items() if k in DEFAULT_OPTIONS})
    if opts["kazoe_limit"] not in _KAZOE:
        raise RefereeError(f"scoring option kazoe_limit={opts['kazoe_limit']!r} "
                           f"(expected one of {', '.join(_KAZOE)})")
    if opts["double_yakuman"] not in (True, False, "daisuushii"):
        raise RefereeError(f"scoring option double_yakuman={opts['double_yakuman']!r} "
                           "(expected true, false or daisuushii)")
    rules = OptionalRules(
        has_open_tanyao=bool(opts["open_tanyao"]),
        has_aka_dora=bool(opts["red_fives"]),
        has_double_yakuman=bool(opts["double_yakuman"]),
        kazoe_limit=_KAZOE[opts["kazoe_limit"]],
        kiriage=bool(opts["kiriage"]),
        fu_for_open_pinfu=bool(opts["open_pinfu_fu"]),
        renhou_as_yakuman=opts["renhou"] == "yakuman",
    )
    if opts["renhou"] not in ("none", "mangan", "yakuman"):
        raise RefereeError(f"scoring option renhou={opts['renhou']!r} "
                           "(expected none, mangan or yakuman)")
    return _Options(bool(opts["red_fives"]), opts["renhou"], rules,
                    single_double_forms=opts["double_yakuman"] == "daisuushii")


class _Numbering:
    """Gives each tile code a distinct 136 index, red fives on copy 0 as the library expects."""

    def __init__(self, red_fives: bool):
        self.red_fives = red_fives
        self.used: dict[int, set[int]] = {}

    def take(self, code: str) -> int:
        k = T.kind(code)
        used = self.used.setdefault(k, set())
        if k in (4, 13, 22) and self.red_fives:
            order = (0,) if T.is_red(code) else (1, 2, 3, 0)
        else:
            order = (0, 1, 2, 3)
        for copy in order:
            if copy not in used:
                used.add(copy)
                return k * 4 + copy
        raise _FiveCopies(code)


class _FiveCopies(Exception):
    pass


def _counts34(codes: Iterable[str]) -> list[int]:
    counts = [0] * 34
    for c in codes:
        counts[T.kind(c)] += 1
    return counts


def _check_codes(concealed: Sequence[str], melds: Sequence[Mapping[str, Any]]) -> None:
    for c in concealed:
        T.check_tile(c)
    for m in melds:
        for c in m["tiles"]:
            T.check_tile(c)


def _meld_size_ok(melds: Sequence[Mapping[str, Any]]) -> bool:
    for m in melds:
        n = len(m["tiles"])
        if n != (4 if m["kind"] in ("daiminkan", "shouminkan", "ankan") else 3):
            return False
    return True


def is_complete(concealed: Sequence[str], melds: Sequence[Mapping[str, Any]] = ()) -> bool:
    """True when the concealed tiles (winning tile included) with the melds make a winning shape:
    four sets and a pair, seven pairs, or thirteen orphans (the last two only without melds).

    The melds are taken as they are (judging a meld is the core's job); the count must be right:
    ``len(concealed) + 3 * len(melds) == 14``.
    """
    if len(concealed) + 3 * len(melds) != 14 or not _meld_size_ok(melds):
        return False
    counts = _counts34(concealed)
    if max(counts) > 4:
        return False
    return Agari.is_agari(counts)


def waits(concealed: Sequence[str], melds: Sequence[Mapping[str, Any]] = (),
          include_exhausted: bool = True) -> set[str]:
    """The tile kinds (plain codes, ``"5m"`` never ``"0m"``) that would complete a 13-tile hand.

    ``concealed`` holds ``13 - 3 * len(melds)`` tiles. With ``include_exhausted=False`` a kind
    whose four copies are all in this hand (concealed or melded) is left out, as a tenpai check
    at an exhaustive draw wants; furiten wants every wait (the default).
    """
    if len(concealed) + 3 * len(melds) != 13:
        return set()
    counts = _counts34(concealed)
    if max(counts, default=0) > 4:
        return set()
    held = list(counts)
    for m in melds:
        for c in m["tiles"]:
            held[T.kind(c)] += 1
    out = set()
    for k in range(34):
        if counts[k] >= 4:
            continue
        if not include_exhausted and held[k] >= 4:
            continue
        counts[k] += 1
        if Agari.is_agari(counts):
            out.add(T.KINDS[k])
        counts[k] -= 1
    return out


def is_tenpai(concealed: Sequence[str], melds: Sequence[Mapping[str, Any]] = ()) -> bool:
    """Tenpai as shown at an exhaustive draw: a wait on a tile this hand does not hold four of."""
    return bool(waits(concealed, melds, include_exhausted=False))


def _to_meld(meld: Mapping[str, Any], numbering: _Numbering) -> Meld:
    kind = meld["kind"]
    idx = [numbering.take(c) for c in meld["tiles"]]
    called = None
    if meld.get("called"):
        want = meld["called"]
        for c, i in zip(meld["tiles"], idx):
            if c == want:
                called = i
                break
    if kind == "chii":
        return Meld(Meld.CHI, sorted(idx), True, called)
    if kind == "pon":
        return Meld(Meld.PON, idx, True, called)
    if kind == "ankan":
        return Meld(Meld.KAN, idx, False, called)
    if kind == "shouminkan":
        return Meld(Meld.SHOUMINKAN, idx, True, called)
    return Meld(Meld.KAN, idx, True, called)  # daiminkan


def _indicator_index(code: str) -> int:
    # Which copy an indicator is does not matter for dora, only its kind.
    return T.kind(code) * 4 + (1 if T.kind(code) in (4, 13, 22) else 0)


def score_win(concealed: Sequence[str], melds: Sequence[Mapping[str, Any]], win_tile: str,
              situation: Situation = Situation(),
              options: Mapping[str, Any] | None = None) -> WinScore | NotAWin:
    """Judge and value a revealed hand.

    ``concealed`` are the revealed tiles with the winning tile among them; ``melds`` the
    seat's meld dicts (closed kans included); ``win_tile`` the tile won on (a red five is
    ``0m``/``0p``/``0s``). Returns :class:`NotAWin` with ``false_win`` when the tiles do not
    make a winning hand (wrong count, five copies, not a winning shape, winning tile missing)
    and ``no_yaku`` when they do but nothing counts as a yaku (dora alone is not one).
    """
    _check_codes(concealed, melds)
    T.check_tile(win_tile)
    opts = _options(options)
    if win_tile not in concealed:
        return NotAWin("false_win", f"the winning tile {win_tile} is not among the revealed tiles")
    if not _meld_size_ok(melds):
        return NotAWin("false_win", "a meld has the wrong number of tiles")
    if len(concealed) + 3 * len(melds) != 14:
        return NotAWin("false_win", f"{len(concealed)} revealed tiles with {len(melds)} melds "
                                    "is not a hand of the right size")
    numbering = _Numbering(opts.red_fives)
    try:
        idx = [numbering.take(c) for c in concealed]
        lib_melds = [_to_meld(m, numbering) for m in melds]
    except _FiveCopies as exc:
        return NotAWin("false_win", f"five copies of {exc.args[0]}")
    win_index = idx[list(concealed).index(win_tile)]
    all_tiles = idx + [i for m in lib_melds for i in m.tiles]

    if not Agari.is_agari(_counts34(concealed)):
        return NotAWin("false_win", "the revealed tiles are not a winning hand")

    result = HandCalculator.estimate_hand_value(
        all_tiles, win_index, melds=lib_melds,
        dora_indicators=[_indicator_index(c) for c in situation.dora_indicators],
        ura_dora_indicators=[_indicator_index(c) for c in situation.ura_indicators],
        config=_hand_config(situation, opts))
    if result.error:
        if result.error == HandCalculator.ERR_NO_YAKU:
            return NotAWin("no_yaku", "the hand has no yaku")
        if result.error == HandCalculator.ERR_HAND_NOT_WINNING:
            return NotAWin("false_win", "the revealed tiles are not a winning hand")
        # Contradictory situations (ippatsu without riichi...) are the caller's bug.
        raise RefereeError(f"cannot score the hand: {result.error}")

    yaku, yakuman = _yaku(result, melds)
    cost = result.cost
    points, ron_pay, dealer_pay, other_pay = _payments(cost, situation)
    return WinScore(han=result.han, fu=result.fu, yaku=tuple(yaku), yakuman=yakuman,
                    limit=_limit(result, yakuman), points=points,
                    ron_payment=ron_pay, dealer_payment=dealer_pay,
                    non_dealer_payment=other_pay, total=cost["total"])


def _hand_config(situation: Situation, opts: _Options) -> HandConfig:
    """The library's view of ``situation`` under the scoring options."""
    renhou = situation.renhou and opts.renhou != "none"
    config = HandConfig(
        is_tsumo=situation.tsumo,
        is_riichi=situation.riichi or situation.double_riichi,
        is_ippatsu=situation.ippatsu,
        is_rinshan=situation.rinshan,
        is_chankan=situation.chankan,
        is_haitei=situation.haitei,
        is_houtei=situation.houtei,
        is_daburu_riichi=situation.double_riichi,
        is_tenhou=situation.tenhou,
        is_chiihou=situation.chiihou,
        is_renhou=renhou,
        player_wind=_WIND_34[situation.seat_wind],
        round_wind=_WIND_34[situation.round_wind],
        kyoutaku_number=situation.kyoutaku,
        tsumi_number=situation.honba,
        options=opts.rules,
    )
    if opts.single_double_forms:
        # the library has one switch for the four double forms; daisuushii keeps its 26 han
        for form in (config.yaku.daburu_kokushi, config.yaku.suuankou_tanki,
                     config.yaku.daburu_chuuren_poutou):
            form.han_closed = 13
    return config


def _yaku(result, melds: Sequence[Mapping[str, Any]]) -> tuple[list[tuple[str, int]], int]:
    """The library's yaku as (name, han) at the han the hand is worth open or closed, and the
    count of yakuman among them."""
    open_hand = any(m["kind"] != "ankan" for m in melds)
    yaku = []
    yakuman = 0
    for y in result.yaku:
        han = y.han_open if open_hand and y.han_open else y.han_closed
        if y.yaku_id == 121 or y.yaku_id == 120 or y.yaku_id == 122:
            han = y.han_closed
        yaku.append((YAKU_NAMES.get(y.yaku_id, y.name.lower()), han))
        if y.is_yakuman:
            yakuman += han // 13
    return yaku, yakuman


def _limit(result, yakuman: int) -> str:
    """The hand's limit (``mangan``, ``kazoe yakuman``...; ``""`` below mangan)."""
    limit = result.cost.get("yaku_level", "") or ""
    if not yakuman and "yakuman" in limit and not limit.startswith("kazoe"):
        limit = "kazoe " + limit  # 13+ han from ordinary yaku; the library labels it plainly
    if not limit and result.han < 5 and result.fu * 2 ** (2 + result.han) > 2000:
        # mahjong 2.1 with kiriage labels only 4-30 and 3-60, and leaves a mangan reached by
        # its fu (4 han 40 fu, 3 han 70 fu) unlabelled, though it pays it as a mangan
        limit = "mangan"
    return limit


def _payments(cost: Mapping[str, Any], situation: Situation) -> tuple[int, int, int, int]:
    """What the hand is paid, before honba and sticks: (points, ron payment, the dealer's
    payment, each non-dealer's payment) for a win by ``situation``'s seat."""
    if situation.tsumo:
        dealer_pay = 0 if situation.is_dealer else cost["main"]
        other_pay = cost["additional"]
        points = (3 * other_pay) if situation.is_dealer else dealer_pay + 2 * other_pay
        ron_pay = 0
    else:
        ron_pay = cost["main"]
        dealer_pay = other_pay = 0
        points = ron_pay
    return points, ron_pay, dealer_pay, other_pay


def nagashi_mangan(situation: Situation, options: Mapping[str, Any] | None = None) -> WinScore:
    """The value of nagashi mangan (paid as a mangan tsumo) for a seat of ``situation``."""
    config = HandConfig(is_tsumo=True, is_nagashi_mangan=True,
                        player_wind=_WIND_34[situation.seat_wind],
                        round_wind=_WIND_34[situation.round_wind],
                        options=_options(options).rules)
    result = HandCalculator.estimate_hand_value([], 0, config=config)
    cost = result.cost
    dealer_pay = 0 if situation.is_dealer else cost["main"]
    other_pay = cost["additional"]
    points = 3 * other_pay if situation.is_dealer else dealer_pay + 2 * other_pay
    return WinScore(han=result.han, fu=result.fu, yaku=(("nagashi mangan", result.han),),
                    yakuman=0, limit="mangan", points=points, ron_payment=0,
                    dealer_payment=dealer_pay, non_dealer_payment=other_pay, total=points)
