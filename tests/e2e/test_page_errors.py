"""Every error of the element actions, provoked through the real MCP client and asserted by code."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client
from selenium import webdriver

from tabpilot.wire.errors import ErrorCode
from tests.support import browser
from tests.support.mcp_client import call, call_error
from tests.support.popup import allow_scripts_on

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("pilot_on")]


@pytest.fixture(scope="module", autouse=True)
def _scripts_allowed(chromium: browser.Chromium, site: Any) -> None:  # pyright: ignore[reportUnusedFunction]
    """The fixture pages hold a password field the page filled in; the agent's scripts on them run
    with the person's consent (given in the popup), as this module does not test that consent."""
    allow_scripts_on(chromium, site)


async def test_each_error_code(client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/form.html")

    async def fails(code: ErrorCode, **args: object) -> dict[str, object]:
        err = await call_error(client, "interact", **args)
        assert err["error"] == code, err
        return err

    await fails(ErrorCode.ELEMENT_NOT_FOUND, action="click", selector="#nope")
    await fails(ErrorCode.INVALID_SELECTOR, action="click", selector="#f[")
    await fails(ErrorCode.INVALID_SELECTOR, action="wait_for", selector="a[", timeout_ms=500)
    await fails(ErrorCode.INVALID_PARAMS, action="click")
    await fails(ErrorCode.INVALID_PARAMS, action="press", key="Hyper+x")
    await fails(ErrorCode.INVALID_PARAMS, action="select", selector="#name", values=["x"])
    await fails(ErrorCode.INVALID_PARAMS, action="fill", selector="#birthday", value="yesterday")
    missing = await fails(ErrorCode.ELEMENT_NOT_FOUND, action="select", selector="#size", values=["XXL"])
    assert "Small" in str(missing["message"])
    for args, reason in (
        ({"action": "click", "selector": "#ghost"}, "hidden"),
        ({"action": "click", "selector": "#locked"}, "disabled"),
        ({"action": "fill", "selector": "#locked", "value": "x"}, "disabled"),
        ({"action": "fill", "selector": "#fixed", "value": "x"}, "readonly"),
        ({"action": "click", "selector": "#under"}, "covered"),
        ({"action": "hover", "selector": "#under"}, "covered"),
    ):
        err = await fails(ErrorCode.NOT_INTERACTABLE, **args)
        assert err["data"]["reason"] == reason, err  # type: ignore[index]
        if reason == "covered":
            assert "<span#cover>" in str(err["message"])
    assert await call(
        client, "interact", action="execute_js", script="document.getElementById('result').textContent"
    ) == {
        "success": True,
        "result": "",
    }, "a refused click did not click"

    timed = await fails(ErrorCode.TIMEOUT, action="wait_for", selector="#never", timeout_ms=300)
    assert "0 element(s) match" in str(timed["message"])
    await fails(ErrorCode.TIMEOUT, action="wait_for", text="no such words", timeout_ms=300)
    await fails(ErrorCode.TIMEOUT, action="wait_for", url="*/never.html", timeout_ms=300)
    await fails(ErrorCode.TAB_NOT_FOUND, action="click", selector="a", tab_id=2**31 - 2)


async def test_a_tab_closed_during_a_wait(driver: webdriver.Chrome, client: Client, site: str) -> None:
    # A tab the page may close itself: opened with a single history entry.
    url = f"{site}/form.html?closing"
    driver.execute_cdp_cmd("Target.createTarget", {"url": url})
    tabs = (await call(client, "observe", what="tabs"))["tabs"]
    [tab] = [t for t in tabs if t["url"] == url]
    await call(
        client,
        "interact",
        action="execute_js",
        tab_id=tab["id"],
        script="setTimeout(() => window.close(), 1000); 1",
    )
    err = await call_error(
        client, "interact", action="wait_for", tab_id=tab["id"], selector="#never", timeout_ms=20_000
    )
    assert err["error"] == ErrorCode.TAB_CLOSED, err
