"""A tenhou.net/6 JSON log -> a :class:`~referee.tenhou.records.LoggedGame`.

Each hand of the ``log`` list gives the round, the scores, the dora and ura indicators, then
for each seat its starting tiles, its draws (calls included) and its discards (kans
included), and last the result with its figures. The lists do not say in which order the
seats acted: :func:`interleave` works that out. Tiles are numbered 11-19, 21-29, 31-39
(man, pin, sou), 41-47 (honours), 51-53 (red fives).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .. import tiles as T
from .records import LogError, LoggedEnd, LoggedGame, LoggedHand, LoggedWin

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

# Result words -> hand_end result and reason.
_DRAWS = {
    "流局": ("exhaustive", None), "全員聴牌": ("exhaustive", None),
    "全員不聴": ("exhaustive", None), "流し満貫": ("exhaustive", "nagashi_mangan"),
    "九種九牌": ("abortive", "nine_terminals"), "四家立直": ("abortive", "four_riichi"),
    "四槓散了": ("abortive", "four_kans"), "四風連打": ("abortive", "four_winds"),
    "三家和了": ("abortive", "triple_ron"),
}


_T6_TILES = {**{10 * s + n: f"{n}{'mpsz'[s - 1]}" for s in (1, 2, 3) for n in range(1, 10)},
             **{40 + n: f"{n}z" for n in range(1, 8)}, 51: "0m", 52: "0p", 53: "0s"}


def _t6_tile(value: Any) -> str:
    if isinstance(value, int) and value in _T6_TILES:
        return _T6_TILES[value]
    raise LogError(f"unknown tile number {value!r}")


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
        raise LogError(f"cannot read draw {item!r}")
    m = re.search(r"[cpm]", item)
    if not m:
        raise LogError(f"cannot read call {item!r}")
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
        raise LogError(f"cannot read call {item!r}")
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
    raise LogError(f"cannot read discard {item!r}")


class _Dead(Exception):
    """This reading of the draw and discard lists leads nowhere; try another."""


@dataclass
class _T6State:
    ti: list[int]
    di: list[int]
    actor: int
    actions: list[tuple]
    last: tuple[int, str] | None = None  # (discarder, tile)


def interleave(takes: list[list[tuple]], discards: list[list[tuple]], dealer: int) -> list[tuple]:
    """Interleave the four players' draw and discard lists into one play-by-play.

    The lists do not say in which order seats acted. Following turn order is enough except when
    a seat calls a tile that its discarder throws again before anyone draws: then either
    discard may be the one called, and only one reading lets every list be used up. A
    depth-first search tries the readings (a call first, then letting the tile pass).
    """
    try:
        return _Interleaving(takes, discards).run(_T6State([0] * 4, [0] * 4, dealer, []), False)
    except _Dead:
        raise LogError("the draw and discard lists do not make a playable hand") from None
    except RecursionError:  # pragma: no cover - would need hundreds of ambiguous calls
        raise LogError("the draw and discard lists are too ambiguous to order") from None


class _Interleaving:
    """One hand's draw and discard lists (each seat's), read in turn order by :meth:`run`."""

    def __init__(self, takes: list[list[tuple]], discards: list[list[tuple]]):
        self.takes = takes
        self.discards = discards

    def done(self, st: _T6State) -> bool:
        return all(st.ti[s] >= len(self.takes[s]) and st.di[s] >= len(self.discards[s])
                   for s in range(4))

    def takes_left(self, st: _T6State) -> bool:
        return any(st.ti[s] < len(self.takes[s]) for s in range(4))

    def run(self, st: _T6State, rinshan: bool) -> list[tuple]:
        """Play on from ``st`` until every list is used up; _Dead where this reading fails."""
        takes, discards = self.takes, self.discards
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
                if self.done(st):
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
                if not self.takes_left(st):
                    if self.done(st):
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
            if not self.takes_left(st):
                if self.done(st):
                    return st.actions
                raise _Dead
            nxt_seat = (actor + 1) % 4
            choices = self.next_to_act(st, actor, tile)
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
                    return self.run(branch, False)
                except _Dead:
                    continue
            raise _Dead

    def next_to_act(self, st: _T6State, actor: int, tile: str) -> list[int | None]:
        """Who may act after ``actor`` discards ``tile``: the seats whose next take is a call
        of it (pon and kan before chii), then None where the next seat may draw instead."""
        takes = self.takes
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
        return choices


def _t6_dora_flips(actions: list[tuple], indicators: list[str]) -> list[tuple]:
    """Insert the kan dora flips where Tenhou makes them (see referee.tenhou.to_events)."""
    out: list[tuple] = []
    feed = iter(indicators[1:])
    pending: dict[int, int] = {}

    def flip() -> None:
        try:
            out.append(("dora", next(feed)))
        except StopIteration:
            raise LogError("more kans than dora indicators") from None

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
        raise LogError("fewer kans than dora indicators")
    return out


_POINTS = re.compile(r"(?:(\d+)符)?(?:(\d+)飜)?[^\d]*?(\d+)(?:-(\d+))?点(∀)?")


def _t6_points(text: str) -> tuple[int | None, int | None]:
    """'30符2飜500-1000点' -> (fu, points): points is the sum for a tsumo."""
    m = _POINTS.search(text)
    if not m:
        raise LogError(f"cannot read the score {text!r}")
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
            raise LogError(f"cannot read the yaku {text!r}")
        if m.group(3) is not None:
            yaku.append((TENHOU6_YAKU.get(m.group(3), m.group(3)), 13))
            yakuman += 1
        else:
            yaku.append((TENHOU6_YAKU.get(m.group(1), m.group(1)), int(m.group(2))))
    return yaku, yakuman


def parse_tenhou6(data: dict) -> LoggedGame:
    """A tenhou.net/6 log's JSON object -> the game it records."""
    log = data.get("log")
    if not isinstance(log, list):
        raise LogError("no 'log' list")
    names = data.get("name") or ["", "", "", ""]
    if not isinstance(names, list) or len(names) != 4:
        raise LogError("'name' must list four players")
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
        except LogError as exc:
            raise LogError(f"hand {number}: {exc}") from None
        except (TypeError, ValueError, IndexError, KeyError) as exc:
            raise LogError(f"hand {number}: cannot read it ({exc})") from None
    if not red_keys:  # no rule block: a red five in play says it
        red = any(T.is_red(t) for h in hands for t in
                  [x for hp in h.haipai for x in hp]
                  + [a[2] for a in h.actions if a[0] in ("draw", "discard")])
    final_scores = final_points = None
    sc = data.get("sc")
    if isinstance(sc, list) and len(sc) == 8:
        final_scores = [int(sc[2 * i]) for i in range(4)]
        final_points = [float(sc[2 * i + 1]) for i in range(4)]
    return LoggedGame(names=[str(n) for n in names], red_fives=red, game_length=length,
                      open_tanyao=open_tanyao, hands=hands, final_scores=final_scores,
                      final_points=final_points)


