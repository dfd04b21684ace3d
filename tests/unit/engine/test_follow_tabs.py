"""`follow`'s background tabs and second reads, against a scripted extension: a tab is reused for the next
page and every one is released at the end (also after a failure or a cancel); a fetched page that reads
empty where the first had values is read again rendered; an answer of the wrong shape is an error."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest

from tabpilot.engine import result, runner
from tabpilot.engine.plan import build_plan, parse_request
from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tests.support.fake_browser import ScriptedBrowser, TableSite
from tests.unit.engine.test_follow import (
    BASE,
    FOLLOW,
    SCHEMA,
    detail_page,
    fetched_page,
    merged,
    row,
    scrape,
)

pytestmark = pytest.mark.anyio


class Pool:
    """The extension's side of the tab pool: which tabs are open, which were released."""

    def __init__(self) -> None:
        self.open: set[int] = set()
        self.ids = itertools.count(100)
        self.released: list[str] = []

    def page(self, c: m.ExtractTab, answer: Any = None) -> Any:
        tab = c.reuse_tab_id if c.reuse_tab_id is not None else next(self.ids)
        assert c.reuse_tab_id is None or c.reuse_tab_id in self.open
        if isinstance(answer, TabPilotError):
            self.open.discard(tab)  # a failed read closes its tab
            return answer
        self.open.add(tab)
        return (answer or detail_page(c)) | {"kept_tab_id": tab}

    def release(self, c: m.ReleaseTabs) -> Any:
        self.released.append(c.pool)
        self.open.clear()
        return {"closed": 1}


def pooled(pages: list[list[list[Any]]], pool: Pool, detail: Any = None) -> ScriptedBrowser:
    browser = TableSite(pages).install(ScriptedBrowser())
    browser.handlers["extract_tab"] = detail or pool.page
    browser.handlers["release_tabs"] = pool.release
    return browser


def tab_reads(browser: ScriptedBrowser) -> list[m.ExtractTab]:
    return [c for c in browser.sent if isinstance(c, m.ExtractTab)]


async def test_a_finished_tab_loads_the_next_page_and_all_are_released_at_the_end() -> None:
    pool = Pool()
    browser = pooled([[row(n) for n in range(1, 6)]], pool)
    out = await scrape(browser, follow=FOLLOW | {"concurrency": 2})
    assert out["data"] == [merged(n) for n in range(1, 6)]
    reads = tab_reads(browser)
    # One tab for the first page; at most two (the concurrency) ever opened; the rest reuse them.
    assert reads[0].reuse_tab_id is None and reads[1].reuse_tab_id == 100
    assert len({c.reuse_tab_id for c in reads} - {None}) <= 2
    assert sum(c.reuse_tab_id is None for c in reads) <= 2
    assert {c.pool for c in reads} == set(pool.released) and len(pool.released) == 1
    assert pool.open == set() and isinstance(browser.sent[-1], m.ReleaseTabs)


async def test_each_list_page_releases_its_tabs() -> None:
    pool = Pool()
    browser = pooled([[row(1)], [row(2)]], pool)
    out = await scrape(browser, options={"paginate": {"next_selector": "a.next", "delay_ms": 0}})
    assert out["data"] == [merged(1), merged(2)]
    assert len(pool.released) == 2 and pool.open == set()


async def test_a_fatal_failure_still_releases_the_tabs() -> None:
    pool = Pool()

    def detail(c: m.ExtractTab) -> Any:
        if c.url.endswith("/3"):
            return TabPilotError(ErrorCode.EXTENSION_DISCONNECTED, "gone")
        return pool.page(c)

    out = await scrape(pooled([[row(1), row(2), row(3)]], pool, detail), follow=FOLLOW | {"concurrency": 1})
    assert out["status"] == "error" and out["error"] == "extension_disconnected"
    assert len(pool.released) == 1 and pool.open == set()


async def test_a_failed_page_s_tab_is_not_reused() -> None:
    pool = Pool()

    def detail(c: m.ExtractTab) -> Any:
        failure = TabPilotError(ErrorCode.TIMEOUT, "slow") if c.url.endswith("/2") else None
        return pool.page(c, failure)

    browser = pooled([[row(1), row(2), row(3)]], pool, detail)
    out = await scrape(browser, follow=FOLLOW | {"concurrency": 1})
    assert out["metadata"]["follow_errors"][0]["error"] == "timeout"
    reads = tab_reads(browser)
    assert [c.reuse_tab_id for c in reads] == [None, 100, None]  # the tab of page 2 closed with it


async def test_cancel_releases_the_tabs_and_keeps_what_was_read() -> None:
    pool = Pool()
    reached = asyncio.Event()

    async def detail(c: m.ExtractTab) -> Any:
        if c.url.endswith("/3"):
            reached.set()
            await asyncio.Event().wait()
        return pool.page(c)

    browser = pooled([[row(1), row(2), row(3)]], pool, detail)
    follow = FOLLOW | {"concurrency": 1}
    request = {"operation": "extract", "selector": "tr", "schema": SCHEMA, "follow": follow}
    p = build_plan(parse_request(request))
    task = asyncio.create_task(runner.run(p, browser, grace_s=5))
    await reached.wait()
    task.cancel()
    out = result.response(await task, p, "corr-test")
    assert out["status"] == "cancelled" and out["data"][:2] == [merged(1), merged(2)]
    assert len(pool.released) == 1


def fetching(pages: list[list[list[Any]]], fetch: Any) -> tuple[ScriptedBrowser, Pool]:
    pool = Pool()
    browser = pooled(pages, pool)
    browser.handlers["fetch_extract"] = fetch
    return browser, pool


