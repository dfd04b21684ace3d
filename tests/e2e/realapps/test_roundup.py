"""Roundup, the issue tracker: log in through its form, then read every issue of its index across the
index's own pages, in one workflow call."""

from __future__ import annotations

import pytest
from selenium import webdriver

from tests.fixtures.realapps import data
from tests.support import browser
from tests.support.mcp_client import mcp_client, scrape

pytestmark = pytest.mark.anyio

# The index as a person sets it up in the tracker's search page: id, title, priority and status, by id.
INDEX = "issue?@columns=id,title,priority,status&@sort=id&@pagesize=50"


async def test_log_in_and_read_every_issue(
    driver: webdriver.Chrome, env: dict[str, str], roundup_url: str
) -> None:
    browser.set_pilot(driver, True)
    async with mcp_client(env) as client:
        out = await scrape(
            client,
            operation="workflow",
            params={"password": data.PASSWORD},
            steps=[
                {"type": "navigate", "url": roundup_url + INDEX},
                {"type": "fill", "selector": "input[name=__login_name]", "value": data.USER},
                {"type": "fill", "selector": "input[name=__login_password]", "value": "{{params.password}}"},
                {"type": "click", "selector": "input[type=submit][value=Login]"},
                {
                    "type": "extract",
                    "selector": "table.list tr:has(td)",
                    "schema": {
                        "id": "td:nth-child(2)",
                        "title": "td:nth-child(3) a",
                        "priority": "td:nth-child(1)",
                        "status": "td:nth-child(4)",
                    },
                    "paginate": {"next_selector": "tr.navigation th:last-child a", "max_pages": 10},
                },
            ],
        )
    expected = [
        {"id": str(i.id), "title": i.title, "priority": i.priority, "status": i.status} for i in data.issues()
    ]
    assert out["data"] == expected
    assert out["metadata"]["pages_scraped"] == 3
