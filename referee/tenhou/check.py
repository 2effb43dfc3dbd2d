"""Replay a Tenhou game through the rules core and compare it with what its log records.

Every recorded win (seat, ``from``, han, fu, points, payments), every hand's end (result,
reason, closing scores), the game's end, and violations (a Tenhou game has none, so each is a
false flag). ``riichi-referee check-tenhou`` (:mod:`app.commands.check_tenhou`) runs it on
every log of a folder."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import RefereeError
from .records import ExpectedHand, ExpectedWin, ImportedGame


@dataclass
class GameCheck:
    """How one game's replay compares with its log."""

    source: str
    hands: int = 0
    wins: int = 0
    wins_matched: int = 0
    hand_ends: int = 0
    hand_ends_matched: int = 0
    violations: int = 0
    expected_violations: int = 0
    unverifiable: int = 0
    game_end: bool | None = None       # None: the log has no final standings
    error: str | None = None
    mismatches: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (self.error is None and self.wins_matched == self.wins
                and self.hand_ends_matched == self.hand_ends and self.violations == 0
                and self.game_end is not False)


def tenhou_referee():
    try:
        from ..core import Referee
        return Referee("tenhou")
    except (ImportError, NotImplementedError, AttributeError) as exc:
        raise RefereeError(f"the rules core is not available ({exc})") from None


def replay_by_hand(game: ImportedGame, referee=None) -> tuple[list[list[dict]], list[dict]]:
    """Feed the game's events; return the rulings of each hand, and the ``game_end`` rulings.

    A hand's rulings are those the core gives after its ``hand_start`` up to and including
    the next ``hand_start`` (the core may close a hand only when the next one starts), and,
    for the last hand, those of ``finish()``.
    """
    referee = referee or tenhou_referee()
    per_hand: list[list[dict]] = []
    before: list[dict] = []
    for event in game.events:
        rulings = referee.feed(event)
        (per_hand[-1] if per_hand else before).extend(rulings)
        if event["type"] == "hand_start":
            per_hand.append([])
    rulings = referee.finish()
    (per_hand[-1] if per_hand else before).extend(rulings)
    if per_hand:
        per_hand[0][:0] = before
    everything = [r for rs in per_hand for r in rs]
    return per_hand, [r for r in everything if r["type"] == "game_end"]


def _win_diff(want: ExpectedWin, got: dict, payments: bool = True) -> list[str]:
    diff = []
    if got.get("from") != want.from_seat:
        diff.append(f"from {got.get('from')} (log {want.from_seat})")
    if want.han is not None and got.get("han") != want.han:
        diff.append(f"han {got.get('han')} (log {want.han})")
    if want.fu is not None and not want.yakuman and got.get("fu") != want.fu:
        diff.append(f"fu {got.get('fu')} (log {want.fu})")
    if want.points is not None and got.get("points") != want.points:
        diff.append(f"points {got.get('points')} (log {want.points})")
    if payments and got.get("payments") != want.payments:
        diff.append(f"payments {got.get('payments')} (log {want.payments})")
    return diff


def _check_hand(hand: ExpectedHand, rulings: list[dict], check: GameCheck) -> None:
    label = hand.label
    violations = [r for r in rulings if r["type"] == "violation"]
    expected = list(hand.expected_violations)
    for v in violations:
        match = next((x for x in expected if x["seat"] == v.get("seat")
                      and x["kind"] == v.get("kind")), None)
        if match is not None:
            expected.remove(match)
            check.expected_violations += 1
            continue
        check.violations += 1
        check.mismatches.append(f"{label}: violation {v.get('kind')} by seat {v.get('seat')}: "
                                f"{v.get('text')}")
    if not hand.checkable:
        check.unverifiable += 1
        check.mismatches.append(f"{label}: not compared: {hand.note}")
    wins = [r for r in rulings if r["type"] == "win"]
    for want in hand.wins:
        if want.han is None:
            continue  # the log does not say what the win was worth
        check.wins += 1
        got = next((r for r in wins if r.get("seat") == want.seat), None)
        if got is None:
            check.mismatches.append(f"{label}: no win ruling for seat {want.seat} "
                                    f"(log: {want.han} han {want.fu} fu {want.points})")
            continue
        wins.remove(got)
        diff = _win_diff(want, got, payments=hand.checkable)
        if diff:
            check.mismatches.append(f"{label}: seat {want.seat}'s win: " + ", ".join(diff))
        else:
            check.wins_matched += 1
    for extra in wins:
        if hand.checkable:
            check.mismatches.append(f"{label}: a win ruling for seat {extra.get('seat')} the "
                                    "log does not have")
    if not hand.checkable:
        return
    check.hand_ends += 1
    ends = [r for r in rulings if r["type"] == "hand_end"]
    if not ends:
        check.mismatches.append(f"{label}: no hand_end ruling (log: {hand.result}"
                                f"{' ' + hand.reason if hand.reason else ''}, scores "
                                f"{hand.scores})")
        return
    end = ends[0]
    diff = []
    if end.get("result") != hand.result:
        diff.append(f"result {end.get('result')} (log {hand.result})")
    if hand.result == "abortive" and end.get("reason") != hand.reason:
        diff.append(f"reason {end.get('reason')} (log {hand.reason})")
    if end.get("scores") != hand.scores:
        diff.append(f"scores {end.get('scores')} (log {hand.scores})")
    if len(ends) > 1:
        diff.append(f"{len(ends)} hand_end rulings")
    if diff:
        check.mismatches.append(f"{label}: hand_end " + ", ".join(diff))
    else:
        check.hand_ends_matched += 1


def check_game(game: ImportedGame, referee=None) -> GameCheck:
    """Replay one imported game and compare the rulings with the log's records."""
    check = GameCheck(source=game.source, hands=len(game.hands))
    per_hand, game_end = replay_by_hand(game, referee)
    for hand, rulings in zip(game.hands, per_hand):
        _check_hand(hand, rulings, check)
    if game.final_scores is not None:
        if not game_end:
            check.game_end = False
            check.mismatches.append(f"no game_end ruling (log: scores {game.final_scores}, "
                                    f"final {game.final_points})")
        else:
            got = game_end[0]
            ok = got.get("scores") == game.final_scores and \
                [float(x) for x in got.get("final", [])] == game.final_points
            check.game_end = ok
            if not ok:
                check.mismatches.append(f"game_end scores {got.get('scores')} final "
                                        f"{got.get('final')} (log {game.final_scores} final "
                                        f"{game.final_points})")
    return check
