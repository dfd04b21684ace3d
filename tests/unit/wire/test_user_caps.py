"""How many pages, scrolls, retries and how long a wait are the user's to say (with a sane default);
only the bound that protects memory, max_bytes, is held."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from tabpilot.engine import result, runner
from tabpilot.engine.plan import build_plan
from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tabpilot.wire.scrape import (
    DEFAULT_INLINE_BYTES,
    MAX_BYTES,
    MAX_TIMER_MS,
    ExtractRequest,
    Options,
    parse_request,
)
from tests.support.fake_browser import ScriptedBrowser
from tests.unit.bridge.test_scrape import DONE, ProgressPool, call, payload
from tests.unit.bridge.test_tools import FakePool
from tests.unit.bridge.test_tools import call as call_tool
from tests.unit.engine.paging.test_links import SCHEMA, LinkedSite

pytestmark = pytest.mark.anyio


def extract(**options: Any) -> dict[str, Any]:
    return {"operation": "extract", "selector": "tr", "schema": SCHEMA, "options": options}


@pytest.mark.parametrize(
    "options",
    [
        {"paginate": {"next_selector": "a.next", "max_pages": 1_000}},
        {"paginate": {"next_selector": "a.next", "max_pages": 100_000}},
        {"scroll": {"max_scrolls": 5_000}},
        {"timeout_ms": 3_600_000},
        {"paginate": {"next_selector": "a.next", "delay_ms": 900_000}},
        {"timeout_ms": MAX_TIMER_MS},
        {"max_bytes": MAX_BYTES},
    ],
)
def test_big_runs_are_accepted(options: dict[str, Any]) -> None:
    request = parse_request(extract(**options))
    assert isinstance(request, ExtractRequest)
    build_plan(request)


def test_retries_are_the_users_to_count() -> None:
    request = parse_request(extract() | {"error_recovery": {"on_timeout": "retry_step", "max_retries": 50}})
    assert request.error_recovery.retries() == 50


@pytest.mark.parametrize(
    "options",
    [
        {"max_bytes": MAX_BYTES + 1},  # what one run holds in memory
        {"timeout_ms": MAX_TIMER_MS + 1},  # past what a JavaScript timer can wait
        {"paginate": {"next_selector": "a.next", "max_pages": 0}},
        {"scroll": {"max_scrolls": -1}},
    ],
)
def test_what_protects_memory_or_makes_no_sense_is_refused(options: dict[str, Any]) -> None:
    with pytest.raises(TabPilotError) as caught:
        parse_request(extract(**options))
    assert caught.value.code == ErrorCode.INVALID_PARAMS


def test_the_defaults_stay_small() -> None:
    options = parse_request(extract(paginate={"next_selector": "a.next"})).options
    assert isinstance(options, Options) and options.paginate is not None
    assert (options.paginate.max_pages, options.max_bytes) == (10, DEFAULT_INLINE_BYTES)


async def test_a_1000_page_extract_reads_every_page() -> None:
    pages = 1_000
    site = LinkedSite([[[f"r{p}", str(p)]] for p in range(pages)])
    browser = site.install(ScriptedBrowser())
    plan = build_plan(parse_request(extract(paginate={"next_selector": "a.next", "max_pages": pages})))
    with anyio.fail_after(120):
        out = result.response(await runner.run(plan, browser, grace_s=0.05), plan, "corr-1000")
    assert out["status"] == "complete", out["metadata"].get("pagination_stopped")
    assert out["metadata"]["pages_scraped"] == pages
    assert [row["name"] for row in out["data"]] == [f"r{p}" for p in range(pages)]


async def test_the_bridge_forwards_a_1000_page_extract() -> None:
    pool = ProgressPool(answers={"scrape": DONE})
    args = extract(paginate={"next_selector": "a.next", "max_pages": 1_000})
    out = await call(pool, "interact", action="scrape", **args)
    assert not out.is_error, payload(out)
    [(command, _)] = pool.sent
    assert isinstance(command, m.Scrape) and isinstance(command.request, ExtractRequest)
    assert command.request.options.paginate is not None
    assert command.request.options.paginate.max_pages == 1_000


async def test_a_long_wait_of_one_command_is_sent_as_asked() -> None:
    pool = FakePool(answers={"wait_for": {"tab_id": 1, "selector": "#done"}})
    args = {"action": "wait_for", "selector": "#done", "timeout_ms": 3_600_000}
    out = payload(await call_tool(pool, "interact", **args))
    assert out["selector"] == "#done"
    [(sent, _)] = pool.sent
    assert isinstance(sent, m.WaitFor) and sent.timeout_ms == 3_600_000


@pytest.mark.parametrize("timeout_ms", [MAX_TIMER_MS + 1, 0, -5])
async def test_a_wait_no_timer_can_hold_is_refused_before_the_browser(timeout_ms: int) -> None:
    pool = FakePool(answers={"wait_for": {"tab_id": 1}})
    result = await call_tool(pool, "interact", action="wait_for", selector="#done", timeout_ms=timeout_ms)
    out = payload(result)
    assert result.is_error and out["error"] == ErrorCode.INVALID_PARAMS
    assert "timeout_ms" in out["message"]
    assert pool.sent == []
