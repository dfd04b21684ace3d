"""The scrape engine inside the real native host process, driven over its socket as the bridge does,
with a scripted fake extension answering the page commands."""

from __future__ import annotations

import asyncio
import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from tabpilot.link.client import BrowserPool
from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode, TabPilotError
from tests.support.fake_extension import FakeExtension, NoAnswer

pytestmark = pytest.mark.anyio

SCHEMA = {"name": "td.name", "price": "td.price | number"}
PAGES = [[["Widget", "$1,200.50"], ["Gadget", "$3"]], [["Doohickey", "(4)"]]]


def table(ext: FakeExtension, *, hang_paginate: bool = False) -> dict[str, int]:
    """Answer extract/paginate like a two-page table."""
    at = {"page": 0}

    def extract(msg: dict[str, Any]) -> Any:
        rows = [r[: len(msg["fields"])] for r in PAGES[at["page"]]]
        return {
            "rows": rows,
            "count": len(rows),
            "warnings": [],
            "url": f"https://shop.example/p{at['page']}",
        }

    def paginate(msg: dict[str, Any]) -> Any:
        if hang_paginate:
            return NoAnswer()
        if at["page"] + 1 >= len(PAGES):
            return {"outcome": "end", "reason": "missing", "url": "https://shop.example/p1"}
        at["page"] += 1
        return {"outcome": "navigated", "reason": None, "url": f"https://shop.example/p{at['page']}"}

    ext.handlers["extract"] = extract
    ext.handlers["paginate"] = paginate
    ext.handlers["navigate"] = lambda msg: {"tab_id": 5, "url": msg["url"], "title": "Shop"}
    ext.handlers["wait_for"] = lambda msg: {"matched": True, "elapsed_ms": 1}
    return at


async def _started(env: dict[str, str]) -> FakeExtension:
    ext = FakeExtension(env)
    await ext.start()
    return ext


WORKFLOW = {
    "operation": "workflow",
    "name": "prices",
    "record": True,
    "options": {"delay_ms": 0},
    "steps": [
        {"type": "navigate", "url": "https://shop.example/p0"},
        {
            "type": "extract",
            "selector": "tr",
            "schema": SCHEMA,
            "paginate": {"next_selector": "a.next", "delay_ms": 0},
        },
    ],
}


async def test_scrape_in_the_host_with_progress_record_and_replay_after_restart(
    tp_dirs: dict[str, str],
) -> None:
    ext = await _started(tp_dirs)
    table(ext)
    pool = BrowserPool(connect_wait_s=5)
    reports: list[m.Progress] = []

    async def on_progress(p: m.Progress) -> None:
        reports.append(p)

    try:
        out = await pool.call(m.Scrape(id=0, request=WORKFLOW, progress=True), on_progress=on_progress)
        assert out["status"] == "complete" and out["data"] == [
            {"name": "Widget", "price": 1200.5},
            {"name": "Gadget", "price": 3},
            {"name": "Doohickey", "price": -4},
        ]
        assert out["metadata"]["pages_scraped"] == 2 and out["metadata"]["recorded"] is True
        assert reports and all(b.progress > a.progress for a, b in itertools.pairwise(reports))
        # Throttled to ten a second, yet the last count is told before the answer, not dropped.
        assert reports[-1].total == 2 and reports[-1].progress == 2
        news = [r["data"] for r in ext.received if r["type"] == "event" and r["name"] == "workflow"]
        assert news[0]["status"] in ("queued", "running") and news[-1]["status"] == "complete"
        assert news[-1]["rows"] == 3 and news[-1]["label"] == out["workflow_id"]
        sent = [r for r in ext.received if r["type"] == "extract"]
        assert sent[0]["tab_id"] == 5, "commands after navigate stay in its tab"
        listed = await pool.call(m.WorkflowOp(id=0, op="list"))
        assert [w["workflow_id"] for w in listed["workflows"]] == [out["workflow_id"]]
    finally:
        await pool.aclose()
        await ext.stop()
    # A new host (the browser restarted) still has the workflow and the result.
    ext = await _started(tp_dirs)
    table(ext)
    pool = BrowserPool(connect_wait_s=5)
    try:
        kept = await pool.call(m.JobResult(id=0, correlation_id=out["correlation_id"]))
        assert kept["data"] == out["data"]
        again = await pool.call(
            m.Scrape(id=0, request={"operation": "replay", "workflow_id": out["workflow_id"]})
        )
        assert again["status"] == "complete" and again["metadata"]["replayed_from"] == out["workflow_id"]
    finally:
        await pool.aclose()
        await ext.stop()


