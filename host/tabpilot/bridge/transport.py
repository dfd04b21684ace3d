"""The SDK's read and write streams, straight over the protocol's stdin and stdout (bridge.stdio).

The SDK's own stdio transport puts a task and a memory stream on each side (a reader task parsing
stdin into a stream, a writer task draining a stream to stdout), so every message crosses two extra
task switches. `Server.run` takes any pair of streams, so these parse and serialize in the task that
reads or sends: the dispatcher's relay reads the next line itself, and a handler writes its own reply.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from types import TracebackType
from typing import Protocol, Self

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage

from .rescue import Refusal, log, not_a_message, reread, too_long, unusable_id
from .stdio import MAX_LINE_BYTES, TooLong


class Writer(Protocol):
    """Where serialized messages go (bridge.stdio.Wire)."""

    async def write(self, *parts: bytes) -> None:
        """Write one message, given in parts that end with its newline."""
        ...


class Incoming:
    """Read stream: each line parsed as a JSON-RPC message. A line the parser refuses is read again
    (bridge.rescue) and, if it is no message, answered here with a JSON-RPC error: the SDK's
    dispatcher would drop it in silence and leave the client waiting."""

    def __init__(self, lines: AsyncGenerator[bytes, None], out: Writer | None = None) -> None:
        self._lines = lines
        self._out = out

    async def receive(self) -> SessionMessage | Exception:
        """The next message; raises anyio.EndOfStream at EOF."""
        while True:
            try:
                raw = await anext(self._lines)
            except StopAsyncIteration:
                raise anyio.EndOfStream from None
            if isinstance(raw, TooLong):
                found = await self._refuse(too_long(raw, raw.size, MAX_LINE_BYTES), ValueError("too long"))
                if found is not None:
                    return found
                continue
            line = raw.decode("utf-8", errors="replace")
            try:
                message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            except Exception as exc:
                found = await self._rescue(line, exc)
            else:
                found = SessionMessage(message)
                if isinstance(message, types.JSONRPCNotification) and unusable_id(line):
                    # The SDK drops the unknown key and with it a request whose id is no id.
                    found = await self._refuse(not_a_message({"id": None}), ValueError("unusable id"))
            if found is not None:
                return found

    async def _rescue(self, line: str, exc: Exception) -> SessionMessage | Exception | None:
        """The message after all, or None once the line's error reply is sent (or needs none)."""
        try:
            value = reread(line)
            try:
                return SessionMessage(types.jsonrpc_message_adapter.validate_python(value, by_name=False))
            except Exception:
                raise not_a_message(value) from None
        except Refusal as refusal:
            return await self._refuse(refusal, exc)

    async def _refuse(self, refusal: Refusal, exc: Exception) -> Exception | None:
        """Send the refusal's reply, if it has one; without a writer, `exc` goes to the SDK instead."""
        log.warning("refused a line from the client: %s", refusal.message)
        if self._out is None:
            return exc
        reply = refusal.reply()
        if reply is not None:
            await self._out.write(reply)
        return None

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        """Stop reading."""
        await self._lines.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        await self.aclose()


class Outgoing:
    """Write stream: serializes each message and writes it, in the sender's task."""

    def __init__(self, out: Writer) -> None:
        self._out = out
        self._closed = False

    async def send(self, item: SessionMessage, /) -> None:
        """Write one message; raises as a memory stream would: anyio.ClosedResourceError once closed,
        anyio.BrokenResourceError once the client has gone."""
        if self._closed:
            raise anyio.ClosedResourceError
        message = item.message
        # model_dump_json's bytes without its round trip through str, which costs more than the
        # serializing itself for a result of several MiB.
        data = message.__pydantic_serializer__.to_json(message, by_alias=True, exclude_unset=True)
        try:
            await self._out.write(data, b"\n")
        except (BrokenPipeError, ConnectionResetError) as exc:
            # The client is gone: what a memory stream raises when its receiver is, so the SDK drops
            # the reply quietly (stdin's EOF ends the session) instead of crashing on it.
            raise anyio.BrokenResourceError from exc

    async def aclose(self) -> None:
        """Refuse further messages (each one was written whole already)."""
        self._closed = True

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        await self.aclose()