async def test_a_fetched_page_that_reads_empty_is_read_again_rendered() -> None:
    def fetch(c: m.FetchExtract) -> Any:
        # Page 3's fields are drawn by its scripts: its served HTML has the root, not the fields.
        return fetched_page(c) | ({"rows": [[None, None]]} if c.url.endswith("/3") else {})

    browser, _ = fetching([[row(1), row(2), row(3), row(4)]], fetch)
    out = await scrape(browser, follow=FOLLOW | {"concurrency": 1})
    assert out["data"] == [merged(n) for n in range(1, 5)]
    assert out["metadata"]["follow"] == {"mode": "fetch", "done": 4, "total": 4, "rendered": 1}
    [check, again] = tab_reads(browser)
    assert (check.url, check.expect) == (f"{BASE}1", None)
    # Read once one of the fields has shown up.
    assert (again.url, again.expect) == (f"{BASE}3", ".owner, .points")


async def test_pages_empty_even_rendered_are_then_taken_as_they_read() -> None:
    def fetch(c: m.FetchExtract) -> Any:
        return fetched_page(c) | ({} if c.url.endswith("/1") else {"rows": [[None, None]]})

    browser, pool = fetching([[row(n) for n in range(1, 5)]], fetch)
    empty = {"rows": [[None, None]], "landed": ""}
    browser.handlers["extract_tab"] = lambda c: pool.page(c, None if c.url.endswith("/1") else empty)
    out = await scrape(browser, follow=FOLLOW | {"concurrency": 1})
    # Page 2 rendered reads empty too: pages 3 and 4 are not rendered again.
    assert [c.url for c in tab_reads(browser)] == [f"{BASE}1", f"{BASE}2"]
    assert out["metadata"]["follow"] == {"mode": "fetch", "done": 4, "total": 4, "rendered": 1, "empty": 3}
    assert out["data"][3] == {"name": "item 4", "link": f"{BASE}4", "owner": None, "points": None}


async def test_a_fetched_page_without_the_root_is_rendered_and_counted() -> None:
    def fetch(c: m.FetchExtract) -> Any:
        return fetched_page(c) | ({"rows": []} if c.url.endswith("/2") else {})

    browser, _ = fetching([[row(1), row(2)]], fetch)
    out = await scrape(browser, follow=FOLLOW | {"selector": "main", "concurrency": 1})
    assert out["data"] == [merged(1), merged(2)]
    assert out["metadata"]["follow"]["rendered"] == 1
    assert [c.expect for c in tab_reads(browser)] == [None, ".owner, .points"]


@pytest.mark.parametrize(
    "answer",
    [
        {"rows": "owner 1", "landed": f"{BASE}1"},
        {"rows": [["owner 1", "10 pts"]], "redirected": "no"},
        {"rows": [["owner 1", "10 pts"]], "kept_tab_id": "tab-3"},
    ],
)
async def test_an_answer_of_the_wrong_shape_is_malformed_reply(answer: dict[str, Any]) -> None:
    pool = Pool()
    out = await scrape(pooled([[row(1)]], pool, lambda c: answer))
    assert out["status"] == "error" and out["error"] == "malformed_reply"


async def test_a_fetch_answer_of_the_wrong_shape_is_malformed_reply() -> None:
    def fetch(c: m.FetchExtract) -> Any:
        return {"rows": [["x", "y"]], "status": "ok"} if c.url.endswith("/2") else fetched_page(c)

    browser, _ = fetching([[row(1), row(2)]], fetch)
    out = await scrape(browser)
    assert out["status"] == "error" and out["error"] == "malformed_reply"


async def test_the_check_s_tab_goes_once_fetching_is_chosen_not_at_the_end() -> None:
    pools: dict[int, str] = {}  # open tab -> its pool
    ids = itertools.count(100)
    released: list[tuple[str, int]] = []  # (pool, pages fetched by then)
    fetched = 0
    last = asyncio.Event()

    def tab(c: m.ExtractTab) -> Any:
        assert c.reuse_tab_id is None or pools.get(c.reuse_tab_id) == c.pool, "a tab of another pool"
        pools[n := next(ids)] = c.pool or ""
        return detail_page(c) | {"kept_tab_id": n}

    async def fetch(c: m.FetchExtract) -> Any:
        nonlocal fetched
        if c.url.endswith("/6"):
            async with asyncio.timeout(5):
                await last.wait()  # the last page answers once the check's tab is gone
        fetched += 1
        if c.url.endswith("/4"):
            return TabPilotError(ErrorCode.SECRET_UNMASKABLE, "its scripts could mark secrets")
        return fetched_page(c)

    def release(c: m.ReleaseTabs) -> Any:
        released.append((c.pool, fetched))
        for n in [n for n, p in pools.items() if p == c.pool]:
            del pools[n]
        last.set()
        return {"closed": 1}

    browser = TableSite([[row(n) for n in range(1, 7)]]).install(ScriptedBrowser())
    browser.handlers |= {"extract_tab": tab, "fetch_extract": fetch, "release_tabs": release}
    out = await scrape(browser, follow=FOLLOW | {"concurrency": 2})
    assert out["data"] == [merged(n) for n in range(1, 7)]
    assert out["metadata"]["follow"] == {"mode": "fetch", "done": 6, "total": 6, "rendered": 1}
    [check, page_4] = [c.pool for c in tab_reads(browser)]
    assert check != page_4, "a page rendered after the choice opens a tab of a new pool"
    assert released[0][0] == check and released[0][1] < 6, "released while pages were still fetched"
    assert [p for p, _ in released] == [check, page_4] and pools == {}
