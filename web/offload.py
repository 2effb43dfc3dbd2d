"""Work that must not hold up the event loop that serves every stream.

Under gunicorn's gevent worker all connections share one thread: a function that computes for
a long time without yielding (the PIN's scrypt hash: a tenth of a second or more, longer on a
Pi) would stall every stream and every other request meanwhile. :func:`off_loop` runs such a
function in gevent's pool of real threads, where it only needs the GIL it releases anyway
(hashlib's scrypt runs without it); elsewhere (the demo's threaded server, tests) it just
calls it.
"""
from __future__ import annotations

from typing import Any, Callable


def _gevent_hub():
    try:
        from gevent import get_hub, monkey
    except ImportError:
        return None
    return get_hub() if monkey.is_module_patched("threading") else None


def off_loop(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)``, in a real thread when an event loop serves the requests. ``fn`` must
    not touch gevent objects (locks, queues) shared with the loop."""
    hub = _gevent_hub()
    if hub is None:
        return fn(*args)
    return hub.threadpool.apply(fn, args)


def spawn(fn: Callable[[], Any]) -> None:
    """Start ``fn`` soon, on the event loop when there is one, else in a daemon thread; safe
    to call from a signal handler (it never waits)."""
    if _gevent_hub() is not None:
        import gevent
        gevent.spawn(fn)
        return
    import threading
    threading.Thread(target=fn, name="riichi-dashboard", daemon=True).start()
