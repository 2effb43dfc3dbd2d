"""Is this journal whole? A check to run after a power cut, or before a result is signed.

A journal is whole when its file is sound, its events are the table's events in the order they
happened with none missing, and its rulings are what the rules core gives for those events:
a replay of each game, through a fresh :class:`~referee.core.Referee` of the ruleset the table
judged with, gives every stored ruling, in the stored order, with the same content. Rulings a
replay gives that the journal lacks are allowed only after the last stored one: a window still
open when the journal stopped (the table's clock had not reached its deadline yet).

:func:`check_journal` returns one line per problem (an empty list: the journal is whole).
The ruleset and the confidence threshold the table judged with are those the service wrote
in the journal's ``meta`` when it started (``judged_with``), else the game's own ruleset and
the default threshold; a caller may name them (``riichi-referee check-journal --config``).
"""
from __future__ import annotations

import json
from pathlib import Path

from referee.errors import RefereeError
from referee.events import dumps, parse_event

from .journal import Journal
from .service import default_referee_factory

#: The ``meta`` key under which the service notes what it judges with (see :func:`judged_with`).
JUDGED_WITH = "judged_with"
#: Keys a live table adds to an event or a ruling that a replay has no way to know.
LIVE_ONLY = ("t_source",)


def note_judged_with(journal: Journal, ruleset: str | None,
                     confidence_threshold: float | None) -> None:
    """Note in the journal what the table judges with, so a check replays as it judged."""
    journal.set_meta(**{JUDGED_WITH: json.dumps({"ruleset": ruleset,
                                                 "confidence_threshold": confidence_threshold})})


def judged_with(journal: Journal) -> dict:
    """What the table service judged with, as it noted in the journal (``{}`` when it did not):
    ``ruleset`` (None: each game's own) and ``confidence_threshold``."""
    text = journal.get_meta(JUDGED_WITH)
    try:
        value = json.loads(text) if text else {}
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def _same(a: dict, b: dict) -> bool:
    return ({k: v for k, v in a.items() if k not in LIVE_ONLY} ==
            {k: v for k, v in b.items() if k not in LIVE_ONLY})


def _short(ruling: dict) -> str:
    text = dumps(ruling)
    return text if len(text) <= 160 else text[:157] + "..."


def check_journal(path: str | Path, ruleset: str | None = None,
                  confidence_threshold: float | None = None) -> list[str]:
    """The journal at ``path`` checked (see the module doc): one line per problem.

    Raises :class:`~table.journal.JournalError` when the file cannot be opened as a journal.
    ``ruleset``, ``confidence_threshold``: what the table judged with, when the journal does
    not say (the service notes it)."""
    with Journal(path, readonly=True) as journal:
        problems = [f"the file: {line}" for line in journal.integrity()]
        noted = judged_with(journal)
        ruleset = ruleset if ruleset is not None else noted.get("ruleset")
        threshold = confidence_threshold if confidence_threshold is not None \
            else noted.get("confidence_threshold")
        problems += _check_events(journal)
        for game in journal.games():
            problems += _check_game(journal, game["game_id"], ruleset, threshold)
        return problems


def _check_events(journal: Journal) -> list[str]:
    """Every event in order: ``seq`` from 1 with no gap, each one in the format, its time never
    before the one before it, and each ``game_start`` opening a game of its own."""
    problems = []
    rows = journal.event_rows()
    expected_seq = 1
    last_t = None
    last_game = None
    for seq, game_id, t_mono, text in rows:
        if seq != expected_seq:
            problems.append(f"events {expected_seq}-{seq - 1}: missing (the journal jumps "
                            f"from {expected_seq - 1} to {seq})")
        expected_seq = seq + 1
        try:
            event = parse_event(json.loads(text))
        except (json.JSONDecodeError, RefereeError) as exc:
            problems.append(f"event {seq}: not a table event ({exc})")
            continue
        t = float(event["t"])
        if t != float(t_mono):
            problems.append(f"event {seq}: stored at t {t_mono}, but the event says t {t}")
        if last_t is not None and t < last_t:
            problems.append(f"event {seq}: t {t} is before the event before it ({last_t})")
        last_t = t if last_t is None else max(last_t, t)
        if event["type"] == "game_start" and game_id == last_game:
            problems.append(f"event {seq}: a game_start inside game {game_id}, not a game "
                            "of its own")
        if last_game is not None and game_id < last_game:
            problems.append(f"event {seq}: belongs to game {game_id}, after game {last_game}")
        last_game = game_id if last_game is None else max(last_game, game_id)
    return problems


def _check_game(journal: Journal, game_id: int, ruleset: str | None,
                threshold: float | None) -> list[str]:
    """The game's rulings are what a replay of its events gives (see the module doc)."""
    events = journal.game_events(game_id)
    stored = journal.game_rulings(game_id)
    if not events:
        return [f"game {game_id}: rulings without events"] if stored else []
    seqs = {seq for seq, _ in events}
    problems = [f"game {game_id}: ruling {r.get('ruling_id')} belongs to event {seq}, which is "
                "not in the game" for seq, r in stored if seq not in seqs]
    try:
        referee = default_referee_factory(ruleset, threshold)()
        produced: list[dict] = []
        for _, event in events:
            produced.extend(referee.feed(parse_event(dict(event))))
        # windows the table's clock closed with no event after them
        while len(produced) < len(stored):
            deadline = referee.next_deadline()
            if deadline is None:
                break
            produced.extend(referee.advance(deadline))
    except RefereeError as exc:
        return problems + [f"game {game_id}: a replay stops ({exc})"]
    for i, (seq, ruling) in enumerate(stored):
        if i >= len(produced):
            problems.append(f"game {game_id}: ruling {ruling.get('ruling_id')} (after event "
                            f"{seq}) is stored, but a replay gives no such ruling: "
                            f"{_short(ruling)}")
            break
        if not _same(ruling, produced[i]):
            problems.append(f"game {game_id}: ruling {i + 1} (after event {seq}) is not what a "
                            f"replay gives: stored {_short(ruling)}, replayed "
                            f"{_short(produced[i])}")
            break
    return problems

