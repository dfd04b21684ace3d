"""Snapshot and click benchmark: `python -m bench.snapshot [--calls N] [--skip-playwright] [--json]`.

Per page, the bytes of TabPilot's page snapshot (observe what=page, whole page) against Playwright MCP's
ARIA snapshot (browser_snapshot) of the same page, and how many elements each makes addressable;
the time of a snapshot of a page with 1,000 interactive elements (through MCP and on the host's
socket); and a click end to end through MCP (no navigation). A dedicated headless profile in private
directories; pages on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from mcp import StdioServerParameters

from tabpilot.demo.server import serve
from tabpilot.link.client import BrowserConnection
from tabpilot.wire import messages as m

from . import pilot, playwright_mcp
from .client import call_ok, progress, spawn, text_of, timed
from .snapshot_pages import CLICK, COMPARED, MANY, write_pages
from .stats import machine_facts

CHROMIUM = "/usr/bin/chromium"
WHOLE = 200_000  # a budget no compared page reaches: whole snapshots against whole snapshots
TARGETS = [
    ("bytes_ratio_max", 0.3, "x"),
    ("snapshot_1000.mcp_p50_ms", 50.0, "ms"),
    ("click.p50_ms", 5.0, "ms"),
]


def _playwright_yaml(text: str) -> str:
    found = re.search(r"```yaml\n(.*?)```", text, re.S)
    return found.group(1) if found else text


async def tabpilot_series(
    env: dict[str, str], base: str, launched: Any, calls: int, errlog: Any
) -> dict[str, Any]:
    """TabPilot's bytes per page, the 1,000-element snapshot time and the click time."""
    out: dict[str, Any] = {"pages": {}}
    params = StdioServerParameters(command=pilot.TABPILOT, args=["mcp"], env=env)
    async with spawn(params, errlog) as client:

        async def observe(**args: Any) -> dict[str, Any]:
            return (await call_ok(client, "observe", {"what": "page", **args})).structured_content or {}

        for page in COMPARED:
            await call_ok(client, "interact", {"action": "navigate", "url": f"{base}/{page}"})
            snap = await observe(max_chars=WHOLE)
            assert not snap["truncated"], page
            text = snap["text"]
            out["pages"][page] = {"bytes": len(text.encode()), "refs": snap["refs"], "text": text}

        await call_ok(client, "interact", {"action": "navigate", "url": f"{base}/{MANY}"})
        progress(f"TabPilot snapshot of 1,000 interactive elements: {calls} calls each way")
        whole = {"what": "page", "max_chars": WHOLE}
        out["snapshot_1000_mcp"] = await timed(lambda: call_ok(client, "observe", whole), calls, 5)
        budget = {"what": "page"}
        out["snapshot_1000_mcp_default_budget"] = await timed(
            lambda: call_ok(client, "observe", budget), calls, 5
        )
        conn = await BrowserConnection.open(launched.socket)
        try:
            cmd = m.Snapshot(id=0, max_chars=WHOLE)
            out["snapshot_1000_socket"] = await timed(lambda: conn.request(cmd, timeout_s=10), calls, 5)
        finally:
            await conn.aclose()

        await call_ok(client, "interact", {"action": "navigate", "url": f"{base}/{CLICK}"})
        snap = await observe()
        [ref] = re.findall(r"(@e\d+) button", snap["text"])
        click = {"action": "click", "ref": ref, "snapshot": "none"}
        progress(f"TabPilot click and, for scale, execute_js through MCP: {calls} calls each")
        out["click"] = await timed(lambda: call_ok(client, "interact", click), calls, 20)
        one = {"action": "execute_js", "script": "1"}
        out["execute_js"] = await timed(lambda: call_ok(client, "interact", one), calls, 20)
        counted = await call_ok(
            client,
            "interact",
            {"action": "execute_js", "script": "+document.getElementById('inc').dataset.n"},
        )
        assert (counted.structured_content or {}).get("result") == calls + 20, counted.structured_content
    return out


