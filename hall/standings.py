"""The tournament's standings in the hall: who sat where, what each signed result gave them.

The tournament's own software (MahjongPantheon, a spreadsheet...) draws the seats; the hall
only reads what it exported:

- the **roster**, a CSV of the players: ``name``, ``EMA number`` and ``country`` (optional
  ``first name`` and ``last name``, which the EMA export prefers to splitting ``name``);
- each round's **seating**, a CSV of ``table``, ``seat`` (the table's seat 0-3, as its buttons
  are numbered) and ``player`` (a roster name or EMA number).

Headers are matched loosely (``EMA number``, ``ema_number`` and ``EMA`` are one column) and
``,``, ``;`` or tab separate them (a spreadsheet saves either). A file that cannot be used
raises :class:`StandingsError`, one line naming the file, the row (as a spreadsheet numbers
it, the header being row 1) and what is wrong; nothing of it is loaded.

:class:`Standings` counts every signed ``result`` ruling once (:meth:`Standings.add_result`),
keyed to the players through the seating, and keeps what it counted in a small JSON file
(written whole, atomically, before a result counts) so a hall server restart neither loses nor
double counts one. Totals are the sum of each player's ``final`` points; the standings are in
order of total, and a player's position is what the EMA ranks by (see
:data:`EMA_COLUMNS`). Plain data in, plain data out; nothing here talks MQTT.
"""
from __future__ import annotations

import csv
import io
import json
import logging
import math
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Iterable, Mapping

from referee.errors import RefereeError, unreadable
from table.config import replacing

from .topics import valid_name

NAME_RULE = "a name of letters, digits, - and _ (as the table is named in the hall)"

log = logging.getLogger("riichi-referee.hall")

SEATS = 4
FORMAT = "riichi-referee standings"

#: The columns of the EMA export, in order.
#:
#: Where they come from (NOT confirmed against the EMA's own results template, which could not
#: be read from here; check with the EMA before a first submission):
#:
#: - the EMA's results workbook, as the EMA ranking rebuild ``Jesterboxboy/ema_scraper``
#:   imports it (``calculators/get_results.py``, "import from the existing xls results
#:   workbook"), holds per player, in this order: position, first name, last name, EMA
#:   number, table points, score, EMA member (a flag), country (a 3-letter code). Those are
#:   the columns below; the header words are ours.
#: - the EMA's published results (``mahjong-europe.org/ranking/Tournament/TR_RCR_<id>.html``),
#:   as that project (``utils/scrapers.py``) and MahjongRepository's ``mahjong-portal``
#:   (``download_ema_results.py``) read them, list per player: position, EMA number ("-" for
#:   a player without one), last name, first name, table points (MCR's only), score (an
#:   integer) and base rank.
#: - the EMA ranks a player in a tournament by position alone: base rank = 1000 x (players -
#:   position) / (players - 1) ("Basics for ranking system",
#:   mahjong-europe.org/ranking/Basicsranking.html); players tied on score share the better
#:   position (how ``ema_scraper`` reproduces the EMA's base ranks).
#:
#: So ``Position`` is what the ranking uses; ``Score`` is the tournament total as an integer:
#: the sum of ``final`` (thousands of points) x 1000; ``Table points`` stay empty (riichi has
#: none); ``EMA member`` is 1 for a player with an EMA number. MahjongPantheon (GPL) has no
#: EMA export in its current source to learn from.
EMA_COLUMNS = ("Position", "First name", "Last name", "EMA number", "Table points", "Score",
               "EMA member", "Country")


class StandingsError(RefereeError, ValueError):
    """A roster, seating, result or standings file that cannot be used, in one line."""


@dataclass(frozen=True)
class Player:
    """One player of the roster. ``ema``: the EMA number, 8 digits, or "" for a player
    without one; ``first_name``/``last_name``: from the roster, else ``name`` split at its
    last space."""

    name: str
    ema: str
    country: str
    first_name: str
    last_name: str


# -- reading the tournament's CSV files ------------------------------------------------------

def _key(header: str) -> str:
    return re.sub(r"[^a-z0-9]", "", header.lower())


