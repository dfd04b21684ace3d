"""Scraping through the real MCP client: `interact {action: "scrape"}` -> bridge -> host engine ->
extension -> page, on fixture pages: pagination of both kinds, infinite scroll, cards, numbers, empty
and invalid selectors, big results, and an output_schema in extract, a workflow step and a replay."""

from __future__ import annotations

import json

import pytest
from mcp import Client
from selenium import webdriver

from tabpilot.demo.server import Site
from tabpilot.wire.errors import ErrorCode
from tests.support import browser, pages
from tests.support.mcp_client import call, scrape, scrape_error

pytestmark = pytest.mark.anyio
site = pages.site_with_login  # these tests need the server's sign-in and sessions


async def test_in_place_next_and_infinite_scroll(client: Client, site: Site) -> None:
    await call(client, "interact", action="navigate", url=f"{site.url}/scrape/inplace.html")
    out = await scrape(
        client,
        operation="extract",
        selector="table.grid tbody tr",
        schema={"v": ".v"},
        options={
            "paginate": {"next_selector": "#next", "max_pages": 10, "delay_ms": 0},
            "telemetry": True,
        },
    )
    assert [r["v"] for r in out["data"]] == [f"r{i}" for i in range(1, 8)]
    assert out["metadata"]["pages_scraped"] == 3 and out["metadata"]["rows_extracted"] == 7

    await call(client, "interact", action="navigate", url=f"{site.url}/scrape/infinite.html")
    fed = await scrape(
        client,
        operation="extract",
        selector=".feed .item",
        schema={"text": ":scope", "n": ":scope | number"},
        options={"scroll": {"max_scrolls": 10, "until_selector": ".end"}},
    )
    assert [r["n"] for r in fed["data"]] == list(range(1, 36))


async def test_link_pagination_behind_a_login(driver: webdriver.Chrome, client: Client, site: Site) -> None:
    driver.get(f"{site.url}/login.html?next=/private/table-1.html")
    driver.execute_script(
        "document.querySelector('[name=username]').value = arguments[0];"
        "document.querySelector('[name=password]').value = arguments[1];"
        "document.querySelector('form.login').submit();",
        site.user,
        site.password,
    )
    browser.wait_until(lambda: driver.current_url.endswith("/private/table-1.html"), what="the login")
    out = await scrape(
        client,
        operation="extract",
        selector="table.ledger tbody tr",
        schema={"key": ".key", "name": ".name", "amount": ".amount | number"},
        options={
            "paginate": {"next_selector": "a.next", "max_pages": 10, "delay_ms": 0},
            "telemetry": True,
        },
    )
    assert [r["key"] for r in out["data"]] == [f"K-{i}" for i in range(1, 9)]
    assert out["data"][6] == {"key": "K-7", "name": "Person 7", "amount": 7000.5}
    assert out["metadata"]["pages_scraped"] == 3
    # Pages 2 and 3 were fetched with the session's cookie; the tab stayed on page 1.
    assert out["metadata"]["pagination_mode"] == "fetch"
    assert out["metadata"]["url"] == f"{site.url}/private/table-1.html"
    assert driver.current_url.endswith("/private/table-1.html")


async def test_cards_links_images_and_numbers(client: Client, site: Site) -> None:
    base = f"{site.url}/scrape"
    await call(client, "interact", action="navigate", url=f"{base}/cards.html")
    out = await scrape(
        client,
        operation="extract",
        selector="article.card",
        schema={
            "title": "a.title",
            "link": "a.title | url",
            "image": "img | attr:src",
            "image_url": "img | url",
            "price": ".price | number",
            "stock": ".stock | number",
            "tags": ".tags li | all",
            "sku": ":scope | attr:data-sku",
        },
    )
    first, second, third, hidden = out["data"]
    assert first == {
        "title": "Alpha widget",
        "link": f"{site.url}/products/alpha.html",
        "image": "img/alpha.png",
        "image_url": f"{base}/img/alpha.png",
        "price": 1234.5,
        "stock": 12,
        "tags": ["new", "blue"],
        "sku": "A-1",
    }
    assert (second["price"], second["stock"], second["link"]) == (-3, -1000, f"{base}/beta.html?x=1#top")
    assert (third["price"], third["stock"], third["tags"], third["image"]) == (12, None, [], None)
    assert hidden["title"] == "Delta"
    warned = [w.get("field") for w in out["metadata"].get("warnings", [])]
    assert "stock" in warned  # "n/a" is not a number: null, and said so


