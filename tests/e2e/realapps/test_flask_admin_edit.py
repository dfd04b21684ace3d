"""Flask-Admin's change form: find a customer, open its edit form, change a text field and a checkbox,
save, and read the row back from the list, in one workflow call. On its own instance of the app, so
the other tests' ground truth stays as seeded."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest
from mcp import Client

from tests.fixtures.realapps import corpus, data, tasks
from tests.support.mcp_client import call, scrape

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def scratch_admin_url() -> Iterator[str]:
    with corpus.flask_admin() as url:
        yield url


async def test_edit_a_customer_and_read_it_back(client: Client, scratch_admin_url: str) -> None:
    before = data.customers()[6]
    assert before.active, "the seed changed: pick an active customer"
    out = await scrape(
        client,
        operation="workflow",
        steps=[
            {"type": "navigate", "url": f"{scratch_admin_url}customer/?search={before.code}"},
            {"type": "click", "selector": "a[title='Edit Record']"},
            {"type": "fill", "selector": "#country", "value": "Portugal"},
            {"type": "check", "selector": "#active", "checked": False},
            {"type": "click", "selector": "input[type=submit][value=Save]"},
            {"type": "extract", "selector": tasks.ADMIN_ROWS, "schema": tasks.ADMIN_SCHEMA},
        ],
    )
    # The whole list: that one row changed, nothing else.
    await call(client, "interact", action="navigate", url=f"{scratch_admin_url}customer/")
    everything = await scrape(
        client,
        operation="extract",
        selector=tasks.ADMIN_ROWS,
        schema=tasks.ADMIN_SCHEMA,
        options={"paginate": tasks.ADMIN_NEXT},
    )
    after = dataclasses.replace(before, country="Portugal", active=False)
    changed = {"code": after.code, "name": after.name, "country": "Portugal", "balance": after.balance}
    assert out["data"] == [{**changed, "active": "active: false"}]
    expected = tasks.customers_as_listed()
    expected[6] = {**changed, "active": "active: false"}
    assert everything["data"] == expected
