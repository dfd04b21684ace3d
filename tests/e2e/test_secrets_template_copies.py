"""A secret marked inside a template's content (out of the tree, nested templates included) that the
page's script copies out, unmarks and only then inserts: the page agent remembers the values of the
secrets templates hold, so the copies show in no channel: snapshot, markdown, extract, execute_js (the
text, and the copied field's value) and the screenshot's pixels (OCR). Real Chromium, the real MCP
client."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.e2e.test_secrets_pixels import none_leaked, shot
from tests.e2e.test_secrets_screenshot import norm
from tests.support.mcp_client import call, payload, scrape

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("pilot_on")]

SECRETS = ("OSCARTEMPLATE1", "PAPATEMPLATE2", "QUEBECNESTED3")


async def test_a_secret_copied_out_of_a_template_and_unmarked_stays_secret(client: Client, site: str) -> None:
    tab = (await call(client, "interact", action="navigate", url=f"{site}/secrets/template_copies.html"))[
        "tab_id"
    ]
    text = (await call(client, "observe", what="page", tab_id=tab))["text"]
    assert "VICTOR PUBLIC" in text and "key [REDACTED]" in text, text
    markdown = await call(client, "observe", what="page", format="markdown", tab_id=tab)
    rows = await scrape(client, operation="extract", selector="main", tab_id=tab, schema={"text": ":scope"})
    script = "[document.body.innerText, ...[...document.querySelectorAll('input')].map((i) => i.value)]"
    ran = await client.call_tool("interact", {"action": "execute_js", "script": script, "tab_id": tab})
    seen, meta = await shot(client, tab)
    assert seen is not None, meta
    assert norm("WHISKEY TEMPLATE") in seen, seen
    none_leaked(SECRETS, {"snapshot": text, "markdown": markdown, "extract": rows, "js": payload(ran)}, seen)
