"""A finished scrape's result over MCP: the answer and its evidence, the run's account only when asked."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from tabpilot.bridge.tools.lean import Account, lean
from tabpilot.wire.messages import Scrape
from tests.unit.bridge.test_scrape import ProgressPool
from tests.unit.bridge.test_tools import WAIT_S, FakePool, client, payload

pytestmark = pytest.mark.anyio

# The corpus's filtered list (flask-admin, country = Norway): 41 rows of five fields.
ROWS = [
    {
        "code": f"ACC-{1000 + i}",
        "name": "Ada Lind",
        "country": "Norway",
        "balance": 1234.5,
        "active": "active: true",
    }
    for i in range(41)
]
WALK = {
    "status": "complete",
    "correlation_id": "corr-abc123abc123",
    "extraction_id": "ex-54135dd02599",
    "data": ROWS,
    "metadata": {
        "pages_scraped": 3,
        "rows_extracted": 41,
        "duration_ms": 234,
        "url": "http://127.0.0.1:52941/admin/customer/?flt0_2=Norway",
        "errors": [],
        "pagination_mode": "fetch",
        "pagination_stopped": {
            "reason": "next_disabled",
            "page": 3,
            "detail": "a.next is disabled: the last page",
        },
        "complete_because": "next_disabled",
        "telemetry": {"errors": 0, "requests": 3, "failed_requests": 0},
        "aggregate": "41 unique rows from 3 pages",
    },
}


def _compact(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def test_a_finished_walk_keeps_its_rows_and_its_evidence_only() -> None:
    out = lean(WALK)
    # Every row is here: the run's id has nothing left to fetch; the strategy's reruns it.
    ids = {"extraction_id": WALK["extraction_id"]}
    kept = {"complete_because": "next_disabled", "aggregate": "41 unique rows from 3 pages"}
    assert out == {"status": "complete", **ids, "data": ROWS, "metadata": kept}
    assert _compact(out) <= 1.05 * _compact(ROWS)


def test_what_is_needed_to_trust_the_rows_stays() -> None:
    meta = {
        "pages_scraped": 2,
        "rows_extracted": 900,
        "errors": [{"step": 2, "error": "timeout"}],
        "partial_because": {"reason": "max_pages", "detail": "2 pages read", "hint": {"option": "x"}},
        "truncated": True,
        "rows_returned": 10,
        "warnings": [{"message": "data truncated"}],
        "follow": {"mode": "fetch", "done": 9, "total": 10, "failed": 1},
        "follow_errors": [{"row": 3, "url": "http://a.test/3", "error": "http_error", "message": "503"}],
    }
    result = {"status": "partial", "correlation_id": "c", "steps_completed": 2, "steps_total": 3}
    out = lean(result | {"data": [], "metadata": meta})
    kept = {k: v for k, v in meta.items() if k != "pages_scraped"}
    # The steps say how far a workflow got; the rows read beyond those returned, how much was cut.
    steps = {"correlation_id": "c", "steps_completed": 2, "steps_total": 3}
    assert out == {"status": "partial", **steps, "data": [], "metadata": kept}


def test_the_runs_id_stays_wherever_there_is_more_to_fetch_or_go_on_with() -> None:
    cid = {"correlation_id": WALK["correlation_id"]}
    big = WALK | {"result": {"uri": "tabpilot://result/c", "rows": 9000}}
    cut = WALK | {"metadata": {"truncated": True}}
    for kept in (big, cut, WALK | {"status": "partial"}, WALK | {"status": "cancelled"}):
        assert lean(kept).items() >= cid.items(), kept
    assert "correlation_id" not in lean(WALK)


def test_running_and_failed_results_are_left_whole() -> None:
    running = {"status": "running", "correlation_id": "c", "steps_completed": 1, "steps_total": 3}
    assert lean(running) == running
    failed = WALK | {"status": "error", "error": "timeout", "message": "m"}
    assert lean(failed) == failed


async def _scrape(pool: FakePool, **args: Any) -> dict[str, Any]:
    with anyio.fail_after(WAIT_S):
        async with client(pool) as c:
            return payload(await c.call_tool("interact", {"action": "scrape", **args}))


async def test_the_agent_asks_for_the_runs_account_with_telemetry() -> None:
    pool = ProgressPool(answers={"scrape": WALK})
    extract = {"operation": "extract", "selector": "tr", "schema": {"a": "td"}}
    assert await _scrape(pool, **extract) == lean(WALK)
    assert await _scrape(pool, **extract, options={"telemetry": True}) == WALK


async def test_a_running_scrape_that_asked_gets_its_account_when_it_ends() -> None:
    running = {"status": "running", "correlation_id": "corr-asked", "steps_completed": 0, "steps_total": 1}
    done = WALK | {"correlation_id": "corr-asked"}
    pool = ProgressPool(answers={"scrape": running, "command_result": done})
    extract = {
        "operation": "extract",
        "selector": "tr",
        "schema": {"a": "td"},
        "options": {"telemetry": True},
    }
    assert await _scrape(pool, **extract) == running
    with anyio.fail_after(WAIT_S):
        async with client(pool) as c:
            args = {"what": "command_result", "correlation_id": "corr-asked"}
            assert payload(await c.call_tool("observe", args)) == done
    assert Account.asked("corr-asked") and not Account.asked("corr-other")


async def test_a_scrape_that_does_not_ask_for_its_account_does_not_gather_telemetry() -> None:
    pool = ProgressPool(answers={"scrape": WALK})
    extract = {"operation": "extract", "selector": "tr", "schema": {"a": "td"}}
    await _scrape(pool, **extract)
    await _scrape(pool, **extract, options={"telemetry": True})
    await _scrape(
        pool, operation="workflow", steps=[{"type": "extract", "selector": "tr", "schema": {"a": "td"}}]
    )
    # A recording keeps its options as given: a replay from the command line gathers it by default.
    await _scrape(pool, **extract, record=True, name="kept")
    sent = [command.request.options.telemetry for command, _ in pool.sent if isinstance(command, Scrape)]
    assert sent == [False, True, False, None]
