"""Zero knowledge: on each list page of the corpus an agent that never saw the page asks `suggest`, then
sends the extract call it proposes exactly as proposed (nothing hand-written), and gets every row of
the list: across linked pages, in-place pages and a virtualised grid's own scrolling viewport. The
rows are compared with the ground truth under the names the draft took from the header cells."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import pytest
from mcp import Client

from tests.fixtures.realapps import data, tasks
from tests.support.mcp_client import call, scrape

pytestmark = pytest.mark.anyio


async def zero_knowledge(client: Client) -> tuple[dict[str, Any], dict[str, Any]]:
    """`suggest` on the page in front of the tab, then its proposed call sent unchanged."""
    proposal = await scrape(client, operation="suggest")
    out = await call(client, "interact", **proposal["call"])
    # A read longer than the call's wait answers "running"; the agent then asks for the result.
    with anyio.fail_after(120):
        while out["status"] in ("queued", "running"):
            cid = out["correlation_id"]
            out = await call(client, "observe", what="command_result", correlation_id=cid, wait_ms=20_000)
    return proposal, out


def proposed_schema(proposal: dict[str, Any]) -> dict[str, str]:
    """The schema of the proposed call: an extract's, or its workflow's extract step's."""
    call = proposal["call"]
    return call["steps"][-1]["schema"] if call["operation"] == "workflow" else call["schema"]


def projected(rows: list[dict[str, Any]], names: list[str]) -> list[dict[str, Any]]:
    return [{k: r.get(k) for k in names} for r in rows]


def check(
    proposal: dict[str, Any],
    out: dict[str, Any],
    paging: str | None,
    expected: list[dict[str, Any]],
    because: str | None,
) -> None:
    names = list(expected[0])
    assert set(names) <= set(proposed_schema(proposal)), proposal["call"]
    assert proposal["candidates"][0].get("paging", {}).get("kind") == paging, proposal["candidates"][0]
    assert out["status"] == "complete", out.get("metadata")
    assert out["metadata"].get("complete_because") == because, out["metadata"]
    got = projected(out["data"], names)
    assert (len(got), got[:2], got[-2:]) == (len(expected), expected[:2], expected[-2:])
    assert got == expected


Setup = Callable[[Client, str], Any]


async def _go(client: Client, url: str, wait_for: str | None = None) -> None:
    await call(client, "interact", action="navigate", url=url)
    if wait_for:
        await call(client, "interact", action="wait_for", selector=wait_for)


def _customers(country: str | None = None) -> list[dict[str, Any]]:
    return [
        {"code": c.code, "name": c.name, "country": c.country, "balance": c.balance}
        for c in data.customers()
        if country is None or c.country == country
    ]


async def test_roundup_issue_index(client: Client, roundup_url: str) -> None:
    await _go(client, roundup_url + "?@action=logout")
    await _go(client, roundup_url + tasks.ROUNDUP_INDEX)
    await call(client, "interact", action="fill", selector="input[name=__login_name]", value=data.USER)
    await call(
        client, "interact", action="fill", selector="input[name=__login_password]", value=data.PASSWORD
    )
    await call(client, "interact", action="click", selector="input[type=submit][value=Login]")
    await call(client, "interact", action="wait_for", selector="table.list tr:has(td)")
    proposal, out = await zero_knowledge(client)
    expected = [
        {"id": i.id, "title": i.title, "priority": i.priority, "status": i.status} for i in data.issues()
    ]
    check(proposal, out, "next_link", expected, "last_numbered_page")


@pytest.mark.parametrize("country", [None, "Norway"], ids=["all", "filtered"])
async def test_flask_admin_list(client: Client, flask_admin_url: str, country: str | None) -> None:
    await _go(client, flask_admin_url + (tasks.ADMIN_NORWAY if country else "customer/"))
    proposal, out = await zero_knowledge(client)
    check(proposal, out, "next_link", _customers(country), "next_disabled")


async def test_dash_table(client: Client, dash_url: str) -> None:
    await _go(client, dash_url, tasks.DASH_ROWS)
    proposal, out = await zero_knowledge(client)
    expected = [
        {"order": o.id, "customer": o.customer, "fruit": o.fruit, "quantity": o.quantity, "total": o.total}
        for o in data.orders()
    ]
    check(proposal, out, "next_button", expected, "next_disabled")


async def test_aggrid_virtualised_grid(client: Client, aggrid_url: str) -> None:
    await _go(client, aggrid_url, tasks.GRID_ROWS)
    proposal, out = await zero_knowledge(client)
    # One candidate for the grid's rows, whatever their zebra classes; names from the header cells.
    assert all("ag-row-odd" not in c["selector"] for c in proposal["candidates"]), proposal["candidates"]
    expected = [
        {"id": r.id, "sku": r.sku, "product": r.product, "price": r.price, "in_stock": r.stock}
        for r in data.grid_rows()
    ]
    check(proposal, out, "grid", expected, "grid_row_count")


async def test_sphinx_settings_table(client: Client, sphinx_url: str) -> None:
    await _go(client, sphinx_url)
    proposal, out = await zero_knowledge(client)
    # Sphinx marks its rows row-odd / row-even: still one candidate, every row, no paging to do.
    assert "row-odd" not in proposal["call"]["selector"], proposal["call"]
    expected = [{"name": s.name, "default": s.default, "meaning": s.meaning} for s in data.settings()]
    check(proposal, out, None, expected, None)
    assert "more" not in out["metadata"], out["metadata"]
