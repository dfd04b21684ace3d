"""`interact {action: "scrape", operation: "suggest"}` through the real MCP client on fixture pages: the
top candidate is the structure a person would pick, its draft passed to extract gives back the sample
rows and the row count, query words and css_selector steer it, and no secret reaches the answer."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client
from selenium import webdriver

from tabpilot.demo.server import Site
from tabpilot.wire.errors import ErrorCode
from tests.support import pages
from tests.support.mcp_client import call, payload, scrape

pytestmark = pytest.mark.anyio
site = pages.site_with_login  # these tests need the server's sign-in and sessions

SECRETS = (
    "hunter2-SECRET-pw",
    "4242-4242-SECRET-CARD",
    "tok-SECRET-123456",
    "AAAAC3-SECRET-deploy-key",
    "SECRET-COUPON-77",
)

# page -> (kind, row selector, fields the draft must have, row count)
EXPECTED: dict[str, tuple[str, str, set[str], int]] = {
    "table.html": ("table", "#orders > tbody > tr", {"order", "customer", "customer_url", "amount"}, 12),
    "cards.html": (
        "cards",
        "div.product-grid > div.product-card",
        {"title", "title_url", "price", "image", "badges"},
        9,
    ),
    "results.html": ("list", "#results > li.result", {"title", "title_url", "url", "snippet"}, 10),
    "glossary.html": ("definitions", "dl.glossary > dt", {"term", "definition", "definition_url"}, 8),
    "dashboard.html": ("repeated", "", {"font_medium", "text_right", "text_xs"}, 15),
    "plans.html": (
        "table",
        "#plans > tbody > tr:has(> td)",
        {"plan", "monthly", "storage", "badge_image"},
        4,
    ),
}


async def suggest(client: Client, **arguments: Any) -> dict[str, Any]:
    """A suggestion that must complete; its result."""
    out = await call(client, "interact", action="scrape", operation="suggest", **arguments)
    assert out["status"] == "complete", out
    return out


def no_secret(value: Any) -> None:
    text = json.dumps(value)
    for secret in SECRETS:
        assert secret not in text, secret


@pytest.mark.parametrize("page", sorted(EXPECTED))
async def test_the_draft_reproduces_its_sample(client: Client, site: Site, page: str) -> None:
    kind, selector, fields, rows = EXPECTED[page]
    await call(client, "interact", action="navigate", url=f"{site.url}/suggest/{page}")
    out = await suggest(client)
    no_secret(out)
    top = out["candidates"][0]
    assert top["kind"] == kind, out["candidates"]
    if selector:
        assert top["selector"] == selector, out["candidates"]
    assert fields <= set(top["schema"]), top
    assert top["rows"] == rows and len(top["sample"]) == 3, top
    assert out["skeleton"]["bytes"] <= 8_000 and len(out["skeleton"]["html"].encode()) <= 8_000
    assert "extract" in out["hint"] and out["metadata"]["elements"] > 30

    got = await call(
        client,
        "interact",
        action="scrape",
        operation="extract",
        selector=top["selector"],
        schema=top["schema"],
    )
    assert got["data"][:3] == top["sample"]
    assert len(got["data"]) == top["rows"]
    assert not got["metadata"].get("warnings"), got["metadata"]


async def test_query_words_css_selector_and_secrets(client: Client, site: Site) -> None:
    await call(client, "interact", action="navigate", url=f"{site.url}/suggest/dashboard.html")
    plain = await suggest(client)
    assert plain["candidates"][0]["rows"] == 15  # the activity feed is the biggest structure
    asked = await suggest(client, query="key metrics")
    top = asked["candidates"][0]
    assert top["selector"] == "div.grid > div.rounded" and top["rows"] == 4, asked["candidates"]
    assert top["sample"][0] == {"text_sm": "Requests", "text_2xl": "1,284,330"}

    # The whole page as the region: its secret is [REDACTED], never the value.
    whole = await suggest(client, css_selector="body")
    assert whole["skeleton"]["selector"] == "body" and "[REDACTED]" in whole["skeleton"]["html"]
    assert "<script" not in whole["skeleton"]["html"]
    no_secret(whole)

    await call(client, "interact", action="navigate", url=f"{site.url}/suggest/results.html")
    scoped = await suggest(client, css_selector="aside.related")
    assert scoped["candidates"][0]["selector"] == "ul.related-searches > li"
    assert all(c["selector"] != "#results > li.result" for c in scoped["candidates"])
    assert scoped["skeleton"]["selector"] == "aside.related"
    assert (await suggest(client))["candidates"][0]["next_selector"] == "button.load-more"

    # The password typed into the (hidden) login form never shows, in any region.
    await call(client, "interact", action="navigate", url=f"{site.url}/suggest/table.html")
    table = await suggest(client, css_selector="body")
    assert '<input id="pw" name="password" type="password">' in table["skeleton"]["html"]
    assert table["candidates"][0]["next_selector"] == 'a[rel~="next"]'
    no_secret(table)
    # The guessed Next is one paginate can follow (the fixture's page 2 is the same page again).
    top = table["candidates"][0]
    paged = await call(
        client,
        "interact",
        action="scrape",
        operation="extract",
        selector=top["selector"],
        schema=top["schema"],
        options={
            "paginate": {"next_selector": top["next_selector"], "max_pages": 2, "delay_ms": 0},
            "telemetry": True,  # the run's account: pages_scraped
        },
    )
    assert len(paged["data"]) == 24 and paged["metadata"]["pages_scraped"] == 2

    await call(client, "interact", action="navigate", url=f"{site.url}/suggest/glossary.html")
    glossary = await suggest(client)
    assert glossary["candidates"][0]["sample"][2]["definition"] == "The secret the CLI sends: [REDACTED] ."


async def test_the_skeleton_stops_at_its_budget_and_bad_regions_are_errors(
    driver: webdriver.Chrome, client: Client, site: Site
) -> None:
    await call(client, "interact", action="navigate", url=f"{site.url}/scrape/cards.html")
    top = (await suggest(client))["candidates"][0]
    assert top["selector"] == "div.cards > article.card:not(.gone)" and top["rows"] == 3, top
    got = await call(
        client,
        "interact",
        action="scrape",
        operation="extract",
        selector=top["selector"],
        schema=top["schema"],
    )
    assert got["data"] == top["sample"]

    await call(client, "interact", action="navigate", url=f"{site.url}/suggest/cards.html")
    # 400 blocks that each look different: nothing repeats, so only the budget can stop it.
    driver.execute_script(
        "const box = document.createElement('section'); box.id = 'wide';"
        "for (let i = 0; i < 400; i++) { const d = document.createElement('div');"
        " d.className = 'block-' + String.fromCharCode(97 + i % 26) + (i >> 5);"
        " d.textContent = 'item ' + i;"
        " box.append(d); }"
        "document.body.append(box);"
    )
    out = await suggest(client, css_selector="#wide")
    skeleton = out["skeleton"]
    assert skeleton["truncated"] is True and skeleton["html"].endswith("-byte budget -->")
    assert skeleton["bytes"] == len(skeleton["html"].encode()) and 7_000 < skeleton["bytes"] <= 8_000
    assert skeleton["html"].startswith('<section id="wide">') and "</section><!--" in skeleton["html"]

    for css, code in (
        ("#nothing-here", ErrorCode.ELEMENT_NOT_FOUND),
        ("div[", ErrorCode.INVALID_SELECTOR),
    ):
        result = await client.call_tool(
            "interact", {"action": "scrape", "operation": "suggest", "css_selector": css}
        )
        error = payload(result)
        assert result.is_error and error["error"] == code, error
    result = await client.call_tool(
        "interact", {"action": "scrape", "operation": "suggest", "selector": "li"}
    )
    assert result.is_error and payload(result)["error"] == ErrorCode.INVALID_PARAMS


# A virtualised list whose rows carry no index and come in late (a progress text that changes every
# frame for longer than one scroll step waits): zero knowledge still gets every row. A position whose rows
# never read the same twice was not read at all, so the read waits for them rather than moving past them
# and calling itself complete short (Clusterize under load lost a block of rows so).
LATE_ROWS = [{"part": f"PART-{n:04d}", "name": f"Part number {n}"} for n in range(1, 121)]


async def test_rows_that_come_in_late_are_waited_for_not_skipped(client: Client, site: Site) -> None:
    await call(client, "interact", action="navigate", url=f"{site.url}/suggest/late_rows.html")
    proposal = await scrape(client, operation="suggest")
    assert proposal["candidates"][0]["paging"]["kind"] == "grid", proposal["candidates"][0]
    out = await scrape(client, **{k: v for k, v in proposal["call"].items() if k != "action"})
    assert out["metadata"]["complete_because"] == "grid_end", out["metadata"]
    assert out["data"] == LATE_ROWS


async def test_records_drawn_after_the_load_are_waited_for(client: Client, site: Site) -> None:
    """An agent asks right after navigating, while the app still shows its "Loading data…" row: the
    records it draws a moment later are what is proposed, and the proposed call reads them all."""
    await call(client, "interact", action="navigate", url=f"{site.url}/suggest/drawn_late.html")
    proposal = await scrape(client, operation="suggest")
    top = proposal["candidates"][0]
    assert (top["selector"], top["rows"]) == ("#shipments > tbody > tr", 14), top
    out = await call(client, "interact", **proposal["call"])
    assert [r["shipment"] for r in out["data"]] == [f"SHP-{n:03d}" for n in range(1, 15)], out
