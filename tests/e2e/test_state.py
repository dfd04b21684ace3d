"""Browser-state snapshots: save, clear, load, list, delete; values never reach the agent."""

from __future__ import annotations

import json

import pytest
from mcp import Client
from selenium import webdriver

from tabpilot.demo.server import DEMO_PASSWORD, DEMO_USER
from tabpilot.wire.errors import ErrorCode
from tests.support import browser
from tests.support.mcp_client import call, call_error
from tests.support.snap import js, log_in

pytestmark = pytest.mark.anyio

SECRET_VALUES = ("local-secret-1", "session-secret-2", "cookie-secret-3")


async def test_save_clear_load_restores_storage_and_httponly_cookies(
    driver: webdriver.Chrome, client: Client, site: str
) -> None:
    seen: list[str] = []
    done = await log_in(client, site, DEMO_USER, DEMO_PASSWORD)
    assert done["url"] == f"{site}/private/table-1.html"
    await js(
        client,
        "localStorage.setItem('a', 'local-secret-1'); localStorage.setItem('b', 'x');"
        "sessionStorage.setItem('s', 'session-secret-2');"
        "document.cookie = 'plain=cookie-secret-3; path=/; max-age=3600'",
    )
    saved = await call(client, "configure", action="save_state", snapshot_name="signed in")
    seen.append(json.dumps(saved))
    assert saved["snapshot_name"] == "signed in" and saved["url"] == f"{site}/private/table-1.html"
    # tp_session is httpOnly: page scripts cannot see it, chrome.cookies can.
    assert saved["counts"] == {"localStorage": 2, "sessionStorage": 1, "cookies": 2}
    assert saved["size_bytes"] > 0

    # Lose it all: storage emptied and every cookie gone (the server's session itself stays valid).
    await js(client, "localStorage.clear(); sessionStorage.clear(); localStorage.setItem('a', 'other')")
    driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    gated = await call(client, "interact", action="navigate", url=f"{site}/private/table-2.html")
    assert gated["url"].startswith(f"{site}/login.html?next=")

    loaded = await call(client, "configure", action="load_state", snapshot_name="signed in")
    seen.append(json.dumps(loaded))
    assert loaded["restored"] == {"localStorage": 2, "sessionStorage": 1, "cookies": 2}
    assert loaded["url"] == f"{site}/private/table-1.html" and loaded["navigated"] is True
    assert await js(
        client, "[localStorage.getItem('a'), localStorage.length, sessionStorage.getItem('s')]"
    ) == [
        "local-secret-1",
        2,
        "session-secret-2",
    ]
    assert "plain=cookie-secret-3" in await js(client, "document.cookie")
    private = await call(client, "interact", action="navigate", url=f"{site}/private/table-2.html")
    assert private["url"] == f"{site}/private/table-2.html", "the httpOnly session cookie is back"

    listed = await call(client, "configure", action="list_states")
    seen.append(json.dumps(listed))
    [info] = [s for s in listed["snapshots"] if s["name"] == "signed in"]
    assert info["counts"]["cookies"] == 2 and info["url"] == saved["url"] and info["timestamp"]

    # From another origin without include_url: the snapshot's page is opened (storage needs its
    # origin) and not loaded a second time.
    other = site.replace("127.0.0.1", "localhost")
    await call(client, "interact", action="navigate", url=f"{other}/second.html")
    moved = await call(client, "configure", action="load_state", snapshot_name="signed in", include_url=False)
    assert moved["navigated"] is True and moved["url"] == saved["url"]
    assert await js(client, "localStorage.getItem('a')") == "local-secret-1"

    assert await call(client, "configure", action="delete_state", snapshot_name="signed in") == {
        "deleted": "signed in"
    }
    for action in ("load_state", "delete_state"):
        err = await call_error(client, "configure", action=action, snapshot_name="signed in")
        assert err["error"] == ErrorCode.SNAPSHOT_NOT_FOUND
    assert "signed in" not in [
        s["name"] for s in (await call(client, "configure", action="list_states"))["snapshots"]
    ]
    bad = await call_error(client, "configure", action="save_state", snapshot_name="../../etc")
    assert bad["error"] == ErrorCode.INVALID_PARAMS
    for text in seen:
        for secret in (*SECRET_VALUES, DEMO_PASSWORD):
            assert secret not in text


async def test_state_actions_are_refused_with_the_pilot_off(
    driver: webdriver.Chrome, module_client: Client
) -> None:
    client = module_client  # the module's bridge: this test needs no new one
    browser.set_pilot(driver, False)
    try:
        for action, args in [
            ("list_states", {}),
            ("save_state", {"snapshot_name": "x"}),
            ("load_state", {"snapshot_name": "x"}),
            ("delete_state", {"snapshot_name": "x"}),
        ]:
            err = await call_error(client, "configure", action=action, **args)
            assert err["error"] == ErrorCode.AI_WEB_PILOT_DISABLED, (action, err)
    finally:
        browser.set_pilot(driver, True)
