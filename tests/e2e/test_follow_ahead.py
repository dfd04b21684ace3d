"""`follow` does not wait for its check: while the first detail page renders in a background tab (its
picture is served 4 s late, so its load takes that long), the next pages are fetched already, each
once, and used when the check finds that fetching reads the same; a page whose HTML marks a secret comes
back redacted, and one whose script makes a secret is rendered, as its rendered twin would read. Seen in
the engine's own per-command trace (TABPILOT_TRACE), through the real MCP client, extension and pages."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tabpilot.engine.trace import ENV_TRACE
from tests.support.mcp_client import call, scrape

pytestmark = pytest.mark.anyio

ROWS = "table.tickets tr:has(td)"
SCHEMA = {"title": "td a", "link": "td a | url"}
DETAIL = {"owner": ".owner", "points": ".points | number"}


@pytest.fixture(scope="module")
def env(env: dict[str, str]) -> Iterator[dict[str, str]]:
    """The e2e dirs, and a trace file for the browser's native host."""
    yield env | {ENV_TRACE: str(Path(env["TABPILOT_TEST_BASE"]) / "trace.jsonl")}


def follow_commands(env: dict[str, str]) -> list[dict[str, Any]]:
    """The trace lines of the last run that read detail pages, a `fetch_details` as one `fetch_extract`
    line per page it read (when it was asked, how long the pages it went with took)."""
    lines = [json.loads(x) for x in Path(env[ENV_TRACE]).read_text().splitlines() if x.strip()]
    run = max(x["run"] for x in lines if x["cmd"] == "extract_tab")
    mine = [x for x in lines if x["run"] == run]
    together = [
        x | {"cmd": "fetch_extract", "url": u} for x in mine if x["cmd"] == "fetch_details" for u in x["urls"]
    ]
    return [x for x in mine if x["cmd"] in ("fetch_extract", "extract_tab")] + together


async def test_the_next_pages_are_fetched_while_the_first_is_checked(
    client: Client, env: dict[str, str], site: str
) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/follow/ahead.html")
    follow = {"field": "link", "schema": DETAIL, "selector": "main.ticket", "concurrency": 3}
    out = await scrape(client, operation="extract", selector=ROWS, schema=SCHEMA, follow=follow)
    assert [(r["title"], r["owner"], r["points"]) for r in out["data"]] == [
        ("Heavy page", "Barbara", 5),
        ("Printer on fire", "Grace", 13),
        ("Coffee machine empty", "Linus", 2),
    ]
    assert out["metadata"]["follow"] == {"mode": "fetch", "done": 3, "total": 3}
    commands = follow_commands(env)
    [check] = [x for x in commands if x["cmd"] == "extract_tab"]
    assert check["url"] == f"{site}/follow/heavy.html"
    fetched = sorted(x["url"].rsplit("/", 1)[1] for x in commands if x["cmd"] == "fetch_extract")
    assert fetched == ["heavy.html", "t1.html", "t2.html"]  # each page fetched once
    # Pages 2 and 3 were asked for while page 1 was still loading in its tab (not after its check).
    check_end = check["at"] + check["ms"]
    ahead = [x for x in commands if x["cmd"] == "fetch_extract" and "heavy" not in x["url"]]
    assert all(x["at"] < check_end for x in ahead), commands


async def test_pages_fetched_during_the_check_keep_their_secrets_as_rendered(
    client: Client, env: dict[str, str], site: str
) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/follow/ahead-secrets.html")
    # Concurrency 3: beside the check's two reads, one page at a time, each giving its place on once
    # fetched (held until the check ended, the third would wait for it).
    follow = {"field": "link", "schema": DETAIL, "selector": "main.ticket", "concurrency": 3}
    out = await scrape(client, operation="extract", selector=ROWS, schema=SCHEMA, follow=follow)
    assert [(r["title"], r["owner"], r["points"]) for r in out["data"]] == [
        ("Heavy page", "Barbara", 5),
        ("Printer on fire", "Grace", 13),
        ("Has a secret", "Ada [REDACTED]", 5),  # its HTML marks the secret: redacted as fetched
        ("Made secret by its script", "[REDACTED]", 3),  # its script does: rendered instead
    ]
    assert "tok-script-5521" not in json.dumps(out) and "tok-follow-4417" not in json.dumps(out)
    assert out["metadata"]["follow"] == {"mode": "fetch", "done": 4, "total": 4, "rendered": 1}
    commands = follow_commands(env)
    check = next(x for x in commands if x["cmd"] == "extract_tab" and x["url"].endswith("/heavy.html"))
    check_end = check["at"] + check["ms"]
    ahead = [x for x in commands if x["cmd"] == "fetch_extract" and "heavy" not in x["url"]]
    pages = sorted(x["url"].rsplit("/", 1)[1] for x in ahead)
    assert pages == ["script-secret.html", "secret.html", "t1.html"]
    assert all(x["at"] < check_end for x in ahead), commands
    # The page its script makes secret was read in a tab of its own once fetching it was refused.
    rendered = [x["url"].rsplit("/", 1)[1] for x in commands if x["cmd"] == "extract_tab"]
    assert sorted(rendered) == ["heavy.html", "script-secret.html"]
