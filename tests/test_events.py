"""Event parsing: the spec's format accepted, everything the spec calls malformed refused
with a message naming the line."""
import pytest

from referee.errors import MalformedEvent
from referee.events import EventReader, dumps, parse_line


def test_good_event_is_returned_with_extra_keys_kept():
    ev = parse_line('{"type":"discard","t":1.5,"seat":2,"tile":"0p","riichi":true,"cam":7}', 4)
    assert ev["tile"] == "0p" and ev["cam"] == 7


@pytest.mark.parametrize("text,reason", [
    ("{nope", "not valid JSON"),
    ('{"type":"shout","t":1}', "unknown event type"),
    ('{"type":"discard","t":1,"seat":1,"tile":"8z"}', "unknown tile code"),
    ('{"type":"discard","t":1,"seat":5,"tile":"1m"}', "outside 0-3"),
    ('{"type":"call","t":1,"seat":1}', "missing key 'call'"),
    ('{"type":"call","seat":1,"call":"pon"}', "missing key 't'"),
    ('[1,2]', "JSON object"),
])
def test_malformed_lines_name_the_line(text, reason):
    with pytest.raises(MalformedEvent) as exc:
        parse_line(text, 12)
    assert exc.value.line == 12 and str(exc.value).startswith("line 12: ")
    assert reason in str(exc.value)


def test_reader_refuses_time_going_backwards_after_yielding_earlier_lines():
    lines = ['{"type":"dora","t":2,"indicator":"1m"}', "",
             '{"type":"dora","t":1,"indicator":"2m"}']
    got = []
    with pytest.raises(MalformedEvent) as exc:
        for n, ev in EventReader(lines):
            got.append(n)
    assert got == [1] and exc.value.line == 3 and "back in time" in str(exc.value)


def test_dumps_is_one_compact_line():
    assert dumps({"type": "claim", "tile": "5m"}) == '{"type":"claim","tile":"5m"}'


# -- the tournament round: clock and sign ---------------------------------------------------
@pytest.mark.parametrize("text", [
    '{"type":"clock","t":0,"action":"start","seconds":5400,"source":"hall"}',
    '{"type":"clock","t":9,"action":"extend","seconds":120.5,"source":"referee"}',
    '{"type":"clock","t":9,"action":"stop"}',              # a stop needs no seconds
    '{"type":"sign","t":9,"seat":0}',
    '{"type":"sign","t":9,"referee":true}',
    '{"type":"referee","t":9,"action":"cancel_penalty","ruling_id":"r7","text":"misjudged"}',
])
def test_round_events_are_read(text):
    assert parse_line(text, 1)["t"] in (0, 9)


@pytest.mark.parametrize("text,reason", [
    ('{"type":"clock","t":1,"action":"pause","seconds":3}', "unknown clock action 'pause'"),
    ('{"type":"clock","t":1,"action":"start"}', "missing key 'seconds' (the round's length)"),
    ('{"type":"clock","t":1,"action":"extend"}', "missing key 'seconds' (the time added)"),
    ('{"type":"clock","t":1,"action":"start","seconds":-60}', "'seconds' must be a number"),
    ('{"type":"clock","t":1,"action":"start","seconds":"90m"}', "'seconds' must be a number"),
    ('{"type":"clock","t":1,"action":"start","seconds":1e12}', "'seconds' must be a number"),
    ('{"type":"clock","t":1,"action":"start","seconds":60,"source":"me"}',
     "unknown clock source 'me'"),
    ('{"type":"sign","t":1}', "missing key 'seat' (or 'referee': true"),
    ('{"type":"sign","t":1,"referee":false}', "missing key 'seat'"),
    ('{"type":"sign","t":1,"seat":4}', "outside 0-3"),
    ('{"type":"sign","t":1,"seat":1,"referee":true}', "not both"),
    ('{"type":"sign","t":1,"referee":"yes"}', "'referee' must be true or false"),
    ('{"type":"referee","t":1,"action":"cancel_penalty","text":"x"}',
     "missing key 'ruling_id' (the penalty to cancel)"),
])
def test_malformed_round_events_name_the_line(text, reason):
    with pytest.raises(MalformedEvent) as exc:
        parse_line(text, 5)
    assert str(exc.value).startswith("line 5: ") and reason in str(exc.value)
    assert "\n" not in str(exc.value)
