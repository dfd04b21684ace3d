"""Jobs, the workflow store, recording and replay, against a scripted browser and a temporary data dir."""

from __future__ import annotations

import asyncio
import datetime
import json
import stat
from pathlib import Path
from typing import Any

import pytest

from tabpilot.engine.jobs import Jobs
from tabpilot.engine.store import FORMAT, WorkflowDoc, WorkflowStore, decode_doc, encode_doc
from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tests.support.fake_browser import ScriptedBrowser, TableSite

pytestmark = pytest.mark.anyio

SCHEMA = {"ticket": "td.key", "points": "td.points | number"}
PAGES = [[["P-1", "3"], ["P-2", "5"]]]


def request(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "operation": "workflow",
        "name": "sprint",
        "record": True,
        "options": {"delay_ms": 0},
        "steps": [
            {"type": "navigate", "url": "https://jira.example/boards/PROJ"},
            {"type": "wait", "selector": ".report-table"},
            {"type": "extract", "selector": "tr", "schema": SCHEMA},
        ],
    }
    return base | kw


def jobs_with(tmp_path: Path, site: TableSite | None = None, **handlers: Any) -> tuple[Jobs, ScriptedBrowser]:
    browser = (site or TableSite(PAGES)).install(ScriptedBrowser(handlers))
    return Jobs(browser, WorkflowStore(tmp_path / "data"), grace_s=0.05), browser


async def finish(jobs: Jobs, req: dict[str, Any]) -> dict[str, Any]:
    job = jobs.start(req)
    return await jobs.wait(job, 5_000)


async def test_record_then_replay_with_overrides_and_params(tmp_path: Path) -> None:
    jobs, browser = jobs_with(tmp_path)
    first = await finish(jobs, request())
    day = datetime.date.today().strftime("%Y%m%d")
    assert first["status"] == "complete" and first["workflow_id"] == f"wf-sprint-{day}"
    assert first["metadata"]["recorded"] is True and first["steps_completed"] == 3
    browser.sent.clear()
    again = await finish(
        jobs,
        {
            "operation": "replay",
            "workflow_id": first["workflow_id"],
            "override_params": {
                "steps[0].url": "https://jira.example/boards/PROJ2",
                "steps[1].timeout_ms": 42,
            },
        },
    )
    assert again["status"] == "complete" and again["metadata"]["replayed_from"] == first["workflow_id"]
    nav, wait = browser.sent[0], browser.sent[1]
    assert isinstance(nav, m.Navigate) and nav.url == "https://jira.example/boards/PROJ2"
    assert isinstance(wait, m.WaitFor) and wait.timeout_ms == 42
    assert again["data"] == [{"ticket": "P-1", "points": 3}, {"ticket": "P-2", "points": 5}]


async def test_a_replay_gathers_the_page_telemetry_only_as_its_caller_asks(tmp_path: Path) -> None:
    jobs, browser = jobs_with(tmp_path)
    wf = (await finish(jobs, request(options={"delay_ms": 0, "telemetry": True})))["workflow_id"]
    for asked, reads in ((None, 2), (False, 0), (True, 2)):
        browser.sent.clear()
        req: dict[str, Any] = {"operation": "replay", "workflow_id": wf}
        out = await finish(jobs, req if asked is None else req | {"options": {"telemetry": asked}})
        assert out["status"] == "complete", out
        assert len([c for c in browser.sent if isinstance(c, m.Telemetry)]) == reads, asked


async def test_replay_domain_lock(tmp_path: Path) -> None:
    jobs, browser = jobs_with(tmp_path)
    wf = (await finish(jobs, request()))["workflow_id"]
    browser.sent.clear()
    moved = {
        "operation": "replay",
        "workflow_id": wf,
        "override_params": {"steps[0].url": "https://evil.example/"},
    }
    out = await finish(jobs, moved)
    assert out["status"] == "error" and out["error"] == ErrorCode.DOMAIN_MISMATCH and browser.sent == []
    out = await finish(jobs, moved | {"allow_domain_change": True})
    assert out["status"] == "complete"


async def test_replay_without_navigate_checks_the_current_page(tmp_path: Path) -> None:
    site = TableSite(PAGES, url="https://jira.example/report")
    jobs, _ = jobs_with(tmp_path, site)
    req = request(steps=[{"type": "extract", "selector": "tr", "schema": SCHEMA}])
    wf = (await finish(jobs, req))["workflow_id"]
    site.url = "https://other.example/report"
    out = await finish(jobs, {"operation": "replay", "workflow_id": wf})
    assert out["error"] == ErrorCode.DOMAIN_MISMATCH and out["data"] == []


