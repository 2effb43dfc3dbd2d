"""Payments with hand-checked values, then every shared Tenhou game settled by these rules."""
import pytest

from referee import payments as P

RON = [
    # (winner, discarder, points, honba, sticks, expected)
    (1, 3, 8000, 0, 0, [0, 8000, 0, -8000]),
    # 2 honba: 600 more from the discarder; a stick from the table
    (1, 3, 8000, 2, 1, [0, 9600, 0, -8600]),
    (0, 2, 12000, 1, 0, [12300, 0, -12300, 0]),
]


@pytest.mark.parametrize("winner, discarder, points, honba, sticks, expected", RON)
def test_ron(winner, discarder, points, honba, sticks, expected):
    assert P.ron(winner, discarder, points, honba, sticks) == expected


TSUMO = [
    # (winner, dealer, dealer pays, others pay, honba, sticks, expected)
    # non-dealer 700/1300
    (2, 0, 1300, 700, 0, 0, [-1300, -700, 2700, -700]),
    # with 1 honba: 100 more from each; 2 sticks
    (2, 0, 1300, 700, 1, 2, [-1400, -800, 5000, -800]),
    # dealer tsumo 4000 all, 1 honba
    (3, 3, 0, 4000, 1, 0, [-4100, -4100, -4100, 12300]),
]


@pytest.mark.parametrize("winner, dealer, dealer_pays, others_pay, honba, sticks, expected", TSUMO)
def test_tsumo(winner, dealer, dealer_pays, others_pay, honba, sticks, expected):
    assert P.tsumo(winner, dealer, dealer_pays, others_pay, honba, sticks) == expected
    assert sum(expected) == 1000 * sticks


def test_multiple_ron_honba_and_sticks_to_the_nearest_winner():
    # seat 3 deals into seats 0 and 2; seat 0 sits next after seat 3, so it is nearest
    first, second = P.multiple_ron(3, [(2, 2000), (0, 12000)], honba=1, sticks=2)
    assert first == [0, 0, 2000, -2000]
    assert second == [14300, 0, 0, -12300]


def test_multiple_ron_honba_to_each_winner():
    first, second = P.multiple_ron(3, [(2, 2000), (0, 12000)], honba=1, sticks=2,
                                   honba_to="each")
    assert first == [0, 0, 2300, -2300]
    assert second == [14300, 0, 0, -12300]


def test_nearest_first_is_turn_order_from_the_discarder():
    assert P.nearest_first(1, [0, 3, 2]) == [2, 3, 0]
    assert P.nearest_first(3, [2, 0]) == [0, 2]


def test_pao():
    # daisangen tsumo, seat 0 fed the third dragon: it pays all of 32000 (and 3 honba)
    assert P.pao_tsumo(2, 0, 32000) == [-32000, 0, 32000, 0]
    assert P.pao_tsumo(2, 0, 32000, honba=1) == [-32300, 0, 32300, 0]
    # ron: the discarder and the liable seat pay half each; the honba is the liable seat's
    assert P.pao_ron(1, 2, 0, 32000, honba=2) == [-16600, 32600, -16000, 0]
    assert P.pao_ron(1, 2, 2, 32000) == [0, 32000, -32000, 0]


@pytest.mark.parametrize("tenpai, expected", [
    ([], [0, 0, 0, 0]),
    ([2], [-1000, -1000, 3000, -1000]),
    ([0, 3], [1500, -1500, -1500, 1500]),
    ([0, 1, 2], [1000, 1000, 1000, -3000]),
    ([0, 1, 2, 3], [0, 0, 0, 0]),
])
def test_exhaustive_draw(tenpai, expected):
    assert P.exhaustive_draw(tenpai) == expected


def test_nagashi_mangan():
    # seat 2, dealer 3: 4000 from the dealer, 2000 from each other (a shared game has it)
    assert P.nagashi_mangan([2], dealer=3) == [-2000, -2000, 8000, -4000]
    assert P.nagashi_mangan([1], dealer=1) == [-4000, 12000, -4000, -4000]


