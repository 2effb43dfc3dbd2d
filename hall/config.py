"""The hall's settings: the ``[hall]`` section of a table's ``table.toml`` (where the table
publishes), and ``hall.toml`` (the head referee's server).

A table config without ``[hall]`` publishes nothing and runs exactly as before. Example::

    [hall]
    broker = "hall.local"        # the broker's address
    # port = 1883                # default 1883, or 8883 with tls_ca
    hall = "spring-open"         # topic riichi/spring-open/<table>/...
    table = "t07"                # this table's name, and its broker user
    password_file = "/etc/riichi-referee/hall.password"   # or password = "..."
    # username = "t07"           # default: the table's name (the ACL expects that)
    # tls_ca = "/etc/riichi-referee/tls/hall-ca.crt"      # TLS when set: the hall's CA,
    #                              # the one install.sh took with TLS_CA (hall/README.md)
    # tls_cert = "..."  tls_key = "..."                   # a client certificate, if used
    # keepalive = 10             # seconds; a table that vanished is offline after 1.5x this

``hall.toml``::

    [hall]
    name = "spring-open"
    title = "Spring Open 2025"
    game_minutes = 90            # a game longer than this is behind schedule (0: no schedule)

    [broker]
    host = "127.0.0.1"
    username = "hall"
    password_file = "/etc/riichi-referee/hall-broker.password"
    tls_ca = "/etc/riichi-referee/hall-ca.crt"   # the hall's CA: TLS, port 8883 (install-hall.sh)

    [web]
    host = "0.0.0.0"
    port = 8080                  # plain http: only sends phones to https, and offers the CA
    https_port = 8443            # the page itself, with certfile and keyfile
    certfile = "/etc/riichi-referee/hall-tls/hall.crt"   # from the hall's CA (install-hall.sh)
    keyfile = "/etc/riichi-referee/hall-tls/hall.key"
    ca_cert = "/etc/riichi-referee/hall-ca.crt"          # offered at /ca.crt and /trust
    pin_hash_file = "/etc/riichi-referee/hall-pin.hash"
    secret_key_file = "/var/lib/riichi-referee-hall/secret.key"

    [standings]                  # the tournament's players and seats, from its own software
    roster = "roster.csv"        # name, EMA number, country
    seating = { 1 = "round-1.csv", 2 = "round-2.csv" }   # table, seat (0-3), player
    file = "/var/lib/riichi-referee-hall/standings.json" # the results counted (default:
                                                         # standings.json beside this file)

With ``certfile`` and ``keyfile`` the whole page is HTTPS only (the head referee's PIN and
session never cross the air in clear; :mod:`web.https`); without them it is served over plain
http on ``port``, as on a wired network or in the demo.

Relative paths are relative to the config file. Anything wrong is one
:class:`~table.config.ConfigError` line naming the file, the key and what it must be.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from table.config import ConfigError, Section, beside_config, read_toml

from .topics import valid_name

NAME_RULE = "a name of letters, digits, - and _ (it is part of the topic)"


@dataclass(frozen=True)
class BrokerSettings:
    """How to reach the broker: ``host``, ``port``, the user, TLS files (``tls_ca`` turns TLS
    on), ``keepalive`` seconds (the broker declares a silent client gone after 1.5x)."""

    host: str
    port: int
    username: str | None = None
    password: str | None = None
    tls_ca: Path | None = None
    tls_cert: Path | None = None
    tls_key: Path | None = None
    keepalive: int = 10


@dataclass(frozen=True)
class LinkSettings:
    """A table's ``[hall]`` section."""

    hall: str
    table: str
    broker: BrokerSettings


@dataclass(frozen=True)
class StandingsSettings:
    """``[standings]`` of ``hall.toml``: the roster CSV (None: none yet), the seating CSV of
    each round, and the file the counted results are kept in."""

    file: Path
    roster: Path | None = None
    seating: dict[int, Path] = field(default_factory=dict)


@dataclass(frozen=True)
class HallSettings:
    """``hall.toml``."""

    name: str
    title: str
    game_minutes: float
    broker: BrokerSettings
    web_host: str = "0.0.0.0"
    web_port: int = 8080
    pin_hash_file: Path | None = None
    secret_key_file: Path | None = None
    cookie_secure: bool = False
    path: Path | None = None
    standings: StandingsSettings | None = None
    https_port: int = 8443
    certfile: Path | None = None
    keyfile: Path | None = None
    ca_cert: Path | None = None

    @property
    def https(self) -> bool:
        """The page is served over HTTPS only (and plain http only sends phones there)."""
        return self.certfile is not None


