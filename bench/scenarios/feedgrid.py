"""Feeds and virtualised grids side by side with an expert's Playwright MCP script.

The corpus's feeds (metafizzy infinite-scroll on scroll and with its "View more" button, htmx rows loaded
when revealed; 10 batches of 20, each batch 80 ms on the server) and its 2,000-row grids (AG Grid, whose
rows carry row-index; Tabulator and Clusterize.js, whose rows carry none): TabPilot's one natural call
(tests/fixtures/realapps/feedgrid_tasks.py, tasks.AGGRID) against an expert's one
`browser_run_code_unsafe` script that knows the page and waits only for it to change
(bench/feedgrid_playwright.py), alternating call by call. Both answers are
checked against the ground truth; TabPilot's must also say `complete` with its `complete_because`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from mcp import Client
from tests.fixtures.realapps import feedgrid_tasks, tasks

from .. import feedgrid_playwright, harness, playwright_mcp
from .. import realapps_playwright as pw
from ..client import call_ok, progress, spawn, text_of
from ..session import CHROMIUM, Options, Session
from . import Scenario

Call = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class Job:
    """One corpus task both ways: TabPilot's calls, the expert's, the evidence TabPilot must give."""

    task: tasks.Task
    because: str
    peer: Call | None
    generic: Call | None = None  # a feed scrolled by a loop that does not know how it ends


@dataclass
class Side:
    """One product's runs of one job: wall ms of each, and whether every answer was exact."""

    ms: list[float] = field(default_factory=list[float])
    problem: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON."""
        best = round(min(self.ms)) if self.ms else None
        median = round(statistics.median(self.ms)) if self.ms else None
        exact = self.problem is None and bool(self.ms)
        return {
            "best_ms": best,
            "median_ms": median,
            "runs_ms": [round(x) for x in self.ms],
            "exact": exact,
            "problem": self.problem,
        }


def _jobs(smoke: bool) -> list[Job]:
    # FEEDGRID_ONLY=feeds (or grids) measures one half, e.g. while working on it.
    only = os.environ.get("FEEDGRID_ONLY", "")
    walked = [feedgrid_tasks.INFINITE_SCROLL] if smoke else [*feedgrid_tasks.FEEDS, *feedgrid_tasks.GRIDS]
    if only in ("feeds", "grids"):
        walked = [w for w in walked if (w in feedgrid_tasks.FEEDS) == (only == "feeds")]
    out = [
        Job(
            w.task,
            w.because,
            feedgrid_playwright.call(w.task.name),
            feedgrid_playwright.generic_call(w.task.name),
        )
        for w in walked
    ]
    if not smoke and only != "feeds":
        # AG Grid declares its row count (aria-rowcount).
        out.append(Job(tasks.AGGRID, "grid_row_count", feedgrid_playwright.call(tasks.AGGRID.name)))
    return out


async def _timed(client: Client, call: Call) -> tuple[float, Any, str]:
    started = time.perf_counter()
    result = await call_ok(client, *call)
    ms = (time.perf_counter() - started) * 1000
    return ms, result.structured_content, text_of(result)


async def _ours(client: Client, job: Job, url: str, side: Side) -> None:
    try:
        for setup in job.task.setup(url):
            await call_ok(client, *setup)
        ms, out, text = await _timed(client, job.task.call(url))
    except Exception as exc:
        side.problem = f"error: {exc}"[:300]
        return
    side.ms.append(ms)
    out = out or {}
    meta = out.get("metadata") or {}
    rows = out.get("data")
    progress(
        f"  TabPilot {ms:,.0f} ms, {len(rows or [])} rows, {out.get('status')} {meta.get('complete_because')}"
    )
    if rows is None:
        side.problem = f"no rows: {text[:200]}"
    elif job.task.answer(out) != job.task.expected():
        side.problem = f"answer differs from the ground truth ({len(rows)} rows)"
    elif out.get("status") != "complete" or meta.get("complete_because") != job.because:
        side.problem = f"status {out.get('status')}, complete_because {meta.get('complete_because')}"


async def _theirs(client: Client, job: Job, url: str, side: Side, peer: Call | None) -> None:
    if peer is None:
        return
    try:
        for setup in pw.setup(job.task, url):
            await call_ok(client, *setup)
        ms, _, text = await _timed(client, peer)
        rows = pw.result(text)
    except Exception as exc:
        side.problem = f"error: {exc}"[:300]
        return
    side.ms.append(ms)
    progress(f"  Playwright MCP {ms:,.0f} ms, {len(rows)} rows")
    if rows != job.task.expected():
        side.problem = f"answer differs from the ground truth ({len(rows)} rows)"


async def _series(
    s: Session, jobs: list[Job], urls: dict[str, str], runs: int, o: Options
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    work = s.root / "playwright-feedgrid"
    async with contextlib.AsyncExitStack() as stack:
        ours = await stack.enter_async_context(spawn(s.params(), s.errlog))
        peer = None
        if o.playwright:
            peer = await stack.enter_async_context(
                spawn(playwright_mcp.server_params(work, CHROMIUM), s.errlog)
            )
        try:
            for job in jobs:
                progress(f"{job.task.name}: {runs} runs")
                mine, theirs, generic = Side(), Side(), Side()
                url = urls[job.task.app]
                for _ in range(runs):
                    await _ours(ours, job, url, mine)
                    if peer is not None:
                        await _theirs(peer, job, url, theirs, job.peer)
                        if job.generic is not None:
                            await _theirs(peer, job, url, generic, job.generic)
                row: dict[str, Any] = {"task": job.task.name, "tabpilot": mine.to_dict()}
                if peer is not None:
                    row["playwright_mcp"] = theirs.to_dict()
                    if job.generic is not None:
                        row["playwright_mcp_generic"] = generic.to_dict()
                out.append(row)
        finally:
            playwright_mcp.kill_leftovers(work)
    return out


def run(s: Session, o: Options) -> dict[str, Any]:
    """Start the feeds, grids and AG Grid apps; run each task both ways, alternating."""
    jobs = _jobs(o.smoke)
    runs = 1 if o.smoke else o.runs
    with contextlib.ExitStack() as stack:
        urls = harness.start_apps(stack, [j.task for j in jobs])
        return {"tasks": asyncio.run(_series(s, jobs, urls, runs, o))}


def _ms(v: float | None) -> str:
    return "–" if v is None else f"{v:,.0f}"


def _ratio(mine: dict[str, Any], theirs: dict[str, Any] | None) -> str:
    if not (theirs and mine["exact"] and theirs["exact"] and mine["best_ms"] and theirs["best_ms"]):
        return ""
    return f"{mine['best_ms'] / theirs['best_ms']:.2f}×"


def _both(side: dict[str, Any] | None) -> str:
    return f"{_ms(side['best_ms'])} / {_ms(side['median_ms'])}" if side else "–"


def table(r: dict[str, Any]) -> str:
    """Markdown: one row per task, problems below."""
    lines = [
        "| task | TabPilot best / median ms | expert script best / median ms | ratio | generic scroll loop "
        "best / median ms | ratio |",
        "|---|---|---|---|---|---|",
    ]
    notes: list[str] = []
    for t in r["tasks"]:
        mine, theirs, generic = t["tabpilot"], t.get("playwright_mcp"), t.get("playwright_mcp_generic")
        cells = [
            t["task"],
            _both(mine),
            _both(theirs),
            _ratio(mine, theirs),
            _both(generic),
            _ratio(mine, generic),
        ]
        lines.append("| " + " | ".join(cells) + " |")
        for who, side in (("TabPilot", mine), ("expert script", theirs), ("generic loop", generic)):
            if side and side["problem"]:
                notes.append(f"- {t['task']}, {who}: {side['problem']}")
    return "\n".join([*lines, *([""] if notes else []), *notes])


SCENARIO = Scenario(
    "feedgrid",
    "Feeds and virtualised grids against an expert's Playwright MCP script",
    "The corpus's three feeds (10 batches of 20, 80 ms a batch on the server) and three 2,000-row grids, "
    "TabPilot's one natural call against an expert's one `browser_run_code_unsafe` script that knows the "
    "page and waits only for it to change, and (feeds) a generic Playwright scroll loop that presses a "
    'visible "more" button or scrolls, waits for more rows and stops after a second with none; '
    "alternating, best and median of `--runs`. **ratio** TabPilot ÷ Playwright, both answers exact "
    "(TabPilot's also `complete` with the right `complete_because`).",
    run,
    table,
)
