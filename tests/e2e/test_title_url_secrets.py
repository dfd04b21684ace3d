"""Titles and URLs are results too, in real Chromium through the real MCP client: a page whose
<title> holds an AWS key, reached by a redirect to a URL whose query carries an API key and a session
(`?api_key=sk-proj-…&session=…`), shows neither in navigate's answer, observe page, observe tabs, a
scrape's metadata.url, an error's message, nor in data/results/*.json or a recorded workflow."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.logged import Logged, serve_logged
from tests.support.mcp_client import call, call_error

pytestmark = pytest.mark.anyio

AWS = "AKIAQWERTYUIOPASDFGH"
API = "sk-proj-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2"
SESSION = "s3ss10nv4lu3"
LANDED = f"/landed?api_key={API}&session={SESSION}&page=2"
SECRETS = (AWS, API, SESSION)


@pytest.fixture(scope="module")
def pages() -> Iterator[Logged]:
    page = f"<!doctype html><title>Keys {AWS} admin</title><table><tr><td class='n'>row</td></tr></table>"
    with serve_logged({LANDED: page}, {"/go": LANDED}) as served:
        yield served


def _clean(what: str, value: Any) -> None:
    text = value if isinstance(value, str) else json.dumps(value)
    for secret in SECRETS:
        assert secret not in text, (what, text)


async def test_titles_and_urls_are_scrubbed_everywhere(
    client: Any, pages: Logged, env: dict[str, str]
) -> None:
    nav = await call(client, "interact", action="navigate", url=f"{pages.url}/go")
    _clean("navigate", nav)
    assert "[REDACTED]" in nav["url"] and "page=2" in nav["url"], nav
    _clean("observe page", await call(client, "observe", what="page"))
    _clean("observe tabs", await call(client, "observe", what="tabs"))
    out = await call(
        client,
        "interact",
        action="scrape",
        operation="workflow",
        name="keys",
        record=True,
        steps=[
            {"type": "navigate", "url": f"{pages.url}/go"},
            {"type": "extract", "selector": "tr", "schema": {"n": ".n", "t": "title"}},
        ],
        options={"telemetry": True},  # the run's id, to read the result kept again
    )
    _clean("scrape", out)
    kept = await call(client, "observe", what="command_result", correlation_id=out["correlation_id"])
    _clean("command_result", kept)
    # An error that quotes the URL: waiting for what never comes on it.
    err = await call_error(client, "interact", action="wait_for", selector="#never", timeout_ms=300)
    _clean("error", err)
    data = Path(env["TABPILOT_DATA_DIR"])
    files = [*data.glob("results/*.json"), *data.glob("workflows/*.json"), *data.glob("**/*.json")]
    assert any(p.parent.name == "results" for p in files), files
    for path in files:
        _clean(str(path), path.read_text())
