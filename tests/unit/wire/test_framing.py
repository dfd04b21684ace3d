"""Framing and chunking: any byte stream decodes into frames or a framing error, never a crash."""

from __future__ import annotations

import asyncio
import base64
import struct
import sys

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabpilot.wire import messages as m
from tabpilot.wire.framing import (
    ChunkAssembler,
    FrameDecoder,
    FramingError,
    OversizedFrame,
    encode_frame,
    frames_for_chrome,
    read_frame,
)


def test_header_is_native_order_length() -> None:
    frame = encode_frame(b'{"a":1}')
    assert frame[:4] == (7).to_bytes(4, sys.byteorder)
    assert frame[4:] == b'{"a":1}'


@given(st.lists(st.binary(max_size=300), max_size=20), st.integers(min_value=1, max_value=64))
def test_frames_round_trip_whatever_the_split(payloads: list[bytes], step: int) -> None:
    stream = b"".join(encode_frame(p) for p in payloads)
    decoder = FrameDecoder(max_len=1000)
    out: list[bytes | OversizedFrame] = []
    for i in range(0, len(stream), step):
        out.extend(decoder.feed(stream[i : i + step]))
    assert out == payloads
    assert decoder.pending == 0


@given(st.binary(max_size=2000), st.integers(min_value=0, max_value=100))
def test_any_bytes_give_frames_or_skips_never_a_crash(data: bytes, max_len: int) -> None:
    decoder = FrameDecoder(max_len=max_len)
    total = 0
    for item in decoder.feed(data):
        if isinstance(item, OversizedFrame):
            assert item.length > max_len
            total += 4
        else:
            assert len(item) <= max_len
            total += 4 + len(item)
    # Every byte is either in a frame, skipped with an oversized one, or still pending.
    assert total <= len(data) + decoder.pending


def test_oversized_frame_is_skipped_and_stream_stays_in_step() -> None:
    decoder = FrameDecoder(max_len=10)
    stream = encode_frame(b"x" * 50) + encode_frame(b"ok")
    out = list(decoder.feed(stream[:30])) + list(decoder.feed(stream[30:]))
    assert isinstance(out[0], OversizedFrame) and out[1:] == [b"ok"]


def _reader(data: bytes) -> asyncio.StreamReader:
    reader = asyncio.StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    return reader


@given(st.binary(max_size=200))
@settings(max_examples=200)
def test_async_reader_never_crashes(data: bytes) -> None:
    async def consume() -> None:
        reader = _reader(data)
        while True:
            try:
                frame = await read_frame(reader, 100)
            except OversizedFrame:
                continue
            except FramingError:
                return
            if frame is None:
                return
            assert len(frame) <= 100

    asyncio.run(consume())


def test_truncated_frame_is_a_framing_error() -> None:
    async def go() -> None:
        with pytest.raises(FramingError):
            await read_frame(_reader(struct.pack("=I", 10) + b"abc"), 100)
        with pytest.raises(FramingError):
            await read_frame(_reader(b"\x01\x00"), 100)
        assert await read_frame(_reader(b""), 100) is None

    asyncio.run(go())


def _reassemble(frames: list[bytes]) -> bytes:
    parts: list[bytes] = []
    for frame in frames:
        body = frame[4:]
        assert len(body) <= m.HOST_TO_CHROME_MAX, "a frame over 1 MiB would kill the host"
        msg = m.to_extension_decoder.decode(body)
        assert isinstance(msg, m.Chunk)
        parts.append(base64.b64decode(msg.data))
    return b"".join(parts)


@pytest.mark.parametrize(
    "size", [m.HOST_TO_CHROME_MAX - 1, m.HOST_TO_CHROME_MAX, m.HOST_TO_CHROME_MAX + 1, 5 << 20]
)
def test_host_to_chrome_chunking_at_the_1mib_boundary(size: int) -> None:
    payload = b"x" * size
    frames = frames_for_chrome(payload, chunk_id=3)
    if size <= m.HOST_TO_CHROME_MAX:
        assert frames == [encode_frame(payload)]
    else:
        assert len(frames) > 1
        assert _reassemble(frames) == payload


def test_chunk_assembler_joins_and_bounds_memory() -> None:
    asm = ChunkAssembler(max_bytes=10)
    assert asm.add(m.ResultChunk(id=1, seq=0, data='"abc')) is None
    assert asm.add(m.ResultChunk(id=1, seq=1, data='😀"', final=True)) == '"abc😀"'.encode()
    with pytest.raises(FramingError, match="exceeds"):
        asm.add(m.ResultChunk(id=2, seq=0, data="x" * 11))
    assert asm.add(m.ResultChunk(id=2, seq=1, data="y", final=True)) is None  # rest of it ignored
    with pytest.raises(FramingError, match="expected 0"):
        asm.add(m.ResultChunk(id=3, seq=1, data="x"))


def test_messages_round_trip() -> None:
    commands: list[m.Command] = [
        m.Ping(id=1),
        m.GetStatus(id=2),
        m.ListTabs(id=3),
        m.Navigate(id=4, url="http://127.0.0.1:1/", tab_id=7, timeout_ms=10),
        m.ExecuteJs(id=5, script="1 + 1"),
        m.Cancel(id=6, target=5),
    ]
    for cmd in commands:
        assert m.to_extension_decoder.decode(m.encoder.encode(cmd)) == cmd
        assert m.to_host_decoder.decode(m.encoder.encode(cmd)) == cmd
    hello = m.Hello(protocol=1, extension_version="0.1.0", instance_id="abc", pilot=True)
    assert m.from_extension_decoder.decode(m.encoder.encode(hello)) == hello
    err = m.Error(id=3, code="timeout", message="slow", retryable=True)
    assert m.from_host_decoder.decode(m.encoder.encode(err)) == err


def test_newer_peer_fields_are_skipped_and_results_stay_raw() -> None:
    msg = m.from_extension_decoder.decode(b'{"type":"result","id":9,"value":{"a":[1,2]},"added_later":true}')
    assert isinstance(msg, m.Result)
    assert msgspec.json.decode(m.result_value(msg)) == {"a": [1, 2]}
    text = m.from_extension_decoder.decode(b'{"type":"result","id":9,"value_json":"[1,2]"}')
    assert isinstance(text, m.Result) and bytes(m.result_value(text)) == b"[1,2]"


def test_peek_finds_id_of_unknown_types() -> None:
    assert m.peek(b'{"type":"warp","id":4}') == (4, "warp")
    assert m.peek(b"garbage") == (None, None)
