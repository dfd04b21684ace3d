"""A virtualised list whose rows carry no index and come in late (a progress text that changes every
frame for longer than one scroll step waits): zero knowledge still gets every row. A position whose rows
never read the same twice was not read at all, so the read waits for them rather than moving past them
and calling itself complete short (Clusterize under load lost a block of rows so)."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.support.mcp_client import call, scrape

pytestmark = pytest.mark.anyio

ROWS = [{"part": f"PART-{n:04d}", "name": f"Part number {n}"} for n in range(1, 121)]


async def test_rows_that_come_in_late_are_waited_for_not_skipped(client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/suggest/late_rows.html")
    proposal = await scrape(client, operation="suggest")
    assert proposal["candidates"][0]["paging"]["kind"] == "grid", proposal["candidates"][0]
    out = await scrape(client, **{k: v for k, v in proposal["call"].items() if k != "action"})
    assert out["metadata"]["complete_because"] == "grid_end", out["metadata"]
    assert out["data"] == ROWS