@pytest.mark.parametrize("offender, dealer, style, amount, expected", [
    # a non-dealer pays a mangan to all: 4000 to the dealer, 2000 to the others
    (1, 0, "mangan", None, [4000, -8000, 2000, 2000]),
    # the dealer pays 4000 to each
    (0, 0, "mangan", None, [-12000, 4000, 4000, 4000]),
    # EMA: 20000 off the offender's score, nobody gains
    (2, 0, "fixed", 20000, [0, 0, -20000, 0]),
    (2, 0, "split", 12000, [4000, 4000, -12000, 4000]),
])
def test_chombo(offender, dealer, style, amount, expected):
    kwargs = {} if amount is None else {"amount": amount}
    assert P.chombo(offender, dealer, style, **kwargs) == expected


def test_chombo_style_must_be_known():
    with pytest.raises(ValueError):
        P.chombo(0, 0, "banishment")


@pytest.mark.parametrize("result, dealer_won, dealer_tenpai, expected", [
    ("ron", True, False, (2, 4)),          # renchan
    ("tsumo", False, False, (3, 0)),        # the deal passes, honba cleared
    ("exhaustive", False, True, (2, 4)),
    ("exhaustive", False, False, (3, 4)),   # passes, the honba still grows
    ("abortive", False, False, (2, 4)),
    ("chombo", False, False, (2, 3)),       # the hand is replayed as it was
])
def test_next_hand(result, dealer_won, dealer_tenpai, expected):
    assert P.next_hand(2, 3, result, dealer_won, dealer_tenpai) == expected


@pytest.mark.parametrize("round_index, dealer, scores, kept, result, length, expected", [
    (3, 3, [20000, 20000, 20000, 40000], False, "ron", "south", False),  # East 4, hanchan
    (7, 3, [35000, 25000, 20000, 20000], False, "ron", "south", True),   # South 4 passes
    (7, 3, [29000, 27000, 24000, 20000], False, "ron", "south", False),  # nobody 30000: West
    (7, 3, [20000, 20000, 20000, 40000], True, "tsumo", "south", True),  # dealer stops on top
    (7, 3, [40000, 20000, 20000, 20000], True, "tsumo", "south", False),  # not top: go on
    (7, 3, [20000, 20000, 20000, 40000], True, "abortive", "south", False),
    (7, 3, [20000, 20000, 20000, 40000], True, "exhaustive", "south", False),  # tenpai: on
    (4, 0, [-100, 40000, 30000, 30100], False, "ron", "south", True),    # below zero
    (4, 0, [0, 40000, 30000, 30000], False, "ron", "south", False),      # zero still plays
    (8, 0, [31000, 29000, 20000, 20000], False, "ron", "south", True),   # West: 30000 ends
    (11, 3, [29000, 27000, 24000, 20000], False, "ron", "south", True),  # the West is over
    (3, 3, [31000, 29000, 20000, 20000], False, "ron", "east", True),    # East-only game
])
def test_game_over(round_index, dealer, scores, kept, result, length, expected):
    assert P.game_over(round_index, dealer, scores, kept, result, length) is expected


@pytest.mark.parametrize("scores, expected", [
    # (score - 30000)/1000 + uma 20/10/-10/-20, first takes what balances (oka 20 included)
    ([33400, 36000, 32000, -1400], [13.0, 46.0, -8.0, -51.0]),
    # ties rank by seat order from the first dealer
    ([85300, 8900, 8900, -3100], [95.0, -11.0, -31.0, -53.0]),
    # a half rounds toward zero: -5.5 -> -5, -4.5 -> -4; 23.6 -> 24
    ([24500, 29300, 30400, 15800], [-15.0, 9.0, 40.0, -34.0]),
    ([25500, 20700, 32500, 21300], [6.0, -29.0, 42.0, -19.0]),
])
def test_match_points_tenhou(scores, expected):
    assert P.match_points(scores) == expected


