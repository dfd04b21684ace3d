"""The popup: every state drawn in real Chromium (and photographed, light and dark), the agent's
recent actions in words, the badge while it acts, and the redaction list editor."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit

import anyio
import pytest
from mcp import Client
from selenium import webdriver
from selenium.webdriver.common.by import By

from tabpilot.demo.server import DEMO_PASSWORD
from tabpilot.wire.errors import ErrorCode
from tests.support import browser
from tests.support.mcp_client import call, call_error
from tests.support.popup import allow_scripts_on, by_id, opened, set_sites, shoot, shown, sites
from tests.support.snap import ref, snapshot

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module", autouse=True)
def _scripts_allowed(chromium: browser.Chromium, site: Any) -> None:  # pyright: ignore[reportUnusedFunction]
    """The fixture pages hold a password field the page filled in; the agent's scripts on them run
    with the person's consent (given in the popup), as this module does not test that consent."""
    allow_scripts_on(chromium, site)


popup = opened


def _badge(driver: webdriver.Chrome) -> str:
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1]; chrome.action.getBadgeText({}).then(done);"
    )


async def test_activity_log_and_badge(driver: webdriver.Chrome, client: Client, site: str) -> None:
    nav = await call(client, "interact", action="navigate", url=f"{site}/private-note.html")
    text = (await snapshot(client))["text"]
    await call(client, "interact", action="fill", ref=ref(text, "password", "Password"), value=DEMO_PASSWORD)
    missing = await call_error(client, "interact", action="execute_js", script="1", tab_id=2**31 - 2)
    assert missing["error"] == ErrorCode.TAB_NOT_FOUND

    with popup(driver):

        def rows() -> list[str]:
            found = driver.find_elements(By.CSS_SELECTOR, "#activity-log li")
            return [" ".join(li.text.split()) for li in found]

        logged = browser.wait_until(lambda: rows() if any("no such tab" in r for r in rows()) else None)
        # Newest first, in words, each on the site it was on: the failed call, the fill, the page.
        host = urlsplit(site).netloc
        assert re.fullmatch(r"\d\d:\d\d ran a script no such tab", logged[0]), logged
        assert any(re.fullmatch(rf"\d\d:\d\d filled in a field on {re.escape(host)}", r) for r in logged)
        assert any(r.endswith(f"opened {host}") for r in logged), logged
        assert nav["tab_id"] and not any("tab " in r for r in logged), logged
        page_text = driver.find_element(By.TAG_NAME, "body").text
        stored = driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "chrome.storage.session.get(null).then((s) => done(JSON.stringify(s)));"
        )
        assert DEMO_PASSWORD not in page_text and DEMO_PASSWORD not in stored

        # While a command runs the badge says so; it goes soon after.
        browser.wait_until(lambda: _badge(driver) == "" or None, what="the badge of earlier calls to clear")
        async with anyio.create_task_group() as tg:

            async def slow() -> None:
                await call(
                    client,
                    "interact",
                    action="execute_js",
                    script="await new Promise((r) => setTimeout(r, 1500)); return 1",
                    tab_id=nav["tab_id"],
                )

            tg.start_soon(slow)
            await anyio.to_thread.run_sync(
                lambda: browser.wait_until(lambda: _badge(driver) == "AI", what="the acting badge")
            )
            assert await anyio.to_thread.run_sync(
                lambda: browser.wait_until(
                    lambda: not driver.find_element(By.ID, "acting").get_attribute("hidden") or None,
                    what="the popup's acting sign",
                )
            )
        browser.wait_until(lambda: _badge(driver) == "" or None, what="the badge to clear")


async def test_redaction_list_is_edited_in_the_popup(
    driver: webdriver.Chrome, client: Client, site: str
) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/private-note.html")
    assert "topsecret-note-42" in (await snapshot(client))["text"]
    with popup(driver):
        area = browser.wait_until(lambda: driver.find_element(By.ID, "redact-list"))
        assert area.get_attribute("value").splitlines() == [
            "input[type=password]",
            "[data-sensitive]",
            "[data-private]",
            ".sensitive",
        ]
        driver.find_element(By.CSS_SELECTOR, ".redaction summary").click()
        area.clear()
        area.send_keys("div[[\n.secret-x")
        driver.find_element(By.ID, "redact-save").click()
        status = driver.find_element(By.ID, "redact-status")
        browser.wait_until(lambda: "not a CSS selector: div[[" in status.text or None, what="the refusal")
        area.clear()
        area.send_keys("input[type=password]\n.secret-x")
        driver.find_element(By.ID, "redact-save").click()
        browser.wait_until(lambda: "saved (2)" in status.text or None, what="the save")
    text = (await snapshot(client))["text"]
    assert "topsecret-note-42" not in text and "[REDACTED]" in text and "public text" in text
    with popup(driver):
        driver.find_element(By.CSS_SELECTOR, ".redaction summary").click()
        driver.find_element(By.ID, "redact-reset").click()
        browser.wait_until(
            lambda: "defaults restored" in driver.find_element(By.ID, "redact-status").text or None
        )
    # Secrecy is never lifted for a document that had it: the note shows again on the next load.
    assert "topsecret-note-42" not in (await snapshot(client))["text"]
    await call(client, "interact", action="navigate", url=f"{site}/private-note.html")
    assert "topsecret-note-42" in (await snapshot(client))["text"]


