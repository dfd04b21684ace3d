"""Markdown reads what a page shows in its shadow roots, open and closed (slotted light content where
its slot is), as snapshot and extract do, and every redaction holds there: a marked span, a secret
cell of a table, a secret inside a code block, secret-shaped text, a password's value the page
copied into plain text before showing the field as text, a closed root within a closed root, a host
that is itself a secret, a secret light element slotted into a root, and a code block whose element
shows a root of its own (read as shown, its secret masked). Real Chromium, the real MCP client."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.support.mcp_client import call

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("pilot_on")]

SHOWN = (
    "LIMA OPEN HEADING",
    "Open text [REDACTED] ends",
    "OSCAR SLOTTED",
    "Key [REDACTED] here",
    "copied [REDACTED]",
    "MIKE CLOSED TEXT",
    "NOVEMBER ROW",
    "line [REDACTED] end",
    "VICTOR PUBLIC",
    "QUEBEC NESTED [REDACTED]",
    "ROMEO AROUND [REDACTED] PAPA LIGHT",
    "start SIERRA SHOWN [REDACTED] UNIFORM SLOTTED finish",
)
SECRETS = (
    "ECHOOPENSPAN5",
    "AKIAIOSFODNN7EXAMPLE",
    "FOXTROTCOPY6",
    "GOLFCLOSED7",
    "HOTELCODE8",
    "INDIASLOTTED9",
    "JULIETNESTED10",
    "KILOINHOST11",
    "TANGOCODE12",
)


async def test_markdown_reads_roots_and_masks_their_secrets(client: Client, site: str) -> None:
    url = f"{site}/secrets/markdown_roots.html"
    tab = (await call(client, "interact", action="navigate", url=url))["tab_id"]
    out = await call(client, "observe", what="page", format="markdown", tab_id=tab)
    text = out["markdown"]
    for shown in SHOWN:
        assert shown in text, (shown, text)
    order = [text.index(s) for s in ("LIMA OPEN HEADING", "OSCAR SLOTTED", "MIKE CLOSED TEXT")]
    assert order == sorted(order), text
    for secret in SECRETS:
        assert secret not in str(out), (secret, text)
