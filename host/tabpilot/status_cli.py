"""`tabpilot status`: the browsers connected right now, whether AI Web Pilot is on in each, and the
sites it may act on (as far as the extension reports them)."""

from __future__ import annotations

import asyncio
import json
from typing import Any, cast

import click
import msgspec

from .wire.errors import TabPilotError


async def _browsers() -> list[dict[str, Any]]:
    from .bridge.hosts import HostPool

    pool = HostPool()
    try:
        infos = await pool.browsers()
    finally:
        await pool.aclose()
    return [cast(dict[str, Any], msgspec.to_builtins(info)) for info in infos]


def _line(b: dict[str, Any]) -> str:
    pilot = "on" if b.get("pilot") else "off"
    name = " ".join(str(b.get(k) or "") for k in ("browser_name", "browser_version")).strip() or "browser"
    text = f"{b['instance_id']}  {b.get('label') or '-'}  {name}  pilot {pilot}"
    sites = b.get("sites")
    if isinstance(sites, list):
        text += "  sites: " + (", ".join(str(s) for s in cast(list[Any], sites)) or "all")
    return text


@click.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(as_json: bool) -> None:
    """The browsers connected to TabPilot now, and whether AI Web Pilot is on in each."""
    try:
        found = asyncio.run(_browsers())
    except TabPilotError as exc:
        raise click.ClickException(f"[{exc.code}] {exc.message}") from exc
    if as_json:
        click.echo(json.dumps({"connected": bool(found), "browsers": found}, indent=2))
        return
    if not found:
        click.echo(
            "No browser is connected. Open your browser with the TabPilot extension loaded "
            "(`tabpilot extension path`), or run: tabpilot browser launch --detach"
        )
        return
    for b in found:
        click.echo(_line(b))
    if not any(b.get("pilot") for b in found):
        click.echo("AI Web Pilot is off everywhere: switch it on in the extension's popup.")
