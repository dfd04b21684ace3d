"""The popup in real Chromium: its switch and its words never disagree (the "where?" choice is a
half-way state of both), and with everything it can show at once it fits Chrome's 600 px popup."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

import pytest
from selenium import webdriver

from tests.support import browser
from tests.support.popup import by_id, opened, set_sites, shoot, shown

pytestmark = pytest.mark.anyio

# Chrome cuts a popup at 600 px high (and 800 wide); past that it scrolls inside.
POPUP_MAX_PX = 600


def _run(driver: webdriver.Chrome, script: str) -> Any:
    return driver.execute_async_script(f"const done = arguments[arguments.length - 1]; {script}")


def _switch(driver: webdriver.Chrome) -> tuple[bool, bool, str]:
    checked, half = driver.execute_script(
        "const t = document.getElementById('pilot-toggle'); return [t.checked, t.indeterminate];"
    )
    return bool(checked), bool(half), by_id(driver, "pilot-hint").text


def test_the_switch_and_its_words_agree_while_choosing_where(driver: webdriver.Chrome, site: str) -> None:
    browser.set_pilot(driver, False)
    driver.get(f"{site}/index.html")
    try:
        with opened(driver):
            assert _switch(driver)[:2] == (False, False) and _switch(driver)[2].startswith("Off:")
            by_id(driver, "pilot-toggle").click()
            checked, half, hint = _switch(driver)
            assert shown(driver, "pilot-choice")
            assert (checked, half) == (False, True) and hint.startswith("Not on yet"), (checked, half, hint)
            shoot(driver, "choosing-where-half-way")
            by_id(driver, "pilot-toggle").click()  # a second click leaves it off
            assert not shown(driver, "pilot-choice") and _switch(driver)[:2] == (False, False)
            assert _switch(driver)[2].startswith("Off:")
            by_id(driver, "pilot-toggle").click()
            by_id(driver, "pilot-all-sites").click()
            toggle = by_id(driver, "pilot-toggle")
            browser.wait_until(lambda: toggle.get_attribute("data-applied") == "true" or None, what="on")
            checked, half, hint = _switch(driver)
            assert (checked, half) == (True, False) and hint.startswith("On for every site"), hint
    finally:
        browser.set_pilot(driver, True)


def _busy(driver: webdriver.Chrome, *, request: str | None = None, broken: bool = False) -> None:
    """A busy session: a running scrape, a full activity log; a refused site asked for and a broken
    connection when given."""
    now = "Date.now()"
    entries = ", ".join(
        f"{{at: {now} - {i * 61_000}, action: 'extract', count: {i}, site: 'intranet-{i}.example.com'}}"
        for i in range(30)
    )
    workflow = {"status": "running", "label": "wf-nightly-inventory", "steps_total": 9, "steps_completed": 4}
    parts = [
        f"workflow: Object.assign({json.dumps(workflow)}, {{at: {now}, pages: 12, rows: 340}})",
        f"activity: [{entries}]",
    ]
    if request:
        parts.append(f"siteRequest: {{site: {json.dumps(request)}, at: {now}}}")
    if broken:
        parts.append("connection: {state: 'disconnected', error: 'Native host has exited.'}")
    _run(driver, f"chrome.storage.session.set({{{', '.join(parts)}}}).then(() => done(null));")
    browser.wait_until(lambda: _visible(driver, "workflow") or None, what="the scrape")
    if request:
        browser.wait_until(lambda: _visible(driver, "site-request") or None, what="the request")


def _visible(driver: webdriver.Chrome, element_id: str) -> bool:
    return bool(driver.execute_script(f"return !document.getElementById('{element_id}').hidden"))


def _height(driver: webdriver.Chrome) -> int:
    # The body, not the document: a page shorter than the tab it is opened in still fills that tab.
    return int(driver.execute_script("return Math.ceil(document.body.getBoundingClientRect().height)"))


def test_the_popup_fits_in_600_px_in_a_busy_session(driver: webdriver.Chrome, site: str) -> None:
    host = urlsplit(site).netloc
    allowed = [host, "jira.acme.example", "*.wiki.acme.example"]
    heights: dict[str, int] = {}
    driver.get(f"{site}/index.html")
    try:
        browser.set_pilot(driver, True)
        set_sites(driver, only=allowed)
        with opened(driver):
            _busy(driver)
            heights["on for three sites, scraping"] = _height(driver)
            shoot(driver, "busy-on")
        browser.set_pilot(driver, False)
        with opened(driver):
            _busy(driver, request="reports.acme.example")
            by_id(driver, "pilot-toggle").click()
            assert _visible(driver, "pilot-choice")
            heights["off, choosing where, a site asked for"] = _height(driver)
            shoot(driver, "busy-choosing")
            by_id(driver, "pilot-cancel").click()
            # Everything at once, both lists opened by hand: more than a popup holds, so it scrolls.
            _busy(driver, request="reports.acme.example", broken=True)
            for details in driver.find_elements("css selector", "details"):
                details.click()
            crowded = _height(driver)
            shoot(driver, "crowded")
    finally:
        with opened(driver):
            _run(driver, "chrome.storage.session.remove(['siteRequest', 'workflow']).then(() => done(null));")
        set_sites(driver, only=None)
        browser.set_pilot(driver, True)
    print(f"popup heights: {heights}; everything at once, lists open: {crowded} px")
    assert max(heights.values()) <= POPUP_MAX_PX, heights
