"""The dashboard names every reason the rules core gives for rejecting a claim."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import web
from referee.claims import REJECTIONS

SCRIPT = Path(web.__file__).parent / "static" / "dashboard.js"


def labels() -> dict[str, str]:
    """The dashboard's REASONS map, read from its script: {reason: label}."""
    block = re.search(r"const REASONS = \{(.*?)\n\s*\};", SCRIPT.read_text(), re.S).group(1)
    return dict(re.findall(r'(\w+): "([^"]+)"', block))


@pytest.mark.parametrize("reason", REJECTIONS)
def test_each_rejection_reason_has_a_plain_label(reason):
    assert labels().get(reason), f"dashboard.js REASONS has no label for {reason!r}"