# column -> the header spellings it answers to (after _key)
_ROSTER = {"name": {"name", "player", "playername", "fullname"},
           "ema": {"ema", "emanumber", "emaid", "emano", "emanr"},
           "country": {"country", "nationality", "nation"},
           "first": {"firstname", "givenname", "forename"},
           "last": {"lastname", "surname", "familyname"}}
_LABEL = {"name": "name", "ema": "EMA number", "country": "country", "first": "first name",
          "last": "last name", "table": "table", "seat": "seat", "player": "player"}
_SEATING = {"table": {"table", "tablename", "tableno", "tablenumber"},
            "seat": {"seat", "seatno", "seatnumber"},
            "player": {"player", "name", "playername", "ema", "emanumber"}}


def _rows(path: str | os.PathLike, kind: str, columns: dict[str, set[str]],
          required) -> tuple[str, list[tuple[int, dict[str, str]]]]:
    """``where`` and the rows of a CSV, each ``(row number, {column: text})``.
    ``required``: the columns it must have, or a function of the columns found that names
    those missing."""
    where = f"{kind} {path}"
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise StandingsError(unreadable(where, exc, "CSV")) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise StandingsError(f"{where}: not UTF-8 text (save it as \"CSV UTF-8\")") from None
    first = text.split("\n", 1)[0]
    try:
        dialect = csv.Sniffer().sniff(first, delimiters=",;\t") if first.strip() else csv.excel
    except csv.Error:
        dialect = csv.excel  # one column: a header the checks below name
    reader = csv.reader(io.StringIO(text, newline=""), dialect)
    header = next(reader, None)
    if not header or not any(h.strip() for h in header):
        raise StandingsError(f"{where} row 1: no header (the first row must name the "
                             "columns)")
    found: dict[str, int] = {}
    for i, h in enumerate(header):
        for column, names in columns.items():
            if _key(h) in names and column not in found:
                found[column] = i
    missing = required(found) if callable(required) else \
        [c for c in required if c not in found]
    if missing:
        raise StandingsError(f"{where} row 1: no column {', '.join(_LABEL[c] for c in missing)} "
                             f"(the header has: {', '.join(h.strip() for h in header)})")
    rows = []
    for cells in reader:
        if not any(c.strip() for c in cells):
            continue
        rows.append((reader.line_num, {c: (cells[i].strip() if i < len(cells) else "")
                                       for c, i in found.items()}))
    return where, rows


def _ema_number(text: str) -> str:
    """An EMA number as the EMA writes it: 8 digits (a spreadsheet drops leading zeros); ""
    for a player without one (blank, or "-" or "0" as the EMA's results write it)."""
    if text in ("", "-", "0"):
        return ""
    if not text.isdigit() or len(text) > 8:
        raise ValueError(f"EMA number {text!r} is not a number of up to 8 digits")
    return text.zfill(8)


def read_roster(path: str | os.PathLike) -> list[Player]:
    """The players of the roster CSV at ``path``, in its order; :class:`StandingsError` for
    a missing column, a row without name or country, a bad EMA number, or a player (name or
    EMA number) listed twice."""
    def missing(found):
        names = [] if "name" in found or ("first" in found and "last" in found) else ["name"]
        return names + [c for c in ("ema", "country") if c not in found]

    where, rows = _rows(path, "roster", _ROSTER, missing)
    players: list[Player] = []
    by_name: dict[str, int] = {}
    by_ema: dict[str, int] = {}
    for row, cells in rows:
        first, last = cells.get("first", ""), cells.get("last", "")
        name = cells.get("name") or " ".join(p for p in (first, last) if p)
        if not name:
            raise StandingsError(f"{where} row {row}: no name")
        if not first and not last:
            first, _, last = name.rpartition(" ")
            if not first:
                first, last = "", name
        try:
            ema = _ema_number(cells["ema"])
        except ValueError as exc:
            raise StandingsError(f"{where} row {row}: {exc}") from None
        if not cells["country"]:
            raise StandingsError(f"{where} row {row}: {name} has no country")
        if name.casefold() in by_name:
            raise StandingsError(f"{where} row {row}: {name} is listed twice (row "
                                 f"{by_name[name.casefold()]} too)")
        if ema and ema in by_ema:
            raise StandingsError(f"{where} row {row}: EMA number {ema} of {name} is also "
                                 f"on row {by_ema[ema]}")
        by_name[name.casefold()] = row
        if ema:
            by_ema[ema] = row
        players.append(Player(name, ema, cells["country"], first, last))
    if not players:
        raise StandingsError(f"{where}: no players (only a header)")
    return players


