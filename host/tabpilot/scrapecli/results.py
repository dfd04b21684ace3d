"""`tabpilot results`: scrapes kept on this machine and runs going on in the browser. `export` writes
every row a run's journal in the data folder holds (no browser needed); `follow` shows a run started
elsewhere (another terminal, an agent) on a progress bar to its end, then writes its rows; `cancel`
stops one and writes every row it had read."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from .. import paths
from ..engine import journal
from ..wire.errors import ErrorCode, TabPilotError
from . import output
from .commands import EXIT_INTERRUPTED, err, fail, finish
from .run import Bar, Interrupted, Target, cancel, follow


@click.group("results")
def results_group() -> None:
    """Scrape results kept on this machine (export: no browser needed), and runs going on (follow,
    cancel)."""


@results_group.command("export")
@click.argument("correlation_id")
@click.option(
    "--out", type=click.Path(dir_okay=False, path_type=Path), help="Write rows here (default: stdout)."
)
@click.option(
    "--format", "fmt", type=click.Choice(output.FORMATS), help="Default: by --out suffix, else json."
)
def export_command(correlation_id: str, out: Path | None, fmt: str | None) -> None:
    """Every row of scrape CORRELATION_ID, as its journal holds them (a run that stopped part way too)."""
    found = journal.load(paths.data_dir(), correlation_id)
    if found is None:
        raise TabPilotError(
            ErrorCode.WORKFLOW_NOT_FOUND,
            f"no rows kept for {correlation_id!r} (the last {journal.RUNS_KEPT} runs are kept); "
            "`tabpilot results follow` reads a run still going on",
        )
    columns = list(found.tally.schema())
    rows: Iterator[Any] = journal.rows_of(paths.data_dir(), correlation_id, 0, found.tally.rows)
    kind = output.format_for(out, fmt)
    if out is None:
        output.write_rows(rows, kind, sys.stdout, columns)
    else:
        with out.open("w", encoding="utf-8", newline="") as f:
            output.write_rows(rows, kind, f, columns)
    click.echo(f"{found.tally.rows} rows, {found.tally.pages} pages", err=True)


_target = click.option(
    "--target", "target", metavar="BROWSER", help="Instance id, label or profile when several are connected."
)
_out = click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write rows here.")
_fmt = click.option("--format", "fmt", type=click.Choice(output.FORMATS), help="Default: by --out suffix.")


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
    with Bar(err, enabled=not quiet and err.is_terminal) as bar:
        try:
            said = (
                None
                if quiet
                else lambda: err.print(
                    f"following {correlation_id} (Ctrl-C stops following; the run goes on)",
                    highlight=False,
                    soft_wrap=True,
                )
            )
            value = asyncio.run(follow(correlation_id, Target(target), bar, said))
        except Interrupted as stopped:
            seen = journal.as_dict(stopped.value.get("progress"))
            err.print(
                f"stopped following {correlation_id} (it goes on: {seen.get('pages', 0)} pages, "
                f"{seen.get('rows', 0)} rows so far)",
                highlight=False,
                soft_wrap=True,
            )
            sys.exit(EXIT_INTERRUPTED)
        except TabPilotError as exc:
            raise fail(exc) from exc
    finish(value, out, fmt, quiet=quiet)


@results_group.command("cancel")
@click.argument("correlation_id")
@_out
@_fmt
@_target
def cancel_command(correlation_id: str, out: Path | None, fmt: str | None, target: str | None) -> None:
    """Stop scrape CORRELATION_ID, running in the browser, and write every row it had read."""
    try:
        value = asyncio.run(cancel(correlation_id, Target(target)))
    except TabPilotError as exc:
        raise fail(exc) from exc
    finish(value, out, fmt, quiet=False, cancelled_ok=True)
