"""Pagination and infinite scroll in real Chromium, through the host's socket: link pagination behind a
login, a session that ends mid-way (redirect), an in-place Next button, the ends of a list, a tab
closed under a waiting command."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import anyio
import pytest
from selenium import webdriver

from tabpilot.demo.server import DEMO_PASSWORD, DEMO_USER, Site
from tabpilot.link.client import BrowserPool
from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode
from tests.support import browser, pages
from tests.support.host import call, call_error, field, host_pool
from tests.support.popup import allow_scripts_on

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module", autouse=True)
def _scripts_allowed(chromium: browser.Chromium, site: Any) -> None:  # pyright: ignore[reportUnusedFunction]
    """The fixture pages hold a password field the page filled in; the agent's scripts on them run
    with the person's consent (given in the popup), as this module does not test that consent."""
    allow_scripts_on(chromium, site)


site = pages.site_with_login  # these tests need the server's sign-in and sessions

LEDGER = "table.ledger tbody tr"


async def _keys(pool: BrowserPool, selector: str, key: str) -> list[str]:
    out = await call(pool, m.Extract(id=0, selector=selector, fields=[field("k", key)]))
    return [r[0] for r in out["rows"]]


async def _log_in(pool: BrowserPool, site: Site) -> dict[str, str]:
    landed = await call(pool, m.Navigate(id=0, url=f"{site.url}/private/table-1.html"))
    assert landed["url"] == f"{site.url}/login.html?next=%2Fprivate%2Ftable-1.html"
    fill = (
        f"document.querySelector('[name=username]').value = {DEMO_USER!r};"
        f"document.querySelector('[name=password]').value = {DEMO_PASSWORD!r};"
    )
    await call(pool, m.ExecuteJs(id=0, script=fill))
    # Submitting is a click that navigates: the same command as a Next link.
    return await call(pool, m.Paginate(id=0, next_selector="form.login button", row_selector="input"))


async def test_link_pagination_behind_a_login(pilot_on: None, env: dict[str, str], site: Site) -> None:
    async with host_pool(env) as pool:
        signed_in = await _log_in(pool, site)
        # POST /login answers 303 to the page asked for: a redirect, by design.
        assert signed_in == {
            "outcome": "navigated",
            "reason": "redirected",
            "url": f"{site.url}/private/table-1.html",
        }
        seen = await _keys(pool, LEDGER, ".key")
        for page in (2, 3):
            step = await call(pool, m.Paginate(id=0, next_selector="a.next", row_selector=LEDGER))
            assert step == {
                "outcome": "navigated",
                "reason": None,
                "url": f"{site.url}/private/table-{page}.html",
            }
            # The agent injected while the page loaded serves every page command, not only extract.
            snapshot = json.dumps(await call(pool, m.Snapshot(id=0)))
            assert f"Person {3 * page - 2}" in snapshot
            seen += await _keys(pool, LEDGER, ".key")
        assert seen == [f"K-{i}" for i in range(1, 9)]
        last = await call(pool, m.Paginate(id=0, next_selector="a.next", row_selector=LEDGER))
        assert last == {"outcome": "end", "reason": "disabled", "url": f"{site.url}/private/table-3.html"}

        # The session ends on the way to the next page: the server sends the tab to the login page.
        await call(pool, m.Navigate(id=0, url=f"{site.url}/private/expiring.html"))
        assert await _keys(pool, LEDGER, ".key") == ["K-1", "K-2", "K-3"]
        expired = await call(pool, m.Paginate(id=0, next_selector="a.next", row_selector=LEDGER))
        assert expired == {
            "outcome": "navigated",
            "reason": "redirected",
            "url": f"{site.url}/login.html?next=%2Fprivate%2Ftable-2.html",
        }


async def test_in_place_next_button(pilot_on: None, env: dict[str, str], site: Site) -> None:
    url = f"{site.url}/scrape/inplace.html"
    grid = "table.grid tbody tr"
    async with host_pool(env) as pool:
        await call(pool, m.Navigate(id=0, url=url))
        seen = await _keys(pool, grid, ".v")
        for _ in range(2):
            step = await call(pool, m.Paginate(id=0, next_selector="#next", row_selector=grid))
            assert step == {"outcome": "redrawn", "reason": None, "url": url}
            seen += await _keys(pool, grid, ".v")
        assert seen == [f"r{i}" for i in range(1, 8)]
        last = await call(pool, m.Paginate(id=0, next_selector="#next", row_selector=grid))
        assert last == {"outcome": "end", "reason": "disabled", "url": url}