async def test_extension_gone_mid_scrape_answers_with_partial_data(tp_dirs: dict[str, str]) -> None:
    ext = await _started(tp_dirs)
    table(ext, hang_paginate=True)
    pool = BrowserPool(connect_wait_s=5)
    try:
        request = {**WORKFLOW, "record": False}
        running = await pool.call(m.Scrape(id=0, request=request, wait_ms=0))
        assert running["status"] in ("queued", "running")
        while not any(r["type"] == "paginate" for r in ext.received):
            await asyncio.sleep(0.01)
        waiting = asyncio.ensure_future(
            pool.call(m.JobResult(id=0, correlation_id=running["correlation_id"], wait_ms=30_000))
        )
        await asyncio.sleep(0)  # let the request leave before the host goes
        await ext.stop()
        try:
            out = await waiting
        except TabPilotError as exc:  # the answer raced the host's exit; the kept result tells
            assert exc.code == ErrorCode.EXTENSION_DISCONNECTED
            out = None
        if out is not None:
            assert out["status"] == "error" and out["error"] == ErrorCode.EXTENSION_DISCONNECTED
            assert len(out["data"]) == 2
    finally:
        await pool.aclose()
    results = Path(tp_dirs["TABPILOT_DATA_DIR"]) / "results" / f"{running['correlation_id']}.json"
    kept = json.loads(results.read_text())
    assert kept["error"] == ErrorCode.EXTENSION_DISCONNECTED and len(kept["data"]) == 2


async def test_engine_errors_over_the_socket(tp_dirs: dict[str, str]) -> None:
    ext = await _started(tp_dirs)
    gate = asyncio.Event()

    async def slow(msg: dict[str, Any]) -> Any:
        await gate.wait()
        return {"matched": True}

    ext.handlers["wait_for"] = slow
    pool = BrowserPool(connect_wait_s=5)
    try:
        cases: list[tuple[m.Command, ErrorCode]] = [
            (m.Scrape(id=0, request={"operation": "extract"}), ErrorCode.INVALID_PARAMS),
            (m.Scrape(id=0, request={"operation": "fly"}), ErrorCode.INVALID_PARAMS),
            (
                m.Scrape(id=0, request={"operation": "replay", "workflow_id": "wf-x-20260101"}),
                ErrorCode.WORKFLOW_NOT_FOUND,
            ),
            (m.JobResult(id=0, correlation_id="corr-abcdefabcdef"), ErrorCode.WORKFLOW_NOT_FOUND),
            (m.WorkflowOp(id=0, op="import", document="{}"), ErrorCode.INVALID_PARAMS),
            (m.WorkflowOp(id=0, op="delete", workflow_id="wf-x-20260101"), ErrorCode.WORKFLOW_NOT_FOUND),
        ]
        for command, code in cases:
            with pytest.raises(TabPilotError) as err:
                await pool.call(command)
            assert err.value.code == code, command
        wait = {"operation": "workflow", "steps": [{"type": "wait", "selector": ".x"}]}
        first = await pool.call(m.Scrape(id=0, request=wait, wait_ms=0))
        with pytest.raises(TabPilotError) as err:
            await pool.call(m.Scrape(id=0, request=wait, wait_ms=0))
        assert err.value.code == ErrorCode.WORKFLOW_IN_PROGRESS
        assert err.value.data["correlation_id"] == first["correlation_id"]
        cancelled = await pool.call(m.CancelJob(id=0, correlation_id=first["correlation_id"]))
        assert cancelled["status"] == "cancelled"
        assert any(r["type"] == "cancel" for r in ext.received), "the command in flight is cancelled too"
    finally:
        gate.set()
        await pool.aclose()
        await ext.stop()


async def test_scrape_is_refused_while_the_pilot_is_off(tp_dirs: dict[str, str]) -> None:
    ext = FakeExtension(tp_dirs)
    ext.pilot = False
    await ext.start()
    pool = BrowserPool(connect_wait_s=5)
    try:
        with pytest.raises(TabPilotError) as err:
            await pool.call(m.Scrape(id=0, request=WORKFLOW))
        assert err.value.code == ErrorCode.AI_WEB_PILOT_DISABLED
        assert not any(r["type"] == "navigate" for r in ext.received)
    finally:
        await pool.aclose()
        await ext.stop()


