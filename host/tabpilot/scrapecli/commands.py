"""The click commands: `tabpilot scrape FILE.json`, `tabpilot replay ID`, `tabpilot workflows ...`.

A scrape file holds the same JSON as the MCP call's arguments, e.g.
`{"operation": "extract", "selector": "table tr", "schema": {"name": "td:nth-child(1)"}}` or a
workflow `{"operation": "workflow", "name": "daily", "record": true, "steps": [...]}`. Rows go to
stdout or `--out` (json, jsonl or csv by its suffix); progress and errors go to stderr. The exit
status is 0 when the scrape completed, 1 when it failed, 130 after Ctrl-C (in both, the rows read so
far are still written). A result
that may be short of the whole list (status partial: a walk stopped with no proof of the list's end)
exits 0 and says on stderr why, and which option would read on.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Generator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .. import paths
from ..link import localsock
from ..wire.errors import TabPilotError
from ..wire.scrape import ReplayRequest, ScrapeRequest, parse_request
from . import output, workflowfiles
from .run import Bar, Interrupted, Target, describe_error, scrape, workflow_op

_err = Console(stderr=True)
err = _err  # the `results` commands (output.py) write here too, and fail as these do
# Ctrl-C: what shells report for a command ended by SIGINT (128 + 2), rows kept or not.
EXIT_INTERRUPTED = 130


# The engine speaks to the agent; here the same advice in the words of this command line.
_CLI_WORDS = (
    ("override_params: ", "--override "),
    ('observe {what: "workflows"}', "`tabpilot workflows list`"),
    ("operation replay needs workflow_id", "replay needs a WORKFLOW_ID"),
)


def cli_words(message: str, data: Any = None) -> str:
    """An engine message in the words of this command line (`--param KEY=…`, not `params`)."""
    missing: Any = cast(dict[str, Any], data).get("missing_params") if isinstance(data, dict) else None
    if isinstance(missing, list) and missing:
        wanted = " ".join(f"--param {k}=…" for k in cast(list[Any], missing))
        return f"this workflow needs {wanted} (secrets are never stored)"
    for mcp, cli in _CLI_WORDS:
        message = message.replace(mcp, cli)
    return message


def partial_words(meta: dict[str, Any]) -> str:
    """Why a result is partial, and the option that would read on, in one line."""
    why: Any = meta.get("partial_because")
    if not isinstance(why, dict):
        return "the list may go on"
    found = cast(dict[str, Any], why)
    line = f"{found.get('reason')}: {found.get('detail')}"
    hint: Any = found.get("hint")
    if isinstance(hint, dict):
        h = cast(dict[str, Any], hint)
        value = "…" if h.get("value") is None else json.dumps(h.get("value"))
        line += f" (to read on: {h.get('option')}={value}, {h.get('why')})"
    return line


def _fail(exc: TabPilotError) -> TabPilotError:
    return TabPilotError(exc.code, cli_words(exc.message, exc.data), data=exc.data)


fail = _fail


def _pairs(values: tuple[str, ...], what: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"{item!r}: expected KEY=VALUE", param_hint=what)
        try:
            out[key] = json.loads(value) if what == "--override" else value
        except json.JSONDecodeError:
            out[key] = value
    return out


def _connected(instance: str) -> bool:
    if not localsock.socket_path(paths.runtime_dir(), instance).exists():
        return False
    try:
        asyncio.run(workflow_op(Target(instance), "info"))
    except TabPilotError:
        return False
    return True


@contextmanager
def _browser(profile: str | None, headless: bool, pilot: bool) -> Generator[Target]:
    """The connected browser, or the dedicated profile (started here, and stopped after, if not running)."""
    if profile is None:
        yield Target()
        return
    from ..browser import profile as profiles
    from ..browser import registry
    from ..browser.launch import launch_profile

    instance = profiles.instance_id(registry.locate(profiles.check_name(profile)))
    launched = None
    if not _connected(instance):
        _err.print(f"starting profile {profile!r}{' headless' if headless else ''}")
        try:
            # Without --pilot the profile keeps its last choice: only a person's flag opts it in.
            launched = launch_profile(profile, headless=headless, pilot=True if pilot else None)
        except TabPilotError as exc:
            raise _fail(exc) from exc
    try:
        yield Target(instance)
    finally:
        if launched is not None:
            launched.stop()


_profile = click.option("--profile", help="Run in this dedicated profile (started if not running).")
_headless = click.option("--headless", is_flag=True, help="Start that profile without a window.")
_pilot = click.option(
    "--pilot", is_flag=True, help="Switch AI Web Pilot on in a profile started here (you opt it in)."
)
# `--browser` names a browser kind in install and doctor; here it is a running instance: --target.
_target = click.option(
    "--target", "target", metavar="BROWSER", help="Instance id, label or profile when several are connected."
)
_browser_alias = click.option("--browser", "browser_alias", hidden=True)
_out = click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write rows here.")
_fmt = click.option("--format", "fmt", type=click.Choice(output.FORMATS), help="Default: by --out suffix.")
_full = click.option("--full", is_flag=True, help="Write the whole result (status, metadata) as JSON.")
_quiet = click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
_param = click.option("--param", "params", multiple=True, help="KEY=VALUE for {{params.KEY}} (repeatable).")


def _run(
    request: ScrapeRequest, target: Target, out: Path | None, fmt: str | None, full: bool, quiet: bool
) -> None:
    interrupted = False
    with Bar(_err, enabled=not quiet and _err.is_terminal) as bar:
        try:
            value = asyncio.run(scrape(request, target, bar))
        except Interrupted as stopped:
            value, interrupted = stopped.value, True
        except TabPilotError as exc:
            raise _fail(exc) from exc
    finish(value, out, fmt, quiet=quiet, full=full, interrupted=interrupted)


def finish(
    value: dict[str, Any],
    out: Path | None,
    fmt: str | None,
    *,
    quiet: bool,
    full: bool = False,
    interrupted: bool = False,
    cancelled_ok: bool = False,
) -> None:
    """Write a scrape's rows and say on stderr how it ended: exit 1 when it failed (or was cancelled,
    unless that was asked for: `cancelled_ok`), 130 after Ctrl-C."""
    _write(value, out, fmt, full)
    meta: dict[str, Any] = value.get("metadata") or {}
    rows, pages, ms = (meta.get(k, 0) for k in ("rows_extracted", "pages_scraped", "duration_ms"))
    summary = f"{rows} rows, {pages} pages, {ms} ms"
    if value.get("workflow_id"):
        summary += f", workflow {value['workflow_id']}"
    if meta.get("truncated"):
        summary += " (truncated: raise options.max_bytes)"
    cid = value.get("correlation_id")
    onward = f'; to go on from there, add "resume": "{cid}" to the request' if cid else ""
    kept = f"written to {out}" if out else "written above"
    if interrupted or (cancelled_ok and value.get("status") == "cancelled"):
        said = "interrupted" if interrupted else "cancelled"
        _err.print(
            f"[yellow]{said}[/]: the rows read so far are kept ({kept}); {summary}{onward}",
            highlight=False,
            soft_wrap=True,  # one line, the id whole: it is copied from here
        )
        if interrupted:
            sys.exit(EXIT_INTERRUPTED)
        return
    if value.get("status") == "partial":
        _err.print(f"[yellow]partial[/]: {escape(partial_words(meta))}; {summary}", highlight=False)
        return
    if value.get("status") != "complete":
        reason = cli_words(describe_error(value), value)
        _err.print(f"[red]Error:[/] {escape(reason)}; {summary}", highlight=False)
        sys.exit(1)
    if not quiet:
        _err.print(summary, highlight=False)


def _write(value: dict[str, Any], out: Path | None, fmt: str | None, full: bool) -> None:
    kind = output.format_for(out, fmt)
    if not full:
        output.write_result(value, kind, out)  # every row, the ones a big result hands over by reference too
    elif out is None:
        sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=2) + "\n")
    else:
        out.write_text(json.dumps(value, ensure_ascii=False, indent=2) + "\n")


@click.command("scrape")
@click.argument("file", type=click.File("r"))
@_param
@_out
@_fmt
@_full
@_target
@_browser_alias
@_profile
@_headless
@_pilot
@_quiet
def scrape_command(
    file: Any, params: tuple[str, ...], out: Path | None, fmt: str | None, full: bool, target: str | None,
    browser_alias: str | None, profile: str | None, headless: bool, pilot: bool, quiet: bool,
) -> None:  # fmt: skip
    """Run a scrape request from FILE (JSON: extract or workflow; - for stdin)."""
    try:
        loaded: Any = json.load(file)
    except json.JSONDecodeError as exc:
        raise click.BadParameter(f"not JSON: {exc}", param_hint="FILE") from exc
    if not isinstance(loaded, dict):
        raise click.BadParameter("expected a JSON object", param_hint="FILE")
    request = {str(k): v for k, v in cast(dict[str, Any], loaded).items() if k != "action"}
    if params:
        request["params"] = {**request.get("params", {}), **_pairs(params, "--param")}
    try:
        typed = parse_request(request)  # checked before a browser is started for it
    except TabPilotError as exc:
        raise _fail(exc) from exc
    with _browser(profile, headless, pilot) as chosen:
        chosen.browser = target or browser_alias or chosen.browser
        _run(typed, chosen, out, fmt, full, quiet)


@click.command("replay")
@click.argument("workflow_id")
@_param
@click.option(
    "--override", "overrides", multiple=True, help="PATH=VALUE, e.g. steps[0].url=https://... (repeatable)."
)
@click.option("--allow-domain-change", is_flag=True, help="Allow a URL on another domain than recorded.")
@_out
@_fmt
@_full
@_target
@_browser_alias
@_profile
@_headless
@_pilot
@_quiet
def replay_command(
    workflow_id: str, params: tuple[str, ...], overrides: tuple[str, ...], allow_domain_change: bool,
    out: Path | None, fmt: str | None, full: bool, target: str | None, browser_alias: str | None,
    profile: str | None, headless: bool, pilot: bool, quiet: bool,
) -> None:  # fmt: skip
    """Replay a recorded workflow (see `tabpilot workflows list`)."""
    try:
        # The store is this user's files: a wrong id is told now, before any browser is started.
        workflowfiles.store().get(workflow_id, touch=False)
    except TabPilotError as exc:
        raise _fail(exc) from exc
    request = ReplayRequest(
        workflow_id=workflow_id,
        params=_pairs(params, "--param") if params else None,
        override_params=_pairs(overrides, "--override") if overrides else None,
        allow_domain_change=allow_domain_change,
    )
    with _browser(profile, headless, pilot) as chosen:
        chosen.browser = target or browser_alias or chosen.browser
        _run(request, chosen, out, fmt, full, quiet)


@click.group("workflows")
def workflows_group() -> None:
    """Recorded workflows: list, export, import, delete (files on this machine; no browser needed)."""


# Reading the store needs no browser and no pilot: the person at this machine reads their own files
# (the agent's way, through the host, stops while the pilot is off). `--browser` is accepted for
# scripts written when these asked a host; workflows are stored per user, not per browser.
_ignored_browser = click.option("--browser", "_browser", hidden=True)


@workflows_group.command("list")
@_ignored_browser
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_command(_browser: str | None, as_json: bool) -> None:
    """The recorded workflows, most recently used first."""
    try:
        found = workflowfiles.summaries(workflowfiles.store())
    except TabPilotError as exc:
        raise _fail(exc) from exc
    if as_json:
        click.echo(json.dumps(found, indent=2))
        return
    if not found:
        click.echo("No recorded workflow yet: a scrape with record: true and a name stores one.", err=True)
        return
    table = Table("workflow_id", "domains", "steps", "needs params", box=None)
    for w in found:
        table.add_row(
            w["workflow_id"], ", ".join(w["domains"]), str(w["steps"]), ", ".join(w["required_params"])
        )
    Console().print(table)


@workflows_group.command("export")
@click.argument("workflow_id")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@_ignored_browser
def export_command(workflow_id: str, path: Path, _browser: str | None) -> None:
    """Write a recorded workflow to a JSON file (owner-readable only)."""
    try:
        click.echo(str(workflowfiles.export(workflowfiles.store(), workflow_id, path)))
    except TabPilotError as exc:
        raise _fail(exc) from exc


@workflows_group.command("import")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@_ignored_browser
def import_command(path: Path, _browser: str | None) -> None:
    """Store a workflow from a JSON file (checked like any request)."""
    try:
        click.echo(workflowfiles.import_file(workflowfiles.store(), path))
    except TabPilotError as exc:
        raise _fail(exc) from exc


@workflows_group.command("delete")
@click.argument("workflow_id")
@_ignored_browser
def delete_command(workflow_id: str, _browser: str | None) -> None:
    """Remove a recorded workflow."""
    try:
        workflowfiles.store().delete(workflow_id)
    except TabPilotError as exc:
        raise _fail(exc) from exc
    click.echo(f"deleted {workflow_id}")
