"""A real MCP stdio client spawning `tabpilot mcp`, the way Claude Code or Cursor would."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult, TextContent

TABPILOT = str(Path(sys.executable).with_name("tabpilot"))


@asynccontextmanager
async def mcp_client(env: dict[str, str], *args: str) -> AsyncIterator[Client]:
    """Spawn `tabpilot mcp` with the given TABPILOT_* environment and connect to it over stdio."""
    params = StdioServerParameters(command=TABPILOT, args=["mcp", *args], env=env)
    async with Client(params, read_timeout_seconds=60) as client:
        yield client


def payload(result: CallToolResult) -> Any:
    """The JSON a tool returned: its structured content, checked against its text block."""
    texts = [c.text for c in result.content if isinstance(c, TextContent)]
    assert texts, "every result carries a text block"
    parsed = json.loads(texts[0])
    if result.structured_content is not None:
        assert result.structured_content == parsed
    return parsed


async def call(client: Client, tool: str, **arguments: Any) -> Any:
    """Call a tool and return its payload; fails the test on an error result."""
    result = await client.call_tool(tool, arguments)
    data = payload(result)
    assert not result.is_error, f"{tool} {arguments} failed: {data}"
    return data


async def call_error(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """Call a tool that must fail; return its structured error."""
    result = await client.call_tool(tool, arguments)
    data = payload(result)
    assert result.is_error, f"{tool} {arguments} should have failed: {data}"
    return data


async def scrape(client: Client, **arguments: Any) -> dict[str, Any]:
    """An `interact scrape` that must complete; its result."""
    out = await call(client, "interact", action="scrape", **arguments)
    assert out["status"] == "complete", out
    return out


async def scrape_error(client: Client, **arguments: Any) -> dict[str, Any]:
    """An `interact scrape` that must fail; its structured error (with any partial data)."""
    return await call_error(client, "interact", action="scrape", **arguments)
