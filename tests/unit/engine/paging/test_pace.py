"""The politeness pause of a paginated extract: before a page the server sends, not before a redraw."""

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

PAGES = [[["a"]], [["b"]], [["c"]]]
POLITE = 500  # a pause asked for: none is the default


async def scrape(browser: ScriptedBrowser, paginate: dict[str, Any]) -> tuple[dict[str, Any], list[float]]:
    """An extract over every page of `browser`'s table; its result and the pauses it made (seconds)."""
    slept: list[float] = []
    real_sleep = asyncio.sleep

    async def fake_sleep(s: float) -> None:
        slept.append(s)
        await real_sleep(0)

    request = {
        "operation": "extract",
        "selector": "tr",
        "schema": {"v": "td"},
        "options": {"paginate": paginate},
    }
    p = build_plan(parse_request(request))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(asyncio, "sleep", fake_sleep)
        outcome = await runner.run(p, browser, grace_s=0.05)
    return result.response(outcome, p, "corr-test"), slept


def counting(visible: int, asked: list[str]) -> Any:
    def count(c: m.Count) -> Any:
        asked.append(c.selector)
        return {"count": visible, "visible": visible}

    return count


async def test_a_table_redrawn_in_place_gets_no_pause() -> None:
    asked: list[str] = []
    browser = TableSite(PAGES, in_place=True).install(ScriptedBrowser({"count": counting(0, asked)}))
    out, slept = await scrape(browser, {"next_selector": "button.next", "delay_ms": POLITE})
    assert [r["v"] for r in out["data"]] == ["a", "b", "c"]
    assert slept == [], "a Next that redraws in place is paced by the page, not by delay_ms"
    assert len(asked) == 1 and asked[0].startswith(":is(button.next):is("), (
        "asked once, before the first click"
    )


async def test_next_links_get_the_pause_asked_for_before_each_page() -> None:
    asked: list[str] = []
    browser = TableSite(PAGES).install(ScriptedBrowser({"count": counting(1, asked)}))
    out, slept = await scrape(browser, {"next_selector": "a.next", "delay_ms": POLITE})
    assert [r["v"] for r in out["data"]] == ["a", "b", "c"]
    assert slept == [POLITE / 1000] * 3, "before each of the three clicks (the last finds no next)"
    assert len(asked) == 1, "after the first click, what it did decides"


async def test_a_control_that_looks_in_place_but_navigates_gets_the_pause_from_then_on() -> None:
    browser = TableSite(PAGES).install(ScriptedBrowser({"count": counting(0, [])}))
    _, slept = await scrape(browser, {"next_selector": "div.next", "delay_ms": 200})
    assert slept == [0.2, 0.2]


async def test_no_pause_asked_means_no_probe() -> None:
    for paginate in ({"next_selector": "a.next", "delay_ms": 0}, {"next_selector": "a.next"}):
        asked: list[str] = []
        browser = TableSite(PAGES).install(ScriptedBrowser({"count": counting(1, asked)}))
        _, slept = await scrape(browser, paginate)
        assert (slept, asked) == ([], []), paginate


async def test_a_probe_that_fails_leaves_the_error_to_the_click() -> None:
    def bad(c: m.Count) -> Any:
        return TabPilotError(ErrorCode.INVALID_SELECTOR, "bad selector")

    def click(c: m.Paginate) -> Any:
        return TabPilotError(ErrorCode.INVALID_SELECTOR, f"{c.next_selector} is not a selector")

    browser = TableSite(PAGES).install(ScriptedBrowser({"count": bad}))
    browser.handlers["paginate"] = click
    out, slept = await scrape(browser, {"next_selector": "a[", "delay_ms": POLITE})
    assert out["status"] == "error" and out["error"] == ErrorCode.INVALID_SELECTOR
    assert slept == [POLITE / 1000], "polite while unsure"