async def playwright_series(work: Path, base: str, errlog: Any) -> dict[str, Any]:
    """Playwright MCP's ARIA snapshot bytes and refs per page."""
    out: dict[str, Any] = {"version": playwright_mcp.version(), "pages": {}}
    async with spawn(playwright_mcp.server_params(work, CHROMIUM), errlog) as client:
        for page in COMPARED:
            await call_ok(client, "browser_navigate", {"url": f"{base}/{page}"})
            yaml = _playwright_yaml(text_of(await call_ok(client, "browser_snapshot", {})))
            out["pages"][page] = {
                "bytes": len(yaml.encode()),
                "refs": len(re.findall(r"\[ref=(?:f\d+)?e\d+\]", yaml)),
                "text": yaml,
            }
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Measure everything; return plain JSON-able results."""
    results: dict[str, Any] = {
        "machine": {**machine_facts(CHROMIUM), "playwright_mcp": playwright_mcp.version()}
    }
    with tempfile.TemporaryDirectory(prefix="tabpilot-bench-snap-", ignore_cleanup_errors=True) as tmp:
        root = Path(tmp)
        site = root / "site"
        site.mkdir()
        write_pages(site)
        with serve(site) as base, open(root / "servers.log", "w") as errlog:
            with pilot.private_dirs(root / "tabpilot") as env:
                progress("starting a dedicated headless TabPilot profile")
                with pilot.dedicated_browser(f"{base}/bench.html") as launched:
                    results["tabpilot"] = asyncio.run(
                        tabpilot_series(env, base, launched, args.calls, errlog)
                    )
            if args.skip_playwright or playwright_mcp.version() is None:
                results["playwright"] = {
                    "skipped": f"not measured; install with: {playwright_mcp.INSTALL_HINT}"
                }
            else:
                progress("Playwright MCP snapshots")
                try:
                    results["playwright"] = asyncio.run(playwright_series(root / "playwright", base, errlog))
                finally:
                    playwright_mcp.kill_leftovers(root / "playwright")
    ratios = {}
    for page, ours in results["tabpilot"]["pages"].items():
        theirs = results["playwright"].get("pages", {}).get(page)
        if theirs:
            ratios[page] = round(ours["bytes"] / theirs["bytes"], 3)
    results["ratios"] = ratios
    if ratios:
        results["bytes_ratio_max"] = max(ratios.values())
        ours = sum(results["tabpilot"]["pages"][p]["bytes"] for p in ratios)
        theirs = sum(results["playwright"]["pages"][p]["bytes"] for p in ratios)
        results["bytes_ratio_all_pages"] = round(ours / theirs, 3)
    return results


def _summary(results: dict[str, Any]) -> dict[str, Any]:
    tp = results["tabpilot"]
    out: dict[str, Any] = {
        "machine": results["machine"],
        "snapshot_1000": {
            "mcp_p50_ms": round(tp["snapshot_1000_mcp"].p50, 2),
            "mcp_default_budget_p50_ms": round(tp["snapshot_1000_mcp_default_budget"].p50, 2),
            "socket_p50_ms": round(tp["snapshot_1000_socket"].p50, 2),
        },
        "click": {"p50_ms": round(tp["click"].p50, 2), "p90_ms": round(tp["click"].p90, 2)},
        "execute_js": {"p50_ms": round(tp["execute_js"].p50, 2)},
        "pages": {},
    }
    for page, ours in tp["pages"].items():
        theirs = results["playwright"].get("pages", {}).get(page, {})
        out["pages"][page] = {
            "tabpilot_bytes": ours["bytes"],
            "playwright_bytes": theirs.get("bytes"),
            "ratio": results["ratios"].get(page),
            "tabpilot_refs": ours["refs"],
            "playwright_refs": theirs.get("refs"),
        }
    for key in ("bytes_ratio_max", "bytes_ratio_all_pages"):
        if key in results:
            out[key] = results[key]
    out["targets"] = []
    for key, limit, unit in TARGETS:
        value: Any = out
        for part in key.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        met = None if value is None else value <= limit
        out["targets"].append({"what": key, "limit": limit, "unit": unit, "value": value, "met": met})
    return out


def _table(summary: dict[str, Any]) -> str:
    lines = [f"{'page':<12} {'TabPilot B':>11} {'Playwright B':>13} {'ratio':>6} {'refs TP/PW':>11}"]
    for page, row in summary["pages"].items():
        pw = row["playwright_bytes"]
        ratio = row["ratio"]
        lines.append(
            f"{page:<12} {row['tabpilot_bytes']:>11,} {'-' if pw is None else f'{pw:,}':>13} "
            f"{'-' if ratio is None else f'{ratio:.2f}':>6} "
            f"{row['tabpilot_refs']:>5}/{row['playwright_refs']}"
        )
    if "bytes_ratio_all_pages" in summary:
        lines.append(f"{'all pages':<12} bytes ratio {summary['bytes_ratio_all_pages']:.2f}")
    s = summary["snapshot_1000"]
    lines += [
        "",
        f"snapshot, 1,000 interactive elements: MCP p50 {s['mcp_p50_ms']} ms (whole page), "
        f"{s['mcp_default_budget_p50_ms']} ms (default 6,000-char budget); "
        f"host socket p50 {s['socket_p50_ms']} ms",
        f"click through MCP (no navigation): p50 {summary['click']['p50_ms']} ms, "
        f"p90 {summary['click']['p90_ms']} ms; execute_js '1' p50 {summary['execute_js']['p50_ms']} ms",
        "",
    ]
    for t in summary["targets"]:
        mark = {True: "met", False: "MISSED", None: "not measured"}[t["met"]]
        lines.append(f"target {t['what']} <= {t['limit']} {t['unit']}: {t['value']} ({mark})")
    m_ = summary["machine"]
    lines.append(f"machine: {json.dumps(m_)}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Entry point of `python -m bench.snapshot`."""
    parser = argparse.ArgumentParser(prog="python -m bench.snapshot", description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200, help="measured calls per latency series")
    parser.add_argument("--skip-playwright", action="store_true", help="measure TabPilot only")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    parser.add_argument("--show", metavar="PAGE", help="also print both snapshots of PAGE")
    args = parser.parse_args(argv)
    results = run(args)
    summary = _summary(results)
    print(json.dumps(summary, indent=2) if args.json else _table(summary))
    if args.show:
        for side in ("tabpilot", "playwright"):
            page = results.get(side, {}).get("pages", {}).get(args.show)
            if page:
                print(f"\n----- {side} {args.show} ({page['bytes']} bytes)\n{page['text']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
