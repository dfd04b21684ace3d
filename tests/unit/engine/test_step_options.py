"""A workflow's extract step takes the extract operation's `options` shape (the old top-level form
still works); a misspelt field is invalid_params that lists the allowed ones."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from tabpilot.engine import result, runner
from tabpilot.engine.plan import build_plan, parse_request
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tests.support.fake_browser import ScriptedBrowser, TableSite

pytestmark = pytest.mark.anyio

SCHEMA = {"name": "td:nth-child(1)"}
PAGES = [[["a"], ["b"]], [["c"]], [["d"]]]
EXTRACT = {"type": "extract", "selector": "tr", "schema": SCHEMA}


async def run_steps(*steps: dict[str, Any]) -> tuple[dict[str, Any], ScriptedBrowser]:
    browser = TableSite(PAGES).install(ScriptedBrowser())
    p = build_plan(parse_request({"operation": "workflow", "steps": list(steps)}))
    return result.response(await runner.run(p, browser, grace_s=0.05), p, "corr-test"), browser


def refused(request: dict[str, Any]) -> TabPilotError:
    with pytest.raises(TabPilotError) as caught:
        build_plan(parse_request(request))
    assert caught.value.code == ErrorCode.INVALID_PARAMS
    return caught.value


async def test_options_under_a_step_do_what_the_extract_operation_s_options_do() -> None:
    paginate = {"next_selector": "a.next", "max_pages": 2, "delay_ms": 0}
    nested, browser = await run_steps(EXTRACT | {"options": {"paginate": paginate, "wait_for": "table"}})
    assert [r["name"] for r in nested["data"]] == ["a", "b", "c"]
    # The last extract asks whether page 2 (max_pages) was the last one.
    assert browser.tags() == ["wait_for", "extract", "paginate", "extract", "extract"]
    flat, _ = await run_steps(EXTRACT | {"paginate": paginate, "wait_for": "table"})
    assert flat["data"] == nested["data"]
    limited, _ = await run_steps(EXTRACT | {"options": {"limit": 1, "timeout_ms": 1_234}})
    assert limited["data"] == [{"name": "a"}]


def test_timeout_under_options_is_the_step_s_timeout() -> None:
    p = build_plan(
        parse_request({"operation": "workflow", "steps": [EXTRACT | {"options": {"timeout_ms": 1_234}}]})
    )
    assert p.steps[0].timeout() == 1_234


@pytest.mark.parametrize(
    ("step", "allowed"),
    [
        (EXTRACT | {"paginate_next": "a"}, "selector schema"),
        (EXTRACT | {"options": {"pagination": {}}}, "wait_for timeout_ms paginate scroll limit"),
        (EXTRACT | {"options": {"paginate": {"next": "a"}}}, "next_selector max_pages delay_ms"),
        ({"type": "click", "css": "a"}, "selector button click_count"),
    ],
)
def test_an_unknown_field_lists_the_allowed_ones(step: dict[str, Any], allowed: str) -> None:
    error = refused({"operation": "workflow", "steps": [step]})
    assert all(name in error.message for name in allowed.split())


def test_the_same_option_in_both_places_is_refused() -> None:
    step = EXTRACT | {"limit": 3, "options": {"limit": 4}}
    assert "limit" in refused({"operation": "workflow", "steps": [step]}).message


def test_the_extract_operation_s_unknown_option_lists_the_allowed_ones() -> None:
    error = refused({"operation": "extract", "selector": "tr", "schema": SCHEMA, "options": {"scrol": {}}})
    assert "scroll" in error.message and "paginate" in error.message


def test_a_recorded_step_keeps_one_form() -> None:
    p = build_plan(parse_request({"operation": "workflow", "steps": [EXTRACT | {"options": {"limit": 2}}]}))
    stored = msgspec.to_builtins(p.steps[0])
    assert stored["limit"] == 2 and "options" not in stored
