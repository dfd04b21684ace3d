"""The client side of the local socket: find the connected browsers and call their native hosts."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import msgspec

from .. import paths
from ..wire import messages as m
from ..wire.errors import ErrorCode, TabPilotError
from ..wire.framing import FramingError, encode_frame, read_frame
from . import localsock, refusal

log = logging.getLogger("tabpilot.link")

NOT_CONNECTED_FIX = (
    "No browser with the TabPilot extension is connected. Fix: open Chrome/Chromium with the TabPilot "
    "extension loaded (run `tabpilot install` once, then load the folder it prints at chrome://extensions), "
    "or start a dedicated profile with `tabpilot browser launch --detach`; "
    "`tabpilot doctor` checks every link."
)
_INFO_TIMEOUT_S = 2.0
_POLL_S = 0.05
_MTIME_SETTLED_NS = 2_000_000_000
_STALE_SOCKET_S = 2.0
# A host the pool was talking to has just gone (a browser restarting; an extension process that
# crashed, revived by its watchdog alarm in ~2 s): for a while, a call waits this long for it.
_COMEBACK_WINDOW_S = 60.0
_COMEBACK_WAIT_S = 8.0
_info_decoder = msgspec.json.Decoder(m.BrowserInfo)
OnProgress = Callable[[m.Progress], Awaitable[None]]


class BrowserConnection:
    """One open socket to the native host of one browser; requests are multiplexed by id."""

    def __init__(self, path: Path, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.path = path
        self.info: m.BrowserInfo | None = None
        self._reader = reader
        self._writer = writer
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[m.Result | m.Error]] = {}
        self._progress: dict[int, OnProgress] = {}
        self._task = asyncio.get_running_loop().create_task(self._read_loop())

    @classmethod
    async def open(cls, path: Path) -> BrowserConnection:
        """Connect and ask the host who it is."""
        reader, writer = await asyncio.open_unix_connection(str(path), limit=2**16)
        conn = cls(path, reader, writer)
        value = await conn.request(m.HostInfo(id=0), timeout_s=_INFO_TIMEOUT_S)
        conn.info = _info_decoder.decode(value)
        return conn

    @property
    def closed(self) -> bool:
        """The host went away (EOF or error on the socket)."""
        return self._task.done()

    async def request(
        self, command: m.Command, timeout_s: float | None = None, on_progress: OnProgress | None = None
    ) -> msgspec.Raw:
        """Send a command, wait for its answer, return the raw JSON value or raise TabPilotError.
        Progress messages for it go to `on_progress`."""
        if self.closed:
            raise _disconnected()
        msg_id = next(self._ids)
        fut: asyncio.Future[m.Result | m.Error] = asyncio.get_running_loop().create_future()
        self._waiting[msg_id] = fut
        if on_progress is not None:
            self._progress[msg_id] = on_progress
        try:
            self._writer.write(encode_frame(m.encoder.encode(msgspec.structs.replace(command, id=msg_id))))
            await self._writer.drain()
            async with asyncio.timeout(timeout_s):
                answer = await fut
        except TimeoutError:
            with contextlib.suppress(Exception):
                self._writer.write(
                    encode_frame(m.encoder.encode(m.Cancel(id=next(self._ids), target=msg_id)))
                )
            raise TabPilotError(
                ErrorCode.TIMEOUT, f"no answer from the browser within {timeout_s:.1f} s", retryable=True
            ) from None
        except ConnectionError:
            raise _disconnected() from None
        finally:
            self._waiting.pop(msg_id, None)
            self._progress.pop(msg_id, None)
        if isinstance(answer, m.Error):
            raise TabPilotError(answer.code, answer.message, retryable=answer.retryable, data=answer.data)
        return answer.value

    async def _read_loop(self) -> None:
        try:
            while True:
                frame = await read_frame(self._reader, m.SOCKET_MAX_FRAME)
                if frame is None:
                    break
                try:
                    msg = m.from_host_decoder.decode(frame)
                except msgspec.DecodeError as exc:
                    log.warning("unreadable message from host %s (%s)", self.path, type(exc).__name__)
                    continue
                if isinstance(msg, m.Event):
                    continue
                if isinstance(msg, m.Progress):
                    report = self._progress.get(msg.id)
                    if report is not None:
                        try:
                            await report(msg)
                        except Exception:
                            log.exception("progress report failed")
                    continue
                if msg.id is None:
                    # An error with no id concerns the connection itself (e.g. peer refused).
                    self._fail_all(TabPilotError(msg.code, msg.message))
                    break
                fut = self._waiting.get(msg.id)
                if fut is not None and not fut.done():
                    fut.set_result(msg)
        except (FramingError, ConnectionError) as exc:
            log.info("host connection %s ended: %s", self.path, exc)
        finally:
            self._fail_all(_disconnected())
            self._writer.close()

    def _fail_all(self, error: TabPilotError) -> None:
        for fut in self._waiting.values():
            if not fut.done():
                fut.set_exception(error)

    async def aclose(self) -> None:
        """Close the socket."""
        self._writer.close()
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._task


def _disconnected() -> TabPilotError:
    return TabPilotError(
        ErrorCode.EXTENSION_DISCONNECTED,
        "the browser disconnected during the call (restart, crash or extension reload); call again",
        retryable=True,
    )


def _mtime_ns(directory: Path) -> int | None:
    try:
        return os.stat(directory).st_mtime_ns
    except OSError:
        return None


def describe(info: m.BrowserInfo) -> str:
    """One line naming a browser for the agent."""
    name = info.label or info.profile or info.browser_name or "browser"
    return f"{name} ({info.browser_name} {info.browser_version}, id {info.instance_id})"


class BrowserPool:
    """The browsers whose native hosts listen in the runtime directory; picks one per call and reconnects
    by itself.

    The directory is listed again only when it may have changed (its mtime moved: a socket came, went
    or was replaced) or a connection closed; otherwise a call reuses the open connections after one
    stat of the directory."""

    def __init__(self, runtime_dir: Path | None = None, connect_wait_s: float = 2.5) -> None:
        self.runtime_dir = runtime_dir or paths.runtime_dir()
        self.connect_wait_s = connect_wait_s
        self._conns: dict[Path, BrowserConnection] = {}
        self._listed_mtime: int | None = None  # the directory's mtime when listed; None: list again
        self._lock = asyncio.Lock()
        self._lost_at = -_COMEBACK_WINDOW_S  # when a connection to a host last ended
        self._gone: dict[str, tuple[float, m.BrowserInfo]] = {}  # by instance id: when, and who

    def _lose(self, conn: BrowserConnection) -> None:
        self._lost_at = time.monotonic()
        if conn.info is not None:
            self._gone[conn.info.instance_id] = (self._lost_at, conn.info)

    def _unchanged(self) -> list[BrowserConnection] | None:
        """The open connections, if nothing can have changed since the directory was listed."""
        if self._listed_mtime is None or _mtime_ns(self.runtime_dir) != self._listed_mtime:
            return None
        conns = list(self._conns.values())
        return None if any(c.closed for c in conns) else conns

    async def _discover(self) -> list[BrowserConnection]:
        known = self._unchanged()
        if known is not None:
            return known
        async with self._lock:
            mtime = _mtime_ns(self.runtime_dir)  # before listing: a change while listing shows next time
            if mtime is None:
                return []
            localsock.check_private_dir(self.runtime_dir)
            live: list[BrowserConnection] = []
            for path in localsock.list_sockets(self.runtime_dir):
                conn = self._conns.get(path)
                if conn is not None and conn.closed:
                    await conn.aclose()
                    self._lose(conn)
                    conn = None
                if conn is None:
                    conn = await self._connect(path)
                    if conn is None:
                        continue
                    self._conns[path] = conn
                live.append(conn)
            for path in set(self._conns) - {c.path for c in live}:
                conn = self._conns.pop(path)
                await conn.aclose()
                self._lose(conn)
            self._conns = {c.path: c for c in live}
            # Directory times can be as coarse as the kernel's tick: a listing made in the same tick as
            # a change could miss a socket that arrived after it yet left the mtime as it was.
            settled = time.time_ns() - mtime > _MTIME_SETTLED_NS
            self._listed_mtime = mtime if settled else None
            return live

    async def _connect(self, path: Path) -> BrowserConnection | None:
        try:
            return await BrowserConnection.open(path)
        except (ConnectionRefusedError, FileNotFoundError):
            # Nobody listens: a host that died without cleaning up, or one caught between bind and
            # listen. Removing the latter's socket would hide that browser for good, so a young one
            # is left for the next look.
            with contextlib.suppress(FileNotFoundError):
                if time.time() - path.lstat().st_mtime > _STALE_SOCKET_S:
                    path.unlink()
        except TabPilotError as exc:
            if exc.code == ErrorCode.PEER_REJECTED:
                raise
            log.info("host at %s not usable: %s", path, exc.message)
        except OSError as exc:
            log.info("cannot connect to %s: %s", path, exc)
        return None

    async def browsers(self) -> list[m.BrowserInfo]:
        """The browsers connected right now (no waiting)."""
        return [c.info for c in await self._discover() if c.info is not None]

    async def _pick(self, browser: str | None) -> BrowserConnection:
        started = time.monotonic()
        while True:
            conns = await self._discover()
            now = time.monotonic()
            awaited = self._awaited(conns, browser, now)
            if conns and not awaited:
                return _choose(conns, browser)
            wait = self.connect_wait_s
            if now - self._lost_at < _COMEBACK_WINDOW_S:  # known once the listing has seen it go
                wait = max(wait, _COMEBACK_WAIT_S)
            if now - started >= wait:
                if conns:
                    return _choose(conns, browser)  # the call goes on without it, or names who is here
                # A browser whose host refused to listen is there but unreachable: say why instead.
                refused = refusal.standing()
                raise (
                    refused[0]
                    if refused
                    else TabPilotError(ErrorCode.EXTENSION_NOT_CONNECTED, NOT_CONNECTED_FIX)
                )
            # A restarting browser takes ~0.6 s to bring its host back: look again shortly.
            await asyncio.sleep(_POLL_S)

    def _awaited(self, conns: list[BrowserConnection], browser: str | None, now: float) -> bool:
        """Whether the browser this call goes to may be one that just went and is not back yet: then
        the call waits for it rather than failing with browser_not_found, or going to another browser
        because that one is, for the moment, the only one."""
        here = [c.info for c in conns if c.info is not None]
        for instance_id in [i.instance_id for i in here if i.instance_id in self._gone]:
            del self._gone[instance_id]
        gone = [info for at, info in self._gone.values() if now - at < _COMEBACK_WINDOW_S]
        if not gone:
            return False
        try:
            with_them = select([*here, *gone], browser)
        except TabPilotError:
            return False  # names no browser, here or gone
        try:
            without = select(here, browser)
        except TabPilotError:
            return True
        return with_them in gone or (with_them is None and without is not None)

    async def call(
        self,
        command: m.Command,
        *,
        browser: str | None = None,
        timeout_s: float | None = None,
        on_progress: OnProgress | None = None,
    ) -> Any:
        """Send a command to the chosen browser and return its decoded result value."""
        conn = await self._pick(browser)
        if timeout_s is None:
            timeout_ms: Any = getattr(command, "timeout_ms", None)
            timeout_s = timeout_ms / 1000 + 10 if isinstance(timeout_ms, int) else 70.0
        raw = await conn.request(command, timeout_s=timeout_s, on_progress=on_progress)
        return msgspec.json.decode(raw)

    async def call_raw(
        self, command: m.Command, *, browser: str | None = None, timeout_s: float | None = None
    ) -> msgspec.Raw:
        """Like call, but the JSON text of the result, undecoded."""
        conn = await self._pick(browser)
        return await conn.request(command, timeout_s=timeout_s)

    async def aclose(self) -> None:
        """Close every connection."""
        for conn in self._conns.values():
            await conn.aclose()
        self._conns.clear()


def select(infos: Sequence[m.BrowserInfo], browser: str | None) -> m.BrowserInfo | None:
    """The browser a call goes to: the named one, the only one, or the only piloted one (None: ambiguous)."""
    if browser:
        wanted = browser.casefold()
        for info in infos:
            if wanted in (info.instance_id.casefold(), info.label.casefold(), info.profile.casefold()):
                return info
        raise TabPilotError(
            ErrorCode.BROWSER_NOT_FOUND,
            f"no connected browser matches {browser!r}; connected: " + "; ".join(describe(i) for i in infos),
        )
    if len(infos) == 1:
        return infos[0]
    piloted = [i for i in infos if i.pilot]
    return piloted[0] if len(piloted) == 1 else None


def _choose(conns: list[BrowserConnection], browser: str | None) -> BrowserConnection:
    by_info = {id(c.info): c for c in conns if c.info is not None}
    infos = [c.info for c in conns if c.info is not None]
    chosen = select(infos, browser)
    if chosen is None:
        raise TabPilotError(
            ErrorCode.AMBIGUOUS_BROWSER,
            "several browsers are connected; pass `browser` with one of their ids or labels: "
            + "; ".join(describe(i) for i in infos),
        )
    return by_info[id(chosen)]


class PinnedBrowserPool(BrowserPool):
    """A pool whose calls go to one named browser unless a call names another (`tabpilot mcp --browser`),
    so a person with several piloted browsers need not name one in every call."""

    def __init__(self, pinned: str, runtime_dir: Path | None = None, connect_wait_s: float = 2.5) -> None:
        super().__init__(runtime_dir, connect_wait_s)
        self.pinned = pinned

    async def _pick(self, browser: str | None) -> BrowserConnection:
        return await super()._pick(browser or self.pinned)
