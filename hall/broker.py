"""The hall's Mosquitto set-up: a user per table, an ACL that ties each table to its own
topic, and the hall's user that reads them all.

:func:`write_broker_files` writes what ``riichi-referee hall-broker`` hands the hall server's
administrator: ``riichi-hall.conf`` (for ``/etc/mosquitto/conf.d/``), ``riichi.acl``,
``riichi.passwd`` (Mosquitto's own ``$7$`` PBKDF2-SHA512 format, as ``mosquitto_passwd``
writes it) and, under ``passwords/``, one password file per table (copy each to its table's
Pi, ``[hall] password_file``) and the hall's.

The ACL, with every table's user named as the table::

    user hall
    topic read riichi/<hall>/#
    topic write riichi/<hall>/_hall/round
    pattern write riichi/<hall>/%u/#
    pattern read riichi/<hall>/_hall/round

A table may write only below its own name, and read only the hall's round start (a
subscription to anything else is granted but nothing is ever delivered to it); the hall reads
everything and writes only the round start (:mod:`hall.round_start`). A table
that publishes to another table's topic gets MQTT 5's "not authorized" back, and nobody sees
the message.
"""
from __future__ import annotations

import base64
import hashlib
import os
import secrets
from pathlib import Path

from .topics import valid_name

#: PBKDF2 rounds for the password file; Mosquitto reads the count from each line.
ITERATIONS = 1000


def password_line(user: str, password: str, salt: bytes | None = None,
                  iterations: int = ITERATIONS) -> str:
    """One line of a Mosquitto password file (``user:$7$rounds$salt$hash``)."""
    salt = salt if salt is not None else secrets.token_bytes(12)
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, iterations, 64)
    return (f"{user}:$7${iterations}${base64.b64encode(salt).decode()}"
            f"${base64.b64encode(digest).decode()}")


def acl_text(hall: str, hall_user: str = "hall") -> str:
    return (f"# riichi-referee hall {hall!r}: written by riichi-referee hall-broker\n"
            f"# The head referee's server reads every table and writes only the round start.\n"
            f"user {hall_user}\n"
            f"topic read riichi/{hall}/#\n"
            f"topic write riichi/{hall}/_hall/round\n\n"
            f"# Every table's broker user is the table's name: it writes below that name\n"
            f"# only, and reads only the hall's round start.\n"
            f"pattern write riichi/{hall}/%u/#\n"
            f"pattern read riichi/{hall}/_hall/round\n")


#: The TLS files' names in the broker's folder (``tls_files``): the hall's CA certificate
#: (install-hall.sh copies the one CA of the hall there) and the broker's own certificate
#: and key, signed by it (systemd/make-cert.sh server).
TLS_NAMES = {"cafile": "ca.crt", "certfile": "server.crt", "keyfile": "server.key"}


def tls_files(folder: Path) -> dict:
    """``broker_conf``'s ``tls`` for the files named :data:`TLS_NAMES` in ``folder``."""
    return {key: str(Path(folder) / name) for key, name in TLS_NAMES.items()}


def broker_conf(folder: Path, port: int = 1883, host: str = "", *, tls: dict | None = None,
                run_as: str | None = None, persistence: Path | None = None) -> str:
    """Mosquitto settings for a hall. ``folder``: where the ACL and password file live.
    ``tls``: ``{"cafile", "certfile", "keyfile"}`` for a TLS listener (then the only one:
    the password of a table or of the hall never crosses the network in clear).
    ``run_as``: the user Mosquitto keeps (tests running as root; the Debian service needs
    none)."""
    lines = ["# riichi-referee hall broker: written by riichi-referee hall-broker",
             "per_listener_settings false",
             f"listener {port}{' ' + host if host else ''}"]
    if tls:
        # The hall's one CA (systemd/make-cert.sh): tables and the hall server verify the
        # broker's certificate against it. No client certificates: users and passwords,
        # which now cross TLS only, say who is who.
        lines += [f"cafile {tls['cafile']}", f"certfile {tls['certfile']}",
                  f"keyfile {tls['keyfile']}", "tls_version tlsv1.2"]
    lines += [
        "allow_anonymous false",
        f"password_file {folder / 'riichi.passwd'}",
        f"acl_file {folder / 'riichi.acl'}",
        "# What was acknowledged to a table is kept for the hall across a broker restart:",
        "# saved on a clean stop, and every 10 s against a crash.",
        "persistence true",
    ]
    if persistence is not None:
        lines.append(f"persistence_location {persistence}/")
    lines += [
        "autosave_interval 10",
        "# A hall server that is away for a while must not lose what its session queued:",
        "# 200 tables play about 50 000 events and rulings in 10 minutes; this holds 40.",
        "max_queued_messages 200000",
        "max_queued_bytes 0",
        "max_inflight_messages 100",
        "# A table's state (the whole board) is a few kB; nothing legitimate is near this.",
        "message_size_limit 1048576",
    ]
    if run_as:
        lines.append(f"user {run_as}")
    return "\n".join(lines) + "\n"


def write_broker_files(folder: str | os.PathLike, hall: str, tables: list[str], *,
                       port: int = 1883, host: str = "", hall_user: str = "hall",
                       run_as: str | None = None, persistence: Path | None = None,
                       tls: dict | None = None, passwords: dict[str, str] | None = None,
                       files_at: Path | None = None) -> dict[str, str]:
    """Write the hall's broker files into ``folder``; return every user's password.

    ``files_at``: where the ACL and password file will be on the broker's machine, for the
    paths in ``riichi-hall.conf`` (default: ``folder`` itself).

    ``passwords``: passwords to keep (user -> password); the others are made up (24 random
    characters). Raises ValueError for a name that cannot be a topic segment.
    """
    folder = Path(folder)
    for name in [hall, hall_user, *tables]:
        if not valid_name(name):
            raise ValueError(f"{name!r} is not a usable name (letters, digits, - and _)")
    if len(set(tables)) != len(tables) or hall_user in tables:
        raise ValueError("every table needs its own name, and none may be the hall's user")
    passwords = dict(passwords or {})
    for user in [hall_user, *tables]:
        passwords.setdefault(user, secrets.token_urlsafe(18))
    (folder / "passwords").mkdir(parents=True, exist_ok=True)
    _write(folder / "riichi.acl", acl_text(hall, hall_user), 0o644)
    _write(folder / "riichi.passwd",
           "".join(password_line(u, passwords[u]) + "\n" for u in [hall_user, *tables]), 0o640)
    for user in [hall_user, *tables]:
        _write(folder / "passwords" / f"{user}.password", passwords[user] + "\n", 0o600)
    _write(folder / "riichi-hall.conf",
           broker_conf(Path(files_at) if files_at else folder.resolve(), port, host, tls=tls,
                       run_as=run_as, persistence=persistence),
           0o644)
    return passwords


def _write(path: Path, text: str, mode: int) -> None:
    tmp = path.with_name(path.name + ".new")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(tmp, mode)
    os.replace(tmp, path)