async def test_popup_shows_the_scrape_the_host_runs(
    driver: webdriver.Chrome, client: Client, site: str
) -> None:
    out = await call(
        client,
        "interact",
        action="scrape",
        operation="workflow",
        name="popup_news",
        steps=[
            {"type": "navigate", "url": f"{site}/index.html"},
            {"type": "extract", "selector": "h1", "schema": {"title": ":scope"}},
        ],
        options={"delay_ms": 0},
    )
    assert out["status"] == "complete" and out["data"]
    with popup(driver):

        def finished() -> str | None:
            text = driver.find_element(By.ID, "workflow").text
            return text if "complete" in text else None

        line = browser.wait_until(finished, what="the scrape's line in the popup")
    rows = len(out["data"])
    assert "popup_news complete" in line and "step 2/2" in line, line
    assert line.endswith(f"· {rows} row{'' if rows == 1 else 's'}"), line


def _session(driver: webdriver.Chrome, script: str) -> object:
    return driver.execute_async_script(f"const done = arguments[arguments.length - 1]; {script}")


async def test_every_state_is_drawn_and_photographed(
    driver: webdriver.Chrome, module_client: Client, site: str
) -> None:
    client = module_client  # the module's bridge: this test needs no new one
    host = urlsplit(site).netloc
    other = site.replace("127.0.0.1", "localhost")
    browser.set_pilot(driver, False)
    set_sites(driver, only=None)
    try:
        # A tab with no web site: "This site" cannot be chosen, and the popup says why.
        driver.get("about:blank")
        with opened(driver):
            by_id(driver, "pilot-toggle").click()
            assert not by_id(driver, "pilot-this-site").is_enabled() and shown(driver, "pilot-this-site-why")
            assert not shown(driver, "this-site")
            assert (
                not by_id(driver, "track-tab").is_enabled()
                and "no web page" in by_id(driver, "track-why").text
            )
            shoot(driver, "0-no-site-in-this-tab")
            by_id(driver, "pilot-cancel").click()
            assert not shown(driver, "pilot-choice") and not by_id(driver, "pilot-toggle").is_selected()
        driver.get(f"{site}/sites/list.html")
        with opened(driver):
            toggle = by_id(driver, "pilot-toggle")
            browser.wait_until(
                lambda: by_id(driver, "conn-pill").text == "Connected" or None, what="connected"
            )
            assert not toggle.is_selected() and by_id(driver, "pilot-hint").text.startswith("Off:")
            assert not shown(driver, "pilot-choice") and not shown(driver, "site-request")
            assert not shown(driver, "connection")  # the details show only when something is wrong
            assert (
                by_id(driver, "this-site-name").text == host
                and by_id(driver, "this-site-button").text == "Allow"
            )
            assert by_id(driver, "scope-all").is_selected()
            shoot(driver, "1-off")

            toggle.click()  # switching on asks where first
            assert shown(driver, "pilot-choice") and not shown(driver, "pilot-this-site-why")
            only = by_id(driver, "pilot-this-site")
            assert (
                only.text == f"Only {host}"
                and only.is_enabled()
                and by_id(driver, "pilot-all-sites").is_enabled()
            )
            shoot(driver, "2-choose-where")
            only.click()
            browser.wait_until(
                lambda: toggle.get_attribute("data-applied") == "true" or None, what="pilot on"
            )
            browser.wait_until(lambda: driver.find_element(By.CSS_SELECTOR, 'body[data-scope="only"]'))
            assert not shown(driver, "pilot-choice") and toggle.is_selected()
            assert by_id(driver, "pilot-hint").text.startswith(f"On for {host} only")
            assert [
                li.text.split("\n")[0] for li in driver.find_elements(By.CSS_SELECTOR, "#site-list li")
            ] == [host]
            assert (
                by_id(driver, "this-site-button").text == "Remove" and by_id(driver, "track-tab").is_enabled()
            )
            shoot(driver, "3-on-for-this-site")

        rows = await call(
            client,
            "interact",
            action="scrape",
            operation="extract",
            selector="table.orders tr",
            schema={"n": ".n"},
        )
        assert [r["n"] for r in rows["data"]] == ["A-1", "A-2"]
        refused = await call_error(client, "interact", action="navigate", url=f"{other}/index.html")
        assert refused["error"] == ErrorCode.SITE_NOT_ALLOWED

        with opened(driver):
            browser.wait_until(lambda: shown(driver, "site-request") or None, what="the agent's request")
            assert by_id(driver, "site-request-name").text == urlsplit(other).netloc
            assert by_id(driver, "site-request-allow").text == f"Allow {urlsplit(other).netloc}"

            def logged() -> list[str]:
                return [
                    " ".join(li.text.split())
                    for li in driver.find_elements(By.CSS_SELECTOR, "#activity-log li")
                ]

            rows_seen = browser.wait_until(lambda: logged() if len(logged()) >= 2 else None, what="the log")
            assert rows_seen[0].endswith(f"tried to open {urlsplit(other).netloc} refused: site not allowed")
            assert any(r.endswith(f"read 2 rows on {host}") for r in rows_seen), rows_seen
            shoot(driver, "4-agent-asks-for-a-site")

        # The person's own tab on a site outside the scope: nothing to track there, and the popup says
        # why. Opened by the person (no opener): a tab the agent's tab opened is piloted, and a piloted
        # tab's loads outside the scope are blocked before they leave.
        agents = driver.current_window_handle
        before = set(driver.window_handles)
        with opened(driver):
            driver.execute_async_script(
                "chrome.tabs.create({url: arguments[0]}).then(() => arguments[1](null));",
                f"{other}/index.html",
            )
        [mine] = browser.wait_until(
            lambda: set(driver.window_handles) - before or None, what="the person's tab"
        )
        driver.switch_to.window(mine)
        try:
            browser.wait_until(
                lambda: (
                    (
                        driver.execute_script("return document.readyState") == "complete"
                        and driver.current_url == f"{other}/index.html"
                    )
                    or None
                ),
                what="the person's tab to load",
            )
            with opened(driver):
                track = by_id(driver, "track-tab")
                assert not track.is_enabled()
                assert "not among the allowed sites" in by_id(driver, "track-why").text
                assert by_id(driver, "this-site-button").text == "Allow"
                shoot(driver, "5-tab-outside-the-sites")

                # What the worker records when the host is not registered.
                before = _session(
                    driver, "chrome.storage.session.get('connection').then((s) => done(s.connection));"
                )
                _session(
                    driver,
                    "chrome.storage.session.set({connection: {state: 'disconnected',"
                    " error: 'Specified native messaging host not found.'}}).then(() => done(null));",
                )
                try:
                    browser.wait_until(lambda: by_id(driver, "conn-pill").text == "Not connected" or None)
                    assert (
                        shown(driver, "connection") and "tabpilot install" in by_id(driver, "connection").text
                    )
                    shoot(driver, "6-not-connected")
                finally:
                    restore = f"chrome.storage.session.set({{connection: {json.dumps(before)}}})"
                    _session(driver, f"{restore}.then(() => done(null));")
        finally:
            driver.close()
            driver.switch_to.window(agents)
    finally:
        browser.set_pilot(driver, False)
        set_sites(driver, only=None)
        browser.set_pilot(driver, True)


