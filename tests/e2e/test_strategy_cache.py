"""The strategy cache through the real MCP client: an extract gives an extraction_id, the agent walks a
listing rerunning it (by id, then by URL), the pages aggregate deduplicated by key_fields, and a
markup change makes the cached strategy stale."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from tabpilot.wire.errors import ErrorCode
from tests.support import browser
from tests.support.mcp_client import call, payload, scrape
from tests.support.popup import allow_scripts_on

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module", autouse=True)
def _scripts_allowed(chromium: browser.Chromium, site: Any) -> None:  # pyright: ignore[reportUnusedFunction]
    """The fixture pages hold a password field the page filled in; the agent's scripts on them run
    with the person's consent (given in the popup), as this module does not test that consent."""
    allow_scripts_on(chromium, site)


SCHEMA = {"sku": ".sku", "name": ".name", "price": ".price | number"}


async def refused(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    data = payload(result)
    assert result.is_error, data
    return data


def skus(rows: list[dict[str, Any]]) -> list[int]:
    return [int(r["sku"].removeprefix("SKU-")) for r in rows]


async def test_walk_a_listing_with_a_cached_strategy(client: Client, site: str) -> None:
    listing = f"{site}/cache/list.html"
    await call(client, "interact", action="navigate", url=f"{listing}?page=1")
    first = await scrape(
        client, operation="extract", selector="li.product", schema=SCHEMA, key_fields=["sku"]
    )
    ex = first["extraction_id"]
    assert skus(first["data"]) == [1, 2, 3, 4, 5]
    assert first["metadata"]["aggregate"] == "5 unique rows from 1 page"

    # Page 2 by id: no selector, no schema; its first row repeats SKU-005 with a new price.
    await call(client, "interact", action="navigate", url=f"{listing}?page=2")
    second = await scrape(client, operation="extract", extraction_id=ex)
    assert second["extraction_id"] == ex and skus(second["data"]) == [5, 6, 7, 8, 9]
    assert second["data"][0]["price"] == 5.5
    assert second["metadata"]["aggregate"] == "9 unique rows from 2 pages"
    agg = await call(client, "observe", what="aggregate", extraction_id=ex)
    assert agg["summary"] == "9 unique rows from 2 pages" and agg["duplicates"] == 1
    assert skus(agg["rows"]) == list(range(1, 10)) and agg["rows"][4]["price"] == 5  # the first kept

    # Page 3 by URL: the strategy whose pattern matches the tab.
    await call(client, "interact", action="navigate", url=f"{listing}?page=3")
    third = await scrape(client, operation="extract", use_cache=True)
    assert third["extraction_id"] == ex and skus(third["data"]) == [9, 10, 11, 12, 13]
    assert third["metadata"]["aggregate"] == "13 unique rows from 3 pages"
    listed = await call(client, "observe", what="strategies")
    mine = next(s for s in listed["strategies"] if s["extraction_id"] == ex)
    assert mine["url_pattern"] == listing and mine["kind"] == "schema" and mine["success_count"] == 3

    # The site changes its markup: the cached selector finds nothing where it found 5.
    await call(
        client,
        "interact",
        action="execute_js",
        script="document.querySelectorAll('li.product').forEach(li => { li.className = 'sku-row' })",
    )
    stale = await refused(client, "interact", action="scrape", operation="extract", extraction_id=ex)
    assert stale["error"] == ErrorCode.STRATEGY_STALE
    assert (stale["extraction_id"], stale["typical_rows"], stale["got_rows"]) == (ex, 5, 0)
    assert "Repair it in one call" in stale["message"]
    # The digest finds the renamed rows: the repair needs no other call.
    best = stale["digest"]["candidates"][0]
    assert "sku-row" in best["selector"], best
    assert best["rows"] == 5

    # The repair: the same id with the new selector; the aggregate goes on.
    fixed = await scrape(client, operation="extract", extraction_id=ex, selector="li.sku-row", schema=SCHEMA)
    assert fixed["extraction_id"] == ex and skus(fixed["data"]) == [9, 10, 11, 12, 13]
    assert fixed["metadata"]["aggregate"] == "13 unique rows from 3 pages"  # a re-read of page 3

    cleared = await call(client, "configure", action="clear_aggregate", extraction_id=ex)
    assert cleared == {"cleared": [ex]}
    empty = await call(client, "observe", what="aggregate", extraction_id=ex)
    assert empty["rows"] == [] and empty["summary"] == "0 unique rows from 0 pages"

    # A script strategy is cached and rerun the same way.
    script = (
        "return [...root.querySelectorAll('li')].map(li => ({sku: li.querySelector('.sku').textContent}))"
    )
    await call(client, "interact", action="navigate", url=f"{listing}?page=1")
    by_script = await scrape(client, operation="extract", script=script, css_selector="#list")
    sx = by_script["extraction_id"]
    assert sx != ex and skus(by_script["data"]) == [1, 2, 3, 4, 5]
    await call(client, "interact", action="navigate", url=f"{listing}?page=2")
    again = await scrape(client, operation="extract", extraction_id=sx)
    assert skus(again["data"]) == [5, 6, 7, 8, 9]
    assert again["metadata"]["aggregate"] == "9 unique rows from 2 pages"  # exact rows: {sku} only

    missing = await refused(
        client, "interact", action="scrape", operation="extract", extraction_id="ex-000000000000"
    )
    assert missing["error"] == ErrorCode.STRATEGY_NOT_FOUND
    await call(client, "interact", action="navigate", url=f"{site}/scrape/rows.html")
    nothing = await refused(client, "interact", action="scrape", operation="extract", use_cache=True)
    assert nothing["error"] == ErrorCode.STRATEGY_NOT_FOUND
    assert {c["extraction_id"] for c in nothing["cached"]} == {ex, sx}  # what this host has cached
