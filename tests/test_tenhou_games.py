"""Every shared Tenhou game (mjlog and tenhou.net/6) replayed through the rules core on the
``tenhou`` profile and compared with its log: no violation, every recorded win reproduced
(seat, from, han, fu, points, per-seat payments with honba and sticks), every hand's closing
scores, the game end, and the next hand's dealer, honba and sticks as the core predicts them.

Nine terminals (kyuushu kyuuhai) is declared from a concealed hand. At a physical table the
declaring seat lays its fourteen tiles open on its first turn: a ``reveal`` with no win
called, which the importer emits. Should an imported hand lack it, this test adds that reveal
(the declaring seat's fourteen tiles as the log ends the hand) after the hand's last event, so
the core's ruling is checked all the same."""
from __future__ import annotations

import copy

import pytest

from app.commands.check_tenhou import find_logs
from referee.core import Referee
from referee.tenhou import import_log
from referee.tenhou.check import check_game

pytestmark = pytest.mark.shared


def with_nine_terminals_reveals(game):
    """The game with a ``reveal`` added for each nine-terminals hand that has none."""
    events = game.events
    starts = [i for i, e in enumerate(events) if e["type"] == "hand_start"]
    out = events[:starts[0]]
    for hand, a, b in zip(game.hands, starts, starts[1:] + [len(events)]):
        segment = events[a:b]
        out += segment
        if hand.result == "abortive" and hand.reason == "nine_terminals" \
                and not any(e["type"] == "reveal" for e in segment):
            seat = next(s for s, (tiles, melds) in enumerate(hand.final_hands)
                        if len(tiles) + 3 * len(melds) == 14)
            tiles = hand.final_hands[seat][0]
            out.append({"type": "reveal", "t": round(segment[-1]["t"] + 3.5, 3), "seat": seat,
                        "tiles": list(tiles), "win_tile": tiles[-1]})
    game = copy.copy(game)
    game.events = out
    return game


@pytest.fixture(scope="module")
def games(shared_data):
    logs = find_logs([str(shared_data / "tenhou")])
    assert len(logs) >= 50
    return [(path.name, with_nine_terminals_reveals(import_log(path))) for path in logs]


def test_every_shared_game_replays_as_its_log_says(games):
    totals = {"wins": 0, "wins_matched": 0, "hand_ends": 0, "hand_ends_matched": 0,
              "violations": 0}
    problems = []
    for name, game in games:
        check = check_game(game, Referee("tenhou"))
        for key in totals:
            totals[key] += getattr(check, key)
        if not check.ok:
            problems.append((name, check.mismatches))
    assert problems == []
    assert totals["violations"] == 0
    assert totals["wins"] >= 290 and totals["wins_matched"] == totals["wins"]
    assert totals["hand_ends"] >= 350 and totals["hand_ends_matched"] == totals["hand_ends"]


def test_the_edge_cases_are_in_the_games(games):
    """The games hold what the issue names: double rons, four-kan, four-riichi and
    nine-terminal aborts, chankan, rinshan, pao, nagashi mangan."""
    seen = set()
    for name, game in games:
        ref = Referee("tenhou")
        for ev in game.events:
            for r in ref.feed(ev):
                if r["type"] == "hand_end":
                    seen.add(r.get("reason") or r["result"])
                    if r.get("nagashi"):
                        seen.add("nagashi")
                elif r["type"] == "win":
                    seen.update(y for y in r["yaku"] if y in ("chankan", "rinshan kaihou"))
                    if "liable" in r:
                        seen.add("pao")
        for hand in game.hands:
            if len(hand.wins) == 2:
                seen.add("double_ron")
    assert {"double_ron", "four_kans", "four_riichi", "nine_terminals", "chankan",
            "rinshan kaihou", "pao", "nagashi", "ron", "tsumo", "exhaustive"} <= seen, seen


def test_the_core_predicts_each_next_hand(games):
    """hand_end's ``next`` (dealer, honba, riichi sticks) is what the log's next hand has."""
    compared = 0
    for name, game in games:
        ref = Referee("tenhou")
        predicted = None
        for ev in game.events:
            # a draw may end only when the next hand starts: its hand_end comes first
            for r in ref.feed(ev):
                if r["type"] == "hand_end":
                    n = r["next"]
                    predicted = (n["dealer"], n["honba"], n["riichi_sticks"])
            if ev["type"] == "hand_start" and predicted is not None:
                got = (ev["dealer"], ev["honba"], ev["riichi_sticks"])
                assert got == predicted, (name, ev["t"])
                compared += 1
                predicted = None
    assert compared >= 290


def test_game_end_comes_right_after_the_last_hand(games):
    ended = 0
    for name, game in games:
        if game.final_scores is None:
            continue
        ref = Referee("tenhou")
        rulings = []
        for ev in game.events:
            rulings += ref.feed(ev)
        types = [r["type"] for r in rulings]
        assert types.count("game_end") == 1, name
        assert types[-2:] == ["hand_end", "game_end"], name
        assert rulings[-1]["scores"] == game.final_scores, name
        ended += 1
    assert ended >= 30
