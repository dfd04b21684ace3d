"""interact scrape / cancel, observe command_result / workflows, configure export/import/delete_workflow,
through the SDK's in-memory client against a scripted host pool."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest
from mcp_types import CallToolResult

from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tabpilot.wire.scrape import ExtractRequest, ScrapeRequest
from tests.unit.bridge.test_tools import WAIT_S, FakePool, client, payload

pytestmark = pytest.mark.anyio

DONE = {
    "status": "complete",
    "correlation_id": "corr-abc123abc123",
    "data": [{"name": "Alice"}],
    "metadata": {
        "pages_scraped": 1,
        "rows_extracted": 1,
        "duration_ms": 3,
        "url": "https://a.test/",
        "errors": [],
    },
}


class ProgressPool(FakePool):
    """A pool that also plays the host's Progress messages before answering."""

    async def call(self, command: m.Command, *, on_progress: Any = None, **kw: Any) -> Any:
        if on_progress is not None:
            for step in (1.0, 2.0):
                await on_progress(m.Progress(id=0, progress=step, total=2.0, message=f"step {step}"))
        return await super().call(command, **kw)


async def call(pool: FakePool, tool: str, **args: Any) -> CallToolResult:
    with anyio.fail_after(WAIT_S):
        async with client(pool) as c:
            return await c.call_tool(tool, args)


async def test_scrape_passes_flat_arguments_and_relays_progress() -> None:
    pool = ProgressPool(answers={"scrape": DONE})
    reported: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        reported.append((progress, total))

    args = {
        "action": "scrape",
        "operation": "extract",
        "selector": "tr",
        "schema": {"name": "td | text"},
        "options": {"paginate": {"next_selector": "a.next", "max_pages": 3}},
        "tab_id": 4,
    }
    with anyio.fail_after(WAIT_S):
        async with client(pool) as c:
            result = await c.call_tool("interact", args, progress_callback=on_progress)
    # What the agent did not ask for stays out (test_lean.py): the status and the rows.
    lean = {"status": "complete", "data": DONE["data"]}
    assert not result.is_error and payload(result) == lean
    [(command, _)] = pool.sent
    assert isinstance(command, m.Scrape) and command.wait_ms == 20_000 and command.progress
    # As the agent sent it, but for the page telemetry it did not ask for: not gathered (test_lean.py).
    sent = {k: v for k, v in args.items() if k != "action"}
    sent["options"] = {**args["options"], "telemetry": False}
    assert msgspec.to_builtins(command.request) == msgspec.to_builtins(msgspec.convert(sent, ScrapeRequest))
    assert isinstance(command.request, ExtractRequest) and command.request.options.paginate is not None
    assert reported == [(1.0, 2.0), (2.0, 2.0)]


async def test_a_failed_scrape_is_an_error_that_keeps_its_partial_data() -> None:
    failed = DONE | {
        "status": "error",
        "error": "navigation_redirect",
        "message": "login",
        "redirect_url": "https://sso.test/",
    }
    result = await call(
        ProgressPool(answers={"scrape": failed}),
        "interact",
        action="scrape",
        operation="workflow",
        steps=[{"type": "navigate", "url": "https://a.test/"}],
    )
    assert result.is_error
    body = payload(result)
    assert body["error"] == ErrorCode.NAVIGATION_REDIRECT and body["redirect_url"] == "https://sso.test/"
    assert body["data"] == [{"name": "Alice"}]


async def test_refusals_name_the_active_workflow_at_the_top_level() -> None:
    busy = TabPilotError(
        ErrorCode.WORKFLOW_IN_PROGRESS,
        "busy",
        data={"active_workflow_id": "wf-x-20260101", "correlation_id": "corr-1"},
    )
    result = await call(
        ProgressPool(answers={"scrape": busy}),
        "interact",
        action="scrape",
        operation="replay",
        workflow_id="wf-y-20260101",
    )
    body = payload(result)
    assert result.is_error and body["error"] == ErrorCode.WORKFLOW_IN_PROGRESS
    assert body["active_workflow_id"] == "wf-x-20260101" and "data" not in body


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ({"action": "scrape"}, ErrorCode.INVALID_PARAMS),
        ({"action": "scrape", "operation": "teleport"}, ErrorCode.INVALID_PARAMS),
        ({"action": "scrape", "operation": "extract", "wait_ms": -1}, ErrorCode.INVALID_PARAMS),
        ({"action": "cancel"}, ErrorCode.INVALID_PARAMS),
    ],
)
async def test_bad_arguments_are_invalid_params(args: dict[str, Any], code: ErrorCode) -> None:
    pool = ProgressPool()
    result = await call(pool, "interact", **args)
    assert result.is_error and payload(result)["error"] == code and pool.sent == []


@pytest.mark.parametrize(
    ("args", "field"),
    [
        # A field of another operation: the tool's schema has it, the operation's request type does not.
        ({"operation": "suggest", "selector": "tr"}, "selector"),
        ({"operation": "workflow", "steps": [], "workflow_id": "wf-x-20260101"}, "workflow_id"),
        ({"operation": "extract", "selector": "tr", "query": "price"}, "query"),
    ],
)
async def test_a_field_of_another_operation_is_invalid_params_naming_it(
    args: dict[str, Any], field: str
) -> None:
    pool = ProgressPool()
    result = await call(pool, "interact", action="scrape", **args)
    body = payload(result)
    assert result.is_error and body["error"] == ErrorCode.INVALID_PARAMS and pool.sent == []
    assert body["data"]["field"] == field


