"""Round trips: a trivial call through every layer (and below MCP), and the memory in use after them."""

from __future__ import annotations

import asyncio
import os
import warnings
from pathlib import Path
from typing import Any

from tabpilot import paths
from tabpilot.link.client import BrowserConnection, BrowserPool
from tabpilot.wire.messages import ExecuteJs, Ping

from .. import playwright_mcp
from ..client import call_ok, progress, spawn, timed_with_cpu, tool_call, until_quiet
from ..session import CHROMIUM, TABPILOT, Options, Session
from ..stats import children_of, descendants, rss_mb
from . import Scenario

EXECUTE_JS = {"action": "execute_js", "script": "1"}


def _sizes(o: Options) -> tuple[int, int]:
    """(measured calls, warm-up calls): --runs counts hundreds of calls."""
    return (5, 1) if o.smoke else (o.runs * 300, 50)


async def _host_pid(runtime_dir: Path) -> int:
    pool = BrowserPool(runtime_dir)
    try:
        [info] = await pool.browsers()
        return info.pid
    finally:
        await pool.aclose()


async def _ours(s: Session, calls: int, warmup: int, quiet_s: float) -> dict[str, Any]:
    launched = s.browser()
    out: dict[str, Any] = {}
    host = await _host_pid(Path(s.env[paths.ENV_RUNTIME]))
    async with spawn(s.params(), s.errlog) as client:
        await call_ok(client, "interact", {"action": "navigate", "url": f"{s.base}/index.html"})
        check = await call_ok(client, "interact", EXECUTE_JS)
        if check.structured_content != {"success": True, "result": 1}:
            raise RuntimeError(f"execute_js answered {check.structured_content!r}, expected result 1")
        [bridge] = children_of(os.getpid(), TABPILOT, "mcp")
        browser = [launched.pid, *(p for p in descendants(launched.pid) if p != host)]
        pids = {"bridge": [bridge], "host": [host], "browser": browser}
        await until_quiet(browser, timeout_s=quiet_s)
        progress(f"MCP execute_js and ping: {warmup} warm-up + {calls} calls each")
        t, cpu = await timed_with_cpu(tool_call(client, "interact", EXECUTE_JS), calls, warmup, pids)
        out["execute_js"], out["execute_js_cpu_ms"] = t.to_dict(), cpu
        with warnings.catch_warnings():  # ping is gone from the 2026 revision; we speak the 2025 one
            warnings.simplefilter("ignore")
            out["mcp_ping"] = (await timed_with_cpu(client.send_ping, calls, warmup, pids))[0].to_dict()
        conn = await BrowserConnection.open(launched.socket)
        try:
            js, ping = ExecuteJs(id=0, script="1"), Ping(id=0)
            t, _ = await timed_with_cpu(lambda: conn.request(js, timeout_s=10), calls, warmup, pids)
            out["socket_execute_js"] = t.to_dict()
            t, _ = await timed_with_cpu(lambda: conn.request(ping, timeout_s=10), calls, warmup, pids)
            out["socket_ping"] = t.to_dict()
        finally:
            await conn.aclose()
        out["host_rss_mb"] = rss_mb(host)
        out["bridge_rss_mb"] = rss_mb(bridge)
    return out


async def _theirs(s: Session, calls: int, warmup: int, quiet_s: float) -> dict[str, Any]:
    work = s.root / "playwright-roundtrip"
    try:
        out = await playwright_mcp.measure(
            work,
            f"{s.base}/index.html",
            CHROMIUM,
            calls=calls,
            warmup=warmup,
            settle_ms=0,
            errlog=s.errlog,
            quiet_s=quiet_s,
        )
    finally:
        playwright_mcp.kill_leftovers(work)
    return {"evaluate": out["evaluate"].to_dict(), "evaluate_cpu_ms": out["cpu_ms_per_call"]}


def roundtrip(s: Session, o: Options) -> dict[str, Any]:
    """execute_js "1" through MCP and on the host's socket, ping, idle memory; Playwright's evaluate."""
    calls, warmup = _sizes(o)
    quiet_s = 0 if o.smoke else 20  # waiting for a just-started browser to settle: not for a smoke run
    out: dict[str, Any] = {"tabpilot": asyncio.run(_ours(s, calls, warmup, quiet_s))}
    if o.playwright:
        out["playwright_mcp"] = asyncio.run(_theirs(s, calls, warmup, quiet_s))
    return out


def _ms(t: dict[str, Any] | None, key: str = "p50") -> str:
    return "" if t is None else f"{t[key]:.2f}"


def roundtrip_table(r: dict[str, Any]) -> str:
    """Markdown."""
    tp, pw = r["tabpilot"], r.get("playwright_mcp")
    rows = [
        ('MCP `interact execute_js "1"`: client → bridge → host → extension → page → back', tp["execute_js"]),
        ("… below MCP: the same on the host's socket", tp["socket_execute_js"]),
        ("… MCP ping only (client ↔ bridge)", tp["mcp_ping"]),
        ("ping on the socket: host → extension → back", tp["socket_ping"]),
        ("Playwright MCP `browser_evaluate` `() => 1` (settle 0)", pw["evaluate"] if pw else None),
    ]
    lines = ["| what | n | p50 ms | p90 ms | p99 ms |", "|---|---|---|---|---|"]
    for label, t in rows:
        if t is not None:
            lines.append(f"| {label} | {t['n']} | {_ms(t)} | {_ms(t, 'p90')} | {_ms(t, 'p99')} |")
    cpu = ", ".join(f"{k} {v:.2f}" for k, v in tp["execute_js_cpu_ms"].items())
    lines.append(
        f"\nResident memory after the series: host {tp['host_rss_mb']:.0f} MB, "
        f"bridge {tp['bridge_rss_mb']:.0f} MB. "
        f"CPU ms per MCP `execute_js`: {cpu}."
    )
    return "\n".join(lines)


SCENARIO = Scenario(
    "roundtrip",
    "Round trips and memory",
    "A trivial call through every layer and below MCP, with the memory in use; `--runs` × 300 calls "
    "after 50 unmeasured. Playwright MCP's `browser_evaluate` for scale.",
    roundtrip,
    roundtrip_table,
)
