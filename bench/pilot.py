"""TabPilot's side: a dedicated headless profile in private directories, timed through each layer."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from mcp import StdioServerParameters

from tabpilot import paths
from tabpilot.browser.launch import LaunchedBrowser, launch_profile
from tabpilot.demo.server import serve
from tabpilot.link.client import BrowserConnection, BrowserPool
from tabpilot.wire.messages import ExecuteJs, Ping

from .client import call_ok, progress, spawn, timed_with_cpu, tool_call, until_quiet
from .stats import Timings, children_of, descendants, rss_mb

TABPILOT = str(Path(sys.executable).with_name("tabpilot"))
PROFILE = "bench"
EXECUTE_JS = {"action": "execute_js", "script": "1"}
PING_CALLS = 1000


@contextmanager
def private_dirs(root: Path) -> Iterator[dict[str, str]]:
    """Point TabPilot's runtime, state and data directories into `root` for this process and its
    children (the browser, hence its native host, and every bridge)."""
    env = {
        paths.ENV_RUNTIME: str(root / "run"),
        paths.ENV_STATE: str(root / "state"),
        paths.ENV_DATA: str(root / "data"),
    }
    (root / "run").mkdir(mode=0o700, parents=True)
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield env
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@contextmanager
def dedicated_browser(url: str) -> Iterator[LaunchedBrowser]:
    """A headless profile with the pilot on and the extension connected; stopped on the way out."""
    launched = launch_profile(PROFILE, headless=True, pilot=True, url=url)
    try:
        yield launched
    finally:
        launched.stop()


@contextmanager
def site_session(
    name: str, source: Path, prepare: Callable[[Path], None] | None = None
) -> Iterator[tuple[str, TextIO, dict[str, str], LaunchedBrowser]]:
    """A private copy of the `source` pages (`prepare` may add to it) served on 127.0.0.1, private
    TabPilot directories and a dedicated headless profile on its rows page: (base URL, server log,
    env, browser). Everything lives in a temporary directory removed on the way out."""
    with tempfile.TemporaryDirectory(prefix=f"tabpilot-{name}-bench-", ignore_cleanup_errors=True) as tmp:
        root = Path(tmp)
        site = root / "site"
        shutil.copytree(source, site)
        if prepare is not None:
            prepare(site)
        with serve(site) as base, open(root / "servers.log", "w") as errlog, private_dirs(root / "tp") as env:
            progress("starting a dedicated headless TabPilot profile")
            with dedicated_browser(f"{base}/rows.html?n=1") as launched:
                yield base, errlog, env, launched


def _params(env: dict[str, str]) -> StdioServerParameters:
    return StdioServerParameters(command=TABPILOT, args=["mcp"], env=env)


async def _host_pid(runtime_dir: Path) -> int:
    pool = BrowserPool(runtime_dir)
    try:
        [info] = await pool.browsers()
        return info.pid
    finally:
        await pool.aclose()


async def _start_once(env: dict[str, str], errlog: TextIO, mode: str) -> tuple[float, float]:
    """Spawn a fresh bridge: seconds until tools/list is answered, and until a first execute_js is."""
    started = time.perf_counter()
    async with spawn(_params(env), errlog, mode) as client:
        await client.list_tools()
        listed = time.perf_counter()
        await call_ok(client, "interact", EXECUTE_JS)
        called = time.perf_counter()
    return listed - started, called - started


# Start modes: the `initialize` handshake of today's clients, and the mcp SDK's default handshake
# (a `server/discover` probe).
STARTS = {"initialize": "legacy", "discover": "auto"}


async def _starts(env: dict[str, str], errlog: TextIO, runs: int) -> dict[str, Any]:
    # One unmeasured start per mode fills the OS file cache; then the modes take turns so that
    # background noise falls on all alike.
    for mode in STARTS.values():
        await _start_once(env, errlog, mode)
    out: dict[str, Any] = {}
    series: dict[str, list[tuple[float, float]]] = {name: [] for name in STARTS}
    for i in range(runs):
        for name, mode in STARTS.items():
            series[name].append(await _start_once(env, errlog, mode))
        progress(f"bridge starts: {i + 1}/{runs}")
    for name, runs_of in series.items():
        out[f"tools_list_{name}"] = Timings.of([t for t, _ in runs_of])
        out[f"first_call_{name}"] = Timings.of([c for _, c in runs_of])
    return out


async def measure(
    env: dict[str, str],
    url: str,
    launched: LaunchedBrowser,
    *,
    calls: int,
    warmup: int,
    starts: int,
    idle_s: float,
    errlog: TextIO,
) -> dict[str, Any]:
    """Every TabPilot number: execute_js through MCP and below it, ping, idle memory, bridge start."""
    out: dict[str, Any] = {}
    host = await _host_pid(Path(env[paths.ENV_RUNTIME]))
    async with spawn(_params(env), errlog) as client:
        await call_ok(client, "interact", {"action": "navigate", "url": url})
        check = await call_ok(client, "interact", EXECUTE_JS)
        if check.structured_content != {"success": True, "result": 1}:
            raise RuntimeError(f"execute_js answered {check.structured_content!r}, expected result 1")
        [bridge] = children_of(os.getpid(), TABPILOT, "mcp")
        browser = [launched.pid, *(p for p in descendants(launched.pid) if p != host)]
        pids = {"bridge": [bridge], "host": [host], "browser": browser}
        cpu: dict[str, dict[str, float]] = {}
        out["cpu_ms_per_call"] = cpu
        await until_quiet(browser)

        progress(f"MCP execute_js: {warmup} warm-up + {calls} calls")
        call = tool_call(client, "interact", EXECUTE_JS)
        out["execute_js"], cpu["execute_js"] = await timed_with_cpu(call, calls, warmup, pids)
        progress(f"MCP ping (client <-> bridge only): {calls} calls")
        with warnings.catch_warnings():  # ping is gone from the 2026 revision; we speak the 2025 one
            warnings.simplefilter("ignore")
            out["mcp_ping"], cpu["mcp_ping"] = await timed_with_cpu(client.send_ping, calls, warmup, pids)

        conn = await BrowserConnection.open(launched.socket)
        try:
            pings = max(calls, PING_CALLS)
            progress(f"host execute_js and ping on the socket: {calls} + {pings} calls")
            js = ExecuteJs(id=0, script="1")
            out["host_execute_js"], cpu["host_execute_js"] = await timed_with_cpu(
                lambda: conn.request(js, timeout_s=10), calls, warmup, pids
            )
            ping = Ping(id=0)
            out["ping"], cpu["ping"] = await timed_with_cpu(
                lambda: conn.request(ping, timeout_s=10), pings, warmup, pids
            )
        finally:
            await conn.aclose()

        progress(f"idle {idle_s:g} s, then memory")
        await asyncio.sleep(idle_s)
        out["host_rss_mb"] = rss_mb(host)
        out["bridge_rss_mb"] = rss_mb(bridge)

    progress(f"bridge start: {starts} fresh processes per mode ({', '.join(STARTS)})")
    out.update(await _starts(env, errlog, starts))
    return out
