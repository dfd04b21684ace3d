"""The native host answers frames nested past msgspec's recursion limit instead of dying on them."""

from __future__ import annotations

import asyncio

import pytest

from tabpilot.link.client import BrowserPool
from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode
from tabpilot.wire.framing import encode_frame, read_frame
from tests.support.fake_extension import FakeExtension

pytestmark = pytest.mark.anyio

DEPTH = 100_000


def nested() -> bytes:
    return b"[" * DEPTH + b"]" * DEPTH


async def test_a_frame_nested_too_deep_is_answered_and_the_host_goes_on(tp_dirs: dict[str, str]) -> None:
    ext = FakeExtension(tp_dirs)
    await ext.start()
    pool = BrowserPool(connect_wait_s=5)
    try:
        ext.send(
            b'{"type":"result","id":5,"value":' + b"[" * DEPTH + b"]" * DEPTH + b"}"
        )  # from the extension
        reader, writer = await asyncio.open_unix_connection(str(ext.socket_path()))
        writer.write(encode_frame(b'{"type":"scrape","id":9,"request":{"a":' + nested() + b"}}"))
        await writer.drain()
        answer = m.from_host_decoder.decode(await read_frame(reader, 1 << 20) or b"")
        assert isinstance(answer, m.Error) and answer.code == ErrorCode.MALFORMED_MESSAGE
        writer.close()
        assert await pool.call(m.Ping(id=0)) == {"pong": True}, "the host still serves"
    finally:
        await pool.aclose()
        await ext.stop()
