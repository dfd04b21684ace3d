"""TabPilot and Playwright MCP side by side, with the site's own time.

Alternating call by call, best of `--runs`: every task of the real-app corpus (tests/fixtures/realapps)
and the demo site's task (bench/demo_task.py): TabPilot's one natural call against Playwright MCP's
fastest one call, an expert's hand-written `browser_run_code_unsafe` script (bench/realapps_playwright.py).
Per task: both times and their ratio, whether each answer matched the ground truth, the bytes each
returned against the compact JSON of the rows in it, and the script's own run time inside Playwright. The
apps and the demo site log every request they answer (tests/fixtures/realapps/sitelog.py), so each call
also gets the site's own busy time (bench/sitetime.py) and its request count.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast
from urllib.parse import urlsplit

from mcp import Client, StdioServerParameters
from tests.fixtures.realapps import fast_tasks, sitelog, tasks
from tests.fixtures.realapps.sitelog import Recording, Request

from tabpilot.demo.server import serve

from .. import demo_task, harness, playwright_mcp
from .. import realapps_playwright as pw
from ..client import progress, spawn, text_of
from ..session import CHROMIUM, Options, Session
from ..sitetime import SiteTime, plain_http
from . import Scenario

Call = tuple[str, dict[str, Any]]
# Words separated by "|": only the tasks whose names hold one of them run (to measure a few while working).
ONLY = "TABPILOT_SIDEBYSIDE_ONLY"
# What a plain HTTP client posts where a task logs in (the request log keeps no bodies).
FORMS = {"fast": {"/login": fast_tasks.LOGIN_FORM}}
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
    forms: dict[str, dict[str, str]] = field(default_factory=dict[str, dict[str, str]])  # POST bodies


@dataclass
class Side:
    """One product's runs of one job."""

    ms: list[float] = field(default_factory=list[float])
    exact: bool = True
    problem: str | None = None
    bytes: int | None = None
    rows_bytes: int | None = None  # the compact JSON of the rows it returned (its own fields: a link too)
    script_ms: list[float] = field(default_factory=list[float])
    # The answer beside its rows (`data` shown as its length): what the bytes above the rows' are.
    envelope: Any = None
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
            "rows_bytes": self.rows_bytes,
            "script_best_ms": round(min(self.script_ms), 1) if self.script_ms else None,
        }
        if self.envelope is not None:
            out["envelope"] = self.envelope
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


def _compact(rows: Any) -> int:
    """Bytes of the rows' compact JSON."""
    return len(json.dumps(rows, separators=(",", ":"), ensure_ascii=False).encode())


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
                FORMS.get(task.app, {}),
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
    if isinstance(out, dict) and isinstance(out.get("data"), list):
        answer = cast(dict[str, Any], out)
        side.rows_bytes = _compact(answer["data"])
        side.envelope = answer | {"data": len(answer["data"])}
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
    side.rows_bytes = _compact(out["rows"])
    if out["rows"] != job.expected:
        side.exact, side.problem = False, "answer differs from the ground truth"


