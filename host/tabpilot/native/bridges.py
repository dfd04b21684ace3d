"""The host's side of the local socket: bridges connect, and their commands are answered or relayed.

The socket is `<runtime dir>/<instance id>.sock`, bound under a private name and renamed into place
once listening; a peer's uid is checked before anything is read from it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shlex
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import msgspec

from ..engine import regex, urlscrub
from ..link import localsock, refusal
from ..wire import messages as m
from ..wire.errors import ErrorCode, TabPilotError
from ..wire.framing import FramingError, OversizedFrame, encode_frame, read_frame

if TYPE_CHECKING:
    from .engine_port import EnginePort

log = logging.getLogger("tabpilot.host")


@dataclass(eq=False)
class Bridge:
    """One connected bridge, and the extension commands it waits on (dropped when it goes)."""

    writer: asyncio.StreamWriter
    ext_ids: set[int] = field(default_factory=lambda: set[int]())
    # The dedicated profile this host's browser runs ("" for an everyday browser).
    profile: str = ""

    def send(self, msg: m.Message) -> None:
        """Write one message to the bridge, unless it has gone."""
        if self.profile and isinstance(msg, m.Error) and msg.code == ErrorCode.AI_WEB_PILOT_DISABLED:
            msg = msgspec.structs.replace(msg, message=pilot_off_fix(msg.message, self.profile))
        if not self.writer.is_closing():
            self.writer.write(encode_frame(m.encoder.encode(msg)))


def pilot_off_fix(message: str, profile: str) -> str:
    """The pilot-off refusal of a dedicated profile, naming the command by which its person opts it in
    (a headless profile has no popup to click)."""
    name = shlex.quote(profile)
    return (
        f"{message}, or, for this dedicated profile, run: tabpilot browser launch --profile {name} --pilot "
        f"(after tabpilot browser stop --profile {name} if it runs)"
    )


class Host(Protocol):
    """What the socket needs from the native host (host.py): who it is, its engine, the extension."""

    @property
    def engine(self) -> EnginePort:
        """The engine's requests (scrapes, their results, workflows, strategies)."""
        ...

    def info(self) -> m.BrowserInfo:
        """This host and its browser, as bridges see it."""
        ...

    def mismatch(self) -> str | None:
        """Why bridges are refused, if the extension speaks another protocol."""
        ...

    def send_command(
        self, cmd: m.Command, deliver: Callable[[m.Result | m.Error], None], bridge: Bridge | None = None
    ) -> int:
        """Send a command to the extension; `deliver` gets its answer."""
        ...

    def cancel(self, bridge: Bridge, bridge_id: int) -> bool:
        """Cancel the command a bridge sent under `bridge_id`."""
        ...

    def forget(self, ext_ids: Iterable[int]) -> None:
        """Nobody waits for these commands' answers any more."""
        ...


