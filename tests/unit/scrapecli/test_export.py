"""`tabpilot results export` and `tabpilot scrape -o`: every row of a run, read from its journal in the
data folder (a result handed over by reference included), as CSV, JSON Lines or JSON."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tabpilot import cli, paths
from tabpilot.engine.jobs import Jobs
from tabpilot.engine.store import WorkflowStore
from tabpilot.scrapecli import output
from tests.support.fake_browser import ScriptedBrowser, TableSite

pytestmark = pytest.mark.anyio

PAGES = [[[f'row {p}-{i}, "quoted"', str(i)] for i in range(40)] for p in range(5)]
EXPECTED = [{"name": r[0], "n": int(r[1])} for p in PAGES for r in p]


async def big_run(max_bytes: int) -> dict[str, Any]:
    jobs = Jobs(TableSite(PAGES).install(ScriptedBrowser()), WorkflowStore(paths.data_dir()), grace_s=0.05)
    request = {
        "operation": "extract",
        "selector": "tr",
        "schema": {"name": "td.name", "n": "td.n | number"},
        "options": {"paginate": {"next_selector": "a.next"}, "max_bytes": max_bytes},
    }
    return await jobs.wait(jobs.start(request), 5_000)


async def test_export_writes_every_row_of_a_run(tp_dirs: dict[str, str]) -> None:
    done = await big_run(2_000)
    assert "result" in done and len(done["data"]) < len(EXPECTED)
    runner = CliRunner()
    as_csv = runner.invoke(cli.main, ["results", "export", done["correlation_id"], "--format", "csv"])
    assert as_csv.exit_code == 0, as_csv.output
    read = list(csv.DictReader(io.StringIO(as_csv.stdout)))
    assert [{"name": r["name"], "n": int(r["n"])} for r in read] == EXPECTED
    as_jsonl = runner.invoke(cli.main, ["results", "export", done["correlation_id"], "--format", "jsonl"])
    assert [json.loads(line) for line in as_jsonl.stdout.splitlines()] == EXPECTED
    missing = runner.invoke(cli.main, ["results", "export", "corr-0123456789ab"])
    assert missing.exit_code == 1
    assert missing.output.startswith("Error: [workflow_not_found] no rows kept"), missing.output


@pytest.mark.parametrize("fmt", output.FORMATS)
async def test_a_result_by_reference_is_written_whole(
    tp_dirs: dict[str, str], tmp_path: Path, fmt: str
) -> None:
    done = await big_run(2_000)
    target = tmp_path / f"rows.{fmt}"
    output.write_result(done, fmt, target)
    text = target.read_text()
    if fmt == "json":
        assert json.loads(text) == EXPECTED
    elif fmt == "jsonl":
        assert [json.loads(line) for line in text.splitlines()] == EXPECTED
    else:
        assert len(list(csv.DictReader(io.StringIO(text)))) == len(EXPECTED)
    small = await big_run(1_000_000)
    assert "result" not in small
    output.write_result(small, "jsonl", target)
    assert [json.loads(line) for line in target.read_text().splitlines()] == EXPECTED
