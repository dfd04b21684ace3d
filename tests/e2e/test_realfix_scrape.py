"""What real apps showed, fed through the real MCP client in real Chromium: an infinite feed whose end
marker is in the DOM from the start but hidden, the end of a feed without any marker, and a next link
that leads to a JSON export."""

from __future__ import annotations

import json

import pytest
from mcp import Client
from selenium import webdriver

from tabpilot.demo.server import Site
from tests.support import pages
from tests.support.mcp_client import call, scrape

pytestmark = pytest.mark.anyio
site = pages.site_with_login  # these tests need the server's sign-in and sessions

POSTS = [f"P-{n:04d}" for n in range(1, 201)]


async def test_a_hidden_end_marker_is_not_the_end_and_a_feed_ends_on_its_own_quiet(
    client: Client, site: Site
) -> None:
    await call(client, "interact", action="navigate", url=f"{site.url}/realfix/feed.html")
    marked = await scrape(
        client,
        operation="extract",
        selector=".posts .post",
        schema={"id": ".post-id"},
        options={
            "scroll": {"max_scrolls": 30, "until_selector": ".infinite-scroll-last"},
            "telemetry": True,
        },
    )
    assert [r["id"] for r in marked["data"]] == POSTS
    assert marked["metadata"]["pagination_stopped"]["reason"] == "end_marker"
    assert marked["metadata"]["complete_because"] == "end_marker_confirmed"

    # No marker named and none shown (no_end): the feed ends when nothing loads any more. The server
    # answers slower than the quiet window, so only the request still in flight keeps the scrape
    # waiting for a batch.
    no_end = f"{site.url}/realfix/feed.html?server_ms=700&no_end=1"
    await call(client, "interact", action="navigate", url=no_end)
    quiet = await scrape(
        client,
        operation="extract",
        selector=".posts .post",
        schema={"id": ".post-id"},
        options={"scroll": {"max_scrolls": 30}, "telemetry": True},
    )
    assert [r["id"] for r in quiet["data"]] == POSTS
    stop = quiet["metadata"]["pagination_stopped"]
    assert stop["reason"] == "unchanged" and stop["page"] == 10
    assert quiet["metadata"]["complete_because"] == "feed_stopped_growing"


async def test_a_next_link_to_a_json_export_stops_with_not_html_and_a_warning(
    client: Client, site: Site
) -> None:
    await call(client, "interact", action="navigate", url=f"{site.url}/realfix/list-1.html")
    out = await call(
        client,
        "interact",
        action="scrape",
        operation="extract",
        selector="table.records tbody tr",
        schema={"id": ".id", "name": ".name"},
        options={
            "paginate": {"next_selector": "a[href*='_next=']", "max_pages": 25, "delay_ms": 0},
            "telemetry": True,
        },
    )
    assert [r["id"] for r in out["data"]] == ["R-1", "R-2", "R-3", "R-4"]
    stop = out["metadata"]["pagination_stopped"]
    assert stop["reason"] == "not_html" and stop["page"] == 3
    assert any("not_html" in w["message"] for w in out["metadata"]["warnings"])
    # A walk that ran into an export proves no end: partial, and the option to fix.
    assert out["status"] == "partial" and out["metadata"]["partial_because"]["reason"] == "not_html"
    assert out["metadata"]["partial_because"]["hint"]["option"] == "options.paginate.next_selector"

    # The precise selector walks every page and says why it stopped.
    await call(client, "interact", action="navigate", url=f"{site.url}/realfix/list-1.html")
    out = await scrape(
        client,
        operation="extract",
        selector="table.records tbody tr",
        schema={"id": ".id"},
        options={
            "paginate": {"next_selector": ".pager a", "max_pages": 25, "delay_ms": 0},
            "telemetry": True,
        },
    )
    assert [r["id"] for r in out["data"]] == ["R-1", "R-2", "R-3", "R-4", "R-5"]
    assert out["metadata"]["pagination_stopped"] == {
        "reason": "no_next",
        "page": 3,
        "detail": "no visible element matches .pager a: the last page",
    }
    assert "warnings" not in out["metadata"]


async def test_suggest_keeps_identifiers_as_text_and_the_draft_extracts_them_whole(
    client: Client, site: Site
) -> None:
    await call(client, "interact", action="navigate", url=f"{site.url}/realfix/accounts.html")
    found = await scrape(client, operation="suggest", query="accounts")
    best = found["candidates"][0]
    schema = best["schema"]
    assert not schema["account"].endswith("| number") and not schema["sku"].endswith("| number")
    assert schema["balance"].endswith("| number") and schema["orders"].endswith("| number")
    assert best["next_selector"] == "button.next-page", "an icon-only button named by its class"
    out = await scrape(client, operation="extract", selector=best["selector"], schema=schema)
    assert out["data"][0] == {
        "account": "ACC-1001",
        "sku": "SKU-000001",
        "customer": "Customer 1",
        "balance": 1234.5,
        "orders": 3,
    }


