"""Zero knowledge on a list the tab shows from a later page than its first (the person paged on, or
followed a link to page 3): read from there, the list ends at its real end and would call itself
complete without the pages before. `suggest` proposes a workflow that opens the first page (its page
"1" link, its first-page link, or the button that redraws it in place), then reads every page."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from mcp import Client

from tests.e2e.realapps.test_zero_knowledge import check, zero_knowledge
from tests.fixtures.realapps import corpus, data, fast_data, tasks
from tests.support.mcp_client import call

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def fast_url() -> Iterator[str]:
    with corpus.fast() as url:
        yield url


def _first_step(proposal: dict[str, Any]) -> dict[str, Any]:
    assert proposal["call"]["operation"] == "workflow", proposal["call"]
    return proposal["call"]["steps"][0]


async def test_numbered_pager_on_page_3(client: Client, fast_url: str) -> None:
    await call(client, "interact", action="navigate", url=fast_url + "browse/?page=3")
    proposal, out = await zero_knowledge(client)
    assert _first_step(proposal) == {"type": "navigate", "url": fast_url + "browse/?page=1"}
    check(proposal, out, "next_link", [r.__dict__ for r in fast_data.records()], "last_numbered_page")


async def test_first_page_link_among_later_numbers(client: Client, flask_admin_url: str) -> None:
    # Page 4 shows the links to pages 2-8: no "1", but "«" before "<" leads to the first page.
    await call(client, "interact", action="navigate", url=flask_admin_url + "customer/?page=4")
    proposal, out = await zero_knowledge(client)
    assert _first_step(proposal)["type"] == "navigate", proposal["call"]
    expected = [
        {"code": c.code, "name": c.name, "country": c.country, "balance": c.balance} for c in data.customers()
    ]
    check(proposal, out, "next_link", expected, "next_disabled")


async def test_in_place_pages_after_two_nexts(client: Client, dash_url: str) -> None:
    await call(client, "interact", action="navigate", url=dash_url)
    await call(client, "interact", action="wait_for", selector=tasks.DASH_ROWS)
    for _ in range(2):
        await call(client, "interact", action="click", selector="button.next-page")
    proposal, out = await zero_knowledge(client)
    assert _first_step(proposal) == {"type": "click", "selector": "button.first-page"}
    expected = [
        {"order": o.id, "customer": o.customer, "fruit": o.fruit, "quantity": o.quantity, "total": o.total}
        for o in data.orders()
    ]
    check(proposal, out, "next_button", expected, "next_disabled")
