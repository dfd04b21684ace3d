"""configure: TabPilot's own state and settings."""

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict  # pydantic needs this one on Python < 3.12

from ... import __version__
from ...link.client import NOT_CONNECTED_FIX, select
from ...wire.errors import TabPilotError
from ...wire.messages import PROTOCOL_VERSION, GetStatus
from .base import BrowserInfo, Call, log
from .composite import CompositeTool

CONFIGURE = CompositeTool("configure", "action", "TabPilot's connection and settings.")

_STATUS_TIMEOUT_S = 5.0


class Browser(TypedDict):
    instance_id: str
    label: str
    profile: str
    browser_name: str
    browser_version: str
    pilot: bool
    extension_version: str
    protocol: int


class Versions(TypedDict):
    bridge: str
    protocol: int
    host: NotRequired[str]
    extension: NotRequired[str]


class StatusResult(TypedDict):
    connected: bool
    browsers: list[Browser]
    pilot_enabled: bool | None
    versions: Versions
    browser: NotRequired[str]
    tracked_tab_id: NotRequired[int]
    fix: NotRequired[str]


def _browser(info: BrowserInfo) -> Browser:
    return {
        "instance_id": info.instance_id,
        "label": info.label,
        "profile": info.profile,
        "browser_name": info.browser_name,
        "browser_version": info.browser_version,
        "pilot": info.pilot,
        "extension_version": info.extension_version,
        "protocol": info.protocol,
    }


@CONFIGURE.action
async def status(call: Call) -> StatusResult:
    """connected browsers, whether AI Web Pilot is on, versions; says how to connect when nothing is."""
    infos = await call.backend.pool.browsers()
    versions: Versions = {"bridge": __version__, "protocol": PROTOCOL_VERSION}
    out: StatusResult = {
        "connected": bool(infos),
        "browsers": [_browser(i) for i in infos],
        "pilot_enabled": None,
        "versions": versions,
    }
    if not infos:
        fix = NOT_CONNECTED_FIX
        if call.backend.launch_name:
            name = call.backend.launch_name
            fix = f"No browser is connected yet; the next interact or observe call starts profile {name!r}."
        out["fix"] = fix
        return out
    selected = select(infos, call.browser)
    if selected is None:
        out["fix"] = "Several browsers are connected; pass `browser` (an instance id or label) to pick one."
        return out
    out["browser"] = selected.instance_id
    out["pilot_enabled"] = selected.pilot
    versions["host"] = selected.host_version
    versions["extension"] = selected.extension_version
    try:
        # The toggle may have changed since the host said hello: ask the extension itself.
        live = await call.backend.pool.call(
            GetStatus(id=0), browser=selected.instance_id, timeout_s=_STATUS_TIMEOUT_S
        )
    except TabPilotError as exc:
        log.info("status of %s unavailable: %s", selected.instance_id, exc.code)
        return out
    out["pilot_enabled"] = bool(live.get("pilot"))
    if isinstance(live.get("tracked_tab_id"), int):
        out["tracked_tab_id"] = live["tracked_tab_id"]
    return out
