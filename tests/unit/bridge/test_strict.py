"""Unknown arguments are refused with invalid_params naming the field and its nearest known name, at
every level: tool, action, nested option, workflow step; echoed inputs stay short."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tabpilot.engine.plan import build_plan, parse_request
from tabpilot.wire.echo import ECHO_CHARS, clip
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tests.unit.bridge.test_tools import FakePool, call, payload

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("tool", "args", "field", "guess"),
    [
        ("observe", {"what": "page", "scop": "main"}, "scop", "scope"),
        ("interact", {"action": "navigate", "url": "http://x/", "timeout": 5}, "timeout", "timeout_ms"),
        ("interact", {"action": "close_tab", "tabid": 7}, "tabid", "tab_id"),
        (
            "interact",
            {"action": "scrape", "operation": "extract", "delay_ms": 9},
            "delay_ms",
            "options.delay_ms",
        ),
        (
            "interact",
            {"action": "scrape", "operation": "extract", "options": {"paginate": {"next_selectr": "a"}}},
            "options.paginate.next_selectr",
            "next_selector",
        ),
        (
            "interact",
            {"action": "scrape", "operation": "workflow", "error_recovery": {"on_timout": "fail"}},
            "error_recovery.on_timout",
            "on_timeout",
        ),
        ("configure", {"action": "track_tab", "tab": 3}, "tab", "tab_id"),
    ],
)
async def test_an_unknown_field_is_refused_and_nothing_is_sent(
    tool: str, args: dict[str, Any], field: str, guess: str
) -> None:
    pool = FakePool(answers={"close_tab": {"closed_tab_id": 1}})
    result = await call(pool, tool, **args)
    out = payload(result)
    assert result.is_error and out["error"] == ErrorCode.INVALID_PARAMS
    assert out["data"]["field"] == field
    assert f'"{guess}"' in out["message"]
    assert pool.sent == [], "a refused call reaches no browser"


async def test_an_object_sent_as_a_json_string_is_checked_as_the_sdk_reads_it() -> None:
    options = json.dumps({"paginate": {"next_selector": "a", "max_page": 3}})
    out = payload(await call(FakePool(), "interact", action="scrape", operation="extract", options=options))
    assert out["error"] == ErrorCode.INVALID_PARAMS and out["data"]["field"] == "options.paginate.max_page"
    deep = "[" * 100 + "]" * 100
    out = payload(await call(FakePool(), "interact", action="scrape", operation="workflow", steps=deep))
    assert out["error"] == ErrorCode.INVALID_PARAMS and out["data"]["field"] == "steps"


async def test_a_field_of_another_action_is_refused() -> None:
    pool = FakePool(answers={"close_tab": {"closed_tab_id": 1}})
    out = payload(await call(pool, "interact", action="close_tab", url="http://x/"))
    assert out["error"] == ErrorCode.INVALID_PARAMS and out["data"]["field"] == "url"
    assert "action=navigate" in out["message"] and pool.sent == []


async def test_null_is_absent_for_any_field_of_the_tool() -> None:
    pool = FakePool(answers={"close_tab": {"closed_tab_id": 7}})
    out = payload(await call(pool, "interact", action="close_tab", tab_id=7, url=None))
    assert out == {"closed_tab_id": 7, "url": ""}


async def test_a_misspelt_action_and_tool_name_the_nearest() -> None:
    out = payload(await call(FakePool(), "interact", action="clik"))
    assert out["error"] == ErrorCode.UNKNOWN_ACTION and '"click"' in out["message"]
    out = payload(await call(FakePool(), "interactt", action="click"))
    assert out["error"] == ErrorCode.UNKNOWN_ACTION


async def test_a_huge_input_is_echoed_short() -> None:
    huge = "x" * 2_000_000
    for tool, args in (
        ("interact", {"action": huge}),
        ("observe", {"what": "page", huge: 1}),
        ("interact", {"action": "scrape", "operation": "extract", "options": {huge: 1}}),
    ):
        result = await call(FakePool(), tool, **args)
        assert result.is_error
        text = result.content[0].text  # type: ignore[union-attr]
        assert len(text) < 2_000, f"{tool}: a {len(huge):,}-character input came back in {len(text):,}"


async def test_arguments_nested_too_deep_are_refused_before_any_recursion() -> None:
    deep: Any = {"type": "string"}
    for _ in range(150):  # past the bridge's limit, within what the in-memory client can send
        deep = {"items": deep}
    out = payload(
        await call(FakePool(), "interact", action="scrape", operation="extract", output_schema=deep)
    )
    assert out["error"] == ErrorCode.INVALID_PARAMS


def test_an_error_from_the_page_quoting_a_huge_selector_is_clipped() -> None:
    huge = "div" * 1_000_000
    err = TabPilotError(ErrorCode.INVALID_SELECTOR, f"{huge} is not valid: {huge}", data={"selector": huge})
    out = err.to_dict()
    assert len(out["message"]) < 2_000 and len(out["data"]["selector"]) < 1_100


def test_clip_escapes_lone_surrogates() -> None:
    text = clip("a\ud800b" * 1000)
    text.encode("utf-8")  # would raise on a lone surrogate
    assert text.startswith("a\\ud800b") and len(text) < ECHO_CHARS * 6


@pytest.mark.parametrize(
    ("request_", "guess"),
    [
        (
            {"operation": "extract", "selector": "tr", "schema": {"a": "td"}, "options": {"delai_ms": 1}},
            "delay_ms",
        ),
        (
            {
                "operation": "extract",
                "selector": "tr",
                "schema": {"a": "td"},
                "options": {"scroll": {"max_scrols": 2}},
            },
            "max_scrolls",
        ),
        ({"operation": "workflow", "steps": [{"type": "click", "selectr": "a"}]}, "selector"),
        ({"operation": "workflow", "steps": [{"type": "clik", "selector": "a"}]}, "click"),
        (
            {"operation": "workflow", "steps": [{"type": "click", "selector": "a", "if": {"exist": "b"}}]},
            "exists",
        ),
        (
            {
                "operation": "workflow",
                "steps": [
                    {"type": "extract", "selector": "a", "schema": {"x": "b"}, "paginate": {"next": "c"}}
                ],
            },
            "next_selector",
        ),
    ],
)
def test_the_engine_refuses_unknown_options_and_step_fields(request_: dict[str, Any], guess: str) -> None:
    with pytest.raises(TabPilotError) as caught:
        build_plan(parse_request(request_))
    assert caught.value.code == ErrorCode.INVALID_PARAMS
    assert f'"{guess}"' in caught.value.message
