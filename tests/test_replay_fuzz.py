"""Damaged logs never end `replay` in a traceback: each ends in exit 0, or in exit 2 with
exactly one line naming the bad line, after the rulings the lines before it decide.

320 randomly damaged logs (see fuzzlogs.py: values swapped for objects, lists, huge numbers,
NaN; keys deleted; events retyped; lines repeated or swapped; bytes broken) go through the
replay entry point in this process; two go through the real console script."""
import io
import json
import re
import subprocess
import sys

import pytest

from fuzzlogs import mutated_logs
from referee.replay import replay
from referee.simulate import simulate

LOGS = 320
ERROR = re.compile(r"^riichi-referee replay: fuzz\.jsonl: line (\d+): [^\n]+\n$")


def run(blob: bytes) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = replay(io.BytesIO(blob), out, err, "fuzz.jsonl")
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("batch", range(4))
def test_damaged_logs_end_in_exit_0_or_one_line_and_exit_2(batch):
    codes = set()
    for lines in mutated_logs(seed=batch, count=LOGS // 4):
        blob = b"".join(line + b"\n" for line in lines)
        code, out, err = run(blob)
        codes.add(code)
        for ruling in out.splitlines():
            json.loads(ruling)  # every ruling printed is a whole JSON line
        if code == 0:
            assert err == ""
            continue
        assert code == 2
        m = ERROR.match(err)
        assert m, err
        # nothing the good lines before the bad one decided is lost: the output is that of
        # the log as if it ended just before the bad line
        bad = int(m.group(1))
        good = b"".join(blob.splitlines(keepends=True)[:bad - 1])
        assert run(good) == (0, out, "")
    assert codes == {0, 2}  # the damage is not all of one kind


def test_damage_on_the_command_line_is_one_line_too(tmp_path):
    events = simulate(seed=5, hands=1)
    lines = [json.dumps(e) for e in events]
    lines[10] = '{"type": {}, "t": 3, "seat": 0, "tile": "1m"}'
    path = tmp_path / "typed.jsonl"
    path.write_text("\n".join(lines) + "\n")
    broken = tmp_path / "bytes.jsonl"
    broken.write_bytes(b"\n".join(l.encode() for l in lines[:10])
                       + b"\n{\"type\": \"discard\", \"t\": 99, \xff\xfe}\n")
    for file, reason in ((path, "unknown event type {}"), (broken, "not UTF-8 text")):
        done = subprocess.run([sys.executable, "-m", "app", "replay", str(file)],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
        assert f"{file}: line 11: " in done.stderr and reason in done.stderr
