"""The table's TOML config: the ``[service]``, ``[journal]`` and ``[web]`` sections.

``[hall]`` (publishing to the hall's broker) is read by :mod:`hall.config`.

The hardware (``[buttons]``, ``[lights]``...) and vision (``[camera]``...) sections belong to
their packages, which read them from :attr:`TableConfig.raw`. A config that cannot be used
raises :class:`ConfigError`: one line naming the file, the key and what is wrong.

Example::

    [service]
    ruleset = "ema2012"      # overrides the ruleset of game_start; omit to use the game's own
    camera_timeout = 5.0     # seconds without a camera frame before the dashboard warns
    confidence_threshold = 0.8  # camera readings below it are unsure: violations on them are checks
    # replay = "game.jsonl"  # rehearsal: play a recorded event log instead of the sensors
    # speed = 1.0            # replay speed; 0 = as fast as possible

    [journal]
    path = "/var/lib/riichi-referee/journal.sqlite"

    [web]
    host = "0.0.0.0"
    port = 8000

Every TOML file of the referee (this one, the hall's, and the wiring's, the dashboard's and
the camera's reads of this one) is read by :func:`read_toml`, so a file that cannot be read
says so alike everywhere, in one line. This config's sections and the hall's are checked key
by key through :class:`Section`. Files a config names (the calibration, the tile set...) are
found by :func:`beside_config` and written through :func:`replacing` and
:func:`point_config_at`.
"""
from __future__ import annotations

import json
import os
import re
import tomllib
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterator

from referee.checks import DEFAULT_CONFIDENCE_THRESHOLD
from referee.errors import RefereeError

DEFAULT_JOURNAL = "journal.sqlite"


class ConfigError(RefereeError):
    """A table config that cannot be used (missing file, bad TOML, wrong value)."""


# -- any TOML config: read it, check it key by key ---------------------------------------------

def read_toml(path: str | os.PathLike, where: str | None = None, missing: str = "") -> dict:
    """The TOML file at ``path``, parsed.

    Anything that keeps it from being read raises :class:`ConfigError`, one line
    ``{where}: {what is wrong}``: ``no such file`` (followed by ``missing``, a hint such as
    where a sample is), ``is a folder, not a TOML file``, ``cannot be read (reason)``, ``not
    UTF-8 text`` or ``not valid TOML: ...`` with the line and column tomllib names.
    ``where`` names the file for people (default ``config PATH``).
    """
    path = Path(path)
    where = where or f"config {path}"
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{where}: no such file{missing}") from None
    except IsADirectoryError:
        raise ConfigError(f"{where}: is a folder, not a TOML file") from None
    except OSError as exc:
        raise ConfigError(f"{where}: cannot be read ({exc.strerror or exc})") from None
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{where}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: not valid TOML: {exc}") from None


#: The types of a TOML number (a bool, though an int to Python, is never taken for one).
NUMBER = (int, float)


class Section:
    """One ``[name]`` table of a config, read key by key.

    ``where`` names the file (``config PATH``); ``data`` is the section as parsed, which must
    be a table; ``known``: the keys it may hold (None: any, when other parts of the referee
    keep keys of their own there). ``config``: the config file, which relative paths are
    relative to (None: the working folder). Each problem is a :class:`ConfigError`, one line
    ``{where}: [{name}] {key} = {value!r} must be {what}``.
    """

    def __init__(self, where: str, name: str, data: Any, known=None,
                 config: str | os.PathLike | None = None):
        if not isinstance(data, dict):
            raise ConfigError(f"{where}: [{name}] must be a table of keys")
        if known is not None:
            for key in data:
                if key not in known:
                    raise ConfigError(f"{where}: unknown key {key!r} in [{name}] "
                                      f"(known: {', '.join(known)})")
        self.where, self.name, self.data, self.config = where, name, data, config

    def bad(self, key: str, what: str) -> ConfigError:
        """The error for ``key``'s value, which must be ``what``."""
        return ConfigError(f"{self.where}: [{self.name}] {key} = {self.data[key]!r} "
                           f"must be {what}")

    def get(self, key: str, default: Any, types, what: str,
            check: Callable[[Any], Any] | None = None) -> Any:
        """``key``'s value, ``default`` when absent. A value not of ``types`` (a bool only when
        ``types`` is ``bool``) or that ``check`` refuses must be ``what``."""
        if key not in self.data:
            return default
        value = self.data[key]
        if isinstance(value, bool) != (types is bool) or not isinstance(value, types) or \
                (check is not None and not check(value)):
            raise self.bad(key, what)
        return value

    def text(self, key: str, default: str | None = None, required: bool = False) -> str | None:
        """A string that is not blank; ``required``: the section needs it."""
        if required and key not in self.data:
            raise ConfigError(f"{self.where}: [{self.name}] needs {key}")
        return self.get(key, default, str, "a non-empty string", str.strip)

    def number(self, key: str, default: float, low: float, high: float) -> float:
        """A number from ``low`` to ``high``."""
        return self.get(key, default, NUMBER, f"a number from {low:g} to {high:g}",
                        lambda v: low <= v <= high)

    def flag(self, key: str, default: bool) -> bool:
        """true or false."""
        return self.get(key, default, bool, "true or false")

    def path(self, key: str, must_exist: bool = False) -> Path | None:
        """A file named by a non-empty string, relative to the config's folder (None when
        absent); ``must_exist``: it must be a file already."""
        value = self.text(key)
        if value is None:
            return None
        p = beside_config(self.config, value)
        if must_exist and not p.is_file():
            raise ConfigError(f"{self.where}: [{self.name}] {key}: no such file {p}")
        return p


# -- files beside the config -------------------------------------------------------------------

