"""What the host keeps is served only within the scope, in real Chromium through the real MCP client:
with "only these sites", a kept result, the strategies and the workflows of a site outside are not
served (site_not_allowed, or left out of a listing); a result made in one browser is not served through
another (its pilot switch and its scope are that browser's)."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import pytest
from selenium import webdriver

from tests.support import browser
from tests.support.mcp_client import call, call_error, mcp_client, scrape
from tests.support.popup import set_sites

pytestmark = pytest.mark.anyio


async def _only_browser(client: Any) -> str:
    return (await call(client, "configure", action="status"))["browser"]


async def test_kept_results_strategies_and_workflows_follow_the_scope(
    driver: webdriver.Chrome, env: dict[str, str], site: str
) -> None:
    here = urlsplit(site).netloc
    browser.set_pilot(driver, True)
    try:
        async with mcp_client(env) as client:
            await call(client, "interact", action="navigate", url=f"{site}/sites/list.html")
            out = await scrape(
                client,
                operation="workflow",
                name="orders",
                record=True,
                steps=[
                    {"type": "navigate", "url": f"{site}/sites/list.html"},
                    {"type": "extract", "selector": "table.orders tr", "schema": {"n": ".n"}},
                ],
                options={"telemetry": True},  # with the run's id, to read the result kept again
            )
            corr = out["correlation_id"]
            assert (await call(client, "observe", what="command_result", correlation_id=corr))["data"]
            listed = (await call(client, "observe", what="workflows"))["workflows"]
            assert any(w["name"] == "orders" for w in listed), listed

            set_sites(driver, only=["elsewhere.test"])
            err = await call_error(client, "observe", what="command_result", correlation_id=corr)
            assert err["error"] == "site_not_allowed" and here in err["message"], err
            strategies = (await call(client, "observe", what="strategies"))["strategies"]
            assert not any(here in s["url_pattern"] for s in strategies), strategies
            listed = (await call(client, "observe", what="workflows"))["workflows"]
            assert not any(w["name"] == "orders" for w in listed), listed

            set_sites(driver, only=[here])
            assert (await call(client, "observe", what="command_result", correlation_id=corr))["data"]
    finally:
        set_sites(driver, only=None)


async def test_a_result_is_served_only_through_the_browser_that_made_it(
    driver: webdriver.Chrome, env: dict[str, str], site: str
) -> None:
    browser.set_pilot(driver, True)
    async with mcp_client(env) as client:
        first = await _only_browser(client)
        await call(client, "interact", action="navigate", url=f"{site}/sites/list.html")
        orders = {"operation": "extract", "selector": "table.orders tr", "schema": {"n": ".n"}}
        out = await scrape(client, **orders, options={"telemetry": True})  # with the run's id
        corr = out["correlation_id"]
    other = browser.Chromium(Path(env["TABPILOT_TEST_BASE"]) / "second", env)
    browser.prepare_profile(other.user_data_dir, env)
    second_driver = other.start()
    try:
        browser.set_pilot(second_driver, True)
        browser.set_pilot(driver, False)
        async with mcp_client(env) as client:
            with anyio.fail_after(30):
                while True:
                    infos = (await call(client, "configure", action="status", browser=first))["browsers"]
                    ids = [b["instance_id"] for b in infos]
                    if len(ids) == 2:
                        break
                    await anyio.sleep(0.1)  # polling for the second host, bounded above
            [second] = [i for i in ids if i != first]
            err = await call_error(
                client, "observe", what="command_result", correlation_id=corr, browser=second
            )
            assert err["error"] == "workflow_not_found", err
            err = await call_error(
                client, "observe", what="command_result", correlation_id=corr, browser=first
            )
            assert err["error"] == "ai_web_pilot_disabled", err
    finally:
        other.quit()
        browser.set_pilot(driver, True)
