"""Rows out: JSON (an array), JSON Lines (one row a line) or CSV (columns in first-seen order)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any, TextIO

FORMATS = ("json", "jsonl", "csv")


def format_for(path: Path | None, given: str | None) -> str:
    """The format asked for, else the one the file name says, else json."""
    if given:
        return given
    suffix = path.suffix.lower().lstrip(".") if path else ""
    return suffix if suffix in FORMATS else "json"


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return repr(value) if isinstance(value, float) else str(value)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def write_rows(rows: list[Any], fmt: str, out: TextIO) -> None:
    """Write rows in `fmt` to `out`."""
    if fmt == "jsonl":
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n")
    elif fmt == "csv":
        columns: dict[str, None] = {}
        for row in rows:
            if isinstance(row, dict):
                columns.update(dict.fromkeys(str(k) for k in row))  # pyright: ignore[reportUnknownArgumentType, reportUnknownVariableType]
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            fields: dict[str, Any] = row if isinstance(row, dict) else {}  # pyright: ignore[reportUnknownVariableType]
            writer.writerow([_cell(fields.get(c)) for c in columns])
    else:
        out.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")


def render(rows: list[Any], fmt: str) -> str:
    """Rows as text in `fmt`."""
    buffer = io.StringIO()
    write_rows(rows, fmt, buffer)
    return buffer.getvalue()
