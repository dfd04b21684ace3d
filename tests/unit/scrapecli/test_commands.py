"""`tabpilot scrape | replay | workflows` as a person or cron runs them: a real CLI process talking to the
real host, whose extension is the scripted fake."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from tabpilot.scrapecli.output import format_for, render
from tests.support.fake_extension import FakeExtension, NoAnswer
from tests.unit.native.test_host_scrape import SCHEMA, WORKFLOW, table

pytestmark = pytest.mark.anyio


async def cli(*args: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tabpilot.cli", *args,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    async with asyncio.timeout(60):
        out, err = await proc.communicate(stdin)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_scrape_file_to_csv_then_replay_and_manage_workflows(
    tp_dirs: dict[str, str], tmp_path: Path
) -> None:
    ext = FakeExtension(tp_dirs)
    await ext.start()
    table(ext)
    try:
        request = tmp_path / "req.json"
        request.write_text(json.dumps({"action": "scrape", **WORKFLOW}))
        out = tmp_path / "rows.csv"
        code, _, err = await cli("scrape", str(request), "--out", str(out))
        assert code == 0, err
        assert list(csv.reader(io.StringIO(out.read_text()))) == [
            ["name", "price"],
            ["Widget", "1200.5"],
            ["Gadget", "3"],
            ["Doohickey", "-4"],
        ]
        assert "3 rows, 2 pages" in err
        # Listing and exporting read the local store: the person's own files, pilot on or off.
        ext.pilot = False
        ext.send({"type": "event", "name": "pilot", "data": {"enabled": False}})
        code, listed, err = await cli("workflows", "list", "--json")
        [wf] = json.loads(listed)
        assert code == 0 and wf["workflow_id"].startswith("wf-prices-")
        exported = tmp_path / "wf.json"
        assert (await cli("workflows", "export", wf["workflow_id"], str(exported)))[0] == 0
        assert json.loads(exported.read_text())["id"] == wf["workflow_id"]
        ext.pilot = True
        ext.send({"type": "event", "name": "pilot", "data": {"enabled": True}})
        assert (await cli("workflows", "delete", wf["workflow_id"]))[0] == 0
        code, _, err = await cli("replay", wf["workflow_id"])
        assert code == 1 and "workflow_not_found" in err
        code, imported, _ = await cli("workflows", "import", str(exported))
        assert code == 0 and imported.strip() == wf["workflow_id"]
        code, lines, err = await cli(
            "replay",
            wf["workflow_id"],
            "--format",
            "jsonl",
            "--override",
            'steps[0].url="https://shop.example/p0?again"',
        )
        assert code == 0, err
        assert [json.loads(line)["name"] for line in lines.splitlines()] == ["Doohickey"], (
            "the table stays on its last page"
        )
        navs = [r["url"] for r in ext.received if r["type"] == "navigate"]
        assert navs[-1] == "https://shop.example/p0?again"
    finally:
        await ext.stop()


async def test_failed_scrape_exits_1_and_still_writes_the_partial_rows(
    tp_dirs: dict[str, str], tmp_path: Path
) -> None:
    ext = FakeExtension(tp_dirs)
    await ext.start()
    table(ext)
    ext.handlers["navigate"] = lambda msg: {
        "tab_id": 1,
        "url": "https://login.example/sso",
        "title": "Sign in",
    }
    try:
        request = {
            "operation": "workflow",
            "options": {"delay_ms": 0},
            "steps": [
                {"type": "extract", "selector": "tr", "schema": SCHEMA},
                {"type": "navigate", "url": "https://shop.example/private"},
            ],
        }
        code, out, err = await cli("scrape", "-", "--quiet", stdin=json.dumps(request).encode())
        assert code == 1 and "navigation_redirect" in err and "https://login.example/sso" in err
        assert [r["name"] for r in json.loads(out)] == ["Widget", "Gadget"]
        code, _, err = await cli("scrape", "-", stdin=b"[1, 2]")
        assert code == 2 and "JSON object" in err
        code, _, err = await cli("scrape", "-", stdin=json.dumps({"operation": "extract"}).encode())
        assert code == 1 and "invalid_params" in err
    finally:
        await ext.stop()


async def test_a_partial_scrape_exits_0_and_says_why_and_how_to_read_on(tp_dirs: dict[str, str]) -> None:
    ext = FakeExtension(tp_dirs)
    await ext.start()
    table(ext)
    try:
        paginate = {"next_selector": "a.next", "max_pages": 1, "delay_ms": 0}
        request = {
            "operation": "extract",
            "selector": "tr",
            "schema": SCHEMA,
            "options": {"paginate": paginate},
        }
        code, out, err = await cli("scrape", "-", stdin=json.dumps(request).encode())
        assert code == 0, err
        assert [r["name"] for r in json.loads(out)] == ["Widget", "Gadget"]
        assert "partial" in err and "max_pages" in err and "options.paginate.max_pages=2" in err
    finally:
        await ext.stop()


def test_output_formats() -> None:
    rows: list[Any] = [{"a": "x,y", "b": None}, {"b": True, "c": ["1", "2"], "a": 1.5}]
    assert render(rows, "csv") == 'a,b,c\n"x,y",,\n1.5,true,"[""1"",""2""]"\n'
    assert render(rows, "jsonl").splitlines()[1] == '{"b":true,"c":["1","2"],"a":1.5}'
    assert json.loads(render(rows, "json")) == rows
    assert format_for(Path("x.CSV"), None) == "csv" and format_for(None, None) == "json"
    assert format_for(Path("x.txt"), "jsonl") == "jsonl"


async def _ctrl_c_once(
    ext: FakeExtension, request: dict[str, Any], tmp_path: Path, at: str, then: asyncio.Event | None = None
) -> tuple[int, str, str]:
    """`tabpilot scrape` of `request`, sent Ctrl-C (SIGINT) once the page got its first `at` command (and
    `then` set right after): its exit status, stdout and stderr."""
    import signal

    file = tmp_path / "req.json"
    file.write_text(json.dumps(request))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tabpilot.cli", "scrape", str(file), "--quiet",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    async with asyncio.timeout(30):
        while not any(r["type"] == at for r in ext.received):
            await asyncio.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        if then is not None:
            then.set()
        out, err = await proc.communicate()
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode().strip()


async def test_ctrl_c_cancels_the_scrape_and_keeps_the_rows(tp_dirs: dict[str, str], tmp_path: Path) -> None:
    ext = FakeExtension(tp_dirs)
    await ext.start()
    table(ext)
    ext.handlers["wait_for"] = lambda msg: NoAnswer()  # a page that never shows what we wait for
    try:
        request = {
            "operation": "workflow",
            "options": {"delay_ms": 0},
            "steps": [
                {"type": "extract", "selector": "tr", "schema": SCHEMA},
                {"type": "wait", "selector": ".never", "timeout_ms": 60_000},
            ],
        }
        returncode, out, said = await _ctrl_c_once(ext, request, tmp_path, "wait_for")
        # The exit status of a command ended by Ctrl-C, one plain line saying the rows were kept.
        assert returncode == 130, said
        assert said.startswith("interrupted: the rows read so far are kept") and "cancelled" not in said
        assert re.search(r"add \"resume\": \"corr-[0-9a-f]+\" to the request", said), said
        assert [r["name"] for r in json.loads(out)] == ["Widget", "Gadget"]
        assert any(r["type"] == "cancel" for r in ext.received), "the waiting page command is cancelled too"
    finally:
        await ext.stop()


async def test_ctrl_c_before_the_scrape_has_an_id_cancels_it_too(
    tp_dirs: dict[str, str], tmp_path: Path
) -> None:
    """Ctrl-C while the command still waits for the scrape's id (the host asking the extension whether
    the pilot is on) stops the run once it has one, as a later Ctrl-C does: not the command alone,
    leaving the run going in the browser."""
    ext = FakeExtension(tp_dirs)
    ext.pilot = False  # the hello says off: the host asks again when the scrape comes
    go = asyncio.Event()

    async def status(_: dict[str, Any]) -> dict[str, Any]:
        await go.wait()
        return {"pilot": True, "instance_id": ext.instance_id}

    await ext.start()
    ext.handlers["status"] = status
    ext.handlers["extract"] = lambda msg: NoAnswer()
    try:
        request = {"operation": "extract", "selector": "tr", "schema": SCHEMA}
        # Once Ctrl-C is sent, the pilot is on: the scrape starts, its page command never answers.
        returncode, out, said = await _ctrl_c_once(ext, request, tmp_path, "status", then=go)
        assert returncode == 130, said
        assert said.startswith("interrupted: the rows read so far are kept"), said
        assert json.loads(out) == []
        async with asyncio.timeout(10):
            while not any(r["type"] == "cancel" for r in ext.received):
                await asyncio.sleep(0.02)
    finally:
        await ext.stop()
