"""`tabpilot scrape` and `tabpilot replay` as cron runs them: a dedicated headless profile started for
the run (and stopped after), rows written as CSV and JSON Lines, the workflow recorded then replayed."""

from __future__ import annotations

import csv
import datetime
import io
import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support import procnet


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tabpilot.cli", *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_scrape_then_replay_in_a_dedicated_profile(env: dict[str, str], site: str, tmp_path: Path) -> None:
    request = {
        "operation": "workflow",
        "name": "figures",
        "record": True,
        "options": {"delay_ms": 0},
        "steps": [
            {"type": "navigate", "url": f"{site}/scrape/numbers.html"},
            {"type": "wait", "selector": "table.figures"},
            {
                "type": "extract",
                "selector": "table.figures tr",
                "schema": {"label": "td.label", "v": "td.v | number"},
            },
        ],
    }
    file = tmp_path / "figures.json"
    file.write_text(json.dumps(request))
    out = tmp_path / "figures.csv"
    profile = ["--profile", "cron", "--headless", "--pilot"]
    first = _cli(env, "scrape", str(file), "--out", str(out), *profile)
    assert first.returncode == 0, first.stderr
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert {r["label"]: r["v"] for r in rows}["european"] == "1234.5"
    assert len(rows) == 15 and "15 rows" in first.stderr
    assert not procnet.pids_with_cmdline(env["TABPILOT_DATA_DIR"], "--user-data-dir"), (
        "the run stops its browser"
    )

    workflow_id = f"wf-figures-{datetime.date.today():%Y%m%d}"
    again = _cli(env, "replay", workflow_id, "--format", "jsonl", "--quiet", *profile)
    assert again.returncode == 0, again.stderr
    replayed = [json.loads(line) for line in again.stdout.splitlines()]
    assert [r["v"] for r in replayed] == [
        float(r["v"]) if "." in r["v"] else (int(r["v"]) if r["v"] else None) for r in rows
    ]

    moved = _cli(
        env,
        "replay",
        workflow_id,
        "--override",
        f'steps[0].url="{site.replace("127.0.0.1", "localhost")}/"',
        *profile,
    )
    assert moved.returncode == 1 and "domain_mismatch" in moved.stderr
    assert not procnet.pids_with_cmdline(env["TABPILOT_DATA_DIR"], "--user-data-dir")
