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

from tests.e2e.test_secrets_pixels import every_channel, none_leaked, shot_showing
from tests.support.mcp_client import call

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("pilot_on")]

SECRETS = ("ALPHAADOPT1", "BRAVOTEMPLATE2", "CHARLIEFRAME3", "DELTAPARSED4", "ECHOMARKUP5", "FOXTROTAPPEND6")


async def test_roots_attached_in_other_documents_keep_their_secrets(client: Client, site: str) -> None:
    tab = (await call(client, "interact", action="navigate", url=f"{site}/secrets/adopted_shadow.html"))[
        "tab_id"
    ]
    schema = {"text": ":scope", "html": ":scope | html"}
    outs = await every_channel(client, tab, schema=schema, script="document.body.innerText")
    text = outs["snapshot"]
    assert "VICTOR PUBLIC" in text and "one [REDACTED]" in text and "six [REDACTED]" in text, text
    none_leaked(SECRETS, outs, await shot_showing(client, tab, "WHISKEY ADOPTED"))