async def test_replay_errors(tmp_path: Path) -> None:
    jobs, _ = jobs_with(tmp_path)
    wf = (await finish(jobs, request()))["workflow_id"]
    cases = [
        ({"operation": "replay", "workflow_id": "wf-nope-20260101"}, ErrorCode.WORKFLOW_NOT_FOUND),
        ({"operation": "replay", "workflow_id": "../../etc/passwd"}, ErrorCode.WORKFLOW_NOT_FOUND),
        ({"operation": "replay"}, ErrorCode.INVALID_PARAMS),
        (
            {"operation": "replay", "workflow_id": wf, "override_params": {"steps[9].url": "x"}},
            ErrorCode.INVALID_PARAMS,
        ),
        (
            {"operation": "replay", "workflow_id": wf, "override_params": {"steps[0].url": 5}},
            ErrorCode.INVALID_PARAMS,
        ),
        ({"operation": "replay", "workflow_id": wf, "override_params": {"a b": 1}}, ErrorCode.INVALID_PARAMS),
    ]
    for req, code in cases:
        with pytest.raises(TabPilotError) as err:
            jobs.start(req)
        assert err.value.code == code, req


async def test_secrets_are_not_recorded(tmp_path: Path) -> None:
    jobs, browser = jobs_with(tmp_path, fill=lambda c: {"secret": c.selector == "#pw"}, click=lambda c: {})
    req = request(
        steps=[
            {"type": "navigate", "url": "https://app.example/login"},
            {"type": "fill", "selector": "#user", "value": "{{params.user}}"},
            {"type": "fill", "selector": "#pw", "value": "hunter2-secret"},
            {"type": "fill", "selector": "#otp", "value": "{{params.api_token}}"},
            {"type": "click", "selector": "button"},
        ],
        params={"user": "alice", "api_token": "tok-123"},
    )
    out = await finish(jobs, req)
    text = (tmp_path / "data" / "workflows" / f"{out['workflow_id']}.json").read_text()
    assert "hunter2-secret" not in text and "tok-123" not in text and "alice" in text
    doc = json.loads(text)
    assert doc["required_params"] == ["api_token", "password"]
    with pytest.raises(TabPilotError) as err:
        jobs.start({"operation": "replay", "workflow_id": out["workflow_id"]})
    assert err.value.code == ErrorCode.INVALID_PARAMS and err.value.data == {
        "missing_params": ["api_token", "password"],
        "secret_params": ["api_token", "password"],  # never stored: the person gives them
        "sites": ["app.example"],
    }
    browser.sent.clear()
    out = await finish(
        jobs,
        {
            "operation": "replay",
            "workflow_id": out["workflow_id"],
            "params": {"password": "pw2", "api_token": "t2"},
        },
    )
    assert out["status"] == "complete"
    assert [c.value for c in browser.sent if isinstance(c, m.Fill)] == ["alice", "pw2", "t2"]


