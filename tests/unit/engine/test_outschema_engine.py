"""output_schema through the engine: plan-time refusal, page-by-page coercion, the verdict, replay, import."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tabpilot.engine import result, runner, workflows
from tabpilot.engine.jobs import Jobs
from tabpilot.engine.plan import build_plan, parse_request
from tabpilot.engine.store import FORMAT, WorkflowDoc, WorkflowStore
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tests.support.fake_browser import ScriptedBrowser, TableSite

pytestmark = pytest.mark.anyio

FIELDS = {"name": "td:nth-child(1)", "price": "td:nth-child(2)"}
PRICED = {
    "type": "object",
    "required": ["name", "price"],
    "properties": {"name": {"type": "string"}, "price": {"type": "number"}},
}
PAGES = [[["a", "12"], ["b", "3.5"]], [["c", "N/A"], ["d", "7"]]]
PAGINATE = {"paginate": {"next_selector": "a.next", "delay_ms": 0}, "delay_ms": 0}


async def run(request: dict[str, Any], pages: list[list[list[Any]]] = PAGES) -> dict[str, Any]:
    p = build_plan(parse_request(request))
    outcome = await runner.run(p, TableSite(pages).install(ScriptedBrowser()), grace_s=0.05)
    return result.response(outcome, p, "corr-test")


def extract(**kw: Any) -> dict[str, Any]:
    return {"operation": "extract", "selector": "tr", "schema": FIELDS, "options": PAGINATE} | kw


async def test_a_bad_row_fails_the_extract_with_every_row_and_its_path() -> None:
    out = await run(extract(output_schema=PRICED))
    assert out["status"] == "error" and out["error"] == "validation_failed"
    assert out["data"] == [
        {"name": "a", "price": 12},
        {"name": "b", "price": 3.5},
        {"name": "c", "price": "N/A"},
        {"name": "d", "price": 7},
    ], "every row is there, coerced; the bad one as it was"
    assert out["violations"] == [{"row": 2, "path": "$[2].price", "message": 'expected number (got "N/A")'}]
    assert out["violations_total"] == 1
    assert out["message"].startswith("1 of 4 rows do not match output_schema: $[2].price: expected number")
    assert out["metadata"]["is_partial"] is True and out["metadata"]["output_schema"] == "violated"
    assert out["metadata"]["pages_scraped"] == 2


async def test_matching_rows_complete_and_say_so() -> None:
    out = await run(extract(output_schema=PRICED), [[["a", "12"]], [["b", "1e2"]]])
    assert out["status"] == "complete" and out["data"] == [
        {"name": "a", "price": 12},
        {"name": "b", "price": 100.0},
    ]
    assert out["metadata"]["output_schema"] == "valid" and "is_partial" not in out["metadata"]
    plain = await run(extract())
    assert "output_schema" not in plain["metadata"], "lean: nothing said when nothing was asked"


async def test_an_array_schema_judges_the_whole_list() -> None:
    out = await run(extract(output_schema={"type": "array", "minItems": 5, "items": PRICED}), PAGES[:1])
    assert out["error"] == "validation_failed" and out["violations"] == [
        {"path": "$", "message": "fewer than 5 items"}
    ]
    assert out["data"] == [{"name": "a", "price": 12}, {"name": "b", "price": 3.5}]


@pytest.mark.parametrize(
    "request_",
    [
        extract(output_schema={"type": "nmber"}),
        {
            "operation": "workflow",
            "steps": [
                {"type": "navigate", "url": "https://shop.example/"},
                {"type": "extract", "selector": "tr", "schema": FIELDS, "output_schema": {"minimum": "x"}},
            ],
        },
    ],
)
def test_an_invalid_schema_is_refused_before_anything_runs(request_: dict[str, Any]) -> None:
    with pytest.raises(TabPilotError) as err:
        build_plan(parse_request(request_))
    assert err.value.code == ErrorCode.INVALID_OUTPUT_SCHEMA
    if request_["operation"] == "workflow":
        assert err.value.message.startswith("steps[1]: output_schema at $") and "minimum" in err.value.message


def test_a_workflow_takes_output_schema_on_its_extract_steps_only() -> None:
    with pytest.raises(TabPilotError) as err:
        build_plan(
            parse_request(
                {"operation": "workflow", "output_schema": PRICED, "steps": [{"type": "wait", "ms": 1}]}
            )
        )
    assert err.value.code == ErrorCode.INVALID_PARAMS


async def test_a_workflow_extract_step_is_checked() -> None:
    out = await run(
        {
            "operation": "workflow",
            "options": {"delay_ms": 0},
            "steps": [{"type": "extract", "selector": "tr", "schema": FIELDS, "output_schema": PRICED}],
        },
        [[["a", "1"], ["b", "x"]]],
    )
    assert out["error"] == "validation_failed" and out["failed_step"] == 0
    assert out["violations"][0]["path"] == "$[1].price" and out["data"][0] == {"name": "a", "price": 1}


async def test_row_indexes_point_into_the_runs_data_after_earlier_steps() -> None:
    step = {"type": "extract", "selector": "tr", "schema": FIELDS}
    for schema, path in ((PRICED, "$[3].price"), ({"type": "array", "items": PRICED}, "$[3].price")):
        out = await run(
            {
                "operation": "workflow",
                "options": {"delay_ms": 0},
                "steps": [step, {**step, "output_schema": schema}],
            },
            [[["a", "1"], ["b", "x"]]],
        )
        assert out["error"] == "validation_failed" and out["failed_step"] == 1
        assert [v["path"] for v in out["violations"]] == [path], "the second step's rows are data[2:]"
        assert out["violations"][0]["row"] == 3 and out["data"][3] == {"name": "b", "price": "x"}
        assert out["message"].startswith(f"1 of 2 rows do not match output_schema: {path}")


async def test_a_script_extract_is_checked_the_same_way() -> None:
    def script(_: Any) -> Any:
        return {
            "result": [{"name": "z", "price": "5"}, {"name": "y", "price": "?"}],
            "url": "https://x.example/",
        }

    request = {
        "operation": "workflow",
        "options": {"delay_ms": 0},
        "steps": [
            {"type": "extract", "selector": "tr", "schema": FIELDS, "output_schema": PRICED},
            {"type": "extract", "script": "return []", "output_schema": PRICED},
        ],
    }
    p = build_plan(parse_request(request))
    browser = TableSite([[["a", "1"]]]).install(ScriptedBrowser({"extract_script": script}))
    out = result.response(await runner.run(p, browser, grace_s=0.05), p, "corr-test")
    assert out["error"] == "validation_failed" and out["failed_step"] == 1
    assert out["data"] == [{"name": "a", "price": 1}, {"name": "z", "price": 5}, {"name": "y", "price": "?"}]
    assert [v["path"] for v in out["violations"]] == ["$[2].price"]
    assert out["metadata"]["output_schema"] == "violated" and out["metadata"]["is_partial"] is True
    p = build_plan(parse_request({**request, "steps": request["steps"][1:]}))
    fine = ScriptedBrowser({"extract_script": lambda _: {"result": {"name": "z", "price": "5"}}})
    out = result.response(await runner.run(p, fine, grace_s=0.05), p, "corr-test")
    assert out["status"] == "complete" and out["data"] == [{"name": "z", "price": 5}]
    assert out["metadata"]["output_schema"] == "valid"


async def test_replay_overrides_the_recorded_schema_and_records_keep_it(tmp_path: Path) -> None:
    store = WorkflowStore(tmp_path / "data")
    jobs = Jobs(TableSite([[["a", "12"], ["b", "x"]]]).install(ScriptedBrowser()), store, grace_s=0.05)
    lenient = {"type": "object", "properties": {"price": {"type": ["number", "string"]}}}
    first = await jobs.wait(
        jobs.start(
            {
                "operation": "workflow",
                "name": "prices",
                "record": True,
                "options": {"delay_ms": 0},
                "steps": [{"type": "extract", "selector": "tr", "schema": FIELDS, "output_schema": lenient}],
            }
        ),
        5_000,
    )
    assert first["status"] == "complete" and first["metadata"]["output_schema"] == "valid"
    wf = first["workflow_id"]
    assert store.get(wf).workflow["steps"][0]["output_schema"] == lenient, "the step's schema persists"
    again = await jobs.wait(jobs.start({"operation": "replay", "workflow_id": wf}), 5_000)
    assert again["status"] == "complete"
    strict = await jobs.wait(
        jobs.start({"operation": "replay", "workflow_id": wf, "output_schema": PRICED}), 5_000
    )
    assert strict["error"] == "validation_failed" and strict["violations"][0]["path"] == "$[1].price"
    assert strict["data"] == [{"name": "a", "price": 12}, {"name": "b", "price": "x"}]
    with pytest.raises(TabPilotError) as err:
        jobs.start({"operation": "replay", "workflow_id": wf, "output_schema": {"type": 5}})
    assert err.value.code == ErrorCode.INVALID_OUTPUT_SCHEMA


async def test_replay_with_a_schema_needs_an_extract_step(tmp_path: Path) -> None:
    jobs = Jobs(ScriptedBrowser(), WorkflowStore(tmp_path / "data"), grace_s=0.05)
    done = await jobs.wait(
        jobs.start(
            {
                "operation": "workflow",
                "name": "nav",
                "record": True,
                "steps": [{"type": "navigate", "url": "https://shop.example/"}],
            }
        ),
        5_000,
    )
    with pytest.raises(TabPilotError) as err:
        jobs.start({"operation": "replay", "workflow_id": done["workflow_id"], "output_schema": PRICED})
    assert err.value.code == ErrorCode.INVALID_PARAMS


def test_an_imported_workflow_with_an_invalid_schema_is_refused() -> None:
    step = {"type": "extract", "selector": "tr", "schema": FIELDS, "output_schema": {"properties": 5}}
    doc = WorkflowDoc(
        format=FORMAT,
        id="wf-imported-20260101",
        name="imported",
        workflow={"steps": [step]},
        created="2026-01-01T00:00:00+00:00",
        domains=["shop.example"],
    )
    with pytest.raises(TabPilotError) as err:
        workflows.validate(doc)
    assert err.value.code == ErrorCode.INVALID_OUTPUT_SCHEMA and "properties" in err.value.message
