"""Zero knowledge on the corpus's feeds and virtualised grids: `suggest`, then the call it proposes sent
unchanged, returns every row, and calls itself complete only with the right evidence."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from tests.e2e.realapps.test_zero_knowledge import check, zero_knowledge
from tests.fixtures.realapps import data, feedgrid_tasks
from tests.support.mcp_client import call

pytestmark = pytest.mark.anyio


def _posts() -> list[dict[str, Any]]:
    return [{"id": p.id, "title": p.title, "author": p.author, "likes": p.likes} for p in data.posts()]


def _grid() -> list[dict[str, Any]]:
    return [
        {"id": r.id, "sku": r.sku, "product": r.product, "price": r.price, "in_stock": r.stock}
        for r in data.grid_rows()
    ]


@pytest.mark.parametrize(
    ("walked", "paging"),
    [
        (feedgrid_tasks.INFINITE_SCROLL, "feed"),
        (feedgrid_tasks.VIEW_MORE, "load_more"),
        (feedgrid_tasks.HTMX, "feed"),
    ],
    ids=["infinite-scroll", "view-more", "htmx"],
)
async def test_feed(client: Client, feeds_url: str, walked: feedgrid_tasks.Walked, paging: str) -> None:
    for tool, arguments in walked.task.setup(feeds_url):
        await call(client, tool, **arguments)
    proposal, out = await zero_knowledge(client)
    check(proposal, out, paging, _posts(), walked.because)


@pytest.mark.parametrize(
    "walked", [feedgrid_tasks.TABULATOR, feedgrid_tasks.CLUSTERIZE], ids=["tabulator", "clusterize"]
)
async def test_grid(client: Client, grids_url: str, walked: feedgrid_tasks.Walked) -> None:
    for tool, arguments in walked.task.setup(grids_url):
        await call(client, tool, **arguments)
    proposal, out = await zero_knowledge(client)
    # One candidate for the rows whatever their zebra classes (Tabulator's tabulator-row-odd/-even).
    assert all("odd" not in c["selector"] and "even" not in c["selector"] for c in proposal["candidates"])
    check(proposal, out, "grid", _grid(), walked.because)
