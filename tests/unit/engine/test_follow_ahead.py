"""`follow`'s check does not hold the other pages back, against a scripted extension: while the first
detail page is read both ways, the next ones (as many as the concurrency lets in) are fetched already
and used once fetching is chosen; when tabs are chosen they are rendered and no more are fetched; a
page fetched ahead that failed costs its row only if fetching is chosen; a check whose page failed is
taken over by a page fetched ahead, without fetching it twice; a login page found by the check leaves
the pages fetched ahead unread."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tests.support.fake_browser import ScriptedBrowser
from tests.unit.engine.test_follow import (
    BASE,
    FOLLOW,
    detail_page,
    fetched_page,
    merged,
    row,
    scrape,
    site,
)

pytestmark = pytest.mark.anyio

ROWS = [[row(n) for n in range(1, 7)]]


def number(c: m.ExtractTab | m.FetchExtract) -> int:
    return int(c.url.rsplit("/", 1)[1])


class Held:
    """Detail reads that answer when let go: the rendered read of page 1 (the check) waits until the
    pages after it have been fetched, so the test sees what was fetched during the check."""

    def __init__(self, ahead: int) -> None:
        self.ahead = ahead  # fetches of other pages to see before the check may end
        self.fetched_during_check: list[int] = []
        self.checked = False
        self.enough = asyncio.Event()

    async def tab(self, c: m.ExtractTab) -> Any:
        if number(c) == 1:
            async with asyncio.timeout(5):
                await self.enough.wait()
            self.checked = True
        return detail_page(c)

    def fetch(self, c: m.FetchExtract, answer: Any = None) -> Any:
        if number(c) != 1 and not self.checked:
            self.fetched_during_check.append(number(c))
            if len(self.fetched_during_check) == self.ahead:
                self.enough.set()
        return fetched_page(c) if answer is None else answer

    def browser(self, fetch: Any = None) -> ScriptedBrowser:
        browser = site(ROWS, self.tab)
        browser.handlers["fetch_extract"] = fetch or self.fetch
        return browser


def sent(browser: ScriptedBrowser, kind: type[m.ExtractTab | m.FetchExtract]) -> list[int]:
    return sorted(number(c) for c in browser.sent if isinstance(c, kind))


async def test_the_next_pages_are_fetched_while_the_first_is_checked_and_used() -> None:
    held = Held(ahead=2)
    browser = held.browser()
    out = await scrape(browser, follow=FOLLOW | {"concurrency": 3})
    assert out["data"] == [merged(n) for n in range(1, 7)]
    assert out["metadata"]["follow"] == {"mode": "fetch", "done": 6, "total": 6}
    # Concurrency 3: the page checked and two more at once, never more; each page fetched once.
    assert held.fetched_during_check == [2, 3]
    assert sent(browser, m.FetchExtract) == [1, 2, 3, 4, 5, 6]
    assert sent(browser, m.ExtractTab) == [1]


async def test_pages_fetched_ahead_are_rendered_when_the_check_chooses_tabs() -> None:
    held = Held(ahead=2)

    def bare(c: m.FetchExtract) -> Any:
        return held.fetch(c, fetched_page(c) | {"rows": [[None, None]]})  # scripts draw the fields

    browser = held.browser(bare)
    out = await scrape(browser, follow=FOLLOW | {"concurrency": 3})
    assert out["data"] == [merged(n) for n in range(1, 7)]
    assert out["metadata"]["follow"]["mode"] == "tab"
    # Fetched for nothing: the two pages let in during the check, and no page after it.
    assert sent(browser, m.FetchExtract) == [1, 2, 3]
    assert sent(browser, m.ExtractTab) == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize(("renders", "failed"), [(False, ["http_error"]), (True, [])])
async def test_a_page_that_failed_ahead_costs_its_row_only_when_pages_are_fetched(
    renders: bool, failed: list[str]
) -> None:
    held = Held(ahead=2)

    def fetch(c: m.FetchExtract) -> Any:
        if number(c) == 2:
            return held.fetch(c, TabPilotError(ErrorCode.HTTP_ERROR, "answered HTTP 404"))
        return held.fetch(c, fetched_page(c) | ({"rows": [[None, None]]} if renders else {}))

    browser = held.browser(fetch)
    out = await scrape(browser, follow=FOLLOW | {"concurrency": 3})
    assert [e["error"] for e in out["metadata"].get("follow_errors", [])] == failed
    assert (out["data"][1] == merged(2)) is renders
    assert 2 not in sent(browser, m.FetchExtract)[2:]  # not fetched again


async def test_a_page_fetched_ahead_checks_when_the_first_check_failed() -> None:
    ahead = asyncio.Event()
    seen: list[bool] = []  # whether page 2 was fetched before page 1's check failed

    async def tab(c: m.ExtractTab) -> Any:
        if number(c) == 1:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(5):
                    await ahead.wait()
            seen.append(ahead.is_set())
            return TabPilotError(ErrorCode.TIMEOUT, "did not finish loading")
        return detail_page(c)

    def fetch(c: m.FetchExtract) -> Any:
        if number(c) == 2:
            ahead.set()
        return fetched_page(c)

    browser = site([[row(1), row(2), row(3)]], tab)
    browser.handlers["fetch_extract"] = fetch
    out = await scrape(browser, follow=FOLLOW | {"concurrency": 2})
    assert seen == [True]
    assert out["data"] == [{"name": "item 1", "link": f"{BASE}1"}, merged(2), merged(3)]
    assert out["metadata"]["follow_errors"][0]["error"] == "timeout"
    assert out["metadata"]["follow"]["mode"] == "fetch"
    # Page 2 checked with the read fetched ahead: rendered once, fetched once.
    assert sent(browser, m.ExtractTab) == [1, 2] and sent(browser, m.FetchExtract) == [1, 2, 3]


async def test_a_login_page_found_by_the_check_leaves_the_pages_fetched_ahead_unread() -> None:
    held = Held(ahead=2)
    login = "https://data.example/login?next=/item/1"

    async def tab(c: m.ExtractTab) -> Any:
        await held.tab(c)
        return {"rows": [], "count": 0, "warnings": [], "landed": login, "redirected": True}

    def fetch(c: m.FetchExtract) -> Any:
        return held.fetch(c, fetched_page(c) | {"rows": [], "url": login, "redirected": True})

    browser = site(ROWS, tab)
    browser.handlers["fetch_extract"] = fetch
    out = await scrape(browser, follow=FOLLOW | {"concurrency": 3})
    assert out["metadata"]["follow"]["stopped"]["row"] == 0
    assert out["metadata"]["follow"]["done"] == 0 and "follow_errors" not in out["metadata"]
    assert sent(browser, m.ExtractTab) == [1] and sent(browser, m.FetchExtract) == [1, 2, 3]
