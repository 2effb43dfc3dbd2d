"""The ``riichi-referee`` commands, one module each, named as typed (``check-tenhou`` is
``check_tenhou``): ``add_arguments(parser)`` and ``run(args) -> int``. See :mod:`app.cli`."""
