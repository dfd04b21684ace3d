"""observe strategies | aggregate and configure clear_aggregate: the ExtractionOp each sends."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tests.unit.bridge.test_scrape import call
from tests.unit.bridge.test_tools import FakePool, payload

pytestmark = pytest.mark.anyio


async def test_extraction_tools_send_their_op() -> None:
    sent: list[m.ExtractionOp] = []

    def op(c: m.ExtractionOp) -> Any:
        sent.append(c)
        if c.extraction_id == "ex-000000000000":
            return TabPilotError(ErrorCode.STRATEGY_NOT_FOUND, "no such strategy")
        if c.op == "aggregate":
            return {
                "extraction_id": c.extraction_id,
                "rows": [{"a": 1}],
                "summary": "1 unique row from 1 page",
                "pages": 1,
                "duplicates": 0,
            }
        if c.op == "clear_aggregate":
            return {"cleared": [c.extraction_id] if c.extraction_id else ["ex-1", "ex-2"]}
        return {"strategies": []}

    pool = FakePool(answers={"extraction_op": op})
    out = payload(await call(pool, "observe", what="aggregate", extraction_id="ex-aaaaaaaaaaaa"))
    assert out["summary"] == "1 unique row from 1 page" and out["rows"] == [{"a": 1}]
    assert payload(await call(pool, "observe", what="strategies")) == {"strategies": []}
    assert payload(await call(pool, "configure", action="clear_aggregate")) == {"cleared": ["ex-1", "ex-2"]}
    missing = await call(pool, "observe", what="aggregate", extraction_id="ex-000000000000")
    assert missing.is_error and payload(missing)["error"] == ErrorCode.STRATEGY_NOT_FOUND
    assert [(c.op, c.extraction_id) for c in sent] == [
        ("aggregate", "ex-aaaaaaaaaaaa"),
        ("strategies", None),
        ("clear_aggregate", None),
        ("aggregate", "ex-000000000000"),
    ]
