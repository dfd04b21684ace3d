"""The script branch of `extract` against a scripted browser: rows, single values, metadata, refusals."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.engine import result, runner
from tabpilot.engine.plan import build_plan, parse_request
from tabpilot.engine.steps.extract_script import as_rows
from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tests.support.fake_browser import ScriptedBrowser

pytestmark = pytest.mark.anyio

SCRIPT = "return [...root.querySelectorAll('tr')].map((tr) => ({ name: tr.cells[0].textContent }))"


def plan(**request: Any) -> Any:
    return build_plan(parse_request({"operation": "extract", **request}))


def answering(value: Any, redacted: int = 0) -> ScriptedBrowser:
    """A browser whose extractor returns `value` (redacted secrets counted as the page would)."""
    return ScriptedBrowser(
        {
            "extract_script": lambda c: {
                "tab_id": 3,
                "result": value,
                "redacted": redacted,
                "url": "https://x/",
            },
            "wait_for": lambda c: {"found": True},
        }
    )


async def run(p: Any, browser: ScriptedBrowser) -> dict[str, Any]:
    outcome = await runner.run(p, browser, grace_s=0.05)
    return result.response(outcome, p, "corr-test")


async def test_an_array_is_the_rows_in_one_call() -> None:
    browser = answering([{"name": "a"}, {"name": "[REDACTED]"}], redacted=1)
    out = await run(plan(script=SCRIPT, css_selector="#t", options={"wait_for": "#t"}), browser)
    assert out["status"] == "complete" and out["data"] == [{"name": "a"}, {"name": "[REDACTED]"}]
    meta = out["metadata"]
    assert meta["rows_extracted"] == 2 and meta["pages_scraped"] == 1 and meta["redacted"] == 1
    assert meta["url"] == "https://x/" and "result" not in meta
    assert browser.tags() == ["wait_for", "extract_script"]
    sent = browser.sent[1]
    assert isinstance(sent, m.ExtractScript)
    assert (sent.script, sent.css_selector, sent.timeout_ms) == (SCRIPT, "#t", 10_000)


async def test_a_single_value_is_one_record_and_says_so() -> None:
    out = await run(plan(script="return {total: 3}"), answering({"total": 3}))
    assert out["data"] == [{"total": 3}] and out["metadata"]["result"] == "object"
    out = await run(plan(script="return 'x'"), answering("x"))
    assert out["data"] == ["x"] and out["metadata"]["result"] == "value"
    assert as_rows([]) == ([], None)


async def test_limit_cuts_the_rows_and_workflow_steps_add_up_redactions() -> None:
    out = await run(plan(script=SCRIPT, options={"limit": 1}), answering([1, 2, 3]))
    assert out["data"] == [1] and out["metadata"]["rows_extracted"] == 1
    steps = [{"type": "extract", "script": SCRIPT}, {"type": "extract", "script": SCRIPT}]
    wf = build_plan(parse_request({"operation": "workflow", "steps": steps}))
    out = await run(wf, answering([{"a": 1}], redacted=2))
    assert out["metadata"]["redacted"] == 4 and len(out["data"]) == 2


async def test_a_script_error_reaches_the_agent_with_its_line() -> None:
    thrown = TabPilotError(
        ErrorCode.SCRIPT_ERROR,
        "the script threw TypeError: x at line 2, column 5: fix it and call again",
        data={"message": "TypeError: x", "stack": "TypeError: x\n    at script:2:5", "line": 2, "column": 5},
    )
    out = await run(plan(script=SCRIPT), ScriptedBrowser({"extract_script": lambda c: thrown}))
    assert out["status"] == "error" and out["error"] == ErrorCode.SCRIPT_ERROR
    assert out["line"] == 2 and out["column"] == 5 and out["stack"].endswith("script:2:5")


@pytest.mark.parametrize(
    ("request_", "words"),
    [
        ({"script": SCRIPT, "options": {"paginate": {"next_selector": "a.next"}}}, "one page"),
        ({"script": SCRIPT, "options": {"scroll": {"max_scrolls": 3}}}, "one page"),
        ({"script": "  \n"}, "empty"),
        ({"script": "x" * 200_001}, "limit"),
        ({"script": SCRIPT, "selector": "tr", "schema": {"a": "td"}}, "not both"),
    ],
)
def test_what_a_script_extract_cannot_do_is_refused_before_it_runs(
    request_: dict[str, Any], words: str
) -> None:
    with pytest.raises(TabPilotError) as caught:
        plan(**request_)
    assert caught.value.code == ErrorCode.INVALID_PARAMS and words in caught.value.message


def test_a_workflow_step_with_a_script_and_pagination_is_refused() -> None:
    step = {"type": "extract", "script": SCRIPT, "paginate": {"next_selector": "a"}}
    with pytest.raises(TabPilotError) as caught:
        build_plan(parse_request({"operation": "workflow", "steps": [step]}))
    assert caught.value.code == ErrorCode.INVALID_PARAMS


async def test_output_schema_coerces_the_rows_and_reports_violations() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    out = await run(plan(script=SCRIPT, output_schema=schema), answering([{"n": "12"}, {"n": "x"}]))
    assert out["status"] == "error" and out["error"] == ErrorCode.VALIDATION_FAILED
    assert out["data"] == [{"n": 12}, {"n": "x"}] and [v["path"] for v in out["violations"]] == ["$[1].n"]
    fine = await run(plan(script=SCRIPT, output_schema=schema), answering({"n": "7"}))
    assert fine["status"] == "complete" and fine["data"] == [{"n": 7}]
