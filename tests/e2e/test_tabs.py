"""Tabs and history through MCP: back/forward/reload, new/switch/close, tracking, and their errors."""

from __future__ import annotations

from typing import Any

import anyio
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
    """Some pages here hold a password field the page filled in; the agent's scripts on them run with
    the person's consent (given in the popup), as this module tests actions, not that consent."""
    allow_scripts_on(chromium, site)


async def _title(client: Any, **target: Any) -> str:
    return (await call(client, "interact", action="execute_js", script="document.title", **target))["result"]


async def test_back_forward_reload_wait_for_the_page(client: Client, site: str) -> None:
    tab = await call(client, "interact", action="new_tab", url=f"{site}/index.html")
    assert tab["title"] == "TabPilot fixture" and tab["active"] is True
    tid = tab["tab_id"]
    await call(client, "interact", action="navigate", url=f"{site}/second.html", tab_id=tid)

    back = await call(client, "interact", action="back", tab_id=tid)
    assert back == {"tab_id": tid, "url": f"{site}/index.html", "title": "TabPilot fixture"}
    forward = await call(client, "interact", action="forward", tab_id=tid)
    assert forward["url"] == f"{site}/second.html" and forward["title"] == "Second fixture page"
    no_next = await call_error(client, "interact", action="forward", tab_id=tid)
    assert no_next["error"] == ErrorCode.NAVIGATION_FAILED

    await call(client, "interact", action="execute_js", script="window.marker = 1", tab_id=tid)
    reloaded = await call(client, "interact", action="reload", tab_id=tid)
    assert reloaded["title"] == "Second fixture page"
    marker = await call(client, "interact", action="execute_js", script="typeof window.marker", tab_id=tid)
    assert marker["result"] == "undefined", "a reload gives a fresh page"

    # Same-document history (pushState) is waited for too, not left to time out.
    await call(
        client, "interact", action="execute_js", script="history.pushState({}, '', '#pushed')", tab_id=tid
    )
    same_doc = await call(client, "interact", action="back", tab_id=tid, timeout_ms=5000)
    assert same_doc["url"] == f"{site}/second.html"
    await call(client, "interact", action="close_tab", tab_id=tid)


@pytest.mark.parametrize(
    "url",
    [
        "chrome://settings/passwords",
        "file:///etc/passwd",
        "https://chromewebstore.google.com/detail/x",
        f"chrome-extension://{'a' * 32}/popup.html",
    ],
)
async def test_new_tab_and_navigate_refuse_off_limits_urls(
    driver: webdriver.Chrome, client: Client, url: str
) -> None:
    before = len(driver.window_handles)
    for action in ("new_tab", "navigate"):
        err = await call_error(client, "interact", action=action, url=url)
        assert err["error"] == ErrorCode.NAVIGATION_BLOCKED, err
    assert len(driver.window_handles) == before, "no tab was opened for a refused URL"


async def test_switch_and_close_tabs_and_the_errors_of_a_closed_tab(client: Client, site: str) -> None:
    bg = await call(client, "interact", action="new_tab", url=f"{site}/second.html", active=False)
    assert bg["active"] is False
    tabs = {t["id"]: t for t in (await call(client, "observe", what="tabs"))["tabs"]}
    assert tabs[bg["tab_id"]]["active"] is False

    switched = await call(client, "interact", action="switch_tab", tab_id=bg["tab_id"])
    assert switched["title"] == "Second fixture page"
    tabs = {t["id"]: t for t in (await call(client, "observe", what="tabs"))["tabs"]}
    assert tabs[bg["tab_id"]]["active"] is True
    assert await _title(client) == "Second fixture page", "commands without tab_id go to the active tab"

    closed = await call(client, "interact", action="close_tab", tab_id=bg["tab_id"])
    assert closed["closed_tab_id"] == bg["tab_id"]
    tabs = {t["id"] for t in (await call(client, "observe", what="tabs"))["tabs"]}
    assert bg["tab_id"] not in tabs
    for action, args in [
        ("switch_tab", {}),
        ("close_tab", {}),
        ("navigate", {"url": f"{site}/index.html"}),
        ("execute_js", {"script": "1"}),
        ("reload", {}),
    ]:
        err = await call_error(client, "interact", action=action, tab_id=bg["tab_id"], **args)
        assert err["error"] == ErrorCode.TAB_NOT_FOUND, (action, err)
    err = await call_error(client, "configure", action="track_tab", tab_id=bg["tab_id"])
    assert err["error"] == ErrorCode.TAB_NOT_FOUND


async def test_a_tab_closed_under_a_running_command_is_tab_closed(client: Client, site: str) -> None:
    tab = await call(client, "interact", action="new_tab", url=f"{site}/second.html", active=False)
    outcome: dict[str, Any] = {}

    async def wait_forever() -> None:
        outcome["err"] = await call_error(
            client,
            "interact",
            action="execute_js",
            script="await new Promise(() => {})",
            tab_id=tab["tab_id"],
            timeout_ms=30_000,
        )

    with anyio.fail_after(20):
        async with anyio.create_task_group() as tg:
            tg.start_soon(wait_forever)
            # The script is running once the page answers a second script (scripts run in order).
            await call(client, "interact", action="execute_js", script="1", tab_id=tab["tab_id"])
            await call(client, "interact", action="close_tab", tab_id=tab["tab_id"])
    assert outcome["err"]["error"] == ErrorCode.TAB_CLOSED, outcome


async def test_tracked_tab_gets_commands_until_untracked_or_closed(client: Client, site: str) -> None:
    home = await call(client, "interact", action="new_tab", url=f"{site}/index.html")
    other = await call(client, "interact", action="new_tab", url=f"{site}/second.html")
    assert await _title(client) == "Second fixture page"

    tracked = await call(client, "configure", action="track_tab", tab_id=home["tab_id"])
    assert tracked == {"tracked_tab_id": home["tab_id"]}
    assert (await call(client, "configure", action="status"))["tracked_tab_id"] == home["tab_id"]
    # The other tab is still the active one, but commands go to the tracked tab.
    assert await _title(client) == "TabPilot fixture"

    assert await call(client, "configure", action="untrack_tab") == {"tracked_tab_id": None}
    assert "tracked_tab_id" not in await call(client, "configure", action="status")
    assert await _title(client) == "Second fixture page"

    # Without tab_id, track_tab takes the active tab; closing it ends the tracking.
    again = await call(client, "configure", action="track_tab")
    assert again["tracked_tab_id"] == other["tab_id"]
    await call(client, "interact", action="close_tab")
    status = await call(client, "configure", action="status")
    assert "tracked_tab_id" not in status
    await call(client, "interact", action="close_tab", tab_id=home["tab_id"])


async def test_tab_actions_are_refused_with_the_pilot_off(
    driver: webdriver.Chrome, module_client: Client, site: str
) -> None:
    client = module_client  # the module's bridge: this test needs no new one
    browser.set_pilot(driver, False)
    try:
        for tool, args in [
            ("interact", {"action": "back"}),
            ("interact", {"action": "forward"}),
            ("interact", {"action": "reload"}),
            ("interact", {"action": "new_tab", "url": f"{site}/index.html"}),
            ("interact", {"action": "switch_tab", "tab_id": 1}),
            ("interact", {"action": "close_tab"}),
            ("configure", {"action": "track_tab"}),
            ("configure", {"action": "untrack_tab"}),
        ]:
            err = await call_error(client, tool, **args)
            assert err["error"] == ErrorCode.AI_WEB_PILOT_DISABLED, (args, err)
    finally:
        browser.set_pilot(driver, True)
