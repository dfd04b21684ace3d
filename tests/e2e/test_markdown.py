"""The page as markdown end to end (`observe {what: "page", format: "markdown"}`) through the real MCP
client in real Chromium: main content only, headings, verbatim code, whole table rows with the header
repeated across chunks, a chunk walk that reassembles the page, secrets absent, scoping and errors."""

from __future__ import annotations

import re
from typing import Any

import pytest
from mcp import Client
from selenium import webdriver

from tabpilot.wire.errors import ErrorCode
from tests.support import pages
from tests.support.mcp_client import call, call_error

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("pilot_on")]

SOURCE = (pages.PAGES / "markdown" / "docs.md").read_text()
LEFT_OUT = ["NAVTEXT", "SIDEBARTEXT", "FOOTERTEXT", "COOKIETEXT", "DIALOGTEXT", "PROMOTEXT", "ARIAHIDDENTEXT"]
SECRETS = ["hunter2-PASSWORD-SECRET", "tok_SENSITIVE_VALUE_42"]
SETTINGS_HEADER = "| Setting | Type | Default | Description |\n| --- | --- | --- | --- |\n"


async def markdown(client: Client, **args: Any) -> dict[str, Any]:
    return await call(client, "observe", what="page", format="markdown", **args)


def _code_blocks(text: str) -> list[str]:
    return re.findall(r"(?ms)^```\w*\n.*?^```$", text)


def _reassemble(chunks: list[dict[str, Any]]) -> str:
    """The chunks joined, less the repeated table headers and reopened code fences."""
    out = ""
    for c in chunks:
        text = c["markdown"]
        note = c.get("note", "")
        if note.startswith("continues a table"):
            text = text.split("\n", 2)[2]
        elif note.startswith("continues a code block"):
            text = text.split("\n", 1)[1]
            out = out[: out.rstrip("\n").rfind("\n") + 1]
        out += text
    return out


async def test_a_docs_page_in_chunks(client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/markdown/docs.html")
    whole = await markdown(client, max_chars=200_000)
    md = whole["markdown"]
    assert whole["chunks"] == 1 and "next" not in whole
    assert whole["title"] == "Tidewater configuration guide"
    assert whole["url"] == f"{site}/markdown/docs.html"
    # Main content only, hidden parts and secrets left out.
    for text in LEFT_OUT + SECRETS + ["SCRIPTTEXT", "Accept"]:
        assert text not in md, text
    assert "[REDACTED]" in md
    # Headings keep their levels, code stays verbatim, table rows and nested lists as in the source.
    assert md.startswith("# Tidewater configuration guide\n")
    for heading in ("## Installing", "### Supported platforms", "#### Example project file"):
        assert f"\n{heading}\n" in md
    for block in _code_blocks(SOURCE):
        assert block in md, block
    for line in SOURCE.splitlines():
        if line.startswith("|") or line.lstrip().startswith("- "):
            assert f"\n{line}\n" in md, line
    assert len(md) <= 1.1 * len(SOURCE)

    # Walk the chunks the way an agent would, following `next`.
    first = await markdown(client, max_chars=1_500)
    walked = [first]
    while "next" in walked[-1]:
        nxt = dict(walked[-1]["next"])
        assert nxt.pop("what") == "page" and nxt.pop("format") == "markdown"
        walked.append(await markdown(client, **nxt))
    n = len(walked)
    assert n > 4 and [c["chunk"] for c in walked] == list(range(1, n + 1))
    assert all(c["chunks"] == n and len(c["markdown"]) <= 1_500 for c in walked)
    assert _reassemble(walked) == md
    table_parts = [c for c in walked if c.get("note", "").startswith("continues a table")]
    assert table_parts, "the 64-row table spans chunks"
    for c in table_parts:
        assert c["markdown"].startswith(SETTINGS_HEADER)
    for c in walked:
        for line in c["markdown"].splitlines():
            assert not line.startswith("|") or line.endswith("|"), line
        assert len(re.findall(r"(?m)^```", c["markdown"])) % 2 == 0


async def test_css_selector_scopes_and_bad_input_is_refused(client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/markdown/docs.html")
    table = await markdown(client, css_selector="table")
    assert table["markdown"].startswith("| Platform | Architecture | Status |\n| --- | --- | --- |\n")
    assert "Installing" not in table["markdown"] and table["chunks"] == 1
    # A selector on page chrome is honoured: the agent asked for it.
    nav = await markdown(client, css_selector="aside.sidebar")
    assert "SIDEBARTEXT" in nav["markdown"]

    bad = await call_error(client, "observe", what="page", format="markdown", css_selector="div[")
    assert bad["error"] == ErrorCode.INVALID_SELECTOR
    none = await call_error(client, "observe", what="page", format="markdown", css_selector="#nope")
    assert none["error"] == ErrorCode.ELEMENT_NOT_FOUND
    past = await call_error(client, "observe", what="page", format="markdown", chunk=99)
    assert past["error"] == ErrorCode.INVALID_PARAMS and past["data"]["chunks"] >= 2
    text = await call_error(client, "observe", what="page", chunk=2)
    assert text["error"] == ErrorCode.INVALID_PARAMS
    # The default format is still the snapshot with refs.
    snap = await call(client, "observe", what="page")
    assert "text" in snap and "refs" in snap


async def test_typed_secrets_never_reach_the_markdown(
    driver: webdriver.Chrome, client: Client, site: str
) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/markdown/docs.html")
    await call(client, "interact", action="fill", selector="input[type=password]", value="typed-PW-9931")
    # The page echoes the typed value into ordinary text, as careless pages do.
    driver.execute_script(
        "const p = document.createElement('p');"
        "p.textContent = 'You typed ' + document.querySelector('input[type=password]').value;"
        "document.querySelector('section.playground').append(p);"
    )
    out = await markdown(client, css_selector="section.playground")
    assert "typed-PW-9931" not in out["markdown"] and "You typed" in out["markdown"]
    for secret in SECRETS:
        assert secret not in out["markdown"]


async def test_without_main_the_densest_block_is_the_content(client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/markdown/nomain.html")
    md = (await markdown(client))["markdown"]
    assert md.startswith("# Release notes\n\nVersion 2.0 reworks the scheduler.")
    assert "- Queues have their own workers.\n" in md
    assert "| Before | After |\n| --- | --- |\n| one pool | a pool per queue |" in md
    # A closed <details> is content a reader can open; CSS-hidden text is not.
    assert "DETAILSTEXT Rename `workers` to `runner.workers`." in md
    for text in ("TOPTEXT", "MENUTEXT", "BOTTOMTEXT", "HIDDENTEXT"):
        assert text not in md, text
