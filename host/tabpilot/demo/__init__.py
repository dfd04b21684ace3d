"""`tabpilot demo`: a recorded scrape on a bundled site, with nothing of yours touched.

It serves a small site on 127.0.0.1 (a login, a backlog in three linked pages, a sprint board redrawn
in place by its Next button), starts a dedicated headless browser profile with the pilot switched on
(the person running the demo opts that profile in), and then acts as an MCP client: it spawns
`tabpilot mcp` over stdio, records a workflow (sign in, page through both tables, extract) and replays
it by its id, through bridge -> socket -> host engine -> extension -> page.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any, cast

import click

from .. import paths
from ..wire.errors import ErrorCode, TabPilotError
from .server import DEMO_PASSWORD, DEMO_USER, serve_site

_ISSUE = {
    "key": "td.key",
    "summary": "td.summary",
    "status": "td.status",
    "assignee": "td.assignee",
    "points": "td.points | number",
}


def workflow(url: str) -> list[dict[str, Any]]:
    """The demo's steps: sign in, then the linked backlog pages, then the in-place sprint board (both
    extracts use one schema, so their rows make one list)."""
    return [
        {"type": "navigate", "url": f"{url}/login.html?next=/private/backlog-1.html"},
        {"type": "fill", "selector": "input[name=username]", "value": DEMO_USER},
        # A secret comes in as a parameter: the recorded workflow keeps the placeholder, never the value.
        {"type": "fill", "selector": "input[name=password]", "value": "{{params.password}}"},
        {"type": "click", "selector": "form.login button[type=submit]"},
        {"type": "wait", "selector": "table.backlog"},
        {
            "type": "extract",
            "selector": "table.backlog tbody tr",
            "schema": _ISSUE,
            "paginate": {"next_selector": "a.next", "max_pages": 10, "delay_ms": 0},
        },
        {"type": "navigate", "url": f"{url}/private/sprint.html"},
        {
            "type": "extract",
            "selector": "table.sprint tbody tr",
            "schema": _ISSUE,
            "paginate": {"next_selector": "#next", "max_pages": 10, "delay_ms": 0},
        },
    ]


_PREVIEW_ROWS = 5


def _prog() -> str:
    """How the person runs `tabpilot`: the bare name when it is on PATH, else the script's path."""
    script = Path(sys.executable).with_name("tabpilot")
    found = shutil.which("tabpilot")
    if found and Path(found).resolve() == script.resolve():
        return "tabpilot"
    return str(script) if script.exists() else f"{sys.executable} -m tabpilot.cli"


def summary_line(outcome: dict[str, Any]) -> str:
    """One line: what the demo did and how long the recorded and the replayed call took."""
    rec, rep = outcome["recorded"], outcome["replayed"]
    return (
        f"demo: {outcome['workflow_id']}: signed in, {rep['pages_scraped']} pages, "
        f"{len(outcome['rows'])} rows; recorded in {rec['call_ms']} ms, replayed in {rep['call_ms']} ms "
        f"(engine {rep['engine_ms']} ms) with one MCP call each"
    )


def report(outcome: dict[str, Any], prog: str) -> str:
    """What a person reads at the end: the summary, a few rows, and what to do next."""
    rows: list[dict[str, Any]] = outcome["rows"]
    lines = [summary_line(outcome), ""]
    for row in rows[:_PREVIEW_ROWS]:
        lines.append("  " + "  ".join(str(v) for v in row.values()))
    if len(rows) > _PREVIEW_ROWS:
        lines.append(f"  … {len(rows) - _PREVIEW_ROWS} more rows (`{prog} demo --json` prints them all)")
    lines += [
        "",
        "Next, use TabPilot with your own browser:",
        f"  1. {prog} install                      register the native host with your browsers",
        f"  2. {prog} extension path               load that folder: chrome://extensions, Developer mode,"
        " Load unpacked",
        f"  3. {prog} install --mcp-client NAME    claude-code, claude-desktop, cursor or vscode",
        "  4. switch on AI Web Pilot in the extension's popup, then ask your agent to read a page",
        f"  `{prog} status` shows what is connected; `{prog} doctor` checks every link.",
    ]
    return "\n".join(lines)


def _mcp_command() -> tuple[str, list[str]]:
    script = Path(sys.executable).with_name("tabpilot")
    if script.exists():
        return str(script), ["mcp"]
    return sys.executable, ["-m", "tabpilot.cli", "mcp"]


