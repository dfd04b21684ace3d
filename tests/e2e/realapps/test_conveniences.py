"""The conveniences real tasks asked for, on the corpus: Roundup's login form filled in one
`interact fill_form` call, and a row filter on extract (`options.where`) so that an agent asking for
Norway's customers with a balance over 10,000 reads them from the whole list in one call."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.fixtures.realapps import data, tasks
from tests.support.mcp_client import call, scrape

pytestmark = pytest.mark.anyio


async def test_fill_form_logs_in(client: Client, roundup_url: str) -> None:
    await call(client, "interact", action="navigate", url=roundup_url + "?@action=logout")
    await call(client, "interact", action="navigate", url=roundup_url + tasks.ROUNDUP_INDEX)
    await call(
        client,
        "interact",
        action="fill_form",
        fields=[
            {"selector": "input[name=__login_name]", "value": data.USER},
            {"selector": "input[name=__login_password]", "value": data.PASSWORD},
        ],
    )
    await call(client, "interact", action="click", selector="input[type=submit][value=Login]")
    out = await scrape(
        client, operation="extract", selector="table.list tr:has(td)", schema={"id": "td:nth-child(2)"}
    )
    assert [r["id"] for r in out["data"]] == [str(i.id) for i in data.issues()[:50]]


async def test_where_filters_rows(client: Client, flask_admin_url: str) -> None:
    await call(client, "interact", action="navigate", url=flask_admin_url + "customer/")
    out = await scrape(
        client,
        operation="extract",
        selector=tasks.ADMIN_ROWS,
        schema=tasks.ADMIN_SCHEMA,
        options={"paginate": tasks.ADMIN_NEXT, "where": {"country": "Norway", "balance": {">": 10_000}}},
    )
    rich = [r for r in tasks.customers_as_listed("Norway") if r["balance"] > 10_000]
    assert out["data"] == rich
