"""A virtualised grid read to its end (its box at the end) is complete (grid_end); one read with holes
or out of time, or cut at the limit, is partial."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.engine import result, runner
from tabpilot.engine.plan import build_plan, parse_request
from tests.support.fake_browser import ScriptedBrowser

pytestmark = pytest.mark.anyio


async def grid(virtual: dict[str, Any], rows: int, **options: Any) -> dict[str, Any]:
    browser = ScriptedBrowser()
    browser.handlers["extract"] = lambda c: {
        "rows": [[str(i)] for i in range(rows)],
        "count": rows,
        "virtual": {"scrolls": 3, **virtual},
    }
    request = {"operation": "extract", "selector": "[role=row]", "schema": {"id": "div"}, "options": options}
    p = build_plan(parse_request(request))
    return result.response(await runner.run(p, browser, grace_s=0.05), p, "corr-test")


async def test_a_grid_read_to_its_end_is_complete() -> None:
    out = await grid({"rows": 40, "complete": True, "at_end": True}, 40)
    assert (out["status"], out["metadata"]["complete_because"]) == ("complete", "grid_end")


async def test_a_grid_read_with_holes_is_partial_with_a_hint() -> None:
    out = await grid({"rows": 38, "complete": False}, 38, timeout_ms=5000)
    assert (out["status"], out["metadata"]["partial_because"]["reason"]) == ("partial", "grid_incomplete")
    assert out["metadata"]["partial_because"]["hint"] == {
        "option": "options.timeout_ms",
        "value": 10000,
        "why": "the grid was still scrolling, or skipped rows",
    }


async def test_a_grid_cut_at_the_limit_is_partial() -> None:
    out = await grid({"rows": 10, "complete": True}, 10, limit=10)
    assert (out["status"], out["metadata"]["partial_because"]["reason"]) == ("partial", "limit")
