"""Who may act: the CSRF token every form carries, the PIN lock-out, the referee's session.

Spectators get a session too (it carries the CSRF token of the login form) but never the
``referee`` mark, which only a correct PIN sets. The mark is a random token that this
process also remembers, so logging out really ends it (a copied cookie is worth nothing).
"""
from __future__ import annotations

import hmac
import secrets
import threading
import time
from typing import Callable

from flask import abort, current_app, request, session

CSRF_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"


def csrf_token() -> str:
    """This session's CSRF token, made on first use."""
    token = session.get("csrf")
    if not token:
        token = secrets.token_urlsafe(32)
        session["csrf"] = token
    return token


def check_csrf() -> None:
    """403 unless the request carries this session's CSRF token (form field or header)."""
    expected = session.get("csrf")
    given = request.form.get(CSRF_FIELD) or request.headers.get(CSRF_HEADER) or ""
    if not expected or not hmac.compare_digest(str(expected), given):
        abort(403, description="This form has no valid security token: reload the page and "
                               "try again.")


class PinGuard:
    """Locks a client out after repeated wrong PINs.

    ``max_failures``: wrong PINs in a row (per client address) before the lock.
    ``lock_seconds``: how long the lock lasts; after it the count starts again.
    ``clock``: seconds, monotonic.
    """

    def __init__(self, max_failures: int = 5, lock_seconds: float = 300.0,
                 clock: Callable[[], float] = time.monotonic):
        self.max_failures = max_failures
        self.lock_seconds = lock_seconds
        self.clock = clock
        self._lock = threading.Lock()
        self._failures: dict[str, int] = {}
        self._locked_until: dict[str, float] = {}

    def locked_for(self, client: str) -> float:
        """Seconds left on ``client``'s lock; 0 when it may try a PIN."""
        with self._lock:
            until = self._locked_until.get(client)
            if until is None:
                return 0.0
            left = until - self.clock()
            if left > 0:
                return left
            del self._locked_until[client]
            self._failures.pop(client, None)
            return 0.0

    def failed(self, client: str) -> int:
        """Count a wrong PIN; return how many tries are left before the lock (0 = locked)."""
        with self._lock:
            count = self._failures.get(client, 0) + 1
            if count >= self.max_failures:
                self._locked_until[client] = self.clock() + self.lock_seconds
                self._failures[client] = count
                return 0
            self._failures[client] = count
            self._prune()
            return self.max_failures - count

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._failures.pop(client, None)

    def _prune(self) -> None:
        # Clients that failed once and went away must not grow the table forever.
        if len(self._failures) > 10_000:
            locked = set(self._locked_until)
            for client in [c for c in self._failures if c not in locked]:
                del self._failures[client]


class RefereeSessions:
    """The referee tokens this process has handed out, with when each expires."""

    def __init__(self, lifetime: float, clock: Callable[[], float] = time.monotonic):
        self.lifetime = lifetime
        self.clock = clock
        self._lock = threading.Lock()
        self._tokens: dict[str, float] = {}

    def start(self) -> str:
        token = secrets.token_urlsafe(32)
        with self._lock:
            now = self.clock()
            self._tokens = {k: v for k, v in self._tokens.items() if v > now}
            self._tokens[token] = now + self.lifetime
        return token

    def valid(self, token: str | None) -> bool:
        if not token:
            return False
        with self._lock:
            until = self._tokens.get(token)
            return until is not None and until > self.clock()

    def end(self, token: str | None) -> None:
        with self._lock:
            self._tokens.pop(token or "", None)


def is_referee() -> bool:
    """True when this request comes from a logged-in referee."""
    return current_app.extensions["riichi"].sessions.valid(session.get("referee"))


def client_address() -> str:
    return request.remote_addr or "unknown"
