"""The dashboard under gunicorn: ``gunicorn -c web/gunicorn.conf.py 'web.wsgi:app'``.

The table service runs in another process and journals everything in SQLite; this app reads
that journal through ``table.journal_table.JournalTable`` and hands referee actions to the
service through it. Settings, environment first, then the ``[web]`` section of the table's
TOML config named by ``RIICHI_CONFIG``:

=========================  ==========================  =========================================
environment                ``[web]`` key               meaning
=========================  ==========================  =========================================
``RIICHI_JOURNAL``         ``journal`` (else           the journal file the service writes
                           ``[journal] path``)
``RIICHI_PIN_HASH_FILE``   ``pin_hash_file``           the hash ``riichi-referee set-pin`` wrote
``RIICHI_SECRET_KEY_FILE`` ``secret_key_file``         a file holding the cookie-signing key
                                                       (made, owner-only, when missing); without
                                                       one, sessions end when the process does
``RIICHI_REFEREE_HTTPS``   ``referee_https``           the referee's pages over https only, no
                                                       session over plain http (default on;
                                                       ``0`` only where no phone uses the air)
``RIICHI_WEB_HTTPS_PORT``  ``https_port``              the HTTPS dashboard's port, where plain-
                                                       http referee pages are sent (8443)
``RIICHI_WEB_CA_CERT``     ``ca_cert``                 the hall's CA certificate, offered at
                                                       ``/ca.crt`` for referees' phones to trust
``RIICHI_COOKIE_SECURE``   ``cookie_secure``           ``1`` behind TLS: cookies only over https
                                                       (implied by ``referee_https``)
``RIICHI_TABLE_NAME``      ``table_name``              shown at the top of the page
``RIICHI_WEB_STREAMS_PER_  ``streams_per_client``      live streams one client address may
CLIENT``                                               hold (default 4; the referee's are never
                                                       refused)
``RIICHI_WEB_MAX_STREAMS`` ``max_streams``             live streams in all (``gunicorn.conf.py``
                                                       sizes it from memory and passes it on)
=========================  ==========================  =========================================

Relative paths in the config are relative to the config file. A setting that cannot be used
stops gunicorn with one line saying which and why.
"""
from __future__ import annotations

import os
import secrets
from pathlib import Path

from referee.errors import RefereeError
from table.config import ConfigError, beside_config, read_toml

from .pin import default_pin_file

PREFIX = "riichi-referee dashboard"


class SetupError(RefereeError):
    """The dashboard cannot start: a setting is missing or unusable."""


def _web_config(environ) -> tuple[dict, Path | None]:
    """The ``[web]`` keys of the config ``RIICHI_CONFIG`` names (with ``[journal] path``), and
    that config's path; ``{}, None`` without one."""
    path = environ.get("RIICHI_CONFIG")
    if not path:
        return {}, None
    path = Path(path).expanduser()
    try:
        raw = read_toml(path, where=f"config {path} (RIICHI_CONFIG)")
    except ConfigError as exc:
        raise SetupError(str(exc)) from None
    web = raw.get("web", {})
    journal = raw.get("journal", {})
    if not isinstance(web, dict) or not isinstance(journal, dict):
        raise SetupError(f"config {path}: [web] and [journal] must be tables of keys")
    merged = dict(web)
    if "journal" not in merged and "path" in journal:
        merged["journal"] = journal["path"]
    for key in ("journal", "pin_hash_file", "secret_key_file", "table_name", "ca_cert"):
        if key in merged and not isinstance(merged[key], str):
            raise SetupError(f"config {path}: [web] {key} must be a string")
    for key in ("cookie_secure", "referee_https"):
        if key in merged and not isinstance(merged[key], bool):
            raise SetupError(f"config {path}: [web] {key} must be true or false")
    for key in ("streams_per_client", "max_streams", "https_port"):
        value = merged.get(key)
        if key in merged and (isinstance(value, bool) or not isinstance(value, int)
                              or value < 1):
            raise SetupError(f"config {path}: [web] {key} must be a whole number, 1 or more")
    return merged, path


def _count(environ, name: str, web: dict, key: str) -> int | None:
    value = environ.get(name, "").strip()
    if not value:
        return web.get(key)
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise SetupError(f"{name}={value!r} must be a whole number, 1 or more")
    return number


def _yes(value: str) -> bool:
    return value.strip().lower() in ("1", "true", "yes", "on")


