"""Markdown: a generated ~1 MB docs page (headings, paragraphs, tables, nested lists, code, inside site
chrome) read as markdown through MCP (`observe {what: "page", format: "markdown"}`), and the split of
that time: the page's main_content command on the host's socket, the HTML → markdown conversion and the
chunking, each timed alone. Then the size of the docs fixture's markdown against its source markdown."""

from __future__ import annotations

import asyncio
import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tabpilot.link.client import BrowserConnection
from tabpilot.markdown.chunk import split
from tabpilot.markdown.convert import to_markdown
from tabpilot.wire import messages as m

from ..client import call_ok, progress, spawn, timed
from ..session import Options, Session
from ..stats import Timings
from . import Scenario

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "pages" / "markdown"
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


def _local(fn: Callable[[], object], calls: int) -> Timings:
    durations: list[float] = []
    for _ in range(calls):
        started = time.perf_counter()
        fn()
        durations.append(time.perf_counter() - started)
    return Timings.of(durations)


async def series(s: Session, base: str, calls: int) -> dict[str, Any]:
    """End to end through MCP, the page command alone, conversion and chunking; the docs size ratio."""
    out: dict[str, Any] = {}
    launched = s.browser()
    warm = min(calls, 3)
    async with spawn(s.params(), s.errlog) as client:
        first = {"what": "page", "format": "markdown"}
        await call_ok(client, "interact", {"action": "navigate", "url": f"{base}/docs.html"})
        docs = (await call_ok(client, "observe", {**first, "max_chars": 200_000})).structured_content or {}
        out["docs_markdown_chars"] = len(docs["markdown"])

        progress(f"markdown of the 1 MB page through MCP: {calls} calls each")
        # A first read: three editions of the page in turn, so the bridge never has the chunks yet.
        durations: list[float] = []
        for k in range(calls + warm):
            await call_ok(client, "interact", {"action": "navigate", "url": f"{base}/big{k % EDITIONS}.html"})
            started = time.perf_counter()
            await call_ok(client, "observe", first)
            if k >= warm:
                durations.append(time.perf_counter() - started)
        out["mcp_chunk1"] = Timings.of(durations).to_dict()
        chunks = (await call_ok(client, "observe", first)).structured_content or {}
        chunks = int(chunks.get("chunks") or 1)
        # The same, on a page the browser has already styled and laid out (as a page the agent has been
        # looking at is): separates Chromium's first layout of 1 MB from TabPilot's own path.
        rendered: list[float] = []
        settle = {"action": "execute_js", "script": "return document.body.getBoundingClientRect().height"}
        for k in range(calls + warm):
            await call_ok(client, "interact", {"action": "navigate", "url": f"{base}/big{k % EDITIONS}.html"})
            await call_ok(client, "interact", settle)
            started = time.perf_counter()
            await call_ok(client, "observe", first)
            if k >= warm:
                rendered.append(time.perf_counter() - started)
        out["mcp_rendered"] = Timings.of(rendered).to_dict()
        # Walking on: the page is read again, its unchanged HTML finds its chunks converted already.
        later = {**first, "chunk": min(40, chunks)}
        out["mcp_chunk40"] = (await timed(lambda: call_ok(client, "observe", later), calls, warm)).to_dict()
        conn = await BrowserConnection.open(launched.socket)
        try:
            cmd = m.MainContent(id=0)
            out["socket_main_content"] = (
                await timed(lambda: conn.request(cmd, timeout_s=30), calls, warm)
            ).to_dict()
            content = await conn.request(cmd, timeout_s=30)
        finally:
            await conn.aclose()
    html: str = json.loads(bytes(content))["html"]
    out["html_chars"] = len(html)
    md = to_markdown(html)
    out["markdown_chars"] = len(md)
    out["chunks"] = len(split(md, 6_000))
    out["convert"] = _local(lambda: to_markdown(html), calls).to_dict()
    out["chunk"] = _local(lambda: split(md, 6_000), calls).to_dict()
    return out


def run(s: Session, o: Options) -> dict[str, Any]:
    """Write the pages into the session's site and measure."""
    folder, base = s.pages("markdown")
    size = 50_000 if o.smoke else 1_000_000
    for k in range(EDITIONS):
        (folder / f"big{k}.html").write_text(big_page(size, variant=k))
    shutil.copy(FIXTURES / "docs.html", folder / "docs.html")
    out = asyncio.run(series(s, base, 1 if o.smoke else o.runs * 10))
    out["page_bytes"] = len((folder / "big0.html").read_bytes())
    out["docs_source_chars"] = len((FIXTURES / "docs.md").read_text())
    return out


def table(r: dict[str, Any]) -> str:
    """Markdown."""
    lines = [
        f"A {r['page_bytes']:,}-byte page: main content {r['html_chars']:,} characters of HTML → "
        f"{r['markdown_chars']:,} of markdown, {r['chunks']} chunks of 6,000.",
        "",
        "| what | p50 ms | p90 ms |",
        "|---|---|---|",
    ]
    for key, label in (
        ("mcp_chunk1", "MCP first read of the page, chunk 1 (just navigated; three editions in turn)"),
        ("mcp_rendered", "… the same once Chromium has laid the page out"),
        ("mcp_chunk40", "MCP a later chunk of the same page (unchanged HTML reuses its chunks)"),
        (
            "socket_main_content",
            "… the page's main content on the host's socket (walk, serialization, transfer)",
        ),
        ("convert", "… conversion, html-to-markdown"),
        ("chunk", "… chunking"),
    ):
        lines.append(f"| {label} | {r[key]['p50']:,.1f} | {r[key]['p90']:,.1f} |")
    ratio = r["docs_markdown_chars"] / r["docs_source_chars"]
    lines.append(
        f"\nThe docs fixture (tests/fixtures/pages/markdown/docs.html, with navigation, sidebar, footer, "
        f"cookie banner, dialog and a form around it): {r['docs_markdown_chars']:,} characters of markdown "
        f"against {r['docs_source_chars']:,} of source, **{ratio:.3f}×**."
    )
    return "\n".join(lines)


SCENARIO = Scenario(
    "markdown",
    "Markdown",
    "A generated 1 MB docs page (250 sections, each with a 25-row table, a nested list and a code block) "
    'read with `observe {what: "page", format: "markdown"}`; `--runs` × 10 calls.',
    run,
    table,
)
