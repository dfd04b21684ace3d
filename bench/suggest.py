"""Suggest benchmark: `python -m bench.suggest [--calls N] [--json]`.

`interact {action: "scrape", operation: "suggest"}` on a generated listing page of about 5,000
elements (a table, a card grid, a result list, navigation, a footer and filler), timed end to end
through MCP, with the page's own time for the digest (metadata.page_ms) and the skeleton's size.
A dedicated headless profile in private directories; the page on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp import StdioServerParameters

from tabpilot.demo.server import serve

from . import pilot
from .client import call_ok, progress, spawn
from .stats import machine_facts, percentile

CHROMIUM = "/usr/bin/chromium"
PAGE = "listing.html"
TARGETS = [("page_ms.p50", 100.0, "ms"), ("mcp_ms.p50", 100.0, "ms"), ("skeleton_bytes", 8_000, "bytes")]


def listing_page(rows: int = 260, cards: int = 150, results: int = 200, filler: int = 500) -> str:
    """A busy listing page: what suggest must look through to find the records (~5,000 elements)."""
    nav = "".join(f'<li><a href="/s{i}">Section {i}</a></li>' for i in range(12))
    body = [
        f'<header class="top"><nav><ul class="menu">{nav}</ul></nav>'
        '<form class="login"><input type="password" name="pw"></form></header>',
        '<main id="main"><h1>Inventory</h1><table class="stock" id="stock"><thead><tr>'
        "<th>SKU</th><th>Name</th><th>Warehouse</th><th>Qty</th><th>Price</th><th>Updated</th></tr></thead><tbody>",
    ]
    for i in range(rows):
        body.append(
            f'<tr><td class="sku">SKU-{i:05d}</td><td><a href="/item/{i}">Item {i}</a></td>'
            f"<td>WH-{i % 7}</td><td>{i * 3 % 500}</td><td>${i * 1.25:,.2f}</td>"
            f"<td>2026-01-{i % 28 + 1:02d}</td></tr>"
        )
    body.append('</tbody></table><div class="grid">')
    for i in range(cards):
        body.append(
            f'<div class="card"><img src="/img/{i}.jpg" alt=""><h3><a href="/p/{i}">Product {i}</a></h3>'
            f'<span class="price">${i + 9}.99</span>'
            f'<div class="meta"><span class="brand">Brand {i % 9}</span></div></div>'
        )
    body.append('</div><ol class="results">')
    for i in range(results):
        body.append(
            f'<li class="result"><a href="/r/{i}">Result {i}</a><p class="snippet">About result {i}</p>'
            f'<span class="date">{i % 30} days ago</span></li>'
        )
    body.append(
        '</ol><nav class="pagination"><a href="?page=2" rel="next">Next</a></nav></main><div class="filler">'
    )
    for i in range(filler):
        body.append(f'<div class="f{i % 13}"><span>note {i}</span></div>')
    body.append('</div><footer><ul class="links">' + nav + "</ul></footer>")
    return (
        '<!doctype html><html><head><meta charset="utf-8"><title>Listing</title>'
        "<style>.grid{display:grid;grid-template-columns:repeat(4,1fr)}</style></head><body>"
        + "".join(body)
        + "</body></html>"
    )


async def series(env: dict[str, str], base: str, calls: int, errlog: Any) -> dict[str, Any]:
    """Suggest `calls` times (after a warm-up) through MCP; wall time, page time, sizes."""
    params = StdioServerParameters(command=pilot.TABPILOT, args=["mcp"], env=env)
    async with spawn(params, errlog) as client:
        await call_ok(client, "interact", {"action": "navigate", "url": f"{base}/{PAGE}"})
        request = {"action": "scrape", "operation": "suggest"}
        for _ in range(5):
            await call_ok(client, "interact", request)
        wall: list[float] = []
        page: list[float] = []
        last: dict[str, Any] = {}
        for _ in range(calls):
            started = time.perf_counter()
            result = await call_ok(client, "interact", request)
            wall.append((time.perf_counter() - started) * 1000)
            last = result.structured_content or {}
            page.append(float(last["metadata"]["page_ms"]))
    top = last["candidates"][0]
    return {
        "wall": sorted(wall),
        "page": sorted(page),
        "elements": last["metadata"]["elements"],
        "skeleton_bytes": last["skeleton"]["bytes"],
        "skeleton_truncated": last["skeleton"]["truncated"],
        "answer_bytes": len(json.dumps(last).encode()),
        "top": {"selector": top["selector"], "rows": top["rows"], "fields": list(top["schema"])},
        "candidates": [(c["selector"], c["rows"]) for c in last["candidates"]],
    }


def _stats(ordered: list[float]) -> dict[str, float]:
    return {
        "p50": round(percentile(ordered, 50), 2),
        "p95": round(percentile(ordered, 95), 2),
        "max": round(ordered[-1], 2),
    }


def run(calls: int) -> dict[str, Any]:
    """Measure; return plain JSON-able results."""
    with tempfile.TemporaryDirectory(prefix="tabpilot-bench-suggest-", ignore_cleanup_errors=True) as tmp:
        root = Path(tmp)
        site = root / "site"
        site.mkdir()
        (site / PAGE).write_text(listing_page())
        (site / "bench.html").write_text("<!doctype html><title>bench</title>")
        with (
            serve(site) as base,
            open(root / "servers.log", "w") as errlog,
            pilot.private_dirs(root / "tabpilot") as env,
        ):
            progress("starting a dedicated headless TabPilot profile")
            with pilot.dedicated_browser(f"{base}/bench.html"):
                progress(f"suggest on a page of ~5,000 elements: {calls} calls")
                found = asyncio.run(series(env, base, calls, errlog))
    summary: dict[str, Any] = {
        "machine": machine_facts(CHROMIUM),
        "calls": calls,
        "elements": found["elements"],
        "mcp_ms": _stats(found["wall"]),
        "page_ms": _stats(found["page"]),
        "skeleton_bytes": found["skeleton_bytes"],
        "skeleton_truncated": found["skeleton_truncated"],
        "answer_bytes": found["answer_bytes"],
        "top": found["top"],
        "candidates": found["candidates"],
    }
    summary["targets"] = []
    for key, limit, unit in TARGETS:
        value: Any = summary
        for part in key.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        summary["targets"].append(
            {"what": key, "limit": limit, "unit": unit, "value": value, "met": value <= limit}
        )
    return summary


def _table(s: dict[str, Any]) -> str:
    lines = [
        f"suggest on a page of {s['elements']:,} elements, {s['calls']} calls",
        f"  end to end through MCP: p50 {s['mcp_ms']['p50']} ms, p95 {s['mcp_ms']['p95']} ms",
        f"  in the page:            p50 {s['page_ms']['p50']} ms, p95 {s['page_ms']['p95']} ms",
        f"  skeleton {s['skeleton_bytes']:,} bytes (truncated: {s['skeleton_truncated']}); "
        f"whole answer {s['answer_bytes']:,} bytes",
        f"  top: {s['top']['selector']} ({s['top']['rows']} rows, fields {', '.join(s['top']['fields'])})",
        "",
    ]
    for t in s["targets"]:
        mark = "met" if t["met"] else "MISSED"
        lines.append(f"target {t['what']} <= {t['limit']} {t['unit']}: {t['value']} ({mark})")
    lines.append(f"machine: {json.dumps(s['machine'])}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Entry point of `python -m bench.suggest`."""
    parser = argparse.ArgumentParser(prog="python -m bench.suggest", description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100, help="measured calls")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    args = parser.parse_args(argv)
    if args.calls < 1:
        parser.error("--calls must be at least 1")
    summary = run(args.calls)
    print(json.dumps(summary, indent=2) if args.json else _table(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
