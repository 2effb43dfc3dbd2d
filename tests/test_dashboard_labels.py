"""The dashboard names every reason the rules core gives for rejecting a claim, and every
value of the round's rulings (when time up ends the game, why the game ended, where a
deduction comes off) in plain words."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import web
from referee.claims import REJECTIONS
from referee.rulesets import PENALTY_APPLIES, TIME_UP_ENDS

SCRIPT = Path(web.__file__).parent / "static" / "dashboard.js"

#: ``game_end``'s ``reason`` (table-events.md, "Tournament round"); the core keeps no list.
GAME_END_REASONS = ("time", "last_hand", "bust", "referee")


def labels(name: str = "REASONS") -> dict[str, str]:
    """The dashboard's map ``name``, read from its script: {value: label}."""
    block = re.search(r"const " + name + r" = \{(.*?)\n\s*\};", SCRIPT.read_text(), re.S).group(1)
    return dict(re.findall(r'(\w+): "([^"]+)"', block))


@pytest.mark.parametrize("reason", REJECTIONS)
def test_each_rejection_reason_has_a_plain_label(reason):
    assert labels().get(reason), f"dashboard.js REASONS has no label for {reason!r}"


@pytest.mark.parametrize("name,values", [("ENDS", TIME_UP_ENDS), ("APPLIES", PENALTY_APPLIES),
                                         ("GAME_END", GAME_END_REASONS)])
def test_each_value_of_the_rounds_rulings_has_a_plain_label(name, values):
    found = labels(name)
    missing = [v for v in values if not found.get(v)]
    assert not missing, f"dashboard.js {name} has no label for {missing}"
    assert "_" not in "".join(found[v] for v in values)   # words, not identifiers
