"""A secret whose text the page changes (its text node's data, or the text node and an inner element
taken out) right after copying it into a plain paragraph, before any observer has run: in the document, with
its marker taken off after, and in a closed shadow root. The page agent remembers the text a secret
held before the change, so the copies show in no channel: snapshot, markdown, extract, execute_js
and the screenshot's pixels (OCR). Real Chromium, the real MCP client."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.e2e.test_secrets_pixels import every_channel, none_leaked, shot_showing
from tests.support.mcp_client import call

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("pilot_on")]

SECRETS = ("KILORETEXT1", "LIMARETEXT2", "MIKERETEXT3", "NOVEMBER", "RETEXT4")


async def test_text_a_secret_held_before_a_change_stays_secret(client: Client, site: str) -> None:
    tab = (await call(client, "interact", action="navigate", url=f"{site}/secrets/retexted.html"))["tab_id"]
    outs = await every_channel(client, tab, schema={"text": ":scope"}, script="document.body.innerText")
    for shown in ("VICTOR PUBLIC", "one [REDACTED]", "two [REDACTED]", "three [REDACTED]", "four [REDACTED]"):
        assert shown in outs["snapshot"], (shown, outs["snapshot"])
    none_leaked(SECRETS, outs, await shot_showing(client, tab, "WHISKEY RETEXT"))