def settings(environ=None) -> dict:
    """The dashboard's settings from the environment and the config file (see above)."""
    environ = os.environ if environ is None else environ
    web, config = _web_config(environ)

    def path_of(env: str, key: str) -> Path | None:
        if environ.get(env):
            return Path(environ[env]).expanduser()
        if web.get(key):
            return beside_config(config, web[key])
        return None

    journal = path_of("RIICHI_JOURNAL", "journal")
    if journal is None:
        raise SetupError("no journal to show: set RIICHI_JOURNAL to the table service's journal "
                         "file, or RIICHI_CONFIG to a table config with [journal] path")
    secure = environ.get("RIICHI_COOKIE_SECURE")
    https = environ.get("RIICHI_REFEREE_HTTPS")
    https_port = _count(environ, "RIICHI_WEB_HTTPS_PORT", web, "https_port") or 8443
    if https_port > 65535:
        raise SetupError(f"the HTTPS port {https_port} is not a port (1 to 65535)")
    return {
        "journal": journal,
        "pin_hash_file": path_of("RIICHI_PIN_HASH_FILE", "pin_hash_file") or default_pin_file(),
        "secret_key_file": path_of("RIICHI_SECRET_KEY_FILE", "secret_key_file"),
        "cookie_secure": _yes(secure) if secure
        else bool(web.get("cookie_secure", False)),
        "referee_https": _yes(https) if https else bool(web.get("referee_https", True)),
        "https_port": https_port,
        "ca_cert": path_of("RIICHI_WEB_CA_CERT", "ca_cert"),
        "table_name": environ.get("RIICHI_TABLE_NAME") or web.get("table_name"),
        "streams_per_client": _count(environ, "RIICHI_WEB_STREAMS_PER_CLIENT", web,
                                     "streams_per_client"),
        "max_streams": _count(environ, "RIICHI_WEB_MAX_STREAMS", web, "max_streams"),
    }


def load_secret_key(path: Path | None) -> bytes:
    """The cookie-signing key in ``path`` (made, owner-only, when missing); a random one when
    ``path`` is None (sessions then end with the process)."""
    if path is None:
        return secrets.token_bytes(32)
    try:
        key = path.read_bytes().strip()
        if len(key) >= 32:
            return key
        raise SetupError(f"secret key file {path}: too short (delete it to make a new one)")
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise SetupError(f"secret key file {path}: cannot be read ({exc.strerror})") from None
    key = secrets.token_hex(32).encode()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(key + b"\n")
    except OSError as exc:
        raise SetupError(f"secret key file {path}: cannot be written ({exc.strerror})") from None
    return key


def _journal_table(path: Path):
    try:
        from table.journal_table import JournalTable
    except ImportError as exc:
        raise SetupError(f"table.journal_table.JournalTable is not available ({exc})") from None
    if not path.exists():
        raise SetupError(f"journal {path}: no such file (start the table service first: it "
                         "creates the journal)")
    return JournalTable(path)


def build_app(environ=None, photo_reader=None):
    """The dashboard for the journal the settings name; ``photo_reader``: see
    :func:`web.create_app` (``app.wsgi`` gives the referee's dashboard one)."""
    from . import create_app

    conf = settings(environ)
    config = {"SESSION_COOKIE_SECURE": conf["cookie_secure"],
              "RIICHI_REFEREE_HTTPS": conf["referee_https"],
              "RIICHI_HTTPS_PORT": conf["https_port"]}
    if conf["ca_cert"] is not None:
        if not conf["ca_cert"].is_file():
            raise SetupError(f"CA certificate {conf['ca_cert']}: no such file (install.sh "
                             "writes it; or unset RIICHI_WEB_CA_CERT / [web] ca_cert)")
        config["RIICHI_CA_CERT"] = str(conf["ca_cert"])
    if conf["table_name"]:
        config["RIICHI_TABLE_NAME"] = conf["table_name"]
    if conf["streams_per_client"]:
        config["RIICHI_STREAMS_PER_CLIENT"] = conf["streams_per_client"]
    if conf["max_streams"]:
        config["RIICHI_MAX_STREAMS"] = conf["max_streams"]
    secret = load_secret_key(conf["secret_key_file"])
    table = _journal_table(conf["journal"])
    # A Path: the PIN file is read at each login, so set-pin needs no restart.
    return create_app(table, pin_hash=Path(conf["pin_hash_file"]), secret_key=secret,
                      config=config, photo_reader=photo_reader)


def load_app(photo_reader=None):
    """The app gunicorn serves, or gunicorn's one-line stop when a setting is unusable."""
    try:
        return build_app(photo_reader=photo_reader)
    except RefereeError as exc:
        message = f"{PREFIX}: {exc}"
        try:
            from gunicorn.errors import AppImportError
        except ImportError:  # pragma: no cover - gunicorn is a runtime dependency
            raise SystemExit(message) from None
        # gunicorn prints this one line and stops instead of restarting the worker forever.
        raise AppImportError(message) from None


def __getattr__(name: str):
    # Built on first access, so importing this module (tests, tools) needs no journal.
    if name == "app":
        app = load_app()
        globals()["app"] = app
        return app
    raise AttributeError(name)
