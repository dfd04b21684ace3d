"""A next link that is itself a secret (marked by the redaction list) still leads the walk on, but its
address's query is a secret like any other value of a secret element: it shows in no answer and in
no file written (results, the run's journal, logs), though it names no secret-looking parameter and
holds no secret-shaped text. Real Chromium, the real MCP client."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client

from tests.support.logged import Logged, serve_logged
from tests.support.mcp_client import call

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("pilot_on")]

CURSORS = ("ZULUCURSOR2", "ZULUCURSOR3")


def _page(n: int) -> str:
    nxt = f'<a id="next" class="sensitive" href="/list?cursor={CURSORS[n - 1]}">Next</a>' if n < 3 else ""
    return f"<!doctype html><title>List {n}</title><table><tr><td class='n'>N{n}</td></tr></table>{nxt}"


@pytest.fixture(scope="module")
def site() -> Iterator[Logged]:
    pages = {
        "/list": _page(1),
        f"/list?cursor={CURSORS[0]}": _page(2),
        f"/list?cursor={CURSORS[1]}": _page(3),
    }
    with serve_logged(pages) as s:
        yield s


async def test_a_secret_next_links_query_shows_nowhere(
    client: Client, site: Logged, env: dict[str, str]
) -> None:
    await call(client, "interact", action="navigate", url=f"{site.url}/list")
    out = await call(
        client, "interact", action="scrape", operation="extract", selector="tr", schema={"n": ".n"},
        options={"paginate": {"next_selector": "#next", "max_pages": 5, "delay_ms": 0}, "telemetry": True},
    )  # fmt: skip
    assert [r["n"] for r in out["data"]] == ["N1", "N2", "N3"], out
    stored = await call(client, "observe", what="command_result", correlation_id=out["correlation_id"])
    page = await call(client, "observe", what="page")
    data = Path(env["TABPILOT_DATA_DIR"])
    files = {str(p): p.read_text(errors="replace") for p in data.rglob("*") if p.is_file()}
    for cursor in CURSORS:
        for name, text in (
            ("answer", json.dumps(out)),
            ("stored", json.dumps(stored)),
            ("page", json.dumps(page)),
        ):
            assert cursor not in text, (cursor, name, text)
        for path, text in files.items():
            assert cursor not in text, (cursor, path)
