"""Every paginated or scrolled extract says why it stopped (`metadata.pagination_stopped`), and the
stops that usually mean a wrong selector or a lost session warn as well."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.engine import result, runner
from tabpilot.engine.plan import build_plan, parse_request
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tests.support.fake_browser import ScriptedBrowser, TableSite

pytestmark = pytest.mark.anyio

SCHEMA = {"name": "td:nth-child(1)", "points": "td:nth-child(2) | number"}
PAGES = [[["a", "1"], ["b", "2"]], [["c", "3"]], [["d", "4"]]]


async def walk(browser: ScriptedBrowser, **options: Any) -> dict[str, Any]:
    request = {"operation": "extract", "selector": "tr", "schema": SCHEMA, "options": options}
    p = build_plan(parse_request(request))
    return result.response(await runner.run(p, browser, grace_s=0.05), p, "corr-test")


def paged(**paginate: Any) -> dict[str, Any]:
    return {"paginate": {"next_selector": "a.next", "delay_ms": 0, **paginate}}


@pytest.mark.parametrize(
    ("end", "reason"), [("missing", "no_next"), ("disabled", "next_disabled"), ("unchanged", "unchanged")]
)
async def test_the_page_s_end_reasons(end: str, reason: str) -> None:
    browser = TableSite(PAGES).install(ScriptedBrowser())
    browser.handlers["paginate"] = lambda c: {
        "outcome": "end",
        "reason": end,
        "url": "https://data.example/t",
    }
    out = await walk(browser, **paged())
    stop = out["metadata"]["pagination_stopped"]
    assert (stop["reason"], stop["page"]) == (reason, 1) and "a.next" in stop["detail"]
    assert "warnings" not in out["metadata"]


async def test_last_page_max_pages_limit_and_an_empty_page() -> None:
    out = await walk(TableSite(PAGES).install(ScriptedBrowser()), **paged())
    assert out["metadata"]["pagination_stopped"]["reason"] == "no_next"
    assert out["metadata"]["pagination_stopped"]["page"] == 3
    out = await walk(TableSite(PAGES).install(ScriptedBrowser()), **paged(max_pages=2))
    assert out["metadata"]["pagination_stopped"]["reason"] == "max_pages" and len(out["data"]) == 3
    out = await walk(TableSite(PAGES).install(ScriptedBrowser()), limit=2, **paged())
    assert out["metadata"]["pagination_stopped"]["reason"] == "limit" and len(out["data"]) == 2
    out = await walk(TableSite([[["a", "1"]], []]).install(ScriptedBrowser()), **paged())
    assert out["metadata"]["pagination_stopped"] == {
        "reason": "no_rows",
        "page": 2,
        "detail": "this page has no rows matching the selector",
    }


async def test_a_next_link_to_a_json_document_is_not_html_with_a_warning() -> None:
    site = TableSite([PAGES[0], [['[{"a": 1}]']]])
    browser = site.install(ScriptedBrowser())
    page = site.extract

    def extract(c: Any) -> Any:
        out = page(c)
        return out | {"type": "application/json" if site.page else "text/html"}

    browser.handlers["extract"] = extract
    out = await walk(browser, **paged())
    assert [r["name"] for r in out["data"]] == ["a", "b"]
    stop = out["metadata"]["pagination_stopped"]
    assert (stop["reason"], stop["page"]) == ("not_html", 2) and "application/json" in stop["detail"]
    assert [w for w in out["metadata"]["warnings"] if "not_html" in w["message"]]


async def test_a_redirect_to_a_page_without_rows_warns_and_one_to_a_login_is_an_error() -> None:
    site = TableSite([PAGES[0], []])
    browser = site.install(ScriptedBrowser())
    moved = site.paginate
    browser.handlers["paginate"] = lambda c: moved(c) | {"reason": "redirected"}
    out = await walk(browser, **paged())
    assert out["status"] == "partial" and out["metadata"]["pagination_stopped"]["reason"] == "redirected"
    assert [w for w in out["metadata"]["warnings"] if "redirected" in w["message"]]

    browser = TableSite(PAGES).install(ScriptedBrowser())
    browser.handlers["paginate"] = lambda c: {
        "outcome": "navigated",
        "reason": "redirected",
        "url": "https://data.example/login?next=2",
    }
    out = await walk(browser, **paged())
    assert out["error"] == ErrorCode.NAVIGATION_REDIRECT
    assert out["metadata"]["pagination_stopped"]["reason"] == "redirected"


@pytest.mark.parametrize(
    ("answers", "reason", "page"),
    [
        ([(10, 20, False), (20, 20, False)], "unchanged", 2),
        ([(10, 20, False), (20, 30, True), (30, 30, False)], "end_marker", 3),
        ([(10, 20, False)] * 3, "max_scrolls", 3),
    ],
)
async def test_scroll_reasons(answers: list[tuple[int, int, bool]], reason: str, page: int) -> None:
    browser = TableSite([[["r", "1"]] * 30]).install(ScriptedBrowser())
    given = iter(answers)
    sent: list[Any] = []

    def scroll_load(c: Any) -> Any:
        sent.append(c)
        before, after, found = next(given)
        return {"before": before, "after": after, "until_found": found}

    browser.handlers["scroll_load"] = scroll_load
    out = await walk(browser, scroll={"max_scrolls": 3, "until_selector": ".end"})
    stop = out["metadata"]["pagination_stopped"]
    assert (stop["reason"], stop["page"]) == (reason, page)
    assert {c.quiet_ms for c in sent} == {500}, "the feed's end is a short quiet window, not the timeout"


@pytest.mark.parametrize("quiet", [0, 49, 60_001])
def test_a_quiet_window_out_of_range_is_invalid_params(quiet: int) -> None:
    request = {
        "operation": "extract",
        "selector": "li",
        "schema": SCHEMA,
        "options": {"scroll": {"quiet_ms": quiet}},
    }
    with pytest.raises(TabPilotError) as caught:
        build_plan(parse_request(request))
    assert caught.value.code == ErrorCode.INVALID_PARAMS


# ---- evidence: complete only with proof of the end, else partial with a hint -------------------------


def probed(site: TableSite, **position: Any) -> ScriptedBrowser:
    """A site whose last page's live read (the end probe: limit 0, next_selector) tells `position`."""
    browser = site.install(ScriptedBrowser())
    page = site.extract

    def extract(c: Any) -> Any:
        out = page(c)
        if c.next_selector and c.limit == 0:
            last = site.page + 1 >= len(site.pages)
            out["next"] = {"end": "missing", **position} if last else {"kind": "button"}
        return out

    browser.handlers["extract"] = extract
    return browser


