"""Titles and URLs written to files go through the same scrubbing as results, in real Chromium through
the real MCP client: a page reached by a redirect to a URL whose query carries an API key and a session,
whose title holds an AWS key, whose script throws an error quoting a key, and which asks for a missing
picture and links its next page with key-shaped query values, leaves none of them in the answer's
telemetry summary, the engine's trace (TABPILOT_TRACE), the host's and the bridge's logs, or the
results on disk."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tabpilot.engine.trace import ENV_TRACE
from tests.support.logged import Logged, serve_logged
from tests.support.mcp_client import call, mcp_client

pytestmark = pytest.mark.anyio

AWS = "AKIAQWERTYUIOPASDFGH"
API = "sk-proj-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2"
SESSION = "s3ss10nv4lu3"
THROWN = "sk-proj-Thr0wnK3yAbCdEfGh1jK2"
PICTURE = "sk-proj-P1ctur3K3yAbCdEfGh1jK"
NEXT = "sk-proj-N3xtP4g3K3yAbCdEfGh1j"
SECRETS = (AWS, API, SESSION, THROWN, PICTURE, NEXT)
LANDED = f"/landed?api_key={API}&session={SESSION}&page=2"


@pytest.fixture(scope="module")
def env(env: dict[str, str]) -> Iterator[dict[str, str]]:
    """The e2e dirs, and a trace file for the browser's native host (so this module has its own)."""
    yield env | {ENV_TRACE: str(Path(env["TABPILOT_TEST_BASE"]) / "trace.jsonl")}


@pytest.fixture(scope="module")
def pages() -> Iterator[Logged]:
    page = f"""<!doctype html><title>Keys {AWS} admin</title>
      <table><tr><td class="n">row</td></tr></table><img src="/missing.png?ref={PICTURE}">
      <a id="next" href="/more?ref={NEXT}">next</a>
      <script>setTimeout(() => {{ throw new Error('bad key {THROWN}'); }}, 0)</script>"""
    more = "<!doctype html><title>More</title><table><tr><td class='n'>more</td></tr></table>"
    with serve_logged({LANDED: page, f"/more?ref={NEXT}": more}, {"/go": LANDED}) as served:
        yield served


def _leaks(text: str) -> list[str]:
    return [s for s in SECRETS if s in text]


async def test_files_and_telemetry_are_scrubbed_like_results(
    pilot_on: None, env: dict[str, str], pages: Logged
) -> None:
    steps = [
        {"type": "navigate", "url": f"{pages.url}/go"},
        {"type": "wait", "selector": "td.n"},
        {
            "type": "extract",
            "selector": "tr",
            "schema": {"n": ".n"},
            "options": {"paginate": {"next_selector": "#next", "max_pages": 3}},
        },
    ]
    async with mcp_client(env) as client:
        # With the run's account, its telemetry summary included.
        options = {"telemetry": True}
        out = await call(
            client, "interact", action="scrape", operation="workflow", steps=steps, options=options
        )
        telemetry = out["metadata"].get("telemetry") or {}
        # The summary is there and names the failures, scrubbed (not left out).
        assert telemetry.get("failed_requests", 0) >= 1 and telemetry.get("first_failures"), out["metadata"]
        assert _leaks(json.dumps(out)) == [], out
        # Something for the bridge's log to quote: an error naming the page's URL.
        await call(client, "observe", what="page")
    base = Path(env["TABPILOT_TEST_BASE"])
    trace = Path(env[ENV_TRACE]).read_text()
    assert "/more?ref=" in trace, trace  # the next page was fetched or loaded: its URL is traced
    assert _leaks(trace) == [], trace
    state = Path(env["TABPILOT_STATE_DIR"])
    data = Path(env["TABPILOT_DATA_DIR"])
    files = [*(state / "log").glob("*.log*"), *data.rglob("*.json"), *base.glob("*.jsonl")]
    assert any(p.name == "host.log" for p in files), files
    for path in files:
        assert _leaks(path.read_text(errors="replace")) == [], path
