"""output_schema through the real MCP client and a real page: coercion, a bad row reported by path
with every row still returned, an invalid schema refused, a workflow extract step, and a replay."""

from __future__ import annotations

import pytest
from mcp import Client

from tabpilot.demo.server import Site
from tabpilot.wire.errors import ErrorCode
from tests.support import pages
from tests.support.mcp_client import call, scrape_error

pytestmark = pytest.mark.anyio
site = pages.site_with_login  # these tests need the server's sign-in and sessions

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
