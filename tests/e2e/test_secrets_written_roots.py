"""Shadow roots the parser attaches from markup a script writes while the page is parsed
(document.write with declarative roots, the attribute split over two writes) or hands to the
Sanitizer API with a sanitizer that keeps them (setHTML, Document.parseHTML): the script copies each
secret out and unmarks it in the same task, before any observer runs. The page agent learns of those
roots as the call returns, so neither secret shows in snapshot, extract, execute_js or the
screenshot's pixels (OCR). Real Chromium, the real MCP client."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.e2e.test_secrets_pixels import none_leaked, shot
from tests.e2e.test_secrets_screenshot import norm
from tests.support.mcp_client import call, payload, scrape

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("pilot_on")]

SECRETS = ("ALPHAWRITTEN1", "BRAVOSPLIT2", "CHARLIESAFE3", "DELTAPARSE4")


async def test_roots_written_while_parsing_keep_their_secrets(client: Client, site: str) -> None:
    url = f"{site}/secrets/written_roots.html"
    tab = (await call(client, "interact", action="navigate", url=url))["tab_id"]
    text = (await call(client, "observe", what="page", tab_id=tab))["text"]
    for shown in ("VICTOR PUBLIC", "one [REDACTED] two [REDACTED]", "three [REDACTED] four [REDACTED]"):
        assert shown in text, (shown, text)
    rows = await scrape(
        client, operation="extract", selector="main", tab_id=tab,
        schema={"text": ":scope", "fields": "input | all"},
    )  # fmt: skip
    ran = await client.call_tool(
        "interact",
        {
            "action": "execute_js",
            "script": "return [...document.querySelectorAll('main div')].map((h) => h.shadowRoot?.innerHTML)"
            ".concat(document.getElementById('w1').shadowRoot.firstChild.value, document.body.innerText)",
            "tab_id": tab,
        },
    )
    seen, meta = await shot(client, tab)
    assert seen is not None, meta
    assert norm("WHISKEY WRITTEN") in seen, seen
    none_leaked(SECRETS, {"snapshot": text, "extract": rows, "js": payload(ran)}, seen)
