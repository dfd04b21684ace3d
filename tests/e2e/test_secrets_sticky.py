"""Secrecy decided before any page script runs and never lifted: the page agent's redaction part is in
every document from document_start, so a password field the page shows as text (inline, at
DOMContentLoaded, at setTimeout 0, at load, 300 ms later), one swapped for a new text field, values
copied into plain elements, a mark removed after the copy, and the selected secret option of a select
all stay [REDACTED] in snapshot, markdown, extract, suggest, execute_js, errors and the screenshot's
pixels (OCR); also in a tab the agent's click opened. Real Chromium, the real MCP client."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from mcp import Client
from mcp.types import ImageContent, TextContent

from tabpilot.wire.errors import ErrorCode
from tests.e2e.test_secrets_screenshot import norm, ocr
from tests.support.mcp_client import call, call_error, scrape

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("pilot_on")]

SECRETS = (
    "BRAVOINLINE",
    "CHARLIEREADY",
    "DELTATIMER",
    "ECHOLOAD",
    "FOXTROTLATE",
    "GOLFSWAP",
    "HOTELMOVED",
    "INDIACOPY",
    "JULIETSPAN",
    "KILOOPTION",
)


async def read_everything(client: Client, tab: int) -> dict[str, Any]:
    """The page through every text channel; none may hold a secret."""
    outs: dict[str, Any] = {
        "snapshot": await call(client, "observe", what="page", tab_id=tab),
        "markdown": await call(client, "observe", what="page", format="markdown", tab_id=tab),
        "extract": await scrape(
            client,
            operation="extract",
            selector="main",
            schema={
                "fields": "input | all",
                "values": "input | attr:value | all",
                "html": ":scope | html",
                "text": ":scope",
                "plain": "#plain-i",
                "select": "select | html",
            },
            tab_id=tab,
        ),
        "suggest": await call(client, "interact", action="scrape", operation="suggest", tab_id=tab),
        "execute_js": await client.call_tool(
            "interact",
            {
                "action": "execute_js",
                "script": "return [[...document.querySelectorAll('input, select')].map((i) => i.value),"
                " document.body.innerText]",
                "tab_id": tab,
            },
        ),
        "select_error": await call_error(
            client, "interact", action="select", selector="#sel", values=["WRONG"], tab_id=tab
        ),
    }
    for what, out in outs.items():
        for secret in SECRETS:
            assert secret not in str(out), f"{secret} leaked through {what}:\n{out}"
    return outs


async def check_tab(client: Client, tab: int) -> None:
    await call(client, "interact", action="wait_for", selector="#late-done", tab_id=tab, timeout_ms=5000)
    outs = await read_everything(client, tab)
    text = outs["snapshot"]["text"]
    assert "NOVEMBER SETTINGS" in text and "The vault opens at nine" in text, text
    for label in ("Code A", "Code B", "Code C", "Code D", "Code E", "Code G"):
        assert f'textbox "{label}" = [REDACTED]' in text, (label, text)
    assert outs["select_error"]["error"] == ErrorCode.ELEMENT_NOT_FOUND
    assert "Basic" not in outs["select_error"]["message"]

    result = await client.call_tool(
        "interact", {"action": "screenshot", "format": "png", "max_width": 1920, "tab_id": tab}
    )
    assert not result.is_error
    [image] = [c for c in result.content if isinstance(c, ImageContent)]
    seen = ocr(base64.b64decode(image.data))
    assert norm("NOVEMBER SETTINGS") in seen, f"OCR did not read the heading:\n{seen}"
    told = [c.text for c in result.content if isinstance(c, TextContent)]
    for secret in SECRETS:
        assert norm(secret) not in seen, f"{secret} readable in the screenshot {told}:\n{seen}"


async def test_secrets_stay_secret_whatever_the_page_does(client: Client, site: str) -> None:
    page = await call(client, "interact", action="navigate", url=f"{site}/secrets/sticky.html")
    await check_tab(client, page["tab_id"])


async def test_secrets_stay_secret_in_a_tab_the_agents_click_opened(client: Client, site: str) -> None:
    page = await call(client, "interact", action="navigate", url=f"{site}/secrets/sticky.html")
    before = {t["id"] for t in (await call(client, "observe", what="tabs"))["tabs"]}
    await call(client, "interact", action="click", selector="#again", tab_id=page["tab_id"])
    opened: list[int] = []
    for _ in range(50):
        tabs = (await call(client, "observe", what="tabs"))["tabs"]
        opened = [t["id"] for t in tabs if t["id"] not in before and "sticky.html" in t["url"]]
        if opened:
            break
        await call(client, "interact", action="wait_for", text="NOVEMBER", tab_id=page["tab_id"])
    assert opened, "the click opened no tab"
    try:
        await check_tab(client, opened[0])
    finally:
        await call(client, "interact", action="close_tab", tab_id=opened[0])
