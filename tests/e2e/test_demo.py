"""The README's first command: `tabpilot demo` records and replays a scrape of the bundled site (sign
in, linked pages, an in-place Next) through the real MCP path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tabpilot.demo.server import DEMO_PASSWORD
from tests.support import procnet


def test_demo_records_and_replays_a_scrape_behind_a_login(env: dict[str, str]) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "tabpilot.cli", "demo", "--json"],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    )
    outcome = json.loads(out.stdout)
    keys = [r["key"] for r in outcome["rows"]]
    # Three linked backlog pages behind the login, then three in-place pages of the sprint board.
    assert keys == [f"ACME-{n}" for n in range(101, 125)] + [f"ACME-{n}" for n in range(201, 208)]
    assert outcome["rows"][3] == {
        "key": "ACME-104",
        "summary": "Rate-limit the public API",
        "status": "In Progress",
        "assignee": "Dan",
        "points": 5,
    }
    for run in ("recorded", "replayed"):
        assert outcome[run]["status"] == "complete"
        assert outcome[run]["pages_scraped"] == 6 and outcome[run]["rows_extracted"] == 31
        assert outcome[run]["steps_completed"] == 8
    assert outcome["workflow_id"].startswith("wf-acme_issues-")
    stored = list(Path(env["TABPILOT_DATA_DIR"]).rglob(f"{outcome['workflow_id']}*"))
    assert stored, "the recorded workflow is on disk"
    # The password was typed into the page, never written down or shown.
    assert DEMO_PASSWORD not in out.stdout + out.stderr
    for base in (env["TABPILOT_DATA_DIR"], env["TABPILOT_STATE_DIR"]):
        for path in Path(base).rglob("*"):
            if path.is_file() and not path.is_socket():
                assert DEMO_PASSWORD.encode() not in path.read_bytes(), f"the password reached {path}"
    # The demo stops its browser: no dedicated-profile browser or host is left behind.
    assert not procnet.pids_with_cmdline(env["TABPILOT_DATA_DIR"], "--user-data-dir")
