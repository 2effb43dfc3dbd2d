"""Tenhou's mjlog XML -> a :class:`~referee.tenhou.records.LoggedGame`.

An mjlog is one tag per thing that happened: ``INIT`` starts a hand, ``T``-``W`` + number a
draw, ``D``-``G`` + number a discard, ``N`` a meld (in Tenhou's meld code), ``REACH``,
``DORA``, and ``AGARI``/``RYUUKYOKU`` end the hand with its figures. Tiles are Tenhou's
136-numbering. Three-player games are refused.
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from urllib.parse import unquote

from .. import tiles as T
from .records import LogError, LoggedEnd, LoggedGame, LoggedHand, LoggedWin

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

# RYUUKYOKU types -> hand_end result and reason.
_DRAWS = {
    None: ("exhaustive", None), "nm": ("exhaustive", "nagashi_mangan"),
    "yao9": ("abortive", "nine_terminals"), "reach4": ("abortive", "four_riichi"),
    "kan4": ("abortive", "four_kans"), "kaze4": ("abortive", "four_winds"),
    "ron3": ("abortive", "triple_ron"),
}


def decode_meld(who: int, m: int, red: bool) -> tuple:
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
        raise LogError("a north-tile extraction (three-player game) is not supported")
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


def parse_mjlog(root: ET.Element) -> LoggedGame:
    """An mjlog's root element (``<mjloggm>``) -> the game it records."""
    names = ["", "", "", ""]
    red = True
    length: str | None = None
    hands: list[LoggedHand] = []
    hand: LoggedHand | None = None
    riichi_pending: set[int] = set()
    after_kan: list[bool] = [False] * 4
    final_scores = final_points = None
    seen_un = False
    open_tanyao = True

    for el in root:
        tag = el.tag
        if tag == "GO":
            gtype = int(el.get("type", "0"))
            if gtype & 0x10:
                raise LogError("a three-player game (GO type flag 0x10) is not supported")
            red = not gtype & 0x02
            open_tanyao = not gtype & 0x04
            length = "south" if gtype & 0x08 else "east"
        elif tag == "UN":
            if not seen_un:
                names = [unquote(el.get(f"n{i}", "")) for i in range(4)]
                seen_un = True
        elif tag == "INIT":
            hand = _init(el, red)
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
            kind, mkind, tiles, called, source, added = decode_meld(who, int(el.get("m")), red)
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
        elif tag in ("AGARI", "RYUUKYOKU"):
            if tag == "AGARI":
                _agari(el, hand, red)
            else:
                hand.end = _ryuukyoku(el, red)
            if el.get("owari"):
                final_scores, final_points = _owari(el.get("owari"))
    return LoggedGame(names=names, red_fives=red, game_length=length, open_tanyao=open_tanyao,
                      hands=hands, final_scores=final_scores, final_points=final_points)


def _init(el: ET.Element, red: bool) -> LoggedHand:
    """An INIT tag -> the hand it starts: round, honba, sticks, scores, dora, the deal."""
    seed = _ints(el.get("seed"))
    if len(seed) < 6:
        raise LogError("an INIT tag without its seed")
    ten = _ints(el.get("ten"))
    haipai = [[T.from_136(i, red) for i in _ints(el.get(f"hai{s}"))] for s in range(4)]
    return LoggedHand(round_index=seed[0], dealer=int(el.get("oya", "0")), honba=seed[1],
                      sticks=seed[2], scores=[x * 100 for x in ten],
                      dora=T.from_136(seed[5], red), haipai=haipai)


def _agari(el: ET.Element, hand: LoggedHand, red: bool) -> None:
    """An AGARI tag ends the hand with its win, or adds a second (third) winner of the same
    discard to it."""
    who = int(el.get("who"))
    from_who = int(el.get("fromWho"))
    ten = _ints(el.get("ten"))
    yaku = _yaku_pairs(_ints(el.get("yaku")))
    yakuman_ids = _ints(el.get("yakuman"))
    yakuman = len(yakuman_ids)
    if yakuman:
        yaku = [(TENHOU_YAKU.get(y, f"tenhou yaku {y}"), 13) for y in yakuman_ids]
    han = 13 * yakuman if yakuman else sum(h for _, h in yaku)
    scores, deltas = _scores(el)
    pao = el.get("paoWho")
    win = LoggedWin(seat=who, from_seat=None if who == from_who else from_who, han=han,
                    fu=ten[0], points=ten[1], yaku=yaku, yakuman=yakuman, payments=deltas,
                    pao=int(pao) if pao is not None else None,
                    concealed=[T.from_136(i, red) for i in _ints(el.get("hai"))],
                    win_tile=T.from_136(int(el.get("machi")), red),
                    ura=[T.from_136(i, red) for i in _ints(el.get("doraHaiUra"))])
    closing = [s + d for s, d in zip(scores, deltas)]
    if hand.end is None:
        hand.end = LoggedEnd("tsumo" if win.from_seat is None else "ron", None, [win],
                             deltas, closing, None)
    else:  # a second (or third) winner of the same discard
        hand.end.wins.append(win)
        hand.end.deltas = [a + b for a, b in zip(hand.end.deltas, deltas)]
        hand.end.closing = closing


def _ryuukyoku(el: ET.Element, red: bool) -> LoggedEnd:
    """A RYUUKYOKU tag -> the draw that ends the hand, with the hands laid open."""
    rtype = el.get("type")
    if rtype not in _DRAWS:
        raise LogError(f"unknown RYUUKYOKU type {rtype!r}")
    result, reason = _DRAWS[rtype]
    scores, deltas = _scores(el)
    shown = {s: [T.from_136(i, red) for i in _ints(el.get(f"hai{s}"))]
             for s in range(4) if el.get(f"hai{s}") is not None}
    return LoggedEnd(result, reason, [], deltas, [s + d for s, d in zip(scores, deltas)],
                     sorted(shown) if result == "exhaustive" else None, shown)


def _scores(el: ET.Element) -> tuple[list[int], list[int]]:
    """A hand end's ``sc``: the scores before it and each seat's change, in points."""
    sc = _ints(el.get("sc"))
    return [sc[2 * i] * 100 for i in range(4)], [sc[2 * i + 1] * 100 for i in range(4)]


def _owari(text: str) -> tuple[list[int], list[float]]:
    parts = text.split(",")
    return ([int(parts[2 * i]) * 100 for i in range(4)],
            [float(parts[2 * i + 1]) for i in range(4)])

