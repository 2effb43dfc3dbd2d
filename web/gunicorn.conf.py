"""gunicorn settings for the dashboard: ``gunicorn -c web/gunicorn.conf.py 'web.wsgi:app'``.

Every phone watching the table holds one server-sent-events stream for as long as it stays.
The gevent worker serves every connection from one event loop, so a stream costs a greenlet
(about 22 KiB), not a thread: spectators cannot use up what the referee's login and actions
need, however many they are (``python bench/sse.py`` measures it with 500 phones). One
worker only: the hub that fans the table out to the streams lives in the worker's memory.

What bounds the streams is memory and file descriptors, so they are capped (see
:mod:`web.capacity`): the cap is sized from ``RIICHI_WEB_STREAM_MEMORY_MB`` (default 64)
or set by ``RIICHI_WEB_MAX_STREAMS``, and lowered to what the open-file limit carries, which
this file first raises toward the hard limit (systemd starts services at 1024). The
connection pool holds every stream and as many connections again for pages and actions.
The worker gets the cap as ``RIICHI_WEB_MAX_STREAMS``; the per-address limit is the app's
(``RIICHI_WEB_STREAMS_PER_CLIENT``, see ``web/wsgi.py``).

Environment (or the ``[web]`` section of ``RIICHI_CONFIG``: ``host``/``port``,
``https_port``, ``max_streams``, ``stream_memory_mb``): ``RIICHI_WEB_BIND`` (default
``0.0.0.0:8000``, or ``0.0.0.0:8443`` with TLS), ``RIICHI_WEB_MAX_STREAMS``,
``RIICHI_WEB_STREAM_MEMORY_MB``, ``RIICHI_WEB_ACCESS_LOG`` (a path, or ``-`` for stderr; off
by default).

TLS: ``RIICHI_WEB_CERTFILE`` and ``RIICHI_WEB_KEYFILE`` (the table's certificate, with the
hall CA's after it, and its key, as ``install.sh`` writes them) make this server HTTPS-only.
gunicorn applies one TLS setting to every address it binds, so the table runs two of these
servers (``riichi-referee-web.service``, plain HTTP for spectators, and
``riichi-referee-web-tls.service``, HTTPS for the referee): see web/README.md.
"""
import importlib.util
import os
import sys
import tomllib
from pathlib import Path


