"""`tabpilot mcp` as a real subprocess, spoken to over stdio by the SDK's client, with no browser."""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tabpilot.wire.errors import ErrorCode

pytestmark = pytest.mark.anyio

TABPILOT = str(Path(sys.executable).with_name("tabpilot"))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def empty_dirs() -> Iterator[dict[str, str]]:
    """TabPilot directories in which no browser is connected."""
    base = Path(tempfile.mkdtemp(prefix="tpb", dir="/tmp"))
    yield {
        "TABPILOT_RUNTIME_DIR": str(base / "run"),
        "TABPILOT_STATE_DIR": str(base / "state"),
        "TABPILOT_DATA_DIR": str(base / "data"),
    }
    shutil.rmtree(base, ignore_errors=True)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_mcp_over_stdio_without_a_browser(empty_dirs: dict[str, str], mode: str) -> None:
    params = StdioServerParameters(command=TABPILOT, args=["mcp"], env=empty_dirs)
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