def read_seating(path: str | os.PathLike, roster: list[Player]) -> dict[str, list[str]]:
    """One round's seating CSV at ``path``: ``{table: [player name by seat 0-3]}``;
    :class:`StandingsError` for a missing column, a bad table name or seat, a player not on
    the roster, a seat taken twice, a player seated twice or a table not full."""
    where, rows = _rows(path, "seating", _SEATING, ("table", "seat", "player"))
    by_name = {p.name.casefold(): p for p in roster}
    by_ema = {p.ema: p for p in roster if p.ema}
    tables: dict[str, list[str | None]] = {}
    seated: dict[str, tuple[int, str, int]] = {}
    taken: dict[tuple[str, int], int] = {}
    for row, cells in rows:
        table = cells["table"]
        if not valid_name(table):
            raise StandingsError(f"{where} row {row}: table {table!r} must be {NAME_RULE}")
        if cells["seat"] not in ("0", "1", "2", "3"):
            raise StandingsError(f"{where} row {row}: seat {cells['seat']!r} must be 0, 1, 2 "
                                 "or 3 (the table's seat numbers)")
        seat = int(cells["seat"])
        who = cells["player"]
        player = by_name.get(who.casefold())
        if player is None and who.isdigit():
            player = by_ema.get(who.zfill(8))
        if player is None:
            raise StandingsError(f"{where} row {row}: unknown player {who!r} (not on the "
                                 "roster by name or EMA number)")
        if (table, seat) in taken:
            raise StandingsError(f"{where} row {row}: table {table} seat {seat} is taken "
                                 f"twice (row {taken[table, seat]} too)")
        if player.name in seated:
            r, t, s = seated[player.name]
            raise StandingsError(f"{where} row {row}: {player.name} is seated twice (table "
                                 f"{t} seat {s} on row {r})")
        taken[table, seat] = row
        seated[player.name] = (row, table, seat)
        tables.setdefault(table, [None] * SEATS)[seat] = player.name
    if not tables:
        raise StandingsError(f"{where}: no seats (only a header)")
    for table, names in tables.items():
        empty = [str(s) for s, n in enumerate(names) if n is None]
        if empty:
            raise StandingsError(f"{where}: table {table} has nobody in seat "
                                 f"{', '.join(empty)}")
    return {t: list(n) for t, n in tables.items()}  # type: ignore[misc]


def parse_round_file(text: str) -> tuple[int, str]:
    """``ROUND=FILE`` (the hall command's ``--seating``) as ``(round, file)``."""
    number, sep, file = text.partition("=")
    if not sep or not number.strip().isdigit() or int(number) < 1 or not file.strip():
        raise StandingsError(f"--seating {text}: must be ROUND=FILE, ROUND a number from 1")
    return int(number), file.strip()


# -- the standings -----------------------------------------------------------------------------

def _table_order(name: str):
    """t2 before t10: digits compared as numbers."""
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", name) if p]


def _check_result(table: str, round_no: int, result: Mapping) -> list[float]:
    """``final`` of a signed result, or StandingsError saying what is wrong with it."""
    where = f"result of table {table!r} round {round_no!r}"
    if not valid_name(table):
        raise StandingsError(f"{where}: table must be {NAME_RULE}")
    if isinstance(round_no, bool) or not isinstance(round_no, int) or round_no < 1:
        raise StandingsError(f"{where}: round must be a number from 1")
    if not isinstance(result, Mapping):
        raise StandingsError(f"{where}: not a result ruling")
    final = result.get("final")
    if not isinstance(final, list) or len(final) != SEATS or \
            any(isinstance(f, bool) or not isinstance(f, (int, float)) or not math.isfinite(f)
                for f in final):
        raise StandingsError(f"{where}: final must be 4 numbers, one per seat")
    if result.get("referee_signed") is not True:
        raise StandingsError(f"{where}: not signed by the referee")
    return [float(f) for f in final]