async def test_sites_are_added_and_removed_in_the_popup(
    driver: webdriver.Chrome, module_client: Client, site: str
) -> None:
    client = module_client  # the module's bridge: this test needs no new one
    host = urlsplit(site).netloc
    browser.set_pilot(driver, True)
    set_sites(driver, only=[])
    driver.get(f"{site}/index.html")
    try:
        refused = await call_error(client, "interact", action="navigate", url=f"{site}/second.html")
        assert refused["error"] == ErrorCode.SITE_NOT_ALLOWED
        with opened(driver):
            assert by_id(driver, "pilot-hint").text.startswith("On, but no site is allowed yet")
            browser.wait_until(lambda: shown(driver, "site-request") or None, what="the request")
            by_id(driver, "site-request-dismiss").click()
            browser.wait_until(
                lambda: not shown(driver, "site-request") or None, what="the request dismissed"
            )

            field = by_id(driver, "site-add-input")
            field.send_keys("not a site")
            driver.find_element(By.CSS_SELECTOR, "#site-add button").click()
            browser.wait_until(lambda: "not a site" in by_id(driver, "sites-status").text or None)
            assert field.get_attribute("value") == "not a site"  # kept, to be corrected
            field.clear()
            field.send_keys("https://Docs.Example.TEST/guide")
            driver.find_element(By.CSS_SELECTOR, "#site-add button").click()
            browser.wait_until(
                lambda: sites(driver) == ["docs.example.test"] or None, what="the pasted URL's host"
            )
            assert by_id(driver, "sites-status").text == ""

            by_id(driver, "this-site-button").click()  # "Allow" the tab's own site
            browser.wait_until(lambda: sites(driver) == ["docs.example.test", host] or None, what="this site")
            assert by_id(driver, "this-site-button").text == "Remove"
        assert (await call(client, "interact", action="navigate", url=f"{site}/second.html"))["title"]
        with opened(driver):
            by_id(driver, "this-site-button").click()
            browser.wait_until(
                lambda: sites(driver) == ["docs.example.test"] or None, what="this site removed"
            )
    finally:
        set_sites(driver, only=None)
