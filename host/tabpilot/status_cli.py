"""`tabpilot status`: the browsers connected right now, whether AI Web Pilot is on in each, and the
sites it may act on (as far as the extension reports them)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any, cast

import click
import msgspec

from .wire.errors import TabPilotError

_STATUS_TIMEOUT_S = 2.0


async def _browsers() -> list[dict[str, Any]]:
    from .link.client import BrowserPool
    from .wire.messages import GetStatus

    pool = BrowserPool()
    found: list[dict[str, Any]] = []
    try:
        for info in await pool.browsers():
            seen = cast(dict[str, Any], msgspec.to_builtins(info))
            live: dict[str, Any] = {}
            # The extension owns the pilot flag and the sites: ask it rather than trust the hello.
            with contextlib.suppress(TabPilotError):
                live = await pool.call(GetStatus(id=0), browser=info.instance_id, timeout_s=_STATUS_TIMEOUT_S)
            if "pilot" in live:
                seen["pilot"] = bool(live["pilot"])
            if "sites" in live:
                seen["sites"] = live["sites"]
            found.append(seen)
    finally:
        await pool.aclose()
    return found


def _line(b: dict[str, Any]) -> str:
    pilot = "on" if b.get("pilot") else "off"
    name = " ".join(str(b.get(k) or "") for k in ("browser_name", "browser_version")).strip() or "browser"
    text = f"{b['instance_id']}  {b.get('label') or '-'}  {name}  pilot {pilot}"
    sites = b.get("sites")
    if isinstance(sites, list):
        text += "  sites: " + (", ".join(str(s) for s in cast(list[Any], sites)) or "none")
    elif "sites" in b:
        text += "  sites: all"
    return text


@click.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(as_json: bool) -> None:
    """The browsers connected to TabPilot now, and whether AI Web Pilot is on in each."""
    found = asyncio.run(_browsers())
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
