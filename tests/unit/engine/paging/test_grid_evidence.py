"""A virtualised grid read is complete only with the grid's own evidence: its declared row count read
(grid_row_count), or its box at its end with a step more bringing nothing (grid_end); a count it
declares and the read misses, or a read that never reached the end, is partial. A scroll over a grid's
rows leaves the stop to the grid, and the call's key_fields reach the page."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.engine import result, runner
from tabpilot.engine.plan import build_plan, parse_request
from tabpilot.wire import messages as m
from tests.support.fake_browser import ScriptedBrowser, TableSite

pytestmark = pytest.mark.anyio

SCHEMA = {"id": "td.id"}
ROWS = [[f"R-{i}"] for i in range(1, 21)]


async def read(virtual: dict[str, Any], **request: Any) -> tuple[dict[str, Any], ScriptedBrowser]:
    site = TableSite([ROWS])
    browser = site.install(ScriptedBrowser())
    page = site.extract
    browser.handlers["extract"] = lambda c: page(c) | {"virtual": {"rows": 20, "complete": True} | virtual}
    browser.handlers["scroll_load"] = lambda c: {"before": 12, "after": 12, "in_flight": 1, "grid": True}
    p = build_plan(parse_request({"operation": "extract", "selector": "tr", "schema": SCHEMA, **request}))
    return result.response(await runner.run(p, browser, grace_s=0.05), p, "corr-test"), browser


async def test_the_grid_s_own_row_count_read_is_complete() -> None:
    out, _ = await read({"declared": 20, "at_end": True})
    assert (out["status"], out["metadata"]["complete_because"]) == ("complete", "grid_row_count")


async def test_a_grid_at_its_end_without_a_count_is_complete_by_its_end() -> None:
    out, _ = await read({"at_end": True, "keyed_by": "values"})
    assert (out["status"], out["metadata"]["complete_because"]) == ("complete", "grid_end")
    assert out["metadata"]["virtual"]["keyed_by"] == "values"


async def test_a_count_the_grid_prints_and_the_read_matches_is_its_row_count() -> None:
    out, _ = await read({"printed": 20, "at_end": False, "keyed_by": "values"})
    assert (out["status"], out["metadata"]["complete_because"]) == ("complete", "grid_row_count")
    assert out["metadata"]["virtual"]["printed"] == 20


async def test_a_printed_count_the_read_does_not_match_is_no_evidence_either_way() -> None:
    # A page may print a page size ("20 rows per page"): the grid's end still decides.
    out, _ = await read({"printed": 50, "at_end": True, "keyed_by": "values"})
    assert (out["status"], out["metadata"]["complete_because"]) == ("complete", "grid_end")


@pytest.mark.parametrize(
    "virtual",
    [{"declared": 25, "at_end": True}, {"at_end": False}, {"printed": 50, "at_end": False}],
    ids=["short_of_its_count", "not_at_its_end", "short_of_a_printed_count"],
)
async def test_a_grid_read_without_its_evidence_is_partial(virtual: dict[str, Any]) -> None:
    out, _ = await read(virtual)
    assert out["status"] == "partial"
    assert "complete_because" not in out["metadata"]
    assert out["metadata"]["partial_because"]["reason"] == "grid_incomplete"


async def test_a_scroll_over_a_grid_s_rows_leaves_the_stop_to_the_grid_and_key_fields_reach_the_page() -> (
    None
):
    out, browser = await read({"at_end": True}, options={"scroll": {"max_scrolls": 5}}, key_fields=["id"])
    assert (out["status"], out["metadata"]["complete_because"]) == ("complete", "grid_end")
    assert out["metadata"]["pagination_stopped"]["reason"] == "grid_end"
    assert [c.key_fields for c in browser.sent if isinstance(c, m.Extract)] == [["id"]]
    assert sum(isinstance(c, m.ScrollLoad) for c in browser.sent) == 1
