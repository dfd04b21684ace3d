"""Shadow roots made by copying a clonable one (`attachShadow({clonable: true})`, then cloneNode,
document.importNode, a range's cloneContents or a whole document's cloneNode, a root within a root
included, and a custom element's closed one its copy reaches through its internals): the copy's root
is not made by attachShadow, and the page unmarks the secret in the copy (a marker taken off, a
password shown as text) before it puts the copy in the page, after emptying the original. The page
agent watches each copied root from its making, so none of them shows in snapshot, markdown,
extract, execute_js or the screenshot's pixels (OCR). Real Chromium, the real MCP client."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.e2e.test_secrets_pixels import none_leaked, shot
from tests.e2e.test_secrets_screenshot import norm
from tests.support.mcp_client import call, payload, scrape

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("pilot_on")]

SECRETS = ("ALPHACLONE1", "BRAVOIMPORT2", "CHARLIERANGE3", "DELTANESTED4", "ECHOINTERNALS5", "FOXTROTDOC6")


async def test_copied_roots_keep_their_secrets(client: Client, site: str) -> None:
    tab = (await call(client, "interact", action="navigate", url=f"{site}/secrets/clonable_roots.html"))[
        "tab_id"
    ]
    text = (await call(client, "observe", what="page", tab_id=tab))["text"]
    assert "VICTOR PUBLIC" in text and "one [REDACTED]" in text, text
    markdown = await call(client, "observe", what="page", format="markdown", tab_id=tab)
    rows = await scrape(
        client, operation="extract", selector="main", tab_id=tab,
        schema={"text": ":scope", "fields": "input | all"},
    )  # fmt: skip
    ran = await client.call_tool(
        "interact",
        {
            "action": "execute_js",
            "script": "return [...document.querySelectorAll('#h > *')]"
            ".map((h) => h.shadowRoot || h.internals.shadowRoot)"
            ".map((r) => [r.innerHTML, [...r.querySelectorAll('input')].map((i) => i.value)])",
            "tab_id": tab,
        },
    )
    seen, meta = await shot(client, tab)
    assert seen is not None, meta
    assert norm("WHISKEY CLONES") in seen, seen
    none_leaked(SECRETS, {"snapshot": text, "markdown": markdown, "extract": rows, "js": payload(ran)}, seen)
