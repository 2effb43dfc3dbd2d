"""The referee's PIN and session never cross the air in clear.

The venue's Wi-Fi is often open: anyone nearby can read plain HTTP. With
``RIICHI_REFEREE_HTTPS`` on (the production dashboard, :mod:`web.wsgi`), the app serves the
same pages over both schemes but treats them differently:

* ``/referee/...`` over plain HTTP: a GET is redirected to the same path on the HTTPS port
  (``RIICHI_HTTPS_PORT``), so the PIN form is only ever shown, and so only ever posted, over
  HTTPS; any other method is refused with a page saying where to go instead. A redirect of a
  POST would come too late: its body (the PIN) has already crossed the air.
* Over plain HTTP the session is neither read nor written: a spectator's phone gets no
  cookie, and no cookie that came over HTTP can make anyone a referee.
* Over HTTPS the session cookie is ``Secure`` and named ``__Host-...``, which browsers accept
  only from a secure origin: a page on the plain-HTTP port of the same host (cookies do not
  keep ports apart) can neither read it nor plant one in its place.

``RIICHI_CA_CERT``: the hall's CA certificate (PEM), offered at ``/ca.crt`` with its SHA-256
fingerprint on ``/trust``, so a referee's phone can trust every table of the hall at once.
Spectators stay on plain HTTP: see web/README.md for why.
"""
from __future__ import annotations

import hashlib
import ssl
from pathlib import Path
from urllib.parse import quote, urlsplit

from flask import (Blueprint, Response, abort, current_app, redirect, render_template,
                   request)
from flask.sessions import SecureCookieSessionInterface

bp = Blueprint("https", __name__)

#: The paths that carry the PIN or a referee's session.
REFEREE_PREFIX = "/referee/"


def required(app=None) -> bool:
    return bool((app or current_app).config.get("RIICHI_REFEREE_HTTPS"))


def https_url(path: str | None = None) -> str:
    """This request's URL (or ``path``) on the dashboard's HTTPS port, same host name."""
    host = urlsplit(f"//{request.host}").hostname or "localhost"
    if ":" in host:
        host = f"[{host}]"
    port = int(current_app.config["RIICHI_HTTPS_PORT"])
    netloc = host if port == 443 else f"{host}:{port}"
    if path is not None:
        return f"https://{netloc}{path}"
    # The path as it came, encoded again (a %0a in it must not end the Location header).
    path = quote(request.path, safe="/:@!$&'()*+,;=")
    query = request.query_string.decode("latin-1")
    return f"https://{netloc}{path}" + (f"?{query}" if query else "")


def referee_over_https_only():
    """Before every request (ahead of the CSRF check, whose complaint would mislead)."""
    if not required() or request.is_secure or not request.path.startswith(REFEREE_PREFIX):
        return None
    if request.method in ("GET", "HEAD"):
        # 307, temporary: a browser must not keep it for a table whose setup changes later.
        return redirect(https_url(), 307)
    return render_template(
        "error.html", code=403, name="Use the secure address",
        description=("Referee actions are taken over https only, so the PIN and the referee's "
                     f"session never cross the air in clear. Open {https_url()} instead."),
        table_name=current_app.config["RIICHI_TABLE_NAME"]), 403


class SessionOverHttpsOnly(SecureCookieSessionInterface):
    """Flask's signed-cookie session, kept off plain HTTP when the referee needs HTTPS."""

    def _plain(self, app, req) -> bool:
        return required(app) and not req.is_secure

    def open_session(self, app, request):
        if self._plain(app, request):
            return self.session_class()  # whatever cookie came in clear is ignored
        return super().open_session(app, request)

    def should_set_cookie(self, app, session) -> bool:
        if self._plain(app, request):
            return False
        return super().should_set_cookie(app, session)

    def save_session(self, app, session, response):
        if self._plain(app, request):
            return None  # not even the deletion of a cookie: none is ever set over HTTP
        return super().save_session(app, session, response)


def install(app) -> None:
    """Make ``app`` keep the referee on HTTPS when its config asks for it."""
    app.session_interface = SessionOverHttpsOnly()
    if required(app):
        app.config["SESSION_COOKIE_SECURE"] = True
        name = app.config["SESSION_COOKIE_NAME"]
        if not name.startswith("__Host-"):
            app.config["SESSION_COOKIE_NAME"] = "__Host-" + name
        app.config["SESSION_COOKIE_DOMAIN"] = None
        app.config["SESSION_COOKIE_PATH"] = "/"
    app.before_request(referee_over_https_only)
    app.register_blueprint(bp)


# -- the hall's CA, for a referee's phone to trust once ------------------------------------

def ca_pem() -> bytes | None:
    path = current_app.config.get("RIICHI_CA_CERT")
    if not path:
        return None
    try:
        return Path(path).read_bytes()
    except OSError:
        return None


def fingerprint(pem: bytes) -> str:
    """SHA-256 of the certificate, as phones and ``openssl x509 -fingerprint`` show it."""
    der = ssl.PEM_cert_to_DER_cert(pem.decode("ascii"))
    digest = hashlib.sha256(der).hexdigest().upper()
    return ":".join(digest[i:i + 2] for i in range(0, len(digest), 2))


@bp.get("/ca.crt")
def ca_certificate():
    pem = ca_pem()
    if pem is None:
        abort(404, description="No CA certificate is offered by this dashboard.")
    # The type phones recognise as "install this certificate" (iOS offers a profile).
    return Response(pem, mimetype="application/x-x509-ca-cert",
                    headers={"Content-Disposition": 'attachment; filename="riichi-hall-ca.crt"',
                             "Cache-Control": "no-store"})


@bp.get("/trust")
def trust_page():
    pem = ca_pem()
    try:
        print_ = fingerprint(pem) if pem else None
    except (ValueError, UnicodeDecodeError):
        print_ = None
    login = https_url("/referee/login") if required() else None
    return render_template("trust.html", fingerprint=print_, login_url=login,
                           table_name=current_app.config["RIICHI_TABLE_NAME"])
