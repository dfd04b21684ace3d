"""Page snapshots: the bytes of TabPilot's whole-page snapshot (`observe what=page`) against Playwright
MCP's ARIA snapshot (`browser_snapshot`) of the same pages, with how many elements each makes addressable;
the time of a snapshot of a page with 1,000 interactive elements (through MCP and on the host's
socket); and a click by ref through MCP (no navigation)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from tabpilot.link.client import BrowserConnection
from tabpilot.wire import messages as m

from .. import playwright_mcp
from ..client import call_ok, progress, spawn, text_of, timed
from ..session import CHROMIUM, Options, Session
from . import Scenario
from .snapshot_pages import CLICK, COMPARED, MANY, write_pages

WHOLE = 200_000  # a budget no compared page reaches: whole snapshots against whole snapshots


def _playwright_yaml(text: str) -> str:
    found = re.search(r"```yaml\n(.*?)```", text, re.S)
    return found.group(1) if found else text


async def tabpilot_series(s: Session, base: str, pages: list[str], calls: int) -> dict[str, Any]:
    """TabPilot's bytes per page, the 1,000-element snapshot time and the click time."""
    out: dict[str, Any] = {"pages": {}}
    launched = s.browser()
    async with spawn(s.params(), s.errlog) as client:

        async def observe(**args: Any) -> dict[str, Any]:
            return (await call_ok(client, "observe", {"what": "page", **args})).structured_content or {}

        for page in pages:
            await call_ok(client, "interact", {"action": "navigate", "url": f"{base}/{page}"})
            snap = await observe(max_chars=WHOLE)
            assert not snap["truncated"], page
            text = snap["text"]
            out["pages"][page] = {"bytes": len(text.encode()), "refs": snap["refs"]}

        await call_ok(client, "interact", {"action": "navigate", "url": f"{base}/{MANY}"})
        progress(f"TabPilot snapshot of 1,000 interactive elements: {calls} calls each way")
        warm = min(calls, 5)
        for key, args in (
            ("snapshot_1000_mcp", {"max_chars": WHOLE}),
            ("snapshot_1000_mcp_default_budget", {}),
        ):
            query = {"what": "page", **args}
            out[key] = (await timed(lambda q=query: call_ok(client, "observe", q), calls, warm)).to_dict()
        conn = await BrowserConnection.open(launched.socket)
        try:
            cmd = m.Snapshot(id=0, max_chars=WHOLE)
            out["snapshot_1000_socket"] = (
                await timed(lambda: conn.request(cmd, timeout_s=10), calls, warm)
            ).to_dict()
        finally:
            await conn.aclose()

        await call_ok(client, "interact", {"action": "navigate", "url": f"{base}/{CLICK}"})
        snap = await observe()
        [ref] = re.findall(r"(@e\d+) button", snap["text"])
        click = {"action": "click", "ref": ref, "snapshot": "none"}
        progress(f"TabPilot click and, for scale, execute_js through MCP: {calls} calls each")
        out["click"] = (await timed(lambda: call_ok(client, "interact", click), calls, warm)).to_dict()
        one = {"action": "execute_js", "script": "1"}
        out["execute_js"] = (await timed(lambda: call_ok(client, "interact", one), calls, warm)).to_dict()
        counted = await call_ok(
            client,
            "interact",
            {"action": "execute_js", "script": "+document.getElementById('inc').dataset.n"},
        )
        if (counted.structured_content or {}).get("result") != calls + warm:
            raise RuntimeError(f"the clicks did not all land: {counted.structured_content!r}")
    return out


async def playwright_series(work: Path, base: str, pages: list[str], errlog: Any) -> dict[str, Any]:
    """Playwright MCP's ARIA snapshot bytes and refs per page."""
    out: dict[str, Any] = {}
    async with spawn(playwright_mcp.server_params(work, CHROMIUM), errlog) as client:
        for page in pages:
            await call_ok(client, "browser_navigate", {"url": f"{base}/{page}"})
            yaml = _playwright_yaml(text_of(await call_ok(client, "browser_snapshot", {})))
            out[page] = {"bytes": len(yaml.encode()), "refs": len(re.findall(r"\[ref=(?:f\d+)?e\d+\]", yaml))}
    return out


def run(s: Session, o: Options) -> dict[str, Any]:
    """Write the pages into the session's site, measure both sides."""
    folder, base = s.pages("snapshot")
    write_pages(folder)
    pages = ["login.html", "many.html"] if o.smoke else COMPARED
    calls = 1 if o.smoke else o.runs * 100
    out: dict[str, Any] = {"tabpilot": asyncio.run(tabpilot_series(s, base, pages, calls))}
    if o.playwright:
        progress("Playwright MCP snapshots")
        work = s.root / "playwright-snapshot"
        try:
            out["playwright_mcp"] = asyncio.run(playwright_series(work, base, pages, s.errlog))
        finally:
            playwright_mcp.kill_leftovers(work)
    return out


def table(r: dict[str, Any]) -> str:
    """Markdown: bytes per page, then the times."""
    tp, pw = r["tabpilot"], r.get("playwright_mcp") or {}
    lines = [
        "| page | TabPilot bytes | Playwright MCP bytes | ratio | refs TP / PW |",
        "|---|---|---|---|---|",
    ]
    for page, ours in tp["pages"].items():
        theirs = pw.get(page)
        cells = [page, f"{ours['bytes']:,}", "", "", f"{ours['refs']} / –"]
        if theirs:
            cells[2:] = [f"{theirs['bytes']:,}", f"{ours['bytes'] / theirs['bytes']:.2f}"]
            cells.append(f"{ours['refs']} / {theirs['refs']}")
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "| what | p50 ms |", "|---|---|"]
    for key, label in (
        ("snapshot_1000_mcp", "snapshot of 1,000 interactive elements through MCP (whole page)"),
        ("snapshot_1000_mcp_default_budget", "… with the default 6,000-character budget"),
        ("snapshot_1000_socket", "… on the host's socket"),
        ("click", "MCP `interact click` by ref, no navigation"),
        ("execute_js", 'MCP `interact execute_js "1"` in the same run, for scale'),
    ):
        lines.append(f"| {label} | {tp[key]['p50']:.1f} |")
    return "\n".join(lines)


SCENARIO = Scenario(
    "snapshot",
    "Page snapshots and actions",
    "Whole-page snapshot bytes, TabPilot's lean text against Playwright MCP's ARIA YAML (TabPilot gives a "
    "ref to every interactive element and to nothing else); then `--runs` × 100 calls, p50.",
    run,
    table,
)
