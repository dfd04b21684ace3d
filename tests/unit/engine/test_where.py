"""`options.where` keeps only the rows asked for, on converted values; a bad condition is refused before
anything runs. `options.virtual` reaches the page, and what the page says of a grid reaches the agent."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.engine import result, runner
from tabpilot.engine.plan import build_plan, parse_request
from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tests.support.fake_browser import ScriptedBrowser, TableSite

pytestmark = pytest.mark.anyio

SCHEMA = {"id": "td.id", "status": "td.status", "priority": "td.p | number", "tags": "li | all"}
TICKETS = [
    [f"T-{i}", "open" if i % 3 else "closed", str(i % 5), ["ui"] if i % 2 else ["api"]] for i in range(1, 21)
]
PAGES = [TICKETS[:10], TICKETS[10:]]


async def extract(site: TableSite, **options: Any) -> tuple[dict[str, Any], ScriptedBrowser]:
    browser = site.install(ScriptedBrowser())
    p = build_plan(
        parse_request({"operation": "extract", "selector": "tr", "schema": SCHEMA, "options": options})
    )
    return result.response(await runner.run(p, browser, grace_s=0.05), p, "corr-test"), browser


def expected(keep: Any) -> list[str]:
    return [t[0] for t in TICKETS if keep(t)]


@pytest.mark.parametrize(
    ("where", "keep"),
    [
        ({"status": "open"}, lambda t: t[1] == "open"),
        ({"status": "open", "priority": {">=": 3}}, lambda t: t[1] == "open" and int(t[2]) >= 3),
        ({"priority": {">": 1, "<=": 3}}, lambda t: 1 < int(t[2]) <= 3),
        (
            {"priority": {"!=": 0}, "status": {"in": ["closed"]}},
            lambda t: int(t[2]) != 0 and t[1] == "closed",
        ),
        ({"id": {"contains": "1"}}, lambda t: "1" in t[0]),
        ({"tags": {"contains": "api"}}, lambda t: "api" in t[3]),
        ({"status": {"<": "o"}}, lambda t: t[1] < "o"),
        ({"priority": {">": "2"}}, lambda t: False),  # a number is never compared with a string
    ],
)
async def test_where_keeps_the_matching_rows_of_every_page(where: dict[str, Any], keep: Any) -> None:
    paginate = {"next_selector": "a", "delay_ms": 0}
    out, _ = await extract(TableSite(PAGES), where=where, paginate=paginate)
    assert [r["id"] for r in out["data"]] == expected(keep)
    assert out["metadata"]["rows_filtered_out"] == 20 - len(out["data"])
    assert out["metadata"]["pagination_stopped"]["reason"] == "no_next", "filtered-out pages are not the end"


async def test_limit_counts_the_rows_kept_and_the_page_is_not_told_a_limit() -> None:
    out, browser = await extract(
        TableSite(PAGES), where={"status": "closed"}, limit=4, paginate={"next_selector": "a", "delay_ms": 0}
    )
    assert [r["id"] for r in out["data"]] == ["T-3", "T-6", "T-9", "T-12"]
    extracts = [c for c in browser.sent if isinstance(c, m.Extract)]
    assert [c.limit for c in extracts] == [None, None, 0]  # 0: is the page at the limit the last?


@pytest.mark.parametrize(
    "where",
    [
        {"nosuch": 1},
        {"priority": {"~": 1}},
        {"priority": {">": [1]}},
        {"status": {"in": "open"}},
        {"status": {}},
        {"id": {"contains": 1}},
    ],
)
def test_a_bad_condition_is_invalid_params(where: dict[str, Any]) -> None:
    with pytest.raises(TabPilotError) as caught:
        build_plan(
            parse_request(
                {"operation": "extract", "selector": "tr", "schema": SCHEMA, "options": {"where": where}}
            )
        )
    assert caught.value.code == ErrorCode.INVALID_PARAMS


def test_where_in_a_workflow_step_and_not_with_a_script() -> None:
    step = {"type": "extract", "selector": "tr", "schema": SCHEMA, "options": {"where": {"nosuch": 1}}}
    with pytest.raises(TabPilotError) as caught:
        build_plan(parse_request({"operation": "workflow", "steps": [step]}))
    assert caught.value.code == ErrorCode.INVALID_PARAMS
    with pytest.raises(TabPilotError) as caught:
        build_plan(
            parse_request({"operation": "extract", "script": "return []", "options": {"where": {"a": 1}}})
        )
    assert caught.value.code == ErrorCode.INVALID_PARAMS


async def test_virtual_reaches_the_page_and_the_grid_s_report_the_agent() -> None:
    site = TableSite([TICKETS])
    browser = site.install(ScriptedBrowser())
    page = site.extract
    browser.handlers["extract"] = lambda c: (
        page(c) | {"virtual": {"rows": 20, "scrolls": 3, "complete": True}}
    )
    p = build_plan(
        parse_request(
            {"operation": "extract", "selector": "tr", "schema": SCHEMA, "options": {"virtual": True}}
        )
    )
    out = result.response(await runner.run(p, browser, grace_s=0.05), p, "corr-test")
    read = {"rows": 20, "scrolls": 3, "complete": True, "at_end": False, "keyed_by": "index", "calls": 1}
    assert out["metadata"]["virtual"] == read
    assert [c.virtual for c in browser.sent if isinstance(c, m.Extract)] == [True]


async def test_a_grid_read_that_runs_out_of_time_goes_on_where_it_was() -> None:
    site = TableSite([TICKETS])
    browser = site.install(ScriptedBrowser())
    page = site.extract
    calls = iter([False, False, True])

    def extract(c: m.Extract) -> Any:
        if next(calls):
            return page(c) | {"virtual": {"rows": 20, "scrolls": 9, "complete": True}}
        return {
            "rows": [],
            "count": 0,
            "url": site.url,
            "virtual": {"rows": 7, "complete": False, "resume": True},
        }

    browser.handlers["extract"] = extract
    p = build_plan(parse_request({"operation": "extract", "selector": "tr", "schema": SCHEMA}))
    out = result.response(await runner.run(p, browser, grace_s=0.05), p, "corr-test")
    assert [r["id"] for r in out["data"]] == [t[0] for t in TICKETS]
    assert [c.resume for c in browser.sent if isinstance(c, m.Extract)] == [False, True, True]
    assert out["metadata"]["virtual"]["calls"] == 3


async def test_a_grid_that_never_finishes_is_a_timeout_not_a_hang() -> None:
    browser = TableSite([TICKETS]).install(ScriptedBrowser())
    browser.handlers["extract"] = lambda c: {
        "rows": [],
        "count": 0,
        "virtual": {"complete": False, "resume": True},
    }
    p = build_plan(parse_request({"operation": "extract", "selector": "tr", "schema": SCHEMA}))
    out = result.response(await runner.run(p, browser, grace_s=0.05), p, "corr-test")
    assert out["error"] == ErrorCode.TIMEOUT
    sent = [c for c in browser.sent if isinstance(c, m.Extract)]
    assert len(sent) == 21 and [c.last for c in sent] == [False] * 20 + [True]


async def test_a_grid_still_unread_at_the_last_call_keeps_the_rows_it_read() -> None:
    site = TableSite([TICKETS])
    browser = site.install(ScriptedBrowser())
    page = site.extract

    def extract(c: m.Extract) -> Any:
        if c.last:  # out of time once more: the page answers what it has
            return page(c) | {"virtual": {"rows": 20, "scrolls": 30, "complete": False, "at_end": False}}
        return {
            "rows": [],
            "count": 0,
            "url": site.url,
            "virtual": {"rows": 7, "complete": False, "resume": True},
        }

    browser.handlers["extract"] = extract
    p = build_plan(parse_request({"operation": "extract", "selector": "tr", "schema": SCHEMA}))
    out = result.response(await runner.run(p, browser, grace_s=0.05), p, "corr-test")
    assert out["status"] == "partial"
    assert [r["id"] for r in out["data"]] == [t[0] for t in TICKETS]
    why = out["metadata"]["partial_because"]
    assert (why["reason"], why["hint"]["option"]) == ("grid_incomplete", "options.timeout_ms")
    assert out["metadata"]["virtual"]["calls"] == 21
