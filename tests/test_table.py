"""Table state from the events: turn order, ponds, melds, wall, dora, riichi, and the facts a
later judgement of a revealed hand needs (furiten, ippatsu, first go-around, rinshan)."""
import pytest

from referee.core import Referee
from referee.simulate import filler, script
from scenario import judge

RULESETS = ["ema2012", "tenhou"]


def play(ruleset, *lines, events=()):
    return judge(ruleset, *lines, events=events, finish=False)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_turn_order_and_wall_count(ruleset):
    _, ref = play(ruleset)
    snap = ref.snapshot()
    assert snap["turn"] == 0 and snap["wall"] == 69  # the dealer's 14th tile was drawn
    _, ref = play(ruleset, "1 d0 1z", "2 d1 2z", "3 d2 3z")
    snap = ref.snapshot()
    assert snap["turn"] is None  # seat 2's discard is still open to claims
    assert snap["wall"] == 67
    ref.advance(6.0)
    snap = ref.snapshot()
    assert snap["turn"] == 3 and snap["wall"] == 66


@pytest.mark.parametrize("ruleset", RULESETS)
def test_called_tile_leaves_the_pond_and_the_turn_skips(ruleset):
    _, ref = play(ruleset, "1 d0 3p", "1.5 c2 pon", "2 m2 pon 333p 3p@0", "2.8 d2 9s")
    snap = ref.snapshot()
    assert snap["seats"][0]["pond"][0]["called"] is True
    assert ref.hand.seats[0].pond.visible() == []
    assert snap["seats"][2]["melds"] == [{"kind": "pon", "tiles": ["3p", "3p", "3p"],
                                          "called": "3p", "from": 0}]
    assert snap["wall"] == 69  # seat 2 took a discard instead of drawing
    ref.advance(6.0)
    assert ref.snapshot()["turn"] == 3  # seat 1 was skipped


@pytest.mark.parametrize("ruleset", RULESETS)
def test_kan_takes_a_tile_from_the_live_wall(ruleset):
    _, ref = play(ruleset, "1 c0 kan", "1.2 m0 ankan 2222m", "1.5 dora 5s")
    snap = ref.snapshot()
    assert snap["wall"] == 68 and snap["dora_indicators"] == ["1m", "5s"]
    assert ref.hand.rinshan == 0
    _, ref = play(ruleset, "1 c0 kan", "1.2 m0 ankan 2222m", "2 d0 9p")
    assert ref.hand.rinshan is None


@pytest.mark.parametrize("ruleset", RULESETS)
def test_last_discard_and_exhaustive_draw(ruleset):
    rulings, ref = play(ruleset, events=filler(70, 0, 1.0))
    assert ref.snapshot()["window"]["last_discard"] is True
    assert ref.hand.haitei
    out = ref.feed(script("74 tenpai 0,2")[0])
    assert [r["type"] for r in out] == ["hand_end"]
    assert out[0]["result"] == "exhaustive" and out[0]["tenpai"] == [0, 2]
    assert out[0]["scores"] == ref.snapshot()["scores"]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_exhaustive_draw_without_tenpai_event_ends_at_next_hand(ruleset):
    _, ref = play(ruleset, events=filler(70, 0, 1.0))
    out = ref.feed(script("80 hs 1")[0])
    assert [(r["type"], r["result"], r["tenpai"]) for r in out] == [
        ("hand_end", "exhaustive", [])]
    assert ref.snapshot()["round"]["dealer"] == 1 and ref.snapshot()["round"]["number"] == 2


@pytest.mark.parametrize("ruleset", RULESETS)
def test_riichi_stick_and_ippatsu(ruleset):
    _, ref = play(ruleset, "1 d0 3p r", "2 d1 1z")
    seat = ref.hand.seats[0]
    assert seat.riichi and seat.ippatsu and seat.riichi_index == 0 and seat.riichi_turn == 0
    snap = ref.snapshot()
    assert snap["round"]["riichi_sticks"] == 1
    assert snap["scores"][0] == ref.ruleset.start_score - 1000
    # a call by anyone ends ippatsu
    _, ref = play(ruleset, "1 d0 3p r", "2 d1 1z", "2.5 c2 pon", "3 m2 pon 111z 1z@1",
                  "3.5 d2 9s")
    assert ref.hand.seats[0].ippatsu is False
    # so does the riichi player's own next discard
    _, ref = play(ruleset, "1 d0 3p r", "2 d1 1z", "3 d2 2z", "4 d3 3z", "5 d0 4z")
    assert ref.hand.seats[0].ippatsu is False


