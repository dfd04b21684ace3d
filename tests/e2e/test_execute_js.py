"""execute_js to the end: a strict-CSP page, scripts that never finish, and values JSON cannot hold."""

from __future__ import annotations

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
    """Pages here hold secrets on purpose; the agent's scripts on them run with the person's consent
    (given in the popup), so what is tested is what those scripts can still see."""
    allow_scripts_on(chromium, site)


async def test_strict_csp_page_runs_scripts_and_stops_loops_keeping_the_page(
    client: Client, site: str
) -> None:
    nav = await call(client, "interact", action="navigate", url=f"{site}/csp.html")
    tid = nav["tab_id"]

    async def js(script: str, **extra: Any) -> dict[str, Any]:
        return await call(client, "interact", action="execute_js", script=script, tab_id=tid, **extra)

    # The page itself cannot eval: the fast path is refused, the fallback answers.
    assert await js("pageGlobal + 1") == {"success": True, "result": 42}
    assert await js("const x = pageGlobal; return x * 2") == {"success": True, "result": 82}
    assert await js("await Promise.resolve(document.title)") == {
        "success": True,
        "result": "Strict CSP fixture",
    }
    thrown = await js("throw new RangeError('csp boom')")
    assert thrown["success"] is False and thrown["error"] == "RangeError: csp boom" and thrown["stack"]
    syntax = await js("return (")
    assert syntax["success"] is False and syntax["error"].startswith("SyntaxError")

    await js("window.kept = 'state'")
    loop = await call_error(
        client, "interact", action="execute_js", script="while (true) {}", tab_id=tid, timeout_ms=500
    )
    assert loop["error"] == ErrorCode.TIMEOUT, loop
    assert loop["data"]["recovered"] == "terminated" and loop["data"]["tab_id"] == tid
    # Same tab, same document: the loop was stopped without a reload.
    assert await js("window.kept") == {"success": True, "result": "state"}
    again = await call(client, "interact", action="navigate", url=f"{site}/csp.html", tab_id=tid)
    assert again["title"] == "Strict CSP fixture"


async def test_an_endless_loop_times_out_and_the_tab_is_usable_again(
    driver: webdriver.Chrome, client: Client, site: str
) -> None:
    nav = await call(client, "interact", action="new_tab", url=f"{site}/index.html")
    await call(client, "configure", action="track_tab", tab_id=nav["tab_id"])
    err = await call_error(
        client,
        "interact",
        action="execute_js",
        script="while (true) {}",
        tab_id=nav["tab_id"],
        timeout_ms=500,
    )
    assert err["error"] == ErrorCode.TIMEOUT
    data = err["data"]
    assert data["tab_id"] == nav["tab_id"] and data["recovered"] == "reloaded"
    assert data["url"] == f"{site}/index.html"
    fresh = data["new_tab_id"]
    # Tracking follows the tab to its new id.
    assert (await call(client, "configure", action="status"))["tracked_tab_id"] == fresh
    await call(client, "configure", action="untrack_tab")
    title = await call(client, "interact", action="execute_js", script="document.title", tab_id=fresh)
    assert title == {"success": True, "result": "TabPilot fixture"}
    # The new tab is the active one: calls without tab_id reach it too.
    assert (await call(client, "interact", action="execute_js", script="6 * 7"))["result"] == 42
    second = await call(client, "interact", action="navigate", url=f"{site}/second.html", tab_id=fresh)
    assert second["title"] == "Second fixture page"
    gone = await call_error(client, "interact", action="execute_js", script="1", tab_id=nav["tab_id"])
    assert gone["error"] == ErrorCode.TAB_NOT_FOUND
    await call(client, "interact", action="close_tab", tab_id=fresh)


async def test_a_script_still_awaiting_times_out_without_touching_the_page(client: Client, site: str) -> None:
    nav = await call(client, "interact", action="navigate", url=f"{site}/index.html")
    tid = nav["tab_id"]
    await call(client, "interact", action="execute_js", script="window.kept = 7", tab_id=tid)
    err = await call_error(
        client,
        "interact",
        action="execute_js",
        script="await new Promise(() => {})",
        tab_id=tid,
        timeout_ms=300,
    )
    assert err["error"] == ErrorCode.TIMEOUT and err["data"]["recovered"] == "not_needed"
    kept = await call(client, "interact", action="execute_js", script="window.kept", tab_id=tid)
    assert kept == {"success": True, "result": 7}


async def test_results_are_made_json_safe_and_huge_arrays_capped(client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/index.html")

    async def js(script: str) -> dict[str, Any]:
        return await call(client, "interact", action="execute_js", script=script)

    cyc = await js("const a = {n: 2n ** 70n, f() {}, u: undefined}; a.self = a; return a")
    assert cyc == {
        "success": True,
        "result": {"n": str(2**70), "f": "[function f]", "u": None, "self": "[circular]"},
    }
    assert (await js("document.querySelector('#greeting')"))["result"] == "[element <p#greeting>]"
    assert (await js("document.querySelectorAll('h1, a')"))["result"] == [
        "[element <h1>]",
        "[element <a>]",
    ]
    assert (await js("window"))["result"] == "[window]"
    assert (await js("new Map([[1, 'a']])"))["result"] == {"[Map]": [[1, "a"]]}

    big = await js("Array.from({length: 250000}, (_, i) => i)")
    assert big["capped"] is True and big["success"] is True
    items = big["result"]
    assert isinstance(items, list) and len(items) == 10_001
    assert items[:3] == [0, 1, 2] and items[9_999] == 9_999
    assert items[-1] == "[240000 more items not shown: 250000 in all]"
    typed = await js("new Float64Array(1e6)")
    assert typed["capped"] is True and len(typed["result"]) == 10_001
    small = await js("[1, 2, 3]")
    assert small == {"success": True, "result": [1, 2, 3]}, "no capped flag when nothing was cut"