async def _switch(ext: FakeExtension, pool: BrowserPool, enabled: bool) -> None:
    """The popup's toggle: the extension's state and its event, seen by the host."""
    ext.pilot = enabled
    ext.send({"type": "event", "name": "pilot", "data": {"enabled": enabled}})
    async with asyncio.timeout(10):
        while (await pool.call(m.HostInfo(id=0))).get("pilot", False) is not enabled:
            await asyncio.sleep(0.01)


async def test_stored_data_is_refused_while_the_pilot_is_off(tp_dirs: dict[str, str]) -> None:
    ext = FakeExtension(tp_dirs)
    await ext.start()
    table(ext)
    pool = BrowserPool(connect_wait_s=5)
    try:
        done = await pool.call(m.Scrape(id=0, request=WORKFLOW))
        assert done["status"] == "complete", done
        cid, wf = done["correlation_id"], done["workflow_id"]
        stored: list[m.Command] = [
            m.JobResult(id=0, correlation_id=cid),
            m.CancelJob(id=0, correlation_id=cid),
            m.WorkflowOp(id=0, op="list"),
            m.WorkflowOp(id=0, op="get", workflow_id=wf),
            m.WorkflowOp(id=0, op="delete", workflow_id=wf),
            m.WorkflowOp(id=0, op="import", document="{}"),
            m.ExtractionOp(id=0, op="strategies"),
            m.ExtractionOp(id=0, op="aggregate", extraction_id="ex-0"),
            m.ExtractionOp(id=0, op="clear_aggregate"),
        ]
        await _switch(ext, pool, False)
        for command in stored:
            with pytest.raises(TabPilotError) as err:
                await pool.call(command)
            assert err.value.code == ErrorCode.AI_WEB_PILOT_DISABLED, command
        await _switch(ext, pool, True)
        assert (await pool.call(m.JobResult(id=0, correlation_id=cid)))["status"] == "complete"
        [listed] = (await pool.call(m.WorkflowOp(id=0, op="list")))["workflows"]
        assert listed["workflow_id"] == wf, "the refused delete deleted nothing"
    finally:
        await pool.aclose()
        await ext.stop()


async def test_a_scrape_sent_before_the_pilot_event_arrives_asks_the_extension(
    tp_dirs: dict[str, str],
) -> None:
    ext = FakeExtension(tp_dirs)
    ext.pilot = False  # the hello says off
    await ext.start()
    table(ext)
    pool = BrowserPool(connect_wait_s=5)
    try:
        await pool.call(m.HostInfo(id=0))  # connected, the host holds "off"
        ext.pilot = True  # switched on in the popup; the host has not heard of it yet
        value = await pool.call(m.Scrape(id=0, request={**WORKFLOW, "record": False}))
        assert value["status"] == "complete", value
        assert any(r["type"] == "status" for r in ext.received), "the host asked the extension"
    finally:
        await pool.aclose()
        await ext.stop()


async def test_a_scrape_answer_is_scrubbed_once_made_also_read_again_and_resumed(
    tp_dirs: dict[str, str],
) -> None:
    """Where values leave the host, a scrape's URLs and titles are scrubbed: in its answer, in the same
    answer read again, and in a resume of the finished run (each made scrubbed, not scrubbed on the way)."""
    ext = await _started(tp_dirs)
    token = "t0k3n-Zx9Yw8Vu7Ts6"
    ext.handlers["extract"] = lambda msg: {
        "rows": [["Widget", f"https://shop.example/w?token={token}"]],
        "count": 1,
        "warnings": [],
        "url": f"https://shop.example/p0?api_key={token}",
    }
    request = {
        "operation": "extract",
        "selector": "tr",
        "schema": {"name": "td.name", "url": "a | url"},
        "options": {"telemetry": True},
    }
    pool = BrowserPool(connect_wait_s=5)
    try:
        out = await pool.call(m.Scrape(id=0, request=request))
        again = await pool.call(m.JobResult(id=0, correlation_id=out["correlation_id"]))
        resumed = await pool.call(m.Scrape(id=0, request={**request, "resume": out["correlation_id"]}))
        for answer in (out, again, resumed):
            assert answer["status"] == "complete", answer
            assert token not in json.dumps(answer), answer
            assert answer["data"] == [{"name": "Widget", "url": "https://shop.example/w?token=[REDACTED]"}]
    finally:
        await pool.aclose()
        await ext.stop()