def _t6_hand(entry: list) -> LoggedHand:
    (round_index, honba, sticks), scores, dora, ura = entry[0], entry[1], entry[2], entry[3]
    haipai = [[_t6_tile(x) for x in entry[4 + 3 * s]] for s in range(4)]
    takes = [[_t6_take(s, x) for x in entry[5 + 3 * s]] for s in range(4)]
    discards = [[_t6_discard(x) for x in entry[6 + 3 * s]] for s in range(4)]
    result = entry[16]
    dealer = round_index % 4
    indicators = [_t6_tile(x) for x in dora]
    hand = LoggedHand(round_index=round_index, dealer=dealer, honba=honba, sticks=sticks,
                      scores=list(scores), dora=indicators[0], haipai=haipai,
                      ura=[_t6_tile(x) for x in ura])
    actions = interleave(takes, discards, dealer)
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
            wins.append(LoggedWin(seat=who, from_seat=None if who == from_who else from_who,
                                  han=han, fu=fu, points=points, yaku=yaku, yakuman=yakuman,
                                  payments=list(deltas), pao=pao if pao != who else None))
            total = [a + b for a, b in zip(total, deltas)]
        hand.end = LoggedEnd("tsumo" if wins[0].from_seat is None else "ron", None, wins, total,
                             None, None)
    elif word in _DRAWS:
        res, reason = _DRAWS[word]
        deltas = list(result[1]) if len(result) > 1 else [0, 0, 0, 0]
        hand.end = LoggedEnd(res, reason, [], deltas, None, None)
    else:
        raise LogError(f"unknown result {word!r}")
    return hand