class Standings:
    """Every signed result of the tournament, once, and the standings they give.

    ``roster``: the players (:func:`read_roster`); ``seatings``: ``{round: {table: [name by
    seat]}}`` (:func:`read_seating`); ``path``: the JSON file the counted results are kept in
    (read at once if it exists; None keeps them in memory only). Safe to call from the
    broker's thread and the page's at once.
    """

    def __init__(self, roster: Iterable[Player] = (), seatings: Mapping[int, Mapping] | None = None,
                 path: str | os.PathLike | None = None):
        self.players = list(roster)
        self.seatings = {int(r): {t: list(n) for t, n in s.items()}
                         for r, s in (seatings or {}).items()}
        self.path = Path(path) if path is not None else None
        self._lock = threading.Lock()
        self._results: dict[tuple[str, int], dict] = {}
        self.conflicts = 0
        if self.path is not None and self.path.exists():
            self._load()

    # -- results in --------------------------------------------------------------------------

    def add_result(self, table: str, round_no: int, result: dict) -> bool:
        """Count ``table``'s signed ``result`` ruling (the spec's ``result``: ``scores``,
        ``final``, ``penalties``, ``signatures``, ``referee_signed``) for round ``round_no``.

        False when that table's result for that round is counted already (a repeated or
        late delivery, before or after a restart: the first one stands; a different one is
        logged and counted in :attr:`conflicts`). A result that is not a signed result with
        four ``final`` points raises :class:`StandingsError` (a ValueError). Kept in the
        file before it counts: once this returns True, a restart still has it."""
        final = _check_result(table, round_no, result)
        kept = {k: result[k] for k in ("scores", "final", "penalties", "signatures",
                                       "referee_signed") if k in result}
        kept["final"] = final
        with self._lock:
            first = self._results.get((table, round_no))
            if first is not None:
                if first.get("final") != final:
                    self.conflicts += 1
                    log.warning("standings: table %s round %s sent another result %s; the "
                                "first, %s, stands", table, round_no, final, first["final"])
                return False
            results = dict(self._results)
            results[table, round_no] = kept
            self._save(results)
            self._results = results
        return True

    def has_result(self, table: str, round_no: int) -> bool:
        with self._lock:
            return (table, round_no) in self._results

    def set_seating(self, round_no: int, seating: Mapping[str, list[str]]) -> None:
        with self._lock:
            self.seatings[int(round_no)] = {t: list(n) for t, n in seating.items()}

    # -- the file ------------------------------------------------------------------------

    def _save(self, results: dict) -> None:
        if self.path is None:
            return
        data = {"format": FORMAT, "version": 1,
                "results": [{"table": t, "round": r, "result": res}
                            for (t, r), res in sorted(results.items(),
                                                      key=lambda kv: (kv[0][1],
                                                                      _table_order(kv[0][0])))]}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with replacing(self.path) as fh:
                fh.write(json.dumps(data, indent=1).encode("utf-8"))
                fh.flush()
                os.fsync(fh.fileno())  # a result that counted survives a power cut too
        except OSError as exc:
            raise StandingsError(f"standings file {self.path}: cannot be written "
                                 f"({exc.strerror or exc})") from None

    def _load(self) -> None:
        where = f"standings file {self.path}"
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise StandingsError(unreadable(where, exc, "JSON")) from None
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise StandingsError(f"{where}: not a standings file ({exc}); move it away to "
                                 "start afresh") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT or \
                not isinstance(data.get("results"), list):
            raise StandingsError(f"{where}: not a standings file; move it away to start afresh")
        for i, item in enumerate(data["results"], 1):
            try:
                table, round_no, result = item["table"], item["round"], item["result"]
                _check_result(table, round_no, result)
            except (TypeError, KeyError, StandingsError) as exc:
                raise StandingsError(f"{where}: result {i} is damaged ({exc})") from None
            self._results[table, round_no] = result

    # -- what they give --------------------------------------------------------------------

    def rounds(self) -> list[int]:
        with self._lock:
            return sorted(set(self.seatings) | {r for _, r in self._results})

    def missing(self, round_no: int) -> list[str]:
        """The tables seated in round ``round_no`` whose signed result has not come."""
        with self._lock:
            seating = self.seatings.get(round_no, {})
            return sorted((t for t in seating if (t, round_no) not in self._results),
                          key=_table_order)

    def unseated(self) -> list[tuple[int, str]]:
        """Results counted for a table the round's seating does not have (a seating not
        loaded yet, or a table's name spelled otherwise): ``[(round, table)]``."""
        with self._lock:
            return sorted(((r, t) for t, r in self._results
                           if t not in self.seatings.get(r, {})),
                          key=lambda rt: (rt[0], _table_order(rt[1])))

    def rows(self) -> list[dict]:
        """The standings, best first: per player ``position`` (players on the same total
        share the better one, as the EMA's results do), ``name``, ``first_name``,
        ``last_name``, ``ema``, ``country``, ``rounds`` ({round: final points}), ``games``,
        ``total`` and ``ema_base_rank`` (1000 x (players - position) / (players - 1))."""
        with self._lock:
            points: dict[str, dict[int, float]] = {p.name: {} for p in self.players}
            for (table, round_no), result in self._results.items():
                names = self.seatings.get(round_no, {}).get(table)
                if names is None:
                    continue
                for seat, name in enumerate(names):
                    if name in points:
                        points[name][round_no] = float(result["final"][seat])
            players = list(self.players)
        rows = [{"name": p.name, "first_name": p.first_name, "last_name": p.last_name,
                 "ema": p.ema, "country": p.country,
                 "rounds": dict(sorted(points[p.name].items())),
                 "games": len(points[p.name]),
                 "total": round(sum(points[p.name].values()), 1) + 0.0}
                for p in players]
        rows.sort(key=lambda r: (-r["total"], r["name"].casefold()))
        n = len(rows)
        for i, row in enumerate(rows):
            tied = i and row["total"] == rows[i - 1]["total"]
            row["position"] = rows[i - 1]["position"] if tied else i + 1
            row["ema_base_rank"] = round(1000 * (n - row["position"]) / (n - 1)) if n > 1 \
                else 1000
        return rows

    def summary(self) -> dict:
        """Everything the page and the JSON export show."""
        rounds = self.rounds()
        missing = {str(r): m for r in rounds if (m := self.missing(r))}
        with self._lock:
            counted, conflicts = len(self._results), self.conflicts
        return {"rounds": rounds, "players": self.rows(), "missing": missing,
                "unseated": [{"round": r, "table": t} for r, t in self.unseated()],
                "results": counted, "conflicts": conflicts}

    # -- exports ---------------------------------------------------------------------------

    def write_csv(self, fh: IO[str]) -> None:
        """The standings in the EMA's columns (:data:`EMA_COLUMNS`); ``fh`` opened with
        ``newline=""``."""
        writer = csv.writer(fh)
        writer.writerow(EMA_COLUMNS)
        for row in self.rows():
            writer.writerow([row["position"], row["first_name"], row["last_name"], row["ema"],
                             "", round(row["total"] * 1000), 1 if row["ema"] else 0,
                             row["country"]])

    def write_json(self, fh: IO[str]) -> None:
        json.dump(self.summary(), fh, indent=1, ensure_ascii=False)
        fh.write("\n")




def open_standings(file: str | os.PathLike | None, roster: str | os.PathLike | None = None,
                   seating: Mapping[int, str | os.PathLike] | None = None) -> Standings:
    """The standings of a hall: the ``roster`` CSV, each round's ``seating`` CSV and the
    results counted so far in ``file`` (None: in memory only). Every file is read and checked
    before any is taken: one bad file, one :class:`StandingsError` line, nothing loaded."""
    if seating and roster is None:
        raise StandingsError("a seating needs the roster to know its players: give the "
                             "roster too (--roster, or roster in [standings])")
    players = read_roster(roster) if roster is not None else []
    seatings = {r: read_seating(p, players) for r, p in sorted((seating or {}).items())}
    return Standings(players, seatings, file)


__all__ = ["Standings", "StandingsError", "Player", "read_roster", "read_seating",
           "parse_round_file", "open_standings", "EMA_COLUMNS"]