class BridgeListener:
    """The host's socket: serves every bridge that connects to it."""

    def __init__(self, host: Host, runtime_dir: Path) -> None:
        self._host = host
        self._runtime_dir = runtime_dir
        self._server: asyncio.Server | None = None
        self._socket_path: Path | None = None
        self._socket_ino: int | None = None
        self._bridges: set[Bridge] = set()

    @property
    def listening(self) -> bool:
        """Whether the socket is up (a failed attempt is retried at the next hello)."""
        return self._server is not None

    async def listen(self, instance_id: str) -> None:
        """Create the socket of this browser instance; a directory that is not private is refused, and
        the refusal is written where the command waiting for this socket reads it."""
        try:
            await self._listen(instance_id)
        except OSError as exc:
            self._refuse(instance_id, TabPilotError(ErrorCode.LAUNCH_FAILED, f"cannot listen: {exc}"))
        except TabPilotError as exc:
            self._refuse(instance_id, exc)
        else:
            refusal.clear(instance_id)

    def _refuse(self, instance_id: str, exc: TabPilotError) -> None:
        log.error("not listening for bridges: %s", exc.message)
        refusal.write(instance_id, exc)

    async def _listen(self, instance_id: str) -> None:
        localsock.ensure_private_dir(self._runtime_dir)
        path = localsock.socket_path(self._runtime_dir, instance_id)
        localsock.remove_stale(self._runtime_dir)
        # A host of the same instance may linger for a moment after a reload: the newer one wins.
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        # Bind under a private name and rename into place once listening: a bridge never sees a
        # socket that would refuse it (and take it for stale).
        staging = path.with_name(f".{path.name}.{os.getpid()}")
        old_umask = os.umask(0o177)
        try:
            self._server = await asyncio.start_unix_server(self.serve, path=str(staging))
        finally:
            os.umask(old_umask)
        os.chmod(staging, 0o600)
        os.replace(staging, path)
        self._socket_path = path
        self._socket_ino = path.stat().st_ino
        log.info("listening on %s", path)

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """One bridge's connection, from the peer check to its end."""
        bridge = Bridge(writer, profile=self._host.info().profile)
        self._bridges.add(bridge)
        sock: socket.socket = writer.get_extra_info("socket")
        try:
            localsock.check_peer(sock)
        except TabPilotError as exc:
            log.warning("%s", exc.message)
            bridge.send(m.Error(code=exc.code, message=exc.message))
            writer.close()
            return
        try:
            while True:
                try:
                    frame = await read_frame(reader, m.SOCKET_MAX_FRAME)
                except OversizedFrame as exc:
                    bridge.send(m.Error(code=ErrorCode.MALFORMED_MESSAGE, message=str(exc)))
                    continue
                if frame is None:
                    break
                self._on_frame(bridge, frame)
                await writer.drain()
        except (FramingError, ConnectionError) as exc:
            log.info("bridge connection ended: %s", exc)
        finally:
            self._host.forget(bridge.ext_ids)
            self._bridges.discard(bridge)
            writer.close()

    def _on_frame(self, bridge: Bridge, frame: bytes) -> None:
        try:
            msg = m.to_host_decoder.decode(frame)
        except (msgspec.DecodeError, RecursionError) as exc:  # msgspec's C guard: nested too deep
            msg_id, kind = m.peek(frame)
            known = kind in {m.tag_of(c) for c in (*m.EXTENSION_COMMANDS, *m.HOST_COMMANDS)}
            code = ErrorCode.MALFORMED_MESSAGE if known or kind is None else ErrorCode.UNKNOWN_COMMAND
            if kind == "scrape" and "`$.request" in str(exc):  # the agent's request, not the envelope
                code = ErrorCode.INVALID_PARAMS
            bridge.send(m.Error(id=msg_id, code=code, message=f"cannot read {kind!r} message: {exc}"))
            return
        mismatch = self._host.mismatch()
        match msg:
            case m.HostInfo():
                bridge.send(m.Result(id=msg.id, value=msgspec.Raw(m.encoder.encode(self._host.info()))))
            case _ if mismatch is not None:
                bridge.send(m.Error(id=msg.id, code=ErrorCode.PROTOCOL_MISMATCH, message=mismatch))
            case (
                m.Scrape()
                | m.JobResult()
                | m.CancelJob()
                | m.ResultRows()
                | m.WorkflowOp()
                | m.ExtractionOp()
            ):
                self._host.engine.handle(bridge.send, msg)
            case m.Cancel():
                cancelled = self._host.cancel(bridge, msg.target)
                bridge.send(
                    m.Result(
                        id=msg.id,
                        value=msgspec.Raw(b'{"cancelled":%s}' % (b"true" if cancelled else b"false")),
                    )
                )
            case m.AddSecretPattern(op="add") if (bad := _not_re2(msg.patterns)) is not None:
                bridge.send(m.Error(id=msg.id, code=ErrorCode.INVALID_PARAMS, message=bad))
            case _:
                self._forward(bridge, msg)

    def _forward(self, bridge: Bridge, cmd: m.Command) -> None:
        bridge_id = cmd.id

        def deliver(answer: m.Result | m.Error) -> None:
            # Titles and URLs a page chose are scrubbed on their way to the agent (engine/urlscrub.py).
            if isinstance(answer, m.Result):
                clean = msgspec.structs.replace(
                    answer, id=bridge_id, value=msgspec.Raw(urlscrub.scrub_raw(bytes(answer.value)))
                )
            else:
                clean = msgspec.structs.replace(
                    answer,
                    id=bridge_id,
                    message=urlscrub.scrub_text(answer.message),
                    data=urlscrub.scrub_value(answer.data),
                )
            bridge.send(clean)

        bridge.ext_ids.add(self._host.send_command(cmd, deliver, bridge))

    async def close(self) -> None:
        """Let the bridges have what was written to them, stop listening and remove the socket (only
        if it is still ours: a newer host of the same instance may have replaced it)."""
        for bridge in list(self._bridges):
            with contextlib.suppress(ConnectionError):
                await bridge.writer.drain()
        if self._server is not None:
            self._server.close()
            self._server = None
        if self._socket_path is not None:
            with contextlib.suppress(FileNotFoundError):
                if self._socket_path.stat().st_ino == self._socket_ino:
                    self._socket_path.unlink()
            self._socket_path = None


def _not_re2(patterns: list[str]) -> str | None:
    """Why a secret pattern from the agent is refused, by the guard output_schema patterns meet (RE2:
    linear time, no backreferences or lookaround); None when every one passes."""
    for pattern in patterns:
        try:
            regex.compiled(pattern.removeprefix("luhn:"))
        except regex.PatternError as exc:
            return f"not added: {pattern[:120]!r} ({exc})"
    return None
