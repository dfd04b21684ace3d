"""What an agent reads on every request stays small, and what it leaves out is one help call away: the
tools/list answer of a real `tabpilot mcp` (read by the SDK's stdio client) fits the budget, every action
says in a line what it is for, and `observe {what: "help", about: ...}` describes every argument of every
action of every tool, the objects inside the scrape request, the `where` operators and `follow`."""

from __future__ import annotations

import json
from typing import Any

import anyio
import msgspec
import pytest
from mcp import Client

from tabpilot.bridge.tools import TOOLS
from tabpilot.bridge.tools.app import build_server
from tabpilot.bridge.tools.base import Backend
from tabpilot.engine.where import OPERATORS
from tabpilot.wire.errors import ErrorCode
from tabpilot.wire.scrape import ErrorRecovery, Follow, Options, PaginateOptions, ScrollOptions
from tests.support.mcp_client import call, call_error, mcp_client
from tests.unit.bridge.test_tools import FakePool

pytestmark = pytest.mark.anyio

# The whole tools/list result, as JSON, in bytes (Playwright MCP's is 20,331; ours was 20,273).
TOOLS_LIST_BUDGET = 12_000
# One line per action in a tool's description; scrape's names its four operations and the partial hint.
BRIEF_CHARS = 160


def _compact(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


async def test_tools_list_fits_the_budget_through_a_real_client(tp_dirs: dict[str, str]) -> None:
    with anyio.fail_after(60):
        async with mcp_client(tp_dirs) as client:
            listed = await client.list_tools()
    result = listed.model_dump(mode="json", by_alias=True, exclude_none=True)
    assert _compact(result) <= TOOLS_LIST_BUDGET, _compact(result)
    build_server(Backend(FakePool()))  # fills each tool's schemas
    for tool, shown in zip(TOOLS, result["tools"], strict=True):
        # What the agent reads is the published schema: no descriptions, no bounds (help has them).
        assert shown["inputSchema"] == tool.published
        assert "description" not in json.dumps(shown["inputSchema"])


def test_each_action_says_what_it_is_for_in_a_line() -> None:
    for tool in TOOLS:
        lines = tool.description().splitlines()
        for name in tool.actions:
            brief = tool.brief(name)
            assert "\n" not in brief and len(brief) <= BRIEF_CHARS, (tool.name, name, brief)
            assert f"- {name}: {brief}" in lines
    scrape = next(t for t in TOOLS if t.name == "interact").brief("scrape")
    for word in ("extract", "workflow", "replay", "suggest", "`call`", "partial_because.hint"):
        assert word in scrape, word


async def test_help_describes_every_argument_of_every_action(tp_dirs: dict[str, str]) -> None:
    with anyio.fail_after(120):
        async with mcp_client(tp_dirs) as client:
            for tool in TOOLS:
                whole = await call(client, "observe", what="help", about=tool.name)
                assert list(whole["actions"]) == list(tool.actions)
                for name, action in tool.actions.items():
                    one = await call(client, "observe", what="help", about=name)
                    assert one.items() >= {"about": name, **whole["actions"][name]}.items()
                    assert one["call"].startswith(f'{tool.name} {{{tool.selector}: "{name}"')
                    assert one["does"]
                    args: dict[str, str] = one["arguments"]
                    assert set(args) == {*action.params, "browser"}, (tool.name, name)
                    for arg, text in args.items():
                        kind, _, doc = text.partition(": ")
                        assert kind and doc.strip(), (tool.name, name, arg, text)
                        assert ("(required)" in kind) == (arg in action.required), (name, arg)


def _all_fields(cls: type[msgspec.Struct]) -> set[str]:
    return {f.encode_name for f in msgspec.structs.fields(cls)}


async def _help(about: str) -> dict[str, Any]:
    async with Client(build_server(Backend(FakePool()))) as client:
        return await call(client, "observe", what="help", about=about)


async def test_help_on_scrape_holds_every_object_inside_the_request() -> None:
    out = await _help("scrape")
    for cls in (Options, PaginateOptions, ScrollOptions, Follow, ErrorRecovery):
        assert set(out["objects"][cls.__name__]["fields"]) == _all_fields(cls), cls.__name__
    assert any("Operators" in note for note in out["notes"])
    assert any(
        "complete_because" in n and "partial_because.hint" in n and "`call`" in n for n in out["notes"]
    )
    # A field whose meaning differs per action reads as this action's: extract's rows, not a click's.
    assert "rows" in out["arguments"]["selector"]


async def test_help_lists_where_operators_and_follow() -> None:
    where = " ".join((await _help("where"))["notes"])
    for op in OPERATORS:
        assert f" {op} " in f" {where.replace(',', ' ').replace('(', ' ')} ", op
    follow = await _help("follow")
    assert set(follow["objects"]["Follow"]["fields"]) == _all_fields(Follow)
    assert any("follow_errors" in note for note in follow["notes"])


async def test_help_without_about_is_the_workflow_reference_with_its_topics() -> None:
    out = await _help("workflow")
    async with Client(build_server(Backend(FakePool()))) as client:
        default = await call(client, "observe", what="help")
    assert default == out and {"where", "follow", "ACTION"} <= set(out["topics"])


async def test_help_about_nothing_known_is_invalid_params_with_a_guess() -> None:
    async with Client(build_server(Backend(FakePool()))) as client:
        err = await call_error(client, "observe", what="help", about="clik")
    assert err["error"] == ErrorCode.INVALID_PARAMS and '"click"' in err["message"]
