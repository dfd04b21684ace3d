"""What `tabpilot demo` shows a person at the end: the summary first, a few rows, then what to do next."""

from __future__ import annotations

from typing import Any

from tabpilot.demo import report, summary_line


def _outcome(rows: int) -> dict[str, Any]:
    run = {"status": "complete", "pages_scraped": 6, "rows_extracted": rows, "engine_ms": 80, "call_ms": 95.0}
    return {
        "workflow_id": "wf-acme_issues-20261123",
        "recorded": {**run, "call_ms": 120.0},
        "replayed": run,
        "rows": [{"key": f"ACME-{100 + n}", "points": n} for n in range(rows)],
    }


def test_the_summary_comes_first_and_the_rows_do_not_bury_it() -> None:
    text = report(_outcome(31), "tabpilot")
    lines = text.splitlines()
    assert lines[0] == summary_line(_outcome(31))
    assert "31 rows" in lines[0] and "replayed in 95.0 ms" in lines[0]
    assert sum(line.startswith("  ACME-") for line in lines) == 5
    assert "… 26 more rows (`tabpilot demo --json` prints them all)" in text
    assert len(lines) < 25, "fits one screen"


def test_it_ends_with_what_to_do_next() -> None:
    text = report(_outcome(3), ".venv/bin/tabpilot")
    assert "more rows" not in text
    next_steps = text[text.index("Next") :]
    for step in ("install", "extension path", "--mcp-client", "AI Web Pilot", "status", "doctor"):
        assert step in next_steps
    assert ".venv/bin/tabpilot install" in next_steps
