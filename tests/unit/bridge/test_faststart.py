"""The bridge answers the opening of either protocol era from its cache while the SDK loads, then hands
over to the SDK."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tabpilot.bridge.faststart import CACHE_FILE, CHECK_ID, Cache, Front, Learner

pytestmark = pytest.mark.anyio

TABPILOT = str(Path(sys.executable).with_name("tabpilot"))
VERSION = "2025-11-25"
MODERN = "2026-07-28"
INIT_RESULT = {"protocolVersion": VERSION, "capabilities": {"tools": {}}, "serverInfo": {"name": "tabpilot"}}
TOOLS_RESULT = {"tools": [{"name": "interact", "inputSchema": {"type": "object"}}]}
DISCOVER_RESULT = {"supportedVersions": [MODERN], "capabilities": {"tools": {}}, "resultType": "complete"}
MODERN_TOOLS_RESULT = {**TOOLS_RESULT, "resultType": "complete", "ttlMs": 0}


class FakeWire:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def write(self, line: bytes) -> None:
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        self.sent.append(json.loads(line))


def line(msg: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **msg}).encode() + b"\n"


INIT = line({"id": 0, "method": "initialize", "params": {"protocolVersion": VERSION, "capabilities": {}}})
INITIALIZED = line({"method": "notifications/initialized"})
LIST = line({"id": 1, "method": "tools/list"})
CALL = line({"id": 2, "method": "tools/call", "params": {"name": "configure", "arguments": {}}})
ENVELOPE = {
    "_meta": {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
}
DISCOVER = line({"id": 0, "method": "server/discover", "params": ENVELOPE})
MODERN_LIST = line({"id": 1, "method": "tools/list", "params": ENVELOPE})


def warm_cache(tmp_path: Path) -> Cache:
    cache = Cache(tmp_path / CACHE_FILE, "key")
    cache.initialize[VERSION] = INIT_RESULT
    cache.discover[MODERN] = DISCOVER_RESULT
    cache.tools[VERSION] = TOOLS_RESULT
    cache.tools[MODERN] = MODERN_TOOLS_RESULT
    return cache


def test_warm_cache_answers_the_handshake_and_keeps_the_rest_for_the_sdk(tmp_path: Path) -> None:
    wire = FakeWire()
    front = Front(warm_cache(tmp_path), wire)  # type: ignore[arg-type]
    for msg in (INIT, INITIALIZED, LIST, line({"id": "p", "method": "ping"}), CALL, LIST):
        front.handle(msg)
    assert wire.sent == [
        {"jsonrpc": "2.0", "id": 0, "result": INIT_RESULT},
        {"jsonrpc": "2.0", "id": 1, "result": TOOLS_RESULT},
        {"jsonrpc": "2.0", "id": "p", "result": {}},
    ]
    # The handshake is replayed to the SDK; the call and everything after it wait for it, in order.
    assert front.handover() == [INIT, INITIALIZED, CALL, LIST]


def test_warm_cache_answers_discover_and_the_tool_list_of_its_version(tmp_path: Path) -> None:
    wire = FakeWire()
    front = Front(warm_cache(tmp_path), wire)  # type: ignore[arg-type]
    for msg in (DISCOVER, MODERN_LIST):
        front.handle(msg)
    assert wire.sent == [
        {"jsonrpc": "2.0", "id": 0, "result": DISCOVER_RESULT},
        {"jsonrpc": "2.0", "id": 1, "result": MODERN_TOOLS_RESULT},
    ]
    # That era has no ping and every request carries the envelope: these wait for the SDK.
    for msg in (line({"id": "p", "method": "ping", "params": ENVELOPE}), LIST):
        front.handle(msg)
    assert len(wire.sent) == 2
    assert front.handover()[0] == DISCOVER, "the SDK sees the opening, so it serves the same era"


def test_a_tool_list_of_another_era_or_version_waits_for_the_sdk(tmp_path: Path) -> None:
    for opening, listing in ((INIT, MODERN_LIST), (DISCOVER, LIST)):
        wire = FakeWire()
        front = Front(warm_cache(tmp_path), wire)  # type: ignore[arg-type]
        front.handle(opening)
        front.handle(listing)
        assert len(wire.sent) == 1 and front.pending == [listing]
    cache = warm_cache(tmp_path)
    del cache.tools[MODERN]
    wire = FakeWire()
    front = Front(cache, wire)  # type: ignore[arg-type]
    for msg in (DISCOVER, MODERN_LIST):
        front.handle(msg)
    assert len(wire.sent) == 1 and front.pending == [MODERN_LIST]


def test_cold_cache_or_other_version_waits_for_the_sdk(tmp_path: Path) -> None:
    for cache, init in (
        (Cache(tmp_path / CACHE_FILE, "key"), INIT),
        (warm_cache(tmp_path), INIT.replace(VERSION.encode(), b"2025-03-26")),
        (warm_cache(tmp_path), DISCOVER.replace(MODERN.encode(), b"2027-01-01")),
    ):
        wire = FakeWire()
        front = Front(cache, wire)  # type: ignore[arg-type]
        for msg in (init, INITIALIZED, LIST):
            front.handle(msg)
        assert wire.sent == []
        assert front.handover() == [init, INITIALIZED, LIST]


def test_learner_drops_the_replies_meant_for_the_bridge_and_refreshes_the_cache(tmp_path: Path) -> None:
    wire = FakeWire()
    cache = warm_cache(tmp_path)
    front = Front(cache, wire)  # type: ignore[arg-type]
    for msg in (INIT, INITIALIZED, LIST):
        front.handle(msg)
    learner = Learner(front, enabled=True)
    check = learner.after(INIT)
    assert check is not None and json.loads(check) == {
        "jsonrpc": "2.0",
        "id": CHECK_ID,
        "method": "tools/list",
    }
    assert learner.after(INITIALIZED) is None

    fresh_tools = {"tools": [*TOOLS_RESULT["tools"], {"name": "observe", "inputSchema": {"type": "object"}}]}
    # The SDK's second answer to the replayed initialize: the client already has one.
    assert learner.relay(line({"id": 0, "result": INIT_RESULT})) == []
    # An unrelated message passes.
    unrelated = line({"id": 2, "result": {"content": []}})
    assert learner.relay(unrelated) == [unrelated]
    # The check shows the tool list served from the cache was stale: the client is told.
    [notice] = learner.relay(line({"id": CHECK_ID, "result": fresh_tools}))
    assert json.loads(notice) == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
    saved = Cache.load(tmp_path / CACHE_FILE, "key")
    assert saved.tools[VERSION] == fresh_tools and saved.initialize == {VERSION: INIT_RESULT}
    assert Cache.load(tmp_path / CACHE_FILE, "another build").tools == {}


def test_learner_checks_the_tool_list_with_the_discover_envelope_and_keeps_quiet_if_stale(
    tmp_path: Path,
) -> None:
    cache = warm_cache(tmp_path)
    front = Front(cache, FakeWire())  # type: ignore[arg-type]
    for msg in (DISCOVER, MODERN_LIST):
        front.handle(msg)
    learner = Learner(front, enabled=True)
    check = learner.after(DISCOVER)
    assert check is not None
    assert json.loads(check) == {"jsonrpc": "2.0", "id": CHECK_ID, "method": "tools/list", "params": ENVELOPE}
    fresh_discover = {**DISCOVER_RESULT, "instructions": "new"}
    fresh_tools = {**MODERN_TOOLS_RESULT, "tools": []}
    assert learner.relay(line({"id": 0, "result": fresh_discover})) == []
    # No tools/list_changed: in this era the client gets change notices only on a subscription.
    assert learner.relay(line({"id": CHECK_ID, "result": fresh_tools})) == []
    saved = Cache.load(tmp_path / CACHE_FILE, "key")
    assert saved.discover == {MODERN: fresh_discover} and saved.tools[MODERN] == fresh_tools
    assert saved.tools[VERSION] == TOOLS_RESULT, "the other era's list is kept"


def test_learner_passes_the_sdk_answer_to_an_initialize_it_did_not_answer(tmp_path: Path) -> None:
    cache = Cache(tmp_path / CACHE_FILE, "key")
    front = Front(cache, FakeWire())  # type: ignore[arg-type]
    front.handle(INIT)
    learner = Learner(front, enabled=True)
    assert learner.after(INIT) is not None
    answer = line({"id": 0, "result": INIT_RESULT})
    assert learner.relay(answer) == [answer]
    assert learner.relay(line({"id": CHECK_ID, "result": TOOLS_RESULT})) == []
    assert cache.initialize == {VERSION: INIT_RESULT} and cache.tools == {VERSION: TOOLS_RESULT}


async def test_second_start_answers_from_the_cache_and_corrects_a_stale_one(tp_dirs: dict[str, str]) -> None:
    params = StdioServerParameters(command=TABPILOT, args=["mcp"], env=tp_dirs)
    cache_file = Path(tp_dirs["TABPILOT_STATE_DIR"]) / CACHE_FILE
    with anyio.fail_after(30):
        async with Client(params, mode="legacy") as client:
            real = (await client.list_tools()).tools
            await client.call_tool("configure", {"action": "status"})
    assert cache_file.exists(), "the first start records the SDK's answers"

    data = json.loads(cache_file.read_text())
    assert [t["name"] for t in data["tools"][VERSION]["tools"]] == [t.name for t in real]
    data["tools"][VERSION]["tools"][0]["description"] = "stale"
    cache_file.write_text(json.dumps(data))

    notices: list[Any] = []

    async def on_message(message: Any) -> None:
        notices.append(message)

    with anyio.fail_after(30):
        async with Client(params, mode="legacy", message_handler=on_message) as client:
            listed = (await client.list_tools(cache_mode="bypass")).tools
            assert listed[0].description == "stale", "served from the cache, before the SDK was loaded"
            # A call only the SDK serves (bridge.fastcall answers status before it has loaded).
            helped = await client.call_tool("observe", {"what": "help"})
            assert helped.structured_content is not None and not helped.is_error
            relisted = (await client.list_tools(cache_mode="bypass")).tools
    assert relisted[0].description == real[0].description
    assert any(getattr(n, "method", None) == "notifications/tools/list_changed" for n in notices)
    assert (
        json.loads(cache_file.read_text())["tools"][VERSION]["tools"][0]["description"] == real[0].description
    )


async def test_second_start_answers_discover_from_the_cache(tp_dirs: dict[str, str]) -> None:
    params = StdioServerParameters(command=TABPILOT, args=["mcp"], env=tp_dirs)
    cache_file = Path(tp_dirs["TABPILOT_STATE_DIR"]) / CACHE_FILE
    with anyio.fail_after(30):
        async with Client(params, mode="auto") as client:
            assert client.protocol_version == MODERN
            real = (await client.list_tools()).tools
            await client.call_tool("configure", {"action": "status"})
    data = json.loads(cache_file.read_text())
    assert MODERN in data["discover"], "the first start records the SDK's discover answer"
    data["tools"][MODERN]["tools"][0]["description"] = "stale"
    cache_file.write_text(json.dumps(data))

    with anyio.fail_after(30):
        async with Client(params, mode="auto") as client:
            assert client.protocol_version == MODERN
            listed = (await client.list_tools(cache_mode="bypass")).tools
            assert listed[0].description == "stale", "served from the cache, before the SDK was loaded"
            # A call only the SDK serves (bridge.fastcall answers status before it has loaded).
            helped = await client.call_tool("observe", {"what": "help"})
            assert helped.structured_content is not None and not helped.is_error
            relisted = (await client.list_tools(cache_mode="bypass")).tools
    assert relisted[0].description == real[0].description
    assert (
        json.loads(cache_file.read_text())["tools"][MODERN]["tools"][0]["description"] == real[0].description
    )
