"""`follow`'s check does not hold the other pages back, against a scripted extension: while the first
detail page is read both ways, the next ones are fetched already (never more in flight than the
concurrency lets in beside the check, each giving its place back once fetched) and used once fetching
is chosen; when tabs are chosen they are rendered, and at most four per place were fetched for nothing; a
page fetched ahead that failed costs its row only if fetching is chosen; a check whose page failed is
taken over by a page fetched ahead, without fetching it twice; a login page found by the check leaves
the pages fetched ahead unread."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from tabpilot.engine.detail import AHEAD_PER_SLOT
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
    pages after it have been fetched (and every task has had its turns after that), so the test sees
    what was fetched during the check; fetches answer a few turns of the loop later, so that they
    overlap as a site's would."""

    def __init__(self, ahead: int) -> None:
        self.ahead = ahead  # fetches of other pages to see before the check may end
        self.fetched_during_check: list[int] = []
        self.checked = False
        self.enough = asyncio.Event()
        self.in_flight = 0
        self.most_in_flight = 0

    async def tab(self, c: m.ExtractTab) -> Any:
        if number(c) == 1:
            async with asyncio.timeout(5):
                await self.enough.wait()
            for _ in range(50):  # whatever else would be fetched during the check is asked for now
                await asyncio.sleep(0)
            self.checked = True
        return detail_page(c)

    async def fetch(self, c: m.FetchExtract, answer: Any = None) -> Any:
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        for _ in range(3):
            await asyncio.sleep(0)
        self.in_flight -= 1
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
    held = Held(ahead=5)
    browser = held.browser()
    out = await scrape(browser, follow=FOLLOW | {"concurrency": 3})
    assert out["data"] == [merged(n) for n in range(1, 7)]
    assert out["metadata"]["follow"] == {"mode": "fetch", "done": 6, "total": 6}
    # Every other page fetched during the check, each once; concurrency 3: the page checked and two
    # more at once, never more.
    assert sorted(held.fetched_during_check) == [2, 3, 4, 5, 6]
    assert held.most_in_flight <= 3
    assert sent(browser, m.FetchExtract) == [1, 2, 3, 4, 5, 6]
    assert sent(browser, m.ExtractTab) == [1]


def _bare(held: Held) -> Any:
    async def bare(c: m.FetchExtract) -> Any:
        return await held.fetch(c, fetched_page(c) | {"rows": [[None, None]]})  # scripts draw the fields

    return bare


async def test_pages_fetched_ahead_are_rendered_when_the_check_chooses_tabs() -> None:
    held = Held(ahead=5)
    browser = held.browser(_bare(held))
    out = await scrape(browser, follow=FOLLOW | {"concurrency": 3})
    assert out["data"] == [merged(n) for n in range(1, 7)]
    assert out["metadata"]["follow"]["mode"] == "tab"
    assert sent(browser, m.FetchExtract) == [1, 2, 3, 4, 5, 6]
    assert sent(browser, m.ExtractTab) == [1, 2, 3, 4, 5, 6]


async def test_at_most_four_pages_a_place_are_fetched_for_nothing() -> None:
    rows = [[row(n) for n in range(1, 21)]]
    held = Held(ahead=AHEAD_PER_SLOT * 3)
    browser = site(rows, held.tab)
    browser.handlers["fetch_extract"] = _bare(held)
    out = await scrape(browser, follow=FOLLOW | {"concurrency": 3})
    assert out["data"] == [merged(n) for n in range(1, 21)]
    assert out["metadata"]["follow"]["mode"] == "tab"
    # Concurrency 3: twelve pages fetched while the check ran, none after it chose tabs.
    assert len(held.fetched_during_check) == 12
    assert sent(browser, m.FetchExtract) == [1, *sorted(held.fetched_during_check)]
    assert sent(browser, m.ExtractTab) == list(range(1, 21))


