"""Answer the MCP handshake and tools/list before the MCP SDK has finished importing.

Importing the SDK takes 0.7-1 s on a small machine (most of it building pydantic models), and an MCP
client starts the bridge and waits for its tool list. So while a thread imports the SDK, this module
answers the opening of either protocol era from a cache of the SDK's own earlier answers: `initialize`
(then `tools/list` and `ping`), or the 2026-07-28 `server/discover` (then `tools/list`), each for the
protocol version the client asks for. Then it hands the connection to the SDK: it replays the opening
to it (dropping the SDK's second reply) and lets it serve everything else. Anything unexpected (no
cache, another protocol version, any other request) simply waits for the SDK, so the worst case is
the plain start. The SDK's fresh answers refresh the cache; if the tool list it had served was stale,
a handshake-era client is told that the tool list changed (a 2026-07-28 one gets change notices only
on a subscription it asked for).

Once it has answered the opening, it also offers each `tools/call` to `calls` (bridge.fastcall), which
serves the cheapest read-only ones without the SDK and leaves the rest to it.

Stdlib only: this runs before anything heavy is imported.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import logging
import os
import sys
import threading
from collections.abc import AsyncGenerator, Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol, cast

from .. import __version__, paths
from .stdio import Wire

log = logging.getLogger("tabpilot.bridge")

ENV_DISABLE = "TABPILOT_BRIDGE_FASTSTART"  # "0" turns the fast path off
CACHE_FILE = "bridge-answers.json"
CHECK_ID = "tabpilot-faststart-check"
ENVELOPE_VERSION = "io.modelcontextprotocol/protocolVersion"  # the 2026-07-28 per-request envelope
_SWITCH_INTERVAL_S = 0.001  # while the SDK loads (the default is 0.005)
_WATCH_MAX_LINE = 1 << 20  # replies we watch for are small; never parse a big tool result

Serve = Callable[["Lines", "Sink"], Awaitable[None]]


class Calls(Protocol):
    """What serves tool calls before the SDK has loaded (bridge.fastcall.FastCalls)."""

    def answer(self, msg_id: Any, params: dict[str, Any], modern: bool) -> bytes | None:
        """The reply to a `tools/call` with these params, or None: the SDK serves it."""
        ...


def _fingerprint() -> str:
    """Changes whenever the answers could: our version and tool code, the SDK, pydantic, Python.
    (Not the command-line options: the tool list does not depend on them, and clients started
    with different options share the cache.)"""
    parts = [__version__, sys.version]
    here = Path(__file__).parent
    files = [here / "faststart.py", *sorted((here / "tools").rglob("*.py"))]  # tools/ may hold packages
    for mod in ("mcp", "mcp_types", "pydantic"):
        spec = importlib.util.find_spec(mod)
        if spec is not None and spec.origin:
            files.append(Path(spec.origin))
    for f in files:
        with contextlib.suppress(OSError):
            st = f.stat()
            parts.append(f"{f}:{st.st_mtime_ns}:{st.st_size}")
    return "|".join(parts)


class Cache:
    """The SDK's earlier answers, each by the protocol version the client asked for: `initialize`
    (the handshake era), `server/discover` (the 2026-07-28 era), and `tools/list` (either; the SDK
    shapes it for the version)."""

    def __init__(self, path: Path, key: str) -> None:
        self.path = path
        self.key = key
        self.initialize: dict[str, Any] = {}
        self.discover: dict[str, Any] = {}
        self.tools: dict[str, Any] = {}
        self.dirty = False

    @classmethod
    def load(cls, path: Path, key: str) -> Cache:
        """The cache at `path`, or an empty one if it is missing, unreadable or from another build."""
        cache = cls(path, key)
        with contextlib.suppress(OSError, ValueError, TypeError, AttributeError):
            data = json.loads(path.read_bytes())
            if data.get("key") == key:
                cache.initialize = dict(data["initialize"])
                cache.discover = dict(data["discover"])
                cache.tools = dict(data["tools"])
        return cache

    def save(self) -> None:
        """Write atomically, so concurrent bridges never read half a file."""
        if not self.dirty:
            return
        data = {
            "key": self.key,
            "initialize": self.initialize,
            "discover": self.discover,
            "tools": self.tools,
        }
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(data, separators=(",", ":")))
            os.replace(tmp, self.path)
            self.dirty = False
        except OSError as exc:
            log.warning("cannot write %s: %s", self.path, exc)


def _parse(line: bytes) -> dict[str, Any] | None:
    """The JSON object on `line`, or None."""
    try:
        msg: Any = json.loads(line)
    except (ValueError, RecursionError):  # nested past the stdlib's limit: the SDK's path answers it
        return None
    return cast(dict[str, Any], msg) if isinstance(msg, dict) else None


def _params(msg: dict[str, Any]) -> dict[str, Any]:
    params: Any = msg.get("params")
    return cast(dict[str, Any], params) if isinstance(params, dict) else {}


def _envelope_version(params: dict[str, Any]) -> str | None:
    """The protocol version a 2026-07-28 request carries in its `_meta` envelope (None: no envelope)."""
    meta: Any = params.get("_meta")
    version: Any = cast(dict[str, Any], meta).get(ENVELOPE_VERSION) if isinstance(meta, dict) else None
    return version if isinstance(version, str) else None


def _reply(msg_id: Any, result: Any) -> bytes:
    body = {"jsonrpc": "2.0", "id": msg_id, "result": result}
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


class Front:
    """What the bridge answers itself until the SDK is ready, and what it must tell the SDK afterwards.

    It answers the opening of either era from the cache: `initialize` (then `tools/list` and `ping`
    without an envelope), or `server/discover` (then `tools/list` carrying the same envelope version).
    """

    def __init__(self, cache: Cache, wire: Wire, calls: Callable[[], Calls | None] | None = None) -> None:
        self.cache = cache
        self.wire = wire
        self._make_calls = calls  # made on the first tool call: it imports more than the handshake needs
        self._calls: Calls | None = None
        self.answered_calls: set[Any] = set()  # ids of the tool calls answered here
        self.replay: list[bytes] = []  # the opening messages the SDK must still see
        self.pending: list[bytes] = []  # messages left for the SDK, in order
        self.version: str | None = None  # of the opening it answered
        self.modern = False  # that opening was `server/discover`
        self.served_tools: Any = None

    def handle(self, line: bytes) -> None:
        """Answer `line` from the cache if it can, else keep it for the SDK."""
        if not self.pending:  # once one message waits for the SDK, all later ones do: order matters
            msg = _parse(line)
            if msg is not None and self._answer(line, msg):
                return
        self.pending.append(line)

    def _answer(self, line: bytes, msg: dict[str, Any]) -> bool:
        method, msg_id, params = msg.get("method"), msg.get("id"), _params(msg)
        envelope = _envelope_version(params)
        if self.version is None:
            if method == "initialize" and msg_id is not None:
                version = str(params.get("protocolVersion"))
                result = self.cache.initialize.get(version)
            elif method == "server/discover" and msg_id is not None and envelope is not None:
                version = envelope
                result = self.cache.discover.get(version)
            else:
                version, result = "", None
            if result is not None:
                self.wire.write(_reply(msg_id, result))
                self.replay.append(line)
                self.version, self.modern = version, method == "server/discover"
                return True
        elif method == "notifications/initialized" and not self.modern:
            self.replay.append(line)
            return True
        elif method == "tools/list" and msg_id is not None and not params.get("cursor"):
            # Only in the era and version of the opening: the SDK shapes the list for them.
            tools = self.cache.tools.get(self.version)
            if tools is not None and envelope == (self.version if self.modern else None):
                self.wire.write(_reply(msg_id, tools))
                self.served_tools = tools
                return True
        elif method == "tools/call" and msg_id is not None:
            if envelope == (self.version if self.modern else None) and self._call(msg_id, params):
                return True
        elif method == "notifications/cancelled" and params.get("requestId") in self.answered_calls:
            return True  # that call was answered already; the SDK never saw it
        if method == "ping" and msg_id is not None and envelope is None and not self.modern:
            self.wire.write(_reply(msg_id, {}))  # the 2026-07-28 era has no ping: the SDK refuses it
            return True
        return False

    def _call(self, msg_id: Any, params: dict[str, Any]) -> bool:
        if self._make_calls is not None:
            self._calls, self._make_calls = self._make_calls(), None
        reply = None if self._calls is None else self._calls.answer(msg_id, params, self.modern)
        if reply is None:
            return False
        self.wire.write(reply)
        with contextlib.suppress(TypeError):  # an id must be a string or a number; the SDK says so
            self.answered_calls.add(msg_id)
        return True

    def handover(self) -> list[bytes]:
        """What the SDK reads first: the opening to replay, then the messages that waited for it."""
        return [*self.replay, *self.pending]


class Learner:
    """Refreshes the cache from the SDK's own replies to the opening and to one tools/list of ours."""

    def __init__(self, front: Front, enabled: bool) -> None:
        self.front = front
        self.cache = front.cache
        self.scanning = enabled  # looking for the client's opening among the messages to the SDK
        # id -> (which cache, the version it is for, whether the client already got an answer to it)
        self.watch: dict[Any, tuple[dict[str, Any], str, bool]] = {}

    def after(self, line: bytes) -> bytes | None:
        """Called for each message the SDK reads; returns a message to slip in right after it."""
        if not self.scanning:
            return None
        msg = _parse(line)
        if msg is None or "id" not in msg:
            return None
        self.scanning = False  # only the first request can open the connection
        method, params = msg.get("method"), _params(msg)
        check: dict[str, Any] = {"jsonrpc": "2.0", "id": CHECK_ID, "method": "tools/list"}
        answered = self.front.version is not None  # the SDK reads the opening the bridge answered
        if method == "initialize":
            version = str(params.get("protocolVersion"))
            self.watch[msg["id"]] = (self.cache.initialize, version, answered)
        elif method == "server/discover" and (version := _envelope_version(params)) is not None:
            self.watch[msg["id"]] = (self.cache.discover, version, answered)
            check["params"] = {"_meta": params["_meta"]}  # each request of this era carries the envelope
        else:
            return None
        self.watch[CHECK_ID] = (self.cache.tools, version, True)
        return json.dumps(check).encode() + b"\n"

    def relay(self, data: bytes) -> list[bytes]:
        """What the client gets in place of the SDK's message `data`: it, nothing (a reply meant for
        the bridge), or also a notice that the tool list changed (the cache had served a stale one)."""
        msg = _parse(data)
        if msg is None or "method" in msg or msg.get("id") not in self.watch:
            return [data]
        answers, version, answered = self.watch.pop(msg["id"])
        out = [] if answered else [data]
        result = msg.get("result")
        if result is not None and answers.get(version) != result:
            answers[version] = result
            self.cache.dirty = True
            served = self.front.served_tools
            if answers is self.cache.tools and served is not None and served != result:
                log.warning("served a stale tool list from %s", self.cache.path)
                if not self.front.modern:  # that era sends change notices only on a subscriptions/listen
                    notice = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
                    out.append(json.dumps(notice).encode() + b"\n")
        if not self.watch:
            self.cache.save()
        return out


