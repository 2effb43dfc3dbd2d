"""What a Tenhou log says happened, in the shapes the readers and the replay share.

Two kinds of record, kept apart:

* what a replay of the events must reproduce, handed to callers: :class:`ExpectedWin`,
  :class:`ExpectedHand` and :class:`ImportedGame` (the events together with those hands);
* the play-by-play of each hand as a log gives it, format-neutral, which the two readers
  (:mod:`referee.tenhou.mjlog`, :mod:`referee.tenhou.tenhou6`) build and
  :mod:`referee.tenhou.to_events` turns into events: :class:`LoggedGame`, :class:`LoggedHand`,
  :class:`LoggedWin`, :class:`LoggedEnd`.

:class:`LogError` is what any of them raises when the log does not add up.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..scoring import Situation

WINDS = "ESWN"


# --------------------------------------------------------------------------------------------
# What the log says happened (kept apart from the events)

@dataclass
class WinFigures:
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
class ExpectedWin(WinFigures):
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
# A format-neutral play-by-play of one hand, built by the two readers

@dataclass
class LoggedWin(WinFigures):
    """One win as the log records it: its figures, and what the log says of the hand."""

    # The log's own word on the hand, checked against the play: mjlog gives it, tenhou.net/6
    # leaves it to the replay.
    concealed: list[str] | None = None
    win_tile: str | None = None
    ura: list[str] | None = None


@dataclass
class LoggedEnd:
    """How the log says a hand ended (``result`` and ``reason`` as in ExpectedHand)."""

    result: str
    reason: str | None
    wins: list[LoggedWin]
    deltas: list[int]
    closing: list[int] | None      # mjlog gives them; otherwise start + deltas - sticks paid
    tenpai: list[int] | None
    shown: dict[int, list[str]] = field(default_factory=dict)   # mjlog: hands laid open


@dataclass
class LoggedHand:
    """One hand's start (``round_index``: 0 for East 1, 4 for South 1...; ``sticks``: the
    riichi sticks on the table), its ``actions`` in the order they happened, and its ``end``."""

    round_index: int
    dealer: int
    honba: int
    sticks: int
    scores: list[int]
    dora: str
    haipai: list[list[str]]
    actions: list[tuple] = field(default_factory=list)
    end: LoggedEnd | None = None
    ura: list[str] = field(default_factory=list)       # tenhou.net/6: the hand's ura list

    @property
    def round_wind(self) -> str:
        return WINDS[self.round_index // 4 % 4]

    @property
    def round_number(self) -> int:
        return self.round_index % 4 + 1

    @property
    def label(self) -> str:
        return f"{self.round_wind}{self.round_number}-{self.honba}"


# Actions:
#   ("draw", seat, tile, rinshan)
#   ("discard", seat, tile, riichi)
#   ("call", seat, kind, tiles, called, from)             chii / pon / daiminkan
#   ("kan", seat, kind, tiles, called, from, added)       ankan / shouminkan
#   ("dora", indicator)
#   ("riichi_ok", seat)                                   the riichi stick is paid


@dataclass
class LoggedGame:
    """A whole log as a reader gives it: the players' ``names``, the game's rules as the log
    states them (``red_fives``, ``open_tanyao``, ``game_length`` ``east``/``south`` or None),
    its ``hands``, and the end-of-game scores and match points when it has them."""

    names: list[str]
    red_fives: bool
    game_length: str | None
    open_tanyao: bool
    hands: list[LoggedHand]
    final_scores: list[int] | None
    final_points: list[float] | None


class LogError(Exception):
    """Something in the log does not add up; becomes a RefereeError naming the file."""
