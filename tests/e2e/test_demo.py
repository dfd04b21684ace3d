"""The README's first command: `tabpilot demo` reads the bundled site through the real MCP path."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.support import procnet


def test_demo_reads_the_bundled_site(env: dict[str, str]) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "tabpilot.cli", "demo"],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    outcome = json.loads(out.stdout)
    assert outcome["page"]["title"] == "Acme Ops — Sprint board"
    assert [r["key"] for r in outcome["rows"]] == [f"ACME-{n}" for n in range(101, 106)]
    assert outcome["rows"][3] == {
        "key": "ACME-104",
        "summary": "Rate-limit the public API",
        "status": "Done",
        "assignee": "Dan",
        "points": 8,
    }
    # The demo stops its browser: no dedicated-profile browser or host is left behind.
    assert not procnet.pids_with_cmdline(env["TABPILOT_DATA_DIR"], "--user-data-dir")
