"""The one TOML reader every config of the referee goes through (table.config): whatever is wrong
with a file or a key is one line naming the file and the key, never a traceback."""
import os

import pytest

from referee.errors import RefereeError
from table.config import (
    ConfigError,
    Section,
    beside_config,
    point_config_at,
    read_toml,
    replacing,
    set_config_value,
)


def _bad_toml(folder):
    p = folder / "table.toml"
    p.write_text('[web]\nport = 8000\nhost = \n')
    return p


def _not_utf8(folder):
    p = folder / "table.toml"
    p.write_bytes(b'[web]\nhost = "caf\xe9"\n')
    return p


def _in_a_file(folder):
    (folder / "table.toml").write_text("")
    return folder / "table.toml" / "inner.toml"


@pytest.mark.parametrize("make, expected", [
    (lambda d: d / "nope.toml", "no such file"),
    (lambda d: d, "is a folder, not a TOML file"),
    (_in_a_file, "cannot be read (Not a directory)"),
    (_not_utf8, "not UTF-8 text"),
    (_bad_toml, "not valid TOML: Invalid value (at line 3, column 8)"),
], ids=["missing", "folder", "unreadable", "not-utf8", "bad-toml"])
def test_a_file_that_cannot_be_read_is_one_line_naming_it(tmp_path, make, expected):
    path = make(tmp_path)
    with pytest.raises(ConfigError) as info:
        read_toml(path)
    assert str(info.value) == f"config {path}: {expected}"
    # the CLI prints any RefereeError as one line and exits 2
    assert isinstance(info.value, RefereeError)


def test_the_caller_names_the_file_and_hints_at_a_sample(tmp_path):
    with pytest.raises(ConfigError) as info:
        read_toml(tmp_path / "hall.toml", missing=" (see systemd/hall.toml)")
    assert str(info.value) == f"config {tmp_path / 'hall.toml'}: no such file (see systemd/hall.toml)"
    with pytest.raises(ConfigError, match=r"^wiring\.toml: no such file$"):
        read_toml(tmp_path / "wiring.toml", where="wiring.toml")


def test_a_good_file_is_its_tables(tmp_path):
    path = tmp_path / "table.toml"
    path.write_text('# a table\n[web]\nport = 8000\n\n[camera]\nsource = "picamera"\n')
    assert read_toml(path) == {"web": {"port": 8000}, "camera": {"source": "picamera"}}


KNOWN = ("port", "host", "debug", "journal")


@pytest.mark.parametrize("data, read, expected", [
    (5, lambda s: s, "[web] must be a table of keys"),
    ({"prot": 80}, lambda s: s, "unknown key 'prot' in [web] (known: port, host, debug, journal)"),
    ({"port": "80"}, lambda s: s.number("port", 80, 1, 65535),
     "[web] port = '80' must be a number from 1 to 65535"),
    ({"port": 0}, lambda s: s.number("port", 80, 1, 65535),
     "[web] port = 0 must be a number from 1 to 65535"),
    ({"port": True}, lambda s: s.number("port", 80, 0, 65535),
     "[web] port = True must be a number from 0 to 65535"),
    ({"port": 1.5}, lambda s: s.get("port", 80, int, "a port number", None),
     "[web] port = 1.5 must be a port number"),
    ({"host": ""}, lambda s: s.text("host"), "[web] host = '' must be a non-empty string"),
    ({"host": 4}, lambda s: s.text("host"), "[web] host = 4 must be a non-empty string"),
    ({}, lambda s: s.text("host", required=True), "[web] needs host"),
    ({"debug": 1}, lambda s: s.flag("debug", False), "[web] debug = 1 must be true or false"),
    ({"journal": "gone.sqlite"}, lambda s: s.path("journal", must_exist=True),
     "[web] journal: no such file /etc/gone.sqlite"),
], ids=["not-a-table", "unknown-key", "string-for-number", "below-bounds", "bool-for-number",
        "float-for-int", "empty-string", "number-for-string", "required", "int-for-bool",
        "missing-path"])
def test_a_bad_key_is_one_line_naming_the_file_and_the_key(data, read, expected):
    with pytest.raises(ConfigError) as info:
        read(Section("config t.toml", "web", data, KNOWN, "/etc/t.toml"))
    assert str(info.value) == f"config t.toml: {expected}"


def test_good_keys_and_absent_keys(tmp_path):
    s = Section("config t.toml", "web", {"port": 8080, "debug": True, "journal": "j.sqlite"},
                KNOWN, tmp_path / "t.toml")
    assert s.number("port", 80, 1, 65535) == 8080
    assert s.flag("debug", False) is True
    assert s.text("host", "0.0.0.0") == "0.0.0.0"   # absent: the default
    assert s.path("journal") == tmp_path / "j.sqlite"  # relative to the config's folder
    # known=None: a section other parts of the referee keep keys in too
    assert Section("config t.toml", "web", {"theirs": 1}).data == {"theirs": 1}


@pytest.mark.parametrize("name, expected", [
    ("cal.json", "/etc/riichi/cal.json"),
    ("models/x.onnx", "/etc/riichi/models/x.onnx"),
    ("/var/lib/cal.json", "/var/lib/cal.json"),
])
def test_a_file_the_config_names_is_beside_it_unless_absolute(name, expected):
    assert str(beside_config("/etc/riichi/table.toml", name)) == expected


def test_home_is_expanded_and_no_config_is_the_working_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    assert beside_config("/etc/t.toml", "~/cal.json") == tmp_path / "cal.json"
    monkeypatch.chdir(tmp_path)
    assert beside_config(None, "cal.json") == tmp_path / "cal.json"


def test_replacing_writes_all_or_nothing(tmp_path):
    target = tmp_path / "cal.json"
    target.write_text("old")
    with replacing(target) as fh:
        fh.write(b"new")
        assert target.read_text() == "old"   # a reader meanwhile sees the old file whole
    assert target.read_text() == "new"
    with pytest.raises(RuntimeError):
        with replacing(target) as fh:
            fh.write(b"half")
            raise RuntimeError("power cut")
    assert target.read_text() == "new" and os.listdir(tmp_path) == ["cal.json"]


def test_the_config_points_at_a_saved_file_by_its_name_beside_it(tmp_path):
    config = tmp_path / "table.toml"
    config.write_text("# the table\n[camera]\nsource = 0  # the first camera\n")
    point_config_at(config, "camera", "tileset", tmp_path / "tileset.npz")
    point_config_at(config, "camera", "calibration", tmp_path.parent / "cal.json")
    assert read_toml(config) == {"camera": {"source": 0, "tileset": "tileset.npz",
                                            "calibration": str(tmp_path.parent / "cal.json")}}
    assert "# the first camera" in config.read_text()


def test_config_edit_creates_the_file_and_section(tmp_path):
    config = tmp_path / "new.toml"
    set_config_value(config, "camera", "calibration", "cal.json")
    assert read_toml(config) == {"camera": {"calibration": "cal.json"}}


def test_an_edit_that_would_break_the_config_is_refused_in_one_line(tmp_path):
    config = tmp_path / "table.toml"
    text = '[camera]\nsource = 0\n\n[camera.calibration]\nfile = "cal.json"\n'
    config.write_text(text)
    with pytest.raises(ConfigError) as info:
        set_config_value(config, "camera", "calibration", "cal.json")
    assert str(info.value).startswith(f"config {config}: editing [camera] would break it")
    assert "\n" not in str(info.value) and config.read_text() == text
