"""gunicorn settings for the dashboard: ``gunicorn -c web/gunicorn.conf.py 'web.wsgi:app'``.

Every phone watching the table holds one server-sent-events stream, and a stream holds a
gthread thread for as long as the phone stays. Threads are sized for the phones expected
(``RIICHI_WEB_PHONES``, default 16): two per phone (a phone reconnecting briefly has an old
stream and a new one, and pages, scripts and downloads need threads beside the streams) plus
headroom. One worker only: the hub that fans the table out to the streams lives in the
worker's memory.

Environment: ``RIICHI_WEB_BIND`` (default ``0.0.0.0:8000``, or ``host:port`` from the
``[web]`` section of ``RIICHI_CONFIG``), ``RIICHI_WEB_PHONES``, ``RIICHI_WEB_THREADS``
(overrides the sizing), ``RIICHI_WEB_ACCESS_LOG`` (a path, or ``-`` for stderr; off by default).
"""
import os
import tomllib


def _int_env(name: str, default: int) -> int:
    value = os.environ.get(name, "")
    if not value.strip():
        return default
    try:
        number = int(value)
    except ValueError:
        raise SystemExit(f"riichi-referee dashboard: {name}={value!r} is not a whole number")
    if number < 1:
        raise SystemExit(f"riichi-referee dashboard: {name} must be 1 or more, not {number}")
    return number


def _config_bind() -> str | None:
    path = os.environ.get("RIICHI_CONFIG")
    if not path:
        return None
    try:
        with open(path, "rb") as f:
            web = tomllib.load(f).get("web", {})
    except (OSError, tomllib.TOMLDecodeError):
        return None  # the app reports an unusable config in one line when it loads
    if not isinstance(web, dict) or "port" not in web:
        return None
    return f"{web.get('host', '0.0.0.0')}:{web['port']}"


phones = _int_env("RIICHI_WEB_PHONES", 16)
headroom = 8

bind = [os.environ.get("RIICHI_WEB_BIND") or _config_bind() or "0.0.0.0:8000"]
worker_class = "gthread"
workers = 1
threads = _int_env("RIICHI_WEB_THREADS", 2 * phones + headroom)
# Connections beyond the threads wait in line instead of being refused.
worker_connections = max(1000, threads * 4)
# In gthread the main thread heartbeats, so a long stream is not a hung worker; this bounds
# a worker that really hangs.
timeout = 30
# Idle HTTP keep-alive between page loads; streams send their own keep-alive comments.
keepalive = 5
# Streams end within a second of shutdown (the app closes them), so a restart is quick.
graceful_timeout = 10
proc_name = "riichi-referee-dashboard"
accesslog = os.environ.get("RIICHI_WEB_ACCESS_LOG") or None
errorlog = "-"
loglevel = "info"
# gunicorn >= 25 opens a control socket under $HOME by default: not wanted on a hardened
# service with no home (older versions ignore this setting).
control_socket_disable = True
# Don't let a huge header from a misbehaving client tie up a thread.
limit_request_line = 4094
limit_request_fields = 50


def post_worker_init(worker):
    """On SIGTERM, end the open streams at once so the worker exits without waiting
    ``graceful_timeout`` for phones that would otherwise hold their streams open."""
    import signal

    previous = signal.getsignal(signal.SIGTERM)

    def on_term(signum, frame):
        dash = getattr(getattr(worker, "wsgi", None), "extensions", {}).get("riichi")
        if dash is not None:
            dash.stop()
        if callable(previous):
            previous(signum, frame)

    signal.signal(signal.SIGTERM, on_term)