class Lines:
    """The SDK's stdin: the handed-over messages, then the rest of stdin, read on the event loop."""

    def __init__(self, first: list[bytes], wire: Wire, learner: Learner) -> None:
        self._first = first
        self._wire = wire
        self._learner = learner

    async def read(self) -> AsyncGenerator[str, None]:
        """Each message, in order, with the bridge's own requests slipped in where they belong."""
        for line in self._first:
            for text in self._with_extra(line):
                yield text
        async for line in self._wire.read_lines():
            for text in self._with_extra(line):
                yield text

    def _with_extra(self, line: bytes) -> list[str]:
        extra = self._learner.after(line)
        lines = [line] if extra is None else [line, extra]
        return [x.decode("utf-8", errors="replace") for x in lines]


class Sink:
    """The SDK's stdout: writes to the wire, except the replies meant for the bridge itself."""

    def __init__(self, wire: Wire, learner: Learner) -> None:
        self.wire = wire
        self.learner = learner

    async def write(self, *parts: bytes) -> None:
        """Write one message, given in parts that end with its newline."""
        if not self.learner.watch or sum(map(len, parts)) >= _WATCH_MAX_LINE:
            await self.wire.send(*parts)
            return
        for out in self.learner.relay(b"".join(parts)):
            await self.wire.send(out)


