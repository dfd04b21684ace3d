"""`tabpilot demo`: the whole path on a bundled site, with nothing of yours touched.

It serves a small site on 127.0.0.1, starts a dedicated headless browser profile with the pilot
switched on (the person running the demo opts that profile in), and then acts as an MCP client:
it spawns `tabpilot mcp` over stdio and reads the site through bridge -> socket -> host -> extension.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import click

from .server import serve

# Reads the sprint table of the demo site; the scrape engine replaces this with one `scrape` call.
_READ_TABLE = """
const rows = [...document.querySelectorAll('table.report tbody tr')];
return rows.map(r => ({
  key: r.querySelector('.key').textContent,
  summary: r.querySelector('.summary').textContent,
  status: r.querySelector('.status').textContent,
  assignee: r.querySelector('.assignee').textContent,
  points: Number(r.querySelector('.points').textContent),
}));
"""


def _mcp_command() -> tuple[str, list[str]]:
    script = Path(sys.executable).with_name("tabpilot")
    if script.exists():
        return str(script), ["mcp"]
    return sys.executable, ["-m", "tabpilot.cli", "mcp"]


async def _drive(url: str, profile: str) -> dict[str, Any]:
    from mcp import Client, StdioServerParameters

    command, args = _mcp_command()
    env = {k: v for k, v in os.environ.items() if k.startswith("TABPILOT_")}
    params = StdioServerParameters(command=command, args=args, env=env)
    async with Client(params, read_timeout_seconds=60) as client:

        async def call(tool: str, **arguments: Any) -> Any:
            result = await client.call_tool(tool, {**arguments, "browser": profile})
            data = result.structured_content
            if result.is_error:
                raise click.ClickException(f"{tool} {arguments.get('action', '')} failed: {json.dumps(data)}")
            return data

        started = time.perf_counter()
        page = await call("interact", action="navigate", url=f"{url}/index.html")
        rows = await call("interact", action="execute_js", script=_READ_TABLE)
        return {
            "page": {"url": page["url"], "title": page["title"]},
            "rows": rows["result"],
            "calls": 2,
            "ms": round((time.perf_counter() - started) * 1000, 1),
        }


@click.command()
@click.option("--profile", default="demo", show_default=True, help="Dedicated profile to use.")
@click.option("--keep", is_flag=True, help="Leave the browser running afterwards.")
def command(profile: str, keep: bool) -> None:
    """Read the bundled demo site through a dedicated headless profile, via the real MCP path."""
    from ..browser.launch import launch_profile

    with serve() as url:
        click.echo(f"demo: site on {url}; starting the dedicated headless profile {profile!r}", err=True)
        launched = launch_profile(profile, headless=True, pilot=True)
        try:
            click.echo(
                f"demo: browser pid {launched.pid} connected; calling tools through `tabpilot mcp`", err=True
            )
            outcome = asyncio.run(_drive(url, profile))
        finally:
            if not keep:
                launched.stop()
    click.echo(json.dumps(outcome, indent=2))
    click.echo(
        f"demo: {len(outcome['rows'])} rows from {outcome['page']['title']!r} "
        f"in {outcome['calls']} MCP calls ({outcome['ms']} ms)",
        err=True,
    )
