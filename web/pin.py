"""The referee PIN: set once at install, stored only as a salted scrypt hash.

``riichi-referee set-pin`` (:mod:`app.commands.set_pin`) writes the hash file; the dashboard reads it
on every login attempt, so a new PIN takes effect without restarting the dashboard.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from werkzeug.security import check_password_hash, generate_password_hash

from referee.errors import RefereeError

ENV_VAR = "RIICHI_PIN_HASH_FILE"
MIN_DIGITS = 4
MAX_DIGITS = 12


class PinError(RefereeError):
    """A PIN or PIN file that cannot be used."""


def default_pin_file() -> Path:
    """Where the hash lives: ``$RIICHI_PIN_HASH_FILE``, else the user's config folder."""
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    config_home = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(config_home) / "riichi-referee" / "pin.hash"


def check_pin_format(pin: str) -> str:
    """Return ``pin`` if it is 4-12 digits (what a referee can type on a phone keypad)."""
    if not isinstance(pin, str) or not pin.isascii() or not pin.isdigit():
        raise PinError("the PIN must be digits only")
    if not MIN_DIGITS <= len(pin) <= MAX_DIGITS:
        raise PinError(f"the PIN must have {MIN_DIGITS} to {MAX_DIGITS} digits, not {len(pin)}")
    return pin


#: scrypt's cost for a new PIN: 2**14 (16 MiB, about 85 ms here), half werkzeug's default. A
#: PIN of a few digits is not kept from an offline guesser by either cost (10,000 guesses are
#: minutes); online, the login's lock-out is what stops guessing. The referee's login under
#: 500 phones is what the cost buys back (bench/sse.py: p99 370 ms at 2**15, target 300).
#: Hashes made with another cost still verify: werkzeug reads it from the hash.
SCRYPT_METHOD = "scrypt:16384:8:1"


def hash_pin(pin: str) -> str:
    """A salted scrypt hash of ``pin`` (werkzeug's format, ``scrypt:16384:8:1$salt$hash``)."""
    return generate_password_hash(check_pin_format(pin), method=SCRYPT_METHOD)


def verify_pin(pin_hash: str, pin: str) -> bool:
    """True when ``pin`` matches ``pin_hash``; False for anything else, a bad hash included."""
    if not pin_hash or not isinstance(pin, str) or len(pin) > 64:
        return False
    try:
        return check_password_hash(pin_hash, pin)
    except (ValueError, TypeError):
        return False


def read_pin_hash(path: str | os.PathLike) -> str | None:
    """The hash stored in ``path``; None when the file does not exist (no PIN set yet)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise PinError(f"PIN file {path}: cannot be read ({exc})") from None
    if not text or "$" not in text:
        raise PinError(f"PIN file {path}: not a PIN hash (run riichi-referee set-pin again)")
    return text


def write_pin_hash(path: str | os.PathLike, pin_hash: str) -> Path:
    """Write ``pin_hash`` to ``path`` readable by its owner only, replacing it atomically."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".pin-", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                os.fchmod(f.fileno(), 0o600)
                f.write(pin_hash + "\n")
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
            raise
    except OSError as exc:
        raise PinError(f"PIN file {path}: cannot be written ({exc.strerror or exc})") from None
    return path
