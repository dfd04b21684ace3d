"""Scrape workflows through the real MCP client, and what goes wrong in the middle of one: secrets
that must stay in the page, a login redirect, a tab closed, the service worker killed."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from selenium import webdriver

from tabpilot.demo.server import Site
from tabpilot.wire.errors import ErrorCode
from tests.support import browser, pages
from tests.support.mcp_client import call, payload
from tests.support.popup import allow_scripts_on

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module", autouse=True)
def _scripts_allowed(chromium: browser.Chromium, site: Any) -> None:  # pyright: ignore[reportUnusedFunction]
    """The fixture pages hold a password field the page filled in; the agent's scripts on them run
    with the person's consent (given in the popup), as this module does not test that consent."""
    allow_scripts_on(chromium, site)


site = pages.site_with_login  # these tests need the server's sign-in and sessions

SECRETS = ["pw-attr-S3CRET-1", "tok-S3CRET-2", "note-S3CRET-3", "priv-S3CRET-4", "typed-S3CRET-5"]


async def start(client: Client, **arguments: Any) -> dict[str, Any]:
    """Start a scrape without waiting for it; its `running`/`queued` answer."""
    out = await call(client, "interact", action="scrape", wait_ms=0, **arguments)
    assert out["status"] in ("queued", "running", "complete"), out
    return out


async def poll(client: Client, correlation_id: str, until: Any, what: str) -> dict[str, Any]:
    """observe command_result until `until(result)` holds (bounded)."""
    with anyio.fail_after(30):
        while True:
            result = await client.call_tool(
                "observe", {"what": "command_result", "correlation_id": correlation_id}
            )
            out = payload(result)
            # While a killed worker comes back, its host is briefly gone (an error that is not the
            # scrape's own outcome, which always has a status): keep asking.
            reconnecting = "status" not in out and out.get("error") in (
                ErrorCode.EXTENSION_NOT_CONNECTED,
                ErrorCode.EXTENSION_DISCONNECTED,
            )
            if not reconnecting and until(out):
                return out
            await asyncio.sleep(0.05)
    raise AssertionError(what)


def _files_text(*dirs: Path) -> str:
    text: list[str] = []
    for d in dirs:
        for path in d.rglob("*"):
            if path.is_file() and not path.is_socket():
                text.append(path.read_bytes().decode(errors="replace"))
    return "\n".join(text)


async def test_secrets_stay_in_the_page(client: Client, env: dict[str, str], site: Site) -> None:
    url = f"{site.url}/scrape/secrets.html"
    schema = {
        "text": ":scope",
        "html": ":scope | html",
        "value": "input | attr:value",
        "typed": "input",
        "title": "[title] | attr:title",
        "inner": "span | all",
    }
    await call(client, "interact", action="navigate", url=url)
    out = await call(
        client, "interact", action="scrape", operation="extract", selector="form .row", schema=schema
    )
    assert out["data"][1]["value"] == "[REDACTED]" and out["data"][0]["value"] == "alice"
    recorded = await call(
        client,
        "interact",
        action="scrape",
        operation="workflow",
        name="account",
        record=True,
        steps=[
            {"type": "navigate", "url": url},
            {"type": "extract", "selector": "form", "schema": {"all": ":scope", "html": ":scope | html"}},
        ],
        options={"delay_ms": 0},
    )
    assert recorded["status"] == "complete" and "Plan Pro" in recorded["data"][0]["all"]
    replayed = await call(
        client, "interact", action="scrape", operation="replay", workflow_id=recorded["workflow_id"]
    )
    every_output = [str(out), str(recorded), str(replayed)]
    on_disk = _files_text(Path(env["TABPILOT_STATE_DIR"]), Path(env["TABPILOT_DATA_DIR"]))
    assert "account" in on_disk, "the recorded workflow is on disk"
    for secret in SECRETS:
        for text in every_output:
            assert _leak(secret, text) is None, f"{secret} reached the agent: {_leak(secret, text)}"
        where = _leak(secret, on_disk)
        assert where is None, f"{secret} reached a file in the state or data directory: {where}"


def _leak(secret: str, text: str) -> str | None:
    """A little context around `secret` in `text`, or None. (Plain `assert x not in text` makes pytest
    diff the whole text on failure, which takes minutes for a log.)"""
    at = text.find(secret)
    return None if at < 0 else text[max(0, at - 200) : at + 200]


