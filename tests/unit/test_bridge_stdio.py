"""`tabpilot mcp` as a real subprocess, spoken to over stdio by the SDK's client, with no browser."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tabpilot.wire.errors import ErrorCode

pytestmark = pytest.mark.anyio

TABPILOT = str(Path(sys.executable).with_name("tabpilot"))


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_mcp_over_stdio_without_a_browser(tp_dirs: dict[str, str], mode: str) -> None:
    params = StdioServerParameters(command=TABPILOT, args=["mcp"], env=tp_dirs)
    with anyio.fail_after(30):
        async with Client(params, mode=mode) as client:  # pyright: ignore[reportArgumentType]
            tools = (await client.list_tools()).tools
            assert sorted(t.name for t in tools) == ["configure", "interact", "observe"]

            status = await client.call_tool("configure", {"action": "status"})
            assert not status.is_error
            assert status.structured_content is not None
            assert status.structured_content["connected"] is False and status.structured_content["fix"]

            result = await client.call_tool("interact", {"action": "navigate", "url": "https://a.test/"})
            assert result.is_error
            assert result.structured_content is not None
            assert result.structured_content["error"] == ErrorCode.EXTENSION_NOT_CONNECTED
            assert "tabpilot" in result.structured_content["message"], "the message names the fix"