def because(out: dict[str, Any]) -> tuple[str, Any]:
    meta = out["metadata"]
    return out["status"], meta.get("complete_because") or meta["partial_because"]["reason"]


async def test_a_missing_next_with_no_pager_past_the_page_is_next_absent() -> None:
    out = await walk(probed(TableSite(PAGES)), **paged())
    assert because(out) == ("complete", "next_absent") and "partial_because" not in out["metadata"]


async def test_a_missing_next_on_the_numbered_pager_s_last_page_is_last_numbered_page() -> None:
    out = await walk(probed(TableSite(PAGES), current=3, last=3), **paged())
    assert because(out) == ("complete", "last_numbered_page")


@pytest.mark.parametrize("position", [{"current": 3, "last": 7}, {"onward": "li.active + li a"}])
async def test_a_missing_next_while_the_pager_goes_on_is_partial(position: dict[str, Any]) -> None:
    out = await walk(probed(TableSite(PAGES), **position), **paged())
    assert because(out) == ("partial", "no_next") and "complete_because" not in out["metadata"]
    hint = out["metadata"]["partial_because"]["hint"]
    assert hint["option"] == "options.paginate.next_selector"
    assert hint["value"] == position.get("onward")
    assert "misses" in out["metadata"]["partial_because"]["detail"]


async def test_a_next_link_the_page_hides_while_it_leads_on_is_no_proof_of_the_end() -> None:
    out = await walk(probed(TableSite(PAGES), hidden=True), **paged())
    assert because(out) == ("partial", "no_next") and "complete_because" not in out["metadata"]
    partial = out["metadata"]["partial_because"]
    assert partial["hint"]["option"] == "options.scroll"
    assert "hidden" in partial["detail"]


@pytest.mark.parametrize(
    ("end", "expected"),
    [("disabled", ("complete", "next_disabled")), ("unchanged", ("partial", "unchanged"))],
)
async def test_a_disabled_next_is_proof_and_a_click_that_changes_nothing_is_not(
    end: str, expected: tuple[str, str]
) -> None:
    browser = TableSite(PAGES).install(ScriptedBrowser())
    browser.handlers["paginate"] = lambda c: {
        "outcome": "end",
        "reason": end,
        "url": "https://data.example/t",
    }
    out = await walk(browser, **paged())
    assert because(out) == expected


async def test_max_pages_is_partial_with_a_hint_unless_that_page_is_the_last() -> None:
    out = await walk(probed(TableSite(PAGES)), **paged(max_pages=2))
    assert because(out) == ("partial", "max_pages") and len(out["data"]) == 3
    assert out["metadata"]["partial_because"]["hint"] == {
        "option": "options.paginate.max_pages",
        "value": 4,
        "why": "page 2 still has a next page",
    }
    out = await walk(probed(TableSite(PAGES)), **paged(max_pages=3))
    assert because(out) == ("complete", "next_absent") and len(out["data"]) == 4
    assert out["metadata"]["pagination_stopped"]["reason"] == "max_pages"


async def test_limit_is_partial_unless_the_limit_s_page_is_the_last() -> None:
    out = await walk(probed(TableSite(PAGES)), limit=2, **paged())
    assert because(out) == ("partial", "limit")
    assert out["metadata"]["partial_because"]["hint"]["option"] == "options.limit"
    out = await walk(probed(TableSite(PAGES)), limit=4, **paged())
    assert because(out) == ("complete", "next_absent") and len(out["data"]) == 4


async def test_a_page_without_rows_is_partial() -> None:
    out = await walk(TableSite([[["a", "1"]], []]).install(ScriptedBrowser()), **paged())
    assert because(out) == ("partial", "no_rows")
    assert out["metadata"]["partial_because"]["hint"]["option"] == "selector"


async def test_a_partial_walk_keeps_the_run_partial_after_a_complete_one() -> None:
    step = {"type": "extract", "selector": "tr", "schema": SCHEMA}
    steps = [step | {"paginate": paged(max_pages=1)["paginate"]}, step | {"paginate": paged()["paginate"]}]
    p = build_plan(parse_request({"operation": "workflow", "steps": steps}))
    out = result.response(await runner.run(p, probed(TableSite(PAGES)), grace_s=0.05), p, "c")
    assert out["status"] == "partial" and out["metadata"]["partial_because"]["reason"] == "max_pages"
    assert "complete_because" not in out["metadata"]
