"""`tabpilot mcp` as a real subprocess, spoken to over stdio by the SDK's client, with no browser."""

from __future__ import annotations

import os
import socket
import sys
import threading
from pathlib import Path

import anyio
import anyio.to_thread
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client, StdioServerParameters

from tabpilot.bridge.stdio import LineSplitter, Wire
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


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"x")), max_size=8),
    st.lists(st.integers(min_value=1, max_value=50), max_size=20),
    st.booleans(),
)
def test_lines_come_out_whole_however_the_bytes_are_cut(
    lines: list[bytes], cuts: list[int], terminated: bool
) -> None:
    data = b"\n".join(lines) + (b"\n" if terminated else b"")
    splitter = LineSplitter()
    out: list[bytes] = []
    pos = 0
    for cut in [*cuts, len(data)]:
        chunk = data[pos : pos + cut]
        if chunk:
            out += splitter.feed(chunk)
        pos += cut
    out += splitter.feed(b"")
    wanted = [x for x in lines if x.strip()]
    assert [x.rstrip(b"\n") for x in out] == wanted
    assert all(x.endswith(b"\n") for x in out[: len(wanted) - (0 if terminated else 1)])


def _wire_on_pipes() -> tuple[Wire, int, int]:
    """A wire on fresh pipes, and the client's ends: where it writes requests, where it reads replies."""
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    return Wire(in_r, out_w), in_w, out_r


async def test_the_event_loop_reads_and_writes_the_pipes() -> None:
    wire, to_bridge, from_bridge = _wire_on_pipes()
    assert not wire.eof
    big = b'{"r":"' + b"x" * (3 * 2**20) + b'"}\n'  # far more than a pipe holds: write waits for room
    received = bytearray()

    def client() -> None:
        os.write(to_bridge, b'{"id":1}\n\n{"id"')
        os.write(to_bridge, b':2}\n{"id":3}')
        os.close(to_bridge)
        while chunk := os.read(from_bridge, 2**16):
            received.extend(chunk)

    reader = threading.Thread(target=client)
    reader.start()
    with anyio.fail_after(10):
        assert [line async for line in wire.read_lines()] == [b'{"id":1}\n', b'{"id":2}\n', b'{"id":3}']
        await wire.write(big)
        await wire.write(b"{}\n")
    os.close(wire.out)
    await anyio.to_thread.run_sync(reader.join, 10)
    assert bytes(received) == big + b"{}\n"


async def test_a_file_or_terminal_is_read_by_a_thread(tmp_path: Path) -> None:
    requests = tmp_path / "in.jsonl"
    requests.write_bytes(b'{"id":1}\n{"id":2}\n')
    replies = tmp_path / "out.jsonl"
    with open(requests, "rb") as inp, open(replies, "wb") as out:
        wire = Wire(inp.fileno(), out.fileno())
        with anyio.fail_after(10):
            assert [line async for line in wire.read_lines()] == [b'{"id":1}\n', b'{"id":2}\n']
            await wire.write(b'{"id":1,"result":{}}\n')
    assert replies.read_bytes() == b'{"id":1,"result":{}}\n'


async def test_a_message_once_begun_goes_out_whole_even_if_its_sender_is_cancelled() -> None:
    wire, _, from_bridge = _wire_on_pipes()
    big = b'{"r":"' + b"x" * 2**20 + b'"}\n'
    received = bytearray()

    def client() -> None:
        while chunk := os.read(from_bridge, 2**16):
            received.extend(chunk)

    reader = threading.Thread(target=client)
    reader.start()
    with anyio.fail_after(10):
        with anyio.move_on_after(0):  # cancelled while the pipe is still full
            await wire.write(big)
        await wire.write(b"{}\n")
    os.close(wire.out)
    await anyio.to_thread.run_sync(reader.join, 10)
    assert bytes(received) == big + b"{}\n"


async def test_one_socket_as_stdin_and_stdout_stays_blocking_and_is_served_by_threads() -> None:
    client, bridge = socket.socketpair()
    wire = Wire(bridge.fileno(), os.dup(bridge.fileno()))  # what `tabpilot mcp <&3 >&3` would get
    client.sendall(b'{"id":1}\n{"id":2}\n')
    client.shutdown(socket.SHUT_WR)
    with anyio.fail_after(10):
        assert [line async for line in wire.read_lines()] == [b'{"id":1}\n', b'{"id":2}\n']
        await wire.write(b"{}", b"\n")
    assert os.get_blocking(bridge.fileno()), "a shared O_NONBLOCK would break the other direction"
    assert client.recv(16) == b"{}\n"
    client.close()
    bridge.close()
