"""Spawn → first result: a new MCP server process, its opening, and one trivial tool call, timed from
the spawn to the call's reply. A bare JSON-RPC client over pipes (no SDK client) so that what is timed
is the server's side: TabPilot's `observe {what: "tabs"}` and Playwright MCP's `browser_tabs list`."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp import StdioServerParameters

from tabpilot.demo.server import serve

from . import pilot

OPENING_VERSION = "2025-06-18"  # a revision both products speak
TABPILOT_CALL = {"name": "observe", "arguments": {"what": "tabs"}}
PLAYWRIGHT_CALL = {"name": "browser_tabs", "arguments": {"action": "list"}}
_TIMEOUT_S = 60.0


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


async def spawn_to_first_result(params: StdioServerParameters, call: dict[str, Any]) -> float:
    """Seconds from spawning the server to the reply to `call`, its first tool call (an error raises)."""
    env = {**os.environ, **(params.env or {})}
    started = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        params.command,
        *params.args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env=env,
        cwd=params.cwd,
        limit=1 << 24,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        async with asyncio.timeout(_TIMEOUT_S):
            init = {
                "protocolVersion": OPENING_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            }
            proc.stdin.write(_line({"id": 0, "method": "initialize", "params": init}))
            await _reply(proc.stdout, 0)
            proc.stdin.write(_line({"method": "notifications/initialized"}))
            proc.stdin.write(_line({"id": 1, "method": "tools/call", "params": call}))
            reply = await _reply(proc.stdout, 1)
        elapsed = time.perf_counter() - started
        if "error" in reply or reply["result"].get("isError"):
            raise RuntimeError(f"first call failed: {json.dumps(reply)[:300]}")
        return elapsed
    finally:
        proc.stdin.close()
        try:
            async with asyncio.timeout(10):
                await proc.wait()
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()


async def _starts(env: dict[str, str], starts: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"tabpilot mcp": []}
    params = StdioServerParameters(command=pilot.TABPILOT, args=["mcp"], env=env)
    await spawn_to_first_result(params, TABPILOT_CALL)  # fills the OS file cache
    for _ in range(starts):
        out["tabpilot mcp"].append(await spawn_to_first_result(params, TABPILOT_CALL) * 1000)
    return out


def main(argv: list[str] | None = None) -> int:
    """`python -m bench.firstcall [--starts N]`: TabPilot alone, in a dedicated headless profile (its
    browser running, as the user's is)."""
    parser = argparse.ArgumentParser(prog="python -m bench.firstcall", description=main.__doc__)
    parser.add_argument("--starts", type=int, default=10, help="bridge starts")
    args = parser.parse_args(argv)
    with (
        tempfile.TemporaryDirectory(prefix="tabpilot-firstcall-") as tmp,
        serve() as url,
        pilot.private_dirs(Path(tmp) / "tp") as env,
        pilot.dedicated_browser(url + "/index.html"),
    ):
        results = asyncio.run(_starts(env, args.starts))
    for name, ms in results.items():
        print(
            f"spawn -> first observe tabs result, {name}: "
            f"best {min(ms):.0f} ms, median {statistics.median(ms):.0f} ms"
        )
    load = os.getloadavg()
    print(f"{args.starts} starts; {os.uname().machine}, {os.cpu_count()} cores, load {load[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
