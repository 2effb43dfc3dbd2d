"""The table as the referee knows it: seats, ponds, melds, the wall, the round.

Plain classes over lists, dicts and ints so that judging an event costs little: the rules core
(:mod:`referee.core`) mutates these and the dashboard reads :meth:`Table.snapshot`.

What is kept is what the camera and buttons can show plus what later judgements need (furiten,
ippatsu, double riichi, haitei/houtei, rinshan, chankan are judged when a hand is revealed):

* every discard of a seat in order, those called away included (:class:`Pond`), with its
  index in the hand's turn sequence;
* the tiles each seat has let pass since its own last discard and since its riichi;
* riichi (turn and discard index), ippatsu, whether the first go-around is still uninterrupted;
* kans made, the replacement draw pending, the tile open to chankan;
* the live wall: 70 draws at the deal, one less per draw and one less per kan (the dead wall is
  replenished from the live wall).
"""
from __future__ import annotations

from collections import Counter

from .tiles import base

#: Tiles in the live wall after the deal: 136 - 14 dead wall - 4 x 13 dealt. The dealer's
#: fourteenth tile is the first of these 70 draws.
LIVE_WALL = 70

class Pond:
    """A seat's discards in order. Each entry is a dict: ``tile``, ``t``, ``riichi``,
    ``called`` (claimed by another seat, so it has left the pond on the table), ``index``
    (position in the hand's sequence of discards, all seats together)."""

    __slots__ = ("entries",)

    def __init__(self):
        self.entries: list[dict] = []

    def add(self, tile: str, t: float, riichi: bool, index: int) -> dict:
        entry = {"tile": tile, "t": t, "riichi": riichi, "called": False, "index": index}
        self.entries.append(entry)
        return entry

    def visible(self) -> list[dict]:
        """The discards still lying in the pond (called tiles have left it)."""
        return [e for e in self.entries if not e["called"]]

    def kinds(self) -> set[str]:
        """Every kind this seat has discarded, called ones included (furiten is by kind)."""
        return {base(e["tile"]) for e in self.entries}

    def __len__(self):
        return len(self.entries)


class Seat:
    """One player's visible state in the current hand."""

    __slots__ = ("seat", "pond", "melds", "riichi", "riichi_index", "riichi_turn",
                 "riichi_pending", "ippatsu", "dead_hand", "dead_reasons", "turns",
                 "double_riichi",
                 "passed_since_turn", "passed_since_riichi", "called_this_turn",
                 "kuikae")

    def __init__(self, seat: int):
        self.seat = seat
        self.pond = Pond()
        self.melds: list[dict] = []
        self.riichi = False
        #: index (in the hand's discard sequence) and own turn number of the riichi discard
        self.riichi_index: int | None = None
        self.riichi_turn: int | None = None
        #: the riichi discard is out but its window has not closed (a ron on it voids it)
        self.riichi_pending = False
        #: the riichi was declared on the seat's first discard with no call before it
        self.double_riichi = False
        self.ippatsu = False
        self.dead_hand = False
        #: ruling ids of the violations that made the hand dead (an override lifts one)
        self.dead_reasons: list[str] = []
        #: own turns played (discards made) this hand
        self.turns = 0
        #: tiles others discarded (or added to a kan) since this seat's last discard / riichi
        self.passed_since_turn: list[str] = []
        self.passed_since_riichi: list[str] = []
        #: the current turn began by claiming chii or pon (no added/closed kan in it)
        self.called_this_turn = False
        #: kinds this seat may not discard this turn (kuikae); empty when none
        self.kuikae: tuple = ()

    @property
    def is_open(self) -> bool:
        """An open hand: any meld but a closed kan."""
        return any(m["kind"] != "ankan" for m in self.melds)

    def snapshot(self) -> dict:
        return {
            "seat": self.seat, "riichi": self.riichi, "dead_hand": self.dead_hand,
            "pond": [{"tile": e["tile"], "t": e["t"], "riichi": e["riichi"],
                      "called": e["called"]} for e in self.pond.entries],
            "melds": [dict(m) for m in self.melds],
            "riichi_index": self.riichi_index, "ippatsu": self.ippatsu,
        }


