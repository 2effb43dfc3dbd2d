"""Real Tenhou games (shared data) through the rules core on the tenhou profile: no violation
in correct play, and every draw the table can see ends the hand as the log says."""
import pytest

from referee.core import Referee, final_points
from referee.rulesets import get_ruleset

tenhou = pytest.importorskip("referee.tenhou")

pytestmark = pytest.mark.shared


def games(shared_data):
    files = sorted((shared_data / "tenhou" / "mjlog").glob("*")) + \
        sorted((shared_data / "tenhou" / "tenhou6").glob("*"))
    assert files
    for path in files:
        yield path, tenhou.import_log(path)


def test_tenhou_games_replay_without_violations_and_with_the_logged_draws(shared_data):
    seen_draws = 0
    for path, game in games(shared_data):
        ref = Referee("tenhou")
        rulings = []
        for ev in game.events:
            rulings += ref.feed(ev)
        rulings += ref.finish()
        bad = [r for r in rulings if r["type"] == "violation"]
        expected_bad = [v for h in game.hands for v in h.expected_violations]
        if not expected_bad:
            assert bad == [], (path.name, bad[:3])
        got = [(r["result"], r.get("reason") if r["result"] == "abortive" else None,
                r.get("tenpai")) for r in rulings
               if r["type"] == "hand_end" and r["result"] in ("exhaustive", "abortive")
               and r.get("reason") != "nine_terminals"]
        # nine terminals is declared from a concealed hand: nothing a camera sees shows it
        want = [(h.result, h.reason if h.result == "abortive" else None,
                 sorted(h.tenpai) if h.tenpai is not None else None)
                for h in game.hands if h.result in ("exhaustive", "abortive")
                and h.reason != "nine_terminals"]
        if not expected_bad:
            assert got == want, path.name
        seen_draws += len(got)
    assert seen_draws >= 50


def test_tenhou_final_points(shared_data):
    checked = 0
    for path, game in games(shared_data):
        if game.final_points and game.hands:
            got = final_points(game.final_scores, get_ruleset("tenhou"), game.hands[0].dealer)
            assert got == [float(p) for p in game.final_points], path.name
            checked += 1
    assert checked >= 30