async def test_nothing_matched_bad_selectors_and_big_results(client: Client, site: Site) -> None:
    await call(client, "interact", action="navigate", url=f"{site.url}/scrape/cards.html")
    empty = await scrape(client, operation="extract", selector="table.none tr", schema={"x": "td"})
    assert empty["status"] == "complete" and empty["data"] == []

    bad = await scrape_error(client, operation="extract", selector="article[", schema={"x": "a"})
    assert bad["error"] == ErrorCode.INVALID_SELECTOR

    half = await scrape(
        client, operation="extract", selector="article.card", schema={"t": "a.title", "b": "span[["}
    )
    assert [r["b"] for r in half["data"]] == [None] * 4 and half["data"][0]["t"] == "Alpha widget"
    assert any(w.get("field") == "b" for w in half["metadata"]["warnings"])

    await call(client, "interact", action="navigate", url=f"{site.url}/scrape/rows.html?n=3000&pad=1000")
    big = await scrape(
        client, operation="extract", selector="tbody tr", schema={"id": ".id", "name": ".name"}
    )
    # Over options.max_bytes: the first rows, and the rest by reference (not cut).
    assert "truncated" not in big["metadata"] and big["result"]["rows"] == 3000
    assert 0 < len(big["data"]) == big["metadata"]["rows_returned"] < 3000
    assert big["data"][0] == {"id": "0", "name": "Name 0" + "x" * 1000}
    assert len(json.dumps(big["data"], separators=(",", ":"))) <= 256 * 1024


async def test_numbers_in_the_formats_pages_write_them(client: Client, site: Site) -> None:
    await call(client, "interact", action="navigate", url=f"{site.url}/scrape/numbers.html")
    out = await scrape(
        client,
        operation="extract",
        selector="table.figures tr",
        schema={"label": ".label", "n": ".v | number", "cents": ".v | attr:data-cents | number"},
    )
    got = {r["label"]: r["n"] for r in out["data"]}
    assert got == {
        "us thousands": 1234.5,
        "dollars": 12,
        "negative": -3,
        "unit after": 12,
        "european": 1234.5,
        "swiss": 1234,
        "spaced": 12345,
        "accounting": -1000,
        "unicode minus": -7.5,
        "percent": 45,
        "exponent": 1500.0,
        "in a name": 101,
        "not a number": None,
        "empty": None,
        "attribute": None,
    }
    assert out["data"][-1]["cents"] == 199
    [warning] = [w for w in out["metadata"]["warnings"] if w.get("field") == "n"]
    assert warning["message"].startswith("3 value")  # n/a, the empty cell, words


# output_schema through the real MCP client and a real page: coercion, a bad row reported by path
# with every row still returned, an invalid schema refused, a workflow extract step, and a replay.
FIELDS = {"name": ".name", "price": ".price", "stock": ".stock", "on_sale": ".sale"}
PRODUCT = {
    "type": "object",
    "required": ["name", "price", "stock", "on_sale"],
    "properties": {
        "name": {"type": "string"},
        "price": {"type": "number"},
        "stock": {"type": "integer", "minimum": 0},
        "on_sale": {"type": "boolean"},
    },
}
# What the page's rows become under PRODUCT: all but the third, whose price is "call us".
COERCED = [
    {"name": "Kettle", "price": 12, "stock": 4, "on_sale": True},
    {"name": "Toaster", "price": 24.5, "stock": 0, "on_sale": False},
    {"name": "Espresso machine", "price": "call us", "stock": 1, "on_sale": False},
    {"name": "Mug", "price": 3, "stock": 120, "on_sale": True},
]


