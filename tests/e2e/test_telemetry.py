"""observe errors and network: what a page logged and fetched, since a cursor, bounded, no headers."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client
from selenium import webdriver

from tabpilot.wire.errors import ErrorCode
from tests.support import browser
from tests.support.mcp_client import call, call_error
from tests.support.popup import allow_scripts_on

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module", autouse=True)
def _scripts_allowed(chromium: browser.Chromium, site: Any) -> None:  # pyright: ignore[reportUnusedFunction]
    """The fixture pages hold a password field the page filled in; the agent's scripts on them run
    with the person's consent (given in the popup), as this module does not test that consent."""
    allow_scripts_on(chromium, site)


async def _load_noisy(client: Client, site: str) -> int:
    nav = await call(client, "interact", action="navigate", url=f"{site}/noisy.html")
    await call(client, "interact", action="wait_for", text="all done", timeout_ms=10_000)
    return nav["tab_id"]


async def test_errors_are_recorded_with_source_and_read_by_cursor(client: Client, site: str) -> None:
    tid = await _load_noisy(client, site)
    first = await call(client, "observe", what="errors")
    assert first["tab_id"] == tid and first["recording"] is True and first["dropped"] == 0
    got = {(i["kind"], i["message"]) for i in first["items"]}
    assert got == {
        ("console.error", 'boom from page {"code":7}'),
        ("unhandledrejection", "Error: nobody caught me"),
        ("uncaught", "RangeError: thrown from a timer"),
        ("unhandledrejection", "TypeError: late uncaught"),
    }
    for item in first["items"]:
        assert item["time"] > 0 and item["source"]
    [timer] = [i for i in first["items"] if i["kind"] == "uncaught"]
    assert timer["source"].startswith(f"{site}/noisy.html:") and "RangeError" in timer["stack"]
    [logged] = [i for i in first["items"] if i["kind"] == "console.error"]
    assert "noisy.html" in logged["source"]

    cursor = first["cursor"]
    assert (await call(client, "observe", what="errors", since=cursor))["items"] == []
    await call(client, "interact", action="execute_js", script="console.error('later', 42)")
    later = await call(client, "observe", what="errors", since=cursor)
    assert [(i["kind"], i["message"]) for i in later["items"]] == [("console.error", "later 42")]
    assert later["cursor"] > cursor

    # Paging: one item at a time, each cursor leading to the next.
    one = await call(client, "observe", what="errors", limit=1)
    assert len(one["items"]) == 1 and one["more"] is True
    two = await call(client, "observe", what="errors", since=one["cursor"], limit=1)
    assert two["items"][0]["seq"] > one["items"][0]["seq"]

    # The page's buffer is bounded: older items make room and are counted as dropped.
    await call(
        client,
        "interact",
        action="execute_js",
        script="for (let i = 0; i < 250; i++) console.error('e' + i)",
    )
    flood = await call(client, "observe", what="errors", limit=1000)
    assert len(flood["items"]) == 200 and flood["dropped"] >= 55
    assert flood["items"][-1]["message"] == "e249"

    # A new page starts a new buffer; an old cursor reads all of it.
    tid2 = await _load_noisy(client, site)
    fresh = await call(client, "observe", what="errors", since=flood["cursor"])
    assert tid2 == tid and len(fresh["items"]) == 4


async def test_network_requests_without_headers_or_bodies(client: Client, site: str) -> None:
    start = (await call(client, "observe", what="network"))["cursor"]
    await _load_noisy(client, site)
    seen = await call(client, "observe", what="network", since=start)
    text = json.dumps(seen)
    assert "sekrit" not in text and "Authorization" not in text and "username=a" not in text
    by_url: dict[str, dict[str, Any]] = {i["url"]: i for i in seen["items"]}
    page = by_url[f"{site}/noisy.html"]
    assert page["method"] == "GET" and page["type"] == "main_frame" and page["status"] == 200
    assert by_url[f"{site}/second.html"]["status"] == 200
    assert by_url[f"{site}/second.html"]["type"] == "xmlhttprequest"
    assert by_url[f"{site}/missing-file.json"]["status"] == 404
    # A secret in a query string (a GET login form puts the password there) is not recorded.
    assert "hunter2" not in text
    assert by_url[f"{site}/index.html?user=me&password=%5BREDACTED%5D&q=ok"]["status"] == 200
    posted = by_url[f"{site}/login"]
    assert posted["method"] == "POST" and posted["status"] == 303 and posted["redirected_to"]
    for item in seen["items"]:
        assert set(item) <= {
            "seq",
            "time",
            "method",
            "url",
            "type",
            "status",
            "duration_ms",
            "error",
            "from_cache",
            "redirected_to",
        }
        assert item["duration_ms"] >= 0 and item["seq"] > start
    assert (await call(client, "observe", what="network", since=seen["cursor"]))["items"] == []

    err = await call_error(client, "observe", what="network", tab_id=2**31 - 2)
    assert err["error"] == ErrorCode.TAB_NOT_FOUND


async def test_telemetry_follows_the_pilot(
    driver: webdriver.Chrome, module_client: Client, site: str
) -> None:
    client = module_client  # the module's bridge: this test needs no new one
    browser.set_pilot(driver, False)
    try:
        for what in ("errors", "network"):
            err = await call_error(client, "observe", what=what)
            assert err["error"] == ErrorCode.AI_WEB_PILOT_DISABLED
        # A page loaded while the pilot was off carries no recorder: the answer says so.
        driver.get(f"{site}/noisy.html")
    finally:
        browser.set_pilot(driver, True)
    quiet = await call(client, "observe", what="errors")
    assert quiet["recording"] is False and quiet["items"] == []
