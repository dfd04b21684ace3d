"""A secret whose text the page changes (its text node's data, or the text node and an inner element
taken out) right after copying it into a plain paragraph, before any observer has run: in the document, with
its marker taken off after, and in a closed shadow root. The page agent remembers the text a secret
held before the change, so the copies show in no channel: snapshot, markdown, extract, execute_js
and the screenshot's pixels (OCR). Real Chromium, the real MCP client."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.e2e.test_secrets_pixels import none_leaked, shot
from tests.e2e.test_secrets_screenshot import norm
from tests.support.mcp_client import call, payload, scrape

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("pilot_on")]

SECRETS = ("KILORETEXT1", "LIMARETEXT2", "MIKERETEXT3", "NOVEMBER", "RETEXT4")


async def test_text_a_secret_held_before_a_change_stays_secret(client: Client, site: str) -> None:
    tab = (await call(client, "interact", action="navigate", url=f"{site}/secrets/retexted.html"))["tab_id"]
    text = (await call(client, "observe", what="page", tab_id=tab))["text"]
    for shown in ("VICTOR PUBLIC", "one [REDACTED]", "two [REDACTED]", "three [REDACTED]", "four [REDACTED]"):
        assert shown in text, (shown, text)
    markdown = await call(client, "observe", what="page", format="markdown", tab_id=tab)
    rows = await scrape(client, operation="extract", selector="main", tab_id=tab, schema={"text": ":scope"})
    ran = await client.call_tool(
        "interact", {"action": "execute_js", "script": "document.body.innerText", "tab_id": tab}
    )
    seen, meta = await shot(client, tab)
    assert seen is not None, meta
    assert norm("WHISKEY RETEXT") in seen, seen
    none_leaked(SECRETS, {"snapshot": text, "markdown": markdown, "extract": rows, "js": payload(ran)}, seen)
