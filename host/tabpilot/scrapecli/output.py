"""Rows out: JSON (an array), JSON Lines (one row a line) or CSV (columns in first-seen order), and
`tabpilot results export`: every row of a scrape as its journal in the data folder holds them (a result
too big to answer inline included), written as they are read, never all held at once."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO, cast

import click

from .. import paths
from ..engine import journal
from ..wire.errors import TabPilotError

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


@click.group("results")
def results_group() -> None:
    """Scrape results kept on this machine (the last runs' journals; no browser needed)."""


@results_group.command("export")
@click.argument("correlation_id")
@click.option(
    "--out", type=click.Path(dir_okay=False, path_type=Path), help="Write rows here (default: stdout)."
)
@click.option("--format", "fmt", type=click.Choice(FORMATS), help="Default: by --out suffix, else json.")
def export_command(correlation_id: str, out: Path | None, fmt: str | None) -> None:
    """Every row of scrape CORRELATION_ID, as its journal holds them (a run that stopped part way too)."""
    found = journal.load(paths.data_dir(), correlation_id)
    if found is None:
        click.echo(
            f"no rows kept for {correlation_id!r} (the last {journal.RUNS_KEPT} runs are kept)", err=True
        )
        sys.exit(1)
    columns = list(found.tally.schema())
    rows: Iterator[Any] = journal.rows_of(paths.data_dir(), correlation_id, 0, found.tally.rows)
    kind = format_for(out, fmt)
    if out is None:
        write_rows(rows, kind, sys.stdout, columns)
    else:
        with out.open("w", encoding="utf-8", newline="") as f:
            write_rows(rows, kind, f, columns)
    click.echo(f"{found.tally.rows} rows, {found.tally.pages} pages", err=True)


_target = click.option(
    "--target", "target", metavar="BROWSER", help="Instance id, label or profile when several are connected."
)
_out = click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write rows here.")
_fmt = click.option("--format", "fmt", type=click.Choice(FORMATS), help="Default: by --out suffix.")


@results_group.command("follow")
@click.argument("correlation_id")
@_out
@_fmt
@_target
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def follow_command(
    correlation_id: str, out: Path | None, fmt: str | None, target: str | None, quiet: bool
) -> None:
    """Follow scrape CORRELATION_ID, started elsewhere, to its end (a progress bar: pages, rows, time
    left), then write its rows. Ctrl-C stops following; the run goes on."""
    from . import commands, run

    with run.Bar(commands.err, enabled=not quiet and commands.err.is_terminal) as bar:
        try:
            said = (
                None
                if quiet
                else lambda: commands.err.print(
                    f"following {correlation_id} (Ctrl-C stops following; the run goes on)",
                    highlight=False,
                    soft_wrap=True,
                )
            )
            value = asyncio.run(run.follow(correlation_id, run.Target(target), bar, said))
        except run.Interrupted as stopped:
            seen = journal.as_dict(stopped.value.get("progress"))
            commands.err.print(
                f"stopped following {correlation_id} (it goes on: {seen.get('pages', 0)} pages, "
                f"{seen.get('rows', 0)} rows so far)",
                highlight=False,
                soft_wrap=True,
            )
            sys.exit(commands.EXIT_INTERRUPTED)
        except TabPilotError as exc:
            raise commands.fail(exc) from exc
    commands.finish(value, out, fmt, quiet=quiet)


@results_group.command("cancel")
@click.argument("correlation_id")
@_out
@_fmt
@_target
def cancel_command(correlation_id: str, out: Path | None, fmt: str | None, target: str | None) -> None:
    """Stop scrape CORRELATION_ID, running in the browser, and write every row it had read."""
    from . import commands, run

    try:
        value = asyncio.run(run.cancel(correlation_id, run.Target(target)))
    except TabPilotError as exc:
        raise commands.fail(exc) from exc
    commands.finish(value, out, fmt, quiet=False, cancelled_ok=True)
