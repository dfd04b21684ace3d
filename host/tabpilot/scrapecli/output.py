"""Rows out: JSON (an array), JSON Lines (one row a line) or CSV (columns in first-seen order); every
row of a scrape, the ones its journal in the data folder holds too (a result too big to answer inline),
written as they are read, never all held at once."""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO, cast

from .. import paths
from ..engine import journal

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


def write_rows(rows: Iterable[Any], fmt: str, out: TextIO, columns: list[str] | None = None) -> None:
    """Write rows in `fmt` to `out` (CSV: `columns`, else every field in first-seen order, which needs
    the rows in memory first)."""
    if fmt == "jsonl":
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n")
    elif fmt == "csv":
        if columns is None:
            rows = list(rows)
            found: dict[str, None] = {}
            for row in rows:
                if isinstance(row, dict):
                    found.update(dict.fromkeys(str(k) for k in cast(dict[str, Any], row)))
            columns = list(found)
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            fields = cast(dict[str, Any], row) if isinstance(row, dict) else {}
            writer.writerow([_cell(fields.get(c)) for c in columns])
    else:
        out.write("[")
        for n, row in enumerate(rows):
            out.write(("," if n else "") + "\n  " + json.dumps(row, ensure_ascii=False))
        out.write("\n]\n")


def result_rows(value: dict[str, Any]) -> tuple[Iterable[Any], list[str] | None]:
    """Every row of a scrape's answer: its data, or, when it handed them over by reference
    (`result`), the run's journal read from the data folder; with the columns the handle names."""
    handle = value.get("result")
    cid = value.get("correlation_id")
    if not isinstance(handle, dict) or not isinstance(cid, str):
        return cast(list[Any], value.get("data") or []), None
    schema = cast(dict[str, Any], handle).get("schema")
    columns = list(cast(dict[str, Any], schema)) if isinstance(schema, dict) else None
    return journal.rows_of(paths.data_dir(), cid, 0, sys.maxsize), columns


def render(rows: list[Any], fmt: str) -> str:
    """Rows as text in `fmt`."""
    buffer = io.StringIO()
    write_rows(rows, fmt, buffer)
    return buffer.getvalue()


def write_result(value: dict[str, Any], fmt: str, out: Path | None) -> None:
    """A scrape answer's rows, all of them, to `out` (stdout when None)."""
    rows, columns = result_rows(value)
    if out is None:
        write_rows(rows, fmt, sys.stdout, columns)
        return
    with out.open("w", encoding="utf-8", newline="") as f:
        write_rows(rows, fmt, f, columns)
