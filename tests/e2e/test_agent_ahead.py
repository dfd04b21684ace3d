"""The page agent is in a page the pilot opened or moved before the first command needs it (injected as
the page commits), and nowhere else: not in the person's own tabs, not on a site outside the scope, not
after the pilot was switched off. Whether a tab's document holds the agent is asked from an extension
page (the extension's isolated world is one for all its contexts); asking never injects it. The
redaction watcher that every document gets from document_start while the pilot is on is not the agent:
the probe asks for a command only the agent has."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

import pytest
from mcp import Client
from selenium import webdriver

from tabpilot import paths
from tests.support import browser
from tests.support.mcp_client import call
from tests.support.popup import set_sites

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("pilot_on")]

PROBE = """
const [tabId, done] = arguments;
const func = () => Boolean(globalThis.__tabpilotAgent?.commands?.extract);
chrome.scripting.executeScript({ target: { tabId }, func })
  .then(([first]) => done(first.result), (err) => done(String(err)));
"""


@contextmanager
def prober(driver: webdriver.Chrome) -> Iterator[Callable[[int], bool]]:
    """`has_agent(tab_id)`, asked from an extension page kept open in its own tab for the block."""
    original = driver.current_window_handle
    driver.switch_to.new_window("tab")
    driver.get(f"{paths.EXTENSION_ORIGIN}popup.css")
    probe = driver.current_window_handle
    driver.switch_to.window(original)

    def has_agent(tab_id: int) -> bool:
        here = driver.current_window_handle
        driver.switch_to.window(probe)
        try:
            out = driver.execute_async_script(PROBE, tab_id)
        finally:
            driver.switch_to.window(here)
        assert isinstance(out, bool), out
        return out

    try:
        yield has_agent
    finally:
        driver.switch_to.window(probe)
        driver.close()
        driver.switch_to.window(original)


def injected(has_agent: Callable[[int], bool], tab_id: int) -> None:
    """Tab `tab_id`'s page gets the agent, within a few seconds of a load the person made."""
    browser.wait_until(lambda: has_agent(tab_id), timeout_s=5, what=f"the agent in tab {tab_id}")


def _person_tab(driver: webdriver.Chrome, url: str) -> int:
    """Open `url` in a tab as the person does (from an extension page: no opener); its tab id."""
    here = driver.current_window_handle
    driver.switch_to.new_window("tab")
    driver.get(f"{paths.EXTENSION_ORIGIN}popup.css")
    try:
        tab_id = driver.execute_async_script(
            "chrome.tabs.create({url: arguments[0], active: false}).then((t) => arguments[1](t.id));", url
        )
    finally:
        driver.close()
        driver.switch_to.window(here)
    assert isinstance(tab_id, int), tab_id
    return tab_id


def _other(url: str) -> str:
    """The same test server under another name: another site."""
    return url.replace("127.0.0.1", "localhost")


def _handle_of(driver: webdriver.Chrome, before: set[str]) -> str:
    """The window handle of the one tab opened since `before` was taken."""
    [handle] = browser.wait_until(
        lambda: list(set(driver.window_handles) - before) or None, what="the new tab"
    )
    return handle


async def test_the_agent_is_there_once_the_pilot_opens_or_moves_a_page(
    driver: webdriver.Chrome, client: Client, site: str
) -> None:
    with prober(driver) as has_agent:
        # A tab the person opened has no agent until a command needs it (the probe works).
        home = driver.current_window_handle
        driver.switch_to.new_window("tab")
        driver.get(f"{site}/second.html")
        tabs = (await call(client, "observe", what="tabs"))["tabs"]
        [mine] = [t["id"] for t in tabs if t["url"] == f"{site}/second.html"]
        assert has_agent(mine) is False
        await call(client, "observe", what="page", tab_id=mine)
        assert has_agent(mine) is True
        driver.close()
        driver.switch_to.window(home)

        tab = (await call(client, "interact", action="new_tab", url=f"{site}/index.html", active=False))[
            "tab_id"
        ]
        assert has_agent(tab)
        await call(client, "interact", action="navigate", url=f"{site}/second.html", tab_id=tab)
        assert has_agent(tab)
        await call(client, "interact", action="back", tab_id=tab)
        assert has_agent(tab)
        clicked = await call(client, "interact", action="click", selector="a[href='second.html']", tab_id=tab)
        assert clicked["navigated"] is True
        assert has_agent(tab)
        await call(client, "interact", action="reload", tab_id=tab)
        assert has_agent(tab)
        await call(client, "interact", action="close_tab", tab_id=tab)


@pytest.fixture
def only_here(driver: webdriver.Chrome, site: str) -> Iterator[str]:
    """The pilot on for the test server's site only; every site again after."""
    browser.set_pilot(driver, True)
    set_sites(driver, only=[urlsplit(site).netloc])
    try:
        yield urlsplit(site).netloc
    finally:
        set_sites(driver, only=None)


async def test_not_in_the_persons_tabs_nor_outside_the_scope_nor_once_the_pilot_was_off(
    driver: webdriver.Chrome, client: Client, site: str, only_here: str
) -> None:
    original = driver.current_window_handle
    with prober(driver) as has_agent:
        before = set(driver.window_handles)
        driven = (await call(client, "interact", action="new_tab", url=f"{site}/index.html"))["tab_id"]
        handle = _handle_of(driver, before)
        control = (await call(client, "interact", action="new_tab", url=f"{site}/index.html", active=False))[
            "tab_id"
        ]
        assert has_agent(driven)

        # The person takes the pilot's tab elsewhere on an allowed site: it gets the agent, injected as
        # the page commits (which a load that ends first does not wait for). (The pilot's tab cannot go
        # outside the scope at all: such loads are blocked before they leave.)
        driver.switch_to.window(handle)
        driver.get(f"{site}/second.html")
        injected(has_agent, driven)
        # A tab the person opens on another site (no opener: not the pilot's) gets none.
        theirs = _person_tab(driver, f"{_other(site)}/second.html")
        # Every navigation event before the control's was handled before the control's: once the
        # control's new page has the agent, a wrong injection into the other site would be there.
        await call(client, "interact", action="navigate", url=f"{site}/second.html", tab_id=control)
        assert has_agent(control)
        assert has_agent(theirs) is False  # (the agent may not even close it: it is outside the scope)

        # Off forgets the tabs the pilot drove: back on, the tab's next page is the person's.
        driver.get(f"{site}/index.html")
        injected(has_agent, driven)
        browser.set_pilot(driver, False)
        driver.switch_to.window(handle)
        driver.get(f"{site}/second.html")
        browser.set_pilot(driver, True)
        driver.switch_to.window(handle)
        driver.get(f"{site}/index.html")
        await call(client, "interact", action="navigate", url=f"{site}/index.html", tab_id=control)
        assert has_agent(control)
        assert has_agent(driven) is False
        await call(client, "interact", action="close_tab", tab_id=control)
        await call(client, "interact", action="close_tab", tab_id=driven)
    driver.switch_to.window(original)