async def test_extract_coerces_and_reports_the_bad_row(client: Client, site: Site) -> None:
    await call(client, "interact", action="navigate", url=f"{site.url}/schema/products.html")
    failed = await scrape_error(
        client, operation="extract", selector="tbody tr", schema=FIELDS, output_schema=PRODUCT
    )
    assert failed["error"] == ErrorCode.VALIDATION_FAILED and failed["status"] == "error"
    assert failed["data"] == COERCED, "every row comes back, coerced; the bad one as the page had it"
    assert failed["violations"] == [
        {"row": 2, "path": "$[2].price", "message": 'expected number (got "call us")'}
    ]
    assert failed["violations_total"] == 1 and failed["metadata"]["is_partial"] is True
    assert failed["message"].startswith("1 of 4 rows do not match output_schema: $[2].price")

    # "call us" allowed by name: the other prices still become numbers (the branch that fits).
    price = {"anyOf": [{"type": "number"}, {"const": "call us"}]}
    lenient = {**PRODUCT, "properties": {**PRODUCT["properties"], "price": price}}
    ok = await call(
        client,
        "interact",
        action="scrape",
        operation="extract",
        selector="tbody tr",
        schema=FIELDS,
        output_schema=lenient,
    )
    assert ok["status"] == "complete" and ok["data"] == COERCED
    assert ok["metadata"]["output_schema"] == "valid"

    bad = await scrape_error(
        client,
        operation="extract",
        selector="tbody tr",
        schema=FIELDS,
        output_schema={"type": "object", "properties": {"price": {"type": "nmber"}}},
    )
    assert bad["error"] == ErrorCode.INVALID_OUTPUT_SCHEMA
    assert bad["message"].startswith('output_schema at $.properties.price: "type": "nmber" is not valid')


async def test_workflow_step_and_replay_with_output_schema(client: Client, site: Site) -> None:
    url = f"{site.url}/schema/products.html"
    in_stock = {
        "type": "object",
        "properties": {"stock": {"type": "integer"}, "on_sale": {"type": "boolean"}},
    }
    recorded = await call(
        client,
        "interact",
        action="scrape",
        operation="workflow",
        name="products",
        record=True,
        options={"delay_ms": 0},
        steps=[
            {"type": "navigate", "url": url},
            {"type": "extract", "selector": "tbody tr", "schema": FIELDS, "output_schema": in_stock},
        ],
    )
    assert recorded["status"] == "complete" and recorded["metadata"]["output_schema"] == "valid"
    assert [r["stock"] for r in recorded["data"]] == [4, 0, 1, 120]
    assert [r["price"] for r in recorded["data"]] == ["12", "24.50", "call us", "3"], "not declared: kept"

    replayed = await call(
        client, "interact", action="scrape", operation="replay", workflow_id=recorded["workflow_id"]
    )
    assert replayed["data"] == recorded["data"], "the recorded step keeps its output_schema"

    strict = await scrape_error(
        client, operation="replay", workflow_id=recorded["workflow_id"], output_schema=PRODUCT
    )
    assert strict["error"] == ErrorCode.VALIDATION_FAILED and strict["failed_step"] == 1
    assert [v["path"] for v in strict["violations"]] == ["$[2].price"]
    assert strict["data"] == COERCED

    refused = await scrape_error(
        client,
        operation="workflow",
        options={"delay_ms": 0},
        steps=[{"type": "extract", "selector": "tr", "schema": FIELDS, "output_schema": {"minimum": "x"}}],
    )
    assert refused["error"] == ErrorCode.INVALID_OUTPUT_SCHEMA and "steps[0]" in refused["message"]
