"""The tool calls the bridge serves before the SDK has loaded: the same bytes as the SDK's answer,
and everything else left to the SDK."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest

from tabpilot.bridge import fastcall
from tabpilot.bridge.fastcall import FastCalls
from tabpilot.bridge.faststart import CACHE_FILE, ENV_DISABLE, Cache, Front
from tabpilot.bridge.tools.app import build_server
from tabpilot.bridge.tools.base import Backend
from tabpilot.link import client
from tabpilot.link.client import BrowserPool
from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode
from tests.support.fake_extension import FakeError, FakeExtension

pytestmark = pytest.mark.anyio

TABPILOT = str(Path(sys.executable).with_name("tabpilot"))
VERSION = "2025-11-25"
MODERN = "2026-07-28"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
TABS = {"name": "observe", "arguments": {"what": "tabs"}}
STATUS = {"name": "configure", "arguments": {"action": "status"}}
# Titles as pages write them: quotes, backslashes, control characters, non-ASCII, emoji, line separators.
TRICKY = 'Q "4" \\ \x00\x1f\x7f\t\n é 中文 😀 \u2028 </script>'
TAB_LIST = [
    {"id": 5, "url": "http://127.0.0.1/a?b=1&c=2", "title": TRICKY, "active": True, "window_id": 1},
    {"id": 6, "url": "about:blank", "active": False},  # no title, no window: the defaults
]


def line(msg: dict[str, Any]) -> str:
    return json.dumps({"jsonrpc": "2.0", **msg}) + "\n"


def opening(modern: bool) -> list[str]:
    if modern:
        return [line({"id": 0, "method": "server/discover", "params": {"_meta": ENVELOPE}})]
    init = {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}
    return [
        line({"id": 0, "method": "initialize", "params": init}),
        line({"method": "notifications/initialized"}),
    ]


def with_envelope(params: dict[str, Any], modern: bool) -> dict[str, Any]:
    meta = {**params.get("_meta", {}), **(ENVELOPE if modern else {})}
    return {**params, "_meta": meta} if meta else params


class Sink:
    def __init__(self) -> None:
        self.lines: list[bytes] = []
        self.answered = anyio.Event()

    async def write(self, *parts: bytes) -> None:
        data = b"".join(parts)
        self.lines.append(data)
        if json.loads(data).get("id") == 1:
            self.answered.set()


async def sdk_reply(
    runtime: Path, params: dict[str, Any], modern: bool, launch_name: str | None = None
) -> bytes:
    """The SDK's reply (id 1) to a tools/call with `params`, from the real server in this process."""
    pool = BrowserPool(runtime, connect_wait_s=0)
    server = build_server(Backend(pool, launch_name=launch_name))
    sink = Sink()

    async def lines() -> AsyncGenerator[str, None]:
        for text in opening(modern):
            yield text
        yield line({"id": 1, "method": "tools/call", "params": with_envelope(params, modern)})
        await sink.answered.wait()

    try:
        with anyio.fail_after(30):
            await server.run_stdio_async(lines(), sink)
    finally:
        await pool.aclose()
    [reply] = [x for x in sink.lines if json.loads(x).get("id") == 1]
    return reply


async def fast_reply(
    runtime: Path, params: dict[str, Any], modern: bool, launch_name: str | None = None
) -> Any:
    calls = FastCalls(runtime, launch_name=launch_name)
    # A thread, as in the bridge (blocking sockets), so the fake extension keeps answering here.
    return await anyio.to_thread.run_sync(calls.answer, 1, with_envelope(params, modern), modern)


async def both(runtime: Path, params: dict[str, Any], modern: bool, launch_name: str | None = None) -> bytes:
    """The fast path's reply, checked byte for byte against the SDK's."""
    fast = await fast_reply(runtime, params, modern, launch_name)
    assert fast is not None, "served on the fast path"
    assert fast == await sdk_reply(runtime, params, modern, launch_name)
    return fast


def structured(reply: bytes) -> Any:
    return json.loads(reply)["result"]["structuredContent"]


@pytest.mark.parametrize("modern", [False, True], ids=["initialize", "discover"])
async def test_tabs_and_status_are_the_sdk_bytes(tp_dirs: dict[str, str], modern: bool) -> None:
    runtime = Path(tp_dirs["TABPILOT_RUNTIME_DIR"])
    ext = FakeExtension(tp_dirs)
    await ext.start()
    ext.handlers["tabs"] = lambda _: {"tabs": TAB_LIST}
    ext.handlers["status"] = lambda _: {"pilot": True, "tracked_tab_id": 5}
    try:
        tabs = structured(await both(runtime, TABS, modern))
        assert tabs["tabs"][0]["title"] == TRICKY and tabs["tabs"][1]["window_id"] == -1
        status = structured(await both(runtime, STATUS, modern))
        assert status["connected"] is True and status["tracked_tab_id"] == 5
        # A progress token, and null for "no browser", change nothing.
        with_token = {**TABS, "arguments": {"what": "tabs", "browser": None}, "_meta": {"progressToken": 7}}
        await both(runtime, with_token, modern)
        # The extension's own error (the pilot is off) is the SDK's error result, byte for byte.
        ext.handlers["tabs"] = lambda _: (_ for _ in ()).throw(FakeError("ai_web_pilot_disabled", "off"))
        reply = json.loads(await both(runtime, TABS, modern))
        assert reply["result"]["isError"] is True
        assert reply["result"]["structuredContent"]["error"] == ErrorCode.AI_WEB_PILOT_DISABLED
        # Status without the extension's live answer: what the host said at hello.
        ext.handlers["status"] = lambda _: (_ for _ in ()).throw(FakeError("internal_error", "boom"))
        assert "tracked_tab_id" not in structured(await both(runtime, STATUS, modern))
    finally:
        await ext.stop()


