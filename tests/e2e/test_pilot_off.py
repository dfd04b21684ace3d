"""Pilot off means off: with the toggle off in the popup, every action but `configure status` is
refused with ai_web_pilot_disabled, what the host keeps on disk (results, workflows, strategies,
aggregates) included, and nothing stored changes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from selenium import webdriver

from tabpilot.wire.errors import ErrorCode
from tests.support import browser
from tests.support.host import host_pool
from tests.support.mcp_client import call, call_error

pytestmark = pytest.mark.anyio


async def test_stored_data_is_refused_while_the_pilot_is_off(
    driver: webdriver.Chrome, client: Client, env: dict[str, str], site: str, tmp_path: Path
) -> None:
    url = f"{site}/scrape/cards.html"
    recorded = await call(
        client,
        "interact",
        action="scrape",
        operation="workflow",
        name="cards",
        record=True,
        steps=[
            {"type": "navigate", "url": url},
            {"type": "extract", "selector": "article.card", "schema": {"t": "a.title"}},
        ],
        options={"delay_ms": 0, "telemetry": True},  # with the run's id
    )
    assert recorded["status"] == "complete", recorded
    extracted = await call(
        client, "interact", action="scrape", operation="extract", selector="article.card",
        schema={"t": "a.title"}, key_fields=["t"], options={"telemetry": True},
    )  # fmt: skip
    await call(client, "configure", action="save_state", snapshot_name="before-off")
    workflow_id, cid = recorded["workflow_id"], recorded["correlation_id"]
    extraction_id = extracted["extraction_id"]
    # The host writes results, strategies and aggregates off the answer's path: all are on disk before
    # the listing (a late write would look like a change made while the pilot was off).
    data_dir = Path(env["TABPILOT_DATA_DIR"])
    written = [data_dir / "results" / f"{c}.json" for c in (cid, extracted["correlation_id"])]
    written += [data_dir / kind / f"{extraction_id}.json" for kind in ("strategies", "aggregates")]
    with anyio.fail_after(10):
        while not all(path.exists() for path in written):
            await anyio.sleep(0.02)
    stored = sorted(p.name for p in Path(env["TABPILOT_DATA_DIR"]).rglob("*.json"))
    assert f"{workflow_id}.json" in stored

    browser.set_pilot(driver, False)
    try:
        # The host hears of the switch by an event; its copy must say off before the calls below,
        # or they would test the host's trust in its copy rather than its refusal.
        async with host_pool(env) as pool:
            with anyio.fail_after(10):
                while any(b.pilot for b in await pool.browsers()):
                    await anyio.sleep(0.02)
        import_file = tmp_path / "exported-before.json"
        export_to = tmp_path / "exported-while-off.json"
        out = str(export_to)
        refused: list[tuple[str, dict[str, Any]]] = [
            ("observe", {"what": "command_result", "correlation_id": cid}),
            ("observe", {"what": "workflows"}),
            ("observe", {"what": "strategies"}),
            ("observe", {"what": "aggregate", "extraction_id": extraction_id}),
            ("configure", {"action": "export_workflow", "workflow_id": workflow_id, "path": out}),
            ("configure", {"action": "delete_workflow", "workflow_id": workflow_id}),
            ("configure", {"action": "clear_aggregate"}),
            ("configure", {"action": "list_states"}),
            ("configure", {"action": "delete_state", "snapshot_name": "before-off"}),
            ("interact", {"action": "cancel", "correlation_id": cid}),
            ("interact", {"action": "scrape", "operation": "replay", "workflow_id": workflow_id}),
        ]
        for tool, args in refused:
            err = await call_error(client, tool, **args)
            assert err["error"] == ErrorCode.AI_WEB_PILOT_DISABLED, (tool, args, err)
        # An import reads the agent's file first; the host then refuses to store it.
        import_file.write_text('{"format": "tabpilot.workflow/1"}')
        err = await call_error(client, "configure", action="import_workflow", path=str(import_file))
        assert err["error"] == ErrorCode.AI_WEB_PILOT_DISABLED
        # Nor does it tell whether a file exists.
        err = await call_error(client, "configure", action="import_workflow", path=f"{tmp_path}/none.json")
        assert err["error"] == ErrorCode.AI_WEB_PILOT_DISABLED
        status = await call(client, "configure", action="status")
        assert status["pilot_enabled"] is False
        assert not export_to.exists(), "nothing was exported"
        after = sorted(p.name for p in Path(env["TABPILOT_DATA_DIR"]).rglob("*.json"))
        assert after == stored, "nothing stored changed"
    finally:
        browser.set_pilot(driver, True)
    # On again: the same stored data answers.
    again = await call(client, "observe", what="command_result", correlation_id=cid)
    assert again["status"] == "complete"
    listed = await call(client, "configure", action="list_states")
    assert "before-off" in [s["name"] for s in listed["snapshots"]]
    await call(client, "configure", action="delete_state", snapshot_name="before-off")