async def _series(
    s: Session, jobs: list[Job], runs: int, peer: StdioServerParameters | None, recording: Recording | None
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    async with contextlib.AsyncExitStack() as stack:
        tabpilot = await stack.enter_async_context(spawn(s.params(), s.errlog))
        playwright = None if peer is None else await stack.enter_async_context(spawn(peer, s.errlog))
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
            row: dict[str, Any] = {"task": job.name, "tabpilot": mine.to_dict(True), "rows": rows}
            row["plain_ms"] = _plain(job, mine, runs)
            if isinstance(job.expected, list):
                row["rows_json_bytes"] = _compact(job.expected)
            if playwright is not None and job.peer_call is not None:
                row["playwright_mcp"] = theirs.to_dict(True)
            out.append(row)
    return out


def _plain(job: Job, side: Side, runs: int) -> float | None:
    """Plain HTTP's time for the requests of TabPilot's fastest run (None: a POST whose form is unknown,
    or no log)."""
    if not side.ms or not side.requests:
        return None
    requests = side.requests[side.ms.index(min(side.ms))]
    if not requests or any(r.method == "POST" and r.path.split("?")[0] not in job.forms for r in requests):
        return None
    parts = urlsplit(job.url)
    return round(plain_http(f"{parts.scheme}://{parts.netloc}", requests, job.forms, runs), 1)


def run(s: Session, o: Options) -> dict[str, Any]:
    """Start the apps (a smoke run: the demo site alone), the demo site and Playwright MCP; run the tasks."""
    chosen = [] if o.smoke else [*tasks.PASSING, *fast_tasks.TASKS]
    only = [w.strip().lower() for w in os.environ.get(ONLY, "").split("|") if w.strip()]
    if only:
        chosen = [t for t in chosen if any(w in t.name.lower() for w in only)]
    with contextlib.ExitStack() as stack:
        log = s.root / "sidebyside-requests.jsonl"
        urls = harness.start_apps(stack, chosen, log)
        demo_url = stack.enter_context(serve(wrap=lambda cls: sitelog.http_handler(cls, str(log))))
        work = s.root / "playwright-sidebyside"
        peer = playwright_mcp.server_params(work, CHROMIUM) if o.playwright else None
        jobs = _jobs(urls, demo_url, chosen, with_demo=not only or any(w in demo_task.NAME for w in only))
        try:
            return {"tasks": asyncio.run(_series(s, jobs, o.runs, peer, Recording(log)))}
        finally:
            playwright_mcp.kill_leftovers(work)


def _ms(value: float | None) -> str:
    return "" if value is None else f"{value:,.0f}"


def _cells(r: dict[str, Any]) -> list[str]:
    """task, TabPilot, Playwright, ratio, site TP / PW, plain, ÷ plain, floor, req TP / PW, over,
    B/rows TP / PW, script."""
    mine, theirs = r["tabpilot"], r.get("playwright_mcp")
    both = bool(theirs and mine["exact"] and theirs["exact"] and mine["best_ms"] and theirs["best_ms"])
    ours, peer = mine["best_ms"], theirs["best_ms"] if theirs else None
    cells = [r["task"], _ms(ours), _ms(peer), f"{ours / peer:.2f}×" if both and ours and peer else ""]
    ours_site, peer_site = mine.get("site_ms"), theirs.get("site_ms") if theirs else None
    cells.append(f"{_ms(ours_site)} / {_ms(peer_site)}" if ours_site or peer_site else "")
    plain = r.get("plain_ms")
    cells += [_ms(plain), f"{ours / plain:.2f}×" if plain and ours and mine["exact"] else ""]
    floor = peer_site / peer if theirs and theirs["exact"] and peer_site and peer else None
    cells.append("" if floor is None else f"{floor:.2f}×")
    req = (mine.get("requests"), theirs.get("requests") if theirs else None)
    cells.append(f"{req[0]} / {req[1] if req[1] is not None else '–'}" if req[0] else "")
    # Where the site's time is a sliver of the call (in-place pages, static files) the share says nothing.
    telling = ours_site and ours and mine["exact"] and ours_site >= 0.1 * ours
    over = (ours - ours_site) / ours_site if telling and ours and ours_site else None
    cells.append("" if over is None else f"{over:+.0%}")
    rows_b = r.get("rows_json_bytes")

    def share(side: dict[str, Any] | None) -> str:
        # Against the rows that side returned (TabPilot's carry the fields it was asked for, a link too).
        own = (side.get("rows_bytes") or rows_b) if side else None
        return f"{side['bytes'] / own:.3f}" if side and own and side["bytes"] else "–"

    cells.append(f"{share(mine)} / {share(theirs)}" if rows_b else "")
    cells.append(_ms(theirs["script_best_ms"]) if theirs else "")
    return cells


def table(results: dict[str, Any]) -> str:
    """Markdown: one row per task, problems listed below."""
    lines = [
        "| task | TabPilot ms | Playwright MCP ms | ratio | site ms TP / PW | plain HTTP ms | ÷ plain "
        "| floor | requests TP / PW | over | bytes ÷ rows JSON TP / PW | script's own ms |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    notes: list[str] = []
    for r in results["tasks"]:
        lines.append("| " + " | ".join(_cells(r)) + " |")
        for who, side in (("TabPilot", r["tabpilot"]), ("Playwright MCP", r.get("playwright_mcp"))):
            if side and side["problem"]:
                notes.append(f"- {r['task']}, {who}: {side['problem'][:200]}")
    return "\n".join([*lines, *([""] if notes else []), *notes])


SCENARIO = Scenario(
    "sidebyside",
    "Side by side with Playwright MCP, and the site's own time",
    "Each corpus task and the demo site's, TabPilot's one call against an expert's one "
    "`browser_run_code_unsafe` script, alternating, best of `--runs`. **ratio** TabPilot ÷ Playwright "
    "(both answers exact); **site** the app server's busy time during each fastest call (the union of its "
    "requests' intervals); **plain HTTP** the same requests as TabPilot's fastest call, sent again from a "
    "plain HTTP client in the order the call needed them (bench/sitetime.py), and **÷ plain** TabPilot's "
    "time over it; **floor** Playwright's site time ÷ Playwright's time, the best ratio a tool "
    "making the same requests could reach; **over** TabPilot's time above its own site time, as a share "
    "of it (left out where the site's time is under a tenth of the call); **bytes** the whole answer ÷ "
    "the compact JSON of the rows in it; **script's own** the expert script's run time measured inside "
    "Playwright.",
    run,
    table,
)
