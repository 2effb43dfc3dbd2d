"""The referee's PIN login and logout, for any page behind the PIN: the table dashboard
(``/referee/login``) and the hall's overview (``/login``) use the same code, the same
lock-out and the same session rules.

``current_app.extensions["riichi"]`` must have ``guard`` (:class:`~web.auth.PinGuard`),
``sessions`` (:class:`~web.auth.RefereeSessions`) and ``pin_hash()``.
"""
from __future__ import annotations

import math

from flask import current_app, flash, redirect, render_template, request, session

from referee.errors import RefereeError

from .auth import client_address
from .offload import off_loop
from .pin import verify_pin


def _dash():
    return current_app.extensions["riichi"]


def _pin_hash():
    """(hash or None, message for the login page when it cannot be used)."""
    try:
        pin_hash = _dash().pin_hash()
    except RefereeError as exc:
        return None, f"The referee PIN file cannot be used: {exc}"
    if pin_hash is None:
        return None, "No referee PIN is set here: run riichi-referee set-pin."
    return pin_hash, None


def minutes(seconds: float) -> str:
    m = math.ceil(seconds / 60)
    return "1 minute" if m <= 1 else f"{m} minutes"


def login_page(message: str | None, status: int, urls: dict, locked: bool = False):
    guard = _dash().guard
    return render_template("login.html", message=message, locked=locked,
                           max_failures=guard.max_failures,
                           lock_text=minutes(guard.lock_seconds),
                           table_name=current_app.config["RIICHI_TABLE_NAME"], **urls), status


def login(home_url: str, login_url: str, back_text: str | None = "Back to the table"):
    """GET: the PIN form. POST: check the PIN (lock-out per client), start a fresh referee
    session and go to ``home_url``. ``back_text``: the words of the page's link back to
    ``home_url``; None for no link (where ``home_url`` is behind the PIN too)."""
    urls = {"login_url": login_url, "home_url": home_url, "back_text": back_text}
    guard = _dash().guard
    client = client_address()
    pin_hash, problem = _pin_hash()
    if problem:
        return login_page(problem, 503 if request.method == "POST" else 200, urls)
    left = guard.locked_for(client)
    if left:
        return login_page(f"Too many wrong PINs from this phone: login is locked for "
                          f"{minutes(left)}.", 429, urls, locked=True)
    if request.method == "GET":
        return login_page(None, 200, urls)
    if off_loop(verify_pin, pin_hash, request.form.get("pin", "")):
        guard.succeeded(client)
        old = session.get("referee")
        session.clear()  # a fresh session: nothing from before the login carries over
        _dash().sessions.end(old)
        session.permanent = True
        session["referee"] = _dash().sessions.start()
        flash("Logged in as referee.")
        return redirect(home_url, 303)
    tries = guard.failed(client)
    if tries == 0:
        return login_page(f"Wrong PIN. Too many wrong PINs from this phone: login is locked "
                          f"for {minutes(guard.lock_seconds)}.", 429, urls, locked=True)
    return login_page(f"Wrong PIN ({tries} {'try' if tries == 1 else 'tries'} left "
                      f"before a {minutes(guard.lock_seconds)} lock).", 401, urls)


def logout(home_url: str):
    _dash().sessions.end(session.get("referee"))
    session.clear()
    flash("Logged out.")
    return redirect(home_url, 303)
