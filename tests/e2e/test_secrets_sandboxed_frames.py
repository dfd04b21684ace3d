"""A frame sandboxed `allow-same-origin` without `allow-scripts` runs no script of its own, so no
page-world hook either; its same-origin parent's script still reaches into it. That script copies
each secret out (into a plain paragraph of the frame), then unmarks it: a password shown as text
under a new id, a marker taken off, a password in a closed root attached by the frame's own
attachShadow shown as text; also in frames of no address reached as window[i] (no frame element's
getter called), one the script makes and reaches at once among them. None of them shows in
snapshot, execute_js or the screenshot's pixels (OCR), while the frames' plain text does. Real
Chromium, the real MCP client."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.e2e.test_secrets_pixels import shot
from tests.e2e.test_secrets_screenshot import norm
from tests.support.mcp_client import call, payload

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("pilot_on")]

SHOWN = (
    "YANKEE INNER",
    "one [REDACTED]",
    "two [REDACTED]",
    "three [REDACTED]",
    "TANGO BLANK",
    "four [REDACTED]",
    "UNIFORM MADE",
    "five [REDACTED]",
)
SECRETS = ("PAPASANDBOX1", "QUEBECSANDBOX2", "ROMEOSANDBOX3", "UNIFORMBLANK4", "VICTORMADE5")


async def test_secrets_in_a_frame_without_scripts_stay_secret(client: Client, site: str) -> None:
    url = f"{site}/secrets/sandboxed_frame.html"
    tab = (await call(client, "interact", action="navigate", url=url))["tab_id"]
    await call(client, "interact", action="wait_for", text="SIERRA DONE", tab_id=tab, timeout_ms=5000)
    text = (await call(client, "observe", what="page", tab_id=tab))["text"]
    for shown in SHOWN:
        assert shown in text, (shown, text)
    ran = await client.call_tool(
        "interact",
        {
            "action": "execute_js",
            "script": "const d = frames[0].document; return [d.body.innerText,"
            " [...d.querySelectorAll('input')].map((i) => i.value)]",
            "tab_id": tab,
        },
    )
    seen, meta = await shot(client, tab)
    assert seen is not None, meta
    assert norm("YANKEE INNER") in seen, seen
    for secret in SECRETS:
        assert secret not in text, (secret, text)
        assert secret not in str(payload(ran)), (secret, payload(ran))
        assert norm(secret[:9]) not in seen, (secret, seen)