def test_match_points_without_rounding_ema():
    # EMA: 30000 start and return (no oka), uma 15/5/-5/-15
    got = P.match_points([45000, 30000, 25500, 19500], uma=(15, 5, -5, -15), start=30000,
                         target=30000, rounding="none")
    assert got == [30.0, 5.0, -9.5, -25.5]


def test_leftover_sticks_go_to_first_place():
    assert P.final_scores([16600, 13300, 32200, 34900], leftover_sticks=3) == \
        [16600, 13300, 32200, 37900]


@pytest.mark.shared
def test_every_shared_game_settles_by_these_rules(shared_data):
    """Every hand's payments, every dealer change, every game end and the final match points
    of the shared Tenhou games, recomputed from the hand values and compared with the logs."""
    from referee.scoring import score_win
    from referee.tenhou import import_log

    options = {"double_yakuman": False}
    logs = sorted((shared_data / "tenhou").rglob("*.*"))
    assert len(logs) == 53
    games = 0
    for path in logs:
        game = import_log(path)
        hands = game.hands
        for i, hand in enumerate(hands):
            where = f"{path.name} {hand.label}"
            wins = [w for w in hand.wins if w.han is not None]
            if hand.checkable:
                values = []
                for w in wins:
                    score = score_win(w.concealed, w.melds, w.win_tile, w.situation, options)
                    values.append((w, score))
                    s = w.situation
                    if w.pao is not None and w.from_seat is None:
                        got = P.pao_tsumo(w.seat, w.pao, score.points, s.honba, s.kyoutaku)
                    elif w.pao is not None:
                        got = P.pao_ron(w.seat, w.from_seat, w.pao, score.points, s.honba,
                                        s.kyoutaku)
                    elif w.from_seat is None:
                        got = P.tsumo(w.seat, hand.dealer, score.dealer_payment,
                                      score.non_dealer_payment, s.honba, s.kyoutaku)
                    else:
                        got = P.ron(w.seat, w.from_seat, score.points, s.honba, s.kyoutaku)
                    assert got == w.payments, where
                if len(wins) > 1:
                    sticks = wins[0].situation.kyoutaku
                    multi = P.multiple_ron(wins[0].from_seat, [(w.seat, sc.points)
                                                               for w, sc in values],
                                           hand.honba, sticks)
                    assert multi == [w.payments for w in wins], where
                if hand.result == "exhaustive" and hand.reason == "nagashi_mangan":
                    seats = [s for s in range(4) if hand.deltas[s] > 0]
                    assert P.nagashi_mangan(seats, hand.dealer) == hand.deltas, where
                elif hand.result == "exhaustive":
                    assert P.exhaustive_draw(hand.tenpai) == hand.deltas, where
            if game.final_scores is None:
                continue
            dealer_won = any(w.seat == hand.dealer for w in hand.wins)
            dealer_tenpai = bool(hand.tenpai) and hand.dealer in hand.tenpai
            nxt = P.next_hand(hand.dealer, hand.honba, hand.result, dealer_won, dealer_tenpai)
            round_index = "ESWN".index(hand.round_wind) * 4 + hand.round_number - 1
            over = P.game_over(round_index, hand.dealer, hand.scores, nxt[0] == hand.dealer,
                               hand.result, game.game_length or "south")
            if i + 1 < len(hands):
                assert nxt == (hands[i + 1].dealer, hands[i + 1].honba), where
                assert not over, where
            else:
                assert over, where
        if game.final_points is not None:
            last = hands[-1].scores
            sticks = (sum(game.final_scores) - sum(last)) // 1000
            assert P.final_scores(last, sticks) == game.final_scores, path.name
            assert P.match_points(last, leftover_sticks=sticks) == game.final_points, path.name
            games += 1
    assert games == 35
