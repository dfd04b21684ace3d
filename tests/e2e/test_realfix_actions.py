"""Actions real tasks needed, through the real MCP client in real Chromium: a whole form in one call,
a click that navigates answering with a lean snapshot, a scrape of a tab that shows no web page, and a
recorded login-then-scrape replayed after its session expired."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client
from selenium import webdriver

from tabpilot.bridge.tools.interact.elements import AFTER_NAVIGATION
from tabpilot.demo.server import Site
from tabpilot.wire.errors import ErrorCode
from tests.support import pages
from tests.support.mcp_client import call, call_error, scrape, scrape_error
from tests.support.snap import js, ref, snapshot

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("pilot_on")]
site = pages.site_with_login  # these tests need the server's sign-in and sessions

VALUES = """JSON.stringify((() => {
  const f = document.forms[0];
  return {title: f.title.value, email: f.email.value, priority: f.priority.value,
          labels: [...f.labels.selectedOptions].map((o) => o.value), notify: f.notify.checked,
          kind: f.kind.value, due: f.due.value, body: f.body.value};
})())"""


async def test_fill_form_fills_every_kind_of_field_in_one_call(client: Client, site: Site) -> None:
    await call(client, "interact", action="navigate", url=f"{site.url}/realfix/form.html")
    text = (await snapshot(client))["text"]
    out = await call(
        client,
        "interact",
        action="fill_form",
        fields=[
            {"ref": ref(text, "textbox", "Title"), "value": "Grid loses rows"},
            {"selector": "[name=email]", "value": "ada@example.org"},
            {"selector": "[name=priority]", "value": "urgent"},
            {"selector": "[name=labels]", "value": ["bug", "api"]},
            {"selector": "[name=notify]", "value": True},
            {"selector": "[name=kind][value=feature]", "value": "true"},
            {"selector": "[name=due]", "value": "2026-12-01"},
            {"selector": "[name=body]", "value": "Rows 21-40 are missing."},
        ],
    )
    assert out["filled"] == 8
    assert out["fields"] == ["fill", "fill", "select", "select", "check", "check", "fill", "fill"]
    assert await js(client, VALUES) == (
        '{"title":"Grid loses rows","email":"ada@example.org","priority":"3","labels":["bug","api"],'
        '"notify":true,"kind":"feature","due":"2026-12-01","body":"Rows 21-40 are missing."}'
    )


async def test_fill_form_refusals_name_the_field(client: Client, site: Site) -> None:
    await call(client, "interact", action="navigate", url=f"{site.url}/realfix/form.html")
    # A target that is not there: nothing is typed, not even the fields before it.
    missing = await call_error(
        client,
        "interact",
        action="fill_form",
        fields=[{"selector": "[name=title]", "value": "x"}, {"selector": "#nope", "value": "y"}],
    )
    assert missing["error"] == ErrorCode.ELEMENT_NOT_FOUND and missing["data"]["field"] == 1
    assert await js(client, "document.forms[0].title.value") == ""
    vague = await call_error(
        client, "interact", action="fill_form", fields=[{"selector": "[name=notify]", "value": "maybe"}]
    )
    assert vague["error"] == ErrorCode.INVALID_PARAMS and vague["data"]["field"] == 0
    text_for_box = await call_error(
        client, "interact", action="fill_form", fields=[{"selector": "[name=title]", "value": True}]
    )
    assert text_for_box["error"] == ErrorCode.INVALID_PARAMS
    bad_date = await call_error(
        client,
        "interact",
        action="fill_form",
        fields=[{"selector": "[name=title]", "value": "ok"}, {"selector": "[name=due]", "value": "soon"}],
    )
    assert bad_date["error"] == ErrorCode.INVALID_PARAMS and bad_date["data"]["field"] == 1
    nothing = await call_error(client, "interact", action="fill_form", fields=[])
    assert nothing["error"] == ErrorCode.INVALID_PARAMS
    # A number for a text field is its text.
    await call(client, "interact", action="fill_form", fields=[{"selector": "[name=title]", "value": 42}])
    assert await js(client, "document.forms[0].title.value") == "42"


async def test_a_click_that_navigates_answers_with_a_lean_snapshot_unless_asked(
    client: Client, site: Site
) -> None:
    await call(client, "interact", action="navigate", url=f"{site.url}/realfix/start.html")
    lean = await call(client, "interact", action="click", selector="a[href='long.html']")
    assert lean["navigated"] is True
    assert lean["snapshot"]["truncated"] is True and len(lean["snapshot"]["text"]) <= AFTER_NAVIGATION
    assert lean["snapshot"]["text"].startswith("# A long page")

    await call(client, "interact", action="navigate", url=f"{site.url}/realfix/start.html")
    full = await call(client, "interact", action="click", selector="a[href='long.html']", snapshot="full")
    assert len(full["snapshot"]["text"]) > 5_000, "the full snapshot of the new page, as asked"


async def test_a_scrape_of_a_tab_without_a_web_page_is_a_navigation_error(
    driver: webdriver.Chrome, client: Client, site: Site
) -> None:
    opened = await call(client, "interact", action="new_tab")  # the browser's own new tab page
    try:
        failed = await scrape_error(client, operation="extract", selector="tr", schema={"a": "td"})
        assert failed["error"] == ErrorCode.NAVIGATION_FAILED
        assert "navigate" in failed["message"]
    finally:
        await call(client, "interact", action="close_tab", tab_id=opened["tab_id"])
    driver.switch_to.new_window("tab")  # about:blank, in front
    blank = await scrape_error(client, operation="extract", selector="tr", schema={"a": "td"})
    assert blank["error"] == ErrorCode.NAVIGATION_FAILED and "about:blank" in blank["message"]
    driver.close()
    driver.switch_to.window(driver.window_handles[0])


# A recorded login-then-scrape replayed through the real MCP client in real Chromium: with a live
# session the guarded login steps are skipped (no password needed), after a logout the navigate bounces
# to the login page and those steps log in.
LOGIN_FORM = {"exists": "form.login"}


def steps(site: Site) -> list[dict[str, Any]]:
    return [
        {"type": "navigate", "url": f"{site.url}/private/table-1.html"},
        {"type": "fill", "selector": "[name=username]", "value": "{{params.user}}", "if": LOGIN_FORM},
        {"type": "fill", "selector": "[name=password]", "value": "{{params.password}}", "if": LOGIN_FORM},
        {"type": "click", "selector": "form.login button", "if": LOGIN_FORM},
        {"type": "extract", "selector": "table.ledger tbody tr", "schema": {"key": ".key"}},
    ]


async def test_a_recorded_login_then_scrape_copes_with_an_expired_session(client: Client, site: Site) -> None:
    keys = ["K-1", "K-2", "K-3"]
    await call(client, "interact", action="navigate", url=f"{site.url}/logout?then=/login.html")
    recorded = await scrape(
        client,
        operation="workflow",
        name="ledger",
        record=True,
        steps=steps(site),
        params={"user": site.user, "password": site.password},
    )
    assert [r["key"] for r in recorded["data"]] == keys
    assert "skipped_steps" not in recorded["metadata"], "logged out: the login steps ran"
    workflow_id = recorded["workflow_id"]

    # The session is alive: the login steps are skipped and no password is asked for.
    live = await scrape(client, operation="replay", workflow_id=workflow_id)
    assert [r["key"] for r in live["data"]] == keys and live["metadata"]["skipped_steps"] == [1, 2, 3]

    # The session expired: the login steps must run, so they need the password.
    await call(client, "interact", action="navigate", url=f"{site.url}/logout?then=/login.html")
    asked = await scrape_error(client, operation="replay", workflow_id=workflow_id)
    assert asked["error"] == ErrorCode.INVALID_PARAMS and asked["missing_params"] == ["password"]
    again = await scrape(
        client, operation="replay", workflow_id=workflow_id, params={"password": site.password}
    )
    assert [r["key"] for r in again["data"]] == keys
    assert any("log in" in w["message"] for w in again["metadata"]["warnings"])
