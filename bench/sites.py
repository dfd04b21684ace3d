"""What the allowed-sites check costs a command: `python -m bench.sites [--calls N] [--rounds R] [--json]`.

execute_js "1" through MCP in a dedicated headless profile, launched alternately with every site
allowed (the check reads an in-memory mirror) and with `--sites` (one more tabs.get per command),
R rounds each, so that load from other work on the machine falls on both alike.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from mcp import StdioServerParameters

from tabpilot.browser.launch import launch_profile
from tabpilot.demo.server import serve

from . import pilot
from .client import call_ok, progress, spawn, timed, tool_call
from .stats import machine_facts

CHROMIUM = "/usr/bin/chromium"


async def _series(env: dict[str, str], url: str, calls: int, errlog: Any) -> dict[str, float | int]:
    params = StdioServerParameters(command=pilot.TABPILOT, args=["mcp"], env=env)
    async with spawn(params, errlog) as client:
        await call_ok(client, "interact", {"action": "navigate", "url": url})
        call = tool_call(client, "interact", {"action": "execute_js", "script": "1"})
        return (await timed(call, calls, 50)).to_dict()


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Measure; plain JSON-able results."""
    results: dict[str, Any] = {"machine": machine_facts(CHROMIUM), "all_sites": [], "only_sites": []}
    with tempfile.TemporaryDirectory(prefix="tabpilot-bench-sites-", ignore_cleanup_errors=True) as tmp:
        root = Path(tmp)
        site = root / "site"
        site.mkdir()
        (site / "page.html").write_text("<!doctype html><title>sites</title><p>bench</p>")
        with (
            serve(site) as base,
            open(root / "servers.log", "w") as errlog,
            pilot.private_dirs(root / "tabpilot") as env,
        ):
            url = f"{base}/page.html"
            for round_ in range(args.rounds):
                for mode, sites in (("all_sites", None), ("only_sites", [urlsplit(base).netloc])):
                    progress(f"round {round_ + 1}: {mode}")
                    launched = launch_profile(pilot.PROFILE, headless=True, pilot=True, sites=sites, url=url)
                    try:
                        results[mode].append(asyncio.run(_series(env, url, args.calls, errlog)))
                    finally:
                        launched.stop()
    for mode in ("all_sites", "only_sites"):
        results[f"{mode}_p50_median"] = statistics.median(r["p50"] for r in results[mode])
    return results


def _table(results: dict[str, Any]) -> str:
    lines = ["| scope | p50 ms per round | p99 ms per round | median p50 |", "|---|---|---|---|"]
    for mode in ("all_sites", "only_sites"):
        p50 = ", ".join(f"{r['p50']:.2f}" for r in results[mode])
        p99 = ", ".join(f"{r['p99']:.1f}" for r in results[mode])
        lines.append(f"| {mode} | {p50} | {p99} | {results[f'{mode}_p50_median']:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Entry point of `python -m bench.sites`."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.sites", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument("--calls", type=int, default=500, help="execute_js calls per series")
    parser.add_argument("--rounds", type=int, default=3, help="launches of each scope, alternating")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    args = parser.parse_args(argv)
    results = run(args)
    print(json.dumps(results, indent=2) if args.json else _table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
