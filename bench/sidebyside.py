"""TabPilot and Playwright MCP side by side: `python -m bench.sidebyside [--runs N] [--task TEXT] [--json]`.

In one run, alternating call by call, best of `--runs`: spawn → first result of a trivial call (each
product's own), every task of the real-app corpus (tests/fixtures/realapps) and the demo site's task
(bench/demo_task.py) — TabPilot's one natural call against Playwright MCP's fastest one call, an
expert's hand-written `browser_run_code_unsafe` script (bench/realapps_playwright.py). Per task it
prints both times and their ratio, whether each answer matched the ground truth, the bytes each
returned against the compact JSON of the rows, and the script's own run time inside Playwright (the
site's page time plus the least a tool can add), with the share TabPilot adds on top of it.
TabPilot runs in a dedicated headless profile in private directories, Playwright MCP in its own
isolated headless Chromium (`--executable-path /usr/bin/chromium`).

The apps and the demo site log every request they answer (tests/fixtures/realapps/sitelog.py), so each
call also gets the site's own busy time (bench/sitetime.py) and its request count: the floor (the site's
time during Playwright's call ÷ that call's time, the best ratio a tool making the same requests could
reach) and TabPilot's time above the site's; `--requests` prints each fastest call's requests.
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
from tests.fixtures.realapps import sitelog, tasks
from tests.fixtures.realapps.sitelog import Recording, Request

from tabpilot.demo.server import serve

from . import demo_task, firstcall, harness, pilot, playwright_mcp
from . import realapps_playwright as pw
from .client import progress, spawn, text_of
from .sitetime import SiteTime
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
    windows: list[tuple[float, float]] = field(default_factory=list[tuple[float, float]])  # monotonic s
    site: list[SiteTime] = field(default_factory=list[SiteTime])
    requests: list[list[Request]] = field(default_factory=list[list[Request]])

    def best(self) -> float | None:
        """The fastest run, ms."""
        return min(self.ms) if self.ms else None

    def read_site(self, recording: Recording | None) -> None:
        """The site's time and requests in each run's window (read after the runs: a server logs a request
        just after sending its last byte, which may be after the call returned)."""
        if recording is None:
            return
        for start, end in self.windows:
            site, requests = SiteTime.read(recording, start, end)
            self.site.append(site)
            self.requests.append(requests)

    def to_dict(self, requests: bool = False) -> dict[str, Any]:
        """Plain JSON; the site's columns are those of the fastest run (its request list if asked)."""
        out: dict[str, Any] = {
            "best_ms": None if not self.ms else round(min(self.ms), 1),
            "runs_ms": [round(x, 1) for x in self.ms],
            "exact": self.exact and bool(self.ms),
            "problem": self.problem,
            "bytes": self.bytes,
            "script_best_ms": round(min(self.script_ms), 1) if self.script_ms else None,
        }
        if self.site:
            best = self.ms.index(min(self.ms))
            out["site_ms"] = round(self.site[best].busy_ms, 1)
            out["site_runs_ms"] = [round(x.busy_ms, 1) for x in self.site]
            out["requests"] = self.site[best].requests
            if requests:
                start = self.windows[best][0]
                out["request_log"] = [_request(r, start) for r in self.requests[best]]
        return out


def _request(r: Request, since: float) -> dict[str, Any]:
    """One request of a call, its start in ms after the call's."""
    ms = round((r.start - since) * 1000, 1)
    took = round((r.end - r.start) * 1000, 1)
    return {"at_ms": ms, "ms": took, "method": r.method, "path": r.path, "status": r.status}


def _jobs(urls: dict[str, str], demo_url: str, chosen: list[tasks.Task], with_demo: bool) -> list[Job]:
    jobs: list[Job] = []
    for task in chosen:
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
    if not with_demo:
        return jobs
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


