"""Big extracts: 500 and 10,000 rows × 5 fields read on the host's socket (the extension command alone),
through the host's engine (conversions, strategy cache, aggregate, result), and through MCP
(`interact scrape extract`: bridge, engine, conversions and all), with the bytes the agent reads."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import msgspec

from tabpilot.link.client import BrowserConnection
from tabpilot.wire import messages as m
from tabpilot.wire.scrape import ExtractRequest

from ..client import call_ok, progress, spawn, text_of, timed
from ..session import Options, Session
from ..stats import Timings, descendants
from . import Scenario

SITE = Path(__file__).resolve().parents[1] / "scrape_site"
ROWS = "table.data tbody tr"
SCHEMA = {
    "id": "td.id | number",
    "name": "td.name",
    "email": "td.email",
    "amount": "td.amount | number",
    "link": "a | url",
}
FIELDS = [
    m.FieldPlan(name="id", selector="td.id"),
    m.FieldPlan(name="name", selector="td.name"),
    m.FieldPlan(name="email", selector="td.email"),
    m.FieldPlan(name="amount", selector="td.amount"),
    m.FieldPlan(name="link", selector="a", take="url"),
]
# Room for all 10,000 rows (the agent-facing default cap is 1 MB): the series measures a whole result.
BIG = 64 * 1024 * 1024


def _peak_kb(pid: int) -> int:
    """VmHWM: the most resident memory the process has had, in KiB."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _renderers(root: int) -> list[int]:
    found: list[int] = []
    for pid in descendants(root):
        try:
            if b"--type=renderer" in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
        except OSError:
            continue
    return found


async def _measure(s: Session, base: str, sizes: list[tuple[int, int]]) -> dict[str, Any]:
    launched = s.browser()
    out: dict[str, Any] = {}
    conn = await BrowserConnection.open(launched.socket)
    try:
        assert conn.info is not None
        groups = {"host": [conn.info.pid], "renderers": _renderers(launched.pid)}
        extract = m.Extract(id=0, selector=ROWS, fields=FIELDS)
        for n, calls in sizes:
            await conn.request(m.Navigate(id=0, url=f"{base}/rows.html?n={n}"), timeout_s=60)
            before = {k: max((_peak_kb(p) for p in v), default=0) for k, v in groups.items()}
            progress(f"extract {n} rows on the socket and through the engine: {calls} calls each")
            socket = await timed(lambda: conn.request(extract, timeout_s=60), calls, warmup=1)
            request = {
                "operation": "extract",
                "selector": ROWS,
                "schema": SCHEMA,
                "options": {"max_bytes": BIG},
            }
            job = m.Scrape(id=0, request=msgspec.convert(request, ExtractRequest), wait_ms=60_000)
            engine = await timed(lambda job=job: conn.request(job, timeout_s=90), calls, warmup=1)
            after = {k: max((_peak_kb(p) for p in v), default=0) for k, v in groups.items()}
            out[str(n)] = {
                "socket": socket.to_dict(),
                "engine": engine.to_dict(),
                "peak_growth_mb": {k: round((after[k] - before[k]) / 1024, 1) for k in after},
            }
    finally:
        await conn.aclose()
    async with spawn(s.params(), s.errlog) as client:
        args = {"action": "scrape", "operation": "extract", "selector": ROWS, "schema": SCHEMA}
        args["options"] = {"max_bytes": BIG}
        for n, calls in sizes:
            await call_ok(client, "interact", {"action": "navigate", "url": f"{base}/rows.html?n={n}"})
            progress(f"extract {n} rows through MCP: {calls} calls")
            mcp: Timings = await timed(lambda: call_ok(client, "interact", args), calls, warmup=1)
            result = await call_ok(client, "interact", args)
            data = json.loads(text_of(result))["data"]
            if len(data) != n:
                raise RuntimeError(f"extract returned {len(data)} rows of {n}")
            compact = len(json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode())
            out[str(n)]["mcp"] = mcp.to_dict()
            out[str(n)]["bytes_ratio"] = round(len(text_of(result).encode()) / compact, 4)
    return out


def run(s: Session, o: Options) -> dict[str, Any]:
    """The rows page in the session's site; each size measured `calls` times."""
    folder, base = s.pages("extract")
    shutil.copy(SITE / "rows.html", folder / "rows.html")
    sizes = [(50, 1)] if o.smoke else [(500, o.runs * 30), (10_000, o.runs * 3)]
    return asyncio.run(_measure(s, base, sizes))


def table(r: dict[str, Any]) -> str:
    """Markdown: a column per size."""
    sizes = list(r)
    lines = [
        "| p50 ms | " + " | ".join(f"{int(n):,} rows" for n in sizes) + " |",
        "|---|" + "---|" * len(sizes),
    ]
    for key, label in (
        ("socket", "extract on the socket (host → extension → page → back)"),
        ("engine", "… through the host's engine (conversions, strategy cache, aggregate)"),
        ("mcp", "… MCP `interact scrape extract`, client → bridge → engine → page → back"),
    ):
        lines.append(f"| {label} | " + " | ".join(f"{r[n][key]['p50']:,.1f}" for n in sizes) + " |")
    lines.append("| bytes the agent reads ÷ compact JSON of the rows | " + " | ".join(
        f"{r[n]['bytes_ratio']:.4f}" for n in sizes) + " |")  # fmt: skip
    growth = "; ".join(
        f"{int(n):,} rows: " + ", ".join(f"{k} {v} MB" for k, v in r[n]["peak_growth_mb"].items())
        for n in sizes
    )
    lines.append(f"\nPeak resident memory growth during the series: {growth}.")
    return "\n".join(lines)


SCENARIO = Scenario(
    "extract",
    "Big extracts",
    "A generated table of 500 and 10,000 rows × 5 fields (`number` and `url` among them) read by one "
    "extract, at three depths; `--runs` × 30 calls (500 rows) and × 3 (10,000), p50.",
    run,
    table,
)
