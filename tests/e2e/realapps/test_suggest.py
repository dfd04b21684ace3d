"""What `suggest` proposes, used as drafted: its draft (selector, schema, next_selector) passed straight
to extract reads every row across the pages: Flask-Admin's customers over linked pages, identifiers
("ACC-1001") as the text they are, and Dash's table over its in-place pages."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from tests.fixtures.realapps import data, tasks
from tests.support.mcp_client import call, scrape

pytestmark = pytest.mark.anyio


def _values(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    # The draft names fields after the headers; compare the values, leaving out links to row actions.
    return [tuple(v for k, v in r.items() if not k.endswith("_url")) for r in rows]


async def _drafted(client: Any, url: str, query: str, wait_for: str) -> dict[str, Any]:
    await call(client, "interact", action="navigate", url=url)
    await call(client, "interact", action="wait_for", selector=wait_for)
    best = (await scrape(client, operation="suggest", query=query))["candidates"][0]
    assert best.get("next_selector"), best
    return await scrape(
        client,
        operation="extract",
        selector=best["selector"],
        schema=best["schema"],
        options={"paginate": {"next_selector": best["next_selector"], "max_pages": 30}},
    )


async def test_flask_admin_draft(client: Client, flask_admin_url: str) -> None:
    out = await _drafted(client, flask_admin_url + "customer/", "customers", tasks.ADMIN_ROWS)
    # The active column is a tick icon that says its value in its title.
    active = [f"active: {str(c.active).lower()}" for c in data.customers()]
    assert _values(out["data"]) == [
        (c.code, c.name, c.country, c.balance, a) for c, a in zip(data.customers(), active, strict=True)
    ]


async def test_dash_draft(client: Client, dash_url: str) -> None:
    out = await _drafted(client, dash_url, "orders", tasks.DASH_ROWS)
    assert _values(out["data"]) == [(o.id, o.customer, o.fruit, o.quantity, o.total) for o in data.orders()]
