"""Loads outside the scope that no running command hears of, in real Chromium through the real MCP
client, with "only these sites": a script the agent ran that sets location.href answers
site_not_allowed, not success; one that navigates after its call answered (a timer), and a person who
takes a piloted tab to a site outside, are stopped before the request, the tab is taken back from
Chrome's "blocked" page, and the agent's next call on that tab says what happened (site_not_allowed
naming the site), once. The person's own way out goes through: an address typed, or a link clicked
(never a script's click, nor a script's navigation during the person's click on another link)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import anyio
import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By

from tabpilot import paths
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
    start = (
        f'<!doctype html><title>Start</title><a id="away" href="{outside.url}/landed">away</a>'
        ' <a id="stay" href="/start?stay">stay</a>'
        f' <a id="newtab" href="{outside.url}/landed?tab" target="_blank">new tab</a>'
    )
    with serve_logged({"/start": start}) as s:
        yield s


@pytest.fixture
def only_inside(driver: webdriver.Chrome, inside: Logged) -> Iterator[None]:
    with only_site_of(driver, inside.url):
        yield


async def _taken_back(inside: Logged, before: int) -> None:
    """Wait (bounded) until the tab was taken back: the allowed page is loaded once more."""
    with anyio.fail_after(10):
        while inside.gets("/start") <= before:
            await anyio.sleep(0.05)  # polling a condition, bounded above


async def _told_once(client: Any, tab: int, outside: Logged) -> None:
    """The next call on the tab says what happened; the one after acts as usual."""
    result = await client.call_tool("interact", {"action": "execute_js", "script": "1", "tab_id": tab})
    data = payload(result)
    assert result.is_error, data
    assert data["error"] == "site_not_allowed", data
    assert data["data"]["site"] == urlsplit(outside.url).netloc, data
    again = await call(client, "interact", action="execute_js", script="document.title", tab_id=tab)
    assert "Start" in str(again), again


async def test_a_script_navigation_outside_is_not_success(
    client: Any, only_inside: None, inside: Logged, outside: Logged
) -> None:
    tab = (await call(client, "interact", action="navigate", url=f"{inside.url}/start"))["tab_id"]
    before = len(outside.seen())
    result = await client.call_tool(
        "interact",
        {
            "action": "execute_js",
            "script": "location.href = document.querySelector('#away').href; 7",
            "tab_id": tab,
        },
    )
    data = payload(result)
    assert result.is_error, data
    assert data["error"] == "site_not_allowed", data
    assert data["data"]["site"] == urlsplit(outside.url).netloc, data
    # Told already: the next call acts on the tab (taken back to the allowed page).
    with anyio.fail_after(10):
        while True:
            again = await client.call_tool(
                "interact", {"action": "execute_js", "script": "document.title", "tab_id": tab}
            )
            if not again.is_error and "Start" in str(payload(again)):
                break
            assert payload(again).get("error") != "site_not_allowed", payload(again)
            await anyio.sleep(0.05)  # the tab is still being taken back
    assert outside.seen()[before:] == []


async def test_a_late_script_navigation_is_told_on_the_next_call(
    client: Any, only_inside: None, inside: Logged, outside: Logged
) -> None:
    tab = (await call(client, "interact", action="navigate", url=f"{inside.url}/start"))["tab_id"]
    before, loads = len(outside.seen()), inside.gets("/start")
    script = "setTimeout(() => { location.href = document.querySelector('#away').href }, 50); 7"
    assert await call(client, "interact", action="execute_js", script=script, tab_id=tab) is not None
    await _taken_back(inside, loads)
    await _told_once(client, tab, outside)
    assert outside.seen()[before:] == []


async def test_a_load_no_call_started_from_outside_the_page_is_stopped_and_told(
    client: Any, driver: webdriver.Chrome, only_inside: None, inside: Logged, outside: Logged
) -> None:
    """Another extension page moving a piloted tab (as the agent's own navigate does, but with no call
    running): stopped and taken back like a page's own load."""
    tab = (await call(client, "interact", action="navigate", url=f"{inside.url}/start"))["tab_id"]
    before, loads = len(outside.seen()), inside.gets("/start")
    here = driver.current_window_handle
    driver.switch_to.new_window("tab")
    driver.get(f"{paths.EXTENSION_ORIGIN}popup.css")
    try:
        driver.execute_async_script(
            "chrome.tabs.update(arguments[0], {url: arguments[1]}).then(() => arguments[2](true));",
            tab,
            f"{outside.url}/landed",
        )
    finally:
        driver.close()
        driver.switch_to.window(here)
    await _taken_back(inside, loads)
    await _told_once(client, tab, outside)
    assert outside.seen()[before:] == []


