"""A scrolled feed is complete only once a scroll brings no rows with nothing in flight; an end notice
alone proves nothing until one more scroll confirms it; max_scrolls and limit stops are partial."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.engine import result, runner
from tabpilot.engine.plan import build_plan, parse_request
from tests.support.fake_browser import ScriptedBrowser, TableSite

pytestmark = pytest.mark.anyio

SCHEMA = {"name": "td:nth-child(1)"}


SENT: list[Any] = []


async def scrolled(answers: list[dict[str, Any]], **options: Any) -> tuple[dict[str, Any], int]:
    browser = TableSite([[["r"]] * 30]).install(ScriptedBrowser())
    given = iter(answers)
    scrolls: list[Any] = []

    def scroll_load(c: Any) -> Any:
        scrolls.append(c)
        return next(given)

    browser.handlers["scroll_load"] = scroll_load
    scroll = {"max_scrolls": 4} | options.pop("scroll", {})
    request = {
        "operation": "extract",
        "selector": "tr",
        "schema": SCHEMA,
        "options": {"scroll": scroll, **options},
    }
    p = build_plan(parse_request(request))
    out = result.response(await runner.run(p, browser, grace_s=0.05), p, "corr-test")
    SENT[:] = scrolls
    return out, len(scrolls)


def grew(before: int, after: int, **more: Any) -> dict[str, Any]:
    return {"before": before, "after": after} | more


async def test_a_scroll_with_no_rows_and_nothing_in_flight_is_feed_stopped_growing() -> None:
    out, n = await scrolled([grew(10, 20), grew(20, 20)])
    assert (out["status"], out["metadata"]["complete_because"], n) == ("complete", "feed_stopped_growing", 2)


async def test_no_rows_while_requests_are_in_flight_scrolls_on() -> None:
    out, n = await scrolled([grew(10, 20), grew(20, 20, in_flight=1), grew(20, 30), grew(30, 30)])
    assert (out["metadata"]["complete_because"], n) == ("feed_stopped_growing", 4)


async def test_an_end_notice_counts_once_one_more_scroll_brings_nothing() -> None:
    out, n = await scrolled([grew(10, 20, until_found=True, end_notice=True), grew(20, 20)])
    assert (out["status"], out["metadata"]["complete_because"], n) == ("complete", "end_marker_confirmed", 2)
    assert out["metadata"]["pagination_stopped"]["reason"] == "end_marker"
    assert [c.confirm for c in SENT] == [False, True], "the page is told which scroll confirms the notice"


async def test_an_end_notice_that_more_rows_follow_is_not_the_end() -> None:
    answers = [grew(10, 20, until_found=True), grew(20, 40), grew(40, 50, until_found=True), grew(50, 50)]
    out, n = await scrolled(answers)
    assert (out["metadata"]["complete_because"], n) == ("end_marker_confirmed", 4)


async def test_the_confirming_scroll_may_go_one_past_max_scrolls() -> None:
    out, n = await scrolled(
        [grew(10, 20), grew(20, 30, until_found=True), grew(30, 30)], scroll={"max_scrolls": 2}
    )
    assert (out["status"], out["metadata"]["complete_because"], n) == ("complete", "end_marker_confirmed", 3)


async def test_max_scrolls_is_partial_with_a_hint() -> None:
    out, n = await scrolled([grew(10, 20)] * 4)
    assert (out["status"], n) == ("partial", 4)
    assert out["metadata"]["partial_because"]["reason"] == "max_scrolls"
    assert out["metadata"]["partial_because"]["hint"]["option"] == "options.scroll.max_scrolls"
    assert out["metadata"]["partial_because"]["hint"]["value"] == 8


async def test_a_limit_reached_while_scrolling_is_partial() -> None:
    out, n = await scrolled([grew(10, 20), grew(20, 30)], limit=25)
    assert (out["status"], out["metadata"]["partial_because"]["reason"], n) == ("partial", "limit", 2)
    assert len(out["data"]) == 25


async def test_one_command_takes_every_scroll_left_and_counts_the_ones_taken() -> None:
    out, n = await scrolled(
        [grew(60, 80, steps=3, until_found=True), grew(80, 80)], scroll={"max_scrolls": 5}
    )
    assert (out["status"], out["metadata"]["complete_because"], n) == ("complete", "end_marker_confirmed", 2)
    assert [(c.steps, c.confirm) for c in SENT] == [(5, False), (1, True)]
    assert out["metadata"]["pagination_stopped"]["page"] == 4


async def test_a_feed_whose_loader_is_gone_is_confirmed_by_one_more_scroll() -> None:
    out, n = await scrolled([grew(10, 20, loader_gone=True), grew(20, 20, loader_gone=True)])
    assert (out["status"], out["metadata"]["complete_because"], n) == ("complete", "feed_stopped_growing", 2)
    assert [c.confirm for c in SENT] == [False, True], "the scroll after the loader went confirms the end"
    assert "loader is gone" in out["metadata"]["pagination_stopped"]["detail"]


async def test_a_loader_gone_while_a_request_is_in_flight_is_no_end() -> None:
    answers = [grew(10, 20, loader_gone=True), grew(20, 20, in_flight=1), grew(20, 30), grew(30, 30)]
    out, n = await scrolled(answers)
    assert (out["metadata"]["complete_because"], n) == ("feed_stopped_growing", 4)


async def test_a_pause_between_scrolls_sends_them_one_at_a_time() -> None:
    out, n = await scrolled([grew(10, 20), grew(20, 20)], scroll={"delay_ms": 1})
    assert (out["metadata"]["complete_because"], n) == ("feed_stopped_growing", 2)
    assert [c.steps for c in SENT] == [1, 1]


async def test_the_limit_reaches_the_page() -> None:
    out, _ = await scrolled([grew(10, 30)], limit=25)
    assert SENT[0].limit == 25 and out["metadata"]["partial_because"]["reason"] == "limit"