@pytest.mark.parametrize("ruleset", RULESETS)
def test_tiles_passed_for_furiten(ruleset):
    _, ref = play(ruleset, "1 d0 3p r", "2 d1 1z", "3 d2 2z", "4 d3 3z", "5 d0 4z", "6 d1 5z")
    s0, s1 = ref.hand.seats[0], ref.hand.seats[1]
    assert s0.passed_since_turn == ["5z"]
    assert s0.passed_since_riichi == ["1z", "2z", "3z", "5z"]
    assert s1.passed_since_turn == []
    assert ref.hand.seats[2].passed_since_turn == ["3z", "4z", "5z"]
    assert ref.hand.seats[0].pond.kinds() == {"3p", "4z"}


@pytest.mark.parametrize("ruleset", RULESETS)
def test_first_go_around_interrupted_by_any_call(ruleset):
    _, ref = play(ruleset, "1 d0 1z", "2 d1 2z")
    assert ref.hand.uninterrupted
    _, ref = play(ruleset, "1 d0 1z", "1.5 c2 pon", "2 m2 pon 111z 1z@0", "3 d2 9s")
    assert not ref.hand.uninterrupted
    _, ref = play(ruleset, "1 c0 kan", "1.2 m0 ankan 2222m")
    assert not ref.hand.uninterrupted


def test_four_winds_abort_on_tenhou_only():
    lines = ("1 d0 1z", "2 d1 1z", "3 d2 1z", "4 d3 1z")
    rulings, _ = play("tenhou", *lines, "8 d0 5m")
    ends = [r for r in rulings if r["type"] == "hand_end"]
    assert [(e["result"], e["reason"]) for e in ends] == [("abortive", "four_winds")]
    rulings, _ = play("ema2012", *lines, "8 d0 5m")
    assert not [r for r in rulings if r["type"] == "hand_end"]
    # different winds: no abort
    rulings, _ = play("tenhou", "1 d0 1z", "2 d1 2z", "3 d2 1z", "4 d3 1z", "8 d0 5m")
    assert not [r for r in rulings if r["type"] == "hand_end"]


def test_four_riichi_abort_on_tenhou_only():
    lines = ("1 d0 5m r", "2 d1 6m r", "3 d2 7m r", "4 d3 8m r")
    rulings, ref = play("tenhou", *lines, "8 d0 5m")
    ends = [r for r in rulings if r["type"] == "hand_end"]
    assert [(e["result"], e["reason"]) for e in ends] == [("abortive", "four_riichi")]
    rulings, _ = play("ema2012", *lines, "8 d0 5m")
    assert not [r for r in rulings if r["type"] == "hand_end"]


FOUR_KANS_TWO_PLAYERS = ("1 c0 kan", "1.2 m0 ankan 2222m", "2 c0 kan", "2.2 m0 ankan 3333m",
                         "3 c0 kan", "3.2 m0 ankan 4444m", "4 d0 6s", "4.5 c2 kan",
                         "5 m2 daiminkan 6666s 6s@0", "6 d2 9p")


def test_four_kans_by_different_players_abort_on_tenhou_after_the_next_discard():
    rulings, ref = play("tenhou", *FOUR_KANS_TWO_PLAYERS)
    assert not [r for r in rulings if r["type"] == "hand_end"]  # the discard may still be ronned
    out = ref.advance(9.0)
    assert [(r["type"], r.get("reason")) for r in out] == [("hand_end", "four_kans")]


def test_four_kans_by_different_players_play_on_under_ema2012():
    rulings, ref = play("ema2012", *FOUR_KANS_TWO_PLAYERS, "10 d3 1z")
    assert not [r for r in rulings if r["type"] in ("hand_end", "violation")]
    assert len(ref.hand.kans) == 4


def test_ron_on_the_discard_after_four_kans_prevents_the_abort():
    rulings, ref = play("tenhou", *FOUR_KANS_TWO_PLAYERS, "6.5 c3 ron")
    ref.advance(12)
    assert not [r for r in rulings if r["type"] == "hand_end"]
    assert ref.hand.declared_wins[0]["seat"] == 3


def test_snapshot_shape_is_the_documented_one():
    _, ref = play("ema2012", "1 d0 3p", "1.3 c2 pon")
    snap = ref.snapshot()
    for key in ("t", "ruleset", "claim_window", "names", "scores", "round", "turn", "wall",
                "dora_indicators", "seats", "window", "hand_over", "game_over"):
        assert key in snap
    assert snap["round"] == {"wind": "E", "number": 1, "dealer": 0, "honba": 0,
                             "riichi_sticks": 0}
    assert set(snap["seats"][0]) >= {"seat", "riichi", "dead_hand", "pond", "melds"}
    assert snap["seats"][0]["pond"] == [{"tile": "3p", "t": 1.0, "riichi": False,
                                         "called": False}]
    assert snap["window"] == {"discard_seat": 0, "tile": "3p", "opened": 1.0, "deadline": 4.0,
                              "chankan": False, "last_discard": False,
                              "presses": [{"seat": 2, "call": "pon", "t": 1.3}]}
    import json
    json.dumps(snap)  # JSON-ready
    assert Referee().snapshot()["round"] is None
