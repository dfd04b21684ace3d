"""Every benchmark scenario, once, at its smallest size (`python -m bench --smoke`), so that none rots:
each must run to its end against the real extension and leave well-formed results that the docs
generator can render. Playwright MCP's side runs when `bench/node_modules` has it; without it the
scenarios' own option leaves it out, as `--skip-playwright` does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from bench import docs, playwright_mcp
from bench.scenarios import SCENARIOS

ROOT = Path(__file__).resolve().parents[2]


def _numbers(value: object) -> list[float]:
    """Every number in a JSON value."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int | float):
        return [float(value)]
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)]  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, list):
        return [n for v in value for n in _numbers(v)]  # pyright: ignore[reportUnknownVariableType]
    return []


# One browser, the demo site, Roundup and (when installed) Playwright MCP's browsers on 2 shared cores.
@pytest.mark.timeout(420)
def test_every_scenario_runs_once_and_leaves_well_formed_results(tmp_path: Path) -> None:
    with_playwright = playwright_mcp.version() is not None
    cmd = [sys.executable, "-m", "bench", "--smoke", "--out", str(tmp_path)]
    proc = subprocess.run(
        cmd + ([] if with_playwright else ["--skip-playwright"]),
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if not k.startswith("TABPILOT_")},
        capture_output=True,
        text=True,
        timeout=400,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    [path] = tmp_path.glob("*-smoke.json")
    results = json.loads(path.read_text())

    machine = results["machine"]
    for key in ("cpu", "cores", "chromium", "commit", "load_avg_start", "load_avg_end", "date"):
        assert machine[key], key
    assert len(machine["load_avg_start"]) == 3 and "Chromium" in machine["chromium"]
    assert results["options"] == {"runs": 3, "smoke": True, "playwright": with_playwright}

    assert list(results["scenarios"]) == list(SCENARIOS)
    for name, entry in results["scenarios"].items():
        assert "error" not in entry, f"{name}: {entry.get('error')}"
        assert entry["seconds"] > 0 and len(entry["load_avg_end"]) == 3
        numbers = _numbers(entry["result"])
        assert numbers and all(n >= 0 for n in numbers), name
        table = SCENARIOS[name].table(entry["result"])
        assert "|---|" in table, name
    assert results["scenarios"]["sidebyside"]["result"]["tasks"][0]["tabpilot"]["exact"]
    assert results["scenarios"]["feed"]["result"]["no until_selector: the feed's own end notice"]["rows"] == [
        200
    ]
    if with_playwright:
        assert "playwright_mcp" in results["scenarios"]["startup"]["result"]

    # A smoke run never becomes the docs' figures; a real run's file does.
    page = tmp_path / "performance.md"
    page.write_text(f"# Performance\n\n{docs.BEGIN}\n{docs.END}\n")
    docs.write(tmp_path, page)
    assert "Not measured yet" in page.read_text()
    real = tmp_path / "real.json"
    real.write_text(json.dumps({**results, "options": {**results["options"], "smoke": False}}))
    docs.write(tmp_path, page)
    text = page.read_text()
    assert "Not measured yet" not in text
    assert all(f"### {s.title}\n" in text for s in SCENARIOS.values())
