"""A recorded login-then-scrape replayed through the real MCP client in real Chromium: with a live
session the guarded login steps are skipped (no password needed), after a logout the navigate bounces
to the login page and those steps log in."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from tabpilot.demo.server import Site
from tabpilot.wire.errors import ErrorCode
from tests.support import pages
from tests.support.mcp_client import call, scrape, scrape_error

pytestmark = pytest.mark.anyio
site = pages.site_with_login  # these tests need the server's sign-in and sessions

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
