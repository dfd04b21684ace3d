"""Markdown benchmark: `python -m bench.markdown [--calls N] [--json]`.

A generated ~1 MB docs page (headings, paragraphs, tables, nested lists, code, plus site chrome) read
as markdown end to end through MCP (`observe {what: "page", format: "markdown"}`), and the split of
that time: the page's main_content command on the host's socket (extension walk, serialization,
transfer), the HTML->markdown conversion and the chunking, each timed alone in this process. Then the
size of the markdown of the docs fixture against its source markdown. A dedicated headless profile in
private directories; pages on 127.0.0.1.
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
from tabpilot.link.client import BrowserConnection
from tabpilot.markdown.chunk import split
from tabpilot.markdown.convert import to_markdown
from tabpilot.wire import messages as m

from . import pilot
from .client import call_ok, progress, spawn, timed
from .stats import Timings, machine_facts

CHROMIUM = "/usr/bin/chromium"
FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "pages" / "markdown"
TARGET_MS = 300.0
TARGET_RATIO = 1.1
EDITIONS = 3


def big_page(target_bytes: int = 1_000_000, variant: int = 0) -> str:
    """A docs page of about `target_bytes` of HTML: many sections of varied blocks inside site chrome."""
    sections: list[str] = []
    size = 0
    k = 0
    while size < target_bytes:
        rows = "".join(
            f"<tr><td><code>opt.{k}.{r}</code></td><td>integer</td><td>{r * 7}</td>"
            f"<td>Sets how many <em>things</em> section {k} keeps (row {r}).</td></tr>"
            for r in range(25)
        )
        section = (
            f'<section id="s{k}"><h2>Section {k} of edition {variant}</h2>'
            f"<p>Paragraph {k} explains what the settings below do, with a "
            f'<a href="/docs/s{k}">link</a> and <strong>bold</strong> words. '
            "It has several sentences. Each one is ordinary prose of the kind docs pages carry.</p>"
            f"<h3>Options of section {k}</h3>"
            "<table><thead><tr><th>Name</th><th>Type</th><th>Default</th><th>Meaning</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>"
            "<ul><li>first point<ul><li>nested point<ul><li>deepest point</li></ul></li></ul></li>"
            "<li>second point</li></ul>"
            f'<pre><code class="language-python">def handler_{k}(event):\n'
            '    """Handle one event."""\n\n    if event.kind == "# not a heading":\n'
            "        return None\n    return event.value * 2\n</code></pre></section>"
        )
        sections.append(section)
        size += len(section)
        k += 1
    chrome_nav = "".join(f'<li><a href="#s{i}">Section {i}</a></li>' for i in range(k))
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>Big docs page</title></head><body>"
        f"<header><nav><ul>{chrome_nav}</ul></nav></header><main><h1>Big docs page</h1>{''.join(sections)}"
        "</main><footer><p>Footer</p></footer></body></html>"
    )


def _local(fn: Any, calls: int) -> Timings:
    durations: list[float] = []
    for _ in range(calls):
        started = time.perf_counter()
        fn()
        durations.append(time.perf_counter() - started)
    return Timings.of(durations)


async def series(env: dict[str, str], base: str, launched: Any, calls: int, errlog: Any) -> dict[str, Any]:
    """End to end through MCP, the page command alone, conversion and chunking; the docs size ratio."""
    out: dict[str, Any] = {}
    params = StdioServerParameters(command=pilot.TABPILOT, args=["mcp"], env=env)
    async with spawn(params, errlog) as client:
        first = {"what": "page", "format": "markdown"}
        await call_ok(client, "interact", {"action": "navigate", "url": f"{base}/docs.html"})
        docs = (await call_ok(client, "observe", {**first, "max_chars": 200_000})).structured_content or {}
        out["docs_markdown_chars"] = len(docs["markdown"])

        progress(f"markdown of the 1 MB page through MCP: {calls} calls each")
        # A first read: three editions of the page in turn, so the bridge never has the chunks yet.
        durations: list[float] = []
        for k in range(calls + 3):
            await call_ok(client, "interact", {"action": "navigate", "url": f"{base}/big{k % EDITIONS}.html"})
            started = time.perf_counter()
            await call_ok(client, "observe", first)
            if k >= 3:
                durations.append(time.perf_counter() - started)
        out["mcp_chunk1"] = Timings.of(durations)
        # The same, on a page the browser has already styled and laid out (as a page the agent has been
        # looking at is): separates Chromium's first layout of 1 MB from TabPilot's own path.
        rendered: list[float] = []
        settle = {"action": "execute_js", "script": "return document.body.getBoundingClientRect().height"}
        for k in range(calls + 3):
            await call_ok(client, "interact", {"action": "navigate", "url": f"{base}/big{k % EDITIONS}.html"})
            await call_ok(client, "interact", settle)
            started = time.perf_counter()
            await call_ok(client, "observe", first)
            if k >= 3:
                rendered.append(time.perf_counter() - started)
        out["mcp_rendered"] = Timings.of(rendered)
        # Walking on: the page is read again, its unchanged HTML finds its chunks converted already.
        later = {**first, "chunk": 40}
        out["mcp_chunk40"] = await timed(lambda: call_ok(client, "observe", later), calls, 3)
        conn = await BrowserConnection.open(launched.socket)
        try:
            cmd = m.MainContent(id=0)
            out["socket_main_content"] = await timed(lambda: conn.request(cmd, timeout_s=30), calls, 3)
            content = await conn.request(cmd, timeout_s=30)
        finally:
            await conn.aclose()
    html: str = json.loads(bytes(content))["html"]
    out["html_chars"] = len(html)
    md = to_markdown(html)
    out["markdown_chars"] = len(md)
    out["chunks"] = len(split(md, 6_000))
    out["convert"] = _local(lambda: to_markdown(html), calls)
    out["chunk"] = _local(lambda: split(md, 6_000), calls)
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Measure everything; return plain JSON-able results."""
    results: dict[str, Any] = {"machine": machine_facts(CHROMIUM)}
    with tempfile.TemporaryDirectory(prefix="tabpilot-bench-md-", ignore_cleanup_errors=True) as tmp:
        root = Path(tmp)
        site = root / "site"
        site.mkdir()
        for k in range(EDITIONS):
            page = big_page(variant=k)
            (site / f"big{k}.html").write_text(page)
        shutil.copy(FIXTURES / "docs.html", site / "docs.html")
        results["page_bytes"] = len(page.encode())
        with (
            serve(site) as base,
            open(root / "servers.log", "w") as errlog,
            pilot.private_dirs(root / "tabpilot") as env,
        ):
            progress("starting a dedicated headless TabPilot profile")
            with pilot.dedicated_browser(f"{base}/docs.html") as launched:
                results["tabpilot"] = asyncio.run(series(env, base, launched, args.calls, errlog))
    source = len((FIXTURES / "docs.md").read_text())
    results["docs_ratio"] = round(results["tabpilot"]["docs_markdown_chars"] / source, 3)
    results["docs_source_chars"] = source
    return results