def _switch_to(driver: webdriver.Chrome, url: str) -> None:
    for handle in driver.window_handles:
        driver.switch_to.window(handle)
        if driver.current_url.startswith(url):
            return
    raise AssertionError(f"no window shows {url}")


async def test_a_person_taking_a_piloted_tab_outside_goes_there_out_of_the_agents_reach(
    client: Any, driver: webdriver.Chrome, only_inside: None, inside: Logged, outside: Logged
) -> None:
    tab = (await call(client, "interact", action="navigate", url=f"{inside.url}/start"))["tab_id"]
    here = driver.current_window_handle
    # As from the address bar: a load the browser starts with no initiator (no page, no extension).
    _switch_to(driver, f"{inside.url}/start")
    driver.execute_cdp_cmd("Page.navigate", {"url": f"{outside.url}/landed?typed", "transitionType": "typed"})
    driver.switch_to.window(here)
    with anyio.fail_after(10):
        while not any(path == "/landed?typed" for _, path, _ in outside.seen()):
            await anyio.sleep(0.05)  # polling a condition, bounded above
    # The person's page is out of the agent's reach: every call on the tab says why, none reads it.
    for tool, args in (
        ("interact", {"action": "execute_js", "script": "document.body.innerText"}),
        ("observe", {"what": "page"}),
    ):
        with anyio.fail_after(10):
            while True:
                result = await client.call_tool(tool, {**args, "tab_id": tab})
                data = payload(result)
                assert result.is_error, data
                assert "ZEBRAPAGE" not in str(data), data
                if data["data"].get("site") == urlsplit(outside.url).netloc:
                    break
                await anyio.sleep(0.05)  # the person's load may still be on its way
        assert data["error"] == "site_not_allowed", data
    # The agent taking the tab back into the scope pilots it again: a page's load outside is stopped.
    await call(client, "interact", action="navigate", url=f"{inside.url}/start", tab_id=tab)
    before = len(outside.seen())
    result = await client.call_tool(
        "interact",
        {
            "action": "execute_js",
            "script": "location.href = document.querySelector('#away').href",
            "tab_id": tab,
        },
    )
    assert payload(result).get("error") == "site_not_allowed", payload(result)
    await _back_on_start(client, tab, inside)
    assert outside.seen()[before:] == []


async def _back_on_start(client: Any, tab: int, inside: Logged) -> None:
    with anyio.fail_after(10):
        while True:
            tabs = (await call(client, "observe", what="tabs"))["tabs"]
            if any(t["id"] == tab and t["url"].startswith(f"{inside.url}/start") for t in tabs):
                return
            await anyio.sleep(0.05)  # polling a condition, bounded above


async def test_after_a_worker_restart_a_page_load_outside_is_stopped_and_taken_back(
    client: Any, driver: webdriver.Chrome, only_inside: None, inside: Logged, outside: Logged
) -> None:
    tab = (await call(client, "interact", action="navigate", url=f"{inside.url}/start"))["tab_id"]
    before, loads = len(outside.seen()), inside.gets("/start")
    browser.kill_service_worker(driver)
    # The page itself leaves while the worker is stopped (or just restarting): no command of the agent
    # is under way, so only what the worker set up before (or does from its first moment) can act.
    here = driver.current_window_handle
    _switch_to(driver, f"{inside.url}/start")
    driver.execute_script(f"location.href = {f'{outside.url}/landed'!r}")
    driver.switch_to.window(here)
    await _taken_back(inside, loads)
    await _told_once(client, tab, outside)
    assert outside.seen()[before:] == []


