"""A scripted stand-in for the browser extension: it runs the real native host as Chrome would
(a subprocess speaking native messaging on stdin/stdout) and answers its commands from handlers."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import msgspec

from tabpilot.paths import EXTENSION_ORIGIN
from tabpilot.wire import messages as m
from tabpilot.wire.framing import encode_frame, read_frame

Handler = Callable[[dict[str, Any]], Awaitable[Any] | Any]
_any = msgspec.json.Decoder()


class FakeExtension:
    """Starts `tabpilot native` and plays the extension's side of the native port."""

    def __init__(
        self, env: dict[str, str], instance_id: str = "fake0000instance", *, protocol: int = 1
    ) -> None:
        self.env = env
        self.instance_id = instance_id
        self.protocol = protocol
        self.pilot = True
        self.handlers: dict[str, Handler] = {
            "ping": lambda _: {"pong": True},
            "status": lambda _: {"pilot": self.pilot, "instance_id": self.instance_id},
        }
        self.received: list[dict[str, Any]] = []
        self.welcome: dict[str, Any] | None = None
        self.proc: asyncio.subprocess.Process | None = None
        self._task: asyncio.Task[None] | None = None
        self._chunks: dict[int, list[bytes]] = {}
        self.welcomed = asyncio.Event()
        self.reply_ms: float | None = None  # the worker's own time it reports on each answer

    async def start(self) -> None:
        """Spawn the host, say hello, wait for its welcome."""
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tabpilot.cli", "native", EXTENSION_ORIGIN,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env={**os.environ, **self.env},
            limit=2**16,
        )  # fmt: skip
        self._task = asyncio.get_running_loop().create_task(self._loop())
        self.send(
            {
                "type": "hello",
                "protocol": self.protocol,
                "extension_version": "0.1.0",
                "instance_id": self.instance_id,
                "browser_name": "FakeBrowser",
                "browser_version": "1.0",
                "label": "fake",
                "pilot": self.pilot,
            }
        )
        async with asyncio.timeout(10):
            await self.welcomed.wait()

    def send(self, msg: dict[str, Any] | bytes) -> None:
        """Write one frame to the host's stdin."""
        assert self.proc is not None and self.proc.stdin is not None
        payload = msg if isinstance(msg, bytes) else msgspec.json.encode(msg)
        self.proc.stdin.write(encode_frame(payload))

    def write_raw(self, data: bytes) -> None:
        """Write bytes as they are (to feed broken frames)."""
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write(data)

    async def _loop(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        while True:
            frame = await read_frame(self.proc.stdout, 2 * 1024 * 1024)
            if frame is None:
                return
            assert len(frame) <= m.HOST_TO_CHROME_MAX, "host sent a frame Chrome would refuse"
            msg = _any.decode(frame)
            if msg["type"] == "chunk":
                self._chunks.setdefault(msg["id"], []).append(base64.b64decode(msg["data"]))
                if not msg.get("final"):
                    continue
                msg = _any.decode(b"".join(self._chunks.pop(msg["id"])))
            self.received.append(msg)
            if msg["type"] == "welcome":
                self.welcome = msg
                self.welcomed.set()
                continue
            if "id" not in msg:
                continue  # news from the host (an event): nothing to answer, as in the extension
            handler = self.handlers.get(msg["type"])
            if handler is None:
                self.send(
                    {"type": "error", "id": msg["id"], "code": "unknown_command", "message": msg["type"]}
                )
                continue
            asyncio.get_running_loop().create_task(self._answer(msg, handler))

    async def _answer(self, msg: dict[str, Any], handler: Handler) -> None:
        try:
            value = handler(msg)
            if asyncio.iscoroutine(value):
                value = await value
        except FakeError as exc:
            self.send(
                self._timed({"type": "error", "id": msg["id"], "code": exc.code, "message": exc.message})
            )
            return
        if isinstance(value, NoAnswer):
            return
        self.send(self._timed({"type": "result", "id": msg["id"], "value": value}))

    def _timed(self, answer: dict[str, Any]) -> dict[str, Any]:
        return answer if self.reply_ms is None else {**answer, "ms": self.reply_ms}

    def socket_path(self) -> Path:
        """Where the host listens for bridges."""
        return Path(self.env["TABPILOT_RUNTIME_DIR"]) / f"{self.instance_id}.sock"

    async def stop(self) -> int:
        """Close stdin (as Chrome does when the port closes) and return the host's exit code."""
        assert self.proc is not None
        if self.proc.stdin is not None and not self.proc.stdin.is_closing():
            self.proc.stdin.close()
        async with asyncio.timeout(10):
            code = await self.proc.wait()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        return code


class FakeError(Exception):
    """Raised by a handler to answer with a structured error."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class NoAnswer:
    """Returned by a handler that should never answer (a hung page, a killed worker)."""