async def test_status_with_no_browser_is_the_sdk_bytes(tp_dirs: dict[str, str]) -> None:
    runtime = Path(tp_dirs["TABPILOT_RUNTIME_DIR"])
    assert structured(await both(runtime, STATUS, False))["connected"] is False
    runtime.mkdir(mode=0o700)
    assert "fix" in structured(await both(runtime, STATUS, True))
    assert "'pilot'" in structured(await both(runtime, STATUS, False, launch_name="pilot"))["fix"]


async def test_what_needs_the_sdk_is_declined(tp_dirs: dict[str, str]) -> None:
    runtime = Path(tp_dirs["TABPILOT_RUNTIME_DIR"])
    # No browser: the SDK's path waits for one (or launches one).
    assert await fast_reply(runtime, TABS, False) is None
    runtime.mkdir(mode=0o700)
    assert await fast_reply(runtime, TABS, False) is None
    # A stale socket (nobody listens): the SDK's pool cleans it up.
    stale = runtime / "gone.sock"
    import socket

    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(stale))
    assert await fast_reply(runtime, STATUS, False) is None
    stale.unlink()
    # A directory others can enter: the SDK's path refuses it with its own error.
    runtime.chmod(0o755)
    assert await fast_reply(runtime, STATUS, False) is None


@pytest.mark.parametrize(
    "params",
    [
        {"name": "nope", "arguments": {"what": "tabs"}},  # unknown tool
        {"name": "observe", "arguments": {"what": "page"}},  # another action
        {"name": "observe", "arguments": {"what": "tabz"}},  # unknown action
        {"name": "observe", "arguments": {"what": "tabs", "tabid": 7}},  # a stray field
        {"name": "observe", "arguments": {"what": "tabs", "browser": "work"}},  # choosing a browser
        {"name": "observe", "arguments": {"what": "tabs", "browser": 5}},  # a mistyped field
        {"name": "observe", "arguments": {"what": 1}},
        {"name": "observe", "arguments": None},
        {"name": "observe"},
        {"name": "observe", "arguments": {"what": "tabs"}, "task": {"ttl": 1000}},  # a task request
        {"name": "observe", "arguments": {"what": "tabs"}, "_meta": {"other/key": 1}},
        {"name": "configure", "arguments": {"action": "status", "extra": None}},
    ],
)
async def test_calls_it_does_not_serve_exactly_are_declined(tp_dirs: dict[str, str], params: Any) -> None:
    ext = FakeExtension(tp_dirs)
    await ext.start()
    try:
        assert await fast_reply(Path(tp_dirs["TABPILOT_RUNTIME_DIR"]), params, False) is None
        assert not [r for r in ext.received if r["type"] in ("tabs", "status")], "nothing was asked"
    finally:
        await ext.stop()


def test_its_copies_of_the_wire_facts_match_the_wire() -> None:
    assert fastcall.NOT_CONNECTED_FIX == client.NOT_CONNECTED_FIX
    assert [m.tag_of(t) for t in (m.HostInfo, m.ListTabs, m.GetStatus, m.Result, m.Error)] == [
        fastcall.HOST_INFO,
        fastcall.LIST_TABS,
        fastcall.GET_STATUS,
        fastcall.RESULT,
        fastcall.ERROR,
    ]
    assert fastcall.SOCKET_MAX_FRAME == m.SOCKET_MAX_FRAME
    assert fastcall.PROTOCOL_VERSION == m.PROTOCOL_VERSION
    defaults = {f.name: f.default for f in msgspec.structs.fields(m.BrowserInfo)}
    assert {k: defaults[k] for k in fastcall.BROWSER_FIELDS if k != "instance_id"} == {
        k: v for k, v in fastcall.BROWSER_FIELDS.items() if k != "instance_id"
    }


class FakeWire:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def write(self, data: bytes) -> None:
        self.sent.append(json.loads(data))


class FakeCalls:
    def __init__(self, serve: bool) -> None:
        self.serve = serve
        self.offered: list[tuple[Any, dict[str, Any], bool]] = []

    def answer(self, msg_id: Any, params: dict[str, Any], modern: bool) -> bytes | None:
        self.offered.append((msg_id, params, modern))
        return line({"id": msg_id, "result": {"served": True}}).encode() if self.serve else None


