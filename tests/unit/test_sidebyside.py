"""The side-by-side table's site columns (bench/scenarios/sidebyside.py), from results as `run` returns."""

from __future__ import annotations

from typing import Any

from bench.scenarios import sidebyside
from bench.scenarios.sidebyside import Side

from tests.fixtures.realapps.sitelog import Request


def _results(tasks: list[dict[str, Any]]) -> dict[str, Any]:
    return {"tasks": tasks}


def _side(ms: list[float], site: list[tuple[float, int]], requests: bool = False) -> dict[str, Any]:
    side = Side(ms=ms)
    side.windows = [(10.0 * i, 10.0 * i + m / 1000) for i, m in enumerate(ms)]
    side.site = [sidebyside.SiteTime(busy_ms=b, requests=n) for b, n in site]
    side.requests = [[Request(10.0 * i + 0.01, 10.0 * i + 0.05, "GET", "/p", 200)] for i in range(len(ms))]
    return side.to_dict(requests)


def test_site_columns_come_from_the_fastest_run() -> None:
    mine = _side([900, 600], [(500, 14), (400, 13)], requests=True)
    assert (mine["site_ms"], mine["requests"], mine["site_runs_ms"]) == (400, 13, [500, 400])
    assert mine["request_log"] == [{"at_ms": 10.0, "ms": 40.0, "method": "GET", "path": "/p", "status": 200}]
    theirs = _side([1000, 1200], [(600, 13), (650, 13)])
    assert "request_log" not in theirs
    task = {"task": "linked pages", "tabpilot": mine, "playwright_mcp": theirs, "plain_ms": 240.0}
    table = sidebyside.table(_results([task]))
    row = [cell.strip() for cell in table.splitlines()[2].strip("|").split("|")]
    # TabPilot 600, Playwright 1,000, ratio 0.60; site 400 / 600; plain HTTP 240, 600 / 240; floor
    # 600 / 1000; 13 / 13 requests; over (600 - 400) / 400.
    assert row[:10] == [
        "linked pages",
        "600",
        "1,000",
        "0.60×",
        "400 / 600",
        "240",
        "2.50×",
        "0.60×",
        "13 / 13",
        "+50%",
    ]


def test_no_floor_when_playwright_was_wrong() -> None:
    mine = _side([600], [(400, 13)])
    theirs = _side([1000], [(600, 13)])
    theirs["exact"] = False
    table = sidebyside.table(_results([{"task": "t", "tabpilot": mine, "playwright_mcp": theirs}]))
    row = [cell.strip() for cell in table.splitlines()[2].strip("|").split("|")]
    assert row[3] == "" and row[7] == "", "no ratio and no floor from a wrong answer"
    assert row[5] == row[6] == "", "no plain HTTP time measured"
    assert row[9] == "+50%", "TabPilot's own over still shows"