def run(load: Callable[[], Serve], calls: Callable[[], Calls | None] | None = None) -> None:
    """Serve MCP on stdio: answer from the cache (and `calls`) while `load` imports the SDK, then run
    what it returns."""
    wire = Wire.stdio()
    loaded: list[Serve] = []
    failed: list[BaseException] = []

    def loader() -> None:
        try:
            loaded.append(load())
        except BaseException as exc:
            failed.append(exc)
        wire.wake()

    enabled = os.environ.get(ENV_DISABLE, "1") != "0"
    # Made (and imported) before the SDK's thread starts: from then on every import on this thread
    # shares the interpreter's lock with it and takes about twice as long.
    served = calls() if enabled and calls is not None else None
    # Each time this thread wakes from a read it waits for the lock; a shorter interval makes the
    # SDK's thread give it up sooner.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(_SWITCH_INTERVAL_S)
    threading.Thread(target=loader, name="load-sdk", daemon=True).start()
    cache = (
        Cache.load(paths.state_dir() / CACHE_FILE, _fingerprint()) if enabled else Cache(Path(os.devnull), "")
    )
    front = Front(cache, wire, None if served is None else lambda: served)
    while (lines := wire.read()) is not None:
        for line in lines:
            if enabled:
                front.handle(line)
            else:
                front.pending.append(line)
        if wire.eof and not front.pending:
            _exit_now()  # the client left before it needed the SDK
    sys.setswitchinterval(interval)
    if failed:
        raise failed[0]
    import anyio  # the SDK's thread has imported it by now

    learner = Learner(front, enabled)
    anyio.run(loaded[0], Lines(front.handover(), wire, learner), Sink(wire, learner))


def _exit_now() -> None:
    # The SDK may still be importing on its thread; tearing the interpreter down under it only
    # prints noise, so leave at once.
    logging.shutdown()
    os._exit(0)
