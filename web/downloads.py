"""The game as files: table events as JSON Lines (the spec's format), rulings as CSV."""
from __future__ import annotations

import csv
import io
import json

from flask import Blueprint, Response, current_app

from referee.events import dumps

bp = Blueprint("downloads", __name__, url_prefix="/download")

#: Columns of rulings.csv: the spec's ruling keys, lists as JSON, plus what the referee did.
CSV_COLUMNS = ("ruling_id", "t", "type", "seat", "kind", "penalty", "rule", "text",
               "discard_seat", "tile", "winners", "rejected", "window",
               "from", "han", "fu", "yaku", "points", "payments",
               "result", "reason", "scores", "final", "referee")


def _attachment(body: str, mimetype: str, filename: str) -> Response:
    return Response(body, mimetype=mimetype, headers={
        "Content-Disposition": f'attachment; filename="{filename}"',
        "Cache-Control": "no-store",
    })


@bp.get("/events.jsonl")
def events_jsonl():
    events = current_app.extensions["riichi"].table.events()
    body = "".join(dumps(e) + "\n" for e in events)
    return _attachment(body, "application/x-ndjson", "table-events.jsonl")


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, dict)):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _safe(column: str, cell: str) -> str:
    # Free text opened in a spreadsheet must not run as a formula.
    if column in ("text", "rule", "referee", "reason") and cell[:1] in ("=", "+", "-", "@"):
        return "'" + cell
    return cell


def referee_decisions(events: list[dict]) -> dict[str, list[str]]:
    """ruling_id -> what the referee did about it (override, penalty, note), in order."""
    out: dict[str, list[str]] = {}
    for e in events:
        if e.get("type") == "referee" and e.get("ruling_id") is not None:
            out.setdefault(str(e["ruling_id"]), []).append(f"{e.get('action')}: {e.get('text', '')}")
    return out


@bp.get("/rulings.csv")
def rulings_csv():
    table = current_app.extensions["riichi"].table
    decisions = referee_decisions(table.events())
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for ruling in table.rulings():
        row = dict(ruling)
        row["referee"] = "; ".join(decisions.get(str(ruling.get("ruling_id")), []))
        writer.writerow([_safe(col, _cell(row.get(col))) for col in CSV_COLUMNS])
    return _attachment(buf.getvalue(), "text/csv", "rulings.csv")