class Hand:
    """Everything about the hand being played (reset at each ``hand_start``)."""

    __slots__ = ("round_wind", "dealer", "honba", "riichi_sticks", "dora_indicators",
                 "seats", "wall", "turn", "discards", "last_discard", "uninterrupted",
                 "kans", "rinshan", "chankan_tile", "over", "result", "declared_wins",
                 "exhaustive_pending", "abort_check", "win_changes", "wins_judged", "chombos",
                 "riichi_seats", "sticks_after", "kan_dora_now", "kan_dora_pending",
                 "early_dora", "revealed", "ura_seen", "copies_flagged", "seen")

    def __init__(self, round_wind: str, dealer: int, honba: int, riichi_sticks: int,
                 dora_indicators: list[str]):
        self.round_wind = round_wind
        self.dealer = dealer
        self.honba = honba
        self.riichi_sticks = riichi_sticks
        self.dora_indicators = list(dora_indicators)
        self.seats = [Seat(s) for s in range(4)]
        #: draws left in the live wall; the dealer's first draw is made at the deal
        self.wall = LIVE_WALL - 1
        self.turn: int | None = dealer
        #: every discard of the hand in order: (seat, tile, t) via the ponds' entries
        self.discards: list[dict] = []
        self.last_discard: dict | None = None
        #: no call (chii, pon, any kan) yet: double riichi, tenhou/chiihou, four winds
        self.uninterrupted = True
        #: kans made: list of {"seat", "kind", "tile"}
        self.kans: list[dict] = []
        #: seat that owes a discard after a kan replacement (rinshan), else None
        self.rinshan: int | None = None
        #: the tile of an added kan open to chankan, else None
        self.chankan_tile: str | None = None
        self.over = False
        self.result: dict | None = None
        #: wins declared and not yet judged: [{"seat", "from", "tile", "t"}]
        self.declared_wins: list[dict] = []
        #: the last discard passed without a ron: ends at ``tenpai`` or the next hand_start
        self.exhaustive_pending = False
        #: an abortive draw that happens if the current discard passes without ron
        self.abort_check: str | None = None
        #: score changes of the wins and chombos judged so far (summed at the hand's end)
        self.win_changes = [0, 0, 0, 0]
        #: ``win`` rulings given in this hand, and chombos ruled at a reveal: [seat]
        self.wins_judged: list[dict] = []
        self.chombos: list[int] = []
        #: seats whose riichi was accepted in this hand (four riichi; their sticks are
        #: refunded on a chombo)
        self.riichi_seats: list[int] = []
        #: riichi sticks left on the table once the hand has ended
        self.sticks_after: int | None = None
        #: kan dora (see KanRules): indicators due now (a closed kan, or any kan where they
        #: are turned at once), indicators of open/added kans that wait for the kan maker's
        #: discard, and the indexes (in ``dora_indicators``) of those turned before it
        self.kan_dora_now = 0
        self.kan_dora_pending = 0
        self.early_dora: list[int] = []
        #: tiles shown by a reveal, per seat (the ron tile left out: it lies in a pond or a
        #: meld), and the ura indicators shown: for the fifth-copy check
        self.revealed: dict[int, list[str]] = {}
        self.ura_seen: list[str] = []
        #: tiles already flagged as one copy too many (each is flagged once a hand)
        self.copies_flagged: set[str] = set()
        #: every tile on the table now, by code, kept as tiles appear and move (a discard, a
        #: call taking it from the pond, a meld, an indicator, a reveal): the fifth-copy check
        #: looks only at the tiles an event adds (fifth_copy.seen_on_table recounts it all)
        self.seen: Counter = Counter(self.dora_indicators)

    @property
    def haitei(self) -> bool:
        """No tile left to draw: the current turn's tile was the last (haitei / houtei)."""
        return self.wall <= 0


class Table:
    """Game-level state: ruleset, scores, names, the current :class:`Hand`."""

    def __init__(self, ruleset):
        self.ruleset = ruleset
        self.names: list[str] | None = None
        self.scores: list[int] = [ruleset.start_score] * 4
        self.hand: Hand | None = None
        self.first_dealer: int | None = None
        self.game_over = False
        #: what the game end handed out (the riichi sticks left on the table, to first place):
        #: taken back if the table plays on after it (see HandEndRules._resume_game)
        self.game_end_credit: list[int] | None = None
        #: the game was ended by a referee (``end_game``) or by the round's time: that end is
        #: never withdrawn
        self.ended_by_referee = False
        #: why the game ended (``game_end``'s ``reason``), None while it goes on
        self.end_reason: str | None = None
        #: hands still to end after the round's time is up (None: time is not up)
        self.hands_left: int | None = None
        #: the penalty ledger (referee.ledger): deductions standing, cancelled ruling ids
        self.penalties: list[dict] = []
        self.cancelled: list[str] = []
        #: the signed result: seats in the order they signed, the referee's countersignature,
        #: and whether the ``result`` ruling has been given
        self.signatures: list[int] = []
        self.referee_signed = False
        self.result_given = False
        self.t = 0.0
        #: ruling_id -> {"t", "text"} for rulings a referee overrode
        self.overrides: dict[str, dict] = {}
        #: what the game_start said of this game: played without red fives, east/south game
        self.red_fives: bool | None = None
        self.open_tanyao: bool | None = None
        self.game_length: str | None = None

    def sticks_on_table(self) -> int:
        """Riichi sticks on the table now (those of a hand in play included)."""
        hand = self.hand
        if hand is None:
            return 0
        return hand.sticks_after if hand.sticks_after is not None else hand.riichi_sticks

    def snapshot(self) -> dict:
        hand = self.hand
        rnd = None
        if hand is not None:
            number = (hand.dealer - (self.first_dealer or 0)) % 4 + 1
            rnd = {"wind": hand.round_wind, "number": number, "dealer": hand.dealer,
                   "honba": hand.honba, "riichi_sticks": hand.riichi_sticks}
        return {
            "t": self.t, "ruleset": self.ruleset.name, "claim_window": self.ruleset.claim_window,
            "names": list(self.names) if self.names else None, "scores": list(self.scores),
            "round": rnd,
            "turn": hand.turn if hand is not None and not hand.over else None,
            "wall": hand.wall if hand is not None else None,
            "dora_indicators": list(hand.dora_indicators) if hand is not None else [],
            "seats": [s.snapshot() for s in hand.seats] if hand is not None else
                     [{"seat": s, "riichi": False, "dead_hand": False, "pond": [], "melds": []}
                      for s in range(4)],
            "window": None,
            "hand_over": hand.over if hand is not None else False,
            "game_over": self.game_over,
            "kans": len(hand.kans) if hand is not None else 0,
            "overrides": [{"ruling_id": k, **v} for k, v in self.overrides.items()],
        }
