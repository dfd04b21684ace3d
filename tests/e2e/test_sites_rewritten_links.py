"""With "only these sites", the person's own click on a link to a site outside goes through only for a
link as the page made it: one whose href a page script rewrote after it came into the document (while
the page parsed, once it had loaded, or while it was taken out), a relative link under a <base> a
script moved to another site, and any link in a document the agent ran a script in (which can make or
remake any link, a frame's included) are stopped before their request, the tab is taken back and the
agent's next call says site_not_allowed. Real Chromium, the real MCP client, a person's clicks through
WebDriver."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import anyio
import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By

from tabpilot.wire.errors import ErrorCode
from tests.support import browser
from tests.support.logged import Logged, serve_logged
from tests.support.mcp_client import call, payload
from tests.support.popup import only_site_of

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def outside() -> Iterator[Logged]:
    with serve_logged({"/landed": "<!doctype html><title>Outside</title><p>outside ZEBRAPAGE</p>"}) as s:
        yield s


@pytest.fixture(scope="module")
def inside(outside: Logged) -> Iterator[Logged]:
    away = f"{outside.url}/landed"
    start = (
        "<!doctype html><title>Start</title>"
        '<a id="parsed" href="/start?one">one</a> <a id="loaded" href="/start?two">two</a>'
        ' <a id="relative" href="landed?base">three</a>'
        f' <a id="plain" href="{away}?plain">four</a> <a id="relinked" href="/start?five">five</a>'
        f"<script>document.getElementById('parsed').href = {f'{away}?parsed'!r};"
        "addEventListener('load', () => {"
        f" document.getElementById('loaded').href = {f'{away}?loaded'!r};"
        " const base = document.createElement('base');"
        f" base.href = {f'{outside.url}/'!r}; document.head.append(base);"
        # Taken out, changed once nothing watches it any more (a task later), put back.
        " const relinked = document.getElementById('relinked'); relinked.remove();"
        f" setTimeout(() => {{ relinked.href = {f'{away}?relinked'!r}; document.body.append(relinked);"
        " document.body.dataset.ready = 'yes'; }, 0); });</script>"
    )
    with serve_logged({"/start": start}) as s:
        yield s


@pytest.fixture
def only_inside(driver: webdriver.Chrome, inside: Logged) -> Iterator[None]:
    with only_site_of(driver, inside.url):
        yield


def _person_clicks(driver: webdriver.Chrome, url: str, link: str, frame: str | None = None) -> None:
    """The person clicks `link` (an id) in the window showing `url` (in its frame `frame`, an id), once
    the page's scripts ran."""
    here = driver.current_window_handle
    for handle in driver.window_handles:
        driver.switch_to.window(handle)
        if driver.current_url.startswith(url):
            break
    else:
        raise AssertionError(f"no window shows {url}")
    try:
        browser.wait_until(
            lambda: driver.execute_script("return document.body.dataset.ready"), what="page ready"
        )
        if frame is not None:
            driver.switch_to.frame(driver.find_element(By.ID, frame))
            browser.wait_until(lambda: driver.find_elements(By.ID, link), what="the frame's link")
        driver.find_element(By.ID, link).click()
    finally:
        driver.switch_to.window(here)


async def _stopped_and_told(client: Any, inside: Logged, outside: Logged, tab: int, loads: int) -> None:
    """The load was stopped and the tab taken back (the start page loaded again); the next call says so."""
    with anyio.fail_after(10):
        while inside.gets("/start") <= loads:
            await anyio.sleep(0.05)  # polling a condition, bounded above
    result = await client.call_tool("interact", {"action": "execute_js", "script": "1", "tab_id": tab})
    data = payload(result)
    assert result.is_error, data
    assert data["error"] == ErrorCode.SITE_NOT_ALLOWED, data
    assert data["data"]["site"] == urlsplit(outside.url).netloc, data


@pytest.mark.parametrize("link", ["parsed", "loaded", "relative", "relinked"])
async def test_a_link_a_page_script_rewrote_does_not_carry_the_persons_click_outside(
    client: Any, driver: webdriver.Chrome, only_inside: None, inside: Logged, outside: Logged, link: str
) -> None:
    tab = (await call(client, "interact", action="navigate", url=f"{inside.url}/start"))["tab_id"]
    before, loads = len(outside.seen()), inside.gets("/start")
    _person_clicks(driver, f"{inside.url}/start", link)
    await _stopped_and_told(client, inside, outside, tab, loads)
    assert outside.seen()[before:] == []


async def test_a_link_in_a_document_the_agents_script_ran_in_does_not_carry_the_click_outside(
    client: Any, driver: webdriver.Chrome, only_inside: None, inside: Logged, outside: Logged
) -> None:
    tab = (await call(client, "interact", action="navigate", url=f"{inside.url}/start"))["tab_id"]
    # A link the agent's script makes is not the page's own.
    script = (
        f"const a = document.createElement('a'); a.id = 'made'; a.href = {f'{outside.url}/landed?made'!r};"
        " a.textContent = 'made'; document.body.prepend(a); 1"
    )
    await call(client, "interact", action="execute_js", script=script, tab_id=tab)
    before, loads = len(outside.seen()), inside.gets("/start")
    _person_clicks(driver, f"{inside.url}/start", "made")
    await _stopped_and_told(client, inside, outside, tab, loads)
    assert outside.seen()[before:] == []


async def test_a_link_in_a_frame_the_agents_script_added_does_not_carry_the_click_outside(
    client: Any, driver: webdriver.Chrome, only_inside: None, inside: Logged, outside: Logged
) -> None:
    tab = (await call(client, "interact", action="navigate", url=f"{inside.url}/start"))["tab_id"]
    # A frame of a document of its own, its link leading the whole tab outside.
    link = f'<a id="inframe" target="_top" href="{outside.url}/landed?frame">out</a>'
    script = (
        f"const f = document.createElement('iframe'); f.id = 'added'; f.srcdoc = {link!r};"
        " document.body.prepend(f); 1"
    )
    await call(client, "interact", action="execute_js", script=script, tab_id=tab)
    before, loads = len(outside.seen()), inside.gets("/start")
    _person_clicks(driver, f"{inside.url}/start", "inframe", frame="added")
    await _stopped_and_told(client, inside, outside, tab, loads)
    assert outside.seen()[before:] == []


async def test_a_link_as_the_page_made_it_still_takes_the_person_outside(
    client: Any, driver: webdriver.Chrome, only_inside: None, inside: Logged, outside: Logged
) -> None:
    """The same page, its base moved: a link with an address of its own is untouched by that."""
    await call(client, "interact", action="navigate", url=f"{inside.url}/start")
    _person_clicks(driver, f"{inside.url}/start", "plain")
    with anyio.fail_after(10):
        while not any(path == "/landed?plain" for _, path, _ in outside.seen()):
            await anyio.sleep(0.05)  # polling a condition, bounded above
