"""Tables redrawn in place, read the moment the redraw completes and several pages a command, in real
Chromium: a redraw in two steps, under aria-busy, under a "processing" overlay, with skeleton rows,
in one task, and one that gives way to a link; secrets in a redrawn row are redacted as on any page."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mcp import Client

from tabpilot.demo.server import Site, serve_site
from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode
from tests.support import pages
from tests.support.host import call, call_error, field, host_pool
from tests.support.mcp_client import call as mcp_call
from tests.support.mcp_client import scrape

pytestmark = pytest.mark.anyio

GRID = "table.grid tbody tr"
# Page 2's secrets, as every channel shows them: the private cell gone, the card number masked.
ROWS = ["r1", "r2", "r3", "r4", "[REDACTED]", "card [REDACTED]", "r7", "r8", "r9", "r10", "r11", "r12"]
# "link": a batch stops before a Next that loads a new document; the next command follows the link.
MODES = ["two-step", "busy", "overlay", "skeleton", "instant", "link"]


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    with serve_site(pages.PAGES) as running:
        yield running


@pytest.mark.parametrize("mode", MODES)
async def test_every_page_is_read_whole_and_redacted(client: Client, site: Site, mode: str) -> None:
    await mcp_call(client, "interact", action="navigate", url=f"{site.url}/scrape/redraw.html?mode={mode}")
    out = await scrape(
        client,
        operation="extract",
        selector=GRID,
        schema={"v": ".v"},
        options={"paginate": {"next_selector": "#next", "max_pages": 10}, "telemetry": True},
    )
    assert [r["v"] for r in out["data"]] == ROWS
    meta = out["metadata"]
    assert meta["pagination_mode"] == "in_place" and meta["pages_scraped"] == 4
    assert (meta["pagination_stopped"]["reason"], meta["pagination_stopped"]["page"]) == ("next_disabled", 4)
    assert "S3CRET" not in str(out) and "4111" not in str(out)


async def test_one_command_brings_the_pages_after_the_first(
    pilot_on: None, env: dict[str, str], site: Site
) -> None:
    url = f"{site.url}/scrape/redraw.html?mode=two-step"
    async with host_pool(env) as pool:
        await call(pool, m.Navigate(id=0, url=url))
        bad = await call_error(
            pool,
            m.Paginate(id=0, next_selector="#next", row_selector=GRID, fields=[field("v", ".v")], pages=0),
        )
        assert bad.code == ErrorCode.INVALID_PARAMS
        moved = await call(
            pool,
            m.Paginate(id=0, next_selector="#next", row_selector=GRID, fields=[field("v", ".v")], pages=10),
        )
        assert (moved["outcome"], moved["end"]) == ("redrawn", "disabled")
        read = [moved["page"], *moved["more"]]
        assert [[r[0] for r in p["rows"]] for p in read] == [ROWS[3:6], ROWS[6:9], ROWS[9:12]]
        # With a row limit the page stops clicking once it has the rows.
        await call(pool, m.Navigate(id=0, url=url))
        limited = await call(
            pool,
            m.Paginate(
                id=0, next_selector="#next", row_selector=GRID, fields=[field("v", ".v")], pages=10, limit=4
            ),
        )
        assert limited["end"] == "limit" and [
            len(p["rows"]) for p in [limited["page"], *limited["more"]]
        ] == [3, 1]
        shown = await call(pool, m.Extract(id=0, selector=GRID, fields=[field("v", ".v")]))
        assert [r[0] for r in shown["rows"]] == ROWS[6:9]  # the table stayed where the last read was
