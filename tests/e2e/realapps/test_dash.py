"""Dash DataTable, a single-page app: every row across the table's in-place pages, in one extract call
written from the table's own markup (cells carry `data-dash-column`, Next is `button.next-page`)."""

from __future__ import annotations

import pytest
from selenium import webdriver

from tests.fixtures.realapps import data
from tests.support import browser
from tests.support.mcp_client import call, mcp_client, scrape

pytestmark = pytest.mark.anyio

ROWS = ".dash-spreadsheet tbody tr:has(td.dash-cell)"
SCHEMA = {
    "id": "td[data-dash-column=id]",
    "customer": "td[data-dash-column=customer]",
    "fruit": "td[data-dash-column=fruit]",
    "quantity": "td[data-dash-column=quantity] | number",
    "total": "td[data-dash-column=total] | number",
}


async def test_every_row_across_in_place_pages(
    driver: webdriver.Chrome, env: dict[str, str], dash_url: str
) -> None:
    browser.set_pilot(driver, True)
    async with mcp_client(env) as client:
        await call(client, "interact", action="navigate", url=dash_url)
        out = await scrape(
            client,
            operation="extract",
            selector=ROWS,
            schema=SCHEMA,
            options={"wait_for": ROWS, "paginate": {"next_selector": "button.next-page", "max_pages": 20}},
        )
    assert out["data"] == [o.__dict__ for o in data.orders()]
    assert out["metadata"]["pages_scraped"] == 10


async def test_filtered_and_sorted_in_one_workflow(
    driver: webdriver.Chrome, env: dict[str, str], dash_url: str
) -> None:
    browser.set_pilot(driver, True)
    async with mcp_client(env) as client:
        out = await scrape(
            client,
            operation="workflow",
            steps=[
                {"type": "navigate", "url": dash_url},
                {"type": "wait", "selector": ROWS},
                # The filter row's cell under "Fruit", as a person types into it.
                {
                    "type": "fill",
                    "selector": "th.dash-filter[data-dash-column=fruit] input",
                    "value": "berry",
                },
                {"type": "press", "selector": "th.dash-filter[data-dash-column=fruit] input", "key": "Enter"},
                {
                    "type": "click",
                    "selector": "th.dash-header[data-dash-column=quantity] .column-header--sort",
                },
                {
                    "type": "extract",
                    "selector": ROWS,
                    "schema": SCHEMA,
                    "paginate": {"next_selector": "button.next-page", "max_pages": 20},
                },
            ],
        )
    berries = [o.__dict__ for o in data.orders() if "berry" in o.fruit]
    # The table filters in the page ("berry" matches as contains) and sorts ascending, stably: 2 pages.
    assert out["data"] == sorted(berries, key=lambda o: o["quantity"])
    assert out["metadata"]["pages_scraped"] == 2
