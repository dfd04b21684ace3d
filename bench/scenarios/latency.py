"""Round trips and start-up: a trivial call through every layer (and below MCP), idle memory, and how long
a fresh MCP server takes to its tool list and to its first result — TabPilot's against Playwright MCP's."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import statistics
import time
import warnings
from pathlib import Path
from typing import Any

from mcp import StdioServerParameters

from tabpilot import paths
from tabpilot.link.client import BrowserConnection, BrowserPool
from tabpilot.wire.messages import ExecuteJs, Ping

from .. import playwright_mcp
from ..client import call_ok, progress, spawn, timed_with_cpu, tool_call, until_quiet
from ..session import CHROMIUM, TABPILOT, Options, Session
from ..stats import children_of, descendants, rss_mb
from . import Scenario

EXECUTE_JS = {"action": "execute_js", "script": "1"}
OPENING_VERSION = "2025-06-18"  # a revision both products speak
TABPILOT_CALL = {"name": "observe", "arguments": {"what": "tabs"}}
PLAYWRIGHT_CALL = {"name": "browser_tabs", "arguments": {"action": "list"}}


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


def _line(msg: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **msg}).encode() + b"\n"


async def _reply(stdout: asyncio.StreamReader, msg_id: int) -> dict[str, Any]:
    """The reply with `msg_id`, skipping the server's notifications and requests."""
    while True:
        raw = await stdout.readline()
        if not raw:
            raise RuntimeError("the server closed its stdout before answering")
        msg = json.loads(raw)
        if msg.get("id") == msg_id and "method" not in msg:
            return msg


async def spawn_to_first_result(params: StdioServerParameters, call: dict[str, Any]) -> tuple[float, float]:
    """A bare JSON-RPC client (so what is timed is the server's side): seconds from the spawn to the tool
    list, and to the reply to `call`, the first tool call, in a second fresh process."""
    times: list[float] = []
    for listing in (True, False):
        env = {**os.environ, **(params.env or {})}
        started = time.perf_counter()
        proc = await asyncio.create_subprocess_exec(
            params.command, *params.args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL, env=env, cwd=params.cwd, limit=1 << 24,
        )  # fmt: skip
        assert proc.stdin is not None and proc.stdout is not None
        try:
            async with asyncio.timeout(60):
                init = {
                    "protocolVersion": OPENING_VERSION,
                    "capabilities": {},
                    "clientInfo": {"name": "bench"},
                }
                proc.stdin.write(_line({"id": 0, "method": "initialize", "params": init}))
                await _reply(proc.stdout, 0)
                proc.stdin.write(_line({"method": "notifications/initialized"}))
                msg = {"method": "tools/list"} if listing else {"method": "tools/call", "params": call}
                proc.stdin.write(_line({"id": 1, **msg}))
                reply = await _reply(proc.stdout, 1)
            times.append(time.perf_counter() - started)
            if "error" in reply or reply["result"].get("isError"):
                raise RuntimeError(f"{msg['method']} failed: {json.dumps(reply)[:300]}")
        finally:
            proc.stdin.close()
            try:
                async with asyncio.timeout(10):
                    await proc.wait()
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()
    return times[0], times[1]


async def _starts(
    sides: dict[str, tuple[StdioServerParameters, dict[str, Any]]], runs: int, warm: bool
) -> dict[str, Any]:
    for params, call in sides.values() if warm else ():  # fills the OS file cache, node's compile cache
        await spawn_to_first_result(params, call)
    found: dict[str, list[tuple[float, float]]] = {name: [] for name in sides}
    for _ in range(runs):  # the products take turns so that background load falls on both alike
        for name, (params, call) in sides.items():
            found[name].append(await spawn_to_first_result(params, call))
    return {
        name: {
            "tools_list_ms": [round(a * 1000, 1) for a, _ in times],
            "first_result_ms": [round(b * 1000, 1) for _, b in times],
        }
        for name, times in found.items()
    }


def startup(s: Session, o: Options) -> dict[str, Any]:
    """Fresh `tabpilot mcp` (its browser running, as the user's is) and fresh Playwright MCP (which starts
    its browser on its first call), alternating: spawn → tools/list, spawn → first result."""
    sides = {"tabpilot": (s.params(), TABPILOT_CALL)}
    work = s.root / "playwright-startup"
    if o.playwright:
        sides["playwright_mcp"] = (playwright_mcp.server_params(work, CHROMIUM), PLAYWRIGHT_CALL)
    runs = 1 if o.smoke else o.runs * 3
    progress(f"start-up: {runs} fresh servers of each kind")
    try:
        return asyncio.run(_starts(sides, runs, warm=not o.smoke))
    finally:
        playwright_mcp.kill_leftovers(work)


def startup_table(r: dict[str, Any]) -> str:
    """Markdown."""
    names = {
        "tabpilot": "TabPilot (`observe tabs`)",
        "playwright_mcp": "Playwright MCP (`browser_tabs list`)",
    }
    lines = [
        "| server | spawn → `tools/list` best / median ms | spawn → first result best / median ms | runs |",
        "|---|---|---|---|",
    ]
    for key, label in names.items():
        if key in r:
            a, b = r[key]["tools_list_ms"], r[key]["first_result_ms"]
            lines.append(
                f"| {label} | {min(a):,.0f} / {statistics.median(a):,.0f} "
                f"| {min(b):,.0f} / {statistics.median(b):,.0f} | {len(a)} |"
            )
    return "\n".join(lines)


SCENARIOS = [
    Scenario(
        "roundtrip",
        "Round trips and memory",
        "A trivial call through every layer and below MCP, with the memory in use; `--runs` × 300 calls "
        "after 50 unmeasured. Playwright MCP's `browser_evaluate` for scale.",
        roundtrip,
        roundtrip_table,
    ),
    Scenario(
        "startup",
        "Start-up: spawn → tool list, spawn → first result",
        "A bare JSON-RPC client spawns each server, opens, then asks for the tool list (one process) or "
        "makes one trivial call (another); `--runs` × 3 starts of each, alternating. TabPilot's browser is "
        "already running (the user's own); Playwright MCP starts its browser on its first call.",
        startup,
        startup_table,
    ),
]