async def test_what_any_step_types_into_a_secret_field_stays_off_disk(tmp_path: Path) -> None:
    # The page says `secret: true` for a password field whatever its selector or current type.
    secret_fields = {"#k1", "#k2", "#k3"}
    answer = lambda c: {"secret": True} if c.selector in secret_fields else {}  # noqa: E731
    jobs, browser = jobs_with(
        tmp_path,
        fill=answer,
        type=answer,
        press=lambda c: answer(c) if len(c.key) == 1 else {},
        execute_js=lambda c: {"success": True, "result": "read back: typed-S3CRET-A / param-S3CRET-X / ZQ7"},
    )
    req = request(
        name="login",
        steps=[
            {"type": "navigate", "url": "https://app.example/login"},
            {"type": "fill", "selector": "#user", "value": "{{params.user}}"},
            {"type": "fill", "selector": "#k1", "value": "{{params.x}}"},
            {"type": "type", "selector": "#k2", "text": "typed-S3CRET-A"},
            {"type": "press", "selector": "#k3", "key": "Z"},
            {"type": "press", "selector": "#k3", "key": "Q"},
            {"type": "press", "selector": "#k3", "key": "7"},
            {"type": "press", "selector": "#k3", "key": "Enter"},
            {"type": "execute_js", "script": "'typed-S3CRET-A'.length", "save_as": "echo"},
        ],
        params={"user": "alice", "x": "param-S3CRET-X"},
    )
    out = await finish(jobs, req)
    assert out["status"] == "complete", out
    assert out["outputs"]["echo"] == "read back: [REDACTED] / [REDACTED] / [REDACTED]"
    await jobs.shutdown()
    files = {p.name: p.read_text() for p in (tmp_path / "data").rglob("*.json")}
    assert f"{out['correlation_id']}.json" in files and f"{out['workflow_id']}.json" in files
    for name, text in files.items():
        for secret in ("typed-S3CRET-A", "param-S3CRET-X"):
            assert secret not in text, f"{secret} in {name}"
    doc = json.loads(files[f"{out['workflow_id']}.json"])
    steps = doc["workflow"]["steps"]
    assert doc["params"] == {"user": "alice"}
    assert doc["required_params"] == ["password", "secret_4", "secret_5", "secret_6", "x"]
    assert [s.get("key") for s in steps[4:8]] == [
        "{{params.secret_4}}", "{{params.secret_5}}", "{{params.secret_6}}", "Enter",
    ]  # fmt: skip
    assert steps[8]["script"] == "'{{params.password}}'.length"
    with pytest.raises(TabPilotError) as err:
        jobs.start({"operation": "replay", "workflow_id": out["workflow_id"]})
    assert err.value.code == ErrorCode.INVALID_PARAMS
    browser.sent.clear()
    given = {"x": "p2", "password": "t2", "secret_4": "a", "secret_5": "b", "secret_6": "c"}
    again = await finish(jobs, {"operation": "replay", "workflow_id": out["workflow_id"], "params": given})
    assert again["status"] == "complete", again
    typed = [(type(c).__name__, getattr(c, "value", None) or getattr(c, "text", None) or c.key)
             for c in browser.sent if isinstance(c, m.Fill | m.TypeText | m.Press)]  # fmt: skip
    assert typed == [
        ("Fill", "alice"), ("Fill", "p2"), ("TypeText", "t2"),
        ("Press", "a"), ("Press", "b"), ("Press", "c"), ("Press", "Enter"),
    ]  # fmt: skip


async def test_one_workflow_per_tab(tmp_path: Path) -> None:
    gate = asyncio.Event()

    async def slow_wait(c: m.WaitFor) -> Any:
        await gate.wait()
        return {"matched": True}

    jobs, _ = jobs_with(tmp_path, wait_for=slow_wait)
    first = jobs.start(request(record=False))
    with pytest.raises(TabPilotError) as err:
        jobs.start(request(record=False))
    assert err.value.code == ErrorCode.WORKFLOW_IN_PROGRESS
    assert err.value.data["correlation_id"] == first.correlation_id and err.value.data["active_workflow_id"]
    other_tab = jobs.start(request(record=False, tab_id=9))
    gate.set()
    assert (await jobs.wait(first, 5_000))["status"] == "complete"
    assert (await jobs.wait(other_tab, 5_000))["status"] == "complete"
    assert (await finish(jobs, request(record=False)))["status"] == "complete", "the tab is free again"


async def test_async_queued_then_command_result_and_cancel(tmp_path: Path) -> None:
    gate = asyncio.Event()
    reached = asyncio.Event()

    async def slow_wait(c: m.WaitFor) -> Any:
        reached.set()
        await gate.wait()
        return {"matched": True}

    jobs, _ = jobs_with(tmp_path, wait_for=slow_wait)
    job = jobs.start(request(record=False))
    early = await jobs.wait(job, 0)
    assert early["status"] in ("queued", "running") and early["correlation_id"] == job.correlation_id
    await reached.wait()
    running = await jobs.result(job.correlation_id)
    assert running["status"] == "running" and running["steps_completed"] == 1 and running["steps_total"] == 3
    gate.set()
    done = await jobs.result(job.correlation_id, wait_ms=5_000)
    assert done["status"] == "complete" and len(done["data"]) == 2
    # Cancellation returns the partial data.
    gate.clear()
    reached.clear()
    job = jobs.start(
        request(
            record=False,
            steps=[
                {"type": "extract", "selector": "tr", "schema": SCHEMA},
                {"type": "wait", "selector": "x"},
            ],
        )
    )
    await reached.wait()
    cancelled = await jobs.cancel(job.correlation_id)
    assert (
        cancelled["status"] == "cancelled"
        and cancelled["error"] == ErrorCode.CANCELLED
        and len(cancelled["data"]) == 2
    )
    with pytest.raises(TabPilotError) as err:
        await jobs.result("corr-000000000000")
    assert err.value.code == ErrorCode.WORKFLOW_NOT_FOUND


