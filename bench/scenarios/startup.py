"""Start-up: how long a fresh MCP server takes to its tool list and to its first result (TabPilot's
against Playwright MCP's), and a fresh native host to its first answer, in wall time and in the CPU the
started process (and its children) used until then: the CPU is what the load of other work disturbs
least, and what every agent start and every browser start pays."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import statistics
import sys
import time
from dataclasses import dataclass
from typing import Any

from mcp import StdioServerParameters

from tabpilot.wire import messages as m
from tabpilot.wire.framing import HEADER_SIZE, encode_frame

from .. import playwright_mcp
from ..client import progress
from ..session import CHROMIUM, TABPILOT, Options, Session
from ..stats import cpu_seconds, descendants
from . import Scenario

OPENING_VERSION = "2025-06-18"  # a revision both products speak
TABPILOT_CALL = {"name": "observe", "arguments": {"what": "tabs"}}
PLAYWRIGHT_CALL = {"name": "browser_tabs", "arguments": {"action": "list"}}
# How Chrome starts the host: the extension's origin is its argument.
HOST_ORIGIN = "chrome-extension://benchstartupbenchstartupbenchst/"


@dataclass(frozen=True)
class Reached:
    """Seconds from the spawn to an answer, and CPU seconds the process tree had used by then."""

    wall_s: float
    cpu_s: float


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


def _cpu_of_tree(pid: int) -> float:
    return cpu_seconds([pid, *descendants(pid)])


async def _end(proc: asyncio.subprocess.Process) -> None:
    """Close its stdin (how both kinds of server are told to leave) and wait, bounded, for it to go."""
    assert proc.stdin is not None
    proc.stdin.close()
    try:
        async with asyncio.timeout(10):
            await proc.wait()
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()


async def _exec(
    command: str, *args: str, env: dict[str, str], cwd: str | None = None
) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        command, *args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL, env=env, cwd=cwd, limit=1 << 24,
    )  # fmt: skip


async def _one_start(params: StdioServerParameters, request: dict[str, Any]) -> Reached:
    env = {**os.environ, **(params.env or {})}
    started = time.perf_counter()
    proc = await _exec(params.command, *params.args, env=env, cwd=str(params.cwd) if params.cwd else None)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        async with asyncio.timeout(60):
            init = {"protocolVersion": OPENING_VERSION, "capabilities": {}, "clientInfo": {"name": "bench"}}
            proc.stdin.write(_line({"id": 0, "method": "initialize", "params": init}))
            await _reply(proc.stdout, 0)
            proc.stdin.write(_line({"method": "notifications/initialized"}))
            proc.stdin.write(_line({"id": 1, **request}))
            reply = await _reply(proc.stdout, 1)
        reached = Reached(time.perf_counter() - started, _cpu_of_tree(proc.pid))
        if "error" in reply or reply["result"].get("isError"):
            raise RuntimeError(f"{request['method']} failed: {json.dumps(reply)[:300]}")
        return reached
    finally:
        await _end(proc)


async def spawn_to_first_result(
    params: StdioServerParameters, call: dict[str, Any]
) -> tuple[Reached, Reached]:
    """A bare JSON-RPC client (so what is timed is the server's side): from the spawn to the tool list,
    and to the reply to `call`, the first tool call, in a second fresh process."""
    listed = await _one_start(params, {"method": "tools/list"})
    called = await _one_start(params, {"method": "tools/call", "params": call})
    return listed, called


async def host_to_welcome(instance_id: str) -> Reached:
    """Start `tabpilot native` as Chrome does, say Hello as the extension does, and time its Welcome.
    Its socket goes into this session's private runtime directory, under an instance of its own."""
    started = time.perf_counter()
    proc = await _exec(TABPILOT, "native", HOST_ORIGIN, env=dict(os.environ))
    assert proc.stdin is not None and proc.stdout is not None
    try:
        hello = m.Hello(protocol=m.PROTOCOL_VERSION, extension_version="bench", instance_id=instance_id)
        proc.stdin.write(encode_frame(m.encoder.encode(hello)))
        async with asyncio.timeout(60):
            header = await proc.stdout.readexactly(HEADER_SIZE)
            body = await proc.stdout.readexactly(int.from_bytes(header, sys.byteorder))
        reached = Reached(time.perf_counter() - started, _cpu_of_tree(proc.pid))
        welcome = json.loads(body)
        if welcome.get("type") != "welcome" or not welcome.get("accepted"):
            raise RuntimeError(f"the host answered {body[:300]!r}, expected an accepting welcome")
        return reached
    finally:
        await _end(proc)


def _ms(values: list[Reached]) -> dict[str, list[float]]:
    return {
        "ms": [round(r.wall_s * 1000, 1) for r in values],
        "cpu_ms": [round(r.cpu_s * 1000, 1) for r in values],
    }


async def _starts(
    sides: dict[str, tuple[StdioServerParameters, dict[str, Any]]], runs: int, warm: bool
) -> dict[str, Any]:
    for params, call in sides.values() if warm else ():  # fills the OS file cache, node's compile cache
        await spawn_to_first_result(params, call)
    found: dict[str, list[tuple[Reached, Reached]]] = {name: [] for name in sides}
    hosts: list[Reached] = []
    for run in range(runs):  # the products take turns so that background load falls on both alike
        for name, (params, call) in sides.items():
            found[name].append(await spawn_to_first_result(params, call))
        hosts.append(await host_to_welcome(f"bench-start-{run}"))
    out: dict[str, Any] = {
        name: {"tools_list": _ms([a for a, _ in pairs]), "first_result": _ms([b for _, b in pairs])}
        for name, pairs in found.items()
    }
    out["native_host"] = {"welcome": _ms(hosts)}
    return out


def startup(s: Session, o: Options) -> dict[str, Any]:
    """Fresh `tabpilot mcp` (its browser running, as the user's is) and fresh Playwright MCP (which starts
    its browser on its first call), alternating: spawn → tools/list, spawn → first result; and fresh
    native hosts: spawn → welcome."""
    sides = {"tabpilot": (s.params(), TABPILOT_CALL)}
    work = s.root / "playwright-startup"
    if o.playwright:
        sides["playwright_mcp"] = (playwright_mcp.server_params(work, CHROMIUM), PLAYWRIGHT_CALL)
    runs = 1 if o.smoke else o.runs * 3
    progress(f"start-up: {runs} fresh servers of each kind, and as many native hosts")
    try:
        return asyncio.run(_starts(sides, runs, warm=not o.smoke))
    finally:
        playwright_mcp.kill_leftovers(work)


def _cell(series: dict[str, list[float]] | None, key: str) -> str:
    values = (series or {}).get(key)
    if not values:
        return ""
    return f"{min(values):,.0f} / {statistics.median(values):,.0f}"


def startup_table(r: dict[str, Any]) -> str:
    """Markdown: best / median of each."""
    rows = [
        ("TabPilot `tabpilot mcp`", "tabpilot", "tools_list", "first_result"),
        ("Playwright MCP", "playwright_mcp", "tools_list", "first_result"),
        ("TabPilot native host (Chrome starts it)", "native_host", "welcome", ""),
    ]
    lines = [
        "| process | spawn → `tools/list` (host: → welcome) ms | CPU ms | spawn → first result ms | CPU ms "
        "| runs |",
        "|---|---|---|---|---|---|",
    ]
    for label, key, first, second in rows:
        if key not in r:
            continue
        a, b = r[key][first], r[key].get(second)
        lines.append(
            f"| {label} | {_cell(a, 'ms')} | {_cell(a, 'cpu_ms')} | {_cell(b, 'ms')} | {_cell(b, 'cpu_ms')} "
            f"| {len(a['ms'])} |"
        )
    lines.append(
        "\nBest / median. The first results: TabPilot `observe tabs`, Playwright MCP `browser_tabs list`. "
        "CPU: the started process and its children, until that answer."
    )
    return "\n".join(lines)


SCENARIO = Scenario(
    "startup",
    "Start-up: spawn → tool list, spawn → first result",
    "A bare JSON-RPC client spawns each server, opens, then asks for the tool list (one process) or "
    "makes one trivial call (another); `--runs` × 3 starts of each, alternating, with the wall time and "
    "the CPU the server used until the answer. TabPilot's browser is already running (the user's own); "
    "Playwright MCP starts its browser on its first call. Beside them, the native host as Chrome starts "
    "it: spawn → its answer to the extension's hello.",
    startup,
    startup_table,
)
