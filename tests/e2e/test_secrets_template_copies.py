"""A secret marked inside a template's content (out of the tree, nested templates included) that the
page's script copies out, unmarks and only then inserts: the page agent remembers the values of the
secrets templates hold, so the copies show in no channel: snapshot, markdown, extract, execute_js (the
text, and the copied field's value) and the screenshot's pixels (OCR). Real Chromium, the real MCP
client."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.e2e.test_secrets_pixels import every_channel, none_leaked, shot_showing
from tests.support.mcp_client import call

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("pilot_on")]

SECRETS = ("OSCARTEMPLATE1", "PAPATEMPLATE2", "QUEBECNESTED3")


async def test_a_secret_copied_out_of_a_template_and_unmarked_stays_secret(client: Client, site: str) -> None:
    tab = (await call(client, "interact", action="navigate", url=f"{site}/secrets/template_copies.html"))[
        "tab_id"
    ]
    script = "[document.body.innerText, ...[...document.querySelectorAll('input')].map((i) => i.value)]"
    outs = await every_channel(client, tab, schema={"text": ":scope"}, script=script)
    text = outs["snapshot"]
    assert "VICTOR PUBLIC" in text and "key [REDACTED]" in text, text
    none_leaked(SECRETS, outs, await shot_showing(client, tab, "WHISKEY TEMPLATE"))