def beside_config(config: str | os.PathLike | None, name: str | os.PathLike) -> Path:
    """The file a config names: ``name`` (``~`` expanded) relative to the config's folder,
    unless it is absolute (``config`` None: relative to the working folder)."""
    p = Path(name).expanduser()
    if p.is_absolute():
        return p
    return (Path(config).parent if config is not None else Path.cwd()) / p


@contextmanager
def replacing(path: str | os.PathLike) -> Iterator[BinaryIO]:
    """A binary file to write ``path``'s new content into; ``path`` is replaced by it in one
    step when the block ends, so a reader (or a power cut) never meets half a file. On an
    error ``path`` is left as it was and the half-written copy is removed."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "wb") as fh:
            yield fh
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def set_config_value(config_path: str | os.PathLike, section: str, key: str,
                     value: str) -> None:
    """Set ``key = "value"`` in ``[section]`` of a TOML file by editing its text, leaving every
    other line (other sections, comments) as it was; creates the file or section if needed."""
    config_path = Path(config_path)
    text = config_path.read_text(encoding="utf-8") if config_path.exists() else ""
    line = f'{key} = {json.dumps(value)}'
    lines = text.splitlines()
    header = re.compile(r"^\s*\[([^\[\]]+)\]\s*(#.*)?$")
    start = next((i for i, l in enumerate(lines)
                  if (m := header.match(l)) and m.group(1).strip() == section), None)
    if start is None:
        if lines and lines[-1].strip():
            lines.append("")
        lines += [f"[{section}]", line]
    else:
        end = next((i for i in range(start + 1, len(lines))
                    if header.match(lines[i]) or lines[i].lstrip().startswith("[[")),
                   len(lines))
        key_re = re.compile(rf"^\s*{re.escape(key)}\s*=")
        at = next((i for i in range(start + 1, end) if key_re.match(lines[i])), None)
        if at is None:
            lines.insert(start + 1, line)
        else:
            lines[at] = line
    new_text = "\n".join(lines) + "\n"
    try:
        tomllib.loads(new_text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config {config_path}: editing [{section}] would break it "
                           f"({exc}); set {line} there by hand") from None
    with replacing(config_path) as fh:
        fh.write(new_text.encode("utf-8"))


def point_config_at(config_path: str | os.PathLike, section: str, key: str,
                    target: Path) -> None:
    """Set ``[section] key`` of the config to the file ``target``: its name relative to the
    config's folder when it is inside it, else its whole path."""
    config_path = Path(config_path)
    try:
        name = target.relative_to(config_path.parent)
    except ValueError:
        name = target
    set_config_value(config_path, section, key, str(name))


@dataclass
class TableConfig:
    """What the table service needs from the config; ``raw`` is the whole parsed file."""

    path: Path | None = None
    ruleset: str | None = None
    camera_timeout: float = 5.0
    confidence_threshold: float = DEFAULT_CONFIDENCE_THRESHOLD
    replay: Path | None = None
    speed: float = 1.0
    journal: Path = field(default_factory=lambda: Path(DEFAULT_JOURNAL))
    web_host: str = "127.0.0.1"
    web_port: int = 8000
    raw: dict = field(default_factory=dict)

    def section(self, name: str) -> dict:
        """Another package's section (``{}`` when absent)."""
        value = self.raw.get(name, {})
        return value if isinstance(value, dict) else {}


# key -> (type(s), description, check)
_SERVICE = {
    "ruleset": (str, "a ruleset name such as \"ema2012\"", None),
    "camera_timeout": (NUMBER, "a number of seconds above 0", lambda v: v > 0),
    "confidence_threshold": (NUMBER, "a number from 0 to 1", lambda v: 0 <= v <= 1),
    "replay": (str, "the path of an event log", None),
    "speed": (NUMBER, "a number 0 or more (0 = as fast as possible)", lambda v: v >= 0),
}
_JOURNAL = {"path": (str, "the path of the journal file", None)}
_WEB = {
    "host": (str, "an address such as \"0.0.0.0\"", None),
    "port": (int, "a port number 1-65535", lambda v: 0 < v < 65536),
}


def _checked(path: Path, raw: dict, name: str, spec: dict, strict: bool) -> dict:
    """Section ``name`` of ``raw`` with every key of ``spec`` checked; ``strict``: no others."""
    section = Section(f"config {path}", name, raw.get(name, {}), spec if strict else None, path)
    for key, (types, what, check) in spec.items():
        section.get(key, None, types, what, check)
    return section.data


def load_config(path: str | os.PathLike | None) -> TableConfig:
    """Read and check a table config; None gives the defaults (journal in the working dir)."""
    if path is None:
        return TableConfig()
    path = Path(path)
    raw = read_toml(path, missing=" (install.sh writes /etc/riichi-referee/table.toml; "
                    "see systemd/table.toml)")
    service = _checked(path, raw, "service", _SERVICE, True)
    journal = _checked(path, raw, "journal", _JOURNAL, True)
    web = _checked(path, raw, "web", _WEB, False)
    return TableConfig(
        path=path,
        ruleset=service.get("ruleset"),
        camera_timeout=float(service.get("camera_timeout", 5.0)),
        confidence_threshold=float(service.get("confidence_threshold",
                                               DEFAULT_CONFIDENCE_THRESHOLD)),
        replay=beside_config(path, service["replay"]) if service.get("replay") else None,
        speed=float(service.get("speed", 1.0)),
        journal=beside_config(path, journal["path"]) if "path" in journal
        else Path(DEFAULT_JOURNAL),
        web_host=web.get("host", "127.0.0.1"),
        web_port=int(web.get("port", 8000)),
        raw=raw,
    )
