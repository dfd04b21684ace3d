"""The calls a new bridge answers before the SDK has loaded, against real Chromium and the real
extension: the bytes the SDK sends for the same call, pilot on and off, in both protocol eras."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from selenium import webdriver

from tabpilot.wire.errors import ErrorCode
from tests.support import browser
from tests.support.mcp_client import call, mcp_client
from tests.unit.bridge.test_fastcall import STATUS, TABS, both, structured

pytestmark = pytest.mark.anyio


async def test_tabs_and_status_before_the_sdk_are_the_sdk_bytes(
    driver: webdriver.Chrome, pilot_on: None, env: dict[str, str], site: str
) -> None:
    async with mcp_client(env) as client:  # waits for the browser's host; opens a known tab
        tab = await call(client, "interact", action="new_tab", url=f"{site}/index.html")
    runtime = Path(env["TABPILOT_RUNTIME_DIR"])
    try:
        for modern in (False, True):
            tabs = structured(await both(runtime, TABS, modern))
            assert {"id": tab["tab_id"], "title": "TabPilot fixture"}.items() <= next(
                t for t in tabs["tabs"] if t["id"] == tab["tab_id"]
            ).items()
            status = structured(await both(runtime, STATUS, modern))
            assert status["connected"] is True and status["pilot_enabled"] is True
        browser.set_pilot(driver, False)
        for modern in (False, True):
            off = json.loads(await both(runtime, TABS, modern))["result"]
            assert (
                off["isError"] is True
                and off["structuredContent"]["error"] == ErrorCode.AI_WEB_PILOT_DISABLED
            )
            assert structured(await both(runtime, STATUS, modern))["pilot_enabled"] is False
    finally:
        browser.set_pilot(driver, True)
        async with mcp_client(env) as client:
            await call(client, "interact", action="close_tab", tab_id=tab["tab_id"])
