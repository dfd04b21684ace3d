"""The popup in real Chromium: its switch and its words never disagree (the "where?" choice is a
half-way state of both), and with everything it can show at once it fits Chrome's 600 px popup."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By

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


# What the worker recorded of the real connection before the test drew a broken one over it.
_CONNECTED: dict[str, Any] = {}


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
    elif _CONNECTED:
        parts.append(f"connection: {json.dumps(_CONNECTED)}")
    _run(driver, f"chrome.storage.session.set({{{', '.join(parts)}}}).then(() => done(null));")
    browser.wait_until(lambda: _visible(driver, "workflow") or None, what="the scrape")
    if request:
        browser.wait_until(lambda: _visible(driver, "site-request") or None, what="the request")
    if broken:
        browser.wait_until(lambda: by_id(driver, "conn-pill").text == "Not connected" or None, what="broken")


def _visible(driver: webdriver.Chrome, element_id: str) -> bool:
    return bool(driver.execute_script(f"return !document.getElementById('{element_id}').hidden"))


# What the popup would need to show all of itself: the body's box, or more when its content overflows it
# (the body is capped at 600 px: content that does not fit would stick out below it and count here;
# what scrolls inside #more or a list is clipped there and does not).
_MEASURE = """
const body = document.body, more = document.getElementById('more');
return {
  height: Math.ceil(Math.max(body.getBoundingClientRect().height, body.scrollHeight)),
  more_scrolls: more.scrollHeight > more.clientHeight + 1,
  more_shown: more.clientHeight,
  more_hidden: more.scrollHeight - more.clientHeight,
};
"""


def _measure(driver: webdriver.Chrome) -> dict[str, Any]:
    return dict(driver.execute_script(_MEASURE))


def _in_view(driver: webdriver.Chrome, css: str) -> bool:
    """Whether every element `css` matches lies wholly inside the scrolling part's visible box."""
    return bool(
        driver.execute_script(
            """
            const box = document.getElementById('more').getBoundingClientRect();
            const found = [...document.querySelectorAll(arguments[0])];
            return found.length > 0 && found.every((e) => {
              const r = e.getBoundingClientRect();
              return r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
            });
            """,
            css,
        )
    )


def _open_lists(driver: webdriver.Chrome) -> list[str]:
    return list(
        driver.execute_script(
            "return [...document.querySelectorAll('details[open] summary')].map((s) => s.textContent)"
        )
    )


def test_every_state_fits_in_600_px(driver: webdriver.Chrome, site: str) -> None:
    host = urlsplit(site).netloc
    allowed = [host, "jira.acme.example", "*.wiki.acme.example"]
    seen: dict[str, dict[str, Any]] = {}
    driver.get(f"{site}/index.html")
    try:
        browser.set_pilot(driver, False)
        set_sites(driver, only=None)
        with opened(driver):
            browser.wait_until(
                lambda: by_id(driver, "conn-pill").text == "Connected" or None, what="connected"
            )
            _CONNECTED.update(
                _run(driver, "chrome.storage.session.get('connection').then((s) => done(s.connection));")
            )
            seen["off, nothing yet"] = _measure(driver)
        browser.set_pilot(driver, True)
        set_sites(driver, only=allowed)
        with opened(driver):
            _busy(driver)
            seen["on for three sites, scraping"] = _measure(driver)
            shoot(driver, "fit-1-on-scraping")
            _busy(driver, request="reports.acme.example", broken=True)
            seen["everything at once, lists closed"] = _measure(driver)
            shoot(driver, "fit-2-everything-lists-closed")
            # Both lists clicked open, as a person might: one stays open (the last), in view.
            for summary in driver.find_elements(By.CSS_SELECTOR, "details.redaction summary"):
                summary.click()
            assert _open_lists(driver) == ["Secret patterns"], _open_lists(driver)
            browser.wait_until(
                lambda: _in_view(driver, "#pattern-list, #pattern-save") or None, what="the list in view"
            )
            seen["everything at once, a list open"] = _measure(driver)
            shoot(driver, "fit-3-everything-a-list-open")
            driver.find_element(By.CSS_SELECTOR, "details.redaction:not(.patterns) summary").click()
            assert _open_lists(driver) == ["Redacted elements"], _open_lists(driver)
            browser.wait_until(
                lambda: _in_view(driver, "#redact-list, #redact-save") or None, what="the list in view"
            )
            seen["everything at once, the other list open"] = _measure(driver)
        browser.set_pilot(driver, False)
        with opened(driver):
            _busy(driver, request="reports.acme.example")
            by_id(driver, "pilot-toggle").click()
            assert _visible(driver, "pilot-choice")
            seen["off, choosing where, a site asked for"] = _measure(driver)
            shoot(driver, "fit-4-choosing-a-site-asked-for")
            _busy(driver, request="reports.acme.example", broken=True)
            driver.find_element(By.CSS_SELECTOR, "details.patterns summary").click()
            browser.wait_until(
                lambda: _in_view(driver, "#pattern-list, #pattern-save") or None, what="the list in view"
            )
            seen["choosing where, not connected, a list open"] = _measure(driver)
            shoot(driver, "fit-5-choosing-a-list-open")
            # The other controls are still at hand while choosing (the list does not push them out).
            for control in ("pilot-this-site", "pilot-all-sites", "pilot-cancel", "site-request-allow"):
                assert shown(driver, control), control
            by_id(driver, "pilot-cancel").click()
        many = [*allowed, *(f"app{n}.acme.example" for n in range(12))]
        set_sites(driver, only=many)
        with opened(driver):
            _busy(driver, request="reports.acme.example")
            seen["fifteen sites, scraping, a site asked for"] = _measure(driver)
            shoot(driver, "fit-6-fifteen-sites")
            # The site list scrolls in place; what is under it stays in reach.
            assert driver.execute_script(
                "const l = document.getElementById('site-list'); return l.scrollHeight > l.clientHeight"
            )
            assert _in_view(driver, "#site-add-input")
    finally:
        with opened(driver):
            _run(driver, "chrome.storage.session.remove(['siteRequest', 'workflow']).then(() => done(null));")
            if _CONNECTED:
                _run(
                    driver,
                    f"chrome.storage.session.set({{connection: {json.dumps(_CONNECTED)}}}).then(done);",
                )
        set_sites(driver, only=None)
        browser.set_pilot(driver, True)
    heights = {state: m["height"] for state, m in seen.items()}
    print(f"popup heights: {heights}")
    scrolling = {state: (m["more_shown"], m["more_hidden"]) for state, m in seen.items()}
    print(f"scrolling part (shown, below): {scrolling}")
    assert max(heights.values()) <= POPUP_MAX_PX, heights
    # The usual states show everything at once; only a crowd (a broken connection, a request and a
    # scrape together, or a list opened) scrolls the lower part, which then still shows most of itself.
    usual = ["off, nothing yet", "on for three sites, scraping", "off, choosing where, a site asked for"]
    assert all(seen[state]["more_hidden"] <= 1 for state in usual), seen
    assert all(m["more_shown"] >= 250 for m in seen.values() if m["more_hidden"] > 1), seen
