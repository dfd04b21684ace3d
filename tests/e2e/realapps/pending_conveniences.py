"""The conveniences real tasks asked for, on the corpus: Roundup's login form filled in one
`interact fill_form` call, and a row filter on extract (`options.where`) so that an agent asking for
Norway's customers with a balance over 10,000 reads them from the whole list in one call.

Pending (not collected: the name does not start with test_). On main at 291fbfa neither exists:
`fill_form` answers `unknown_action`; `where` is silently dropped (the bridge's `Options` TypedDict
ignores keys it does not know, so a misspelt option is ignored too) and all 237 rows come back with no
error or warning. The argument shapes here are a guess from the
issue's words (`fields: [{selector, value}]`; `where: {field: value | {op: value}}`): adjust them to
what lands, then rename to test_conveniences.py."""

from __future__ import annotations

import pytest
from selenium import webdriver

from tests.fixtures.realapps import data, tasks
from tests.support import browser
from tests.support.mcp_client import call, mcp_client, scrape

pytestmark = pytest.mark.anyio


async def test_fill_form_logs_in(driver: webdriver.Chrome, env: dict[str, str], roundup_url: str) -> None:
    browser.set_pilot(driver, True)
    async with mcp_client(env) as client:
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


async def test_where_filters_rows(
    driver: webdriver.Chrome, env: dict[str, str], flask_admin_url: str
) -> None:
    browser.set_pilot(driver, True)
    async with mcp_client(env) as client:
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
