"""No oracles: whatever the agent can observe (success or failure, counts, conditions) answers the same
for a right and a wrong guess of a redacted value, through the real MCP client in real Chromium."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from tabpilot.wire.errors import ErrorCode
from tests.support import browser
from tests.support.mcp_client import call, call_error, scrape
from tests.support.popup import allow_scripts_on
from tests.support.snap import snapshot

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("pilot_on")]


@pytest.fixture(scope="module", autouse=True)
def _scripts_allowed(chromium: browser.Chromium, site: Any) -> None:  # pyright: ignore[reportUnusedFunction]
    """The fixture pages hold a password field the page filled in; the agent's scripts on them run
    with the person's consent (given in the popup), as this module does not test that consent."""
    allow_scripts_on(chromium, site)


TOKEN = "tok_85bba507c1"
# The right prefix of the token, and wrong guesses of the same shape.
GUESSES = ("tok_85b", "tok_00a", TOKEN, "tok_99999999zz")


async def test_guessing_the_token_by_wait_for_text_gets_nowhere(client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/secrets/token.html")
    for guess in GUESSES:
        err = await call_error(client, "interact", action="wait_for", text=guess, timeout_ms=300)
        assert err["error"] == ErrorCode.TIMEOUT, (guess, err)
    # Public text is still found at once, and so is the redaction mark (the secret's presence).
    assert (await call(client, "interact", action="wait_for", text="ready"))["text"] == "ready"
    await call(client, "interact", action="wait_for", text="Token: [REDACTED]", timeout_ms=300)


async def test_guessing_the_token_by_selectors_gets_nowhere(client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/secrets/token.html")
    expected = (
        ErrorCode.ELEMENT_NOT_FOUND,
        ErrorCode.TIMEOUT,
        ErrorCode.ELEMENT_NOT_FOUND,
        [],
        [{"hit": None}],
    )
    for guess in GUESSES:
        for sel in (
            f"input[value^='{guess}']",
            f"input[*|value^='{guess}']",
            f"input[v\\61 lue^='{guess}']",
            f"input[VALUE='{guess}' i]",
            f"input[value='{guess}']",
            f"p:has(> [value*='{guess}'])",
            f"a[href*='{guess}']",
            f"[title^='{guess}']",
        ):
            scoped = await call_error(client, "observe", what="page", scope=sel)
            waited = await call_error(
                client, "interact", action="wait_for", selector=sel, state="attached", timeout_ms=300
            )
            clicked = await call_error(client, "interact", action="click", selector=sel)
            rows = await scrape(client, operation="extract", selector=sel, schema={"id": ":scope | attr:id"})
            field = await scrape(
                client, operation="extract", selector="body", schema={"hit": f"{sel} | attr:id"}
            )
            got = (scoped["error"], waited["error"], clicked["error"], rows["data"], field["data"])
            assert got == expected, (sel, got)
    # Presence still works: the secret input is there, found by a structural attribute.
    assert (await snapshot(client, scope="input[size='30']"))["text"]
    assert (await snapshot(client, scope="[value]"))["text"]


async def test_workflow_conditions_cannot_test_a_secret(client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/secrets/token.html")
    seen = []
    for guess in GUESSES:
        out = await scrape(
            client,
            operation="workflow",
            steps=[
                {
                    "type": "execute_js",
                    "script": "'matched'",
                    "save_as": "hit",
                    "if": {"exists": f"input[value^='{guess}']"},
                },
                {"type": "extract", "selector": "#state", "schema": {"state": ":scope"}},
            ],
        )
        seen.append(str(out["data"]))
    assert len(set(seen)) == 1 and "matched" not in seen[0], seen


FLIP_GUESSES = ("PWVAL", "PWXYZ", "PWVAL7311", "QQQ")


async def test_a_field_only_remembered_as_secret_answers_no_selector(client: Client, site: str) -> None:
    # The page shows the password as text and strips its id: no selector marks it, only the memory of
    # the page agent that watched from document_start. Every answer is the same for every guess.
    await call(client, "interact", action="navigate", url=f"{site}/secrets/token_flip.html")
    seen: set[str] = set()
    for guess in FLIP_GUESSES:
        got = []
        for sel in (
            f"input[value^='{guess}']",
            f"p:has(> input[value^='{guess}'])",
            f"[data-kind=code][v\\61 lue^='{guess}']",
            f"input[*|value^='{guess}']",
            f"h1 ~ p > [value*='{guess}' i]",
        ):
            scoped = await client.call_tool("observe", {"what": "page", "scope": sel})
            waited = await client.call_tool(
                "interact",
                {"action": "wait_for", "selector": sel, "state": "attached", "timeout_ms": 300},
            )
            clicked = await client.call_tool("interact", {"action": "click", "selector": sel})
            rows = await scrape(client, operation="extract", selector=sel, schema={"k": ":scope | attr:size"})
            got.append((scoped.is_error, waited.is_error, clicked.is_error, rows["data"]))
        flow = await scrape(
            client,
            operation="workflow",
            steps=[
                {
                    "type": "execute_js",
                    "script": "'matched'",
                    "save_as": "hit",
                    "if": {"exists": f"p:has(> input[value^='{guess}'])"},
                },
                {"type": "extract", "selector": "#state", "schema": {"state": ":scope"}},
            ],
        )
        got.append(str(flow["data"]))
        seen.add(repr(got))
    assert len(seen) == 1, seen
    assert "matched" not in next(iter(seen))
    snap = await call(client, "observe", what="page")
    assert "PWVAL" not in snap["text"] and "[REDACTED]" in snap["text"], snap["text"]
