"""Doctor's live checks: which browsers are connected through the socket directory, and their pilot."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from tabpilot.link import localsock
from tabpilot.link.client import BrowserConnection, describe
from tabpilot.wire.errors import TabPilotError
from tabpilot.wire.messages import BrowserInfo

from .checks import WARN, Check, fail, ok

_PROBE_TIMEOUT_S = 3.0


@dataclass(frozen=True)
class Probe:
    """One socket in the runtime dir: who answered on it, or why nobody did."""

    path: Path
    info: BrowserInfo | None
    problem: str = ""


async def _probe(path: Path) -> Probe:
    try:
        async with asyncio.timeout(_PROBE_TIMEOUT_S):
            conn = await BrowserConnection.open(path)
    except (ConnectionRefusedError, FileNotFoundError):
        return Probe(path, None, "nobody listens (a host that exited without cleaning up)")
    except TabPilotError as exc:
        return Probe(path, None, f"{exc.code}: {exc.message}")
    except (OSError, TimeoutError) as exc:
        return Probe(path, None, f"no answer ({exc or 'timeout'})")
    info = conn.info
    await conn.aclose()
    return Probe(path, info)


async def probe_all(runtime_dir: Path) -> list[Probe]:
    """Ask every socket in the directory who it is."""
    sockets = localsock.list_sockets(runtime_dir)
    return list(await asyncio.gather(*(_probe(p) for p in sockets)))


def check_browsers(probes: list[Probe]) -> list[Check]:
    """Connected browsers (at least one), their protocol, and whether any has the pilot on."""
    live = [p.info for p in probes if p.info is not None]
    checks: list[Check] = []
    for p in probes:
        if p.info is None:
            checks.append(Check(f"socket {p.path.name}", WARN, p.problem, f"harmless; or run: rm '{p.path}'"))
    if not live:
        return [
            *checks,
            fail(
                "connected browsers",
                "none",
                "open Chrome/Chromium with the TabPilot extension loaded (see `tabpilot install`), "
                "or run: tabpilot browser launch --detach. If the extension's popup shows an error, "
                "the checks above say which link it means",
            ),
        ]
    checks.append(ok("connected browsers", f"{len(live)}: " + "; ".join(describe(i) for i in live)))
    for info in live:
        name = f"browser {info.label or info.instance_id}"
        if not info.protocol_ok:
            checks.append(
                fail(
                    name,
                    f"extension {info.extension_version} speaks protocol {info.protocol}; "
                    f"host {info.host_version} does not",
                    "update both from the same checkout, then reload the extension at chrome://extensions",
                )
            )
        else:
            pilot = "ON" if info.pilot else "off"
            checks.append(ok(name, f"{info.browser_name} {info.browser_version}, pilot {pilot}"))
    if not any(i.pilot for i in live):
        checks.append(
            Check(
                "AI Web Pilot",
                WARN,
                "off in every connected browser: the agent's calls answer ai_web_pilot_disabled",
                "click the TabPilot icon in the browser and switch on AI Web Pilot",
            )
        )
    return checks