def warm(tmp_path: Path) -> Cache:
    cache = Cache(tmp_path / CACHE_FILE, "key")
    cache.initialize[VERSION] = {"protocolVersion": VERSION}
    cache.discover[MODERN] = {"supportedVersions": [MODERN]}
    return cache


def b(text: str) -> bytes:
    return text.encode()


def call(msg_id: Any, params: dict[str, Any] = TABS) -> bytes:
    return b(line({"id": msg_id, "method": "tools/call", "params": params}))


def test_front_offers_tool_calls_once_it_answered_the_opening(tmp_path: Path) -> None:
    wire, calls = FakeWire(), FakeCalls(serve=True)
    made: list[int] = []
    front = Front(warm(tmp_path), wire, lambda: made.append(1) or calls)  # type: ignore[arg-type]
    for msg in opening(False):
        front.handle(b(msg))
    front.handle(call(1))
    front.handle(call(2))
    assert [x.get("result") for x in wire.sent] == [
        {"protocolVersion": VERSION},
        {"served": True},
        {"served": True},
    ]
    assert made == [1], "made once, on the first call"
    # A cancellation of a call answered here is dropped: the SDK never saw that call.
    front.handle(b(line({"method": "notifications/cancelled", "params": {"requestId": 1}})))
    assert front.pending == []
    # Another one waits for the SDK, and so does everything after it, in order.
    other = b(line({"method": "notifications/cancelled", "params": {"requestId": 9}}))
    front.handle(other)
    front.handle(call(3))
    assert front.pending == [other, call(3)] and len(calls.offered) == 2


def test_a_call_before_the_cache_exists_waits_for_the_sdk(tmp_path: Path) -> None:
    wire, calls = FakeWire(), FakeCalls(serve=True)
    front = Front(Cache(tmp_path / CACHE_FILE, "key"), wire, lambda: calls)  # type: ignore[arg-type]
    msgs = [b(x) for x in opening(False)] + [call(1)]
    for msg in msgs:
        front.handle(msg)
    assert wire.sent == [] and calls.offered == [] and front.handover() == msgs


def test_a_declined_call_and_what_follows_wait_for_the_sdk(tmp_path: Path) -> None:
    wire, calls = FakeWire(), FakeCalls(serve=False)
    front = Front(warm(tmp_path), wire, lambda: calls)  # type: ignore[arg-type]
    for msg in opening(False):
        front.handle(b(msg))
    front.handle(call(1))
    front.handle(call(2))
    assert len(wire.sent) == 1 and front.pending == [call(1), call(2)]
    assert len(calls.offered) == 1


def test_a_call_of_another_era_is_not_offered(tmp_path: Path) -> None:
    for modern, params in ((True, TABS), (False, with_envelope(TABS, True))):
        wire, calls = FakeWire(), FakeCalls(serve=True)
        front = Front(warm(tmp_path), wire, lambda c=calls: c)  # type: ignore[arg-type]
        for msg in opening(modern):
            front.handle(b(msg))
        front.handle(call(1, params))
        assert calls.offered == [] and front.pending == [call(1, params)]
    wire, calls = FakeWire(), FakeCalls(serve=True)
    front = Front(warm(tmp_path), wire, lambda: calls)  # type: ignore[arg-type]
    for msg in opening(True):
        front.handle(b(msg))
    front.handle(call(1, with_envelope(TABS, True)))
    assert calls.offered[0][2] is True and len(wire.sent) == 2


def _run_bridge(env: dict[str, str], calls: list[dict[str, Any]]) -> list[bytes]:
    """Spawn `tabpilot mcp`, open with initialize, send `calls` (ids 1..n) and read a reply to each."""
    msgs = [*opening(False)]
    msgs += [line({"id": i, "method": "tools/call", "params": p}) for i, p in enumerate(calls, 1)]
    with subprocess.Popen(
        [TABPILOT, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env={**os.environ, **env}
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("".join(msgs).encode())
        proc.stdin.flush()
        replies = [proc.stdout.readline() for _ in range(len(calls) + 1)]
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
    return sorted(replies[1:], key=lambda r: json.loads(r)["id"])


def test_the_bridge_answers_as_the_sdk_does_fast_or_not(tp_dirs: dict[str, str]) -> None:
    bad = [
        {"name": "nope", "arguments": {}},
        {"name": "observe", "arguments": {"what": "tabs", "tabid": 7}},
        {"name": "observe", "arguments": {"what": 7}},
    ]
    calls = [STATUS, *bad, STATUS]
    plain = _run_bridge({**tp_dirs, ENV_DISABLE: "0"}, calls)
    _run_bridge(tp_dirs, [STATUS])  # records the SDK's opening answers: the next start answers them itself
    assert (Path(tp_dirs["TABPILOT_STATE_DIR"]) / CACHE_FILE).exists()
    fast = _run_bridge(tp_dirs, calls)
    assert fast == plain
    codes = [json.loads(r)["result"].get("structuredContent", {}).get("error") for r in fast]
    assert codes == [None, ErrorCode.UNKNOWN_ACTION, ErrorCode.INVALID_PARAMS, ErrorCode.INVALID_PARAMS, None]
