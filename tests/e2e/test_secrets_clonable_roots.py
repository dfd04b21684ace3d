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

from tests.e2e.test_secrets_pixels import every_channel, none_leaked, shot_showing
from tests.support.mcp_client import call

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("pilot_on")]

SECRETS = ("ALPHACLONE1", "BRAVOIMPORT2", "CHARLIERANGE3", "DELTANESTED4", "ECHOINTERNALS5", "FOXTROTDOC6")


async def test_copied_roots_keep_their_secrets(client: Client, site: str) -> None:
    tab = (await call(client, "interact", action="navigate", url=f"{site}/secrets/clonable_roots.html"))[
        "tab_id"
    ]
    script = (
        "return [...document.querySelectorAll('#h > *')]"
        ".map((h) => h.shadowRoot || h.internals.shadowRoot)"
        ".map((r) => [r.innerHTML, [...r.querySelectorAll('input')].map((i) => i.value)])"
    )
    outs = await every_channel(client, tab, schema={"text": ":scope", "fields": "input | all"}, script=script)
    text = outs["snapshot"]
    assert "VICTOR PUBLIC" in text and "one [REDACTED]" in text, text
    none_leaked(SECRETS, outs, await shot_showing(client, tab, "WHISKEY CLONES"))
