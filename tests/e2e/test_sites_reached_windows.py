"""With "only these sites", a link the agent's script made carries no person's click outside, also
when the script made it in another window it can reach: a window the page opened (kept in a global)
is of the same origin, so a script in the opener writes a link into it. The person's click on that
link in the opened window is stopped before its request, as in the document the script ran in. Real
Chromium, the real MCP client, a person's clicks through WebDriver."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mcp import Client
from selenium import webdriver
from selenium.webdriver.common.by import By

from tests.support import browser
from tests.support.logged import Logged, serve_logged
from tests.support.mcp_client import call
from tests.support.popup import only_site_of

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def outside() -> Iterator[Logged]:
    with serve_logged({"/landed?reached": "<!doctype html><title>Outside</title><p>outside</p>"}) as s:
        yield s


@pytest.fixture(scope="module")
def inside() -> Iterator[Logged]:
    opener = (
        "<!doctype html><title>Opener</title>"
        "<button id='pop' onclick=\"window.popup = window.open('/opened', 'opened')\">open</button>"
    )
    opened = "<!doctype html><title>Opened</title><p>opened</p>"
    with serve_logged({"/opener": opener, "/opened": opened}) as s:
        yield s


@pytest.fixture
def only_inside(driver: webdriver.Chrome, inside: Logged) -> Iterator[None]:
    with only_site_of(driver, inside.url):
        yield


def _window_showing(driver: webdriver.Chrome, url: str) -> str:
    def found() -> str | None:
        for handle in driver.window_handles:
            driver.switch_to.window(handle)
            if driver.current_url == url:
                return handle
        return None

    return browser.wait_until(found, what=f"a window showing {url}")


async def test_a_link_the_agents_script_made_in_an_opened_window_does_not_carry_the_click_outside(
    client: Client, driver: webdriver.Chrome, only_inside: None, inside: Logged, outside: Logged
) -> None:
    tab = (await call(client, "interact", action="navigate", url=f"{inside.url}/opener"))["tab_id"]
    here = driver.current_window_handle
    try:
        _window_showing(driver, f"{inside.url}/opener")
        driver.find_element(By.ID, "pop").click()  # the person opens the window
        _window_showing(driver, f"{inside.url}/opened")
        browser.wait_until(
            lambda: driver.execute_script("return document.readyState") == "complete" or None, what="load"
        )
    finally:
        driver.switch_to.window(here)
    script = (
        "const a = popup.document.createElement('a'); a.id = 'made';"
        f" a.href = {f'{outside.url}/landed?reached'!r}; a.textContent = 'made';"
        " popup.document.body.prepend(a); 1"
    )
    await call(client, "interact", action="execute_js", script=script, tab_id=tab)
    loads = inside.gets("/opened")
    try:
        _window_showing(driver, f"{inside.url}/opened")
        driver.find_element(By.ID, "made").click()
    finally:
        driver.switch_to.window(here)
    # Either the click went out, or its load was stopped and the tab taken back to the page it showed
    # (loaded once more). Waiting for the tab to show the link's address raced with the taking back.
    browser.wait_until(
        lambda: outside.seen() or inside.gets("/opened") > loads or None, what="the click's load to end"
    )
    assert outside.seen() == []
