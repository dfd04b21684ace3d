"""Length-prefixed frames (4-byte native-order length, then UTF-8 JSON) and chunking across limits."""

from __future__ import annotations

import asyncio
import base64
import struct
from collections.abc import Iterator

from .messages import HOST_CHUNK_RAW, HOST_TO_CHROME_MAX, Chunk, ResultChunk, encoder

_HEADER = struct.Struct("=I")
HEADER_SIZE = _HEADER.size


class FramingError(Exception):
    """The byte stream broke the framing rules (a frame over the limit, or cut short)."""


class OversizedFrame(FramingError):
    """A frame announced more bytes than allowed; its body was skipped, the stream is still in step."""

    def __init__(self, length: int, limit: int) -> None:
        super().__init__(f"frame of {length} bytes exceeds the limit of {limit}")
        self.length = length
        self.limit = limit


def encode_frame(payload: bytes) -> bytes:
    """One frame: header plus payload."""
    return _HEADER.pack(len(payload)) + payload


class FrameDecoder:
    """Incremental decoder: feed bytes, get whole frames; memory stays bounded by `max_len`."""

    def __init__(self, max_len: int) -> None:
        self.max_len = max_len
        self._buf = bytearray()
        self._skip = 0

    def feed(self, data: bytes) -> Iterator[bytes | OversizedFrame]:
        """Yield each completed frame, or an OversizedFrame for a frame that was skipped."""
        self._buf += data
        while True:
            if self._skip:
                n = min(self._skip, len(self._buf))
                del self._buf[:n]
                self._skip -= n
                if self._skip:
                    return
            if len(self._buf) < HEADER_SIZE:
                return
            (length,) = _HEADER.unpack_from(self._buf)
            if length > self.max_len:
                del self._buf[:HEADER_SIZE]
                self._skip = length
                yield OversizedFrame(length, self.max_len)
                continue
            if len(self._buf) < HEADER_SIZE + length:
                return
            frame = bytes(self._buf[HEADER_SIZE : HEADER_SIZE + length])
            del self._buf[: HEADER_SIZE + length]
            yield frame

    @property
    def pending(self) -> int:
        """Bytes held that do not yet make a frame (non-zero at EOF means a truncated frame)."""
        return len(self._buf) + self._skip


async def read_frame(reader: asyncio.StreamReader, max_len: int) -> bytes | None:
    """Read one frame; None on a clean EOF. Raises OversizedFrame (after skipping it) or FramingError."""
    try:
        header = await reader.readexactly(HEADER_SIZE)
    except asyncio.IncompleteReadError as exc:
        if exc.partial:
            raise FramingError("stream ended inside a frame header") from None
        return None
    (length,) = _HEADER.unpack(header)
    if length > max_len:
        remaining = length
        while remaining:
            got = await reader.read(min(remaining, 1 << 20))
            if not got:
                break
            remaining -= len(got)
        raise OversizedFrame(length, max_len)
    try:
        return await reader.readexactly(length)
    except asyncio.IncompleteReadError:
        raise FramingError(f"stream ended inside a frame of {length} bytes") from None


def frames_for_chrome(payload: bytes, chunk_id: int) -> list[bytes]:
    """Frames carrying `payload` to Chrome, each within its 1 MiB limit (Chunk messages if needed)."""
    if len(payload) <= HOST_TO_CHROME_MAX:
        return [encode_frame(payload)]
    frames: list[bytes] = []
    pieces = range(0, len(payload), HOST_CHUNK_RAW)
    last = pieces[-1]
    for seq, start in enumerate(pieces):
        data = base64.b64encode(payload[start : start + HOST_CHUNK_RAW]).decode("ascii")
        body = encoder.encode(Chunk(id=chunk_id, seq=seq, data=data, final=start == last))
        assert len(body) <= HOST_TO_CHROME_MAX
        frames.append(encode_frame(body))
    return frames


class ChunkAssembler:
    """Joins ResultChunk pieces per command id, refusing to hold more than `max_bytes` for one result."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._parts: dict[int, list[str]] = {}
        self._sizes: dict[int, int] = {}
        self._next: dict[int, int] = {}
        self._dropped: set[int] = set()

    def add(self, chunk: ResultChunk) -> bytes | None:
        """Add a piece; return the whole JSON text once the final piece arrives.

        Raises FramingError for an out-of-order piece or a result over the limit; later pieces of that
        result are then ignored.
        """
        if chunk.id in self._dropped:
            if chunk.final:
                self._dropped.discard(chunk.id)
            return None
        expected = self._next.get(chunk.id, 0)
        if chunk.seq != expected:
            self._drop(chunk)
            raise FramingError(f"result {chunk.id}: piece {chunk.seq} arrived, expected {expected}")
        size = self._sizes.get(chunk.id, 0) + len(chunk.data)
        if size > self.max_bytes:
            self._drop(chunk)
            raise FramingError(f"result {chunk.id} exceeds {self.max_bytes} bytes")
        self._parts.setdefault(chunk.id, []).append(chunk.data)
        self._sizes[chunk.id] = size
        self._next[chunk.id] = expected + 1
        if not chunk.final:
            return None
        text = "".join(self._parts.pop(chunk.id))
        del self._sizes[chunk.id], self._next[chunk.id]
        return text.encode("utf-8", "surrogatepass")

    def discard(self, command_id: int) -> None:
        """Forget a partial result (its command was cancelled or timed out)."""
        self._parts.pop(command_id, None)
        self._sizes.pop(command_id, None)
        self._next.pop(command_id, None)

    def _drop(self, chunk: ResultChunk) -> None:
        self.discard(chunk.id)
        if not chunk.final:
            self._dropped.add(chunk.id)
