"""The whole local chain without a browser: MCP stdio client -> `tabpilot mcp` -> real native host ->
scripted fake extension."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp_types import CallToolResult

from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode
from tests.support.fake_extension import FakeError, FakeExtension, NoAnswer

pytestmark = pytest.mark.anyio

TABPILOT = str(Path(sys.executable).with_name("tabpilot"))
MIB = 1024 * 1024


def _data(result: CallToolResult) -> Any:
    assert result.structured_content is not None
    return result.structured_content


def _stream(ext: FakeExtension, msg_id: int, value: Any) -> NoAnswer:
    """Answer with result chunks, the way the extension sends big values."""
    text = m.encoder.encode(value).decode()
    pieces = [text[i : i + m.EXT_CHUNK_CHARS] for i in range(0, len(text), m.EXT_CHUNK_CHARS)]
    for seq, piece in enumerate(pieces):
        final = seq == len(pieces) - 1
        ext.send({"type": "result_chunk", "id": msg_id, "seq": seq, "data": piece, "final": final})
    return NoAnswer()


async def test_tools_through_the_real_host(tp_dirs: dict[str, str]) -> None:
    ext = FakeExtension(tp_dirs)
    await ext.start()
    big = "é" * (4 * MIB + 100) + "😀"  # over 8 MiB of UTF-8
    tab = {"id": 5, "url": "http://127.0.0.1/", "title": "T", "active": True, "window_id": 1}
    ext.handlers["tabs"] = lambda _: {"tabs": [tab]}
    ext.handlers["navigate"] = lambda msg: {"tab_id": 5, "url": msg["url"], "title": "Loaded"}
    ext.handlers["execute_js"] = lambda msg: _stream(ext, msg["id"], {"success": True, "result": big})
    params = StdioServerParameters(command=TABPILOT, args=["mcp"], env=tp_dirs)
    try:
        with anyio.fail_after(60):
            async with Client(params, mode="legacy") as client:
                status = _data(await client.call_tool("configure", {"action": "status"}))
                assert status["connected"] is True and status["pilot_enabled"] is True
                assert status["browser"] == ext.instance_id and status["versions"]["host"]

                tabs = _data(await client.call_tool("observe", {"what": "tabs"}))
                assert tabs == {"tabs": [tab]}

                args = {"action": "navigate", "url": "http://127.0.0.1/x"}
                assert _data(await client.call_tool("interact", args))["title"] == "Loaded"

                args = {"action": "execute_js", "script": "big()"}
                too_large = await client.call_tool("interact", args)
                assert too_large.is_error and _data(too_large)["error"] == ErrorCode.RESULT_TOO_LARGE

                result = await client.call_tool("interact", {**args, "max_result_bytes": 16 * MIB})
                assert not result.is_error
                assert _data(result)["result"] == big

                def off(_: dict[str, Any]) -> None:
                    raise FakeError("ai_web_pilot_disabled", "Enable 'AI Web Pilot' in extension popup")

                ext.handlers["execute_js"] = off
                disabled = await client.call_tool("interact", args)
                assert disabled.is_error and _data(disabled)["error"] == ErrorCode.AI_WEB_PILOT_DISABLED
    finally:
        await ext.stop()
