"""Every line a client can send to `tabpilot mcp` is answered: not JSON, nested past any parser's
limit, lone surrogates. Raw JSON-RPC lines on the real subprocess's stdin (no browser needed)."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.abc import Process

from tabpilot.bridge.rescue import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR
from tabpilot.wire.errors import ErrorCode

pytestmark = pytest.mark.anyio

TABPILOT = str(Path(sys.executable).with_name("tabpilot"))
WAIT_S = 60


class Peer:
    """The client's end of a bridge's stdio: send raw lines, read replies by id."""

    def __init__(self, proc: Process) -> None:
        self.proc = proc
        self.buf = b""

    async def send(self, line: str | bytes) -> None:
        assert self.proc.stdin is not None
        data = line.encode() if isinstance(line, str) else line
        await self.proc.stdin.send(data + b"\n")

    async def reply(self, msg_id: Any) -> dict[str, Any]:
        """The next reply with this id (notifications and other replies are skipped)."""
        assert self.proc.stdout is not None
        while True:
            while b"\n" not in self.buf:
                self.buf += await self.proc.stdout.receive()
            raw, _, self.buf = self.buf.partition(b"\n")
            msg = json.loads(raw)
            if "id" in msg and msg["id"] == msg_id and "method" not in msg:
                return msg


@asynccontextmanager
async def bridge(env: dict[str, str]) -> AsyncIterator[Peer]:
    proc = await anyio.open_process([TABPILOT, "mcp"], env=env)
    peer = Peer(proc)
    try:
        hello = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        }
        await peer.send(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}))
        await peer.reply(0)
        await peer.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        yield peer
    finally:
        proc.kill()
        await proc.wait()
        await proc.aclose()


def tool_call(msg_id: int, arguments: Any) -> str:
    params = {"name": "interact", "arguments": arguments}
    return json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": "tools/call", "params": params})


def nested(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        schema = {"type": "array", "items": schema}
    return schema


def deep_text(msg_id: int, depth: int) -> str:
    """A tool call whose output_schema nests `depth` levels, built as text (json.dumps would recurse)."""
    inner = '{"items":' * depth + '{"type":"string"}' + "}" * depth
    args = '{"action":"scrape","operation":"extract","output_schema":' + inner + "}"
    head = f'{{"jsonrpc":"2.0","id":{msg_id},"method":"tools/call",'
    return head + '"params":{"name":"interact","arguments":' + args + "}}"


async def test_every_hostile_line_gets_an_answer_and_the_bridge_goes_on(tp_dirs: dict[str, str]) -> None:
    with anyio.fail_after(WAIT_S):
        async with bridge(tp_dirs) as peer:
            await peer.send("{this is not json")
            parse = await peer.reply(None)
            assert parse["error"]["code"] == PARSE_ERROR

            # Nested 200 deep: past the SDK parser's limit, yet it reaches the tool, which refuses it.
            await peer.send(
                tool_call(1, {"action": "scrape", "operation": "extract", "output_schema": nested(200)})
            )
            result = (await peer.reply(1))["result"]
            assert result["isError"] and result["structuredContent"]["error"] == ErrorCode.INVALID_PARAMS

            # 100,000 deep: answered without ever being parsed.
            await peer.send(deep_text(2, 100_000))
            too_deep = await peer.reply(2)
            assert too_deep["error"]["code"] == INVALID_PARAMS
            assert too_deep["error"]["data"]["error"] == ErrorCode.INVALID_PARAMS

            # A lone surrogate (valid JSON, not Unicode) in a string, and in a key.
            await peer.send(tool_call(3, {"action": "execute_js", "script": "'\ud800'"}))
            surrogate = await peer.reply(3)
            assert surrogate["error"]["code"] == INVALID_PARAMS
            assert surrogate["error"]["data"]["error"] == ErrorCode.INVALID_PARAMS
            assert "script" in surrogate["error"]["message"]
            await peer.send(tool_call(4, {"action": "navigate", "\udfff": 1}))
            assert (await peer.reply(4))["error"]["code"] == INVALID_PARAMS

            # JSON, but no JSON-RPC request.
            await peer.send(json.dumps({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": "x"}))
            assert (await peer.reply(5))["error"]["code"] == INVALID_REQUEST
            await peer.send("[1, 2]")
            assert (await peer.reply(None))["error"]["code"] == INVALID_REQUEST

            # Invalid UTF-8 bytes are read as replacement characters: an ordinary call.
            await peer.send(
                tool_call(6, {"action": "navigate", "url": "x"}).encode().replace(b'"x"', b'"\xff"')
            )
            assert (await peer.reply(6))["result"]["isError"]

            # And the bridge still serves.
            await peer.send(json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/list"}))
            assert len((await peer.reply(7))["result"]["tools"]) == 3
