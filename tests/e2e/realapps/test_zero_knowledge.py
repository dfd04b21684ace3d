"""Zero knowledge: on each list page of the corpus an agent that never saw the page asks `suggest`, then
sends the extract call it proposes exactly as proposed (nothing hand-written), and gets every row of
the list: across linked pages, in-place pages and a virtualised grid's own scrolling viewport. The
rows are compared with the ground truth under the names the draft took from the header cells."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from mcp import Client
from selenium import webdriver

from tests.fixtures.realapps import data, tasks
from tests.support import browser
from tests.support.mcp_client import call, mcp_client, scrape

pytestmark = pytest.mark.anyio


async def zero_knowledge(client: Client) -> tuple[dict[str, Any], dict[str, Any]]:
    """`suggest` on the page in front of the tab, then its proposed call sent unchanged."""
    proposal = await scrape(client, operation="suggest")
    out = await call(client, "interact", **proposal["call"])
    return proposal, out


def projected(rows: list[dict[str, Any]], names: list[str]) -> list[dict[str, Any]]:
    return [{k: r.get(k) for k in names} for r in rows]


def check(
    proposal: dict[str, Any], out: dict[str, Any], paging: str | None, expected: list[dict[str, Any]]
) -> None:
    names = list(expected[0])
    assert set(names) <= set(proposal["call"]["schema"]), proposal["call"]
    assert proposal["candidates"][0].get("paging", {}).get("kind") == paging, proposal["candidates"][0]
    assert out["status"] == "complete", out.get("metadata")
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


async def test_roundup_issue_index(driver: webdriver.Chrome, env: dict[str, str], roundup_url: str) -> None:
    browser.set_pilot(driver, True)
    async with mcp_client(env) as client:
        # Signing in is the scene, as it is for a person: the list is for members only.
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
    check(proposal, out, "next_link", expected)


@pytest.mark.parametrize("country", [None, "Norway"], ids=["all", "filtered"])
async def test_flask_admin_list(
    driver: webdriver.Chrome, env: dict[str, str], flask_admin_url: str, country: str | None
) -> None:
    browser.set_pilot(driver, True)
    async with mcp_client(env) as client:
        await _go(client, flask_admin_url + (tasks.ADMIN_NORWAY if country else "customer/"))
        proposal, out = await zero_knowledge(client)
    check(proposal, out, "next_link", _customers(country))


async def test_dash_table(driver: webdriver.Chrome, env: dict[str, str], dash_url: str) -> None:
    browser.set_pilot(driver, True)
    async with mcp_client(env) as client:
        await _go(client, dash_url, tasks.DASH_ROWS)
        proposal, out = await zero_knowledge(client)
    expected = [
        {"order": o.id, "customer": o.customer, "fruit": o.fruit, "quantity": o.quantity, "total": o.total}
        for o in data.orders()
    ]
    check(proposal, out, "next_button", expected)


async def test_sphinx_settings_table(driver: webdriver.Chrome, env: dict[str, str], sphinx_url: str) -> None:
    browser.set_pilot(driver, True)
    async with mcp_client(env) as client:
        await _go(client, sphinx_url)
        proposal, out = await zero_knowledge(client)
    # Sphinx marks its rows row-odd / row-even: still one candidate, every row, no paging to do.
    assert "row-odd" not in proposal["call"]["selector"], proposal["call"]
    expected = [{"name": s.name, "default": s.default, "meaning": s.meaning} for s in data.settings()]
    check(proposal, out, None, expected)
