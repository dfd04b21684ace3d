"""The popup: the agent's recent actions, the badge while it acts, and the redaction list editor."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import anyio
import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By

from tabpilot.demo.server import DEMO_PASSWORD
from tabpilot.wire.errors import ErrorCode
from tests.support import browser
from tests.support.mcp_client import call, call_error, mcp_client
from tests.support.snap import ref, snapshot

pytestmark = pytest.mark.anyio


@contextmanager
def popup(driver: webdriver.Chrome) -> Iterator[None]:
    """The popup page open in its own tab for the block; the test's tab is restored after."""
    original = driver.current_window_handle
    driver.switch_to.new_window("tab")
    try:
        driver.get(browser.POPUP_URL)
        yield
    finally:
        driver.close()
        driver.switch_to.window(original)


def _badge(driver: webdriver.Chrome) -> str:
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1]; chrome.action.getBadgeText({}).then(done);"
    )


async def test_activity_log_and_badge(driver: webdriver.Chrome, env: dict[str, str], site: str) -> None:
    browser.set_pilot(driver, True)
    async with mcp_client(env) as client:
        nav = await call(client, "interact", action="navigate", url=f"{site}/private-note.html")
        text = (await snapshot(client))["text"]
        await call(
            client, "interact", action="fill", ref=ref(text, "password", "Password"), value=DEMO_PASSWORD
        )
        missing = await call_error(client, "interact", action="execute_js", script="1", tab_id=2**31 - 2)
        assert missing["error"] == ErrorCode.TAB_NOT_FOUND

        with popup(driver):

            def rows() -> list[str]:
                return [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#activity-log li")]

            shown = browser.wait_until(lambda: rows() if any("tab_not_found" in r for r in rows()) else None)
            # Newest first: the failed call, then the fill and the navigation, each with its tab.
            assert "execute_js" in shown[0] and f"tab {2**31 - 2}" in shown[0]
            assert any("fill" in r and r.endswith("ok") for r in shown), shown
            assert any("navigate" in r and f"tab {nav['tab_id']}" in r for r in shown)
            page_text = driver.find_element(By.TAG_NAME, "body").text
            stored = driver.execute_async_script(
                "const done = arguments[arguments.length - 1];"
                "chrome.storage.session.get(null).then((s) => done(JSON.stringify(s)));"
            )
            assert DEMO_PASSWORD not in page_text and DEMO_PASSWORD not in stored

            # While a command runs the badge says so; it goes soon after.
            browser.wait_until(
                lambda: _badge(driver) == "" or None, what="the badge of earlier calls to clear"
            )
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
    driver: webdriver.Chrome, env: dict[str, str], site: str
) -> None:
    browser.set_pilot(driver, True)
    async with mcp_client(env) as client:
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
        assert "topsecret-note-42" in (await snapshot(client))["text"]


async def test_popup_shows_the_scrape_the_host_runs(
    driver: webdriver.Chrome, env: dict[str, str], site: str
) -> None:
    browser.set_pilot(driver, True)
    async with mcp_client(env) as client:
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
    assert "popup_news" in line and "step 2/2" in line and f"{len(out['data'])} row(s)" in line, line