async def _call(
    client: Client, tool: str, arguments: dict[str, Any], side: Side | None = None
) -> tuple[Any, str]:
    """Make one call; with `side`, timed: its time and window (the clock the request log uses) recorded
    once it succeeded."""
    started = time.monotonic()
    result = await client.call_tool(tool, arguments)
    ended = time.monotonic()
    text = text_of(result)
    if result.is_error:
        raise RuntimeError(text[:300])
    if side is not None:
        side.ms.append((ended - started) * 1000)
        side.windows.append((started, ended))
    return result.structured_content or text, text


async def _ours(client: Client, job: Job, side: Side) -> None:
    if side.problem and not side.ms:
        return  # failed outright before: not timed again
    try:
        for tool, arguments in job.setup:
            await _call(client, tool, arguments)
        out, text = await _call(client, *job.call, side)
        got = job.answer(out)
    except Exception as exc:
        side.exact, side.problem = False, f"error: {exc}"
        return
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
        _, text = await _call(client, tool, timed, side)
        out = pw.result(text)
    except Exception as exc:
        side.exact, side.problem = False, f"error: {exc}"
        return
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
    env: dict[str, str],
    jobs: list[Job],
    args: argparse.Namespace,
    errlog: TextIO,
    peer: StdioServerParameters | None,
    recording: Recording | None,
) -> list[dict[str, Any]]:
    runs = args.runs
    out = [await _first_calls(env, peer, runs)] if _wanted(FIRST_CALL, args.task) else []
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
            mine.read_site(recording)
            theirs.read_site(recording)
            rows = len(job.expected) if isinstance(job.expected, list) else None
            row: dict[str, Any] = {"task": job.name, "tabpilot": mine.to_dict(args.requests), "rows": rows}
            if isinstance(job.expected, list):
                row["rows_json_bytes"] = len(
                    json.dumps(job.expected, separators=(",", ":"), ensure_ascii=False).encode()
                )
            if playwright is not None and job.peer_call is not None:
                row["playwright_mcp"] = theirs.to_dict(args.requests)
            out.append(row)
    return out