def _capacity():
    # By path: importing the `web` package would import Flask into the master process,
    # before the gevent worker has patched the standard library.
    spec = importlib.util.spec_from_file_location(
        "riichi_web_capacity", Path(__file__).resolve().with_name("capacity.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


def _web_section() -> dict:
    path = os.environ.get("RIICHI_CONFIG")
    if not path:
        return {}
    try:
        with open(path, "rb") as f:
            web = tomllib.load(f).get("web", {})
    except (OSError, tomllib.TOMLDecodeError):
        return {}  # the app reports an unusable config in one line when it loads
    return web if isinstance(web, dict) else {}


def _number(name: str, key: str, web: dict, kind=int):
    """``name`` from the environment, else ``key`` of ``[web]``; None when neither is set."""
    where, value = name, os.environ.get(name, "")
    if not value.strip():
        if key not in web:
            return None
        where, value = f"[web] {key}", web[key]
    try:
        if isinstance(value, bool):
            raise ValueError
        number = kind(value)
    except (TypeError, ValueError):
        raise SystemExit(f"riichi-referee dashboard: {where}={value!r} is not a "
                         f"{'whole number' if kind is int else 'number'}")
    if number <= 0:
        raise SystemExit(f"riichi-referee dashboard: {where} must be above 0, not {value}")
    return number


def _bind(web: dict, tls: bool) -> str:
    key, default = ("https_port", 8443) if tls else ("port", 8000)
    return f"{web.get('host', '0.0.0.0')}:{web.get(key, default)}"


def _tls_files() -> tuple[str, str] | None:
    cert = os.environ.get("RIICHI_WEB_CERTFILE", "").strip()
    key = os.environ.get("RIICHI_WEB_KEYFILE", "").strip()
    if not cert and not key:
        return None
    if not cert or not key:
        raise SystemExit("riichi-referee dashboard: RIICHI_WEB_CERTFILE and RIICHI_WEB_KEYFILE "
                         "go together (the certificate and its key)")
    for name, path in (("RIICHI_WEB_CERTFILE", cert), ("RIICHI_WEB_KEYFILE", key)):
        if not os.access(path, os.R_OK):
            raise SystemExit(f"riichi-referee dashboard: {name}={path} cannot be read "
                             "(install.sh writes it)")
    return cert, key


_web = _web_section()
_cap = _capacity()
_max_streams = _number("RIICHI_WEB_MAX_STREAMS", "max_streams", _web)
_memory_mb = _number("RIICHI_WEB_STREAM_MEMORY_MB", "stream_memory_mb", _web, float)
_memory_mb = _cap.DEFAULT_MEMORY_MB if _memory_mb is None else _memory_mb
_wanted = _cap.size(_memory_mb, _max_streams, file_limit=1 << 30)
_cap.raise_open_file_limit(_wanted.file_descriptors)
sizing = _cap.size(_memory_mb, _max_streams)

_tls = _tls_files()
bind = [os.environ.get("RIICHI_WEB_BIND") or _bind(_web, _tls is not None)]
if _tls is not None:
    # gunicorn's default context (ssl.create_default_context): TLS 1.2 at least, which every
    # phone of the last ten years speaks.
    certfile, keyfile = _tls
worker_class = "gevent"
# A referee's photo of a hand (app.wsgi, web/photo.py) is read in gevent's pool of real
# threads, one photo at a time, so the loop keeps serving the streams meanwhile.
workers = 1
worker_connections = sizing.connections
# The worker learns the cap this file settled on (after the open-file limit).
raw_env = [f"RIICHI_WEB_MAX_STREAMS={sizing.streams}"]
# The event loop heartbeats every second, so a long stream is not a hung worker; this bounds
# a worker whose loop really hangs.
timeout = 30
# Idle HTTP keep-alive between page loads; streams send their own keep-alive comments.
keepalive = 5
# Streams end at once on shutdown (the app closes them), so a restart is quick.
graceful_timeout = 10
proc_name = "riichi-referee-dashboard" + ("-tls" if _tls else "")
accesslog = os.environ.get("RIICHI_WEB_ACCESS_LOG") or None
errorlog = "-"
loglevel = "info"
# gunicorn >= 25 opens a control socket under $HOME by default: not wanted on a hardened
# service with no home (older versions ignore this setting).
control_socket_disable = True
# Don't let a huge header from a misbehaving client tie up memory.
limit_request_line = 4094
limit_request_fields = 50


def post_worker_init(worker):
    """On SIGTERM, end the open streams at once so the worker exits without waiting
    ``graceful_timeout`` for phones that would otherwise hold their streams open."""
    import signal

    from web.offload import spawn  # the worker has patched the standard library by now

    previous = signal.getsignal(signal.SIGTERM)

    def on_term(signum, frame):
        dash = getattr(getattr(worker, "wsgi", None), "extensions", {}).get("riichi")
        if dash is not None:
            # Not in the handler itself: it may have interrupted a stream holding the lock
            # that stop() takes, and under gevent it runs where nothing may block.
            spawn(dash.stop)
        # A phone's connection whose stream just ended would otherwise be kept open for its
        # next request, and the worker would wait for it.
        worker.cfg.set("keepalive", 0)
        if callable(previous):
            previous(signum, frame)

    signal.signal(signal.SIGTERM, on_term)
    if _tls is not None:
        _one_line_for_failed_handshakes(worker)


def _one_line_for_failed_handshakes(worker):
    """A phone that does not trust the hall's CA yet, or that asked for http:// on the https
    port, fails the TLS handshake in gevent's server, whose hub would print a traceback for
    each: one line says it instead (the reason, such as "tlsv1 alert unknown ca", tells the
    installer what the phone objected to)."""
    import ssl

    import gevent

    hub = gevent.get_hub()
    print_exception = hub.print_exception

    def quieter(context, type_, value, tb):
        if type_ is not None and issubclass(type_, (ssl.SSLError, ConnectionError)):
            worker.log.info("TLS handshake failed: %s", value)
            return
        print_exception(context, type_, value, tb)

    hub.print_exception = quieter
