"""The strategy cache's host request (ExtractionOp) in the real native host, over its socket."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.link.client import BrowserPool
from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tests.support.fake_extension import FakeExtension

pytestmark = pytest.mark.anyio

SCHEMA = {"sku": "td.sku", "name": "td.name"}
PAGES = [[["A1", "Anvil"], ["B2", "Bolt"]], [["B2", "Bolt (new)"], ["C3", "Crate"]]]


def listing(ext: FakeExtension) -> dict[str, int]:
    at = {"page": 0}

    def extract(msg: dict[str, Any]) -> Any:
        rows = [r[: len(msg["fields"])] for r in PAGES[at["page"]]]
        url = f"https://shop.example/list?page={at['page'] + 1}"
        return {"rows": rows, "count": len(rows), "warnings": [], "url": url}

    ext.handlers["extract"] = extract
    return at


async def test_aggregate_strategies_and_clear_through_the_host(tp_dirs: dict[str, str]) -> None:
    ext = FakeExtension(tp_dirs)
    await ext.start()
    at = listing(ext)
    pool = BrowserPool(connect_wait_s=5)
    try:
        req = {"operation": "extract", "selector": "tr", "schema": SCHEMA, "key_fields": ["sku"]}
        first = await pool.call(m.Scrape(id=0, request=req))
        ex = first["extraction_id"]
        at["page"] = 1
        second = await pool.call(m.Scrape(id=0, request={"operation": "extract", "extraction_id": ex}))
        assert second["metadata"]["aggregate"] == "3 unique rows from 2 pages"
        agg = await pool.call(m.ExtractionOp(id=0, op="aggregate", extraction_id=ex))
        assert agg == {
            "extraction_id": ex,
            "rows": [
                {"sku": "A1", "name": "Anvil"},
                {"sku": "B2", "name": "Bolt"},
                {"sku": "C3", "name": "Crate"},
            ],
            "summary": "3 unique rows from 2 pages",
            "pages": 2,
            "duplicates": 1,
        }
        listed = await pool.call(m.ExtractionOp(id=0, op="strategies"))
        assert listed["strategies"] == [
            {
                "extraction_id": ex,
                "url_pattern": "https://shop.example/list",
                "kind": "schema",
                "success_count": 2,
                "failure_count": 0,
                "typical_rows": 2,
            }
        ]
        cases = [
            (
                m.ExtractionOp(id=0, op="aggregate", extraction_id="ex-000000000000"),
                ErrorCode.STRATEGY_NOT_FOUND,
            ),
            (m.ExtractionOp(id=0, op="aggregate"), ErrorCode.INVALID_PARAMS),
            (m.ExtractionOp(id=0, op="explode"), ErrorCode.INVALID_PARAMS),
            (m.ExtractionOp(id=0, op="clear_aggregate", extraction_id="ex-0"), ErrorCode.STRATEGY_NOT_FOUND),
        ]
        for command, code in cases:
            with pytest.raises(TabPilotError) as err:
                await pool.call(command)
            assert err.value.code == code, command
    finally:
        await pool.aclose()
        await ext.stop()
    # A restarted host still has the aggregate; clearing it is kept too.
    ext = FakeExtension(tp_dirs)
    await ext.start()
    pool = BrowserPool(connect_wait_s=5)
    try:
        agg = await pool.call(m.ExtractionOp(id=0, op="aggregate", extraction_id=ex))
        assert agg["summary"] == "3 unique rows from 2 pages"
        assert await pool.call(m.ExtractionOp(id=0, op="clear_aggregate")) == {"cleared": [ex]}
        agg = await pool.call(m.ExtractionOp(id=0, op="aggregate", extraction_id=ex))
        assert agg["rows"] == [] and agg["summary"] == "0 unique rows from 0 pages"
    finally:
        await pool.aclose()
        await ext.stop()
