"""Pixels follow the text: a screenshot masks a secret in a closed shadow root, a card number split over
several spans and a key in a readonly input (OCR reads none of them), and a secret that moves or appears
every 16 ms is never caught unmasked: each picture is clean or refused with secret_unmaskable. Real
Chromium, the real MCP client."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from mcp import Client
from mcp.types import ImageContent, TextContent

from tabpilot.wire.errors import ErrorCode
from tests.e2e.test_secrets_screenshot import norm, ocr
from tests.support.mcp_client import call, payload, scrape

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("pilot_on")]


async def shot(client: Client, tab: int) -> tuple[str | None, dict[str, object]]:
    """OCR text of a viewport screenshot (None when refused) and its JSON part."""
    result = await client.call_tool(
        "interact", {"action": "screenshot", "format": "png", "max_width": 1920, "tab_id": tab}
    )
    texts = [c.text for c in result.content if isinstance(c, TextContent)]
    meta = json.loads(texts[0])
    if result.is_error:
        return None, meta
    [image] = [c for c in result.content if isinstance(c, ImageContent)]
    return ocr(base64.b64decode(image.data)), meta


async def every_channel(
    client: Client, tab: int, *, schema: dict[str, str], script: str, markdown: bool = True
) -> dict[str, Any]:
    """What the agent reads of the page in `tab` on each text channel: the snapshot's text, its markdown
    (unless `markdown` is false), an extract of `main` with `schema`, and execute_js running `script`."""
    outs: dict[str, Any] = {"snapshot": (await call(client, "observe", what="page", tab_id=tab))["text"]}
    if markdown:
        outs["markdown"] = await call(client, "observe", what="page", format="markdown", tab_id=tab)
    outs["extract"] = await scrape(client, operation="extract", selector="main", tab_id=tab, schema=schema)
    ran = await client.call_tool("interact", {"action": "execute_js", "script": script, "tab_id": tab})
    outs["js"] = payload(ran)
    return outs


async def shot_showing(client: Client, tab: int, heading: str) -> str:
    """OCR text of a screenshot of `tab`, which must be taken and show `heading`."""
    seen, meta = await shot(client, tab)
    assert seen is not None, meta
    assert norm(heading) in seen, seen
    return seen


def none_leaked(secrets: tuple[str, ...], outs: dict[str, Any], seen: str) -> None:
    """No secret in any channel's output, nor (its first 8 letters, as OCR reads them) in the pixels."""
    for secret in secrets:
        for name, out in outs.items():
            assert secret not in str(out), (secret, name, out)
        assert norm(secret[:8]) not in seen, (secret, seen)


async def test_hidden_places_and_split_runs_are_masked(client: Client, site: str) -> None:
    page = await call(client, "interact", action="navigate", url=f"{site}/secrets/pixels.html")
    seen, meta = await shot(client, page["tab_id"])
    assert seen is not None, meta
    assert norm("WHISKEY PIXELS") in seen and norm("VICTOR") in seen, seen
    for secret in ("ROMEO", "CLOSED", "4111", "1111", "ZULU", "TANGO", "XRAY"):
        assert norm(secret) not in seen, f"{secret} readable in the screenshot:\n{seen}"
    snap = await call(client, "observe", what="page", tab_id=page["tab_id"])
    for secret in ("ROMEOCLOSED", "4111", "AKIAZULU"):
        assert secret not in snap["text"], snap["text"]


async def test_a_secret_that_moves_is_never_caught_unmasked(client: Client, site: str) -> None:
    page = await call(client, "interact", action="navigate", url=f"{site}/secrets/moving.html")
    await call(client, "interact", action="wait_for", text="XENIA", tab_id=page["tab_id"])
    outcomes = []
    for _ in range(6):
        seen, meta = await shot(client, page["tab_id"])
        if seen is None:
            assert meta["error"] == ErrorCode.SECRET_UNMASKABLE, meta
            outcomes.append("refused")
            continue
        assert norm("YANKEE MOVING") in seen, seen
        for secret in ("SIERRA", "MOVES", "UNIFORM", "BLINK"):
            assert norm(secret) not in seen, f"{secret} readable in the screenshot:\n{seen}"
        outcomes.append("clean")
    assert len(outcomes) == 6
