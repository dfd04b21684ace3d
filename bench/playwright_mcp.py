"""Playwright MCP (`@playwright/mcp`, pinned in package.json) on the same page, same client, same calls."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from pathlib import Path
from typing import Any, TextIO

from mcp import StdioServerParameters

from tabpilot.browser.argv import NO_NETWORK_FLAGS

from .client import call_ok, progress, spawn, text_of, timed_with_cpu, tool_call, until_quiet
from .stats import children_of, descendants, pids_mentioning

HERE = Path(__file__).resolve().parent
CLI = HERE / "node_modules" / "@playwright" / "mcp" / "cli.js"
INSTALL_HINT = "cd bench && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci"
EVALUATE = {"function": "() => 1"}
# The same no-network flags TabPilot's profiles get (Playwright adds its own automation defaults).
CHROMIUM_ARGS = list(NO_NETWORK_FLAGS)


def version() -> str | None:
    """The installed @playwright/mcp version, or None when `npm ci` has not been run."""
    try:
        return json.loads((CLI.parent / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


def _params(work: Path, chromium: str, settle_ms: int | None) -> StdioServerParameters:
    config = work / "playwright-mcp.json"
    config.write_text(json.dumps({"browser": {"launchOptions": {"args": CHROMIUM_ARGS}}}))
    args = [str(CLI), "--config", str(config), "--executable-path", chromium, "--headless", "--isolated"]
    args += ["--output-dir", str(work / "out")]
    if os.geteuid() == 0:
        args.append("--no-sandbox")
    if settle_ms is not None:
        args += ["--timeout-settle", str(settle_ms)]
    # TMPDIR keeps Playwright's throw-away profile inside `work`, where cleanup can find it.
    env = {"TMPDIR": str(work), "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1"}
    return StdioServerParameters(command="node", args=args, env=env, cwd=str(work))


def server_params(work: Path, chromium: str, settle_ms: int | None = 0) -> StdioServerParameters:
    """How to start Playwright MCP headless on `chromium`, its files kept under `work`."""
    work.mkdir(parents=True, exist_ok=True)
    return _params(work, chromium, settle_ms)


def kill_leftovers(work: Path) -> list[int]:
    """SIGKILL any process still running from `work` (a browser whose server died without closing it)."""
    killed: list[int] = []
    for pid in pids_mentioning(str(work)):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
    return killed


async def measure(
    work: Path,
    url: str,
    chromium: str,
    *,
    calls: int,
    warmup: int,
    settle_ms: int | None,
    errlog: TextIO,
    quiet_s: float = 20,
) -> dict[str, Any]:
    """Navigate once, then time browser_evaluate; also the time from spawn to the tool list."""
    work.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    async with spawn(_params(work, chromium, settle_ms), errlog) as client:
        await client.list_tools()
        listed = time.perf_counter()
        await call_ok(client, "browser_navigate", {"url": url})
        check = text_of(await call_ok(client, "browser_evaluate", EVALUATE))
        if "1" not in check:
            raise RuntimeError(f"browser_evaluate answered {check[:300]!r}, expected 1")
        [node] = children_of(os.getpid(), str(CLI))
        pids = {"node": [node], "chromium": descendants(node)}
        await until_quiet(pids["chromium"], timeout_s=quiet_s)
        settle = "default" if settle_ms is None else f"{settle_ms} ms"
        progress(f"Playwright MCP browser_evaluate (settle {settle}): {warmup} warm-up + {calls} calls")
        call = tool_call(client, "browser_evaluate", EVALUATE)
        timings, cpu = await timed_with_cpu(call, calls, warmup, pids)
    return {
        "evaluate": timings,
        "cpu_ms_per_call": cpu,
        "settle_ms": settle_ms,
        "spawn_to_tools_list_ms": round((listed - started) * 1000, 1),
    }
