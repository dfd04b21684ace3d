"""The protocol's stdin and stdout, moved off fds 0 and 1 so that stray prints and child processes
write to stderr instead of corrupting the protocol.

MCP clients give a server pipes or sockets, and those are read and written by the event loop itself,
so a message costs no hop between threads. Anything else (a terminal, a file, Windows pipes) is read
by a thread, as the SDK itself would.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import sys
from collections.abc import AsyncGenerator

import anyio
import anyio.to_thread

_CHUNK = 1 << 16
# One message's line: past this it is dropped as it arrives (its start kept, to answer its id), so a
# client sending without newlines cannot grow the bridge without bound.
MAX_LINE_BYTES = 64 * 1024 * 1024
_HEAD_BYTES = 4096


def _pollable(fd: int) -> bool:
    """Whether the event loop can wait on `fd`: a pipe or a socket, on POSIX."""
    if sys.platform == "win32":
        return False
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _same_file(a: int, b: int) -> bool:
    try:
        return os.path.samestat(os.fstat(a), os.fstat(b))
    except OSError:
        return False


class TooLong(bytes):
    """The start of a line longer than the limit, whose rest was dropped unread."""

    size: int = 0  # the line's length in bytes (at least: at EOF, what had come)


class LineSplitter:
    """Cuts a byte stream into newline-terminated lines, skipping blank ones; a line over `limit`
    bytes comes out as its TooLong start."""

    def __init__(self, limit: int = MAX_LINE_BYTES) -> None:
        self._buf = bytearray()
        self._limit = limit
        self._dropping: TooLong | None = None  # the line over the limit being skipped

    def feed(self, chunk: bytes) -> list[bytes]:
        """The lines `chunk` completes; an empty chunk means EOF and flushes an unterminated last line."""
        buf = self._buf
        lines: list[bytes] = []
        if self._dropping is not None:
            end = chunk.find(b"\n")
            if chunk and end < 0:
                self._dropping.size += len(chunk)
                return []
            self._dropping.size += end + 1  # at EOF, end is -1: nothing more came
            lines.append(self._dropping)
            self._dropping = None
            if chunk and not (chunk := chunk[end + 1 :]):
                return lines
        if not chunk:
            last = bytes(buf)
            buf.clear()
            if last and not last.isspace():
                lines.append(last)
            return lines
        scan = len(buf)  # a big message arrives in pieces: never rescan what came before
        buf += chunk
        start = 0
        with memoryview(buf) as view:
            while (end := buf.find(b"\n", scan)) >= 0:
                if end + 1 - start > self._limit:
                    lines.append(_too_long(view[start : start + _HEAD_BYTES], end + 1 - start))
                else:
                    line = bytes(view[start : end + 1])
                    if not line.isspace():
                        lines.append(line)
                start = scan = end + 1
        del buf[:start]
        if len(buf) > self._limit:
            self._dropping = _too_long(buf[:_HEAD_BYTES], len(buf))
            buf.clear()
        return lines


def _too_long(head: bytes | bytearray | memoryview, size: int) -> TooLong:
    line = TooLong(head)
    line.size = size
    return line


class Wire:
    """The descriptors that carry the protocol."""

    @classmethod
    def stdio(cls) -> Wire:
        """Take the protocol off fds 0 and 1, which then read nothing and write to stderr."""
        inp, out = os.dup(0), os.dup(1)
        with contextlib.suppress(OSError):
            devnull = os.open(os.devnull, os.O_RDONLY)
            os.dup2(devnull, 0)
            os.close(devnull)
            os.dup2(2, 1)
        return cls(inp, out)

    def __init__(self, inp: int, out: int) -> None:
        self.inp = inp
        self.out = out
        self.eof = False
        self._lines = LineSplitter()
        # One socket as both stdin and stdout has one blocking flag for both: leave it to threads.
        shared = _same_file(inp, out)
        self._poll_in = not shared and _pollable(inp)
        self._poll_out = not shared and _pollable(out)
        self._out_nonblocking = False
        self._send_lock: asyncio.Lock | None = None

    async def read_lines(self) -> AsyncGenerator[bytes, None]:
        """Stdin, line by line, until EOF."""
        if self._poll_in:
            os.set_blocking(self.inp, False)
        while not self.eof:
            if self._poll_in:
                try:
                    chunk = os.read(self.inp, _CHUNK)
                except BlockingIOError:
                    await _readable(self.inp)
                    continue
            else:
                chunk = await anyio.to_thread.run_sync(_read, self.inp, abandon_on_cancel=True)
            self.eof = not chunk
            for line in self._lines.feed(chunk):
                yield line

    async def write(self, *parts: bytes) -> None:
        """Write one message, given in parts. Messages never interleave, and one that has begun goes
        out whole even if its sender is cancelled: half a message would corrupt every later one."""
        if self._send_lock is None:
            self._send_lock = asyncio.Lock()
        async with self._send_lock:
            views = [memoryview(p) for p in parts]
            if not self._poll_out:
                await anyio.to_thread.run_sync(_write_all, self.out, views)  # waited for even if cancelled
                return
            if not self._out_nonblocking:
                os.set_blocking(self.out, False)
                self._out_nonblocking = True
            with contextlib.suppress(BlockingIOError):
                _advance(views, os.writev(self.out, views))
            if views:
                # The pipe is full: a big result, or a client slow to read. A thread finishes it, since
                # from the event loop each page the client reads would cost a loop iteration.
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(_write_blocking, self.out, views)


def _read(fd: int) -> bytes:
    try:
        return os.read(fd, _CHUNK)
    except OSError:
        return b""


def _write_all(fd: int, views: list[memoryview]) -> None:
    while views:
        _advance(views, os.writev(fd, views))


def _advance(views: list[memoryview], written: int) -> None:
    """Drop the first `written` bytes from `views`."""
    while views and written >= len(views[0]):
        written -= len(views.pop(0))
    if views:
        views[0] = views[0][written:]


def _write_blocking(fd: int, views: list[memoryview]) -> None:
    """Write all of `views` to `fd`, switched to blocking meanwhile (nothing else uses it: the caller
    holds the send lock), so the kernel waits for room without a return to Python per page read."""
    os.set_blocking(fd, True)
    try:
        _write_all(fd, views)
    finally:
        os.set_blocking(fd, False)


async def _readable(fd: int) -> None:
    """Wait until `fd` can be read without blocking."""
    loop = asyncio.get_running_loop()
    ready: asyncio.Future[None] = loop.create_future()

    def wake() -> None:
        if not ready.done():
            ready.set_result(None)

    # Registered only while waiting, so a reader that stops to hand a line on never spins the loop.
    loop.add_reader(fd, wake)
    try:
        await ready
    finally:
        loop.remove_reader(fd)
