"""The agent can add redaction selectors through configure, never remove the user's."""

from __future__ import annotations

import pytest
from mcp import Client
from selenium import webdriver

from tabpilot.wire.errors import ErrorCode
from tests.support import browser
from tests.support.mcp_client import call, call_error
from tests.support.snap import snapshot

pytestmark = pytest.mark.anyio


async def test_added_selectors_are_redacted_everywhere(
    driver: webdriver.Chrome, client: Client, site: str
) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/private-note.html")
    assert "topsecret-note-42" in (await snapshot(client))["text"]

    out = await call(client, "configure", action="add_redaction", selectors=[".secret-x"])
    assert out["added"] == [".secret-x"]
    # The user's defaults stay in force: adding never replaces them.
    assert {"input[type=password]", "[data-sensitive]", ".secret-x"} <= set(out["selectors"])
    again = await call(client, "configure", action="add_redaction", selectors=[".secret-x"])
    assert again["added"] == []

    text = (await snapshot(client))["text"]
    assert "topsecret-note-42" not in text and "[REDACTED]" in text and "public text" in text
    rows = await call(
        client,
        "interact",
        action="scrape",
        operation="extract",
        selector="body",
        schema={"all": ":scope", "html": ":scope | html"},
    )
    assert "topsecret-note-42" not in str(rows) and "public text" in rows["data"][0]["all"]

    bad = await call_error(client, "configure", action="add_redaction", selectors=[])
    assert bad["error"] == ErrorCode.INVALID_PARAMS

    browser.set_pilot(driver, False)
    off = await call_error(client, "configure", action="add_redaction", selectors=[".x"])
    assert off["error"] == ErrorCode.AI_WEB_PILOT_DISABLED