def _summary(result: dict[str, Any], ms: float) -> dict[str, Any]:
    meta = result.get("metadata", {})
    return {
        "status": result["status"],
        "steps_completed": result.get("steps_completed"),
        "pages_scraped": meta.get("pages_scraped"),
        "rows_extracted": meta.get("rows_extracted"),
        "engine_ms": meta.get("duration_ms"),
        "call_ms": round(ms, 1),
    }


async def _drive(url: str, profile: str) -> dict[str, Any]:
    from mcp import Client, StdioServerParameters

    command, args = _mcp_command()
    # The client passes the server HOME and PATH only: name TabPilot's folders as this process found
    # them (the profile's host listens in this runtime dir), or the server would look elsewhere.
    env = {k: v for k, v in os.environ.items() if k.startswith("TABPILOT_")}
    env |= {paths.ENV_RUNTIME: str(paths.runtime_dir()), paths.ENV_STATE: str(paths.state_dir())}
    env[paths.ENV_DATA] = str(paths.data_dir())
    params = StdioServerParameters(command=command, args=args, env=env)
    async with Client(params, read_timeout_seconds=120) as client:

        async def call(tool: str, **arguments: Any) -> Any:
            result = await client.call_tool(tool, {**arguments, "browser": profile})
            data = result.structured_content
            if result.is_error:
                # The tool's own code and message (its fix included), then what the demo was doing.
                said = cast(dict[str, Any], data) if isinstance(data, dict) else {}
                code = str(said.get("error") or ErrorCode.INTERNAL_ERROR)
                doing = f"{tool} {arguments.get('action', '')}".strip()
                raise TabPilotError(code, f"{said.get('message') or json.dumps(data)} (the demo's {doing})")
            return data

        async def timed(**arguments: Any) -> tuple[dict[str, Any], float]:
            started = time.perf_counter()
            out = await call("interact", action="scrape", **arguments)
            return out, (time.perf_counter() - started) * 1000

        secret = {"password": DEMO_PASSWORD}
        # The report gives the pages and the engine's time: the run's account, asked for with telemetry.
        recorded, record_ms = await timed(
            operation="workflow",
            name="acme_issues",
            record=True,
            steps=workflow(url),
            params=secret,
            options={"delay_ms": 0, "telemetry": True},
        )
        # Signed out again: the replay has to sign in by itself, as a cron job next morning would.
        await call("interact", action="navigate", url=f"{url}/logout")
        replayed, replay_ms = await timed(
            operation="replay",
            workflow_id=recorded["workflow_id"],
            params=secret,
            options={"telemetry": True},
        )
        return {
            "workflow_id": recorded["workflow_id"],
            "recorded": _summary(recorded, record_ms),
            "replayed": _summary(replayed, replay_ms),
            "rows": replayed["data"],  # the backlog's rows, then the sprint board's: one schema
        }


def _leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup):
        inner: tuple[BaseException, ...] = cast(BaseExceptionGroup[BaseException], exc).exceptions
        exc = inner[0]
    return exc


@click.command()
@click.option("--profile", default="demo", show_default=True, help="Dedicated profile to use.")
@click.option("--keep", is_flag=True, help="Leave the browser running afterwards.")
@click.option("--json", "as_json", is_flag=True, help="Print the whole outcome (every row) as JSON.")
def command(profile: str, keep: bool, as_json: bool) -> None:
    """Record and replay a scrape of the bundled demo site in a dedicated headless profile, via MCP."""
    from ..browser.launch import launch_profile

    with serve_site() as site:
        click.echo(f"demo: site on {site.url}; starting the dedicated headless profile {profile!r}", err=True)
        launched = launch_profile(profile, headless=True, pilot=True)
        try:
            click.echo(
                f"demo: browser pid {launched.pid} connected; recording a workflow through `tabpilot mcp`",
                err=True,
            )
            try:
                outcome = asyncio.run(_drive(site.url, profile))
            except BaseExceptionGroup as group:
                # The MCP client's task group wraps what a call raised: tell the call's own error.
                failed = group.subgroup(TabPilotError)
                if failed is None:
                    raise
                raise _leaf(failed) from None
        finally:
            if not keep:
                launched.stop()
    if as_json:
        click.echo(json.dumps(outcome, indent=2))
        click.echo(summary_line(outcome), err=True)
        return
    click.echo(report(outcome, _prog()))