async def test_results_and_workflows_survive_a_restart(tmp_path: Path) -> None:
    jobs, _ = jobs_with(tmp_path)
    out = await finish(jobs, request())
    await jobs.shutdown()  # what the host does when the extension's port closes
    restarted, browser = jobs_with(tmp_path)
    assert (await restarted.result(out["correlation_id"]))["data"] == out["data"]
    again = await finish(restarted, {"operation": "replay", "workflow_id": out["workflow_id"]})
    assert again["status"] == "complete" and browser.tags()[0] == "navigate"


def _doc(name: str) -> WorkflowDoc:
    steps = [{"type": "navigate", "url": f"https://{name}.example/"}]
    return WorkflowDoc(
        format=FORMAT,
        id=f"wf-{name}-20260101",
        name=name,
        workflow={"steps": steps},
        domains=[f"{name}.example"],
    )


def test_store_files_are_private_and_lru_evicts(tmp_path: Path) -> None:
    store = WorkflowStore(tmp_path, cap=3, results_kept=2)
    for name in ("a", "b", "c"):
        store.save(_doc(name))
    store.get("wf-a-20260101")  # a is now the most recently used
    store.save(_doc("d"))
    assert sorted(d.name for d in store.all()) == ["a", "c", "d"]
    for path in (tmp_path / "workflows").iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "workflows").stat().st_mode) == 0o700
    for i in range(4):
        store.save_result(f"corr-00000{i}", {"i": i})
    assert store.get_result("corr-000000") is None and store.get_result("corr-000003") == {"i": 3}
    assert not list((tmp_path / "workflows").glob(".*")), "no temp files left behind"


def test_export_import_validates(tmp_path: Path) -> None:
    store = WorkflowStore(tmp_path)
    text = encode_doc(_doc("a"))
    assert decode_doc(text) == _doc("a")
    for bad in (
        b"{}",
        b"not json",
        text.replace(FORMAT.encode(), b"other/9"),
        text.replace(b"wf-a-", b"../a-"),
    ):
        with pytest.raises(TabPilotError) as err:
            decode_doc(bad)
        assert err.value.code == ErrorCode.INVALID_PARAMS
    store.delete("wf-a-20260101") if store.all() else None
    with pytest.raises(TabPilotError) as err:
        store.delete("wf-a-20260101")
    assert err.value.code == ErrorCode.WORKFLOW_NOT_FOUND


def test_an_imported_workflow_is_checked_like_a_request() -> None:
    from tabpilot.engine.workflows import validate

    good = _doc("a")
    validate(good)
    for workflow in (
        {"steps": [{"type": "teleport"}]},
        {"steps": [{"type": "extract", "selector": "tr", "schema": {"x": "td | bogus"}}]},
        {"steps": [{"type": "navigate", "url": "{{params.missing}}"}]},
        {"steps": [{"type": "navigate", "url": "https://a.example/"}], "run_as_root": True},
        {"steps": []},
    ):
        bad = WorkflowDoc(format=FORMAT, id="wf-a-20260101", name="a", workflow=workflow)
        with pytest.raises(TabPilotError) as err:
            validate(bad)
        assert err.value.code == ErrorCode.INVALID_PARAMS, workflow


async def test_a_tab_is_busy_once_a_current_tab_scrape_is_pinned_to_it(tmp_path: Path) -> None:
    gate = asyncio.Event()
    reached = asyncio.Event()

    async def slow_wait(c: m.WaitFor) -> Any:
        reached.set()
        await gate.wait()
        return {"matched": True}

    jobs, _ = jobs_with(tmp_path, wait_for=slow_wait)  # navigate answers tab_id 1
    first = jobs.start(request(record=False))
    await reached.wait()
    with pytest.raises(TabPilotError) as err:
        jobs.start(request(record=False, tab_id=1))
    assert (
        err.value.code == ErrorCode.WORKFLOW_IN_PROGRESS
        and err.value.data["correlation_id"] == first.correlation_id
    )
    gate.set()
    await jobs.wait(first, 5_000)


async def test_results_finishing_together_are_all_kept_within_the_cap(tmp_path: Path) -> None:
    store = WorkflowStore(tmp_path, results_kept=3)
    await asyncio.gather(
        *(asyncio.to_thread(store.save_result, f"corr-{i:012x}", {"i": i}) for i in range(12))
    )
    assert len(list((tmp_path / "results").glob("corr-*.json"))) == 3
