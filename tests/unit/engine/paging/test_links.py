"""Link pagination through fetch_extract, against a scripted site: the check on page 1 (from the HTTP
cache), pages a numbered pager links fetched ahead and read in order (never past the last one linked,
never on a guess), the stops and faults of fetched pages, and the fall-backs to the tab."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest

from tabpilot.engine import result, runner
from tabpilot.engine.paging.links import IN_FLIGHT, IN_FLIGHT_HTTP1
from tabpilot.engine.plan import build_plan, parse_request
from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tests.support.fake_browser import ScriptedBrowser

pytestmark = pytest.mark.anyio

SCHEMA = {"name": "td:nth-child(1)", "points": "td:nth-child(2) | number"}
BASE = "https://data.example/list"


def url_of(k: int) -> str:
    """Page k (0-based) of the list, numbered from 1 in its URL."""
    return f"{BASE}?page={k + 1}"


@dataclass
class LinkedSite:
    """Linked pages of rows; the tab shows page `tab`. `faults[k]`: what fetching page k does instead
    (a TabPilotError to raise, or {"redirect": url}); `drawn`: the fetched HTML lacks the script's rows;
    `window`: the pager beside the next link numbers the pages up to this far from each page (None: no
    pager); `hold[k]`: page k answers once the event is set; `http1`: fetched pages say the site answers
    over HTTP/1. `busy` counts fetches under way."""

    pages: list[list[list[Any]]]
    drawn: bool = False
    faults: dict[int, Any] = field(default_factory=dict[int, Any])
    hold: dict[int, asyncio.Event] = field(default_factory=dict[int, asyncio.Event])
    tab: int = 0
    window: int | None = None
    http1: bool = False
    fetched: list[str] = field(default_factory=list[str])
    busy: int = 0
    most_busy: int = 0

    def install(self, browser: ScriptedBrowser) -> ScriptedBrowser:
        browser.handlers.update(
            extract=self.extract, fetch_extract=self.fetch, paginate=self.paginate, navigate=self.navigate
        )
        return browser

    def _next(self, k: int) -> dict[str, Any]:
        if k + 1 >= len(self.pages):
            return {"end": "missing"}
        out: dict[str, Any] = {"url": url_of(k + 1), "same_origin": True}
        if self.window is not None:
            near = range(max(0, k - self.window), min(len(self.pages), k + self.window + 1))
            out["pager"] = [url_of(j) for j in near if j not in (k, k + 1)]
        return out

    def _answer(self, k: int, limit: int | None, rows: list[list[Any]] | None = None) -> dict[str, Any]:
        got = self.pages[k] if rows is None else rows
        got = got if limit is None else got[:limit]
        return {"rows": got, "count": len(got), "warnings": [], "url": url_of(k), "type": "text/html"}

    def extract(self, c: m.Extract) -> Any:
        out = self._answer(self.tab, c.limit)
        if c.next_selector:
            out["next"] = self._next(self.tab)
        return out

    async def fetch(self, c: m.FetchExtract) -> Any:
        self.fetched.append(c.url)
        k = next(i for i in range(len(self.pages) + 5) if url_of(i) == c.url)
        self.busy += 1
        self.most_busy = max(self.most_busy, self.busy)
        try:
            if k in self.hold:
                await self.hold[k].wait()
            await asyncio.sleep(0)  # the other fetches started meanwhile are under way too
        finally:
            self.busy -= 1
        fault = self.faults.get(k)
        if isinstance(fault, TabPilotError):
            return fault
        if k >= len(self.pages):
            return TabPilotError(ErrorCode.HTTP_ERROR, "404", data={"status": 404, "url": c.url})
        rows = [["drawn by no script", "0"]] if self.drawn else None
        out = self._answer(k, c.limit, rows) | {"status": 200, "redirected": False, "next": self._next(k)}
        out |= {"http1": True} if self.http1 else {}
        if isinstance(fault, dict) and "redirect" in fault:
            out |= {"url": fault["redirect"], "redirected": True, "rows": [], "next": {"end": "missing"}}
        return out

    def paginate(self, c: m.Paginate) -> Any:
        if self.tab + 1 >= len(self.pages):
            return {"outcome": "end", "reason": "missing", "url": url_of(self.tab)}
        self.tab += 1
        moved: dict[str, Any] = {"outcome": "navigated", "reason": None, "url": url_of(self.tab)}
        if c.fields:
            moved["page"] = self._answer(self.tab, c.limit)
        return moved

    def navigate(self, c: m.Navigate) -> Any:
        self.tab = next(i for i in range(len(self.pages)) if url_of(i) == c.url)
        return {"tab_id": 1, "url": c.url, "title": "t"}


PAGES = [[[f"r{p}{i}", str(10 * p + i)] for i in range(2)] for p in range(5)]
ALL = [{"name": f"r{p}{i}", "points": 10 * p + i} for p in range(5) for i in range(2)]


def plan(**options: Any) -> Any:
    """The extract plan of the list, paginated by `a.next` (`paginate` options merged)."""
    paginate = {"next_selector": "a.next", "max_pages": 20} | options.pop("paginate", {})
    request = {
        "operation": "extract",
        "selector": "tr",
        "schema": SCHEMA,
        "options": {"paginate": paginate, **options},
    }
    return build_plan(parse_request(request))


async def walk(
    site: LinkedSite, browser: ScriptedBrowser | None = None, **options: Any
) -> tuple[dict[str, Any], ScriptedBrowser]:
    """Scrape every page of `site` (through `browser`, whose handlers a test may have replaced)."""
    browser = browser or site.install(ScriptedBrowser())
    p = plan(**options)
    with anyio.fail_after(10):
        out = result.response(await runner.run(p, browser, grace_s=0.05), p, "corr-test")
    return out, browser


async def test_linked_pages_are_fetched_and_the_tab_stays_on_page_1() -> None:
    site = LinkedSite(PAGES)
    out, browser = await walk(site)
    assert out["status"] == "complete" and out["data"] == ALL
    meta = out["metadata"]
    assert meta["pagination_mode"] == "fetch" and meta["pages_scraped"] == 5
    assert meta["pagination_stopped"]["reason"] == "no_next" and meta["pagination_stopped"]["page"] == 5
    assert site.tab == 0 and meta["url"] == url_of(0)
    assert "paginate" not in browser.tags() and "navigate" not in browser.tags()
    # Page 1 once more (the check, from the HTTP cache when it can), then each page once.
    assert sorted(site.fetched) == [url_of(k) for k in range(5)]
    check = [c for c in browser.sent if isinstance(c, m.FetchExtract) and c.cache_first]
    assert [c.url for c in check] == [url_of(0)], "only the check on page 1 may take the cached copy"


async def test_an_older_copy_in_the_cache_is_checked_again_at_the_server() -> None:
    site = LinkedSite(PAGES)
    original = site.fetch

    async def fetch(c: m.FetchExtract) -> Any:
        out = await original(c)
        if c.cache_first:  # stored by an earlier walk, before the list changed
            out["rows"] = [["gone", "1"]]
        return out

    browser = site.install(ScriptedBrowser())
    browser.handlers["fetch_extract"] = fetch
    out, _ = await walk(site, browser)
    assert out["data"] == ALL and out["metadata"]["pagination_mode"] == "fetch"
    checks = [
        (c.url, c.cache_first) for c in browser.sent if isinstance(c, m.FetchExtract) and c.url == url_of(0)
    ]
    assert checks == [(url_of(0), True), (url_of(0), False)]


async def test_numbered_pages_are_fetched_ahead_and_read_in_order() -> None:
    site = LinkedSite(PAGES, window=3)
    # Page 2 answers only once page 4 was asked for: it can only finish if pages are fetched ahead.
    site.hold[1] = asyncio.Event()
    original = site.fetch

    async def fetch(c: m.FetchExtract) -> Any:
        if c.url == url_of(3):
            site.hold[1].set()
        return await original(c)

    browser = site.install(ScriptedBrowser())
    browser.handlers["fetch_extract"] = fetch
    out, _ = await walk(site, browser)
    assert out["data"] == ALL and out["metadata"]["pagination_mode"] == "fetch"
    assert sorted(site.fetched) == [url_of(k) for k in range(5)], "no page past the last one linked"


MANY = [[[f"m{p}", str(p)]] for p in range(20)]
MANY_ROWS = [{"name": f"m{p}", "points": p} for p in range(20)]


@pytest.mark.parametrize("http1", [False, True])
@pytest.mark.parametrize("window", [2, 3, 50])
async def test_pages_ahead_stay_within_the_pager_and_in_flight_cap(window: int, http1: bool) -> None:
    site = LinkedSite(MANY, window=window, http1=http1)
    out, _ = await walk(site)
    assert out["data"] == MANY_ROWS and out["metadata"]["pagination_mode"] == "fetch"
    assert sorted(site.fetched) == sorted(url_of(k) for k in range(20)), "each page once, none past page 20"
    # Up to IN_FLIGHT fetches at once (page 1's check among them), as far as the pager links ahead
    # (page k links up to k + window); twice as many once a page said the site answers over HTTP/1 (the
    # browser holds it to 6 connections then).
    assert site.most_busy == min(IN_FLIGHT_HTTP1 if http1 else IN_FLIGHT, window + 1)


async def test_without_a_numbered_pager_nothing_is_fetched_on_a_guess() -> None:
    site = LinkedSite(MANY)  # ?page=N links, but no pager beside them: where the list ends is unknown
    out, _ = await walk(site)
    assert out["data"] == MANY_ROWS
    assert sorted(site.fetched) == sorted(url_of(k) for k in range(20))
    assert site.most_busy <= 2, "one page at a time after the check"


async def test_a_page_past_the_last_one_linked_is_never_asked_for() -> None:
    # The pager of the last pages still links every page up to the last; the next link ends there.
    site = LinkedSite(MANY[:7], window=50)
    out, _ = await walk(site)
    assert out["metadata"]["pagination_stopped"]["reason"] == "no_next"
    assert url_of(7) not in site.fetched and len(site.fetched) == 7


@pytest.mark.parametrize(
    ("options", "pages"), [({"limit": 3}, 3), ({"paginate": {"max_pages": 4}}, 4), ({"limit": 1}, 1)]
)
async def test_pages_ahead_respect_limit_and_max_pages(options: dict[str, Any], pages: int) -> None:
    site = LinkedSite(MANY, window=50)
    out, _ = await walk(site, **options)
    assert out["data"] == MANY_ROWS[:pages]
    assert set(site.fetched) <= {url_of(k) for k in range(pages + 1)}
    # One row a page: a limit of 3 can use 3 pages; page 2 is fetched with the check, before rows are counted.
    assert not {url_of(k) for k in range(max(pages, 2), 20)} & set(site.fetched)


async def test_rows_drawn_by_a_script_make_the_tab_follow_the_pages() -> None:
    site = LinkedSite(PAGES, drawn=True, window=50)  # pages fetched ahead during the check are dropped
    out, browser = await walk(site)
    assert out["data"] == ALL
    meta = out["metadata"]
    assert meta["pagination_mode"] == "navigate" and "other rows" in meta["pagination_note"]
    assert site.tab == 4
    # One round trip a page: the click answers the new page's rows; at the end, one read of the last
    # page's pager (is there a page past it that next_selector missed?).
    after_check = [t for t in browser.tags() if t != "fetch_extract"]
    assert after_check == ["extract", "paginate", "paginate", "paginate", "paginate", "paginate", "extract"]


async def test_an_extension_without_fetch_extract_clicks_as_before() -> None:
    site = LinkedSite(PAGES)
    browser = site.install(ScriptedBrowser())
    del browser.handlers["fetch_extract"]
    out, _ = await walk(site, browser)
    assert out["data"] == ALL and out["metadata"]["pagination_mode"] == "navigate"
    assert "unknown_command" in out["metadata"]["pagination_note"]


async def test_an_http_error_mid_way_stops_with_the_rows_read() -> None:
    fault = TabPilotError(ErrorCode.HTTP_ERROR, "500", data={"status": 500, "url": url_of(2)})
    out, _ = await walk(LinkedSite(PAGES, faults={2: fault}))
    assert out["status"] == "partial" and out["data"] == ALL[:4]
    stop = out["metadata"]["pagination_stopped"]
    assert (stop["reason"], stop["page"]) == ("http_error", 3) and "500" in stop["detail"]
    assert out["metadata"]["partial_because"]["hint"]["option"] == "options.paginate.delay_ms"
    assert out["metadata"]["warnings"]


async def test_a_page_that_is_not_html_stops_the_walk() -> None:
    fault = TabPilotError(ErrorCode.NOT_HTML, "json", data={"type": "application/json", "url": url_of(1)})
    out, _ = await walk(LinkedSite(PAGES, faults={1: fault}))
    assert out["data"] == ALL[:2]
    assert out["metadata"]["pagination_stopped"]["reason"] == "not_html"


async def test_a_redirect_to_the_login_page_stops_as_on_rendered_pages() -> None:
    out, _ = await walk(LinkedSite(PAGES, faults={2: {"redirect": "https://data.example/login?next=x"}}))
    assert out["error"] == ErrorCode.NAVIGATION_REDIRECT
    assert out["data"] == ALL[:4]
    assert out["metadata"]["pagination_stopped"]["reason"] == "redirected"


async def test_a_page_outside_the_allowed_sites_ends_with_the_rows_read() -> None:
    fault = TabPilotError(ErrorCode.SITE_NOT_ALLOWED, "elsewhere", data={"site": "other.example"})
    out, _ = await walk(LinkedSite(PAGES, faults={3: fault}))
    assert out["error"] == ErrorCode.SITE_NOT_ALLOWED
    assert out["data"] == ALL[:6]


async def test_a_fetch_that_fails_goes_on_in_the_tab_from_the_last_page_read() -> None:
    fault = TabPilotError(ErrorCode.NAVIGATION_FAILED, "cors", data={"reason": "fetch_failed"})
    site = LinkedSite(PAGES, faults={2: fault})
    out, browser = await walk(site)
    assert out["data"] == ALL
    assert out["metadata"]["pagination_mode"] == "navigate"
    # The tab loads page 2 (the last one read) and clicks on from there.
    navigated = [c for c in browser.sent if isinstance(c, m.Navigate)]
    assert [c.url for c in navigated] == [url_of(1)] and site.tab == 4


async def test_a_next_link_to_another_origin_is_clicked_in_the_tab() -> None:
    site = LinkedSite(PAGES)
    original = site.fetch

    async def fetch(c: m.FetchExtract) -> Any:
        out = await original(c)
        if isinstance(out, dict) and c.url == url_of(1):
            out["next"] = {"url": "https://elsewhere.example/list?page=3", "same_origin": False}
        return out

    browser = site.install(ScriptedBrowser())
    browser.handlers["fetch_extract"] = fetch
    out, _ = await walk(site, browser)
    assert out["data"] == ALL and out["metadata"]["pagination_mode"] == "navigate"
    assert "paginate" in browser.tags()


@pytest.mark.parametrize(("options", "rows", "reason"), [({"limit": 5}, 5, "limit"), ({}, 4, "max_pages")])
async def test_limit_and_max_pages_hold_with_pages_fetched_ahead(
    options: dict[str, Any], rows: int, reason: str
) -> None:
    paginate = {} if options else {"max_pages": 2}
    site = LinkedSite(PAGES)
    out, _ = await walk(site, paginate=paginate, **options)
    assert out["data"] == ALL[:rows]
    assert out["metadata"]["pagination_stopped"]["reason"] == reason
    if reason == "max_pages":
        assert url_of(2) not in site.fetched, "nothing is fetched beyond max_pages"


async def test_a_pause_between_pages_fetches_one_page_at_a_time() -> None:
    site = LinkedSite(PAGES, window=50)
    out, _ = await walk(site, paginate={"delay_ms": 1})
    assert out["data"] == ALL
    assert site.fetched == [url_of(0), *[url_of(k) for k in range(1, 5)]]


async def test_where_filters_fetched_pages_too() -> None:
    out, _ = await walk(LinkedSite(PAGES), where={"points": {">=": 21}})
    assert out["data"] == [r for r in ALL if r["points"] >= 21]
    assert out["metadata"]["rows_filtered_out"] == 5


async def test_cancelling_the_run_cancels_the_pages_fetched_ahead() -> None:
    site = LinkedSite(PAGES, window=50)
    original = site.fetch
    asked_ahead = asyncio.Event()
    cancelled: list[str] = []

    async def fetch(c: m.FetchExtract) -> Any:
        if c.url == url_of(0):
            return await original(c)  # the check on page 1 passes; every later page hangs
        if c.url == url_of(4):
            asked_ahead.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append(c.url)
            raise

    browser = site.install(ScriptedBrowser())
    browser.handlers["fetch_extract"] = fetch
    p = plan()
    run = asyncio.create_task(runner.run(p, browser, grace_s=0.05))
    with anyio.fail_after(10):
        await asked_ahead.wait()
        run.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await run
    assert sorted(cancelled) == [url_of(1), url_of(2), url_of(3), url_of(4)]
