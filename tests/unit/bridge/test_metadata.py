"""What `tools/list` tells a client about each tool: title, behaviour hints, a compact output schema."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import anyio
import jsonschema
import pytest
from mcp import Client

from tabpilot.bridge.tools import TOOLS
from tabpilot.bridge.tools.app import build_server
from tabpilot.bridge.tools.base import Backend
from tabpilot.bridge.tools.outschema import flatten
from tests.unit.bridge.test_tools import FakePool

pytestmark = pytest.mark.anyio

# Playwright MCP 0.0.83's tools/list, the peer an agent would otherwise load, in bytes.
PEER_TOOLS_LIST_BYTES = 20_331


async def _listed() -> dict[str, Any]:
    async with Client(build_server(Backend(FakePool()))) as client:
        result = await client.list_tools()
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


async def test_every_tool_has_a_title_and_all_four_hints() -> None:
    tools = (await _listed())["tools"]
    assert [t["name"] for t in tools] == [t.name for t in TOOLS]
    for tool in tools:
        assert tool["title"]
        hints = tool["annotations"]
        assert {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} <= set(hints)
    by_name = {t["name"]: t["annotations"] for t in tools}
    assert by_name["observe"]["readOnlyHint"] is True
    assert by_name["observe"]["destructiveHint"] is False
    # close_tab, delete_state, delete_workflow: the worst action sets the tool's hints.
    for name in ("interact", "configure"):
        assert by_name[name]["readOnlyHint"] is False
        assert by_name[name]["destructiveHint"] is True
        assert by_name[name]["idempotentHint"] is False


async def test_a_mixed_tool_says_why_its_hints_are_the_worst_case() -> None:
    tools = {t["name"]: t for t in (await _listed())["tools"]}
    assert "worst case" in tools["interact"]["description"]
    assert "delete_state" in tools["configure"]["description"].splitlines()[-1]


def _wire_tools_list(env: dict[str, str]) -> bytes:
    """The tools/list answer exactly as `tabpilot mcp` writes it on stdout (one JSON-RPC line)."""
    opening = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
         "capabilities": {}, "clientInfo": {"name": "size-check", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]  # fmt: skip
    with subprocess.Popen(
        [sys.executable, "-m", "tabpilot.cli", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**os.environ, **env},
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in opening))
            proc.stdin.flush()
            for line in proc.stdout:
                if json.loads(line).get("id") == 2:
                    return line.rstrip(b"\n")
            raise AssertionError("no tools/list answer")
        finally:
            proc.kill()


async def test_tools_list_is_no_larger_than_the_peer_and_keeps_output_schemas(
    tp_dirs: dict[str, str],
) -> None:
    line = await anyio.to_thread.run_sync(_wire_tools_list, tp_dirs)
    assert len(line) <= PEER_TOOLS_LIST_BYTES, len(line)
    listed = await _listed()
    for tool in listed["tools"]:
        schema = tool["outputSchema"]
        assert schema["type"] == "object"
        assert schema["properties"]


def test_flatten_merges_every_result_and_keeps_json_types() -> None:
    full: dict[str, Any] = {
        "type": "object",
        "$defs": {
            "A": {
                "type": "object",
                "properties": {
                    "url": {"type": "string"},
                    "next": {"$ref": "#/$defs/N"},
                    "cursor": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                    "result": {},
                },
                "required": ["url"],
            },
            "B": {"type": "object", "properties": {"url": {"type": "string"}, "cursor": {"type": "string"}}},
            "N": {"type": "object", "properties": {"chunk": {"type": "integer"}}},
        },
        "anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}],
    }
    flat = flatten(full)
    assert flat == {
        "type": "object",
        "properties": {
            "url": {"type": "string"},
            "next": {"type": "object"},
            "cursor": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
            "result": {
                "anyOf": [{"type": t} for t in ("object", "array", "string", "number", "boolean", "null")]
            },
        },
    }
    for value in (
        {"url": "u", "next": {"chunk": 1}, "cursor": None, "result": [1]},
        {"url": "u", "cursor": "c"},
    ):
        jsonschema.validate(value, flat)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"url": 3}, flat)
