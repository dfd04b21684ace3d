"""The workflow runner against a scripted browser: sequencing, variables, conditions, recovery."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tabpilot.engine import result, runner
from tabpilot.engine.plan import build_plan, parse_request
from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tests.support.fake_browser import ScriptedBrowser, TableSite

pytestmark = pytest.mark.anyio

SCHEMA = {"name": "td:nth-child(1)", "points": "td:nth-child(2) | number"}
PAGES = [[["a", "1"], ["b", "2"]], [["c", "3,000"]], [["d", "x"]]]


def plan(**request: Any):  # type: ignore[no-untyped-def]
    request.setdefault("options", {}).setdefault("delay_ms", 0)
    return build_plan(parse_request(request))


async def run(p: Any, browser: ScriptedBrowser, **kw: Any) -> dict[str, Any]:
    outcome = await runner.run(p, browser, grace_s=0.05, **kw)
    return result.response(outcome, p, "corr-test")


def workflow(*steps: dict[str, Any], **kw: Any) -> Any:
    return plan(operation="workflow", steps=list(steps), **kw)


async def test_extract_paginates_merges_pages_and_converts() -> None:
    site = TableSite(PAGES)
    browser = site.install(ScriptedBrowser())
    p = plan(
        operation="extract",
        selector="tr",
        schema=SCHEMA,
        options={
            "wait_for": ".loaded",
            "paginate": {"next_selector": "a.next", "max_pages": 5, "delay_ms": 0},
        },
    )
    out = await run(p, browser)
    assert out["status"] == "complete"
    assert out["data"] == [
        {"name": "a", "points": 1},
        {"name": "b", "points": 2},
        {"name": "c", "points": 3000},
        {"name": "d", "points": None},
    ]
    meta = out["metadata"]
    assert meta["pages_scraped"] == 3 and meta["rows_extracted"] == 4 and meta["url"].endswith("page=3")
    assert meta["warnings"][0]["field"] == "points"
    assert "steps_total" not in out, "extract answers in the seed's extract shape"
    # The last extract reads the last page's pager: is there a page past it that next_selector missed?
    tags = ["wait_for", "extract", "paginate", "extract", "paginate", "extract", "paginate", "extract"]
    assert browser.tags() == tags
    sent = browser.sent[1]
    assert isinstance(sent, m.Extract) and [f.name for f in sent.fields] == ["name", "points"]


async def test_pagination_stops_at_max_pages_and_on_an_empty_page() -> None:
    site = TableSite(PAGES)
    out = await run(
        plan(
            operation="extract",
            selector="tr",
            schema=SCHEMA,
            options={"paginate": {"next_selector": "a", "max_pages": 2, "delay_ms": 0}},
        ),
        site.install(ScriptedBrowser()),
    )
    assert out["metadata"]["pages_scraped"] == 2 and len(out["data"]) == 3
    empty = TableSite([[["a", "1"]], [], [["never", "1"]]])
    out = await run(
        plan(
            operation="extract",
            selector="tr",
            schema=SCHEMA,
            options={"paginate": {"next_selector": "a", "delay_ms": 0}},
        ),
        empty.install(ScriptedBrowser()),
    )
    assert out["metadata"]["pages_scraped"] == 2 and empty.extracted == [0, 1]


async def test_no_match_is_an_empty_list_not_an_error() -> None:
    site = TableSite([[]])
    out = await run(
        plan(operation="extract", selector="tr.none", schema=SCHEMA), site.install(ScriptedBrowser())
    )
    assert out["status"] == "complete" and out["data"] == [] and out["metadata"]["rows_extracted"] == 0


async def test_infinite_scroll_loads_until_no_new_rows_then_extracts_once() -> None:
    counts = iter([(10, 20), (20, 30), (30, 30)])
    site = TableSite([[["r", "1"]] * 30])
    browser = site.install(ScriptedBrowser())
    browser.handlers["scroll_load"] = lambda c: (
        dict(zip(("before", "after"), next(counts), strict=True)) | {"until_found": False}
    )
    out = await run(
        plan(operation="extract", selector="li", schema=SCHEMA, options={"scroll": {"max_scrolls": 10}}),
        browser,
    )
    assert browser.tags() == ["scroll_load", "scroll_load", "scroll_load", "extract"]
    assert len(out["data"]) == 30


async def test_workflow_sequence_variables_and_outputs() -> None:
    site = TableSite(PAGES[:1])
    browser = site.install(ScriptedBrowser())
    browser.handlers["execute_js"] = lambda c: {"success": True, "result": {"sprint": "S-7"}}
    browser.handlers["click"] = lambda c: {}
    browser.handlers["fill"] = lambda c: {}
    p = workflow(
        {"type": "navigate", "url": "https://jira.example/boards/{{params.board}}"},
        {"type": "execute_js", "script": "return {sprint: 'S-7'}", "save_as": "info"},
        {"type": "fill", "selector": "#q", "value": "sprint={{info.sprint}}"},
        {"type": "click", "selector": "button[data-testid='go']"},
        {"type": "extract", "selector": "tr", "schema": SCHEMA, "save_as": "rows"},
        {"type": "fill", "selector": "#q", "value": "first={{rows.0.name}}"},
        params={"board": "PROJ"},
    )
    out = await run(p, browser)
    assert out["status"] == "complete" and out["steps_completed"] == out["steps_total"] == 6
    assert browser.tags() == ["navigate", "execute_js", "fill", "click", "extract", "fill"]
    nav, _, fill1, _, _, fill2 = [c for c in browser.sent if not isinstance(c, m.Telemetry)]
    assert isinstance(nav, m.Navigate) and nav.url == "https://jira.example/boards/PROJ"
    assert isinstance(fill1, m.Fill) and fill1.value == "sprint=S-7"
    assert isinstance(fill2, m.Fill) and fill2.value == "first=a"
    assert out["outputs"] == {"info": {"sprint": "S-7"}}
    assert out["data"] == [{"name": "a", "points": 1}, {"name": "b", "points": 2}]
    # The tab the navigate reported is pinned for every later command.
    assert all(getattr(c, "tab_id", 1) == 1 for c in browser.sent[1:])


async def test_unknown_variables_are_rejected_before_running() -> None:
    with pytest.raises(TabPilotError) as err:
        workflow({"type": "navigate", "url": "{{params.nope}}"})
    assert err.value.code == ErrorCode.INVALID_PARAMS
    with pytest.raises(TabPilotError) as err:
        workflow(
            {"type": "fill", "selector": "#q", "value": "{{later}}"},
            {"type": "execute_js", "script": "1", "save_as": "later"},
        )
    assert err.value.code == ErrorCode.INVALID_PARAMS


@pytest.mark.parametrize(
    "bad",
    [
        {"type": "teleport"},
        {"type": "click"},
        {"type": "wait"},
        {"type": "extract", "selector": "tr", "schema": {"x": "td | bogus"}},
        {"type": "click", "selector": "a", "colour": "red"},
    ],
)
def test_invalid_steps_are_invalid_params(bad: dict[str, Any]) -> None:
    with pytest.raises(TabPilotError) as err:
        workflow(bad)
    assert err.value.code == ErrorCode.INVALID_PARAMS and "steps[0]" in err.value.message


def test_step_cap() -> None:
    with pytest.raises(TabPilotError) as err:
        workflow(*[{"type": "press", "key": "Tab"}] * 51)
    assert err.value.code == ErrorCode.INVALID_PARAMS


async def test_conditions_skip_or_run_steps() -> None:
    browser = ScriptedBrowser(
        {
            "click": lambda c: {},
            "count": lambda c: {"count": 1 if c.selector == ".modal" else 0, "visible": 0},
        }
    )
    out = await run(
        workflow(
            {"type": "click", "selector": ".close", "if": {"exists": ".modal"}},
            {"type": "click", "selector": ".cookie-ok", "if": {"exists": ".cookie"}},
            {"type": "click", "selector": ".open", "unless": {"exists": ".modal"}},
            {"type": "click", "selector": ".always", "if": {"visible": ".modal"}},
        ),
        browser,
    )
    clicked = [c.selector for c in browser.sent if isinstance(c, m.Click)]
    assert clicked == [".close"]
    assert out["steps_completed"] == 4 and out["metadata"]["skipped_steps"] == [1, 2, 3]


async def test_result_over_the_cap_without_a_journal_is_truncated_with_metadata() -> None:
    rows = [[f"row-{i}-" + "x" * 1000, str(i)] for i in range(1500)]
    site = TableSite([rows])
    out = await run(plan(operation="extract", selector="tr", schema=SCHEMA), site.install(ScriptedBrowser()))
    meta = out["metadata"]
    assert meta["truncated"] is True and meta["rows_extracted"] == 1500
    assert 0 < meta["rows_returned"] == len(out["data"]) < 1500
    import msgspec

    from tabpilot.wire.scrape import DEFAULT_INLINE_BYTES as cap

    assert len(msgspec.json.encode(out["data"])) <= cap
    assert len(msgspec.json.encode(out["data"] + [{"name": rows[0][0], "points": 0}])) > cap - 1100


async def test_bytes_to_the_agent_stay_close_to_the_rows() -> None:
    import msgspec

    rows = [[f"name {i}", f"{i},000", f"x{i}"] for i in range(500)]
    site = TableSite([rows])
    out = await run(
        plan(operation="extract", selector="tr", schema={"a": "td", "b": "td | number", "c": "td"}),
        site.install(ScriptedBrowser()),
    )
    assert len(msgspec.json.encode(out)) <= 1.05 * len(msgspec.json.encode(out["data"]))


async def test_delay_between_steps_is_the_only_pause() -> None:
    slept: list[float] = []
    real_sleep = asyncio.sleep

    async def fake_sleep(s: float) -> None:
        slept.append(s)
        await real_sleep(0)

    browser = ScriptedBrowser({"press": lambda c: {}})
    steps = [{"type": "press", "key": "a"}] * 3
    mp = pytest.MonkeyPatch()
    mp.setattr(asyncio, "sleep", fake_sleep)
    try:
        await runner.run(
            build_plan(parse_request({"operation": "workflow", "steps": steps})), browser, grace_s=0.05
        )
        assert slept == [], "steps wait for their own conditions: no pause by default"
        polite = {"operation": "workflow", "steps": steps, "options": {"delay_ms": 250}}
        await runner.run(build_plan(parse_request(polite)), browser, grace_s=0.05)
    finally:
        mp.undo()
    assert slept == [0.25, 0.25], "options.delay_ms between steps, none before the first"


async def test_a_next_page_that_lands_on_a_login_is_navigation_redirect() -> None:
    site = TableSite(PAGES)
    browser = site.install(ScriptedBrowser())
    browser.handlers["paginate"] = lambda c: {
        "outcome": "navigated",
        "reason": "redirected",
        "url": "https://data.example/login?next=2",
    }
    out = await run(
        plan(
            operation="extract",
            selector="tr",
            schema=SCHEMA,
            options={"paginate": {"next_selector": "a", "delay_ms": 0}},
        ),
        browser,
    )
    assert out["error"] == ErrorCode.NAVIGATION_REDIRECT and out["redirect_url"].endswith("login?next=2")
    assert len(out["data"]) == 2


async def test_page_errors_and_requests_during_the_run_are_summarised() -> None:
    import time

    def logs(kind: str) -> list[dict[str, Any]]:
        # Stamped when the run asks, i.e. after it started, however slow the machine; "old" predates it.
        now = time.time() * 1000
        return {
            "errors": [
                {"time": now - 60_000, "message": "old"},
                {"time": now, "message": "TypeError: x is undefined"},
            ],
            "network": [
                {"time": now, "url": "https://a.example/api", "status": 200},
                {"time": now, "url": "https://a.example/broken", "status": 500},
                {"time": now, "url": "https://cdn.example/x.js", "status": 0, "error": "net::ERR_FAILED"},
            ],
        }[kind]

    browser = ScriptedBrowser(
        {"press": lambda c: {}, "telemetry": lambda c: {"items": logs(c.kind), "cursor": 9, "more": False}}
    )
    out = await run(workflow({"type": "press", "key": "Tab"}), browser)
    assert out["metadata"]["telemetry"] == {
        "errors": 1,
        "first_errors": ["TypeError: x is undefined"],
        "requests": 3,
        "failed_requests": 2,
        "first_failures": ["500 https://a.example/broken", "net::ERR_FAILED https://cdn.example/x.js"],
    }
    # An extension without the command gives no summary; a one-page extract does not ask.
    out = await run(workflow({"type": "press", "key": "Tab"}), ScriptedBrowser({"press": lambda c: {}}))
    assert "telemetry" not in out["metadata"]
    site = TableSite(PAGES[:1])
    quick = site.install(ScriptedBrowser({"telemetry": lambda c: {"items": []}}))
    out = await run(plan(operation="extract", selector="tr", schema=SCHEMA), quick)
    assert "telemetry" not in quick.tags(telemetry=True) and "telemetry" not in out["metadata"]


async def test_form_steps_send_their_page_commands() -> None:
    browser = ScriptedBrowser(
        {t: (lambda c: {}) for t in ("type", "check", "hover", "select", "scroll", "press")}
    )
    out = await run(
        workflow(
            {"type": "type", "selector": "#q", "text": "widgets"},
            {"type": "check", "selector": "#agree", "checked": False},
            {"type": "hover", "selector": "nav .menu"},
            {"type": "select", "selector": "#size", "value": "L"},
            {"type": "scroll", "to": "bottom"},
            {"type": "press", "key": "Enter"},
        ),
        browser,
    )
    assert out["status"] == "complete"
    typed, checked, hovered, chosen, scrolled, pressed = [
        c for c in browser.sent if not isinstance(c, m.Telemetry)
    ]
    assert isinstance(typed, m.TypeText) and typed.text == "widgets" and typed.selector == "#q"
    assert isinstance(checked, m.Check) and checked.checked is False
    assert isinstance(hovered, m.Hover) and hovered.selector == "nav .menu"
    assert isinstance(chosen, m.SelectOption) and chosen.values == ["L"]
    assert isinstance(scrolled, m.Scroll) and scrolled.to == "bottom"
    assert isinstance(pressed, m.Press) and pressed.key == "Enter" and pressed.selector is None
