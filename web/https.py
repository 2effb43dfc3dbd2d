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

Which paths are the referee's is the app's to say (``install(app, https_only=...)``): the
table's are ``/referee/...``; the hall's page (:mod:`web.hall`) has no spectators, so all of
it but ``/ca.crt``, ``/trust`` and the stylesheets.
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


def referee_path(path: str) -> bool:
    """The table dashboard's referee pages: login, actions, the referee's own views."""
    return path.startswith(REFEREE_PREFIX)


#: What may still be served over plain HTTP where everything else is HTTPS only: how a
#: phone comes to trust the hall's CA, and the stylesheets that page uses.
OPEN_OVER_HTTP = ("/ca.crt", "/trust")
OPEN_PREFIXES_OVER_HTTP = ("/static/", "/hall/static/")


def all_but_trust(path: str) -> bool:
    """Every path but the way to trust the CA: for a site with no spectators (the hall)."""
    return path not in OPEN_OVER_HTTP and not path.startswith(OPEN_PREFIXES_OVER_HTTP)


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
    # script_root: a table's view mounted in the hall (/t/<table>) keeps its place.
    path = quote(request.script_root + request.path, safe="/:@!$&'()*+,;=")
    query = request.query_string.decode("latin-1")
    return f"https://{netloc}{path}" + (f"?{query}" if query else "")


def referee_over_https_only():
    """Before every request (ahead of the CSRF check, whose complaint would mislead)."""
    https_only = current_app.extensions.get("riichi_https_only", referee_path)
    if not required() or request.is_secure or not https_only(request.path):
        return None
    if request.method in ("GET", "HEAD"):
        # 307, temporary: a browser must not keep it for a table whose setup changes later.
        return redirect(https_url(), 307)
    return render_template(
        "error.html", code=403, name="Use the secure address",
        description=("Referee actions are taken over https only, so the PIN and the referee's "
                     f"session never cross the air in clear. Open {https_url()} instead."),
        table_name=current_app.config["RIICHI_TABLE_NAME"], home_url=request.script_root + "/",
        back_text=current_app.config.get("RIICHI_BACK_TEXT")), 403


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


def install(app, https_only=referee_path) -> None:
    """Make ``app`` keep the referee on HTTPS when its config asks for it. ``https_only``:
    which request paths are the referee's (given the path; :func:`referee_path` by default,
    :func:`all_but_trust` for a site that is all the referee's)."""
    app.extensions["riichi_https_only"] = https_only
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
    login_path = current_app.config.get("RIICHI_LOGIN_PATH", "/referee/login")
    login = https_url(login_path) if required() else None
    return render_template("trust.html", fingerprint=print_, login_url=login,
                           table_name=current_app.config["RIICHI_TABLE_NAME"],
                           back_text=current_app.config.get("RIICHI_BACK_TEXT",
                                                            "Back to the table"))
