"""Tenhou game logs -> the table events a camera and seat buttons would have produced.

``riichi-referee import-tenhou LOG [-o EVENTS.jsonl]`` reads a Tenhou mjlog (XML, plain or
gzip) or a tenhou.net/6 JSON log and writes table events (format v1, one per line).

:func:`import_log` returns an :class:`ImportedGame`: ``events`` (what a camera and seat buttons
see: discards with riichi turned sideways, call presses inside the claim window, melds with
their called tile and source, dora flips, reveals at wins, tenpai at exhaustive draws; never a
concealed hand or a draw) and, kept apart, ``hands``: what the log says happened in each hand
(wins with han, fu, points, yaku and per-seat payments; the draw type; closing scores), which is
what a replay of the events must reproduce. Seats are Tenhou's player numbers.

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

import gzip
import json
import re
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from . import tiles as T
from .errors import RefereeError
from .scoring import Situation, is_complete, is_tenpai

WINDS = "ESWN"
LIVE_WALL = 70  # 136 tiles - 52 dealt - 14 dead wall: draws a hand can have, rinshan included

# Tenhou's yaku numbers (mjlog) -> the stable names of referee.scoring.
TENHOU_YAKU: dict[int, str] = {
    0: "menzen tsumo", 1: "riichi", 2: "ippatsu", 3: "chankan", 4: "rinshan kaihou",
    5: "haitei", 6: "houtei", 7: "pinfu", 8: "tanyao", 9: "iipeikou",
    10: "seat wind east", 11: "seat wind south", 12: "seat wind west", 13: "seat wind north",
    14: "round wind east", 15: "round wind south", 16: "round wind west",
    17: "round wind north", 18: "white dragon", 19: "green dragon", 20: "red dragon",
    21: "double riichi", 22: "chiitoitsu", 23: "chanta", 24: "ittsu", 25: "sanshoku doujun",
    26: "sanshoku doukou", 27: "sankantsu", 28: "toitoi", 29: "sanankou", 30: "shousangen",
    31: "honroutou", 32: "ryanpeikou", 33: "junchan", 34: "honitsu", 35: "chinitsu",
    36: "renhou", 37: "tenhou", 38: "chiihou", 39: "daisangen", 40: "suuankou",
    41: "suuankou single wait", 42: "tsuuiisou", 43: "ryuuiisou", 44: "chinroutou",
    45: "chuuren poutou", 46: "junsei chuuren poutou", 47: "kokushi musou",
    48: "kokushi musou 13-sided wait", 49: "daisuushii", 50: "shousuushii", 51: "suukantsu",
    52: "dora", 53: "ura dora", 54: "red five",
}
_JP_WIND = {"東": "east", "南": "south", "西": "west", "北": "north"}
# tenhou.net/6 writes yaku by their Japanese names (English in some clients).
TENHOU6_YAKU: dict[str, str] = {
    "門前清自摸和": "menzen tsumo", "立直": "riichi", "一発": "ippatsu", "槍槓": "chankan",
    "嶺上開花": "rinshan kaihou", "海底摸月": "haitei", "河底撈魚": "houtei", "平和": "pinfu",
    "断幺九": "tanyao", "一盃口": "iipeikou", "役牌 白": "white dragon",
    "役牌 發": "green dragon", "役牌 中": "red dragon", "両立直": "double riichi",
    "七対子": "chiitoitsu", "混全帯幺九": "chanta", "一気通貫": "ittsu",
    "三色同順": "sanshoku doujun", "三色同刻": "sanshoku doukou", "三槓子": "sankantsu",
    "対々和": "toitoi", "三暗刻": "sanankou", "小三元": "shousangen", "混老頭": "honroutou",
    "二盃口": "ryanpeikou", "純全帯幺九": "junchan", "混一色": "honitsu", "清一色": "chinitsu",
    "人和": "renhou", "天和": "tenhou", "地和": "chiihou", "大三元": "daisangen",
    "四暗刻": "suuankou", "四暗刻単騎": "suuankou single wait", "字一色": "tsuuiisou",
    "緑一色": "ryuuiisou", "清老頭": "chinroutou", "九蓮宝燈": "chuuren poutou",
    "純正九蓮宝燈": "junsei chuuren poutou", "国士無双": "kokushi musou",
    "国士無双１３面": "kokushi musou 13-sided wait", "大四喜": "daisuushii",
    "小四喜": "shousuushii", "四槓子": "suukantsu", "ドラ": "dora", "裏ドラ": "ura dora",
    "赤ドラ": "red five",
    "Riichi": "riichi", "Dora": "dora", "Ura Dora": "ura dora", "Red Five": "red five",
    "Aka Dora": "red five",
}
for _jp, _en in _JP_WIND.items():
    TENHOU6_YAKU[f"自風 {_jp}"] = f"seat wind {_en}"
    TENHOU6_YAKU[f"場風 {_jp}"] = f"round wind {_en}"

# RYUUKYOKU types (mjlog) and result words (tenhou.net/6) -> hand_end result and reason.
_MJLOG_DRAWS = {
    None: ("exhaustive", None), "nm": ("exhaustive", "nagashi_mangan"),
    "yao9": ("abortive", "nine_terminals"), "reach4": ("abortive", "four_riichi"),
    "kan4": ("abortive", "four_kans"), "kaze4": ("abortive", "four_winds"),
    "ron3": ("abortive", "triple_ron"),
}
_T6_DRAWS = {
    "流局": ("exhaustive", None), "全員聴牌": ("exhaustive", None),
    "全員不聴": ("exhaustive", None), "流し満貫": ("exhaustive", "nagashi_mangan"),
    "九種九牌": ("abortive", "nine_terminals"), "四家立直": ("abortive", "four_riichi"),
    "四槓散了": ("abortive", "four_kans"), "四風連打": ("abortive", "four_winds"),
    "三家和了": ("abortive", "triple_ron"),
}


# --------------------------------------------------------------------------------------------
# What the log says happened (kept apart from the events)

@dataclass
class _WinFigures:
    """What a Tenhou log records of a win (the fields are described under ExpectedWin)."""

    seat: int
    from_seat: int | None
    han: int | None
    fu: int | None
    points: int | None
    yaku: list[tuple[str, int]]
    yakuman: int
    payments: list[int]
    pao: int | None


@dataclass
class ExpectedWin(_WinFigures):
    """One recorded win.

    ``from_seat`` is None for a tsumo. ``points`` is the hand's value before honba and sticks
    (ron: what the discarder pays; tsumo: the sum of the payments). ``payments`` is the score
    change of each seat from this win, honba and riichi sticks included. ``han``/``fu``/
    ``points`` are None where the log does not say (tenhou.net/6 gives no fu for limit hands).
    ``concealed`` (winning tile included), ``win_tile``, ``melds`` and ``situation`` are the
    hand as revealed and how it was won, worked out from the log's play, so the hand can be
    scored independently of the log's own figures.
    """

    concealed: list[str]
    win_tile: str
    melds: list[dict]
    situation: Situation

    @property
    def yaku_names(self) -> list[str]:
        return [name for name, han in self.yaku if han]


@dataclass
class ExpectedHand:
    """One hand as the log records it.

    ``result`` is ``ron``/``tsumo``/``exhaustive``/``abortive``; ``reason`` names an abortive
    draw (``nine_terminals``, ``four_riichi``, ``four_kans``, ``four_winds``, ``triple_ron``) or
    ``nagashi_mangan``. ``tenpai`` lists the seats tenpai at an exhaustive draw. ``scores`` are
    the closing scores (riichi sticks paid in this hand deducted).

    ``checkable`` is False when the log's record of the hand cannot be the expected result
    (hand-edited tenhou.net/6 logs: a win recorded without its value, payments that do not
    add up with the riichi sticks); ``note`` says why. The scores of such a hand, and the
    payments of its wins, are not to be compared; a win's han, fu and points still are
    where the log gives them.
    ``expected_violations`` (``{"seat", "kind"}``) are what a correct referee must flag
    because the log itself shows it (such a hand-made "win" that is no winning hand).
    ``final_hands`` are each seat's concealed tiles and melds when the hand ended (not
    visible to a camera; for checking tenpai and waits).
    """

    index: int
    round_wind: str
    round_number: int
    dealer: int
    honba: int
    riichi_sticks: int
    start_scores: list[int]
    result: str
    reason: str | None
    wins: list[ExpectedWin]
    deltas: list[int]
    scores: list[int]
    tenpai: list[int] | None = None
    checkable: bool = True
    note: str | None = None
    expected_violations: list[dict] = field(default_factory=list)
    final_hands: list[tuple[list[str], list[dict]]] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"{self.round_wind}{self.round_number}-{self.honba}"


@dataclass
class ImportedGame:
    """A Tenhou log as table ``events`` plus the ``hands`` the log records.

    ``final_scores``/``final_points`` are the log's end-of-game scores and match points (after
    uma and oka) when it has them. ``red_fives``, ``open_tanyao`` and ``game_length``
    (``east``/``south``) are the game's rules as the log states them; ``game_start`` carries
    them as extra keys (``red_fives``/``open_tanyao`` only when false).
    """

    source: str
    format: str
    names: list[str]
    red_fives: bool
    open_tanyao: bool
    game_length: str | None
    events: list[dict]
    hands: list[ExpectedHand]
    final_scores: list[int] | None = None
    final_points: list[float] | None = None


# --------------------------------------------------------------------------------------------
# A format-neutral play-by-play of one hand, built by the two parsers

@dataclass
class _Win(_WinFigures):
    # The log's own word on the hand, checked against the play: mjlog gives it, tenhou.net/6
    # leaves it to the replay.
    concealed: list[str] | None = None
    win_tile: str | None = None
    ura: list[str] | None = None


@dataclass
class _End:
    result: str
    reason: str | None
    wins: list[_Win]
    deltas: list[int]
    closing: list[int] | None      # mjlog gives them; otherwise start + deltas - sticks paid
    tenpai: list[int] | None
    shown: dict[int, list[str]] = field(default_factory=dict)   # mjlog: hands laid open


@dataclass
class _Hand:
    round_index: int
    dealer: int
    honba: int
    sticks: int
    scores: list[int]
    dora: str
    haipai: list[list[str]]
    actions: list[tuple] = field(default_factory=list)
    end: _End | None = None
    ura: list[str] = field(default_factory=list)       # tenhou.net/6: the hand's ura list

    @property
    def round_wind(self) -> str:
        return WINDS[self.round_index // 4 % 4]

    @property
    def round_number(self) -> int:
        return self.round_index % 4 + 1


# Actions:
#   ("draw", seat, tile, rinshan)
#   ("discard", seat, tile, riichi)
#   ("call", seat, kind, tiles, called, from)             chii / pon / daiminkan
#   ("kan", seat, kind, tiles, called, from, added)       ankan / shouminkan
#   ("dora", indicator)
#   ("riichi_ok", seat)                                   the riichi stick is paid


class _LogError(Exception):
    """Something in the log does not add up; becomes a RefereeError naming the file."""


# --------------------------------------------------------------------------------------------
# mjlog XML

def _decode_meld(who: int, m: int, red: bool) -> tuple:
    """Tenhou's meld code -> ("call"/"kan", kind, tiles, called, from, added)."""
    code = lambda i: T.from_136(i, red)  # noqa: E731
    rel = m & 3
    source = (who + rel) % 4
    if m & 0x4:  # chii
        t = [(m >> 3) & 3, (m >> 5) & 3, (m >> 7) & 3]
        base_called = m >> 10
        called = base_called % 3
        base = base_called // 3
        base = (base // 7) * 9 + base % 7
        idx = [(base + i) * 4 + t[i] for i in range(3)]
        return ("call", "chii", [code(i) for i in idx], code(idx[called]), source, None)
    if m & 0x18:  # pon (0x8) or added kan (0x10)
        t4 = (m >> 5) & 3
        base_called = m >> 9
        called = base_called % 3
        base = base_called // 3
        three = [base * 4 + i for i in range(4) if i != t4]
        if m & 0x8:
            return ("call", "pon", [code(i) for i in three], code(three[called]), source, None)
        four = [base * 4 + i for i in range(4)]
        return ("kan", "shouminkan", [code(i) for i in four], code(three[called]), source,
                code(base * 4 + t4))
    if m & 0x20:
        raise _LogError("a north-tile extraction (three-player game) is not supported")
    base_called = m >> 8
    called = base_called % 4
    base = base_called // 4
    four = [base * 4 + i for i in range(4)]
    if rel == 0:
        return ("kan", "ankan", [code(i) for i in four], None, None, None)
    return ("call", "daiminkan", [code(i) for i in four], code(base * 4 + called), source, None)


def _ints(text: str | None) -> list[int]:
    if not text:
        return []
    return [int(x) for x in text.split(",") if x != ""]


def _yaku_pairs(pairs: list[int]) -> list[tuple[str, int]]:
    return [(TENHOU_YAKU.get(pairs[i], f"tenhou yaku {pairs[i]}"), pairs[i + 1])
            for i in range(0, len(pairs) - 1, 2)]


_DRAW_TAG = re.compile(r"([TUVW])(\d+)$")
_DISCARD_TAG = re.compile(r"([DEFG])(\d+)$")


def _parse_mjlog(root: ET.Element) -> tuple:
    """-> (names, red fives, game length, hands, final scores, final points, open tanyao)"""
    names = ["", "", "", ""]
    red = True
    length: str | None = None
    hands: list[_Hand] = []
    hand: _Hand | None = None
    riichi_pending: set[int] = set()
    after_kan: list[bool] = [False] * 4
    final_scores = final_points = None
    seen_un = False
    open_tanyao = True

    def finish_scores(el: ET.Element) -> list[int]:
        sc = _ints(el.get("sc"))
        return [sc[2 * i] * 100 for i in range(4)], [sc[2 * i + 1] * 100 for i in range(4)]

    for el in root:
        tag = el.tag
        if tag == "GO":
            gtype = int(el.get("type", "0"))
            if gtype & 0x10:
                raise _LogError("a three-player game (GO type flag 0x10) is not supported")
            red = not gtype & 0x02
            open_tanyao = not gtype & 0x04
            length = "south" if gtype & 0x08 else "east"
        elif tag == "UN":
            if not seen_un:
                names = [unquote(el.get(f"n{i}", "")) for i in range(4)]
                seen_un = True
        elif tag == "INIT":
            seed = _ints(el.get("seed"))
            if len(seed) < 6:
                raise _LogError("an INIT tag without its seed")
            ten = _ints(el.get("ten"))
            haipai = [[T.from_136(i, red) for i in _ints(el.get(f"hai{s}"))] for s in range(4)]
            hand = _Hand(round_index=seed[0], dealer=int(el.get("oya", "0")), honba=seed[1],
                         sticks=seed[2], scores=[x * 100 for x in ten],
                         dora=T.from_136(seed[5], red), haipai=haipai)
            hands.append(hand)
            riichi_pending = set()
            after_kan = [False] * 4
        elif hand is None:
            continue
        elif m := _DRAW_TAG.match(tag):
            seat = "TUVW".index(m.group(1))
            tile = T.from_136(int(m.group(2)), red)
            hand.actions.append(("draw", seat, tile, after_kan[seat]))
            after_kan[seat] = False
        elif m := _DISCARD_TAG.match(tag):
            seat = "DEFG".index(m.group(1))
            tile = T.from_136(int(m.group(2)), red)
            hand.actions.append(("discard", seat, tile, seat in riichi_pending))
            riichi_pending.discard(seat)
        elif tag == "N":
            who = int(el.get("who"))
            kind, mkind, tiles, called, source, added = _decode_meld(who, int(el.get("m")), red)
            if kind == "call":
                hand.actions.append(("call", who, mkind, tiles, called, source))
                if mkind == "daiminkan":
                    after_kan[who] = True
            else:
                hand.actions.append(("kan", who, mkind, tiles, called, source, added))
                after_kan[who] = True
        elif tag == "REACH":
            who = int(el.get("who"))
            if el.get("step") == "1":
                riichi_pending.add(who)
            else:
                hand.actions.append(("riichi_ok", who))
        elif tag == "DORA":
            hand.actions.append(("dora", T.from_136(int(el.get("hai")), red)))
        elif tag == "AGARI":
            who = int(el.get("who"))
            from_who = int(el.get("fromWho"))
            ten = _ints(el.get("ten"))
            yaku = _yaku_pairs(_ints(el.get("yaku")))
            yakuman_ids = _ints(el.get("yakuman"))
            yakuman = len(yakuman_ids)
            if yakuman:
                yaku = [(TENHOU_YAKU.get(y, f"tenhou yaku {y}"), 13) for y in yakuman_ids]
            han = 13 * yakuman if yakuman else sum(h for _, h in yaku)
            scores, deltas = finish_scores(el)
            pao = el.get("paoWho")
            win = _Win(seat=who, from_seat=None if who == from_who else from_who, han=han,
                       fu=ten[0], points=ten[1], yaku=yaku, yakuman=yakuman, payments=deltas,
                       pao=int(pao) if pao is not None else None,
                       concealed=[T.from_136(i, red) for i in _ints(el.get("hai"))],
                       win_tile=T.from_136(int(el.get("machi")), red),
                       ura=[T.from_136(i, red) for i in _ints(el.get("doraHaiUra"))])
            closing = [s + d for s, d in zip(scores, deltas)]
            if hand.end is None:
                hand.end = _End("tsumo" if win.from_seat is None else "ron", None, [win],
                                deltas, closing, None)
            else:  # a second (or third) winner of the same discard
                hand.end.wins.append(win)
                hand.end.deltas = [a + b for a, b in zip(hand.end.deltas, deltas)]
                hand.end.closing = closing
            if el.get("owari"):
                final_scores, final_points = _owari(el.get("owari"))
        elif tag == "RYUUKYOKU":
            rtype = el.get("type")
            if rtype not in _MJLOG_DRAWS:
                raise _LogError(f"unknown RYUUKYOKU type {rtype!r}")
            result, reason = _MJLOG_DRAWS[rtype]
            scores, deltas = finish_scores(el)
            shown = {s: [T.from_136(i, red) for i in _ints(el.get(f"hai{s}"))]
                     for s in range(4) if el.get(f"hai{s}") is not None}
            hand.end = _End(result, reason, [], deltas, [s + d for s, d in zip(scores, deltas)],
                            sorted(shown) if result == "exhaustive" else None, shown)
            if el.get("owari"):
                final_scores, final_points = _owari(el.get("owari"))
    return names, red, length, hands, final_scores, final_points, open_tanyao


def _owari(text: str) -> tuple[list[int], list[float]]:
    parts = text.split(",")
    return ([int(parts[2 * i]) * 100 for i in range(4)],
            [float(parts[2 * i + 1]) for i in range(4)])


# --------------------------------------------------------------------------------------------
# tenhou.net/6 JSON

_T6_TILES = {**{10 * s + n: f"{n}{'mpsz'[s - 1]}" for s in (1, 2, 3) for n in range(1, 10)},
             **{40 + n: f"{n}z" for n in range(1, 8)}, 51: "0m", 52: "0p", 53: "0s"}


def _t6_tile(value: Any) -> str:
    if isinstance(value, int) and value in _T6_TILES:
        return _T6_TILES[value]
    raise _LogError(f"unknown tile number {value!r}")


def _t6_split(text: str) -> list[str]:
    out = []
    i = 0
    while i < len(text):
        if text[i].isalpha():
            i += 1
            continue
        out.append(text[i:i + 2])
        i += 2
    return out


def _t6_take(seat: int, item: Any) -> tuple:
    """A draw-list entry -> ("draw", tile) or ("call", kind, tiles, called, from)."""
    if isinstance(item, int):
        return ("draw", _t6_tile(item))
    if not isinstance(item, str):
        raise _LogError(f"cannot read draw {item!r}")
    m = re.search(r"[cpm]", item)
    if not m:
        raise _LogError(f"cannot read call {item!r}")
    letter, pos = m.group(0), m.start()
    called = _t6_tile(int(item[pos + 1:pos + 3]))
    tiles = [_t6_tile(int(x)) for x in _t6_split(item)]
    if letter == "c":
        return ("call", "chii", tiles, called, (seat + 3) % 4)
    # The letter's place says where the tile came from: first = left, middle = across,
    # last = right.
    if letter == "p":
        rel = {0: 3, 2: 2, 4: 1}.get(pos)
        kind = "pon"
    else:
        rel = {0: 3, 2: 2, 6: 1}.get(pos)
        kind = "daiminkan"
    if rel is None:
        raise _LogError(f"cannot read call {item!r}")
    return ("call", kind, tiles, called, (seat + rel) % 4)


def _t6_discard(item: Any) -> tuple:
    """A discard-list entry -> ("discard", tile|None, riichi) / ("kan", ...) / ("skip",)."""
    if item == 0:
        return ("skip",)
    if item == 60:
        return ("discard", None, False)
    if isinstance(item, int):
        return ("discard", _t6_tile(item), False)
    if isinstance(item, str) and item.startswith("r"):
        value = int(item[1:])
        return ("discard", None if value == 60 else _t6_tile(value), True)
    if isinstance(item, str):
        m = re.search(r"[ka]", item)
        if m:
            tiles = [_t6_tile(int(x)) for x in _t6_split(item)]
            if m.group(0) == "a":
                return ("kan", "ankan", tiles, None)
            return ("kan", "shouminkan", tiles, _t6_tile(int(item[m.start() + 1:m.start() + 3])))
    raise _LogError(f"cannot read discard {item!r}")


class _Dead(Exception):
    """This reading of the draw and discard lists leads nowhere; try another."""


@dataclass
class _T6State:
    ti: list[int]
    di: list[int]
    actor: int
    actions: list[tuple]
    last: tuple[int, str] | None = None  # (discarder, tile)


def _t6_order(takes: list[list[tuple]], discards: list[list[tuple]], dealer: int) -> list[tuple]:
    """Interleave the four players' draw and discard lists into one play-by-play.

    The lists do not say in which order seats acted. Following turn order is enough except when
    a seat calls a tile that its discarder throws again before anyone draws: then either
    discard may be the one called, and only one reading lets every list be used up. A
    depth-first search tries the readings (a call first, then letting the tile pass).
    """
    def done(st: _T6State) -> bool:
        return all(st.ti[s] >= len(takes[s]) and st.di[s] >= len(discards[s]) for s in range(4))

    def takes_left(st: _T6State) -> bool:
        return any(st.ti[s] < len(takes[s]) for s in range(4))

    def run(st: _T6State, rinshan: bool) -> list[tuple]:
        while True:
            actor = st.actor
            if st.ti[actor] >= len(takes[actor]):
                raise _Dead
            take = takes[actor][st.ti[actor]]
            st.ti[actor] += 1
            drawn = None
            if take[0] == "draw":
                drawn = take[1]
                st.actions.append(("draw", actor, drawn, rinshan))
            else:
                _, kind, tiles, called, source = take
                if st.last is None or st.last != (source, called):
                    raise _Dead
                st.actions.append(("call", actor, kind, tiles, called, source))
                if kind == "daiminkan":
                    if st.di[actor] >= len(discards[actor]) or discards[actor][st.di[actor]][0] != "skip":
                        raise _Dead
                    st.di[actor] += 1
                    rinshan = True
                    st.last = None
                    continue
            rinshan = False
            if st.di[actor] >= len(discards[actor]):
                if done(st):
                    return st.actions  # tsumo, or nine terminals
                raise _Dead
            item = discards[actor][st.di[actor]]
            st.di[actor] += 1
            if item[0] == "skip":
                raise _Dead
            if item[0] == "kan":
                _, kind, tiles, added = item
                st.actions.append(("kan", actor, kind, tiles, None, None, added))
                st.last = (actor, added) if kind == "shouminkan" else None
                if not takes_left(st):
                    if done(st):
                        return st.actions  # robbed (chankan)
                    raise _Dead
                rinshan = True
                continue
            _, tile, riichi = item
            if tile is None:
                if drawn is None:
                    raise _Dead
                tile = drawn
            st.actions.append(("discard", actor, tile, riichi))
            st.last = (actor, tile)
            if not takes_left(st):
                if done(st):
                    return st.actions
                raise _Dead
            options = []
            for seat in range(4):
                if seat == actor or st.ti[seat] >= len(takes[seat]):
                    continue
                nxt = takes[seat][st.ti[seat]]
                if nxt[0] == "call" and (nxt[4], nxt[3]) == (actor, tile):
                    options.append((0 if nxt[1] == "chii" else 1, seat))
            options.sort(reverse=True)
            nxt_seat = (actor + 1) % 4
            choices = [seat for _, seat in options]
            if st.ti[nxt_seat] < len(takes[nxt_seat]) and takes[nxt_seat][st.ti[nxt_seat]][0] == "draw":
                choices.append(None)
            if not choices:
                raise _Dead
            if len(choices) == 1:
                st.actor = choices[0] if choices[0] is not None else nxt_seat
                if choices[0] is None:
                    st.last = None
                continue
            for choice in choices:
                branch = _T6State(list(st.ti), list(st.di),
                                  choice if choice is not None else nxt_seat,
                                  list(st.actions), st.last if choice is not None else None)
                try:
                    return run(branch, False)
                except _Dead:
                    continue
            raise _Dead

    try:
        return run(_T6State([0] * 4, [0] * 4, dealer, []), False)
    except _Dead:
        raise _LogError("the draw and discard lists do not make a playable hand") from None
    except RecursionError:  # pragma: no cover - would need hundreds of ambiguous calls
        raise _LogError("the draw and discard lists are too ambiguous to order") from None


def _t6_dora_flips(actions: list[tuple], indicators: list[str]) -> list[tuple]:
    """Insert the kan dora flips where Tenhou makes them (see the module docstring)."""
    out: list[tuple] = []
    feed = iter(indicators[1:])
    pending: dict[int, int] = {}

    def flip() -> None:
        try:
            out.append(("dora", next(feed)))
        except StopIteration:
            raise _LogError("more kans than dora indicators") from None

    for i, act in enumerate(actions):
        kind = act[0]
        if kind == "discard" and pending.get(act[1]):
            for _ in range(pending.pop(act[1])):
                flip()
        out.append(act)
        if kind == "call" and act[2] == "daiminkan":
            pending[act[1]] = pending.get(act[1], 0) + 1
        elif kind == "kan":
            seat = act[1]
            robbed = i == len(actions) - 1
            if pending.get(seat) and not robbed:
                for _ in range(pending.pop(seat)):
                    flip()
            if act[2] == "ankan":
                flip()
            elif not robbed:
                pending[seat] = pending.get(seat, 0) + 1
    if next(feed, None) is not None:
        raise _LogError("fewer kans than dora indicators")
    return out


_POINTS = re.compile(r"(?:(\d+)符)?(?:(\d+)飜)?[^\d]*?(\d+)(?:-(\d+))?点(∀)?")


def _t6_points(text: str) -> tuple[int | None, int | None]:
    """'30符2飜500-1000点' -> (fu, points): points is the sum for a tsumo."""
    m = _POINTS.search(text)
    if not m:
        raise _LogError(f"cannot read the score {text!r}")
    fu = int(m.group(1)) if m.group(1) else None
    a = int(m.group(3))
    if m.group(4):
        return fu, 2 * a + int(m.group(4))
    if m.group(5):
        return fu, 3 * a
    return fu, a


_YAKU_HAN = re.compile(r"^(.*)\((\d+)飜\)$|^(.*)\(役満\)$")


def _t6_yaku(texts: list[str]) -> tuple[list[tuple[str, int]], int]:
    yaku = []
    yakuman = 0
    for text in texts:
        m = _YAKU_HAN.match(text)
        if not m:
            raise _LogError(f"cannot read the yaku {text!r}")
        if m.group(3) is not None:
            yaku.append((TENHOU6_YAKU.get(m.group(3), m.group(3)), 13))
            yakuman += 1
        else:
            yaku.append((TENHOU6_YAKU.get(m.group(1), m.group(1)), int(m.group(2))))
    return yaku, yakuman


def _parse_tenhou6(data: dict) -> tuple:
    """-> (names, red fives, game length, hands, final scores, final points, open tanyao)"""
    log = data.get("log")
    if not isinstance(log, list):
        raise _LogError("no 'log' list")
    names = data.get("name") or ["", "", "", ""]
    if not isinstance(names, list) or len(names) != 4:
        raise _LogError("'name' must list four players")
    rule = data.get("rule") or {}
    red_keys = [k for k in ("aka", "aka51", "aka52", "aka53") if k in rule]
    red = any(rule.get(k) for k in red_keys)
    disp = str(rule.get("disp", ""))
    # Tenhou's room label: 喰 = open tanyao allowed (every ranked room has it).
    open_tanyao = "喰" in disp if disp and not disp.isascii() else True
    length = None
    if "南" in disp or "South" in disp:
        length = "south"
    elif "東" in disp or "East" in disp:
        length = "east"
    hands = []
    for number, entry in enumerate(log, start=1):
        try:
            hands.append(_t6_hand(entry))
        except _LogError as exc:
            raise _LogError(f"hand {number}: {exc}") from None
        except (TypeError, ValueError, IndexError, KeyError) as exc:
            raise _LogError(f"hand {number}: cannot read it ({exc})") from None
    if not red_keys:  # no rule block: a red five in play says it
        red = any(T.is_red(t) for h in hands for t in
                  [x for hp in h.haipai for x in hp]
                  + [a[2] for a in h.actions if a[0] in ("draw", "discard")])
    final_scores = final_points = None
    sc = data.get("sc")
    if isinstance(sc, list) and len(sc) == 8:
        final_scores = [int(sc[2 * i]) for i in range(4)]
        final_points = [float(sc[2 * i + 1]) for i in range(4)]
    return ([str(n) for n in names], red, length, hands, final_scores, final_points,
            open_tanyao)


def _t6_hand(entry: list) -> _Hand:
    (round_index, honba, sticks), scores, dora, ura = entry[0], entry[1], entry[2], entry[3]
    haipai = [[_t6_tile(x) for x in entry[4 + 3 * s]] for s in range(4)]
    takes = [[_t6_take(s, x) for x in entry[5 + 3 * s]] for s in range(4)]
    discards = [[_t6_discard(x) for x in entry[6 + 3 * s]] for s in range(4)]
    result = entry[16]
    dealer = round_index % 4
    indicators = [_t6_tile(x) for x in dora]
    hand = _Hand(round_index=round_index, dealer=dealer, honba=honba, sticks=sticks,
                 scores=list(scores), dora=indicators[0], haipai=haipai,
                 ura=[_t6_tile(x) for x in ura])
    actions = _t6_order(takes, discards, dealer)
    # Riichi sticks: a riichi stands (its stick is paid) once its discard passes unclaimed
    # by a ron; a pon or chii of the riichi tile does not undo it.
    with_riichi: list[tuple] = []
    for i, act in enumerate(actions):
        with_riichi.append(act)
        if act[0] == "discard" and act[3]:
            last = i == len(actions) - 1
            if not (last and result[0] in ("和了", "三家和了")):
                with_riichi.append(("riichi_ok", act[1]))
    hand.actions = _t6_dora_flips(with_riichi, indicators)
    word = result[0]
    if word == "和了":
        wins = []
        total = [0, 0, 0, 0]
        for i in range(1, len(result), 2):
            deltas, info = result[i], result[i + 1]
            who, from_who, pao = info[0], info[1], info[2]
            if len(info) > 3:
                fu, points = _t6_points(info[3])
                yaku, yakuman = _t6_yaku(info[4:])
                han = 13 * yakuman if yakuman else sum(h for _, h in yaku)
            else:  # some hand-made logs record only who won
                fu = points = han = None
                yaku, yakuman = [], 0
            wins.append(_Win(seat=who, from_seat=None if who == from_who else from_who,
                             han=han, fu=fu, points=points, yaku=yaku, yakuman=yakuman,
                             payments=list(deltas), pao=pao if pao != who else None))
            total = [a + b for a, b in zip(total, deltas)]
        hand.end = _End("tsumo" if wins[0].from_seat is None else "ron", None, wins, total,
                        None, None)
    elif word in _T6_DRAWS:
        res, reason = _T6_DRAWS[word]
        deltas = list(result[1]) if len(result) > 1 else [0, 0, 0, 0]
        hand.end = _End(res, reason, [], deltas, None, None)
    else:
        raise _LogError(f"unknown result {word!r}")
    return hand


# --------------------------------------------------------------------------------------------
# From the play-by-play to events and expected results

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

    def __init__(self, hand: _Hand, events: list[dict], clock: _Clock, index: int):
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
            raise _LogError("the hand has no result")
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
            raise _LogError(f"seat {seat} gives up {tile}, which is not in its hand") from None

    def _call(self, seat: int, kind: str, tiles: list[str], called: str, source: int) -> None:
        if self.last_discard != (source, called):
            raise _LogError(f"seat {seat}'s {kind} of {called} matches no discard")
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
                raise _LogError(f"seat {seat} adds {added} to a pon it does not have")
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
    def _end(self, end: _End) -> ExpectedHand:
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
                raise _LogError(f"seat {seat}'s nine terminals are not the hand the play "
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

    def _wins(self, recorded: list[_Win]) -> list[ExpectedWin]:
        out = []
        tsumo = recorded[0].from_seat is None
        if tsumo:
            seat = recorded[0].seat
            press = self.own_turn_ms()
            self.emit(press, {"type": "call", "seat": seat, "call": "ron"})
            reveal_ms = [press + 500]
        else:
            if self.last_discard is None:
                raise _LogError("a ron with no discard to win on")
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
            figures = {f.name: getattr(w, f.name) for f in fields(_WinFigures)}
            figures["payments"] = list(w.payments)
            out.append(ExpectedWin(**figures,
                                   concealed=T.sorted_tiles(concealed), win_tile=win_tile,
                                   melds=[dict(m) for m in self.melds[w.seat]],
                                   situation=situation))
        return out

    def _won_hand(self, w: _Win, bonus: bool = True) -> tuple[list[str], str, Situation]:
        h = self.hand
        seat = w.seat
        tsumo = w.from_seat is None
        if tsumo:
            if self.last_draw[seat] is None:
                raise _LogError(f"seat {seat} wins by tsumo without a draw")
            win_tile, rinshan = self.last_draw[seat]
            concealed = list(self.concealed[seat])
        else:
            d_seat, win_tile = self.last_discard
            if d_seat != w.from_seat:
                raise _LogError(f"seat {seat}'s ron names seat {w.from_seat}, "
                                f"but seat {d_seat} gave the tile")
            rinshan = False
            concealed = self.concealed[seat] + [win_tile]
        if w.win_tile is not None and w.win_tile != win_tile:
            raise _LogError(f"seat {seat} wins on {w.win_tile}, but the play gives {win_tile}")
        if w.concealed is not None and Counter(w.concealed) != Counter(concealed):
            raise _LogError(f"seat {seat}'s winning hand {T.hand_str(w.concealed)} is not the "
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


# --------------------------------------------------------------------------------------------
# Reading a file

def _read(path: Path) -> bytes:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise RefereeError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise RefereeError(f"{path}: is a folder, not a log file") from None
    except OSError as exc:
        raise RefereeError(f"{path}: cannot read it ({exc.strerror})") from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise RefereeError(f"{path}: a damaged gzip file ({exc})") from None
    return data


def import_log(path: str | Path) -> ImportedGame:
    """Read a Tenhou log file (mjlog XML, plain or gzip, or tenhou.net/6 JSON)."""
    path = Path(path)
    data = _read(path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise RefereeError(f"{path}: not a Tenhou log (not UTF-8 text)") from None
    return import_text(text, str(path))


def import_text(text: str, source: str = "<log>") -> ImportedGame:
    """Import a log already read into a string; ``source`` names it in errors."""
    stripped = text.lstrip()
    try:
        if stripped.startswith("<"):
            try:
                root = ET.fromstring(stripped)
            except ET.ParseError as exc:
                raise RefereeError(f"{source}: not a Tenhou log (broken XML: {exc})") from None
            if root.tag != "mjloggm":
                raise RefereeError(f"{source}: not a Tenhou mjlog (root element "
                                   f"<{root.tag}>, expected <mjloggm>)")
            fmt = "mjlog"
            parsed = _parse_mjlog(root)
        elif stripped.startswith("{"):
            try:
                data = json.loads(stripped)
            except json.JSONDecodeError as exc:
                raise RefereeError(f"{source}: not a Tenhou log (broken JSON: {exc.msg} at "
                                   f"line {exc.lineno})") from None
            if not isinstance(data, dict) or "log" not in data:
                raise RefereeError(f"{source}: not a tenhou.net/6 log (no 'log' key)")
            fmt = "tenhou6"
            parsed = _parse_tenhou6(data)
        else:
            raise RefereeError(f"{source}: not a Tenhou log (neither mjlog XML nor "
                               "tenhou.net/6 JSON)")
        names, red, length, hands, final_scores, final_points, open_tanyao = parsed
        if not hands:
            raise _LogError("no hands in the log")
        events: list[dict] = []
        start = {"type": "game_start", "t": 0.0, "ruleset": "tenhou",
                 "scores": list(hands[0].scores)}
        if any(names):
            start["names"] = names
        if not red:
            start["red_fives"] = False
        if not open_tanyao:
            start["open_tanyao"] = False
        if length:
            start["game_length"] = length
        events.append(start)
        clock = _Clock()
        expected = []
        for i, hand in enumerate(hands):
            try:
                expected.append(_Replay(hand, events, clock, i).run())
            except _LogError as exc:
                label = f"{hand.round_wind}{hand.round_number}-{hand.honba}"
                raise _LogError(f"hand {label}: {exc}") from None
    except _LogError as exc:
        raise RefereeError(f"{source}: {exc}") from None
    except (KeyError, ValueError, TypeError, IndexError, AttributeError) as exc:
        raise RefereeError(f"{source}: not a readable Tenhou log ({type(exc).__name__}: "
                           f"{exc})") from None
    return ImportedGame(source=source, format=fmt, names=names, red_fives=red,
                        open_tanyao=open_tanyao, game_length=length, events=events,
                        hands=expected,
                        final_scores=final_scores, final_points=final_points)


# --------------------------------------------------------------------------------------------
# CLI


