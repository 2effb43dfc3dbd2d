"""The referee's dashboard under gunicorn, able to read a photo of a hand:
``gunicorn -c web/gunicorn.conf.py 'app.wsgi:app'`` (``riichi-referee-web-tls.service``).

It is :mod:`web.wsgi`'s dashboard (the same settings) with a :class:`app.photo.PhotoReader`
for the table ``RIICHI_CONFIG`` names (its tile model and enrolled set), which the dashboard
cannot make itself (web/ does not import vision/). The spectators' plain-HTTP dashboard stays
``web.wsgi:app``: it has no referee, so it never loads a tile model into the Pi's memory.
"""
from __future__ import annotations

import os


def __getattr__(name: str):
    # Built on first access, as web.wsgi's app is, so importing this module needs no journal.
    if name == "app":
        from web.wsgi import load_app

        from .photo import PhotoReader

        app = load_app(photo_reader=PhotoReader(os.environ.get("RIICHI_CONFIG") or None))
        globals()["app"] = app
        return app
    raise AttributeError(name)
