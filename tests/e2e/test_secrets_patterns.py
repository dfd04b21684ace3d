"""The secret-shaped text list is the user's: shown and edited in the popup next to the selector
list, carried into every page command, refused when a line is not a regular expression. The agent
can add patterns (configure add_secret_pattern), never remove one."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from mcp import Client
from selenium import webdriver
from selenium.webdriver.common.by import By

from tabpilot.wire.errors import ErrorCode
from tabpilot.wire.secret_patterns import DEFAULT_PATTERNS
from tests.support import browser
from tests.support.mcp_client import call, call_error
from tests.support.popup import allow_scripts_on
from tests.support.snap import snapshot

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module", autouse=True)
def _scripts_allowed(chromium: browser.Chromium, site: Any) -> None:  # pyright: ignore[reportUnusedFunction]
    """Pages here hold secrets on purpose; the agent's scripts on them run with the person's consent
    (given in the popup), so what is tested is what those scripts can still see."""
    allow_scripts_on(chromium, site)


@contextmanager
def popup(driver: webdriver.Chrome) -> Iterator[None]:
    """The popup in its own tab for the block, with the patterns section open."""
    original = driver.current_window_handle
    driver.switch_to.new_window("tab")
    try:
        driver.get(browser.POPUP_URL)
        browser.wait_until(lambda: driver.find_element(By.ID, "pattern-list").get_attribute("value") or None)
        driver.find_element(By.CSS_SELECTOR, ".patterns summary").click()
        yield
    finally:
        driver.close()
        driver.switch_to.window(original)


def _save(driver: webdriver.Chrome, text: str, expect: str) -> None:
    area = driver.find_element(By.ID, "pattern-list")
    area.clear()
    area.send_keys(text)
    driver.find_element(By.ID, "pattern-save").click()
    status = driver.find_element(By.ID, "pattern-status")
    browser.wait_until(lambda: expect in status.text or None, what=expect)


async def test_patterns_are_edited_in_the_popup(driver: webdriver.Chrome, client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/secrets/hostile.html")
    text = (await snapshot(client))["text"]
    assert "Order 12345678" in text and "4111 1111 1111 1111" not in text
    with popup(driver):
        area = driver.find_element(By.ID, "pattern-list")
        assert area.get_attribute("value").splitlines() == list(DEFAULT_PATTERNS)
        _save(driver, "Order [0-9]{8}\n(unclosed", "not a regular expression: (unclosed")
        _save(driver, "Order [0-9]{8}", "saved (1)")
    text = (await snapshot(client))["text"]
    # The user's list is the list: their own pattern masks, the card pattern they dropped does not.
    assert "Order 12345678" not in text and "[REDACTED] costs $1,234.56" in text
    assert "4111 1111 1111 1111" in text
    found = await call(client, "interact", action="execute_js", script="document.body.innerText")
    assert "Order 12345678" not in found["result"] and found["redacted"] >= 1
    with popup(driver):
        driver.find_element(By.ID, "pattern-reset").click()
        browser.wait_until(
            lambda: "defaults restored" in driver.find_element(By.ID, "pattern-status").text or None
        )
    text = (await snapshot(client))["text"]
    assert "Order 12345678" in text and "4111 1111 1111 1111" not in text


async def test_the_agent_can_add_patterns_never_remove(
    driver: webdriver.Chrome, client: Client, site: str
) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/secrets/hostile.html")
    for bad in (["(unclosed"], ["x*"], [""], ["Order [0-9]{8}", "[z-a]"]):
        err = await call_error(client, "configure", action="add_secret_pattern", patterns=bad)
        assert err["error"] == ErrorCode.INVALID_PARAMS, (bad, err)
    assert "Order 12345678" in (await snapshot(client))["text"]  # nothing of a refused call was kept
    out = await call(client, "configure", action="add_secret_pattern", patterns=["Order [0-9]{8}"])
    assert out == {"added": ["Order [0-9]{8}"], "patterns": ["Order [0-9]{8}"]}
    text = (await snapshot(client))["text"]
    # Added to the user's list, not in place of it: the card stays masked.
    assert "Order 12345678" not in text and "4111 1111 1111 1111" not in text and "owner Alice" in text
    with popup(driver):
        shown = driver.find_element(By.ID, "pattern-list").get_attribute("value").splitlines()
        assert shown == list(DEFAULT_PATTERNS)  # the popup's list is the user's own
