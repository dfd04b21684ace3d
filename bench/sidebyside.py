"""TabPilot and Playwright MCP side by side: `python -m bench.sidebyside [--runs N] [--json]`.

In one run, alternating call by call, best of `--runs`: spawn → first result of a trivial call (each
product's own), every task of the real-app corpus (tests/fixtures/realapps) and the demo site's task
(bench/demo_task.py) — TabPilot's one natural call against Playwright MCP's fastest one call, an
expert's hand-written `browser_run_code_unsafe` script (bench/realapps_playwright.py). Per task it
prints both times and their ratio, whether each answer matched the ground truth, the bytes each
returned against the compact JSON of the rows, and the script's own run time inside Playwright (the
site's page time plus the least a tool can add), with the share TabPilot adds on top of it.
TabPilot runs in a dedicated headless profile in private directories, Playwright MCP in its own
isolated headless Chromium (`--executable-path /usr/bin/chromium`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from mcp import Client, StdioServerParameters
from tests.fixtures.realapps import corpus, tasks

from tabpilot.demo.server import serve

from . import demo_task, firstcall, pilot, playwright_mcp
from . import realapps_playwright as pw
from .client import progress, spawn, text_of
from .stats import machine_facts

CHROMIUM = "/usr/bin/chromium"
FIRST_CALL = "first call: spawn -> first result (observe tabs | browser_tabs list)"
Call = tuple[str, dict[str, Any]]
# Wraps an expert's `async (page) => {...}` so that it also says how long it ran inside Playwright
# (its sandbox has Date, not performance).
_TIMED = (
    "async (page) => {{ const t0 = Date.now(); const rows = await ({code})(page); "
    "return {{ms: Date.now() - t0, rows}}; }}"
)


@dataclass
class Job:
    """One task as both products do it."""

    name: str
    url: str
    setup: list[Call]
    call: Call
    answer: Callable[[Any], Any]
    expected: Any
    peer_setup: list[Call]
    peer_call: Call | None


@dataclass
class Side:
    """One product's runs of one job."""

    ms: list[float] = field(default_factory=list[float])
    exact: bool = True
    problem: str | None = None
    bytes: int | None = None
    script_ms: list[float] = field(default_factory=list[float])

    def best(self) -> float | None:
        """The fastest run, ms."""
        return min(self.ms) if self.ms else None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON."""
        return {
            "best_ms": None if not self.ms else round(min(self.ms), 1),
            "runs_ms": [round(x, 1) for x in self.ms],
            "exact": self.exact and bool(self.ms),
            "problem": self.problem,
            "bytes": self.bytes,
            "script_best_ms": round(min(self.script_ms), 1) if self.script_ms else None,
        }


def _jobs(urls: dict[str, str], demo_url: str) -> list[Job]:
    jobs: list[Job] = []
    for task in tasks.PASSING:
        url = urls[task.app]
        peer = pw.call(task, url)
        jobs.append(
            Job(
                task.name,
                url,
                task.setup(url),
                task.call(url),
                task.answer,
                task.expected(),
                pw.setup(task, url),
                peer,
            )
        )
    jobs.append(
        Job(
            demo_task.NAME,
            demo_url,
            demo_task.setup(demo_url),
            demo_task.call(demo_url),
            lambda out: out["data"],
            demo_task.expected(),
            demo_task.peer_setup(demo_url),
            demo_task.peer_call(demo_url),
        )
    )
    return jobs


async def _call(client: Client, tool: str, arguments: dict[str, Any]) -> tuple[float, Any, str]:
    started = time.perf_counter()
    result = await client.call_tool(tool, arguments)
    ms = (time.perf_counter() - started) * 1000
    text = text_of(result)
    if result.is_error:
        raise RuntimeError(text[:300])
    return ms, result.structured_content or text, text


async def _ours(client: Client, job: Job, side: Side) -> None:
    if side.problem and not side.ms:
        return  # failed outright before: not timed again
    try:
        for tool, arguments in job.setup:
            await _call(client, tool, arguments)
        ms, out, text = await _call(client, *job.call)
        got = job.answer(out)
    except Exception as exc:
        side.exact, side.problem = False, f"error: {exc}"
        return
    side.ms.append(ms)
    side.bytes = len(text.encode())
    if got != job.expected:
        side.exact, side.problem = False, "answer differs from the ground truth"


async def _theirs(client: Client, job: Job, side: Side) -> None:
    if job.peer_call is None or (side.problem and not side.ms):
        return
    tool, arguments = job.peer_call
    timed = {**arguments, "code": _TIMED.format(code=arguments["code"])}
    try:
        for setup_tool, setup_args in job.peer_setup:
            await _call(client, setup_tool, setup_args)
        ms, _, text = await _call(client, tool, timed)
        out = pw.result(text)
    except Exception as exc:
        side.exact, side.problem = False, f"error: {exc}"
        return
    side.ms.append(ms)
    side.script_ms.append(float(out["ms"]))
    side.bytes = len(text.encode())
    if out["rows"] != job.expected:
        side.exact, side.problem = False, "answer differs from the ground truth"


async def _first_calls(env: dict[str, str], peer: StdioServerParameters | None, runs: int) -> dict[str, Any]:
    ours = StdioServerParameters(command=pilot.TABPILOT, args=["mcp"], env=env)
    mine, theirs = Side(), Side()
    # One unmeasured start each: TabPilot's records its cache, node warms its compile cache.
    await firstcall.spawn_to_first_result(ours, firstcall.TABPILOT_CALL)
    if peer is not None:
        await firstcall.spawn_to_first_result(peer, firstcall.PLAYWRIGHT_CALL)
    for _ in range(runs):
        mine.ms.append(await firstcall.spawn_to_first_result(ours, firstcall.TABPILOT_CALL) * 1000)
        if peer is not None:
            theirs.ms.append(await firstcall.spawn_to_first_result(peer, firstcall.PLAYWRIGHT_CALL) * 1000)
    row: dict[str, Any] = {"task": FIRST_CALL, "tabpilot": mine.to_dict()}
    if peer is not None:
        row["playwright_mcp"] = theirs.to_dict()
    return row


async def _series(
    env: dict[str, str], jobs: list[Job], runs: int, errlog: TextIO, peer: StdioServerParameters | None
) -> list[dict[str, Any]]:
    out = [await _first_calls(env, peer, runs)]
    ours = StdioServerParameters(command=pilot.TABPILOT, args=["mcp"], env=env)
    async with contextlib.AsyncExitStack() as stack:
        tabpilot = await stack.enter_async_context(spawn(ours, errlog))
        playwright = None if peer is None else await stack.enter_async_context(spawn(peer, errlog))
        for job in jobs:
            progress(f"{job.name}: {runs} runs")
            mine, theirs = Side(), Side()
            for _ in range(runs):
                await _ours(tabpilot, job, mine)
                if playwright is not None:
                    await _theirs(playwright, job, theirs)
            rows = len(job.expected) if isinstance(job.expected, list) else None
            row: dict[str, Any] = {"task": job.name, "tabpilot": mine.to_dict(), "rows": rows}
            if isinstance(job.expected, list):
                row["rows_json_bytes"] = len(
                    json.dumps(job.expected, separators=(",", ":"), ensure_ascii=False).encode()
                )
            if playwright is not None and job.peer_call is not None:
                row["playwright_mcp"] = theirs.to_dict()
            out.append(row)
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Start the apps, the demo site and both browsers, run everything; plain JSON-able results."""
    results: dict[str, Any] = {
        "machine": {**machine_facts(CHROMIUM), "arch": os.uname().machine, "load_avg": os.getloadavg()},
        "runs": args.runs,
    }
    use_playwright = not args.skip_playwright and playwright_mcp.version() is not None
    if not args.skip_playwright and not use_playwright:
        progress(f"Playwright MCP is not installed ({playwright_mcp.INSTALL_HINT}): TabPilot only")
    results["playwright_mcp"] = playwright_mcp.version() if use_playwright else None
    with contextlib.ExitStack() as stack:
        urls: dict[str, str] = {}
        for app in dict.fromkeys(t.app for t in tasks.PASSING):
            progress(f"starting {app}")
            urls[app] = stack.enter_context(getattr(corpus, app)())
        demo_url = stack.enter_context(serve())
        root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tabpilot-sidebyside-")))
        errlog = stack.enter_context(open(root / "servers.log", "w"))
        env = stack.enter_context(pilot.private_dirs(root / "tp"))
        progress("starting a dedicated headless TabPilot profile")
        stack.enter_context(pilot.dedicated_browser(demo_url + "/login.html"))
        peer = playwright_mcp.server_params(root / "playwright", CHROMIUM) if use_playwright else None
        try:
            results["tasks"] = asyncio.run(_series(env, _jobs(urls, demo_url), args.runs, errlog, peer))
        finally:
            if use_playwright:
                playwright_mcp.kill_leftovers(root / "playwright")
    results["machine"]["load_avg_after"] = os.getloadavg()
    return results


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def _table(results: dict[str, Any]) -> str:
    head = (
        f"{'task':<62} {'TabPilot':>9} {'Playwr.':>9} {'ratio':>6} {'TP B/rows':>9} {'PW B/rows':>9} "
        f"{'script':>8} {'TP over':>8}"
    )
    lines = [head]
    for r in results["tasks"]:
        mine, theirs = r["tabpilot"], r.get("playwright_mcp")
        ours, peer = mine["best_ms"], theirs["best_ms"] if theirs else None
        ratio = (
            f"{ours / peer:.2f}x" if ours and peer and mine["exact"] and theirs and theirs["exact"] else ""
        )
        rows_b = r.get("rows_json_bytes")
        tp_b = f"{mine['bytes'] / rows_b:.3f}" if rows_b and mine["bytes"] else ""
        pw_b = f"{theirs['bytes'] / rows_b:.3f}" if rows_b and theirs and theirs["bytes"] else ""
        script = theirs["script_best_ms"] if theirs else None
        over = f"{(ours - script) / script:+.0%}" if ours and script else ""
        lines.append(
            f"{r['task'][:62]:<62} {_ms(ours):>9} {_ms(peer):>9} {ratio:>6} {tp_b:>9} {pw_b:>9} "
            f"{_ms(script):>8} {over:>8}"
        )
        for who, s in (("TabPilot", mine), ("Playwright MCP", theirs)):
            if s and s["problem"]:
                lines.append(f"    {who}: {s['problem'][:200]}")
    m = results["machine"]
    lines += [
        f"best of {results['runs']} runs, alternating; ms; ratio = TabPilot / Playwright MCP (both exact); "
        "B/rows = bytes returned / compact JSON of the rows; script = the expert script's own time inside "
        "Playwright; TP over = what TabPilot's call adds to that time",
        f"Playwright MCP {results['playwright_mcp'] or 'not run'}; {m['arch']}, {m['cores']} cores, "
        f"{m['cpu']}, "
        f"load {m['load_avg'][0]:.1f} before / {m['load_avg_after'][0]:.1f} after; {m['chromium']}; "
        f"commit {m['commit']}; {m['date']}",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Entry point of `python -m bench.sidebyside`."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.sidebyside", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument("--runs", type=int, default=3, help="runs of each task by each product (best of N)")
    parser.add_argument("--skip-playwright", action="store_true", help="measure TabPilot only")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    results = run(args)
    print(json.dumps(results, indent=2) if args.json else _table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
