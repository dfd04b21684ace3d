"""The native messaging host: one extension on the native port, the engine, and the bridges' socket.

It relays bridge commands to the extension (bridges.py serves the socket), runs the engine's
commands through `call`, and ends when the extension's stream does (command.py starts it).
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import msgspec

from .. import __version__, paths
from ..engine.trace import note_extension_ms
from ..wire import messages as m
from ..wire.errors import ErrorCode, TabPilotError
from ..wire.framing import (
    ChunkAssembler,
    FramingError,
    OversizedFrame,
    frames_for_chrome,
    read_frame,
)
from .bridges import Bridge, BridgeListener

if TYPE_CHECKING:
    from .engine_port import EnginePort

log = logging.getLogger("tabpilot.host")

# Answer a command the extension never answers (a killed worker, a hung page) after its own
# timeout plus this much, so a bridge never waits forever.
_GRACE_S = 5.0
_DEFAULT_DEADLINE_S = 60.0


@dataclass
class _Pending:
    """A command sent to the extension: who gets the answer (a bridge, or the engine's future)."""

    deliver: Callable[[m.Result | m.Error], None]
    timer: asyncio.TimerHandle
    bridge: Bridge | None = None
    bridge_id: int = 0


class NativeHost:
    """Relays between one extension (over the native port) and any number of bridges (over the socket)."""

    def __init__(self, ext_out: asyncio.StreamWriter, runtime_dir: Path) -> None:
        self._ext_out = ext_out
        self._hello: m.Hello | None = None
        self._pilot = False
        self._connected_at = 0.0
        self._pending: dict[int, _Pending] = {}
        self._assembler = ChunkAssembler(m.MAX_RESULT_BYTES)
        self._next_id = 1
        self._next_chunk = 1
        self._closed = False
        self.bridges = BridgeListener(self, runtime_dir)
        self._engine: EnginePort | None = None

    @property
    def engine(self) -> EnginePort:
        """The engine's service, loaded by the first request for it: Chrome starts a host with every
        browser and every extension reload, and most of them never scrape."""
        if self._engine is None:
            from .engine_port import EnginePort

            self._engine = EnginePort(
                self,
                paths.data_dir(),
                lambda: self._pilot,
                self._announce,
                lambda: self._hello.instance_id if self._hello else "",
            )
        return self._engine

    # --- extension side ---

    async def run(self, ext_in: asyncio.StreamReader) -> None:
        """Serve until the extension's stream ends."""
        try:
            while True:
                try:
                    frame = await read_frame(ext_in, m.CHROME_TO_HOST_MAX)
                except OversizedFrame as exc:
                    log.error("skipped a frame from the extension: %s", exc)
                    continue
                except FramingError as exc:
                    log.error("extension stream broken: %s", exc)
                    break
                if frame is None:
                    log.info("extension stream ended (EOF): exiting")
                    break
                await self.on_extension_frame(frame)
        finally:
            await self.close()

    async def on_extension_frame(self, frame: bytes) -> None:
        """Handle one message from the extension; a bad one is logged and, with an id, answered."""
        try:
            msg: m.FromExtension = m.from_extension_decoder.decode(frame)
        except (msgspec.DecodeError, RecursionError) as exc:  # msgspec's C guard: nested too deep
            msg_id, kind = m.peek(frame)
            log.warning("unreadable message from extension (type %r)", kind)
            if msg_id is not None:
                self._send_ext(m.Error(id=msg_id, code=ErrorCode.MALFORMED_MESSAGE, message=str(exc)))
            return
        match msg:
            case m.Hello():
                await self._on_hello(msg)
            case m.Result():
                self._resolve(msg.id, m.Result(id=0, value=m.result_value(msg), ms=msg.ms))
            case m.ResultChunk():
                try:
                    whole = self._assembler.add(msg)
                except FramingError as exc:
                    code = (
                        ErrorCode.RESULT_TOO_LARGE if "exceeds" in str(exc) else ErrorCode.MALFORMED_MESSAGE
                    )
                    self._resolve(msg.id, m.Error(code=code, message=str(exc)))
                    return
                if whole is not None:
                    self._resolve(msg.id, m.Result(id=0, value=msgspec.Raw(whole), ms=msg.ms))
            case m.Error():
                if msg.id is None:
                    log.warning("extension reported: %s", msg.code)
                else:
                    self._resolve(msg.id, msg)
            case m.Event():
                self._on_event(msg)

    async def _on_hello(self, hello: m.Hello) -> None:
        self._hello = hello
        self._pilot = hello.pilot
        self._connected_at = time.time()
        ok = hello.protocol == m.PROTOCOL_VERSION
        message = "" if ok else self._mismatch_message()
        log.info(
            "hello from %s %s (extension %s, protocol %s, instance %s)",
            hello.browser_name,
            hello.browser_version,
            hello.extension_version,
            hello.protocol,
            hello.instance_id,
        )
        if not self.bridges.listening:
            await self.bridges.listen(hello.instance_id)
        # Welcome last: once the extension has it, bridges can already reach this host.
        self._send_ext(
            m.Welcome(protocol=m.PROTOCOL_VERSION, host_version=__version__, accepted=ok, message=message)
        )

    def mismatch(self) -> str | None:
        """Why bridges are refused while the extension speaks another protocol (None: it does not)."""
        if self._hello is None or self._hello.protocol == m.PROTOCOL_VERSION:
            return None
        return self._mismatch_message()

    def _mismatch_message(self) -> str:
        theirs = self._hello.protocol if self._hello else "?"
        return (
            f"protocol mismatch: the extension speaks protocol {theirs}, this host (TabPilot {__version__}) "
            f"speaks {m.PROTOCOL_VERSION}. Update both to the same TabPilot release and reload the extension."
        )

    def _on_event(self, event: m.Event) -> None:
        data: Any = event.data
        if event.name == "pilot" and isinstance(data, dict):
            self._pilot = bool(cast(dict[str, Any], data).get("enabled"))
            log.info("pilot %s", "on" if self._pilot else "off")

    def _announce(self, workflow: dict[str, Any]) -> None:
        """What a scrape is doing, for the popup (an event without id: an older extension ignores it)."""
        if not self._closed:
            self._send_ext(m.Event(name="workflow", data=workflow))

    def _send_ext(self, msg: m.Message) -> None:
        payload = m.encoder.encode(msg)
        chunk_id = self._next_chunk
        self._next_chunk += 1
        for frame in frames_for_chrome(payload, chunk_id):
            self._ext_out.write(frame)

    def _resolve(self, ext_id: int, answer: m.Result | m.Error) -> None:
        pending = self._pending.pop(ext_id, None)
        if pending is None:
            log.debug("answer for unknown or expired command %s", ext_id)
            return
        pending.timer.cancel()
        if pending.bridge is not None:
            pending.bridge.ext_ids.discard(ext_id)
        pending.deliver(answer)

    def _expire(self, ext_id: int, seconds: float) -> None:
        self._assembler.discard(ext_id)
        self._resolve(
            ext_id,
            m.Error(
                code=ErrorCode.TIMEOUT,
                message=f"the extension did not answer within {seconds:.0f} s",
                retryable=True,
            ),
        )

    # --- commands to the extension (a bridge's or the engine's) ---

    def send_command(
        self, cmd: m.Command, deliver: Callable[[m.Result | m.Error], None], bridge: Bridge | None = None
    ) -> int:
        """Send a command to the extension under a fresh id, with a deadline; `deliver` gets the answer."""
        ext_id = self._next_id
        self._next_id += 1
        timeout_ms: Any = getattr(cmd, "timeout_ms", None)
        seconds = timeout_ms / 1000 + _GRACE_S if isinstance(timeout_ms, int) else _DEFAULT_DEADLINE_S
        timer = asyncio.get_running_loop().call_later(seconds, self._expire, ext_id, seconds)
        self._pending[ext_id] = _Pending(deliver, timer, bridge, cmd.id)
        self._send_ext(msgspec.structs.replace(cmd, id=ext_id))
        return ext_id

    def cancel(self, bridge: Bridge, bridge_id: int) -> bool:
        """Cancel in the extension the command a bridge sent under `bridge_id`; False if none is pending."""
        target = next(
            (k for k, p in self._pending.items() if p.bridge is bridge and p.bridge_id == bridge_id),
            None,
        )
        if target is not None:
            self._send_ext(m.Cancel(id=0, target=target))
        return target is not None

    def forget(self, ext_ids: Iterable[int]) -> None:
        """A bridge went: nobody waits for the answers to these commands any more."""
        for ext_id in ext_ids:
            pending = self._pending.pop(ext_id, None)
            if pending:
                pending.timer.cancel()

    async def call(self, command: m.Command) -> Any:
        """The engine's Browser: run one command in the extension and return its decoded value."""
        cmd = command
        if self._closed:
            raise _gone()
        fut: asyncio.Future[m.Result | m.Error] = asyncio.get_running_loop().create_future()

        def deliver(answer: m.Result | m.Error) -> None:
            if not fut.done():
                fut.set_result(answer)

        ext_id = self.send_command(cmd, deliver)
        try:
            answer = await fut
        except asyncio.CancelledError:
            pending = self._pending.pop(ext_id, None)
            if pending is not None:
                pending.timer.cancel()
                self._send_ext(m.Cancel(id=0, target=ext_id))
            raise
        note_extension_ms(answer.ms)
        if isinstance(answer, m.Error):
            raise TabPilotError(answer.code, answer.message, retryable=answer.retryable, data=answer.data)
        return msgspec.json.decode(m.result_value(answer))

    def info(self) -> m.BrowserInfo:
        """This host and its browser, as bridges see it."""
        h = self._hello
        return m.BrowserInfo(
            instance_id=h.instance_id if h else "",
            label=h.label if h else "",
            profile=h.profile if h else "",
            browser_name=h.browser_name if h else "",
            browser_version=h.browser_version if h else "",
            extension_version=h.extension_version if h else "",
            protocol=h.protocol if h else 0,
            protocol_ok=h is not None and h.protocol == m.PROTOCOL_VERSION,
            host_version=__version__,
            pilot=self._pilot,
            pid=os.getpid(),
            connected_at=self._connected_at,
        )

    async def close(self) -> None:
        """Fail what waits on the extension, let scrapes answer with their partial data, stop listening
        and remove our socket (only if it is still ours)."""
        self._closed = True
        pending_now = list(self._pending.values())
        self._pending.clear()
        for pending in pending_now:
            pending.timer.cancel()
            gone = _gone()
            pending.deliver(m.Error(code=gone.code, message=gone.message, retryable=True))
        if self._engine is not None:
            await self._engine.shutdown()
        await self.bridges.close()


def _gone() -> TabPilotError:
    return TabPilotError(
        ErrorCode.EXTENSION_DISCONNECTED,
        "the browser extension disconnected before answering",
        retryable=True,
    )
