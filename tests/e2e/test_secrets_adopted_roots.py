"""Shadow roots built in another document and adopted into the page: a root attached in a document
made with createHTMLDocument, in a template's content, in a frame's document (by that frame's own
attachShadow), declared in markup parsed with Document.parseHTMLUnsafe or set with setHTMLUnsafe on an
element of a made document. Each secret is copied into a plain paragraph and unmarked (a password
shown as text, a marker removed) before its host is adopted: the page agent learns of the root as it
is attached, wherever, so none of them shows in snapshot, markdown, extract, execute_js or the
screenshot's pixels (OCR). Real Chromium, the real MCP client."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.e2e.test_secrets_pixels import none_leaked, shot
from tests.e2e.test_secrets_screenshot import norm
from tests.support.mcp_client import call, payload, scrape

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("pilot_on")]

SECRETS = ("ALPHAADOPT1", "BRAVOTEMPLATE2", "CHARLIEFRAME3", "DELTAPARSED4", "ECHOMARKUP5", "FOXTROTAPPEND6")


async def test_roots_attached_in_other_documents_keep_their_secrets(client: Client, site: str) -> None:
    tab = (await call(client, "interact", action="navigate", url=f"{site}/secrets/adopted_shadow.html"))[
        "tab_id"
    ]
    text = (await call(client, "observe", what="page", tab_id=tab))["text"]
    assert "VICTOR PUBLIC" in text and "one [REDACTED]" in text and "six [REDACTED]" in text, text
    markdown = await call(client, "observe", what="page", format="markdown", tab_id=tab)
    rows = await scrape(
        client, operation="extract", selector="main", tab_id=tab,
        schema={"text": ":scope", "html": ":scope | html"},
    )  # fmt: skip
    ran = await client.call_tool(
        "interact", {"action": "execute_js", "script": "document.body.innerText", "tab_id": tab}
    )
    seen, meta = await shot(client, tab)
    assert seen is not None, meta
    assert norm("WHISKEY ADOPTED") in seen, seen
    none_leaked(SECRETS, {"snapshot": text, "markdown": markdown, "extract": rows, "js": payload(ran)}, seen)