async def test_login_redirect_mid_workflow(client: Client, site: Site) -> None:
    result = await client.call_tool(
        "interact",
        {
            "action": "scrape",
            "operation": "workflow",
            "steps": [
                {"type": "navigate", "url": f"{site.url}/scrape/cards.html"},
                {"type": "extract", "selector": "article.card", "schema": {"t": "a.title"}},
                {"type": "navigate", "url": f"{site.url}/logout?then=/scrape/cards.html"},
                {"type": "navigate", "url": f"{site.url}/private/table-1.html"},
                {"type": "extract", "selector": "table.ledger tbody tr", "schema": {"k": ".key"}},
            ],
            "options": {"delay_ms": 0},
        },
    )
    out = payload(result)
    assert result.is_error
    assert out["error"] == ErrorCode.NAVIGATION_REDIRECT
    assert out["redirect_url"] == f"{site.url}/login.html?next=%2Fprivate%2Ftable-1.html"
    assert [r["t"] for r in out["data"]] == ["Alpha widget", "Beta gadget", "Gamma", "Delta"]


async def test_session_ends_between_two_pages(driver: webdriver.Chrome, client: Client, site: Site) -> None:
    driver.get(f"{site.url}/login.html?next=/private/expiring.html")
    driver.execute_script(
        "document.querySelector('[name=username]').value = arguments[0];"
        "document.querySelector('[name=password]').value = arguments[1];"
        "document.querySelector('form.login').submit();",
        site.user,
        site.password,
    )
    browser.wait_until(lambda: driver.current_url.endswith("/private/expiring.html"), what="the login")
    result = await client.call_tool(
        "interact",
        {
            "action": "scrape",
            "operation": "extract",
            "selector": "table.ledger tbody tr",
            "schema": {"k": ".key"},
            "options": {"paginate": {"next_selector": "a.next", "max_pages": 5, "delay_ms": 0}},
        },
    )
    out = payload(result)
    assert result.is_error and out["error"] == ErrorCode.NAVIGATION_REDIRECT
    assert out["redirect_url"] == f"{site.url}/login.html?next=%2Fprivate%2Ftable-2.html"
    assert [r["k"] for r in out["data"]] == ["K-1", "K-2", "K-3"]


async def _stuck_scrape(client: Client, site: Site, tab_id: int) -> str:
    """A scrape that has read page 1 and then waits (long) for a Next that changes nothing."""
    started = await start(
        client,
        operation="workflow",
        tab_id=tab_id,
        steps=[
            {
                "type": "extract",
                "selector": "ul.list li",
                "schema": {"item": ":scope"},
                "paginate": {"next_selector": "#next", "max_pages": 3, "delay_ms": 0},
                "timeout_ms": 20_000,
            }
        ],
        options={"delay_ms": 0},
    )
    cid = started["correlation_id"]
    await poll(client, cid, lambda r: r.get("progress", {}).get("rows", 0) >= 2, "page 1 read")
    return cid


async def _new_tab(driver: webdriver.Chrome, client: Client, url: str) -> tuple[str, int]:
    original = driver.current_window_handle
    driver.switch_to.new_window("tab")
    driver.get(url)
    tabs = (await call(client, "observe", what="tabs"))["tabs"]
    [tab_id] = [t["id"] for t in tabs if t["url"] == url]
    return original, tab_id


async def test_tab_closed_mid_workflow_keeps_the_partial_data(
    driver: webdriver.Chrome, client: Client, site: Site
) -> None:
    original, tab_id = await _new_tab(driver, client, f"{site.url}/scrape/stuck.html?closed")
    cid = await _stuck_scrape(client, site, tab_id)
    driver.close()
    driver.switch_to.window(original)
    out = await poll(client, cid, lambda r: r["status"] not in ("queued", "running"), "the end")
    assert out["status"] == "error" and out["error"] == ErrorCode.TAB_CLOSED
    assert [r["item"] for r in out["data"]] == ["one", "two"]


async def test_service_worker_killed_mid_workflow(
    driver: webdriver.Chrome, client: Client, site: Site
) -> None:
    original, tab_id = await _new_tab(driver, client, f"{site.url}/scrape/stuck.html?killed")
    try:
        cid = await _stuck_scrape(client, site, tab_id)
        browser.kill_service_worker(driver)
        out = await poll(client, cid, lambda r: r["status"] not in ("queued", "running"), "the end")
    finally:
        driver.close()
        driver.switch_to.window(original)
    # The step in flight dies with the worker; what page 1 gave is kept.
    assert out["status"] == "error"
    assert out["error"] in (ErrorCode.EXTENSION_DISCONNECTED, ErrorCode.TIMEOUT)
    assert [r["item"] for r in out["data"]] == ["one", "two"]
    # The browser is usable again right after.
    assert (await call(client, "interact", action="execute_js", script="1 + 1"))["result"] == 2