async def test_ends_of_a_list(pilot_on: None, env: dict[str, str], site: Site) -> None:
    url = f"{site.url}/scrape/stuck.html"
    rows = "ul.list li"
    async with host_pool(env) as pool:
        await call(pool, m.Navigate(id=0, url=url))

        async def end(next_selector: str, timeout_ms: int = 10_000) -> str:
            out = await call(
                pool, m.Paginate(id=0, next_selector=next_selector, row_selector=rows, timeout_ms=timeout_ms)
            )
            assert out["outcome"] == "end" and out["url"].startswith(url)
            return out["reason"]

        assert await end("#absent") == "missing"
        assert await end("#hidden") == "missing"
        assert await end("#off") == "disabled"
        assert await end("#bs") == "disabled"
        # A link to a fragment neither loads a page nor changes the rows.
        assert await end("#next", timeout_ms=400) == "unchanged"
        bad = await call_error(pool, m.Paginate(id=0, next_selector="a[", row_selector=rows))
        assert bad.code == ErrorCode.INVALID_SELECTOR


async def test_infinite_scroll(pilot_on: None, env: dict[str, str], site: Site) -> None:
    async with host_pool(env) as pool:
        await call(pool, m.Navigate(id=0, url=f"{site.url}/scrape/infinite.html"))
        counts: list[tuple[int, int, bool]] = []
        for _ in range(4):
            out = await call(
                pool, m.ScrollLoad(id=0, row_selector=".feed .item", until_selector=".end", timeout_ms=5000)
            )
            counts.append((out["before"], out["after"], out["until_found"]))
        assert counts == [(10, 20, False), (20, 30, False), (30, 35, True), (35, 35, True)]
        dry = await call(pool, m.ScrollLoad(id=0, row_selector=".feed .item", timeout_ms=300))
        assert {k: dry[k] for k in ("before", "after", "until_found", "in_flight")} == {
            "before": 35,
            "after": 35,
            "until_found": False,
            "in_flight": 0,
        }
        assert (await call(pool, m.Count(id=0, selector=".feed .item")))["count"] == 35
        bad = await call_error(pool, m.ScrollLoad(id=0, row_selector=".feed .item", until_selector="p["))
        assert bad.code == ErrorCode.INVALID_SELECTOR


async def test_tab_closed_while_waiting_for_the_next_page(
    driver: webdriver.Chrome, pilot_on: None, env: dict[str, str], site: Site
) -> None:
    original = driver.current_window_handle
    driver.switch_to.new_window("tab")
    url = f"{site.url}/scrape/stuck.html?closing"
    driver.get(url)
    async with host_pool(env) as pool:
        tabs = (await call(pool, m.ListTabs(id=0)))["tabs"]
        [tab_id] = [t["id"] for t in tabs if t["url"] == url]
        waiting = asyncio.create_task(
            pool.call(
                m.Paginate(id=0, next_selector="#next", row_selector="li", tab_id=tab_id, timeout_ms=20_000)
            )
        )
        # The click on #next shows in the tab's location; from then on the command waits for a change.
        with anyio.fail_after(10):
            while driver.execute_script("return location.hash") != "#more":
                await asyncio.sleep(0.02)
        assert not waiting.done()
        driver.close()
        driver.switch_to.window(original)
        with pytest.raises(Exception) as failed:
            await waiting
        assert getattr(failed.value, "code", None) == ErrorCode.TAB_CLOSED


async def test_the_next_page_counts_once_its_rows_are_parsed(
    pilot_on: None, env: dict[str, str], site: Site
) -> None:
    # Page 2 holds an image from a server that answers 8 s late: its rows are readable long before.
    async with host_pool(env) as pool:
        await call(pool, m.Navigate(id=0, url=f"{site.url}/scrape/heavy-1.html"))
        step = await call(pool, m.Paginate(id=0, next_selector="a.next", row_selector="ul.items li"))
        assert step == {"outcome": "navigated", "reason": None, "url": f"{site.url}/scrape/heavy-2.html"}
        state = await call(pool, m.ExecuteJs(id=0, script="return document.readyState"))
        assert state["result"] == "interactive", "paginate waited for the image (the load event)"
        assert await _keys(pool, "ul.items li", ":scope") == ["b1", "b2"]


async def test_a_fetched_page_says_when_the_site_answers_over_http1(
    pilot_on: None, env: dict[str, str], site: Site
) -> None:
    # The fixture server speaks HTTP/1: the browser holds it to 6 connections whatever is asked, so the
    # engine may ask for more of a numbered pager's pages at once (engine/paging/links.py).
    async with host_pool(env) as pool:
        await call(pool, m.Navigate(id=0, url=f"{site.url}/scrape/inplace.html"))
        page = m.FetchExtract(
            id=0, url=f"{site.url}/scrape/stuck.html", selector="ul.list li", fields=[field("v")]
        )
        got = await call(pool, page)
        assert got["status"] == 200 and got["rows"] and got["http1"] is True, got