async def test_host_errors_keep_their_code() -> None:
    pool = ProgressPool(
        answers={
            "scrape": TabPilotError(ErrorCode.AI_WEB_PILOT_DISABLED, "off"),
            "command_result": TabPilotError(ErrorCode.WORKFLOW_NOT_FOUND, "gone"),
        }
    )
    result = await call(
        pool, "interact", action="scrape", operation="extract", selector="tr", schema={"a": "td"}
    )
    assert payload(result)["error"] == ErrorCode.AI_WEB_PILOT_DISABLED
    result = await call(pool, "observe", what="command_result", correlation_id="corr-0")
    assert payload(result)["error"] == ErrorCode.WORKFLOW_NOT_FOUND


async def test_command_result_and_cancel() -> None:
    running = {
        "status": "running",
        "correlation_id": "corr-1",
        "steps_completed": 1,
        "steps_total": 3,
        "progress": {"pages": 0, "rows": 0},
    }
    pool = ProgressPool(answers={"command_result": running, "cancel_job": DONE | {"status": "cancelled"}})
    assert (
        payload(await call(pool, "observe", what="command_result", correlation_id="corr-1", wait_ms=500))
        == running
    )
    command = pool.sent[0][0]
    assert isinstance(command, m.JobResult) and command.wait_ms == 500
    assert (
        payload(await call(pool, "interact", action="cancel", correlation_id="corr-1"))["status"]
        == "cancelled"
    )


async def test_workflow_files_round_trip(tmp_path: Path) -> None:
    document = json.dumps({"format": "tabpilot.workflow/1", "id": "wf-a-20260101"})
    imported: list[str] = []

    def op(c: m.WorkflowOp) -> Any:
        if c.op == "get":
            return {"workflow_id": c.workflow_id, "document": document}
        if c.op == "import":
            imported.append(c.document or "")
            return {"workflow_id": "wf-a-20260101", "imported": True}
        if c.op == "delete":
            return {"deleted": c.workflow_id}
        return {"workflows": [{"workflow_id": "wf-a-20260101"}]}

    pool = ProgressPool(answers={"workflow_op": op})
    target = tmp_path / "wf.json"
    out = payload(
        await call(pool, "configure", action="export_workflow", workflow_id="wf-a-20260101", path=str(target))
    )
    assert out["path"] == str(target) and target.read_text() == document
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    out = payload(await call(pool, "configure", action="import_workflow", path=str(target)))
    assert out["workflow_id"] == "wf-a-20260101" and imported == [document]
    assert (
        payload(await call(pool, "observe", what="workflows"))["workflows"][0]["workflow_id"]
        == "wf-a-20260101"
    )
    assert payload(await call(pool, "configure", action="delete_workflow", workflow_id="wf-a-20260101")) == {
        "deleted": "wf-a-20260101"
    }
    result = await call(pool, "configure", action="import_workflow", path=str(tmp_path / "missing.json"))
    assert result.is_error and payload(result)["error"] == ErrorCode.INVALID_PARAMS
    result = await call(
        pool,
        "configure",
        action="export_workflow",
        workflow_id="wf-a-20260101",
        path=str(tmp_path / "no" / "dir.json"),
    )
    assert result.is_error and payload(result)["error"] == ErrorCode.INVALID_PARAMS


async def test_export_never_overwrites_another_file(tmp_path: Path) -> None:
    document = json.dumps({"format": "tabpilot.workflow/1", "id": "wf-a-20260101"})
    pool = ProgressPool(
        answers={"workflow_op": lambda c: {"workflow_id": c.workflow_id, "document": document}}
    )
    precious = tmp_path / "notes.json"
    precious.write_text('{"mine": true}')
    for path in (precious, tmp_path / "bashrc", tmp_path / "x.txt"):
        result = await call(
            pool, "configure", action="export_workflow", workflow_id="wf-a-20260101", path=str(path)
        )
        assert result.is_error and payload(result)["error"] == ErrorCode.INVALID_PARAMS, path
    assert precious.read_text() == '{"mine": true}' and not (tmp_path / "bashrc").exists()
    again = tmp_path / "wf.json"
    for _ in range(2):  # a new file, then over the earlier export
        result = await call(
            pool, "configure", action="export_workflow", workflow_id="wf-a-20260101", path=str(again)
        )
        assert not result.is_error


class DyingPool(FakePool):
    """A host that starts the scrape (its first Progress names the run), then goes away."""

    async def call(self, command: m.Command, *, on_progress: Any = None, **kw: Any) -> Any:
        if on_progress is not None:
            await on_progress(m.Progress(id=0, progress=0.0, total=1.0, correlation_id="corr-0123456789ab"))
        raise TabPilotError(ErrorCode.EXTENSION_DISCONNECTED, "the host went away")


async def test_a_scrape_whose_host_died_names_its_run_to_resume() -> None:
    result = await call(
        DyingPool(), "interact", action="scrape", operation="extract", selector="tr", schema={"a": "td"}
    )
    assert result.is_error and result.structured_content is not None
    error = result.structured_content
    assert (
        error["error"] == ErrorCode.EXTENSION_DISCONNECTED and error["correlation_id"] == "corr-0123456789ab"
    )
