"""The engine reads the extension's replies as typed structs: an answer of the wrong shape ends the
step with malformed_reply (a code the agent can report), never with a half-read value."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.engine import result, runner
from tabpilot.engine.plan import build_plan, parse_request
from tabpilot.wire.errors import ErrorCode
from tests.support.fake_browser import ScriptedBrowser, TableSite

pytestmark = pytest.mark.anyio

SCHEMA = {"name": "td"}


async def _run(request: dict[str, Any], browser: ScriptedBrowser) -> dict[str, Any]:
    p = build_plan(parse_request(request))
    return result.response(await runner.run(p, browser, grace_s=0.05), p, "corr-test")


def _extract(**options: Any) -> dict[str, Any]:
    return {"operation": "extract", "selector": "tr", "schema": SCHEMA, "options": options}


@pytest.mark.parametrize(
    ("tag", "answer", "request_json"),
    [
        ("extract", {"rows": "a,b"}, _extract()),
        ("extract", {"rows": [], "warnings": ["points is empty"]}, _extract()),
        ("extract", {"rows": [], "virtual": True}, _extract()),
        ("paginate", {"url": "https://data.example/2"}, _extract(paginate={"next_selector": "a"})),
        ("scroll_load", {"before": "10", "after": 20}, _extract(scroll={"max_scrolls": 2})),
        ("extract_script", ["row"], {"operation": "extract", "script": "return [1]"}),
        (
            "navigate",
            {"url": 7},
            {"operation": "workflow", "steps": [{"type": "navigate", "url": "https://a.test/"}]},
        ),
        (
            "execute_js",
            {"success": "yes"},
            {"operation": "workflow", "steps": [{"type": "execute_js", "script": "1"}]},
        ),
    ],
)
async def test_a_reply_of_the_wrong_shape_is_malformed_reply(
    tag: str, answer: Any, request_json: dict[str, Any]
) -> None:
    site = TableSite([[["a"]], [["b"]]])
    browser = site.install(ScriptedBrowser())
    browser.handlers[tag] = lambda c: answer
    out = await _run(request_json, browser)
    assert out["status"] == "error" and out["error"] == ErrorCode.MALFORMED_REPLY, out


async def test_replies_missing_optional_fields_still_read() -> None:
    # An older extension leaves out what it did not know: the defaults stand in.
    browser = ScriptedBrowser(
        {
            "extract": lambda c: {"rows": [["a"], ["b"]]},
            "extract_script": lambda c: {"result": [{"n": 1}]},
            "execute_js": lambda c: {"result": 3},
        }
    )
    out = await _run(_extract(), browser)
    assert out["status"] == "complete" and out["data"] == [{"name": "a"}, {"name": "b"}]
    out = await _run({"operation": "extract", "script": "return [{n: 1}]"}, browser)
    assert out["status"] == "complete" and out["data"] == [{"n": 1}]
    steps = [{"type": "execute_js", "script": "3", "save_as": "three"}]
    out = await _run({"operation": "workflow", "steps": steps}, browser)
    assert out["status"] == "complete" and out["outputs"]["three"] == 3