async def test_a_page_with_inline_svg_is_read_and_pictured(client: Client, site: Site) -> None:
    """An inline SVG icon (the pager's button here) is an element no shadow root can hang on: looking
    for one there must not break the page agent's snapshot, screenshot or markdown."""
    await call(client, "interact", action="navigate", url=f"{site.url}/realfix/accounts.html")
    snap = await call(client, "observe", what="page")
    assert "ACC-1001" in json.dumps(snap)
    shot = await call(client, "interact", action="screenshot")
    assert shot["mime"] == "image/jpeg" and shot["width"] > 0
    md = await call(client, "observe", what="page", format="markdown")
    assert "ACC-1001" in json.dumps(md)


async def test_a_virtualised_grid_is_read_whole_and_in_order_in_one_call(
    driver: webdriver.Chrome, client: Client, site: Site
) -> None:
    await call(client, "interact", action="navigate", url=f"{site.url}/realfix/grid.html")
    schema = {"id": ".id", "customer": ".customer", "total": ".total | number"}
    out = await scrape(client, operation="extract", selector=".grid .row", schema=schema)
    assert len(out["data"]) == 2000
    assert out["data"] == [
        {"id": f"ORD-{n:05d}", "customer": f"Customer {n % 97}", "total": round(n * 1.25, 2)}
        for n in range(1, 2001)
    ]
    assert out["metadata"]["virtual"]["complete"] is True
    # A short timeout: the read goes on where it was, call after call, and is as exact.
    again = await scrape(
        client, operation="extract", selector=".grid .row", schema=schema, options={"timeout_ms": 2_000}
    )
    assert again["data"] == out["data"] and again["metadata"]["virtual"]["calls"] > 1
    # The grid is left where it was.
    assert driver.execute_script("return document.querySelector('.viewport').scrollTop") == 0

    # A grid drawing its rows far slower than the time given: the last resumed read answers the rows
    # it had (in the grid's order, each once; rows drawn too late for a read are holes it tells of),
    # and the result is partial with the way to read the rest.
    await call(client, "interact", action="navigate", url=f"{site.url}/realfix/grid.html?draw_ms=150")
    slow = await call(
        client,
        "interact",
        action="scrape",
        operation="extract",
        selector=".grid .row",
        schema=schema,
        options={"timeout_ms": 600, "telemetry": True},
    )
    assert slow["status"] == "partial"
    at = [out["data"].index(row) for row in slow["data"]]
    assert 0 < len(at) < 2000 and at == sorted(set(at)) and at[0] == 0
    why = slow["metadata"]["partial_because"]
    assert (why["reason"], why["hint"]["option"]) == ("grid_incomplete", "options.timeout_ms")
    assert slow["metadata"]["virtual"]["calls"] == 21
    await call(client, "interact", action="navigate", url=f"{site.url}/realfix/grid.html")

    # 21 of 2,000 asked for: 21 come back.
    wanted = await scrape(
        client,
        operation="extract",
        selector=".grid .row",
        schema=schema,
        options={"where": {"customer": "Customer 5", "total": {">=": 100}}},
    )
    ids = [n for n in range(1, 2001) if n % 97 == 5 and n * 1.25 >= 100]
    assert [r["id"] for r in wanted["data"]] == [f"ORD-{n:05d}" for n in ids]
    assert wanted["metadata"]["rows_filtered_out"] == 2000 - len(ids)

    # virtual: false reads only what the DOM holds now.
    seen = await scrape(
        client, operation="extract", selector=".grid .row", schema=schema, options={"virtual": False}
    )
    assert 0 < len(seen["data"]) < 40

    # Rows with no index are told apart by their values: virtual: true on a table that does not
    # scroll by itself reads what a plain extract reads.
    await call(client, "interact", action="navigate", url=f"{site.url}/realfix/accounts.html")
    plain = await scrape(client, operation="extract", selector="table tbody tr", schema={"a": "td"})
    forced = await scrape(
        client,
        operation="extract",
        selector="table tbody tr",
        schema={"a": "td"},
        options={"virtual": True},
    )
    assert forced["data"] == plain["data"] and plain["data"]
