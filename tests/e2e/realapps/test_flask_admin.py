"""Flask-Admin: every row of a model list across its pages, and a filtered list, each in one extract
call written from what the admin shows (its column classes and its pager's Next arrow)."""

from __future__ import annotations

from typing import Any

import pytest
from selenium import webdriver

from tests.fixtures.realapps import data
from tests.support import browser
from tests.support.mcp_client import call, mcp_client, scrape

pytestmark = pytest.mark.anyio

ROWS = "table.model-list tbody tr"
SCHEMA = {
    "code": "td.col-code",
    "name": "td.col-name",
    "country": "td.col-country",
    "balance": "td.col-balance | number",
    "active": "td.col-active span | attr:title",
}
# The pager's ">" (the one before "»"); on the last page its item is `.disabled`.
NEXT = {"next_selector": "ul.pagination li:nth-last-child(2) a", "max_pages": 30}


def _expected(customers: list[data.Customer]) -> list[dict[str, Any]]:
    return [
        {
            "code": c.code,
            "name": c.name,
            "country": c.country,
            "balance": c.balance,
            "active": f"active: {str(c.active).lower()}",
        }
        for c in customers
    ]


async def test_every_customer_across_pages(
    driver: webdriver.Chrome, env: dict[str, str], flask_admin_url: str
) -> None:
    browser.set_pilot(driver, True)
    async with mcp_client(env) as client:
        await call(client, "interact", action="navigate", url=flask_admin_url + "customer/")
        out = await scrape(
            client, operation="extract", selector=ROWS, schema=SCHEMA, options={"paginate": NEXT}
        )
    assert out["data"] == _expected(data.customers())
    assert out["metadata"]["pages_scraped"] == 12


async def test_a_filtered_list(driver: webdriver.Chrome, env: dict[str, str], flask_admin_url: str) -> None:
    browser.set_pilot(driver, True)
    async with mcp_client(env) as client:
        # The URL the admin's filter form leads to for "Country equals Norway".
        await call(client, "interact", action="navigate", url=flask_admin_url + "customer/?flt0_2=Norway")
        out = await scrape(
            client, operation="extract", selector=ROWS, schema=SCHEMA, options={"paginate": NEXT}
        )
    norway = [c for c in data.customers() if c.country == "Norway"]
    assert out["data"] == _expected(norway)
    assert out["metadata"]["pages_scraped"] == 3
