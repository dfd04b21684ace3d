"""Real-apps benchmark: `python -m bench.realapps [--runs N] [--pending] [--skip-playwright] [--json]`.

Each task of the real-apps corpus (tests/fixtures/realapps/tasks.py: Roundup, Flask-Admin, Dash
DataTable, AG Grid, Sphinx with furo, seeded and started on 127.0.0.1 from the apps' own virtualenv
that `./dev test` installs) run through TabPilot's MCP as one call, and, when `bench/node_modules` has
it, through Playwright MCP as one `browser_run_code_unsafe` call with an expert's script
(bench/realapps_playwright.py), alternating, `--runs` times: the time of each call (the scene set before
it, untimed) and whether its answer matched the ground truth exactly. TabPilot runs in a dedicated
headless profile in private directories; Playwright MCP in its own isolated headless Chromium.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TextIO

from mcp import Client, StdioServerParameters
from tests.fixtures.realapps import tasks

from . import harness, pilot, playwright_mcp
from . import realapps_playwright as pw
from .client import progress, spawn, text_of
from .stats import machine_facts

CHROMIUM = "/usr/bin/chromium"
Caller = Callable[[str, dict[str, Any]], Awaitable[Any]]


class Series:
    """One product's runs of one task: durations, and whether every answer was exact."""

    def __init__(self) -> None:
        self.durations: list[float] = []
        self.exact = True
        self.rows: int | None = None
        self.problem: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Rounded to 0.1 ms for the JSON output."""
        ms = [d * 1000 for d in self.durations]
        return {
            "exact": self.exact and bool(ms),
            "rows": self.rows,
            "problem": self.problem,
            "best_ms": round(min(ms), 1) if ms else None,
            "median_ms": round(statistics.median(ms), 1) if ms else None,
            "runs": len(ms),
        }


def _caller(client: Client) -> Caller:
    async def call(tool: str, arguments: dict[str, Any]) -> Any:
        result = await client.call_tool(tool, arguments)
        text = text_of(result)
        if result.is_error:
            raise RuntimeError(text[:300])
        return result.structured_content or text

    return call


async def _once(
    series: Series,
    call: Caller,
    setup: list[tuple[str, dict[str, Any]]],
    timed: tuple[str, dict[str, Any]],
    answer: Callable[[Any], Any],
    expected: Any,
) -> None:
    if series.problem and not series.durations:
        return  # it failed outright before: do not time it again
    for tool, arguments in setup:
        await call(tool, arguments)
    started = time.perf_counter()
    try:
        out = await call(*timed)
    except Exception as e:  # a tool error, or the MCP client's own timeout
        series.exact, series.problem = False, f"error: {e}"
        return
    series.durations.append(time.perf_counter() - started)
    got = answer(out)
    if isinstance(got, list):
        series.rows = len(got)
    if got != expected:
        series.exact = False
        series.problem = f"answer differs from the ground truth ({series.rows} rows got)"


async def _series(
    env: dict[str, str],
    urls: dict[str, str],
    chosen: list[tasks.Task],
    runs: int,
    errlog: TextIO,
    playwright: StdioServerParameters | None,
) -> list[dict[str, Any]]:
    ours = StdioServerParameters(command=pilot.TABPILOT, args=["mcp"], env=env)
    out: list[dict[str, Any]] = []
    async with contextlib.AsyncExitStack() as stack:
        tabpilot = _caller(await stack.enter_async_context(spawn(ours, errlog)))
        peer = (
            None
            if playwright is None
            else _caller(await stack.enter_async_context(spawn(playwright, errlog)))
        )
        for task in chosen:
            progress(f"{task.name}: {runs} runs")
            url, expected = urls[task.app], task.expected()
            mine, theirs = Series(), Series()
            peer_call = pw.call(task, url)
            for _ in range(runs):
                await _once(mine, tabpilot, task.setup(url), task.call(url), task.answer, expected)
                if peer is not None and peer_call is not None:
                    await _once(theirs, peer, pw.setup(task, url), peer_call, pw.result, expected)
            row = {"task": task.name, "tabpilot": mine.to_dict()}
            if peer is not None and peer_call is not None:
                row["playwright_mcp"] = theirs.to_dict()
            out.append(row)
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Start the apps and the browsers, run the tasks; plain JSON-able results."""
    chosen = tasks.ALL if args.pending else tasks.PASSING
    results: dict[str, Any] = {"machine": machine_facts(CHROMIUM), "runs": args.runs}
    use_playwright = not args.skip_playwright and playwright_mcp.version() is not None
    if not args.skip_playwright and not use_playwright:
        progress(f"Playwright MCP is not installed ({playwright_mcp.INSTALL_HINT}): TabPilot only")
    results["playwright_mcp"] = playwright_mcp.version() if use_playwright else None
    with contextlib.ExitStack() as stack:
        urls = harness.start_apps(stack, chosen)
        root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tabpilot-realapps-bench-")))
        errlog = stack.enter_context(open(root / "servers.log", "w"))
        env = stack.enter_context(pilot.private_dirs(root / "tp"))
        progress("starting a dedicated headless TabPilot profile")
        stack.enter_context(pilot.dedicated_browser(next(iter(urls.values()))))
        peer = playwright_mcp.server_params(root / "playwright", CHROMIUM) if use_playwright else None
        try:
            results["tasks"] = asyncio.run(_series(env, urls, chosen, args.runs, errlog, peer))
        finally:
            if use_playwright:
                playwright_mcp.kill_leftovers(root / "playwright")
    return results


def _cell(s: dict[str, Any] | None) -> str:
    if s is None:
        return f"{'n/a':>22}"
    best = "-" if s["best_ms"] is None else f"{s['best_ms']:.0f}"
    median = "-" if s["median_ms"] is None else f"{s['median_ms']:.0f}"
    return f"{'yes' if s['exact'] else 'NO':>5} {best:>8} {median:>7}"


def _table(results: dict[str, Any]) -> str:
    head = f"{'':<68} {'TabPilot':>22} {'Playwright MCP script':>22}"
    sub = f"{'task':<68} {'exact':>5} {'best ms':>8} {'median':>7} {'exact':>5} {'best ms':>8} {'median':>7}"
    lines = [head, sub]
    for r in results["tasks"]:
        mine, theirs = r["tabpilot"], r.get("playwright_mcp")
        ratio = ""
        if theirs and mine["exact"] and theirs["exact"]:
            ratio = f"  {mine['best_ms'] / theirs['best_ms']:.2f}x"
        lines.append(f"{r['task'][:68]:<68} {_cell(mine)} {_cell(theirs)}{ratio}")
        for who, s in (("TabPilot", mine), ("Playwright MCP", theirs)):
            if s and s["problem"]:
                lines.append(f"    {who}: {s['problem']}")
    peer = results["playwright_mcp"]
    lines.append(
        f"{results['runs']} runs per task, alternating; ratio = TabPilot best / Playwright best "
        "(both exact); "
        f"Playwright MCP {peer or 'not run'}"
    )
    lines.append(f"machine: {json.dumps(results['machine'])}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Entry point of `python -m bench.realapps`."""
    parser = harness.arguments("python -m bench.realapps", __doc__, what="runs of each task by each product")
    parser.add_argument("--pending", action="store_true", help="also the tasks TabPilot cannot do yet")
    parser.add_argument("--skip-playwright", action="store_true", help="measure TabPilot only")
    args = harness.parse(parser, argv)
    return harness.report(run(args), args, _table)


if __name__ == "__main__":
    sys.exit(main())
