"""`follow` carried by the ways a scrape runs again: the strategy cache (by id on another list page, and
by URL) and `tabpilot scrape` from a file, as cron runs it, in a dedicated headless profile."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client

from tests.support import procnet
from tests.support.mcp_client import call, scrape

ROWS = "table.tickets tr:has(td)"
SCHEMA = {"title": "td a", "link": "td a | url"}
DETAIL = {"owner": ".owner", "points": ".points | number"}
FOLLOW = {"field": "link", "schema": DETAIL, "selector": "main.ticket", "wait_for": ".owner"}


def details(rows: list[dict[str, object]]) -> list[tuple[object, object, object]]:
    return [(r["title"], r.get("owner"), r.get("points")) for r in rows]


@pytest.mark.anyio
async def test_a_cached_strategy_follows_the_detail_pages_again(client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/follow/list.html")
    first = await scrape(
        client, operation="extract", selector=ROWS, schema=SCHEMA, follow=FOLLOW, options={"limit": 2}
    )
    ex = first["extraction_id"]
    assert details(first["data"]) == [
        ("Printer on fire", "Grace", 13),
        ("Coffee machine empty", "Linus", 2),
    ]

    # Another list of the same kind, by id: the strategy carries the follow, not only the rows.
    await call(client, "interact", action="navigate", url=f"{site}/follow/scripted-first.html")
    by_id = await scrape(client, operation="extract", extraction_id=ex)
    assert by_id["extraction_id"] == ex
    assert details(by_id["data"]) == [
        ("Drawn by a script", "Margaret", 8),
        ("Coffee machine empty", "Linus", 2),
    ]
    assert by_id["metadata"]["follow"]["done"] == 2

    # The first list again, by its URL.
    await call(client, "interact", action="navigate", url=f"{site}/follow/list.html")
    by_url = await scrape(client, operation="extract", use_cache=True)
    assert by_url["extraction_id"] == ex
    assert details(by_url["data"])[:2] == details(first["data"])
    assert by_url["metadata"]["follow"]["mode"] == "fetch"


def test_tabpilot_scrape_follows_the_detail_pages(env: dict[str, str], site: str, tmp_path: Path) -> None:
    request = {
        "operation": "workflow",
        "steps": [
            {"type": "navigate", "url": f"{site}/follow/list.html"},
            {"type": "extract", "selector": ROWS, "schema": SCHEMA, "follow": FOLLOW},
        ],
    }
    file = tmp_path / "tickets.json"
    file.write_text(json.dumps(request))
    out = tmp_path / "tickets.jsonl"
    profile = ["--profile", "cron", "--headless", "--pilot"]
    run = subprocess.run(
        [sys.executable, "-m", "tabpilot.cli", "scrape", str(file), "--out", str(out), *profile],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert details(rows) == [
        ("Printer on fire", "Grace", 13),
        ("Coffee machine empty", "Linus", 2),
        ("Drawn by a script", "Margaret", 8),
        ("Has a secret", "Ada [REDACTED]", 5),
    ]
    assert "tok-follow-4417" not in out.read_text() + run.stderr + run.stdout
    assert not procnet.pids_with_cmdline(env["TABPILOT_DATA_DIR"], "--user-data-dir"), (
        "the run stops its browser"
    )
