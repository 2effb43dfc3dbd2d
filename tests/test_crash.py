"""Pull the plug: SIGKILL the table service at 50 random moments while it replays a game.

After each kill the journal must hold every event the service acknowledged, a restart must
rebuild exactly the state an uninterrupted run had at that point, and no ruling may be
stored (or sent) twice. At the end the journal equals an uninterrupted run's.
"""
import os
import random
import signal
import subprocess
import sys
import time

import pytest

from referee.core import Referee
from referee.events import dumps
from table.clock import VirtualClock
from table.journal import Journal
from table.service import ResumableTable, TableService

SEED = 7
KILLS = 50
TILES = [f"{n}{s}" for s in "mps" for n in range(1, 10)] + [f"{n}z" for n in range(1, 8)]


def table_game(seed: int = SEED, hands: int = 4, discards: int = 48) -> list[dict]:
    """A seeded stream a table could send: discards, presses in and out of the window (some
    late, some from the wrong seat), melds, a tenpai at each draw. Not a legal game: the
    referee flags what is wrong, which gives the journal violations to keep too."""
    rng = random.Random(seed)
    t = 0.0
    out = [{"type": "game_start", "t": t, "ruleset": "ema2012", "scores": [25000] * 4}]
    for h in range(hands):
        t += 5.0
        out.append({"type": "hand_start", "t": t, "round_wind": "E", "dealer": h % 4,
                    "honba": 0, "riichi_sticks": 0, "dora_indicators": [rng.choice(TILES)]})
        seat = h % 4
        for _ in range(discards):
            t += round(rng.uniform(0.4, 1.5), 3)
            tile = rng.choice(TILES)
            out.append({"type": "discard", "t": t, "seat": seat, "tile": tile})
            roll = rng.random()
            if roll < 0.25:
                caller = rng.choice([s for s in range(4) if s != seat])
                call = rng.choice(["pon", "chii", "ron"])
                press_t = t + round(rng.uniform(0.2, 4.0), 3)
                out.append({"type": "call", "t": press_t, "seat": caller, "call": call})
                t = press_t
                if call == "pon" and rng.random() < 0.5:
                    t += 0.5
                    out.append({"type": "meld", "t": t, "seat": caller, "kind": "pon",
                                "tiles": [tile] * 3, "called": tile, "from": seat})
                    seat = caller
            t += round(rng.uniform(0.1, 3.5), 3)  # sometimes the window closes by the timer
            seat = (seat + 1) % 4
        t += 4.0
        out.append({"type": "tenpai", "t": t, "seats": sorted(rng.sample(range(4), 2))})
    return out


def reference_run(events, path):
    """An uninterrupted run; returns the final journal and the state after every step,
    keyed by (events judged, rulings stored): the states the run went through there."""
    states = {}
    table = ResumableTable(Journal(path), referee_factory=Referee, clock=VirtualClock())

    def remember():
        # A window the timer closes with no claim changes the state but stores nothing, so
        # one point in the journal can stand for a state just before or after such a tick.
        states.setdefault((len(table.events()), len(table.rulings())), []).append(
            strip(table.snapshot()))

    original_record = table._record

    def record(seq, rulings):
        original_record(seq, rulings)
        remember()

    table._record = record
    service = TableService(table, clock=table.clock, recorded=events, inbox=False)
    service.start()
    assert service.finished.wait(60)
    service.stop()
    j = Journal(path)
    return [e for _, e in j.game_events()], [r for _, r in j.game_rulings()], states


def strip(snapshot):
    return {k: v for k, v in snapshot.items() if k != "health"}


def start_service(config, journal, paced=False):
    """The table service replaying the game; ``paced``: it plays only as far as the test
    lets it (``play N`` on its standard input)."""
    return subprocess.Popen(
        [sys.executable, "-m", "app", "run", "--config", str(config), "--journal",
         str(journal), "--ack", "--exit-at-end", *(["--pace-from-stdin"] if paced else [])],
        stdin=subprocess.PIPE if paced else subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})


def play(proc, until):
    proc.stdin.write(f"play {until}\n")
    proc.stdin.flush()


def simulated_game():
    from referee.simulate import simulate
    return simulate(seed=SEED, hands=4)


@pytest.mark.parametrize("make_game", [table_game, simulated_game],
                         ids=["presses_in_and_out_of_windows", "legal_simulated_game"])
def test_kill_9_at_50_random_moments(tmp_path, make_game):
    events = make_game()
    game = tmp_path / "game.jsonl"
    game.write_text("".join(dumps(e) + "\n" for e in events))
    ref_events, ref_rulings, ref_states = reference_run(events, tmp_path / "reference.sqlite")
    assert ref_events == events and len(ref_rulings) > 20  # the game exercises the referee

    config = tmp_path / "table.toml"
    config.write_text(f'[service]\nreplay = "{game}"\nspeed = 0\n')
    journal = tmp_path / "journal.sqlite"
    rng = random.Random(SEED)
    # Kill moments: after a random acknowledged event, then a random sub-millisecond delay,
    # so some kills land between an event's commit and its rulings' commit. The service is
    # held after the target event until the test has read its acknowledgement, then let run
    # at most RUN_ON events further: however far a loaded machine lets the test fall behind
    # the service, the kill lands in that stretch of a real run, never after the game's end.
    RUN_ON = 40
    targets = sorted(rng.sample(range(2, len(events) - RUN_ON), KILLS))
    kills = 0
    started = time.monotonic()
    done = 0
    recovered = 0  # restarts that found an event judged but its rulings not yet stored
    for target in targets:
        target = max(target, done + 1)  # the last kill may have landed past this one
        proc = start_service(config, journal, paced=True)
        play(proc, target)
        acked = []
        for line in proc.stdout:
            if line.startswith("ack "):
                acked.append(int(line.split()[1]))
                if acked[-1] >= target:
                    break
        assert acked and acked[-1] == target, (acked[-1:], target, proc.stderr.read())
        play(proc, target + RUN_ON)
        time.sleep(rng.choice([0, 0, 0.0002, 0.001, 0.003]))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert proc.returncode == -signal.SIGKILL, proc.stderr.read()
        kills += 1

        j = Journal(journal)
        journaled = j.game_events()
        seqs = [s for s, _ in journaled]
        done = len(seqs)
        # every acknowledged event is there, and the journal is a prefix of the game
        assert set(acked) <= set(seqs)
        assert [e for _, e in journaled] == events[:len(journaled)]
        # no ruling twice, and those stored are the uninterrupted run's, in its order
        stored = [r for _, r in j.game_rulings()]
        assert stored == ref_rulings[:len(stored)]
        j.close()

        # a restart rebuilds the uninterrupted run's state at this point
        restored = ResumableTable(Journal(journal), referee_factory=Referee, clock=VirtualClock())
        if restored.restore():
            recovered += 1
        key = (len(restored.events()), len(restored.rulings()))
        assert key in ref_states, key
        assert strip(restored.snapshot()) in ref_states[key]
        assert restored.rulings() == ref_rulings[:key[1]]
        restored.journal.close()

    proc = start_service(config, journal)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    j = Journal(journal)
    assert [e for _, e in j.game_events()] == ref_events
    final = [r for _, r in j.game_rulings()]
    assert final == ref_rulings
    assert len({r["ruling_id"] for r in final}) == len(final)
    assert kills == KILLS
    print(f"{KILLS} kills in {time.monotonic() - started:.1f} s; {recovered} restart(s) stored "
          "rulings the killed process had not")
