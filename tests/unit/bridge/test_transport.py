"""The SDK's read and write streams over the protocol's lines and writer."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator

import anyio
import mcp_types as types
import pytest
from mcp.shared.message import SessionMessage

from tabpilot.bridge.transport import Incoming, Outgoing

pytestmark = pytest.mark.anyio


async def _lines(*lines: str) -> AsyncGenerator[bytes, None]:
    for line in lines:
        yield line.encode()


async def test_lines_become_messages_and_garbage_becomes_the_exception() -> None:
    stream = Incoming(_lines('{"jsonrpc":"2.0","id":1,"method":"ping"}\n', "not json\n"))
    items = [item async for item in stream]
    assert isinstance(items[0], SessionMessage)
    assert isinstance(items[0].message, types.JSONRPCRequest) and items[0].message.method == "ping"
    assert isinstance(items[1], Exception)
    with pytest.raises(anyio.EndOfStream):
        await stream.receive()


async def test_each_message_is_written_as_one_line_until_closed() -> None:
    written: list[bytes] = []

    class Out:
        async def write(self, *parts: bytes) -> None:
            written.append(b"".join(parts))

    async with Outgoing(Out()) as stream:
        await stream.send(SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=1, result={"é": 1})))
    assert len(written) == 1 and written[0].endswith(b"\n") and written[0].count(b"\n") == 1
    assert json.loads(written[0]) == {"jsonrpc": "2.0", "id": 1, "result": {"é": 1}}
    with pytest.raises(anyio.ClosedResourceError):
        await stream.send(SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=2, result={})))


async def test_a_client_that_went_away_is_a_broken_stream_not_a_crash() -> None:
    class Gone:
        async def write(self, *parts: bytes) -> None:
            raise BrokenPipeError(32, "Broken pipe")

    with pytest.raises(anyio.BrokenResourceError):
        await Outgoing(Gone()).send(SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=1, result={})))