@pytest.mark.parametrize(("renders", "failed"), [(False, ["http_error"]), (True, [])])
async def test_a_page_that_failed_ahead_costs_its_row_only_when_pages_are_fetched(
    renders: bool, failed: list[str]
) -> None:
    held = Held(ahead=5)

    async def fetch(c: m.FetchExtract) -> Any:
        if number(c) == 2:
            return await held.fetch(c, TabPilotError(ErrorCode.HTTP_ERROR, "answered HTTP 404"))
        return await held.fetch(c, fetched_page(c) | ({"rows": [[None, None]]} if renders else {}))

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
    # A page fetched ahead checked with that read: rendered once, no page fetched twice.
    tabs = sent(browser, m.ExtractTab)
    assert tabs in ([1, 2], [1, 3]) and sent(browser, m.FetchExtract) == [1, 2, 3]


async def test_a_login_page_found_by_the_check_leaves_the_pages_fetched_ahead_unread() -> None:
    held = Held(ahead=5)
    login = "https://data.example/login?next=/item/1"

    async def tab(c: m.ExtractTab) -> Any:
        await held.tab(c)
        return {"rows": [], "count": 0, "warnings": [], "landed": login, "redirected": True}

    async def fetch(c: m.FetchExtract) -> Any:
        return await held.fetch(c, fetched_page(c) | {"rows": [], "url": login, "redirected": True})

    browser = site(ROWS, tab)
    browser.handlers["fetch_extract"] = fetch
    out = await scrape(browser, follow=FOLLOW | {"concurrency": 3})
    assert out["metadata"]["follow"]["stopped"]["row"] == 0
    assert out["metadata"]["follow"]["done"] == 0 and "follow_errors" not in out["metadata"]
    assert sent(browser, m.ExtractTab) == [1] and sent(browser, m.FetchExtract) == [1, 2, 3, 4, 5, 6]


async def test_a_page_still_fetching_when_the_check_chooses_tabs_is_rendered_without_waiting() -> None:
    asked: list[int] = []

    async def tab(c: m.ExtractTab) -> Any:
        if number(c) == 1:
            async with asyncio.timeout(5):
                while 3 not in asked:  # page 3's fetch is under way before the check ends
                    await asyncio.sleep(0)
        return detail_page(c)

    async def fetch(c: m.FetchExtract) -> Any:
        asked.append(number(c))
        if number(c) == 3:
            await asyncio.Event().wait()  # a server that never answers: only calling it off ends this
        return fetched_page(c) | {"rows": [[None, None]]}  # scripts draw the fields: tabs are chosen

    browser = site([[row(1), row(2), row(3)]], tab)
    browser.handlers["fetch_extract"] = fetch
    async with asyncio.timeout(5):
        out = await scrape(browser, follow=FOLLOW | {"concurrency": 3})
    assert out["data"] == [merged(1), merged(2), merged(3)]
    assert out["metadata"]["follow"]["mode"] == "tab"
    assert sent(browser, m.ExtractTab) == [1, 2, 3]


async def test_the_check_s_place_does_not_hold_the_first_pages_fetched_to_one_at_a_time() -> None:
    # The check holds its place while a tab draws the page; beside it the pages after start two at a
    # time (PACE_START), not one, and never past the ceiling with the check counted.
    ahead_now = 0
    most: list[int] = []
    two = asyncio.Event()
    checked = asyncio.Event()

    async def tab(c: m.ExtractTab) -> Any:
        if number(c) == 1:
            async with asyncio.timeout(5):
                await checked.wait()
        return detail_page(c)

    async def fetch(c: m.FetchExtract) -> Any:
        nonlocal ahead_now
        if number(c) == 1:
            return fetched_page(c)
        ahead_now += 1
        most.append(ahead_now)
        if ahead_now == 2:
            two.set()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(0.5):
                await two.wait()  # the first page fetched ahead waits for a second one beside it
        ahead_now -= 1
        if len(most) >= 5:
            checked.set()
        return fetched_page(c)

    browser = site([[row(n) for n in range(1, 9)]], tab)
    browser.handlers["fetch_extract"] = fetch
    out = await scrape(browser, follow=FOLLOW | {"concurrency": 8})
    assert out["data"] == [merged(n) for n in range(1, 9)]
    assert most[:2] == [1, 2], "two fetched at once beside the check from the start"
    assert max(most) <= 7, "the check's place counts against the ceiling"
