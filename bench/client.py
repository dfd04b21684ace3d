"""The MCP stdio client both products are driven with, and the timed loop every series shares."""

from __future__ import annotations

import asyncio
import gc
import json
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, TextIO

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult, TextContent

from .stats import Timings, cpu_seconds

# The `initialize` handshake, as Claude Code, Cursor and VS Code send it today. The SDK's default
# ("auto") probes with the 2026 `server/discover` first.
MODE = "legacy"


def progress(message: str) -> None:
    """A progress line on stderr (stdout carries only results)."""
    print(f"bench: {message}", file=sys.stderr, flush=True)


@asynccontextmanager
async def spawn(params: StdioServerParameters, errlog: TextIO, mode: str = MODE) -> AsyncIterator[Client]:
    """Start an MCP server over stdio, its stderr into `errlog`, and complete the handshake."""
    transport = stdio_client(params, errlog=errlog)
    async with Client(transport, read_timeout_seconds=60, mode=mode) as client:
        yield client


def text_of(result: CallToolResult) -> str:
    """The text blocks of a tool result, joined."""
    return "\n".join(c.text for c in result.content if isinstance(c, TextContent))


async def call_ok(client: Client, tool: str, arguments: dict[str, Any]) -> CallToolResult:
    """Call a tool; raise with its text if it reported an error."""
    result = await client.call_tool(tool, arguments)
    if result.is_error:
        raise RuntimeError(f"{tool} {json.dumps(arguments)} failed: {text_of(result)[:500]}")
    return result


def tool_call(client: Client, tool: str, arguments: dict[str, Any]) -> Callable[[], Awaitable[object]]:
    """A checked call of one tool, ready to be timed."""
    return lambda: call_ok(client, tool, arguments)


async def timed(call: Callable[[], Awaitable[object]], calls: int, warmup: int = 0) -> Timings:
    """Await `call` `warmup` times unmeasured, then `calls` times one after another, timing each."""
    for _ in range(warmup):
        await call()
    gc.collect()
    durations: list[float] = []
    for _ in range(calls):
        started = time.perf_counter()
        await call()
        durations.append(time.perf_counter() - started)
    return Timings.of(durations)


async def timed_with_cpu(
    call: Callable[[], Awaitable[object]], calls: int, warmup: int, pids: dict[str, list[int]]
) -> tuple[Timings, dict[str, float]]:
    """`timed`, plus the CPU each group of processes used per measured call, in ms ("client": this one)."""
    await timed(call, warmup)
    before = {name: cpu_seconds(p) for name, p in pids.items()}
    client_before = time.process_time()
    timings = await timed(call, calls)
    cpu = {"client": (time.process_time() - client_before) * 1000 / calls}
    cpu.update({name: (cpu_seconds(p) - before[name]) * 1000 / calls for name, p in pids.items()})
    return timings, {k: round(v, 3) for k, v in cpu.items()}


async def until_quiet(pids: list[int], limit_ms_per_s: float = 20, timeout_s: float = 20) -> float:
    """Wait (bounded) until a just-started browser stops using CPU; return its last rate in ms/s."""
    rate = float("inf")
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        before = cpu_seconds(pids)
        await asyncio.sleep(0.5)
        rate = (cpu_seconds(pids) - before) * 2000
        if rate <= limit_ms_per_s:
            break
    return rate
