"""`follow` through the real MCP client, extension and pages: each row's detail page read in a background
tab and merged into its row, without taking over the user's tab; a page drawn by its script, secrets on
a detail page, each fault (404, timeout, missing root, login redirect), cancel, and a recorded workflow
replayed."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp.client import Client
from selenium import webdriver

from tests.support import browser
from tests.support.mcp_client import call, scrape

pytestmark = pytest.mark.anyio

ROWS = "table.tickets tr:has(td)"
SCHEMA = {"title": "td a", "link": "td a | url"}
DETAIL = {"owner": ".owner", "points": ".points | number"}
FOLLOW = {"field": "link", "schema": DETAIL, "selector": "main.ticket", "wait_for": ".owner"}


def ticket(title: str, page: str, owner: str, points: int, base: str) -> dict[str, Any]:
    return {"title": title, "link": f"{base}/follow/{page}", "owner": owner, "points": points}


async def tabs(client: Client) -> list[dict[str, Any]]:
    out = await call(client, "observe", what="tabs")
    return out["tabs"]


async def test_detail_pages_merge_into_their_rows_in_background_tabs(client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/follow/list.html")
    before = await tabs(client)
    out = await scrape(client, operation="extract", selector=ROWS, schema=SCHEMA, follow=FOLLOW)
    after = await tabs(client)
    assert out["data"][:3] == [
        ticket("Printer on fire", "t1.html", "Grace", 13, site),
        ticket("Coffee machine empty", "t2.html", "Linus", 2, site),
        # Drawn by the page's script after a request of its own: read once wait_for saw it.
        ticket("Drawn by a script", "scripted.html", "Margaret", 8, site),
    ]
    # The secret on a detail page stays in it, like everywhere else.
    assert out["data"][3]["owner"] == "Ada [REDACTED]"
    # The first page read the same fetched: the others were fetched (the script-drawn one, without
    # wait_for's element in its HTML, was rendered after all).
    assert out["metadata"]["follow"] == {"mode": "fetch", "done": 4, "total": 4, "rendered": 1}
    # The user's tab is still the active one, on the list; every background tab is closed again.
    assert [(t["id"], t["url"], t["active"]) for t in after] == [
        (t["id"], t["url"], t["active"]) for t in before
    ]
    assert any(t["active"] and t["url"].endswith("/follow/list.html") for t in after)


async def test_a_later_page_drawn_by_its_script_is_rendered_without_selector_or_wait_for(
    client: Client, site: str
) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/follow/list.html")
    before = await tabs(client)
    out = await scrape(
        client,
        operation="extract",
        selector=ROWS,
        schema=SCHEMA,
        follow={"field": "link", "schema": DETAIL, "concurrency": 2},
    )
    after = await tabs(client)
    # Pages 1 and 2 are served whole and page 3 draws its fields with a script: fetched, page 3 reads
    # every field empty where page 1 had values, so it is read again in a background tab.
    assert out["data"][:3] == [
        ticket("Printer on fire", "t1.html", "Grace", 13, site),
        ticket("Coffee machine empty", "t2.html", "Linus", 2, site),
        ticket("Drawn by a script", "scripted.html", "Margaret", 8, site),
    ]
    assert out["metadata"]["follow"] == {"mode": "fetch", "done": 4, "total": 4, "rendered": 1}
    assert [(t["id"], t["url"], t["active"]) for t in after] == [
        (t["id"], t["url"], t["active"]) for t in before
    ]


async def test_secrets_on_a_detail_page_never_reach_the_result(client: Client, site: str) -> None:
    detail = {
        "owner": ".owner",
        "whole": ":scope | text",
        "html": ":scope | html",
        "pw": "input.pw | attr:value",
    }
    await call(client, "interact", action="navigate", url=f"{site}/follow/list.html")
    out = await scrape(
        client,
        operation="extract",
        selector=ROWS,
        schema=SCHEMA,
        follow={"field": "link", "schema": detail, "selector": "main.ticket"},
        options={"where": {"title": "Has a secret"}},
    )
    [row] = out["data"]
    assert row["pw"] == "[REDACTED]" and "Ada" in row["whole"]
    text = json.dumps(out)
    assert "tok-follow-4417" not in text and "pw-follow-9931" not in text


async def test_each_failing_detail_page_costs_its_row_only(client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/follow/faults.html")
    out = await scrape(
        client,
        operation="extract",
        selector=ROWS,
        schema=SCHEMA,
        follow=FOLLOW,
        options={"timeout_ms": 2_500},
    )
    left = await tabs(client)
    data = out["data"]
    assert data[0] == ticket("Printer on fire", "t1.html", "Grace", 13, site)
    assert [sorted(r) for r in data[1:]] == [["link", "title"]] * 3  # the list's fields, nothing more
    errors = {e["row"]: e for e in out["metadata"]["follow_errors"]}
    assert {row: e["error"] for row, e in errors.items()} == {
        1: "http_error",  # 404
        2: "timeout",  # the server answers after 6 s
        3: "timeout",  # no main.ticket to wait_for
    }
    assert errors[1]["url"] == f"{site}/follow/gone.html"
    # The page without main.ticket in its HTML was rendered, in case its script drew it.
    assert out["metadata"]["follow"] == {"mode": "fetch", "done": 1, "total": 4, "failed": 3, "rendered": 1}
    assert len(left) == 1


async def test_a_missing_root_is_element_not_found(client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/follow/faults.html")
    out = await scrape(
        client,
        operation="extract",
        selector=ROWS,
        schema=SCHEMA,
        follow={"field": "link", "schema": DETAIL, "selector": "main.ticket"},
        options={"where": {"title": "Not a ticket page"}},
    )
    [error] = out["metadata"]["follow_errors"]
    assert (error["row"], error["error"]) == (0, "element_not_found")


async def test_a_login_redirect_stops_following(client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/logout?then=/follow/private-links.html")
    out = await scrape(
        client,
        operation="extract",
        selector=ROWS,
        schema=SCHEMA,
        follow={"field": "link", "schema": {"cell": "td"}, "wait_for": "td", "concurrency": 1},
    )
    assert len(out["data"]) == 3 and all(sorted(r) == ["link", "title"] for r in out["data"])
    follow = out["metadata"]["follow"]
    assert follow["stopped"]["reason"] == "redirected" and "/login.html" in follow["stopped"]["url"]
    assert (follow["done"], follow["total"]) == (0, 3)
    assert "follow_errors" not in out["metadata"]
    assert any("following stopped" in w["message"] for w in out["metadata"]["warnings"])


async def test_cancel_keeps_what_was_read_and_closes_the_tabs(client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/follow/slow.html")
    started = await call(
        client,
        "interact",
        action="scrape",
        operation="extract",
        selector=ROWS,
        schema=SCHEMA,
        follow=FOLLOW | {"concurrency": 1},
        options={"timeout_ms": 20_000},
        wait_ms=0,
    )
    cid = started["correlation_id"]
    for _ in range(100):  # until the first detail page is merged (each poll waits for news)
        seen = await call(client, "observe", what="command_result", correlation_id=cid, wait_ms=200)
        if seen.get("progress", {}).get("details_done", 0) >= 1:
            break
    assert seen["progress"]["details_total"] == 3
    out = await call(client, "interact", action="cancel", correlation_id=cid)
    left = await tabs(client)
    assert out["status"] == "cancelled"
    assert out["data"][0] == ticket("Printer on fire", "t1.html", "Grace", 13, site)
    assert [sorted(r) for r in out["data"][1:]] == [["link", "title"]] * 2
    assert len(left) == 1


async def test_cancel_while_a_background_tab_loads_closes_every_tab(client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/follow/slow-scripted.html")
    before = await tabs(client)
    started = await call(
        client,
        "interact",
        action="scrape",
        operation="extract",
        selector=ROWS,
        schema=SCHEMA,
        follow=FOLLOW | {"concurrency": 2},
        options={"timeout_ms": 20_000},
        wait_ms=0,
    )
    cid = started["correlation_id"]
    for _ in range(100):  # until two pages are merged, the third loading (each poll waits for news)
        seen = await call(client, "observe", what="command_result", correlation_id=cid, wait_ms=200)
        if seen.get("progress", {}).get("details_done", 0) >= 2:
            break
    out = await call(client, "interact", action="cancel", correlation_id=cid)
    after = await tabs(client)
    assert out["status"] == "cancelled"
    assert out["data"][:2] == [
        ticket("Drawn by a script", "scripted.html", "Margaret", 8, site),
        ticket("Printer on fire", "t1.html", "Grace", 13, site),
    ]
    assert out["metadata"]["follow"]["mode"] == "tab"
    assert [(t["id"], t["url"], t["active"]) for t in after] == [
        (t["id"], t["url"], t["active"]) for t in before
    ]


def pages(driver: webdriver.Chrome) -> set[str]:
    """The browser's tabs (CDP page targets), the extension's own pages left out."""
    targets = driver.execute_cdp_cmd("Target.getTargets", {})["targetInfos"]
    return {t["targetId"] for t in targets if t["type"] == "page" and not t["url"].startswith("chrome")}


async def test_switching_the_pilot_off_closes_the_background_tabs(
    driver: webdriver.Chrome, client: Client, site: str
) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/follow/slow-scripted.html")
    before = pages(driver)
    started = await call(
        client,
        "interact",
        action="scrape",
        operation="extract",
        selector=ROWS,
        schema=SCHEMA,
        follow=FOLLOW | {"concurrency": 2},
        options={"timeout_ms": 20_000},
        wait_ms=0,
    )
    cid = started["correlation_id"]
    for _ in range(100):  # until two pages are merged, the third loading (each poll waits for news)
        seen = await call(client, "observe", what="command_result", correlation_id=cid, wait_ms=200)
        if seen.get("progress", {}).get("details_done", 0) >= 2:
            break
    # The slow page loads in one background tab; the other waits, open, for a next page.
    assert len(pages(driver) - before) == 2
    browser.set_pilot(driver, False)
    browser.wait_until(lambda: pages(driver) == before or None, what="the background tabs to close")


async def test_follow_in_a_recorded_workflow_replayed(client: Client, site: str) -> None:
    steps = [
        {"type": "navigate", "url": f"{site}/follow/list.html"},
        {"type": "extract", "selector": ROWS, "schema": SCHEMA, "follow": FOLLOW, "options": {"limit": 2}},
    ]
    first = await scrape(client, operation="workflow", steps=steps, record=True, name="follow_tickets")
    again = await scrape(client, operation="replay", workflow_id=first["workflow_id"])
    expected = [
        ticket("Printer on fire", "t1.html", "Grace", 13, site),
        ticket("Coffee machine empty", "t2.html", "Linus", 2, site),
    ]
    assert first["data"] == expected and again["data"] == expected
    assert again["metadata"]["follow"] == {"mode": "fetch", "done": 2, "total": 2}


async def test_detail_pages_drawn_by_scripts_are_rendered_in_tabs(client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/follow/scripted-first.html")
    before = await tabs(client)
    # One tab at a time: the second page loads in the tab the first one was read in.
    follow = FOLLOW | {"concurrency": 1}
    out = await scrape(client, operation="extract", selector=ROWS, schema=SCHEMA, follow=follow)
    after = await tabs(client)
    # Every background tab is closed again, and the user's tab stayed the active one.
    assert [(t["id"], t["url"], t["active"]) for t in after] == [
        (t["id"], t["url"], t["active"]) for t in before
    ]
    assert out["data"] == [
        ticket("Drawn by a script", "scripted.html", "Margaret", 8, site),
        ticket("Coffee machine empty", "t2.html", "Linus", 2, site),
    ]
    follow = out["metadata"]["follow"]
    assert (follow["mode"], follow["done"]) == ("tab", 2) and "scripts" in follow["why"]