def _wanted(name: str, text: str | None) -> bool:
    return text is None or text in name


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Start the apps, the demo site and both browsers, run everything; plain JSON-able results."""
    results: dict[str, Any] = {
        "machine": {**machine_facts(CHROMIUM), "arch": os.uname().machine, "load_avg": os.getloadavg()},
        "runs": args.runs,
    }
    chosen = [t for t in tasks.PASSING if _wanted(t.name, args.task)]
    with_demo = _wanted(demo_task.NAME, args.task)
    if not (chosen or with_demo or _wanted(FIRST_CALL, args.task)):
        raise SystemExit(f"no task name contains {args.task!r}")
    use_playwright = not args.skip_playwright and playwright_mcp.version() is not None
    if not args.skip_playwright and not use_playwright:
        progress(f"Playwright MCP is not installed ({playwright_mcp.INSTALL_HINT}): TabPilot only")
    results["playwright_mcp"] = playwright_mcp.version() if use_playwright else None
    with contextlib.ExitStack() as stack:
        root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tabpilot-sidebyside-")))
        log = root / "requests.jsonl"
        urls = harness.start_apps(stack, chosen, log)
        demo_url = stack.enter_context(serve(wrap=lambda cls: sitelog.http_handler(cls, str(log))))
        errlog = stack.enter_context(open(root / "servers.log", "w"))
        env = stack.enter_context(pilot.private_dirs(root / "tp"))
        progress("starting a dedicated headless TabPilot profile")
        stack.enter_context(pilot.dedicated_browser(demo_url + "/login.html"))
        peer = playwright_mcp.server_params(root / "playwright", CHROMIUM) if use_playwright else None
        jobs = _jobs(urls, demo_url, chosen, with_demo)
        try:
            results["tasks"] = asyncio.run(_series(env, jobs, args, errlog, peer, Recording(log)))
        finally:
            if use_playwright:
                playwright_mcp.kill_leftovers(root / "playwright")
    results["machine"]["load_avg_after"] = os.getloadavg()
    return results


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def _site_cells(mine: dict[str, Any], theirs: dict[str, Any] | None) -> str:
    """site ms (TabPilot / Playwright), floor, request counts, TabPilot's time over the site's."""
    ours_site = mine.get("site_ms")
    peer_site = theirs.get("site_ms") if theirs else None
    site = f"{_ms(ours_site)}/{_ms(peer_site)}" if ours_site is not None or peer_site is not None else ""
    floor = ""
    if theirs and theirs["exact"] and peer_site is not None and theirs["best_ms"]:
        floor = f"{peer_site / theirs['best_ms']:.2f}x"
    req = f"{mine.get('requests', '-')}/{theirs.get('requests', '-') if theirs else '-'}" if site else ""
    over = ""
    if ours_site and mine["best_ms"] and mine["exact"]:
        over = f"{(mine['best_ms'] - ours_site) / ours_site:+.0%}"
    return f"{site:>11} {floor:>6} {req:>7} {over:>7}"


def _table(results: dict[str, Any]) -> str:
    head = (
        f"{'task':<52} {'TabPilot':>9} {'Playwr.':>9} {'ratio':>6} {'site TP/PW':>11} {'floor':>6} "
        f"{'req':>7} {'over':>7} {'TP B/rows':>9} {'PW B/rows':>9} {'script':>8} {'TP over':>8}"
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
            f"{r['task'][:52]:<52} {_ms(ours):>9} {_ms(peer):>9} {ratio:>6} {_site_cells(mine, theirs)} "
            f"{tp_b:>9} {pw_b:>9} {_ms(script):>8} {over:>8}"
        )
        for who, s in (("TabPilot", mine), ("Playwright MCP", theirs)):
            if s and s["problem"]:
                lines.append(f"    {who}: {s['problem'][:200]}")
    m = results["machine"]
    lines += [
        f"best of {results['runs']} runs, alternating; ms; ratio = TabPilot / Playwright MCP (both exact); "
        "site = the app server's busy time during each product's fastest call (union of its requests' "
        "intervals); floor = Playwright's site time / Playwright's time (the best ratio a tool making the "
        "same requests could reach); req = requests TabPilot / Playwright; over = TabPilot's time above "
        "its site time, % of the site time; B/rows = bytes returned / compact JSON of the rows; script = "
        "the expert script's own time inside Playwright; TP over = what TabPilot's call adds to that time",
        f"Playwright MCP {results['playwright_mcp'] or 'not run'}; {m['arch']}, {m['cores']} cores, "
        f"{m['cpu']}, "
        f"load {m['load_avg'][0]:.1f} before / {m['load_avg_after'][0]:.1f} after; {m['chromium']}; "
        f"commit {m['commit']}; {m['date']}",
    ]
    lines += _request_logs(results)
    return "\n".join(lines)


def _request_logs(results: dict[str, Any]) -> list[str]:
    """Each fastest call's requests (`--requests`): start after the call's, ms, status, method, path."""
    lines: list[str] = []
    for r in results["tasks"]:
        for who in ("tabpilot", "playwright_mcp"):
            side = r.get(who)
            if not side or "request_log" not in side:
                continue
            lines.append(f"{r['task']}, {who}: {side['best_ms']:.0f} ms, site {side['site_ms']:.0f} ms")
            lines += [
                f"  {x['at_ms']:8.1f} {x['ms']:7.1f}  {x['status']} {x['method']} {x['path'][:120]}"
                for x in side["request_log"]
            ]
    return lines


def main(argv: list[str] | None = None) -> int:
    """Entry point of `python -m bench.sidebyside`."""
    parser = harness.arguments(
        "python -m bench.sidebyside", __doc__, what="runs of each task by each product (best of N)"
    )
    parser.add_argument(
        "--task", help="only the tasks whose name contains this text (the first call's: 'first call')"
    )
    parser.add_argument("--requests", action="store_true", help="also print each fastest call's requests")
    parser.add_argument("--skip-playwright", action="store_true", help="measure TabPilot only")
    args = harness.parse(parser, argv)
    return harness.report(run(args), args, _table)


if __name__ == "__main__":
    sys.exit(main())
