"""Infinite feeds: one `interact scrape extract` with `options.scroll` through a feed of 200 posts (10
batches of 20, each fetched from the page's server with a 60 ms answer, behind a throttled scroll
listener as the widely used infinite-scroll library has) to its end, each way a feed can end."""

from __future__ import annotations

import asyncio
import shutil
import statistics
import time
from pathlib import Path
from typing import Any

from ..client import call_ok, progress, spawn
from ..session import Options, Session
from . import Scenario

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "pages" / "realfix"
SCHEMA = {"id": ".post-id"}
WAYS: dict[str, dict[str, Any]] = {
    "until_selector (visible end marker)": {"max_scrolls": 30, "until_selector": ".infinite-scroll-last"},
    "no until_selector: the feed's own end notice": {"max_scrolls": 30},
    "no end notice: loader quiet, quiet_ms 500": {"max_scrolls": 30},
    "no end notice: quiet_ms 10000 (a timeout's cost)": {"max_scrolls": 30, "quiet_ms": 10_000},
}
# The feed's query for each way (by default the feed shows its end notice after the last batch).
QUERY = {way: "?no_end=1" for way in WAYS if way.startswith("no end notice")}


async def series(s: Session, base: str, ways: list[str], runs: int) -> dict[str, Any]:
    """Each way `runs` times, alternating; wall ms and rows of each run."""
    out: dict[str, Any] = {way: {"ms": [], "rows": []} for way in ways}
    async with spawn(s.params(), s.errlog) as client:
        for _ in range(runs):
            for way in ways:
                scroll = WAYS[way]
                url = f"{base}/feed.html{QUERY.get(way, '')}"
                await call_ok(client, "interact", {"action": "navigate", "url": url})
                request = {
                    "action": "scrape",
                    "operation": "extract",
                    "selector": ".posts .post",
                    "schema": SCHEMA,
                    "options": {"scroll": scroll, "timeout_ms": 15_000},
                    "wait_ms": 120_000,
                }
                started = time.perf_counter()
                result = await call_ok(client, "interact", request)
                out[way]["ms"].append(round((time.perf_counter() - started) * 1000))
                out[way]["rows"].append(len((result.structured_content or {}).get("data") or []))
    return out


def run(s: Session, o: Options) -> dict[str, Any]:
    """Copy the feed into the session's site and scroll it each way."""
    folder, base = s.pages("feed")
    for name in ("feed.html", "batch.json"):
        shutil.copy(FIXTURES / name, folder / name)
    ways = list(WAYS)[1:2] if o.smoke else list(WAYS)
    runs = 1 if o.smoke else o.runs
    progress(f"a 200-post feed, {len(ways)} ways, {runs} runs each")
    return asyncio.run(series(s, base, ways, runs))


def table(r: dict[str, Any]) -> str:
    """Markdown."""
    lines = ["| how the feed ends | best ms | median ms | posts read |", "|---|---|---|---|"]
    for way, v in r.items():
        rows = ", ".join(str(n) for n in sorted(set(v["rows"])))
        lines.append(f"| {way} | {min(v['ms']):,} | {statistics.median(v['ms']):,.0f} | {rows} |")
    return "\n".join(lines)


SCENARIO = Scenario(
    "feed",
    "Infinite feeds",
    "A 200-post feed that loads 10 batches of 20 as an infinite-scroll library does, scrolled to its end in "
    "one call, each way a feed can end; best and median of `--runs`.",
    run,
    table,
)
