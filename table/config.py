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
"""
from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.checks import DEFAULT_CONFIDENCE_THRESHOLD
from referee.errors import RefereeError

DEFAULT_JOURNAL = "journal.sqlite"


class ConfigError(RefereeError):
    """A table config that cannot be used (missing file, bad TOML, wrong value)."""


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


# key -> (type(s), check, description)
_SERVICE = {
    "ruleset": (str, None, "a ruleset name such as \"ema2012\""),
    "camera_timeout": ((int, float), lambda v: v > 0, "a number of seconds above 0"),
    "confidence_threshold": ((int, float), lambda v: 0 <= v <= 1, "a number from 0 to 1"),
    "replay": (str, None, "the path of an event log"),
    "speed": ((int, float), lambda v: v >= 0, "a number 0 or more (0 = as fast as possible)"),
}
_JOURNAL = {"path": (str, None, "the path of the journal file")}
_WEB = {
    "host": (str, None, "an address such as \"0.0.0.0\""),
    "port": (int, lambda v: 0 < v < 65536, "a port number 1-65535"),
}


def _check_section(where: str, name: str, data: Any, spec: dict, strict: bool) -> dict:
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: [{name}] must be a table of keys")
    for key, value in data.items():
        if key not in spec:
            if strict:
                known = ", ".join(spec)
                raise ConfigError(f"{where}: unknown key {key!r} in [{name}] (known: {known})")
            continue
        types, check, what = spec[key]
        if isinstance(value, bool) or not isinstance(value, types) or \
                (check is not None and not check(value)):
            raise ConfigError(f"{where}: [{name}] {key} = {value!r} must be {what}")
    return data


def load_config(path: str | os.PathLike | None) -> TableConfig:
    """Read and check a table config; None gives the defaults (journal in the working dir)."""
    if path is None:
        return TableConfig()
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"config {path}: no such file (install.sh writes "
                          "/etc/riichi-referee/table.toml; see systemd/table.toml)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"config {path}: cannot be read ({exc})") from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config {path}: not valid TOML ({exc})") from None
    where = f"config {path}"
    service = _check_section(where, "service", raw.get("service", {}), _SERVICE, True)
    journal = _check_section(where, "journal", raw.get("journal", {}), _JOURNAL, True)
    web = _check_section(where, "web", raw.get("web", {}), _WEB, False)
    base = path.parent

    def resolve(p: str) -> Path:
        q = Path(p).expanduser()
        return q if q.is_absolute() else base / q

    return TableConfig(
        path=path,
        ruleset=service.get("ruleset"),
        camera_timeout=float(service.get("camera_timeout", 5.0)),
        confidence_threshold=float(service.get("confidence_threshold",
                                               DEFAULT_CONFIDENCE_THRESHOLD)),
        replay=resolve(service["replay"]) if service.get("replay") else None,
        speed=float(service.get("speed", 1.0)),
        journal=resolve(journal.get("path", DEFAULT_JOURNAL)) if "path" in journal
        else Path(DEFAULT_JOURNAL),
        web_host=web.get("host", "127.0.0.1"),
        web_port=int(web.get("port", 8000)),
        raw=raw,
    )
