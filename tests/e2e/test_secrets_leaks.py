"""Secrets never leave the page: a hostile admin page (sensitive td, tr, link, button, aria-label,
select, nesting, shadow root, frame, a show-password toggle, console errors quoting a secret) read
through every text channel of the real MCP client in real Chromium."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from tests.support import browser
from tests.support.mcp_client import call, scrape
from tests.support.popup import allow_scripts_on
from tests.support.snap import ref, snapshot

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("pilot_on")]


@pytest.fixture(scope="module", autouse=True)
def _scripts_allowed(chromium: browser.Chromium, site: Any) -> None:  # pyright: ignore[reportUnusedFunction]
    """Pages here hold secrets on purpose; the agent's scripts on them run with the person's consent
    (given in the popup), so what is tested is what those scripts can still see."""
    allow_scripts_on(chromium, site)


SECRETS = (
    "SECRETTD1aaaa",
    "SECRETTR2bbbb",
    "SECRETHREF3cccc",
    "SECRETBTN5eeee",
    "SECRETARIA6ffff",
    "SECRETVAL7gggg",
    "SECRETOPT8hhhh",
    "SECRETNEST9iiii",
    "SECRETPW10jjjj",
    "SECRETFRAME11kkkk",
    "SECRETFRAMEPW12llll",
    "SECRETSHADOW13mmmm",
    # Secret-shaped text no attribute marks.
    "4111 1111 1111 1111",
    "4111-1111-1111-1111",
    "AKIAIOSFODNN7EXAMPLE",
    "ghp_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ",
)


def assert_clean(what: str, out: Any) -> None:
    text = str(out)
    for secret in SECRETS:
        assert secret not in text, f"{secret} leaked through {what}:\n{text}"


async def _hostile(client: Client, site: str) -> str:
    """Open the page, type a password and let the page switch the field to clear text."""
    await call(client, "interact", action="navigate", url=f"{site}/secrets/hostile.html")
    text = (await snapshot(client))["text"]
    await call(
        client, "interact", action="fill", ref=ref(text, "password", "Password"), value="SECRETPW10jjjj"
    )
    await call(client, "interact", action="click", selector="#show")
    shown = await call(client, "interact", action="execute_js", script="document.getElementById('pw').type")
    assert shown["result"] == "text"  # the toggle worked: the field is a text field now
    return (await snapshot(client))["text"]


async def test_snapshots_show_no_secret(client: Client, site: str) -> None:
    text = await _hostile(client, site)
    assert_clean("snapshot", text)
    lines = text.splitlines()
    # What is public still reads, and each secret's place is marked.
    assert "| Public | visible-value" in lines
    assert "| API | [REDACTED]" in lines and "| [REDACTED] | [REDACTED]" in lines
    assert any('link "[REDACTED]" /reset?[REDACTED]' in line for line in lines)
    assert any('button "[REDACTED]"' in line for line in lines)
    assert any('textbox "[REDACTED]" = [REDACTED]' in line for line in lines)
    assert any('select "Account" = [REDACTED]' in line for line in lines)
    # The password field turned text field is still a secret, found by its label.
    assert ref(text, "textbox", "Password")
    assert any('textbox "Password" = [REDACTED]' in line for line in lines)
    assert "shadow public" in text and "frame public" in text
    assert "12345678" in text and "$1,234.56" in text and "2024-05-31" in text
    assert "owner Alice" in text

    for scope in ("#nested", "#vault", "#keys", "#login"):
        part = await snapshot(client, scope=scope)
        assert_clean(f"snapshot scope {scope}", part)
        if scope in ("#nested", "#vault"):
            assert "[REDACTED]" in part["text"]
    await call(
        client,
        "interact",
        action="execute_js",
        script="document.getElementById('nested').append(' more')",
    )
    diff = await snapshot(client, mode="diff")
    assert_clean("snapshot diff", diff)


async def test_markdown_extract_suggest_and_errors_show_no_secret(client: Client, site: str) -> None:
    await _hostile(client, site)
    md = await call(client, "observe", what="page", format="markdown")
    assert_clean("markdown", md)
    assert "visible-value" in str(md) and "[REDACTED]" in str(md)

    rows = await scrape(
        client,
        operation="extract",
        selector="body",
        schema={
            "cells": "td | all",
            "link": "#reset | url",
            "href": "#reset | attr:href",
            "button": "#reveal",
            "aria": "#aria-secret | attr:aria-label",
            "max": "#aria-secret | attr:maxlength",
            "value": "#aria-secret | attr:value",
            "html": "p:has(> #aria-secret) | html",
            "options": "#pick option | all",
            "pick": "#pick",
            "nested": "#nested",
            "pw": "#pw | attr:value",
            "card": "#plain-card",
            "keys": "#plain-key",
            "page": ":scope | html",
        },
    )
    assert_clean("extract", rows)
    [row] = rows["data"]
    assert row["max"] == "40"  # structural attributes stay
    assert row["html"].startswith("<input") and 'maxlength="40"' in row["html"]
    assert 'value="[REDACTED]"' in row["html"]
    assert row["href"] == "/reset?[REDACTED]" and row["link"].endswith("/reset?[REDACTED]")
    assert "visible-value" in row["cells"] and "owner Alice" in row["card"]

    suggest = await call(client, "interact", action="scrape", operation="suggest")
    assert_clean("suggest", suggest)

    errors = await call(client, "observe", what="errors")
    assert_clean("errors", errors)
    messages = [i["message"] for i in errors["items"]]
    assert "page threw [REDACTED]" in messages, messages
    assert any(m.startswith("Error: boom with [REDACTED]") for m in messages), messages


async def test_execute_js_results_are_scrubbed_of_what_the_page_holds(client: Client, site: str) -> None:
    await _hostile(client, site)
    one = await call(
        client, "interact", action="execute_js", script="document.getElementById('td-secret').textContent"
    )
    assert one["result"] == "[REDACTED]" and one["redacted"] == 1
    page = await call(
        client,
        "interact",
        action="execute_js",
        script="({text: document.body.innerText, pw: document.getElementById('pw').value,"
        " card: document.getElementById('plain-card').textContent})",
    )
    assert_clean("execute_js", page)
    assert "visible-value" in page["result"]["text"] and page["redacted"] >= 3
    thrown = await call(
        client,
        "interact",
        action="execute_js",
        script="throw new Error('saw ' + document.getElementById('reveal').textContent)",
    )
    assert thrown["success"] is False and thrown["error"] == "Error: saw [REDACTED]"
    assert_clean("execute_js error", thrown)
    plain = await call(client, "interact", action="execute_js", script="document.title")
    assert plain == {"success": True, "result": "Admin keys"}
