"""``riichi-referee hall-broker``: the hall broker's users, ACL and settings, in one go.

    riichi-referee hall-broker --hall spring-open --tables 60 --out hall-broker/
    riichi-referee hall-broker --hall spring-open --tables t01 t02 east-1 --out hall-broker/

Writes ``riichi-hall.conf`` (copy to ``/etc/mosquitto/conf.d/``), ``riichi.acl`` and
``riichi.passwd`` (to ``/etc/mosquitto/riichi/``, or wherever ``--files-at`` says the conf
should point), and ``passwords/<table>.password`` for each table's Pi (``[hall]
password_file``) and ``passwords/hall.password`` for the hall's server. Running it again keeps
the passwords already in ``passwords/``.

``--tls``: the broker's one listener speaks TLS (port 8883 unless ``--port``), with the hall's
CA certificate and the broker's certificate and key in ``--files-at`` as ``ca.crt``,
``server.crt`` and ``server.key`` (install-hall.sh makes them from the hall's CA).
"""
from __future__ import annotations

import argparse
from pathlib import Path

from hall.broker import tls_files, write_broker_files
from referee.errors import RefereeError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hall", required=True, help="the hall's name (the topic segment)")
    parser.add_argument("--tables", nargs="+", required=True, metavar="NAME",
                        help="the tables' names, or one number N for t01..tN")
    parser.add_argument("--out", required=True, metavar="DIR", help="where to write the files")
    parser.add_argument("--port", type=int, help="the broker's port (default 1883, or 8883 "
                                                 "with --tls)")
    parser.add_argument("--tls", action="store_true",
                        help="listen with TLS only: ca.crt, server.crt and server.key in "
                             "--files-at (install-hall.sh makes them from the hall's CA)")
    parser.add_argument("--files-at", metavar="DIR", default="/etc/mosquitto/riichi",
                        help="where the ACL and password file will live on the broker's "
                             "machine (default /etc/mosquitto/riichi)")


def table_names(values: list[str]) -> list[str]:
    if len(values) == 1 and values[0].isdigit():
        n = int(values[0])
        if not 1 <= n <= 999:
            raise RefereeError("--tables N: N must be 1 to 999")
        width = max(2, len(str(n)))
        return [f"t{i:0{width}d}" for i in range(1, n + 1)]
    return values


def run(args: argparse.Namespace) -> int:
    out = Path(args.out)
    tables = table_names(args.tables)
    kept = {}
    for path in (out / "passwords").glob("*.password") if (out / "passwords").is_dir() else []:
        kept[path.stem] = path.read_text(encoding="utf-8").strip()
    try:
        port = args.port or (8883 if args.tls else 1883)
        write_broker_files(out, args.hall, tables, port=port, passwords=kept,
                           files_at=Path(args.files_at),
                           tls=tls_files(Path(args.files_at)) if args.tls else None)
    except ValueError as exc:
        raise RefereeError(str(exc)) from None
    except OSError as exc:
        raise RefereeError(f"cannot write {out}: {exc.strerror or exc}") from None
    conf = out / "riichi-hall.conf"
    print(f"wrote {conf}, {out / 'riichi.acl'}, {out / 'riichi.passwd'} and "
          f"{len(tables) + 1} password files under {out / 'passwords'}")
    print(f"on the broker: copy riichi.acl and riichi.passwd to {args.files_at}/ "
          "(readable by the mosquitto user) and riichi-hall.conf to /etc/mosquitto/conf.d/")
    if args.tls:
        print(f"TLS: put the hall's CA certificate and the broker's certificate and key in "
              f"{args.files_at}/ as ca.crt, server.crt and server.key (the key readable by "
              "the mosquitto user only)")
    return 0
