"""`follow` in the engine, against a scripted extension: each row's link read (`extract_tab`) and merged
into its row, across pages, at most `concurrency` at once; failures cost one row; a login page stops
following; a cancel keeps what was read; the plan refuses what cannot work."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tabpilot.engine import result, runner
from tabpilot.engine.orchestrator import spec_of
from tabpilot.engine.plan import build_plan, parse_request
from tabpilot.engine.steps.extract import ExtractStep
from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tests.support.fake_browser import ScriptedBrowser, TableSite

pytestmark = pytest.mark.anyio

BASE = "https://data.example/item/"
SCHEMA = {"name": "td:nth-child(1)", "link": "a | url"}
DETAIL = {"owner": ".owner", "points": ".points | number"}
FOLLOW = {"field": "link", "schema": DETAIL}


def row(n: int) -> list[Any]:
    return [f"item {n}", f"{BASE}{n}"]


def detail_page(c: m.ExtractTab) -> dict[str, Any]:
    n = int(c.url.rsplit("/", 1)[1])
    return {
        "rows": [[f"owner {n}", f"{n * 10} pts"]],
        "count": 1,
        "warnings": [],
        "landed": c.url,
        "status": 200,
        "redirected": False,
    }


def merged(n: int) -> dict[str, Any]:
    return {"name": f"item {n}", "link": f"{BASE}{n}", "owner": f"owner {n}", "points": n * 10}


def counts(out: dict[str, Any]) -> dict[str, Any]:
    """metadata.follow without its `why` (the reason a check chose tabs)."""
    return {k: v for k, v in out["metadata"]["follow"].items() if k != "why"}


def site(pages: list[list[list[Any]]], detail: Any = detail_page) -> ScriptedBrowser:
    browser = TableSite(pages).install(ScriptedBrowser())
    browser.handlers["extract_tab"] = detail
    return browser


async def scrape(browser: ScriptedBrowser, follow: Any = FOLLOW, **extra: Any) -> dict[str, Any]:
    request = {"operation": "extract", "selector": "tr", "schema": SCHEMA, "follow": follow, **extra}
    p = build_plan(parse_request(request))
    return result.response(await runner.run(p, browser, grace_s=0.05), p, "corr-test")


def opened(browser: ScriptedBrowser) -> list[str]:
    return [c.url for c in browser.sent if isinstance(c, m.ExtractTab)]


async def test_each_row_s_detail_fields_are_merged_into_it() -> None:
    browser = site([[row(1), row(2), row(3)]])
    out = await scrape(browser)
    assert out["status"] == "complete"
    assert out["data"] == [merged(1), merged(2), merged(3)]
    assert counts(out) == {"mode": "tab", "done": 3, "total": 3}
    assert "follow_errors" not in out["metadata"]
    sent = [c for c in browser.sent if isinstance(c, m.ExtractTab)]
    assert [f.name for f in sent[0].fields] == ["owner", "points"]
    assert (sent[0].selector, sent[0].wait_for) == (":root", None)


async def test_selector_wait_for_and_the_run_s_tab_go_to_the_extension() -> None:
    browser = site([[row(1)]])
    browser.handlers["navigate"] = lambda c: {"tab_id": 7, "url": c.url, "title": "t"}
    request = {
        "operation": "workflow",
        "steps": [
            {"type": "navigate", "url": "https://data.example/table"},
            {
                "type": "extract",
                "selector": "tr",
                "schema": SCHEMA,
                "follow": FOLLOW | {"selector": "main", "wait_for": ".owner"},
                "timeout_ms": 3_000,
            },
        ],
    }
    p = build_plan(parse_request(request))
    out = result.response(await runner.run(p, browser, grace_s=0.05), p, "corr-test")
    assert out["data"] == [merged(1)]
    [sent] = [c for c in browser.sent if isinstance(c, m.ExtractTab)]
    assert (sent.selector, sent.wait_for, sent.tab_id, sent.timeout_ms) == ("main", ".owner", 7, 3_000)


async def test_every_page_s_rows_are_followed() -> None:
    browser = site([[row(1), row(2)], [row(3)]])
    out = await scrape(browser, options={"paginate": {"next_selector": "a.next", "delay_ms": 0}})
    assert out["data"] == [merged(1), merged(2), merged(3)]
    assert counts(out) == {"mode": "tab", "done": 3, "total": 3}


async def test_at_most_concurrency_detail_pages_at_once() -> None:
    inflight = peak = 0
    release = asyncio.Event()

    async def slow(c: m.ExtractTab) -> Any:
        nonlocal inflight, peak
        if c.url.endswith("/1"):
            return detail_page(c)  # the first is read alone: it decides how the others are read
        inflight += 1
        peak = max(peak, inflight)
        if peak == 2:
            release.set()  # the second one in flight: let every one finish
        await release.wait()
        inflight -= 1
        return detail_page(c)

    out = await scrape(site([[row(n) for n in range(1, 7)]], slow), follow=FOLLOW | {"concurrency": 2})
    assert peak == 2
    assert out["data"] == [merged(n) for n in range(1, 7)]


async def test_where_and_limit_choose_the_rows_before_following() -> None:
    browser = site([[row(1), row(2), row(3), row(4)]])
    out = await scrape(
        browser, options={"where": {"name": {"in": ["item 2", "item 3", "item 4"]}}, "limit": 2}
    )
    assert out["data"] == [merged(2), merged(3)]
    assert opened(browser) == [f"{BASE}2", f"{BASE}3"]


@pytest.mark.parametrize(
    ("failure", "code"),
    [
        (
            TabPilotError(ErrorCode.NAVIGATION_FAILED, "answered HTTP 404", data={"status": 404}),
            "navigation_failed",
        ),
        (TabPilotError(ErrorCode.TIMEOUT, "did not finish loading", retryable=True), "timeout"),
        (
            {"rows": [], "count": 0, "warnings": [], "landed": f"{BASE}2", "redirected": False},
            "element_not_found",
        ),
        (TabPilotError(ErrorCode.SITE_NOT_ALLOWED, "not allowed"), "site_not_allowed"),
    ],
)
async def test_a_failing_detail_page_leaves_its_row_with_the_list_fields(failure: Any, code: str) -> None:
    def detail(c: m.ExtractTab) -> Any:
        return failure if c.url.endswith("/2") else detail_page(c)

    out = await scrape(site([[row(1), row(2), row(3)]], detail))
    assert out["status"] == "complete"
    assert out["data"] == [merged(1), {"name": "item 2", "link": f"{BASE}2"}, merged(3)]
    [error] = out["metadata"]["follow_errors"]
    assert (error["row"], error["url"], error["error"]) == (1, f"{BASE}2", code)
    assert counts(out) == {"mode": "tab", "done": 2, "total": 3, "failed": 1}


async def test_a_row_without_a_link_is_a_follow_error() -> None:
    browser = site([[row(1), ["item 2", None]]])
    out = await scrape(browser)
    assert out["data"][1] == {"name": "item 2", "link": None}
    assert out["metadata"]["follow_errors"][0]["error"] == "element_not_found"
    assert opened(browser) == [f"{BASE}1"]


async def test_a_login_redirect_stops_following_and_says_so() -> None:
    def detail(c: m.ExtractTab) -> Any:
        if c.url.endswith("/1"):
            return detail_page(c)
        login = "https://data.example/login?next=/item/2"
        return {"rows": [], "count": 0, "warnings": [], "landed": login, "redirected": True}

    browser = site([[row(1), row(2), row(3)], [row(4)]], detail)
    out = await scrape(
        browser,
        follow=FOLLOW | {"concurrency": 1},
        options={"paginate": {"next_selector": "a.next", "delay_ms": 0}},
    )
    assert out["status"] == "complete"
    assert out["data"][0] == merged(1)
    assert out["data"][1:] == [{"name": f"item {n}", "link": f"{BASE}{n}"} for n in (2, 3, 4)]
    stopped = out["metadata"]["follow"]["stopped"]
    assert (stopped["reason"], stopped["row"]) == ("redirected", 1)
    assert opened(browser) == [f"{BASE}1", f"{BASE}2"]  # none after the login page
    assert any("following stopped" in w["message"] for w in out["metadata"]["warnings"])


async def test_a_fatal_failure_ends_the_extract_with_the_rows_read() -> None:
    def detail(c: m.ExtractTab) -> Any:
        return TabPilotError(ErrorCode.EXTENSION_DISCONNECTED, "gone")

    out = await scrape(site([[row(1), row(2)]], detail))
    assert out["status"] == "error" and out["error"] == "extension_disconnected"


async def test_cancel_keeps_the_rows_and_the_details_read() -> None:
    reached = asyncio.Event()

    async def detail(c: m.ExtractTab) -> Any:
        if c.url.endswith("/3"):
            reached.set()  # one at a time: rows 1 and 2 are merged by now
            await asyncio.Event().wait()
        return detail_page(c)

    browser = site([[row(1), row(2), row(3)]], detail)
    request = {
        "operation": "extract",
        "selector": "tr",
        "schema": SCHEMA,
        "follow": FOLLOW | {"concurrency": 1},
    }
    p = build_plan(parse_request(request))
    task = asyncio.create_task(runner.run(p, browser, grace_s=5))
    await reached.wait()
    task.cancel()
    out = result.response(await task, p, "corr-test")
    assert out["status"] == "cancelled"
    assert out["data"] == [merged(1), merged(2), {"name": "item 3", "link": f"{BASE}3"}]


async def test_output_schema_checks_the_merged_rows() -> None:
    shape = {"type": "object", "required": ["owner", "points"], "properties": {"points": {"type": "integer"}}}
    out = await scrape(site([[row(1)]]), output_schema=shape)
    assert out["status"] == "complete" and out["data"] == [merged(1)]


def test_progress_counts_detail_pages() -> None:
    moved = result.progress((0, 1), 2, 40, "c", "running", {"mode": "tab", "done": 3, "total": 40})
    assert moved["progress"] == {"pages": 2, "rows": 40, "details_done": 3, "details_total": 40}
    assert result.progress((0, 1), 2, 40, "c", "running")["progress"] == {"pages": 2, "rows": 40}


@pytest.mark.parametrize(
    "follow",
    [
        {"field": "href", "schema": DETAIL},  # not a row field
        {"field": "link", "schema": {"name": "h1"}},  # clashes with a row field
        {"field": "link", "schema": {}},
        {"field": "link", "schema": DETAIL, "concurrency": 9},
        {"field": "link", "schema": DETAIL, "concurrency": 0},
        {"field": "link", "schema": DETAIL, "depth": 2},  # unknown field
        {"field": "link", "schema": {"owner": ".owner | nosuchop"}},
        {"schema": DETAIL},
    ],
)
def test_the_plan_refuses_a_follow_that_cannot_work(follow: dict[str, Any]) -> None:
    for request in (
        {"operation": "extract", "selector": "tr", "schema": SCHEMA, "follow": follow},
        {
            "operation": "workflow",
            "steps": [{"type": "extract", "selector": "tr", "schema": SCHEMA, "follow": follow}],
        },
    ):
        with pytest.raises(TabPilotError) as err:
            build_plan(parse_request(request))
        assert err.value.code == ErrorCode.INVALID_PARAMS


def test_follow_needs_selector_and_schema_and_is_not_for_suggest() -> None:
    for request in (
        {"operation": "extract", "script": "return []", "follow": FOLLOW},
        {"operation": "suggest", "follow": FOLLOW},
    ):
        with pytest.raises(TabPilotError) as err:
            build_plan(parse_request(request))
        assert err.value.code == ErrorCode.INVALID_PARAMS


def test_the_strategy_and_a_recording_keep_the_follow() -> None:
    p = build_plan(
        parse_request({"operation": "extract", "selector": "tr", "schema": SCHEMA, "follow": FOLLOW})
    )
    step = p.steps[0]
    assert isinstance(step, ExtractStep)
    assert spec_of(step)["follow"] == FOLLOW


def fetched_page(c: Any) -> dict[str, Any]:
    page = detail_page(c)
    return {
        "rows": page["rows"],
        "count": 1,
        "warnings": [],
        "url": c.url,
        "status": 200,
        "redirected": False,
    }


def fetching(pages: list[list[list[Any]]], fetch: Any = fetched_page) -> ScriptedBrowser:
    browser = site(pages)
    browser.handlers["fetch_extract"] = fetch
    return browser


def fetched(browser: ScriptedBrowser) -> list[str]:
    return [c.url for c in browser.sent if isinstance(c, m.FetchExtract)]


async def test_pages_that_read_the_same_fetched_are_fetched_after_the_first() -> None:
    browser = fetching([[row(1), row(2)], [row(3)]])
    out = await scrape(browser, options={"paginate": {"next_selector": "a.next", "delay_ms": 0}})
    assert out["data"] == [merged(1), merged(2), merged(3)]
    assert out["metadata"]["follow"] == {"mode": "fetch", "done": 3, "total": 3}
    assert opened(browser) == [f"{BASE}1"]  # rendered once, for the check
    assert sorted(fetched(browser)) == [f"{BASE}1", f"{BASE}2", f"{BASE}3"]  # each once
    assert out["metadata"]["url"] == "https://data.example/table?page=2"  # the list's, not a detail page's


async def test_pages_drawn_by_scripts_are_rendered_in_tabs() -> None:
    def bare(c: Any) -> dict[str, Any]:
        return fetched_page(c) | {"rows": [[None, None]]}  # the served HTML has no fields yet

    browser = fetching([[row(1), row(2), row(3)]], bare)
    out = await scrape(browser)
    assert out["data"] == [merged(1), merged(2), merged(3)]
    assert out["metadata"]["follow"]["mode"] == "tab" and "scripts" in out["metadata"]["follow"]["why"]
    assert sorted(opened(browser)) == [f"{BASE}1", f"{BASE}2", f"{BASE}3"]
    # Page 2 was fetched while page 1 was checked (two in flight at first), for nothing as it turned
    # out; no page twice.
    got = fetched(browser)
    assert {f"{BASE}1", f"{BASE}2"} <= set(got) and len(got) == len(set(got))


async def test_detail_pages_on_another_site_are_rendered_without_trying_a_fetch() -> None:
    browser = fetching([[["elsewhere", "https://other.example/item/1"]]])
    browser.handlers["extract_tab"] = lambda c: {"rows": [["owner 1", "10 pts"]], "landed": c.url}
    out = await scrape(browser)
    assert out["data"][0]["owner"] == "owner 1"
    assert out["metadata"]["follow"]["mode"] == "tab" and fetched(browser) == []


async def test_fetched_pages_fail_and_stop_like_rendered_ones() -> None:
    def fetch(c: Any) -> Any:
        if c.url.endswith("/2"):
            return TabPilotError("http_error", "answered HTTP 404", data={"status": 404})
        if c.url.endswith("/3"):
            return fetched_page(c) | {"url": "https://data.example/login?next=/item/3", "redirected": True}
        return fetched_page(c)

    browser = fetching([[row(1), row(2), row(3), row(4)]], fetch)
    out = await scrape(browser, follow=FOLLOW | {"concurrency": 1})
    assert out["data"][0] == merged(1)
    assert [e["error"] for e in out["metadata"]["follow_errors"]] == ["http_error"]
    assert out["metadata"]["follow"]["stopped"]["reason"] == "redirected"
    # One at a time at the site, and the next page already asked for while one is read (it waits in
    # the page for the place): page 4 at most, never page 5.
    got = fetched(browser)
    assert got[:3] == [f"{BASE}1", f"{BASE}2", f"{BASE}3"] and got[3:] in ([], [f"{BASE}4"])
