"""Infinite-feed benchmark: `python -m bench.feed [--runs N] [--json]`.

One `interact {action: "scrape"}` that scrolls a feed of 200 posts (10 batches of 20, each fetched from
the page's server with a 60 ms answer, a throttled scroll listener as the widely used infinite-scroll
library has) to its end: with `until_selector` on the library's end marker (hidden until the end),
without it (the feed's own "End of content" notice ends it), on a feed that shows no end notice (the
end is the loader's quiet: no row and no request in flight for quiet_ms), and with quiet_ms 10,000 for
contrast (what the final wait cost when the feed ended at the timeout). Best and median of N runs,
through MCP, in a dedicated headless profile; the page on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp import StdioServerParameters

from tabpilot.demo.server import serve

from . import pilot
from .client import call_ok, progress, spawn
from .stats import machine_facts

CHROMIUM = "/usr/bin/chromium"
FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "pages" / "realfix"
SCHEMA = {"id": ".post-id"}
WAYS: dict[str, dict[str, Any]] = {
    "until_selector (visible end marker)": {"max_scrolls": 30, "until_selector": ".infinite-scroll-last"},
    "no until_selector: the feed's own end notice": {"max_scrolls": 30},
    "no end notice: loader quiet, quiet_ms 500": {"max_scrolls": 30},
    "no end notice: quiet_ms 10000 (a timeout's cost)": {"max_scrolls": 30, "quiet_ms": 10_000},
}
# The feed's query for each way (by default the feed shows its end notice after the last batch).
QUERY = {way: "?no_end=1" for way in WAYS if way.startswith("no end notice")}


async def series(env: dict[str, str], base: str, runs: int, errlog: Any) -> dict[str, Any]:
    """Each way `runs` times, alternating; wall ms and rows of each run."""
    params = StdioServerParameters(command=pilot.TABPILOT, args=["mcp"], env=env)
    out: dict[str, Any] = {way: {"ms": [], "rows": []} for way in WAYS}
    async with spawn(params, errlog) as client:
        for _ in range(runs):
            for way, scroll in WAYS.items():
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


def run(runs: int) -> dict[str, Any]:
    """Measure; return plain JSON-able results."""
    with tempfile.TemporaryDirectory(prefix="tabpilot-bench-feed-", ignore_cleanup_errors=True) as tmp:
        root = Path(tmp)
        site = root / "site"
        site.mkdir()
        for name in ("feed.html", "batch.json"):
            shutil.copy(FIXTURES / name, site / name)
        (site / "bench.html").write_text("<!doctype html><title>bench</title>")
        with (
            serve(site) as base,
            open(root / "servers.log", "w") as errlog,
            pilot.private_dirs(root / "tabpilot") as env,
        ):
            progress("starting a dedicated headless TabPilot profile")
            with pilot.dedicated_browser(f"{base}/bench.html"):
                progress(f"a 200-post feed, {len(WAYS)} ways, {runs} runs each")
                found = asyncio.run(series(env, base, runs, errlog))
    ways = {
        way: {"best_ms": min(v["ms"]), "median_ms": sorted(v["ms"])[len(v["ms"]) // 2], "rows": v["rows"]}
        for way, v in found.items()
    }
    return {"machine": machine_facts(CHROMIUM), "runs": runs, "ways": ways}


def main(argv: list[str] | None = None) -> int:
    """Entry point of `python -m bench.feed`."""
    parser = argparse.ArgumentParser(prog="python -m bench.feed", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs of each way")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    summary = run(args.runs)
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(f"a 200-post infinite feed scraped in one call, {args.runs} runs each (ms)")
    for way, v in summary["ways"].items():
        print(f"  {way:46} best {v['best_ms']:>6}  median {v['median_ms']:>6}  rows {v['rows']}")
    print(f"machine: {json.dumps(summary['machine'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