def _summary(results: dict[str, Any]) -> dict[str, Any]:
    tp = results["tabpilot"]
    ms = {
        k: tp[k].to_dict()
        for k in ("mcp_chunk1", "mcp_rendered", "mcp_chunk40", "socket_main_content", "convert", "chunk")
    }
    p50 = tp["mcp_chunk1"].p50
    return {
        "machine": results["machine"],
        "page_bytes": results["page_bytes"],
        "main_content_html_chars": tp["html_chars"],
        "markdown_chars": tp["markdown_chars"],
        "chunks_of_6000": tp["chunks"],
        "ms": ms,
        "docs": {
            "markdown_chars": tp["docs_markdown_chars"],
            "source_chars": results["docs_source_chars"],
            "ratio": results["docs_ratio"],
        },
        "targets": [
            {
                "what": "1 MB page, MCP p50 ms",
                "limit": TARGET_MS,
                "value": round(p50, 1),
                "met": p50 <= TARGET_MS,
            },
            {
                "what": "docs markdown / source markdown",
                "limit": TARGET_RATIO,
                "value": results["docs_ratio"],
                "met": results["docs_ratio"] <= TARGET_RATIO,
            },
        ],
    }


def _table(s: dict[str, Any]) -> str:
    lines = [
        f"page {s['page_bytes']:,} B of HTML -> main content {s['main_content_html_chars']:,} chars of HTML "
        f"-> {s['markdown_chars']:,} chars of markdown, {s['chunks_of_6000']} chunks of 6,000",
        f"{'what':<44} {'p50 ms':>8} {'p90 ms':>8}",
    ]
    names = {
        "mcp_chunk1": "MCP observe page markdown, first read",
        "mcp_rendered": "  the same once the page has been laid out",
        "mcp_chunk40": "MCP the same page's chunk 40 (chunks reused)",
        "socket_main_content": "  page: main_content on the host socket",
        "convert": "  conversion (html-to-markdown)",
        "chunk": "  chunking",
    }
    for key, label in names.items():
        t = s["ms"][key]
        lines.append(f"{label:<44} {t['p50']:>8.1f} {t['p90']:>8.1f}")
    d = s["docs"]
    lines.append(
        f"docs.html markdown {d['markdown_chars']:,} chars / docs.md {d['source_chars']:,} = {d['ratio']}"
    )
    for t in s["targets"]:
        lines.append(f"target {t['what']} <= {t['limit']}: {t['value']} ({'met' if t['met'] else 'MISSED'})")
    lines.append(f"machine: {json.dumps(s['machine'])}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Entry point of `python -m bench.markdown`."""
    parser = argparse.ArgumentParser(prog="python -m bench.markdown", description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=30, help="measured calls per series")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    args = parser.parse_args(argv)
    summary = _summary(run(args))
    print(json.dumps(summary, indent=2) if args.json else _table(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