class _Section(Section):
    """Typed reads of one TOML table, each problem one ConfigError line; with the hall's own:
    names that go in topics, passwords and the broker."""

    def name_(self, key: str, default: str | None = None, required: bool = False) -> str | None:
        value = self.text(key, default, required)
        if value is not None and not valid_name(value):
            raise ConfigError(f"{self.where}: [{self.name}] {key} = {value!r} must be {NAME_RULE}")
        return value

    def password(self) -> str | None:
        if "password" in self.data and "password_file" in self.data:
            raise ConfigError(f"{self.where}: [{self.name}] has both password and "
                              "password_file; keep one")
        if "password_file" in self.data:
            p = self.path("password_file", must_exist=True)
            try:
                text = p.read_text(encoding="utf-8").strip()
            except (OSError, UnicodeDecodeError) as exc:
                raise ConfigError(f"{self.where}: [{self.name}] password_file {p}: cannot be "
                                  f"read ({exc})") from None
            if not text:
                raise ConfigError(f"{self.where}: [{self.name}] password_file {p} is empty")
            return text
        return self.text("password")

    def broker(self, host_key: str, default_user: str | None) -> BrokerSettings:
        host = self.text(host_key, required=True)
        tls_ca = self.path("tls_ca", must_exist=True)
        port = int(self.number("port", 8883 if tls_ca else 1883, 1, 65535))
        cert = self.path("tls_cert", must_exist=True)
        key = self.path("tls_key", must_exist=True)
        if (cert is None) != (key is None):
            raise ConfigError(f"{self.where}: [{self.name}] tls_cert and tls_key go together")
        return BrokerSettings(host=host, port=port,
                              username=self.text("username", default_user),
                              password=self.password(), tls_ca=tls_ca, tls_cert=cert,
                              tls_key=key, keepalive=int(self.number("keepalive", 10, 2, 600)))


_BROKER_KEYS = ("port", "username", "password", "password_file", "tls_ca", "tls_cert",
                "tls_key", "keepalive")


def link_settings(raw: dict, path: Path | None) -> LinkSettings | None:
    """The ``[hall]`` section of a table config already parsed to ``raw``; None without one."""
    if "hall" not in raw:
        return None
    where = f"config {path}" if path else "config"
    s = _Section(where, "hall", raw["hall"], ("broker", "hall", "table", *_BROKER_KEYS), path)
    table = s.name_("table", required=True)
    return LinkSettings(hall=s.name_("hall", required=True), table=table,
                        broker=s.broker("broker", default_user=table))


def load_hall_config(path: str | os.PathLike) -> HallSettings:
    """Read and check ``hall.toml``."""
    path = Path(path)
    raw = read_toml(path, missing=" (see systemd/hall.toml)")
    where = f"config {path}"
    for section in raw:
        if section not in ("hall", "broker", "web", "standings"):
            raise ConfigError(f"{where}: unknown section [{section}] "
                              "(known: hall, broker, web, standings)")
    h = _Section(where, "hall", raw.get("hall", {}), ("name", "title", "game_minutes"), path)
    b = _Section(where, "broker", raw.get("broker", {}), ("host", *_BROKER_KEYS), path)
    w = _Section(where, "web", raw.get("web", {}),
                 ("host", "port", "https_port", "certfile", "keyfile", "ca_cert",
                  "pin_hash_file", "secret_key_file", "cookie_secure"), path)
    name = h.name_("name", required=True)
    if "host" not in b.data:
        b.data = {**b.data, "host": "127.0.0.1"}
    certfile, keyfile = (_readable(w, "certfile"), _readable(w, "keyfile"))
    if (certfile is None) != (keyfile is None):
        raise ConfigError(f"{where}: [web] certfile and keyfile go together (the hall page's "
                          "certificate and its key)")
    return HallSettings(
        name=name, title=h.text("title", name), game_minutes=h.number("game_minutes", 0, 0, 1440),
        broker=b.broker("host", default_user="hall"),
        web_host=w.text("host", "0.0.0.0"), web_port=int(w.number("port", 8080, 0, 65535)),
        pin_hash_file=w.path("pin_hash_file", must_exist=False),
        secret_key_file=w.path("secret_key_file", must_exist=False),
        cookie_secure=w.flag("cookie_secure", False), path=path,
        https_port=int(w.number("https_port", 8443, 1, 65535)), certfile=certfile,
        keyfile=keyfile, ca_cert=w.path("ca_cert", must_exist=True),
        standings=_standings(where, raw.get("standings", {}), path))


def _readable(section: _Section, key: str) -> Path | None:
    """A file the server must read at start: one line now rather than a traceback then."""
    p = section.path(key, must_exist=True)
    if p is not None and not os.access(p, os.R_OK):
        raise ConfigError(f"{section.where}: [{section.name}] {key}: {p} cannot be read by "
                          "this user (install-hall.sh makes it readable by the riichi group)")
    return p


def _standings(where: str, data, path: Path) -> StandingsSettings:
    s = _Section(where, "standings", data, ("roster", "seating", "file"), path)
    seating = s.get("seating", {}, dict, "a table of round = \"FILE\" (1 = \"round-1.csv\")")
    rounds: dict[int, Path] = {}
    for key, value in seating.items():
        if not key.isdigit() or int(key) < 1 or not isinstance(value, str) or not value.strip():
            raise ConfigError(f"{where}: [standings] seating: {key} = {value!r} must be "
                              "ROUND = \"FILE\", ROUND a number from 1")
        rounds[int(key)] = beside_config(path, value)
    return StandingsSettings(file=s.path("file") or beside_config(path, "standings.json"),
                             roster=s.path("roster"), seating=rounds)
