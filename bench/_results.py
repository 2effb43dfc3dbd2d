"""Where every benchmark writes its figures: ``bench/results/NAME.json`` (git-ignored)."""
from __future__ import annotations

import json
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def write_results(name: str, result: dict, out: Path | None = None) -> Path:
    """Write ``result`` as JSON to ``out`` (default ``bench/results/NAME.json``) and say where."""
    out = Path(out) if out is not None else RESULTS / f"{name}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out}")
    return out
