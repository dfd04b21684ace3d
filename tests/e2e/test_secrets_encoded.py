"""Pattern secrets and secret values leave by no channel in any form: a card written with no-break or
thin spaces, AWS and OpenAI-style keys, a password; read as text, markdown, html, pixels (OCR), and
through execute_js as they are, upper-cased, sliced, URL-encoded (a form's URLSearchParams) or base64.
Real Chromium, the real MCP client."""

from __future__ import annotations

import base64
import urllib.parse

import pytest
from mcp import Client
from mcp.types import ImageContent

from tests.e2e.test_secrets_screenshot import norm, ocr
from tests.support.mcp_client import call, scrape

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("pilot_on")]

AWS = "AKIAIOSFODNN7EXAMPLE"
OPENAI = "sk-proj-Zq7Rt5Wm2Kp9Lx4Nv8Hc3Jd6"
PASSWORD = "Rome&Juliet=1 2"
CARD = "4111111111111111"


def forms() -> list[str]:
    """Every form of every secret that must not come back."""
    out: list[str] = []
    for secret in (AWS, OPENAI, PASSWORD, CARD, "5500000000000004"):
        out += [
            secret,
            secret.upper(),
            secret.lower(),
            secret[4:],
            urllib.parse.quote(secret, safe=""),
            urllib.parse.quote_plus(secret),
            base64.b64encode(secret.encode()).decode().rstrip("="),
        ]
    out += ["4111\u00a01111", "4111&nbsp;1111", "1111 1111 1111", "0000\u20090000"]
    return [f for f in out if len(f) >= 8]


SCRIPTS = (
    "new URLSearchParams(new FormData(document.forms.login)).toString()",
    "btoa(document.getElementById('aws').textContent)",
    "document.getElementById('openai').textContent.toUpperCase()",
    "document.getElementById('openai').textContent.slice(4)",
    "document.getElementById('aws').textContent.slice(4).toLowerCase()",
    "document.body.innerText",
    "document.getElementById('card').innerHTML",
    "btoa(document.getElementById('pw').value)",
    "encodeURIComponent(document.getElementById('pw').value)",
    "[...document.querySelectorAll('td, p')].map((e) => e.textContent.replace(/\\s/g, ''))",
)


async def test_no_form_of_a_secret_comes_back(client: Client, site: str) -> None:
    page = await call(client, "interact", action="navigate", url=f"{site}/secrets/encoded.html")
    tab = page["tab_id"]
    outs: dict[str, object] = {
        "snapshot": await call(client, "observe", what="page", tab_id=tab),
        "markdown": await call(client, "observe", what="page", format="markdown", tab_id=tab),
        "extract": await scrape(
            client,
            operation="extract",
            selector="main",
            schema={"html": ":scope | html", "text": ":scope", "cells": "td | all"},
            tab_id=tab,
        ),
    }
    for script in SCRIPTS:
        result = await client.call_tool("interact", {"action": "execute_js", "script": script, "tab_id": tab})
        outs[script] = result.content
    leaks = [(what, f) for what, out in outs.items() for f in forms() if f in str(out)]
    assert not leaks, (leaks, outs)
    snap = outs["snapshot"]
    assert isinstance(snap, dict) and "Public reference QUEBEC" in str(snap["text"])  # type: ignore[index]

    result = await client.call_tool(
        "interact", {"action": "screenshot", "format": "png", "max_width": 1920, "tab_id": tab}
    )
    [image] = [c for c in result.content if isinstance(c, ImageContent)]
    seen = ocr(base64.b64decode(image.data))
    assert norm("OSCAR BILLING") in seen and norm("QUEBEC") in seen, seen
    for secret in ("AKIA", "EXAMPLE", "ZQ7RT", "4111", "5500", "0004"):
        assert norm(secret) not in seen, f"{secret} readable in the screenshot:\n{seen}"
