"""The bridge's MCP tools, driven through the SDK's in-memory client against a scripted fake host pool."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp_types import CallToolResult, TextContent

from tabpilot.bridge.tools import TOOLS
from tabpilot.bridge.tools.app import build_server
from tabpilot.bridge.tools.base import Backend
from tabpilot.bridge.tools.interact import MAX_RESULT_CAP
from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tabpilot.wire.messages import BrowserInfo

pytestmark = pytest.mark.anyio

WAIT_S = 10


def FakeBrowser(**fields: Any) -> BrowserInfo:
    defaults: dict[str, Any] = {
        "instance_id": "inst-1",
        "label": "Work",
        "profile": "Default",
        "browser_name": "Chromium",
        "browser_version": "156.0",
        "extension_version": "0.1.0",
        "protocol": 1,
        "host_version": "0.1.0",
        "pilot": True,
    }
    return BrowserInfo(**{**defaults, **fields})


Answer = Any  # a value, a TabPilotError to raise, or a function of the command returning either


@dataclass
class FakePool:
    """Answers commands from a script keyed by command type; records what it was sent."""

    answers: dict[str, Answer] = field(default_factory=dict[str, Answer])
    connected: list[BrowserInfo] = field(default_factory=lambda: [FakeBrowser()])
    sent: list[tuple[m.Command, str | None]] = field(default_factory=list[tuple[m.Command, "str | None"]])
    closed: bool = False

    async def call(
        self, command: m.Command, *, browser: str | None = None, timeout_s: float | None = None
    ) -> Any:
        self.sent.append((command, browser))
        if not self.connected:
            raise TabPilotError(ErrorCode.EXTENSION_NOT_CONNECTED, "no browser; open one with the extension")
        answer: Any = self.answers[m.tag_of(type(command))]
        if callable(answer):
            answer = answer(command)
        if isinstance(answer, TabPilotError):
            raise answer
        return answer

    async def browsers(self) -> list[BrowserInfo]:
        return list(self.connected)

    async def aclose(self) -> None:
        self.closed = True


def client(pool: FakePool, launch: Callable[[], Any] | None = None) -> Client:
    backend = Backend(pool, launch=launch, launch_name="pilot" if launch else None)
    return Client(build_server(backend))


def payload(result: CallToolResult) -> Any:
    """The structured content, after checking that the text block carries the same compact JSON."""
    [block] = result.content
    assert isinstance(block, TextContent)
    compact = json.dumps(result.structured_content, separators=(",", ":"), ensure_ascii=False)
    assert block.text == compact
    return result.structured_content


async def call(pool: FakePool, tool: str, **args: Any) -> CallToolResult:
    with anyio.fail_after(WAIT_S):
        async with client(pool) as c:
            return await c.call_tool(tool, args)


async def test_list_tools_shows_three_tools_with_schemas() -> None:
    with anyio.fail_after(WAIT_S):
        async with client(FakePool()) as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
    assert set(tools) == {"interact", "observe", "configure"}
    assert {t.name for t in TOOLS} == set(tools)
    for t in tools.values():
        assert t.input_schema["type"] == "object" and "browser" in t.input_schema["properties"]
        assert t.output_schema is not None and t.output_schema["type"] == "object"
        assert t.description
    props = tools["interact"].input_schema["properties"]
    assert {"navigate", "execute_js", "scrape", "back", "new_tab", "close_tab"} <= set(
        props["action"]["enum"]
    )
    assert tools["interact"].input_schema["required"] == ["action"]
    assert {"url", "script", "tab_id", "timeout_ms", "max_result_bytes"} <= set(props)
    assert {"tabs", "command_result", "workflows"} <= set(
        tools["observe"].input_schema["properties"]["what"]["enum"]
    )
    # Lean schemas: no titles, no `anyOf [T, null]` for optional arguments.
    text = json.dumps([t.input_schema for t in tools.values()])
    assert '"title"' not in text and '"null"' not in text


async def test_status_with_one_browser() -> None:
    pool = FakePool(answers={"status": {"pilot": False, "tracked_tab_id": 7, "protocol": 1}})
    result = await call(pool, "configure", action="status")
    assert not result.is_error
    status = payload(result)
    assert status["connected"] is True
    assert status["pilot_enabled"] is False, "the live answer wins over the host's hello"
    assert status["browser"] == "inst-1" and status["tracked_tab_id"] == 7
    assert status["browsers"][0]["label"] == "Work"
    assert set(status["versions"]) == {"bridge", "host", "extension", "protocol"}


async def test_status_without_browser_answers_with_a_fix() -> None:
    pool = FakePool(connected=[])
    result = await call(pool, "configure", action="status")
    assert not result.is_error
    status = payload(result)
    assert status["connected"] is False and status["browsers"] == []
    assert status["pilot_enabled"] is None and status["fix"]
    assert pool.sent == [], "status does not wait for a browser"


async def test_status_with_several_browsers() -> None:
    pool = FakePool(
        answers={"status": {"pilot": True}},
        connected=[FakeBrowser(pilot=False), FakeBrowser(instance_id="inst-2", label="Home", pilot=False)],
    )
    status = payload(await call(pool, "configure", action="status"))
    assert status["pilot_enabled"] is None and len(status["browsers"]) == 2 and "fix" in status
    status = payload(await call(pool, "configure", action="status", browser="home"))
    assert status["browser"] == "inst-2" and status["pilot_enabled"] is True
    result = await call(pool, "configure", action="status", browser="nope")
    assert result.is_error and payload(result)["error"] == ErrorCode.BROWSER_NOT_FOUND


async def test_observe_tabs() -> None:
    tab = {"id": 3, "url": "https://example.test/", "title": "Example", "active": True, "window_id": 1}
    pool = FakePool(answers={"tabs": {"tabs": [tab]}})
    result = await call(pool, "observe", what="tabs", browser="Work")
    assert payload(result) == {"tabs": [tab]}
    assert pool.sent[0][1] == "Work", "browser is passed on to the pool"


async def test_navigate_returns_final_url_and_reports_progress() -> None:
    pool = FakePool(
        answers={
            "navigate": lambda c: {"tab_id": 4, "url": c.url + "landing", "title": "Landing", "extra": 1}
        }
    )
    reported: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        reported.append((progress, total))

    with anyio.fail_after(WAIT_S):
        async with client(pool) as c:
            result = await c.call_tool(
                "interact",
                {"action": "navigate", "url": "https://a.test/", "tab_id": 4},
                progress_callback=on_progress,
            )
    assert payload(result) == {"tab_id": 4, "url": "https://a.test/landing", "title": "Landing"}
    [(command, _)] = pool.sent
    assert isinstance(command, m.Navigate) and command.tab_id == 4 and command.timeout_ms == 30_000
    assert reported == [(0, 1), (1, 1)]


async def test_execute_js_success() -> None:
    pool = FakePool(answers={"execute_js": {"success": True, "result": {"n": 2}}})
    result = await call(pool, "interact", action="execute_js", script="return 1 + 1", timeout_ms=900)
    assert not result.is_error
    assert payload(result) == {"success": True, "result": {"n": 2}}
    [(command, _)] = pool.sent
    assert isinstance(command, m.ExecuteJs) and command.script == "return 1 + 1" and command.timeout_ms == 900


async def test_execute_js_default_timeout_and_script_verbatim() -> None:
    pool = FakePool(answers={"execute_js": {"success": True, "result": None}})
    # A script that happens to be JSON text must arrive as text, not decoded.
    for script in ("[1, 2]", "{}", "true"):
        await call(pool, "interact", action="execute_js", script=script)
        assert isinstance(pool.sent[-1][0], m.ExecuteJs) and pool.sent[-1][0].script == script
    pool.sent.clear()
    assert payload(await call(pool, "interact", action="execute_js", script="null")) == {
        "success": True,
        "result": None,
    }
    assert isinstance(pool.sent[0][0], m.ExecuteJs) and pool.sent[0][0].timeout_ms == 5_000


async def test_execute_js_thrown_error_is_a_result_not_a_failure() -> None:
    answer = {"success": False, "error": "Error: test", "stack": "Error: test\n    at <anonymous>:1:7"}
    pool = FakePool(answers={"execute_js": answer})
    result = await call(pool, "interact", action="execute_js", script="throw new Error('test')")
    assert not result.is_error
    assert payload(result) == answer


async def test_pilot_disabled_is_a_structured_error() -> None:
    off = TabPilotError(
        ErrorCode.AI_WEB_PILOT_DISABLED, "Enable 'AI Web Pilot' in extension popup to use this tool"
    )
    pool = FakePool(answers={"execute_js": off, "navigate": off})
    for args in ({"action": "execute_js", "script": "1"}, {"action": "navigate", "url": "https://a.test/"}):
        result = await call(pool, "interact", **args)
        assert result.is_error
        err = payload(result)
        assert err["error"] == ErrorCode.AI_WEB_PILOT_DISABLED and err["message"]


async def test_unknown_action_lists_the_valid_ones() -> None:
    result = await call(FakePool(), "interact", action="teleport")
    assert result.is_error
    err = payload(result)
    assert err["error"] == ErrorCode.UNKNOWN_ACTION
    assert err["data"]["valid"] == list(TOOLS[0].actions)
    result = await call(FakePool(), "observe", what="cookies")
    assert payload(result)["data"]["valid"] == list(TOOLS[1].actions)


async def test_missing_and_mistyped_arguments_are_invalid_params() -> None:
    result = await call(FakePool(), "interact", action="navigate")
    assert result.is_error and payload(result)["error"] == ErrorCode.INVALID_PARAMS
    result = await call(FakePool(), "interact", action="navigate", url="https://a.test/", tab_id="first")
    assert result.is_error and payload(result)["error"] == ErrorCode.INVALID_PARAMS
    result = await call(
        FakePool(), "interact", action="execute_js", script="1", max_result_bytes=MAX_RESULT_CAP + 1
    )
    assert result.is_error and payload(result)["error"] == ErrorCode.INVALID_PARAMS


async def test_result_too_large() -> None:
    pool = FakePool(answers={"execute_js": {"success": True, "result": "x" * 2_000_000}})
    result = await call(pool, "interact", action="execute_js", script="big()")
    assert result.is_error
    err = payload(result)
    assert err["error"] == ErrorCode.RESULT_TOO_LARGE
    assert err["data"]["size"] > 2_000_000 and err["data"]["limit"] == 1_000_000


async def test_raised_cap_returns_a_big_result_intact() -> None:
    big = "é" * (4 * 1024 * 1024 + 17)  # 8 MiB + 34 bytes of UTF-8
    pool = FakePool(answers={"execute_js": {"success": True, "result": big}})
    result = await call(
        pool, "interact", action="execute_js", script="big()", max_result_bytes=16 * 1024 * 1024
    )
    assert not result.is_error
    assert payload(result)["result"] == big


async def test_errors_from_the_pool_pass_through_by_code() -> None:
    for code in (ErrorCode.TAB_NOT_FOUND, ErrorCode.NAVIGATION_BLOCKED, ErrorCode.AMBIGUOUS_BROWSER):
        pool = FakePool(answers={"navigate": TabPilotError(code, "something to act on")})
        result = await call(pool, "interact", action="navigate", url="https://a.test/")
        assert result.is_error and payload(result)["error"] == code


async def test_no_browser_gives_extension_not_connected() -> None:
    result = await call(FakePool(connected=[]), "observe", what="tabs")
    assert result.is_error
    assert payload(result)["error"] == ErrorCode.EXTENSION_NOT_CONNECTED


async def test_a_crash_in_an_action_is_an_internal_error() -> None:
    pool = FakePool(answers={"tabs": {"unexpected": True}})
    result = await call(pool, "observe", what="tabs")
    assert result.is_error and payload(result)["error"] == ErrorCode.INTERNAL_ERROR


async def test_launch_starts_the_profile_once_then_retries() -> None:
    pool = FakePool(connected=[], answers={"tabs": {"tabs": []}})
    launches: list[int] = []

    async def launch() -> None:
        launches.append(1)
        pool.connected.append(FakeBrowser())

    with anyio.fail_after(WAIT_S):
        async with client(pool, launch) as c:
            results: list[CallToolResult] = []

            async def one() -> None:
                results.append(await c.call_tool("observe", {"what": "tabs"}))

            async with anyio.create_task_group() as tg:
                for _ in range(3):
                    tg.start_soon(one)
    assert launches == [1]
    assert [payload(r) for r in results] == [{"tabs": []}] * 3
