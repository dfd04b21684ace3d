"""Shadow roots the parser attaches from markup a script writes while the page is parsed
(document.write with declarative roots, the attribute split over two writes) or hands to the
Sanitizer API with a sanitizer that keeps them (setHTML, Document.parseHTML): the script copies each
secret out and unmarks it in the same task, before any observer runs. The page agent learns of those
roots as the call returns, so neither secret shows in snapshot, extract, execute_js or the
screenshot's pixels (OCR). Real Chromium, the real MCP client."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.e2e.test_secrets_pixels import every_channel, none_leaked, shot_showing
from tests.support.mcp_client import call

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("pilot_on")]

SECRETS = ("ALPHAWRITTEN1", "BRAVOSPLIT2", "CHARLIESAFE3", "DELTAPARSE4")


async def test_roots_written_while_parsing_keep_their_secrets(client: Client, site: str) -> None:
    url = f"{site}/secrets/written_roots.html"
    tab = (await call(client, "interact", action="navigate", url=url))["tab_id"]
    script = (
        "return [...document.querySelectorAll('main div')].map((h) => h.shadowRoot?.innerHTML)"
        ".concat(document.getElementById('w1').shadowRoot.firstChild.value, document.body.innerText)"
    )
    schema = {"text": ":scope", "fields": "input | all"}
    outs = await every_channel(client, tab, schema=schema, script=script, markdown=False)
    for shown in ("VICTOR PUBLIC", "one [REDACTED] two [REDACTED]", "three [REDACTED] four [REDACTED]"):
        assert shown in outs["snapshot"], (shown, outs["snapshot"])
    none_leaked(SECRETS, outs, await shot_showing(client, tab, "WHISKEY WRITTEN"))
