"""What every tool action gets: the backend it talks to (the host pool) and a per-call handle."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar, cast

import anyio
import msgspec
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, ImageContent, TextContent

from ...wire.errors import ErrorCode, TabPilotError
from ...wire.messages import BrowserInfo, Command, Progress

log = logging.getLogger("tabpilot.bridge")

# After launching the dedicated profile, how long calls keep waiting for its host to appear.
LAUNCH_WAIT_S = 30.0
_RETRY_PAUSE_S = 0.2


class Pool(Protocol):
    """The connected browsers as the tools see them (link.client.BrowserPool, or a fake in tests)."""

    async def call(
        self,
        command: Command,
        *,
        browser: str | None = None,
        timeout_s: float | None = None,
        on_progress: OnProgress | None = None,
    ) -> Any:
        """Send a command to the chosen browser's host and return the decoded result value."""
        ...

    async def browsers(self) -> Sequence[BrowserInfo]:
        """The browsers connected right now."""
        ...

    async def aclose(self) -> None:
        """Close every connection."""
        ...


Launcher = Callable[[], Awaitable[None]]
OnProgress = Callable[[Progress], Awaitable[None]]
T = TypeVar("T")


class Backend:
    """The pool, plus the dedicated profile to start when a call finds no browser connected."""

    def __init__(self, pool: Pool, launch: Launcher | None = None, launch_name: str | None = None) -> None:
        self.pool = pool
        self.launch = launch
        self.launch_name = launch_name
        self._launch_lock = anyio.Lock()

    async def call(
        self,
        command: Command,
        *,
        browser: str | None = None,
        timeout_s: float | None = None,
        on_progress: OnProgress | None = None,
    ) -> Any:
        """pool.call, launching the dedicated profile first if none is connected and one was configured."""
        kw: dict[str, Any] = {"browser": browser, "timeout_s": timeout_s}
        if on_progress is not None:
            # Only progress-aware callers pass it, so simpler pools (test fakes) need not know it.
            kw["on_progress"] = on_progress
        try:
            return await self.pool.call(command, **kw)
        except TabPilotError as exc:
            if exc.code != ErrorCode.EXTENSION_NOT_CONNECTED or self.launch is None:
                raise
        await self._launch_if_needed()
        with anyio.move_on_after(LAUNCH_WAIT_S):
            while True:
                try:
                    return await self.pool.call(command, **kw)
                except TabPilotError as exc:
                    if exc.code != ErrorCode.EXTENSION_NOT_CONNECTED:
                        raise
                # pool.call already waited for a host to appear; this only keeps a fast-failing pool
                # from spinning.
                await anyio.sleep(_RETRY_PAUSE_S)
        raise TabPilotError(
            ErrorCode.LAUNCH_FAILED,
            f"started the dedicated profile {self.launch_name!r} but its extension did not connect within "
            f"{LAUNCH_WAIT_S:.0f} s; run `tabpilot doctor`",
        )

    async def _launch_if_needed(self) -> None:
        assert self.launch is not None
        # Concurrent calls launch once: the ones that waited find the browser already there.
        async with self._launch_lock:
            if await self.pool.browsers():
                return
            log.warning("no browser connected: launching profile %r", self.launch_name)
            await self.launch()


@dataclass
class Call:
    """One tool call as an action sees it: where to send commands and how to report progress."""

    backend: Backend
    browser: str | None
    ctx: Context[Any, Any] | None = None

    async def send(
        self, command: Command, *, timeout_s: float | None = None, on_progress: OnProgress | None = None
    ) -> Any:
        """Send a command to the selected browser; return the decoded result value."""
        return await self.backend.call(
            command, browser=self.browser, timeout_s=timeout_s, on_progress=on_progress
        )

    async def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Report progress if the client asked for it (a no-op otherwise)."""
        if self.ctx is not None:
            await self.ctx.report_progress(progress, total, message)


_encoder = msgspec.json.Encoder()


def encode(value: Any) -> bytes:
    """Compact JSON, as the agent reads it."""
    return _encoder.encode(value)


@dataclass(frozen=True)
class Encoded(Generic[T]):
    """An action's result with its JSON text, for an action that had to encode it anyway (to measure it)."""

    value: T
    text: bytes


@dataclass(frozen=True)
class Image(Generic[T]):
    """An action's result that is a picture: MCP image content, with `meta` as structured content and text."""

    data: str  # base64
    mime: str
    meta: T


def ok(result: Any) -> CallToolResult:
    """A success result: structured content plus the same JSON as text (after the picture, for an Image)."""
    if isinstance(result, Image):
        image = cast(Image[Any], result)
        text = encode(image.meta).decode()
        return CallToolResult(
            content=[ImageContent(data=image.data, mime_type=image.mime), TextContent(text=text)],
            structured_content=image.meta,
        )
    if not isinstance(result, Encoded):
        result = Encoded(result, encode(result))
    encoded = cast(Encoded[Any], result)
    return CallToolResult(content=[TextContent(text=encoded.text.decode())], structured_content=encoded.value)


def error(exc: TabPilotError) -> CallToolResult:
    """An is_error result the agent can act on: {"error": code, "message": what happened and what to do}."""
    value = exc.to_dict()
    return CallToolResult(
        content=[TextContent(text=encode(value).decode())], structured_content=value, is_error=True
    )