async def test_a_page_going_back_to_a_typed_entry_behind_other_tabs_is_stopped(
    client: Any, driver: webdriver.Chrome, only_inside: None, inside: Logged, outside: Logged
) -> None:
    """A load with no initiator counts as the person's only in the active tab: a page's history.back() to
    an entry the person typed (no initiator either) in a tab behind others is stopped and taken back."""
    here = driver.current_window_handle
    front = next(t["id"] for t in (await call(client, "observe", what="tabs"))["tabs"] if t.get("active"))
    driver.switch_to.new_window("tab")
    try:
        driver.get(f"{outside.url}/landed?typed")  # the person, before the agent came to this tab
        driver.get(f"{inside.url}/start")
        tabs = (await call(client, "observe", what="tabs"))["tabs"]
        [tab] = [t["id"] for t in tabs if t.get("active") and t["url"].startswith(f"{inside.url}/start")]
        before, loads = len(outside.seen()), inside.gets("/start")
        # Back to the typed entry as soon as the tab is behind another (no timer to race).
        script = "document.addEventListener('visibilitychange', () => history.back(), { once: true }); 1"
        await call(client, "interact", action="execute_js", script=script, tab_id=tab)
        await call(client, "interact", action="switch_tab", tab_id=front)
        await _taken_back(inside, loads)
        await _told_once(client, tab, outside)
        assert outside.seen()[before:] == []
    finally:
        driver.close()
        driver.switch_to.window(here)


async def test_a_link_the_person_clicks_goes_through_and_a_script_cannot_ride_on_it(
    client: Any, driver: webdriver.Chrome, only_inside: None, inside: Logged, outside: Logged
) -> None:
    tab = (await call(client, "interact", action="navigate", url=f"{inside.url}/start"))["tab_id"]
    before, loads = len(outside.seen()), inside.gets("/start")
    # A script's click on the link, after its call answered: stopped before its request.
    script = "setTimeout(() => document.querySelector('#away').click(), 50); 1"
    await call(client, "interact", action="execute_js", script=script, tab_id=tab)
    await _taken_back(inside, loads)
    await _told_once(client, tab, outside)
    # A script that turns the person's click on an allowed link into a load outside: stopped too.
    loads = inside.gets("/start")
    script = (
        "document.addEventListener('click', (e) => { e.preventDefault();"
        " location.href = document.querySelector('#away').href; }, true); 1"
    )
    await call(client, "interact", action="execute_js", script=script, tab_id=tab)
    here = driver.current_window_handle
    _switch_to(driver, f"{inside.url}/start")
    driver.find_element(By.ID, "stay").click()
    driver.switch_to.window(here)
    await _taken_back(inside, loads)
    await _told_once(client, tab, outside)
    assert outside.seen()[before:] == []
    # The person's own click on the link outside: it goes there, out of the agent's reach (in a document
    # no script of the agent ran in: test_sites_rewritten_links.py).
    await call(client, "interact", action="navigate", url=f"{inside.url}/start", tab_id=tab)
    _switch_to(driver, f"{inside.url}/start")
    driver.find_element(By.ID, "away").click()
    driver.switch_to.window(here)
    with anyio.fail_after(10):
        while not any(path == "/landed" for _, path, _ in outside.seen()[before:]):
            await anyio.sleep(0.05)  # polling a condition, bounded above
    with anyio.fail_after(10):
        while True:
            result = await client.call_tool(
                "interact", {"action": "execute_js", "script": "document.body.innerText", "tab_id": tab}
            )
            data = payload(result)
            assert result.is_error, data
            assert "ZEBRAPAGE" not in str(data), data
            if data["data"].get("site") == urlsplit(outside.url).netloc:
                break
            await anyio.sleep(0.05)  # the person's load may still be on its way
    assert data["error"] == "site_not_allowed", data


async def test_a_link_the_person_opens_in_a_new_tab_from_a_piloted_tab_goes_through(
    client: Any, driver: webdriver.Chrome, only_inside: None, inside: Logged, outside: Logged
) -> None:
    await call(client, "interact", action="navigate", url=f"{inside.url}/start")
    here = driver.current_window_handle
    handles = set(driver.window_handles)
    _switch_to(driver, f"{inside.url}/start")
    driver.find_element(By.ID, "newtab").click()
    try:
        with anyio.fail_after(10):
            while not any(path == "/landed?tab" for _, path, _ in outside.seen()):
                await anyio.sleep(0.05)  # polling a condition, bounded above
    finally:
        for handle in set(driver.window_handles) - handles:
            driver.switch_to.window(handle)
            driver.close()
        driver.switch_to.window(here)
