"""Rulesets as data: one profile per name, every fact with where it comes from.

A :class:`Ruleset` is a frozen bag of facts the rules core consults (claim window, how several
rons are settled, kuikae, abortive draws, kan-dora timing, penalties, uma/oka). ``sources``
says, fact by fact, where each value comes from; where the published text was not checked
word for word, or where it disagrees with the project spec, the source says so rather than
pretend (``uncertain`` lists those facts).

Citations name the rulebook section a referee would open:

* EMA RCR 2012 -- the EMA Riichi Competition Rules, 2012 edition (sections 3.x, 5.x).
* EMA RCR 2016 -- the EMA "Rules for Japanese Mahjong", 2016 edition.
* EMA RCR 2025 -- the EMA Riichi Competition Rules 2025, in force since 1 January 2026. Its text
  was not found: the ``ema2025`` profile follows secondary sources, every fact uncertain.
* WRC 2015 -- World Riichi Championship rules, 2015 (chapter 5, "Making a group" is 5.4).
* Tenhou -- tenhou.net's published rules for its ranked rooms (as the shared Tenhou logs show).
* M-League -- the M.League (Japanese professional league) rules.
* Dutch -- the EMA rules as the Nederlandse Mahjong Bond plays them (Dutch translation), with
  the Dutch rules of this project's seed (see the profile's sources).

The project's event spec (``table-events.md``) fixes a few facts for ``ema2012`` (3-second
window, head bump, pon over chii, kuikae forbidden, false group = dead hand); they are kept
even where the RCR 2012 text reads otherwise, and the source says so.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

from .errors import RefereeError

DEFAULT_RULESET = "ema2012"

#: How several ``ron`` claims on one discard are settled.
#: ``head_bump``: only the seat nearest the discarder in turn order wins;
#: ``all``: every ron wins (double and triple ron);
#: ``double``: up to two win, three rons abort the hand (``triple_ron``).
MULTIPLE_RON = ("head_bump", "all", "double")

#: Abortive draws a profile may have (the ``reason`` of the ``hand_end``).
ABORTIVE = ("four_kans", "four_riichi", "four_winds", "nine_terminals", "triple_ron")

#: When a game ends once the round's time is up (the ``ends`` of the ``time_up`` ruling):
#: ``now``; ``after_this_hand`` (the hand being played is finished, none is dealt after it);
#: ``after_next_hand`` (that hand is finished and one more is played). Between two hands the
#: hand "being played" is the next one dealt. See :data:`HANDS_LEFT`.
TIME_UP_ENDS = ("now", "after_this_hand", "after_next_hand")
#: The hands still ended after the time is up, for each ``ends``.
HANDS_LEFT = {"now": 0, "after_this_hand": 1, "after_next_hand": 2}
#: A chombo in the last hand after the time is up: ``redeal`` (the hand does not count and is
#: dealt again, still the last) or ``ends_game`` (it is not dealt again: the game ends).
TIME_UP_CHOMBO = ("redeal", "ends_game")
#: Where a fixed deduction (a ``fixed`` chombo, a ``points`` penalty) is applied to the match
#: points: to the table score before uma and oka (it can change the ranking), or after them.
PENALTY_APPLIES = ("before_uma", "after_uma")


@dataclass(frozen=True)
class Ruleset:
    """One named profile. Every field is a fact of the rules; ``sources[field]`` says whence.

    ``claim_window``: seconds from a discard during which a call is in time; ``None`` means the
    ruleset has no timing rule and a claim stands until the next discard.
    ``multiple_ron``: one of :data:`MULTIPLE_RON`.
    ``kuikae_forbidden``: after chii/pon the caller may not discard the called tile (or, for an
    edge chii, the tile on the far side) in the same turn.
    ``abortive_draws``: the abortive draws in force (subset of :data:`ABORTIVE`).
    ``kan_dora``: when the indicator of an open or added kan is flipped: ``immediate`` or
    ``after_discard`` (closed kans always flip at once).
    ``kan_limit``: kans per hand; a further kan is a ``fifth_kan``.
    ``ankan_chankan_kokushi``: a closed kan may be robbed by thirteen orphans.
    ``penalties``: violation kind -> ``none``/``warning``/``dead_hand``/``chombo``.
    ``rules``: violation kind -> citation shown in the ruling.
    ``start_score``/``return_score``/``uma``/``uma_ties``: for the ``final`` of ``game_end``:
    (score - return_score) / 1000 + uma by rank, the return difference (oka) to first place;
    ``uma_ties`` is ``split`` (tied seats share their ranks' uma) or ``seat_order`` (the seat
    nearer the first dealer ranks higher).
    """

    name: str
    title: str
    claim_window: float | None
    multiple_ron: str
    kuikae_forbidden: bool
    abortive_draws: frozenset
    kan_dora: str
    kan_limit: int
    ankan_chankan_kokushi: bool
    red_fives: bool
    open_tanyao: bool
    start_score: int
    return_score: int
    uma: tuple
    uma_ties: str
    penalties: dict
    rules: dict
    sources: dict = field(default_factory=dict)
    uncertain: tuple = ()
    #: ``none``: match points to 0.1; ``tenhou``: each seat but first rounds its score to
    #: whole thousands, 500 rounding up (19,500 -> 20), first place takes the balance
    final_rounding: str = "none"
    #: options for :func:`referee.scoring.score_win` (``red_fives`` and ``open_tanyao`` are
    #: taken from the fields above): ``double_yakuman``, ``kiriage``, ``kazoe_limit``,
    #: ``renhou``, ``open_pinfu_fu``
    scoring: dict = field(default_factory=dict)
    #: liability (pao) for the seat that fed the last dragon / wind set of a daisangen /
    #: daisuushii: it pays a tsumo alone, half of a ron
    pao: bool = False
    #: nagashi mangan at an exhaustive draw (paid as a mangan tsumo instead of noten payments)
    nagashi_mangan: bool = False
    #: noten payments at an exhaustive draw: the noten seats pay this total to the tenpai seats
    noten_total: int = 3000
    #: on a multiple ron, honba to the winner nearest the discarder (``nearest``) or to every
    #: winner (``each``); riichi sticks always go to the nearest
    multiple_ron_honba: str = "each"
    #: what a chombo costs: ``mangan`` (paid as a mangan tsumo to the others), ``fixed``
    #: (``chombo_amount`` taken from the offender, nobody gains) or ``split`` (shared by the
    #: others); ``chombo_repeats``: the hand is replayed with the same dealer and honba
    chombo_style: str = "mangan"
    chombo_amount: int = 20000
    chombo_repeats: bool = True
    #: how the game ends: ``game_length`` ``east``/``south``; ``extension`` into the next wind
    #: while nobody has ``target_score``; ``bust_below_zero``; ``dealer_stops_when_top`` (the
    #: last dealer who wins alone on top with ``target_score`` ends the game: agari-yame; a
    #: dealer kept by tenpai plays on)
    game_length: str = "south"
    extension: bool = False
    bust_below_zero: bool = False
    dealer_stops_when_top: bool = False
    target_score: int = 30000
    #: riichi sticks still on the table at the end of the game: to first place (``first``) or
    #: lost (``none``)
    leftover_sticks: str = "first"
    #: the round's time limit: when the game ends once the time is up, while a hand is being
    #: played (``time_up``) and between two hands (``time_up_between_hands``), one of
    #: :data:`TIME_UP_ENDS`; ``time_up_chombo``: a chombo in the last hand, one of
    #: :data:`TIME_UP_CHOMBO` (a chombo in an earlier hand is dealt again and does not count
    #: as a hand); ``time_up_rule``: the citation the ``time_up`` ruling gives
    time_up: str = "after_this_hand"
    time_up_between_hands: str = "now"
    time_up_chombo: str = "ends_game"
    time_up_rule: str = ""
    #: violation kind -> the points (table points, a positive deduction) its ``points``
    #: penalty takes; a kind whose penalty is ``points`` must be here
    penalty_points: dict = field(default_factory=dict)
    #: where fixed deductions come off (a ``fixed`` chombo, a ``points`` penalty): one of
    #: :data:`PENALTY_APPLIES`
    penalty_applies: str = "after_uma"

    def scoring_options(self, red_fives: bool | None = None,
                        open_tanyao: bool | None = None) -> dict:
        """The options :func:`referee.scoring.score_win` needs for this profile (``red_fives``
        and ``open_tanyao`` override the profile's, as a game played without them says)."""
        opts = dict(self.scoring)
        opts["red_fives"] = self.red_fives if red_fives is None else bool(red_fives)
        opts["open_tanyao"] = self.open_tanyao if open_tanyao is None else bool(open_tanyao)
        return opts

    def penalty(self, kind: str) -> str:
        return self.penalties.get(kind, "none")

    def time_up_ends(self, hand_in_play: bool) -> str:
        """When the game ends if the round's time runs out now: ``hand_in_play`` says whether
        a hand is being played (dealt and not ended) at that moment."""
        return self.time_up if hand_in_play else self.time_up_between_hands

    def rule(self, kind: str) -> str:
        return self.rules.get(kind, self.title)

    def describe(self) -> dict:
        """The profile as JSON-ready data (dashboard, ``--help`` style listings, tests): every
        field, sets as sorted lists, tuples as lists, dicts copied."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, frozenset):
                value = sorted(value)
            elif isinstance(value, tuple):
                value = list(value)
            elif isinstance(value, dict):
                value = dict(value)
            out[f.name] = value
        return out


# -- The round's time limit (issue 40) ---------------------------------------------------
# What each source says of a game when the round's time is up (research notes, section B).
_WRC2015_TIME = ("WRC 2015 8.2 'Tournament hanchans': 'When the time ends, players must finish "
                 "the current hand. If the walls are not set up or the dice not thrown when the "
                 "time ends, the hanchan ends immediately. ... In any case, players cannot roll "
                 "the dice after the gong' (WRC 2014 8.1 has the same text). The table sees a "
                 "hand begin at its hand_start (tiles dealt), not at the dice: a time-up between "
                 "the dice and the deal is judged as between hands")
_WRC2015_TIME_CHOMBO = ("WRC 2015 8.2: 'In case of chonbo during the last hand, the hand is not "
                        "re-dealt'")
_PANTHEON_EMA = ("MahjongPantheon/pantheon Common/rulesets/ema.php (tournament software, "
                 "secondary)")
_PANTHEON_ONE_MORE = ("endingPolicy EP_ONE_MORE_HAND ('When time is out, finish current hand, "
                      "play one more, and then interrupt the session'; the first hand to end "
                      "after time is up starts the last, so between hands two more are played)")
_EMA_TIME = ("uncertain: RCR 2016 has a section 5.9 'Tournament sessions', whose text was not "
             f"found; {_PANTHEON_EMA}: {_PANTHEON_ONE_MORE}. The rule 'a signal 15 minutes "
             "before the end, then one more hand' was not found in any source")
_EMA_TIME_CHOMBO = ("uncertain: RCR 2016 3.4 'Chombo results in a redeal and does not count as "
                    "a hand' (any hand); for the last hand after time is up RCR 2016 5.9 was "
                    f"not read; {_PANTHEON_EMA}: chomboEndsGame false (the hand is dealt again)")
_EMA_AFTER_UMA = ("EMA's 2016 announcement of the revised rules: 'Chombo penalty in a tournament "
                  "is 20,000 points deduction after uma'")
_NO_TIME_LIMIT_DEFAULT = ("the stated default for a table that keeps a round's clock: as WRC "
                          "2015 8.2 (the hand being played is finished; between hands the game "
                          "ends; a chombo in the last hand is not dealt again)")

# -- The primary sources the EMA and WRC profiles cite (issue 41 follow-up) ----------------
_EMA_2016_ANN = ("the EMA's announcement of the revised rules ('Revised EMA Riichi rules are "
                 "ready ... come into effect on April 1, 2016': mahjong-europe.org portal "
                 "article 1, the same text on mahjongnews.com and mahjong.ru)")
_CHANGES_2012 = "under 'Main changes since the 2012 edition'"
_DIFF_WRC = "under 'Differences to World Championship Rules 2015'"
_RCR2016_CONTENTS = ("RCR 2016's contents (the 2016 edition as readkong.com and doczz.net "
                     "transcribe it)")
_RCR_OLD = ("an older EMA RCR text, 2008 or 2012 (the page does not print the edition), on "
            "mahjongtime.com and mahjong.com")
_RCR2012_PREFACE = ("RCR 2012's preface (ooyamaneko.net's transcription, book RCR_2012, "
                    "chapter 0: 'The rules have been revised ... Tina Christensen, European "
                    "Mahjong Association, January 8, 2012')")
_WRC2015_TEXT = "WRC 2015 (the 16/06/2015 rule book as ooyamaneko.net transcribes it)"

# -- EMA RCR 2012 -------------------------------------------------------------------------
_EMA2012 = Ruleset(
    name="ema2012",
    title="EMA Riichi Competition Rules 2012",
    claim_window=3.0,
    multiple_ron="head_bump",
    kuikae_forbidden=True,
    abortive_draws=frozenset(),
    kan_dora="immediate",
    kan_limit=4,
    ankan_chankan_kokushi=False,
    red_fives=True,
    open_tanyao=False,
    start_score=30000,
    return_score=30000,
    uma=(15, 5, -5, -15),
    uma_ties="split",
    scoring={"double_yakuman": "daisuushii", "kiriage": False, "kazoe_limit": "sanbaiman",
             "renhou": "yakuman"},
    pao=True, nagashi_mangan=False, multiple_ron_honba="each",
    chombo_style="fixed", chombo_amount=20000, chombo_repeats=True,
    game_length="south", extension=False, bust_below_zero=False, dealer_stops_when_top=False,
    leftover_sticks="none",
    time_up="after_next_hand", time_up_between_hands="after_next_hand", time_up_chombo="redeal",
    time_up_rule="EMA RCR 2012 (time limit: as the EMA tournament software plays it)",
    penalty_applies="after_uma",
    penalties={
        "kuikae": "warning", "false_group": "dead_hand", "late_call": "none",
        "wrong_seat_call": "none", "last_discard_call": "none", "illegal_kan": "dead_hand",
        "fifth_kan": "dead_hand", "furiten_ron": "chombo", "no_yaku": "chombo",
        "false_win": "chombo", "riichi_open_hand": "warning", "procedure": "none",
    },
    rules={
        "kuikae": "EMA RCR 2012 (project spec: kuikae forbidden)",
        "false_group": "EMA RCR 2012 5.1",
        "late_call": "EMA RCR 2012 3.1",
        "wrong_seat_call": "EMA RCR 2012 3.3.4",
        "last_discard_call": "EMA RCR 2012 3.4.1",
        "illegal_kan": "EMA RCR 2012 3.3.7",
        "fifth_kan": "EMA RCR 2012 3.3.10",
        "furiten_ron": "EMA RCR 2012 3.4.5",
        "no_yaku": "EMA RCR 2012 3.3.10",
        "false_win": "EMA RCR 2012 3.4.6",
        "riichi_open_hand": "EMA RCR 2012 3.3.14",
        "procedure": "EMA RCR 2012 5.1",
    },
    sources={
        "claim_window": "project spec (table-events.md: 3-second window); RCR 2012 3.3.7 also "
                        "allows 3 seconds for a win on an added kan",
        "multiple_ron": "project spec (table-events.md: head bump). NOTE: the RCR 2012 text of "
                        "3.1 reads 'it is possible for several players to win on the same "
                        "discard'; the spec's head bump is kept",
        "kuikae_forbidden": "project spec (table-events.md: kuikae forbidden). NOTE: RCR 2012 "
                            "has no swap-calling section (it appears as 3.3.2 in RCR 2016) and "
                            "summaries of the 2008-2016 EMA rules call kuikae allowed",
        "abortive_draws": "project spec (after the fourth kan play continues, no further kan). "
                          "NOTE: RCR 2012 3.4 names abortive draws as a way a hand can end",
        "kan_dora": "RCR 2012 3.3.2 (melded kong: reveal a new kan dora, then the replacement)",
        "kan_limit": "RCR 3.3.10 (after the fourth kong the game continues, no further kong)",
        "ankan_chankan_kokushi": "uncertain: robbing a concealed kong is not described in the "
                                 "RCR 2012 sections read (3.3.7 covers the added kong only)",
        "red_fives": "RCR 2012 1 (one red five per suit; dropped in 2016)",
        "open_tanyao": "RCR 2012 (kuitan nashi)",
        "start_score": "RCR 2012 (30,000 each, no oka)",
        "uma": f"uncertain: {_EMA_2016_ANN} lists {_CHANGES_2012} 'Uma is changed to "
               f"15,000/5,000/-5,000/-15,000', so RCR 2012's uma was something else "
               f"({_RCR2012_PREFACE} says only 'The uma has been increased', from 2008); its "
               f"value was not found "
               f"(RCR 2012 3.6 was not read, and no other source gives it). +15/+5/-5/-15, "
               f"shared on ties, stands in for it until the 2012 text is read",
        "penalties": "false group = dead hand: project spec and RCR 2012 5.1 (failing to take "
                     "the claimed tile); furiten ron, no yaku, false win = chombo: RCR 3.4.6; "
                     "the rest are the project's reading: a call that does not stand costs "
                     "nothing, kuikae and open-hand riichi are warnings, an illegal or fifth "
                     "kan leaves a hand that cannot be valid (dead hand)",
        "last_discard": "RCR 2012 3.4.1 (the last tile can only be claimed for a win; no "
                        "concealed kong on the last tile)",
        "chii_seat": "RCR 2012 3.3.4 (a chow only from the player on the left)",
        "added_kan_turn": "RCR 2012 3.3.7 (not in a turn where a tile was claimed for chow or "
                          "pung)",
        "precedence": "RCR 2012 3.1 (a win before any claim; kong or pung before chow)",
        "scoring": f"daisuushii a double yakuman, the other double forms single: "
                   f"{_RCR2012_PREFACE}: 'double yakuman has been omitted except for Big Four "
                   f"Winds', and {_EMA_2016_ANN} lists {_CHANGES_2012} 'Dai suushii (Big "
                   f"Four Winds) is a yakuman, not a double yakuman'. "
                   "13+ han from ordinary yaku is sanbaiman (RCR 2012); "
                   "renhou a yakuman: riichi.wiki 'EMA Riichi Competition Rules', revision "
                   "1228 (the RCR of 2008-2016: 'Renhou is a yakuman ... Renhou by itself is "
                   "the yaku'), and the page's current revision, which lists among the changes "
                   "of RCR 2016 from the previous rules (2012) 'renhou is now a strict mangan "
                   "only' (RCR 2016's contents have a 'Five fan yaku' section, 4.2.4). The RCR "
                   "2012 text itself was not read; uncertain: kiriage assumed not used",
        "pao": "RCR 2012 3.3.9 (liability for the third dragon / fourth wind set: the feeder "
               "pays a tsumo alone and half a ron). NOTE: there the discarder alone pays the "
               "counters of a ron; here the liable seat does, as on Tenhou",
        "nagashi_mangan": "RCR 2012 (no nagashi mangan; project reading)",
        "chombo_style": f"uncertain: the fixed 20,000 is contradicted: {_EMA_2016_ANN} lists "
                        f"{_CHANGES_2012} 'Chombo penalty in a tournament is 20,000 points "
                        f"deduction after uma', so RCR 2012's chombo was something else. The one "
                        f"older text found, {_RCR_OLD}, 3.4.6: 'The chombo penalty is the same "
                        f"size as a mangan payment: 4000 to East, 2000 to other players. If the "
                        f"offending player is East, 4000 is payed to each of the other "
                        f"players'; whether that is the 2012 wording is not known (RCR 2012 "
                        f"3.4.6 was not read), so the value is not changed on it. The hand is "
                        f"replayed with the same dealer and counters (the same 3.4.6: 'No "
                        f"counter is placed, and the dealer does not rotate')",
        "chombo_amount": "uncertain: see chombo_style",
        "game_length": "RCR 2012 (a hanchan of East and South; no bust, no extension, no "
                       "stop for a leading last dealer)",
        "leftover_sticks": "uncertain: riichi sticks left on the table at the end of the game "
                           "are assumed lost (no oka: scores count from 30,000)",
        "time_up": f"uncertain: the RCR 2012 text on a session's time limit was not read; as "
                   f"the later EMA rules are played ({_EMA_TIME})",
        "time_up_between_hands": f"uncertain: as time_up ({_PANTHEON_ONE_MORE})",
        "time_up_chombo": f"uncertain: as ema2016 ({_EMA_TIME_CHOMBO})",
        "penalty_applies": f"uncertain: the older EMA text (3.4.6) makes a chombo a mangan "
                           f"payment; the project's fixed 20,000 comes off after uma as in "
                           f"2016 ({_EMA_AFTER_UMA})",
    },
    uncertain=("multiple_ron", "kuikae_forbidden", "abortive_draws", "ankan_chankan_kokushi",
               "penalties", "scoring", "leftover_sticks", "time_up", "time_up_between_hands",
               "time_up_chombo", "penalty_applies", "uma", "chombo_style", "chombo_amount"),
)

# -- EMA 2016 -----------------------------------------------------------------------------
_EMA2016 = Ruleset(
    name="ema2016",
    title="EMA Rules for Japanese Mahjong 2016",
    claim_window=None,
    multiple_ron="all",
    kuikae_forbidden=True,
    abortive_draws=frozenset(),
    kan_dora="immediate",
    kan_limit=4,
    ankan_chankan_kokushi=False,
    red_fives=False,
    open_tanyao=True,
    start_score=30000,
    return_score=30000,
    uma=(15, 5, -5, -15),
    uma_ties="split",
    scoring={"double_yakuman": False, "kiriage": False, "kazoe_limit": "sanbaiman",
             "renhou": "mangan"},
    pao=True, nagashi_mangan=False, multiple_ron_honba="each",
    chombo_style="fixed", chombo_amount=20000, chombo_repeats=True,
    game_length="south", extension=False, bust_below_zero=False, dealer_stops_when_top=False,
    leftover_sticks="first",
    time_up="after_next_hand", time_up_between_hands="after_next_hand", time_up_chombo="redeal",
    time_up_rule="EMA RCR 2016 5.9", penalty_applies="after_uma",
    penalties={**_EMA2012.penalties, "riichi_open_hand": "dead_hand"},
    rules={
        "kuikae": "EMA RCR 2016 3.3.2",
        "false_group": "EMA RCR 2016 5.1.1",
        "late_call": "EMA RCR 2016 3.3.1",
        "wrong_seat_call": "EMA RCR 2016 3.3.3",
        "last_discard_call": "EMA RCR 2016 3.4.1",
        "illegal_kan": "EMA RCR 2016 3.3.6",
        "fifth_kan": "EMA RCR 2016 3.3.10",
        "furiten_ron": "EMA RCR 2016 3.4.5",
        "no_yaku": "EMA RCR 2016 3.3.11",
        "false_win": "EMA RCR 2016 3.4.6",
        "riichi_open_hand": "EMA RCR 2016 3.4.7",
        "procedure": "EMA RCR 2016 5.1",
    },
    sources={
        "claim_window": "project brief (no timing rule: a claim stands until the next discard)",
        "multiple_ron": "riichi.wiki summary of RCR 2016 (double and triple ron allowed)",
        "kuikae_forbidden": "RCR 2016 3.3.2 (swap-calling)",
        "abortive_draws": "RCR 2016 3.4 (a hand ends by exhaustive draw or a win; no abortive "
                          "draws)",
        "kan_dora": "riichi.wiki summary (kan dora flipped immediately after any kan)",
        "red_fives": "riichi.wiki summary (no more red fives from 2016)",
        "open_tanyao": "riichi.wiki summary (open tanyao allowed from 2016)",
        "uma": f"{_EMA_2016_ANN}, {_CHANGES_2012}: 'Uma is changed to 15,000/5,000/-5,000/"
               f"-15,000'; uncertain: tied seats share their ranks' uma (not read in RCR 2016)",
        "ankan_chankan_kokushi": "uncertain (not checked in the 2016 text)",
        "penalties": "riichi on an open hand is a dead hand: RCR 2016 3.4.7 (Dead hand) lists "
                     "'Attempting to declare riichi on a open hand' (ooyamaneko.net's "
                     "comparison of WRC 2015 and RCR 2016, chapter 5); the same kind covers a "
                     "call after riichi laid open anyway (referee/melds.py), dead too by the "
                     "project's reading, as it opens the riichi hand. The rest as ema2012 "
                     "(project reading; not checked section by section)",
        "scoring": f"{_EMA_2016_ANN}, {_CHANGES_2012}: 'Renho (Blessing of Man) is a mangan, "
                   f"not a yakuman' (renhou 'mangan': the five-han yaku, {_RCR2016_CONTENTS}: "
                   f"'4.2.4 Five fan yaku'), 'Dai suushii (Big Four Winds) is a yakuman, not a "
                   f"double yakuman', 'A hand with 13+ fan is scored as a sanbaiman, not a "
                   f"yakuman'; no kiriage: the same announcement, {_DIFF_WRC}: '4-30 is not "
                   f"rounded to mangan payment'. Uncertain: whether renhou's five han add to "
                   f"other yaku (as here) or the hand is a mangan whatever else it holds "
                   f"(riichi.wiki: 'renhou is now a strict mangan only'); the text of 4.2.4 "
                   f"was not read",
        "pao": f"{_RCR2016_CONTENTS}: '3.3.9 Liability: Third melded dragon pung and fourth "
               f"melded wind pung'; its text was not read. {_RCR_OLD}, 3.3.9, the same title: "
               f"'A player who feeds the third dragon pung/kong to an opponent with two melded "
               f"dragon pungs/kongs or the fourth wind pung/kong to an opponent with three "
               f"melded pungs/kongs of winds must pay the full value of the hand in case Big "
               f"Three Dragons or Big Four Winds are made on a self-draw (the two remaining "
               f"opponents pay nothing). In case another opponent feeds the Big Three Dragons "
               f"or Big Four Winds, he shares the payment equally with the player who fed the "
               f"third dragon pung/kong or the fourth wind pung/kong, but only the discarder "
               f"pays for any counters'. NOTE: here the liable seat pays the counters of a "
               f"ron, as on Tenhou",
        "multiple_ron_honba": "uncertain: each winner of a multiple ron assumed to get the "
                              "honba; riichi sticks to the nearest",
        "chombo_style": f"{_EMA_2016_ANN}, {_CHANGES_2012}: 'Chombo penalty in a tournament is "
                        f"20,000 points deduction after uma' (taken from the offender, nobody "
                        f"gains); RCR 2016 3.4: 'Chombo results in a redeal and does not count "
                        f"as a hand'",
        "game_length": "as ema2012",
        "leftover_sticks": f"{_EMA_2016_ANN}, {_DIFF_WRC}: 'Riichi bets at game end go to "
                           f"the winner' "
                           f"(mahjongnews.com: 'Riichi bets left on the table at the end of a "
                           f"match go to the winner'); {_RCR2016_CONTENTS}: '3.6.1 Winner "
                           f"bonus'. On a tie for first the seat nearer the first dealer takes "
                           f"them (project reading; 3.6.1's text was not read)",
        "time_up": _EMA_TIME,
        "time_up_between_hands": f"uncertain: {_PANTHEON_EMA}: {_PANTHEON_ONE_MORE}",
        "time_up_chombo": _EMA_TIME_CHOMBO,
        "penalty_applies": _EMA_AFTER_UMA,
    },
    uncertain=("claim_window", "uma", "ankan_chankan_kokushi", "penalties", "scoring",
               "multiple_ron_honba", "time_up", "time_up_between_hands", "time_up_chombo"),
)

# -- EMA 2025 -----------------------------------------------------------------------------
# The EMA's Riichi Competition Rules 2025 (RCR 2025), in force since 1 January 2026 (issue 41;
# the project spec names the profile). The rule book itself, and any EMA list of what changed
# from 2016, could not be found in any stored source, so no RCR 2025 section can be cited. The
# one trace of it is secondary: the MahjongPantheon tournament software's "ema2025" template
# (below, _PANTHEON_2025), which differs from its EMA 2016 template in two rules: kiriage
# mangan, and a chombo in the final hand after time is up ending the game instead of being
# replayed (it also drops the double-yakuman forms from its lists, which changes nothing where
# yakuman do not stack, as under ema2016). So this profile is ema2016 with the one change a source
# reports that the core
# can model (kiriage); the time-up chombo has no field yet and stays a note (sources). Every
# fact is listed as uncertain: none is confirmed from the RCR 2025 text.
#
# NOT the default profile: the issue asks for it to be the default only if the rule book
# confirms it as the EMA's current rules, and the rule book was not read.
_PANTHEON_2025 = ("MahjongPantheon/pantheon Common/rulesets/ema2025.php (tournament software, "
                  "secondary; added 2026-03-29 as 'European Mahjong Association rules "
                  "(rev.2025)', commit ce62c975)")
_RCR2025_UNREAD = "uncertain: the RCR 2025 text was not found"


def _as_ema2016(fact: str, pantheon: str = "") -> str:
    """The source of a fact ema2025 keeps from ema2016: the 2016 source, and what the one
    secondary source for 2025 says of it."""
    was = _EMA2016.sources.get(fact) or f"{fact}={getattr(_EMA2016, fact)!r}, no source given"
    note = f"; {_PANTHEON_2025}: {pantheon}" if pantheon else ""
    return f"{_RCR2025_UNREAD}; kept from ema2016 ({was}){note}"


_EMA2025_FACTS = tuple(f.name for f in fields(Ruleset)
                       if f.name not in ("name", "title", "sources", "uncertain"))

_EMA2025 = replace(
    _EMA2016,
    name="ema2025",
    title="EMA Riichi Competition Rules 2025 (from secondary sources)",
    scoring={**_EMA2016.scoring, "kiriage": True},
    time_up_chombo="ends_game",
    time_up_rule="EMA RCR 2025 (section not known; as the EMA tournament software plays it)",
    sources={
        **{fact: _as_ema2016(fact) for fact in _EMA2025_FACTS},
        "scoring": f"kiriage mangan (4 han 30 fu and 3 han 60 fu paid as mangan): "
                   f"{_PANTHEON_2025}: withKiriageMangan true, where its EMA 2016 template has "
                   f"false. RCR 2016 did not round up: the EMA's 2016 announcement lists "
                   f"'4-30 is not rounded to mangan payment' among its differences from WRC "
                   f"2015. {_RCR2025_UNREAD}. The rest kept from ema2016 "
                   f"({_EMA2016.sources['scoring']}); Pantheon agrees: no kazoe yakuman, no "
                   f"double or stacked yakuman (its 2025 template also drops 13-sided "
                   f"kokushi, single-wait suuankou and pure chuuren from its yaku list)",
        "multiple_ron": _as_ema2016("multiple_ron", "no atamahane (several rons win)"),
        "abortive_draws": _as_ema2016("abortive_draws", "no abortive draws"),
        "open_tanyao": _as_ema2016("open_tanyao", "kuitan"),
        "uma": _as_ema2016("uma", "+15,000/+5,000/-5,000/-15,000, no oka, 30,000 start"),
        "start_score": _as_ema2016("start_score", "30,000 start"),
        "return_score": _as_ema2016("return_score", "no oka"),
        "uma_ties": _as_ema2016("uma_ties", "equalizeUma (tied seats share the uma)"),
        "nagashi_mangan": _as_ema2016("nagashi_mangan", "no nagashi mangan"),
        "chombo_amount": _as_ema2016("chombo_amount", "chombo 20,000, no payments to the "
                                                      "others"),
        "game_length": _as_ema2016("game_length", "East and South, no bust, no extension, "
                                                  "no stop for a leading dealer"),
        "pao": _as_ema2016("pao", "pao for daisangen and daisuushii, as RCR 2016 3.3.9"),
        "leftover_sticks": _as_ema2016("leftover_sticks", "riichiGoesToWinner: riichi sticks "
                                                          "left at the end go to the winner, "
                                                          "as the EMA's 2016 announcement"),
        "rules": f"the RCR 2016 sections (ema2016); {_RCR2025_UNREAD}, so its section "
                 f"numbers are not known",
        "chombo_repeats": _as_ema2016(
            "chombo_repeats", "a chombo is dealt again, except in the final hand after time is "
                              "up (time_up_chombo)"),
        "time_up": _as_ema2016("time_up", "endingPolicy EP_ONE_MORE_HAND, as its EMA 2016 "
                                          "template"),
        "time_up_between_hands": _as_ema2016("time_up_between_hands",
                                             "EP_ONE_MORE_HAND, as its EMA 2016 template"),
        "time_up_chombo": f"a chombo in the final hand after time is up ends the game instead "
                          f"of being dealt again: {_PANTHEON_2025}: chomboEndsGame true, where "
                          f"its EMA 2016 template has false ('If this is set, chombo will not "
                          f"allow players to play one more hand if time is out and it is final "
                          f"hand of the game'). {_RCR2025_UNREAD}",
        "time_up_rule": f"{_RCR2025_UNREAD}, so its section number is not known",
        "penalty_applies": _as_ema2016("penalty_applies"),
        # The three changes that secondary sources report for 2025 (issue 41), as found.
        "riichi_wall": "riichi needs tiles left in the wall: the core refuses riichi with "
                       "fewer than four in the wall under every profile (referee/turns.py, "
                       "MIN_WALL_FOR_RIICHI). An older EMA RCR (2008 or 2012), 3.3.12: 'A "
                       "player is not allowed to declare riichi if there are less than four "
                       "tiles left in the wall'; RCR 2016 3.3.14 was not read; "
                       f"{_RCR2025_UNREAD}. The current WRC rules are quoted as allowing it "
                       "with fewer than four (r/Mahjong, secondary), so following the WRC "
                       "would not settle it",
        "kiriage": f"4 han 30 fu and 3 han 60 fu paid as mangan: {_PANTHEON_2025} only "
                   f"(applied: see scoring); {_RCR2025_UNREAD}",
        "double_wind_pair_fu": "a pair of a wind that is both seat and round wind is worth 4 "
                               "fu under every profile (the mahjong library counts it twice, "
                               "with no option). The older EMA RCR 4.1.1 gives 2 fu for a "
                               "pair of seat wind and 2 for prevalent wind, so 4 for both; "
                               "RCR 2016: 4 by a secondary source (EmeraldCoder/"
                               "riichi-pointer-js issue 33, its EMA preset); "
                               f"{_RCR2025_UNREAD}. The WRC went from 4 to 2 in 2022 "
                               "(riichi-pointer-js issue 29), so '4 instead of 2' as an EMA "
                               "2025 change is doubtful",
    },
    uncertain=_EMA2025_FACTS + ("riichi_wall", "kiriage", "double_wind_pair_fu"),
)

# -- WRC 2015 -----------------------------------------------------------------------------
_WRC2015 = Ruleset(
    name="wrc2015",
    title="World Riichi Championship Rules 2015",
    claim_window=3.0,
    multiple_ron="head_bump",
    kuikae_forbidden=True,
    abortive_draws=frozenset(),
    kan_dora="immediate",
    kan_limit=4,
    ankan_chankan_kokushi=False,
    red_fives=False,
    open_tanyao=True,
    start_score=30000,
    return_score=30000,
    uma=(15, 5, -5, -15),
    uma_ties="split",
    scoring={"double_yakuman": False, "kiriage": True, "kazoe_limit": "sanbaiman",
             "renhou": "none"},
    pao=True, nagashi_mangan=False, multiple_ron_honba="each",
    chombo_style="fixed", chombo_amount=20000, chombo_repeats=True,
    game_length="south", extension=False, bust_below_zero=False, dealer_stops_when_top=False,
    leftover_sticks="none",
    time_up="after_this_hand", time_up_between_hands="now", time_up_chombo="ends_game",
    time_up_rule="WRC 2015 8.2", penalty_applies="after_uma",
    penalties={**_EMA2012.penalties, "kuikae": "dead_hand"},
    rules={
        "kuikae": "WRC 2015 7.2",
        "false_group": "WRC 2015 5.4",
        "late_call": "WRC 2015 5.4.1",
        "wrong_seat_call": "WRC 2015 5.4",
        "last_discard_call": "WRC 2015 5.7.1",
        "illegal_kan": "WRC 2015 5.4",
        "fifth_kan": "WRC 2015 5.4",
        "furiten_ron": "WRC 2015 5.5",
        "no_yaku": "WRC 2015 5.5",
        "false_win": "WRC 2015 5.5",
        "riichi_open_hand": "WRC 2015 5.4",
        "procedure": "WRC 2015 5.4",
    },
    sources={
        "claim_window": "WRC 2014/2015 5.4.1 (3 seconds to claim a tile when it is not their "
                        "turn)",
        "multiple_ron": "WRC 2015 5.4.1 (the player closer to the discarder in turn order takes "
                        "precedence)",
        "kuikae_forbidden": "WRC 2015 5.4 (swap-calling is not allowed: the same tile, or the "
                            "other side of a chow)",
        "false_group": "WRC 2015 5.4 (the claimed tile must be taken before the next two "
                       "players discard; otherwise a false group and a dead hand)",
        "abortive_draws": "WRC 2015 5.7 (there are no abortive draws)",
        "last_discard": "WRC 2015 5.7.1 (the last tile only for a win)",
        "kan_dora": "uncertain: assumed immediate as in the EMA rules",
        "red_fives": "WRC 2015 (no red fives)",
        "uma": "uncertain: assumed +15/+5/-5/-15 with 30,000 start as EMA 2016",
        "ankan_chankan_kokushi": "uncertain: not checked in the WRC 2015 text; assumed not "
                                 "allowed",
        "penalties": f"swap-calling is a dead hand: {_WRC2015_TEXT} 7.2: 'Swap-calling is "
                     f"determined when the player discards, and results in a dead hand'; "
                     f"dead hand for a false group from 5.4; the rest as ema2012 (project "
                     f"reading)",
        "scoring": f"kiriage: {_WRC2015_TEXT} 6.1: 'A base value of 1920 points, being close "
                   f"to mangan, is rounded up to 2,000 points' (4 han 30 fu, 3 han 60 fu); the "
                   f"EMA's 2016 announcement agrees, listing '4-30 is not rounded to mangan "
                   f"payment' among the EMA's differences from WRC 2015. 13+ han is "
                   f"sanbaiman, the same 6.1: 'There is no counted yakuman: a hand worth 13 or "
                   f"more han but not having a yakuman yaku is only rewarded sanbaiman'. "
                   f"Uncertain: no double yakuman and no renhou (6.5.4 'Mangan yaku' and 6.5.6 "
                   f"'Yakuman yaku' were not read)",
        "pao": "WRC 2015's contents (the rule book as pt.scribd.com/document/352953763 "
               "transcribes it) have '6.2 Liability payment'. Uncertain: its text was not "
               "read; liability for the third dragon and fourth wind set is assumed, as in the "
               "EMA texts (RCR 3.3.9) whose wording the WRC book reuses",
        "time_up": _WRC2015_TIME,
        "time_up_between_hands": _WRC2015_TIME,
        "time_up_chombo": _WRC2015_TIME_CHOMBO,
        "penalty_applies": "WRC 2015 7.1: chonbo is '20 points penalty ... There is no "
                           "\'mangan payment\''; point penalties 'are removed from the "
                           "offending player's overall score. They are not added to the "
                           "opponents' scores. It doesn't change the table's score'",
    },
    uncertain=("kan_dora", "uma", "ankan_chankan_kokushi", "penalties", "scoring", "pao"),
)

# -- Tenhou -------------------------------------------------------------------------------
_TENHOU = Ruleset(
    name="tenhou",
    title="Tenhou ranked-room rules",
    claim_window=3.0,
    multiple_ron="double",
    kuikae_forbidden=True,
    abortive_draws=frozenset({"four_kans", "four_riichi", "four_winds", "nine_terminals",
                              "triple_ron"}),
    kan_dora="after_discard",
    kan_limit=4,
    ankan_chankan_kokushi=True,
    red_fives=True,
    open_tanyao=True,
    start_score=25000,
    return_score=30000,
    uma=(20, 10, -10, -20),
    uma_ties="seat_order",
    scoring={"double_yakuman": False, "kiriage": False, "kazoe_limit": "yakuman",
             "renhou": "none"},
    pao=True, nagashi_mangan=True, multiple_ron_honba="nearest",
    chombo_style="mangan", chombo_repeats=True,
    game_length="south", extension=True, bust_below_zero=True, dealer_stops_when_top=True,
    leftover_sticks="first",
    time_up="after_this_hand", time_up_between_hands="now", time_up_chombo="ends_game",
    time_up_rule="Tenhou rules (no time limit; the table's default)",
    penalties={
        "kuikae": "chombo", "false_group": "chombo", "late_call": "none",
        "wrong_seat_call": "none", "last_discard_call": "none", "illegal_kan": "chombo",
        "fifth_kan": "chombo", "furiten_ron": "chombo", "no_yaku": "chombo",
        "false_win": "chombo", "riichi_open_hand": "chombo", "procedure": "none",
    },
    rules={k: "Tenhou rules" for k in (
        "kuikae", "false_group", "late_call", "wrong_seat_call", "last_discard_call",
        "illegal_kan", "fifth_kan", "furiten_ron", "no_yaku", "false_win",
        "riichi_open_hand", "procedure")},
    sources={
        "claim_window": "Tenhou has no physical window; 3 s is the project's convention for "
                        "replaying Tenhou logs (the importer places calls 0.3-1.5 s after the "
                        "discard)",
        "multiple_ron": "shared data README (double ron; triple ron aborts)",
        "kuikae_forbidden": "shared data README (kuikae blocked by the client)",
        "abortive_draws": "shared data README (abortive draws); Tenhou: four kans by different "
                          "players, four riichi, four winds, nine terminals, triple ron",
        "kan_dora": "shared data README (open-kan dora after the discard); closed kan at once",
        "ankan_chankan_kokushi": "Tenhou allows thirteen orphans to rob a closed kan",
        "start_score": "Tenhou: 25,000 start, 30,000 return",
        "uma": "Tenhou +20/+10/-10/-20 with oka to first; ties by seat order from the first "
               "dealer; rounding to thousands with 500 up, first takes the balance (checked "
               "against the final points of the 35 shared Tenhou logs that record them)",
        "penalties": "the Tenhou client makes these impossible; chombo is the usual Japanese "
                     "ruling at a physical table (project reading)",
        "scoring": "Tenhou: no double yakuman, no kiriage, kazoe yakuman, no renhou (checked "
                   "against the wins of the shared Tenhou logs)",
        "pao": "Tenhou: liability for daisangen and daisuushii (pao-tsumo.mjlog)",
        "nagashi_mangan": "Tenhou: nagashi mangan, paid as a mangan tsumo, no honba",
        "multiple_ron_honba": "Tenhou: honba and riichi sticks to the winner nearest the "
                              "discarder (double-ron logs)",
        "chombo_style": "Tenhou has no chombo; the usual Japanese mangan-tsumo payment "
                        "(project reading)",
        "game_length": "Tenhou hanchan: East and South, West extension until someone has "
                       "30,000, bust below zero, the last dealer's win stops the game when "
                       "alone on top (agari-yame). A last dealer kept by tenpai plays on: a "
                       "phoenix-room log (dnovikoff/tenhou test data bug1.xml, South 4 one "
                       "honba: dealer alone tenpai with 37,400 on top, the game went on to "
                       "South 4 two honba); arcturus.su's translation of Tenhou's rules says "
                       "a tenpai dealer stops too, which that log contradicts",
        "time_up": f"uncertain: an online Tenhou game has no session time limit (the client "
                   f"limits each move); {_NO_TIME_LIMIT_DEFAULT}",
        "time_up_between_hands": f"uncertain: {_NO_TIME_LIMIT_DEFAULT}",
        "time_up_chombo": f"uncertain: the client makes chombo impossible; "
                          f"{_NO_TIME_LIMIT_DEFAULT}",
        "penalty_applies": "uncertain: Tenhou has no fixed deductions (its chombo here is a "
                           "payment to the others); a referee's point penalty comes off after "
                           "uma (project default)",
    },
    uncertain=("penalties", "game_length", "time_up", "time_up_between_hands",
               "time_up_chombo", "penalty_applies"),
    final_rounding="tenhou",
)

# -- M-League -----------------------------------------------------------------------------
_MLEAGUE = Ruleset(
    name="mleague",
    title="M.League rules",
    claim_window=3.0,
    multiple_ron="head_bump",
    kuikae_forbidden=True,
    abortive_draws=frozenset({"four_kans", "four_riichi", "four_winds", "nine_terminals"}),
    kan_dora="after_discard",
    kan_limit=4,
    ankan_chankan_kokushi=False,
    red_fives=True,
    open_tanyao=True,
    start_score=25000,
    return_score=30000,
    uma=(30, 10, -10, -30),
    uma_ties="seat_order",
    scoring={"double_yakuman": False, "kiriage": False, "kazoe_limit": "yakuman",
             "renhou": "none"},
    pao=True, nagashi_mangan=True, multiple_ron_honba="each",
    chombo_style="fixed", chombo_amount=20000, chombo_repeats=True,
    game_length="south", extension=False, bust_below_zero=False, dealer_stops_when_top=False,
    leftover_sticks="first",
    time_up="after_this_hand", time_up_between_hands="now", time_up_chombo="ends_game",
    time_up_rule="M.League rules (no time limit; the table's default)",
    penalty_applies="after_uma",
    penalties={
        "kuikae": "dead_hand", "false_group": "dead_hand", "late_call": "none",
        "wrong_seat_call": "none", "last_discard_call": "none", "illegal_kan": "dead_hand",
        "fifth_kan": "dead_hand", "furiten_ron": "chombo", "no_yaku": "chombo",
        "false_win": "chombo", "riichi_open_hand": "chombo", "procedure": "none",
    },
    rules={k: "M.League rules" for k in (
        "kuikae", "false_group", "late_call", "wrong_seat_call", "last_discard_call",
        "illegal_kan", "fifth_kan", "furiten_ron", "no_yaku", "false_win",
        "riichi_open_hand", "procedure")},
    sources={
        "claim_window": "uncertain: M.League is played on an automatic table with no written "
                        "seconds; 3 s assumed",
        "multiple_ron": "uncertain: head bump (atamahane) as in most Japanese pro rules",
        "kuikae_forbidden": "M.League (kuikae forbidden)",
        "abortive_draws": "uncertain: the usual Japanese abortive draws less triple ron (no "
                          "triple ron with head bump)",
        "kan_dora": "uncertain: open-kan dora after the discard as in most Japanese pro rules",
        "red_fives": "M.League (one red five per suit)",
        "start_score": "M.League: 25,000 start, 30,000 return",
        "uma": "M.League: +30/+10/-10/-30 with oka +20 to first (uncertain on ties)",
        "ankan_chankan_kokushi": "uncertain: not checked in the M.League rules; assumed not "
                                 "allowed",
        "penalties": "uncertain: Japanese pro rules usually give a dead hand (agari houki) for "
                     "kuikae and false melds, chombo for false wins",
        "scoring": "uncertain: no double yakuman, no kiriage, kazoe yakuman assumed",
        "pao": "uncertain: liability for daisangen and daisuushii assumed",
        "nagashi_mangan": "uncertain: nagashi mangan assumed",
        "chombo_style": "uncertain: M.League takes 20 match points for a chombo; modelled as "
                        "20,000 points from the offender",
        "game_length": "uncertain: East and South, no bust, no extension assumed",
        "time_up": f"uncertain: no time limit found (M.League games are played to the end of "
                   f"South 4: note.com, secondary); {_NO_TIME_LIMIT_DEFAULT}, which "
                   f"MahjongPantheon's jpmlA (Japanese pro league) template also plays "
                   f"(EP_END_AFTER_HAND, secondary)",
        "time_up_between_hands": f"uncertain: {_NO_TIME_LIMIT_DEFAULT}",
        "time_up_chombo": f"uncertain: {_NO_TIME_LIMIT_DEFAULT}",
        "penalty_applies": "uncertain: a chombo costs 20 match points (chombo_style), taken "
                           "after uma",
    },
    uncertain=("claim_window", "multiple_ron", "abortive_draws", "kan_dora", "penalties",
               "ankan_chankan_kokushi", "scoring", "pao", "nagashi_mangan", "chombo_style",
               "time_up", "time_up_between_hands", "time_up_chombo", "penalty_applies",
               "game_length"),
)

# -- Dutch -------------------------------------------------------------------------------
# The Nederlandse Mahjong Bond (NMB) plays riichi by the EMA rules: "De regels zijn naar
# aanleiding van het EK Riichi (2008) herzien en gestandaardiseerd door de EMA. In Nederland
# worden deze spelregels toegepast op verschillende toernooien van de Nederlandse
# Mahjongbond" (mahjongbond.org/spelregels, which links a Dutch text, "Riichi Spelregels NL").
# Dutch translations of the EMA rules found: "R CHI Rules for Japanese Mahjong" in Dutch
# (adoc.pub, contents: 3.3.2 Wissel van stenen (Swap-calling) ... 3.3.10 Vierde kong, 3.4.5
# Furiten, 3.4.8 Kleine overtredingen) and "Spelregels voor Japans Mahjong, Nederlandse
# vertaling", Mahjongclub "de Roode Vijven", February 2012 (3.3.8 Dichte Kong, 3.3.9 Vierde
# Kong). Only their contents pages could be read. The Dutch rules the project was asked to
# judge (issue 15 of this project: "the Dutch rules seed") differ from the EMA text in four
# places; furiten.nl, a Dutch riichi site, states two of them. Everything else is taken from
# ema2012 (the project default) and marked uncertain.
_DUTCH_RULE = "EMA RCR, Dutch translation"
_DUTCH = Ruleset(
    name="dutch",
    title="Dutch riichi rules (Nederlandse Mahjong Bond, on the EMA rules)",
    claim_window=3.0,
    multiple_ron="head_bump",
    kuikae_forbidden=True,
    abortive_draws=frozenset({"four_kans"}),
    kan_dora="after_discard",
    kan_limit=4,
    ankan_chankan_kokushi=True,
    red_fives=True,
    open_tanyao=False,
    start_score=30000,
    return_score=30000,
    uma=(15, 5, -5, -15),
    uma_ties="split",
    scoring=dict(_EMA2012.scoring),
    pao=True, nagashi_mangan=False, multiple_ron_honba="each",
    chombo_style="fixed", chombo_amount=20000, chombo_repeats=True,
    game_length="south", extension=False, bust_below_zero=False, dealer_stops_when_top=False,
    leftover_sticks="none",
    time_up="after_next_hand", time_up_between_hands="after_next_hand", time_up_chombo="redeal",
    time_up_rule=f"{_DUTCH_RULE} 5 (Etiquette en toernooiregels; as the EMA rules are played)",
    penalty_applies="after_uma",
    penalties=dict(_EMA2012.penalties),
    rules={
        "kuikae": f"{_DUTCH_RULE} 3.3.2 (Wissel van stenen)",
        "false_group": f"{_DUTCH_RULE} 5 (Etiquette en toernooiregels)",
        "late_call": f"{_DUTCH_RULE} 3.3.1 (Voorrang en timing bij het claimen)",
        "wrong_seat_call": f"{_DUTCH_RULE} 3.3.3 (Open chow)",
        "last_discard_call": f"{_DUTCH_RULE} 3.4.1 (Laatste steen)",
        "illegal_kan": f"{_DUTCH_RULE} 3.3.7 (Gesloten kong)",
        "fifth_kan": f"{_DUTCH_RULE} 3.3.10 (Vierde kong)",
        "furiten_ron": f"{_DUTCH_RULE} 3.4.5 (Furiten)",
        "no_yaku": f"{_DUTCH_RULE} 3.3.11 (Mahjong met weggegooide steen)",
        "false_win": f"{_DUTCH_RULE} 3.4.6 (Chombo)",
        "riichi_open_hand": f"{_DUTCH_RULE} 3.3.14 (Riichi)",
        "procedure": f"{_DUTCH_RULE} 3.4.8 (Kleine overtredingen)",
    },
    sources={
        "ankan_chankan_kokushi": "issue 15 (Dutch rules seed: a closed kan may be robbed by "
                                 "thirteen orphans); furiten.nl 'Aan de slag': 'Een speler "
                                 "die wachtend is op Kokushimuso kan Ron maken als de steen "
                                 "waar hij op wacht, wordt gebruikt voor een dichte Kan van een "
                                 "andere speler (Kongroof oftewel Chyan Kan)'",
        "kan_dora": "issue 15 (Dutch rules seed: after an open or added kan the new indicator "
                    "is turned after the replacement draw and the discard, and not at all "
                    "when the replacement tile wins); furiten.nl (its three-player rules, "
                    "'Spelverloop onderbreken door Pon of Kan'): 'Na het declareren van een "
                    "Open Kan draait de speler pas een nieuwe Mekuri-pai nadat hij een "
                    "vervangende steen van de Muur heeft genomen en steen heeft afgelegd'; a "
                    "closed kan's indicator at once (furiten.nl, same page). Uncertain: "
                    "whether a ron on the kan maker's discard counts that indicator (here it "
                    "does, as the discard has been made)",
        "abortive_draws": "issue 15 (Dutch rules seed: a fourth kan ends the hand unless one "
                          "player made all four, four kans being then a yakuman: suukantsu). "
                          "Uncertain: when it ends (here as the usual four-kan draw: once the "
                          "discard after the fourth kan passes without a ron), and whether "
                          "the other abortive draws apply (riichi.wiki's summary of the EMA "
                          "rules of 2008-2016 lists four riichi, four winds and nine "
                          "terminals too; RCR 2016 has none); the Dutch texts' 'Vierde kong' "
                          "sections were not read",
        "furiten": "issue 15 (Dutch rules seed: pon on a tile one discarded earlier is "
                   "allowed, ron on it is furiten); EMA RCR 3.4.5 (Furiten, in the Dutch "
                   "translation's contents): a wait among one's own discards is furiten",
        "claim_window": "uncertain: as ema2012 (project spec: 3-second window)",
        "multiple_ron": "uncertain: as ema2012 (project spec: head bump)",
        "kuikae_forbidden": "as ema2012 (project spec); the Dutch translation has a "
                            "swap-calling section (3.3.2 Wissel van stenen)",
        "red_fives": "uncertain: as ema2012 (one red five per suit; the club that made the "
                     "2012 Dutch translation is 'de Roode Vijven', the red fives)",
        "open_tanyao": "uncertain: as ema2012 (kuitan nashi)",
        "uma": "uncertain: as ema2012 (+15/+5/-5/-15, 30,000 start, no oka)",
        "scoring": "uncertain: as ema2012 (renhou a yakuman, daisuushii the one double "
                   "yakuman, kazoe sanbaiman)",
        "pao": "the Dutch translation's 3.3.9 (Derde open pung Draken en vierde open pung "
               "Winden): liability as in EMA RCR",
        "penalties": "uncertain: as ema2012 (project reading)",
        "game_length": "uncertain: as ema2012",
        "leftover_sticks": "uncertain: as ema2012 (lost)",
        "time_up": "uncertain: nothing found of the NMB's tournament time rules (the Dutch "
                   "translation's chapter 5, 'Etiquette en Toernooiregels', was not read); as "
                   f"ema2012 ({_EMA_TIME})",
        "time_up_between_hands": f"uncertain: as ema2012 ({_PANTHEON_ONE_MORE})",
        "time_up_chombo": f"uncertain: as ema2012 ({_EMA_TIME_CHOMBO})",
        "penalty_applies": f"uncertain: as ema2012 ({_EMA_AFTER_UMA})",
    },
    uncertain=("claim_window", "multiple_ron", "red_fives", "open_tanyao", "uma", "scoring",
               "penalties", "game_length", "leftover_sticks", "abortive_draws", "kan_dora",
               "time_up", "time_up_between_hands", "time_up_chombo", "penalty_applies"),
)

RULESETS: dict[str, Ruleset] = {r.name: r for r in (_EMA2012, _EMA2016, _EMA2025, _WRC2015,
                                                    _TENHOU, _MLEAGUE, _DUTCH)}


def get_ruleset(name: str | None) -> Ruleset:
    """The profile called ``name`` (``None`` gives the default, ``ema2012``).

    Raises :class:`RefereeError` naming the known profiles for any other name.
    """
    if name is None:
        return RULESETS[DEFAULT_RULESET]
    try:
        return RULESETS[name]
    except (KeyError, TypeError):
        raise RefereeError(f"unknown ruleset {name!r} (known: {', '.join(RULESETS)})") from None
