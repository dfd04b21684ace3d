"""Detail pages (extract's `follow`) on Roundup, after its login form: the index's first 50 issues, each
read on its own page (tests/fixtures/realapps/follow_tasks.py), each answer checked against the ground
truth, alternating, `--runs` times:
- TabPilot, one workflow call whose extract has `follow` (follow's default concurrency);
- Playwright MCP, one `browser_run_code_unsafe` call: an expert's script that logs in, reads the index
  and fetches the 50 pages at once (fetch + DOMParser);
- the site floor: the login POST, then the same 50+1 requests (the index, then the 50 issues at the same
  concurrency, on kept-alive connections) from plain Python threads with the login's cookie;
- an agent going one call at a time through TabPilot: a navigate and an extract per issue (tool time only).
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import http.client
import json
import re
import statistics
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlencode, urljoin, urlsplit

from mcp import Client
from tests.fixtures.realapps import corpus, data, follow_tasks

from tabpilot.wire.scrape import DEFAULT_CONCURRENCY

from .. import playwright_mcp
from .. import realapps_playwright as pw
from ..client import progress, spawn, text_of
from ..session import CHROMIUM, Options, Session
from . import Scenario

Caller = Callable[[str, dict[str, Any]], Awaitable[Any]]
SMOKE_DETAILS = 3
ASSUMED_TURN_MS = 1000  # a model's own time per call, ASSUMED, for the one-call-at-a-time comparison


class Series:
    """One way's runs: durations, and whether every answer was exact."""

    def __init__(self) -> None:
        self.durations: list[float] = []
        self.exact = True
        self.rows: int | None = None
        self.problem: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Rounded to 0.1 ms."""
        ms = [d * 1000 for d in self.durations]
        return {
            "exact": self.exact and bool(ms),
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
    if answer(out) != expected:
        series.exact, series.problem = False, "answer differs from the ground truth"


TASK = follow_tasks.ROUNDUP_FOLLOW

# After the login: the index's rows, then every issue's page fetched at once and read from its form.
_DETAILS = """
  const rows = [...document.querySelectorAll("table.list tr:has(td)")].slice(0, LIMIT).map((tr) => {
    const a = tr.children[2].querySelector("a");
    return {id: tr.children[1].textContent.trim(), title: a.textContent.trim(), link: a.href};
  });
  const chosen = (doc, name) => {
    const option = doc.querySelector(`select[name=${name}] option[selected]`);
    return option ? option.textContent.trim() : null;
  };
  return Promise.all(rows.map(async (r) => {
    const doc = new DOMParser().parseFromString(await (await fetch(r.link)).text(), "text/html");
    return {id: r.id, title: r.title, form_title: doc.querySelector("input[name=title]").value,
            form_status: chosen(doc, "status"), form_priority: chosen(doc, "priority")};
  }));
"""


def _playwright_script(url: str, details: int) -> str:
    body = _DETAILS.replace("LIMIT", str(details))
    return f"""async (page) => {{
  await page.goto({json.dumps(url + follow_tasks.ROUNDUP_INDEX)});
  await page.fill("input[name=__login_name]", {json.dumps(data.USER)});
  await page.fill("input[name=__login_password]", {json.dumps(data.PASSWORD)});
  await Promise.all([page.waitForNavigation(), page.click("input[type=submit][value=Login]")]);
  return await page.evaluate(async () => {{{body}}});
}}"""


def _task_call(url: str, details: int) -> tuple[str, dict[str, Any]]:
    """The task's one call for the first `details` issues, its follow at follow's own default concurrency."""
    name, args = TASK.call(url)
    steps = [dict(s) for s in args["steps"]]
    steps[-1]["limit"] = details
    steps[-1]["follow"] = {k: v for k, v in steps[-1]["follow"].items() if k != "concurrency"}
    return name, args | {"steps": steps}


class _Site:
    """Plain HTTP to the tracker: one kept-alive connection per thread, the login's cookie on each."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.url, self.host, self.port = url, parts.hostname or "127.0.0.1", parts.port or 80
        self.cookie = ""
        self.local = threading.local()
        self.conns: list[http.client.HTTPConnection] = []

    def request(self, method: str, url: str, body: bytes | None = None) -> tuple[int, str, str | None]:
        """(status, text, Set-Cookie) of one request."""
        conn: http.client.HTTPConnection | None = getattr(self.local, "conn", None)
        if conn is None:
            conn = self.local.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
            self.conns.append(conn)  # list.append is atomic: no lock needed
        headers = {"Cookie": self.cookie} if self.cookie else {}
        if body is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        parts = urlsplit(url)
        conn.request(method, parts.path + (f"?{parts.query}" if parts.query else ""), body, headers)
        response = conn.getresponse()
        text = response.read().decode("utf-8", "replace")
        return response.status, text, response.getheader("Set-Cookie")

    def close(self) -> None:
        """Close every thread's connection."""
        for conn in self.conns:
            conn.close()


def _floor(url: str, concurrency: int, details: int) -> tuple[float, float, str | None]:
    """The login POST's time, then the index and the 50 issues' (at `concurrency`), in seconds, and
    what was wrong with the pages, if anything."""
    site = _Site(url)
    index = url + follow_tasks.ROUNDUP_INDEX
    form = {"__login_name": data.USER, "__login_password": data.PASSWORD, "@action": "login"}
    started = time.perf_counter()
    status, _, cookie = site.request("POST", index, urlencode(form).encode())
    login = time.perf_counter() - started
    if status >= 400 or not cookie:
        return login, 0.0, f"the login answered HTTP {status} and {'a' if cookie else 'no'} cookie"
    site.cookie = cookie.split(";", 1)[0]
    issues = data.issues()[:details]
    try:
        with ThreadPoolExecutor(concurrency) as pool:
            started = time.perf_counter()
            status, text, _ = site.request("GET", index)
            links = list(dict.fromkeys(re.findall(r'href="(issue\d+)"', text)))[:details]
            pages = list(pool.map(lambda link: site.request("GET", urljoin(url, link))[:2], links))
            took = time.perf_counter() - started
    finally:
        site.close()
    wrong = [
        f"issue{i.id} (HTTP {code})"
        for i, (code, page) in zip(issues, pages, strict=False)
        if code != 200 or f'value="{html.escape(i.title)}"' not in page
    ]
    if status != 200 or len(pages) != len(issues) or wrong:
        return login, took, f"index HTTP {status}, {len(pages)} pages; wrong: {', '.join(wrong[:5])}"
    return login, took, None


async def _one_by_one(series: Series, call: Caller, url: str, expected: Any, details: int) -> int:
    """An agent's way without follow: log in and read the index in one workflow, then per issue a
    navigate and an extract (the whole sequence timed); how many calls it made."""
    for tool, arguments in TASK.setup(url):
        await call(tool, arguments)
    name, args = _task_call(url, details)
    steps = [dict(s) for s in args["steps"]]
    steps[-1] = {k: v for k, v in steps[-1].items() if k != "follow"}
    started = time.perf_counter()
    listed = await call(name, args | {"steps": steps})
    rows: list[dict[str, Any]] = []
    for row in listed["data"]:
        await call("interact", {"action": "navigate", "url": row["link"]})
        read = await call(
            "interact",
            {"action": "scrape", "operation": "extract", "selector": "form[name=itemSynopsis]"}
            | {"schema": follow_tasks.ROUNDUP_DETAIL},
        )
        rows.append({k: v for k, v in row.items() if k != "link"} | read["data"][0])
    series.durations.append(time.perf_counter() - started)
    series.rows = len(rows)
    if rows != expected:
        series.exact, series.problem = False, "answer differs from the ground truth"
    return 1 + 2 * len(rows)


async def _series(s: Session, url: str, o: Options) -> dict[str, Any]:
    details = SMOKE_DETAILS if o.smoke else follow_tasks.DETAILS
    expected = TASK.expected()[:details]
    mine, theirs, single, floor = Series(), Series(), Series(), Series()
    split: list[tuple[float, float]] = []  # the floor's (login, 50+1 requests), run by run
    calls = None  # made one at a time
    work = s.root / "playwright-follow"
    peer = playwright_mcp.server_params(work, CHROMIUM) if o.playwright else None
    async with contextlib.AsyncExitStack() as stack:
        tabpilot = _caller(await stack.enter_async_context(spawn(s.params(), s.errlog)))
        other = None if peer is None else _caller(await stack.enter_async_context(spawn(peer, s.errlog)))
        peer_call = ("browser_run_code_unsafe", {"code": _playwright_script(url, details)})
        failed: list[Any] = []  # the detail pages a run could not read, and why

        def answer(out: dict[str, Any]) -> Any:
            failed.extend(out["metadata"].get("follow_errors", []))
            return TASK.answer(out)

        runs = 1 if o.smoke else o.runs  # a smoke run checks that the scenario works, not its spread
        for n in range(runs):
            progress(f"follow: run {n + 1}/{runs}")
            failed.clear()
            await _once(mine, tabpilot, TASK.setup(url), _task_call(url, details), answer, expected)
            if failed and mine.problem:
                mine.problem += "; follow_errors: " + json.dumps(failed)[:300]
            if other is not None:
                await _once(theirs, other, pw.setup(TASK, url), peer_call, pw.result, expected)
            login, took, problem = await asyncio.to_thread(_floor, url, DEFAULT_CONCURRENCY, details)
            if problem is None:
                floor.durations.append(login + took)
                split.append((login, took))
            else:
                floor.exact, floor.problem = False, problem
            if not o.smoke and n == 0:  # slow, and steady: once is enough
                calls = await _one_by_one(single, tabpilot, url, expected, details)
    best = min(split, key=sum, default=None)
    return {
        "task": TASK.name.replace(str(follow_tasks.DETAILS), str(details)),
        "details": details,
        "concurrency": DEFAULT_CONCURRENCY,
        "tabpilot": mine.to_dict(),
        "playwright_mcp": theirs.to_dict() if peer else None,
        "site_floor": floor.to_dict()
        | ({"login_ms": round(best[0] * 1000, 1), "requests_ms": round(best[1] * 1000, 1)} if best else {}),
        "one_by_one": single.to_dict() | {"calls": calls} if calls else None,
    }


def run(s: Session, o: Options) -> dict[str, Any]:
    """Start Roundup, run the ways."""
    with contextlib.ExitStack() as stack:
        progress("starting roundup")
        url = stack.enter_context(corpus.roundup())
        try:
            return asyncio.run(_series(s, url, o))
        finally:
            playwright_mcp.kill_leftovers(s.root / "playwright-follow")


def _row(label: str, w: dict[str, Any] | None, ours: float | None) -> str:
    if w is None or w["best_ms"] is None:
        return f"| {label} | {'' if w is None else (w['problem'] or '')} | | |"
    ratio = f"{ours / w['best_ms']:.2f}×" if ours else ""
    exact = "" if w["exact"] else " (not exact)"
    return f"| {label} | {w['best_ms']:,.0f} ({w['median_ms']:,.0f}){exact} | {ratio} |"


def table(r: dict[str, Any]) -> str:
    """Markdown."""
    ours = r["tabpilot"]["best_ms"]
    floor = r["site_floor"]
    lines = [
        f"{r['task']}; best (median) ms; ratio = TabPilot's one call ÷ that way.",
        "",
        "| way | ms | TabPilot ÷ |",
        "|---|---|---|",
        _row(f"TabPilot, one call with `follow` (concurrency {r['concurrency']})", r["tabpilot"], None),
        _row("Playwright MCP, the expert's script (parallel fetch)", r["playwright_mcp"], ours),
        _row(f"site floor: login + the index and detail requests ({r['concurrency']} at once)", floor, ours),
    ]
    single = r["one_by_one"]
    if single and single["best_ms"]:
        lines.append(_row(f"TabPilot, one call at a time ({single['calls']} calls, tool time)", single, ours))
        assumed = single["best_ms"] + single["calls"] * ASSUMED_TURN_MS
        lines.append(
            f"| … plus an ASSUMED {ASSUMED_TURN_MS} ms of model time per call | {assumed:,.0f} "
            f"| {ours / assumed:.3f}× |"
            if ours
            else ""
        )
    if "login_ms" in floor:
        lines.append(
            f"\nThe floor's login POST took {floor['login_ms']:,.0f} ms, its index and detail requests "
            f"{floor['requests_ms']:,.0f} ms."
        )
    for key in ("tabpilot", "playwright_mcp", "site_floor"):
        if r[key] and r[key]["problem"]:
            lines.append(f"\n{key}: {r[key]['problem'][:300]}")
    return "\n".join(lines)


SCENARIO = Scenario(
    "follow",
    "Detail pages (follow)",
    "Roundup behind its login form: the index's first 50 issues, each one's title, status and priority "
    "read from its own page, best (median) of `--runs`, every answer checked against the ground truth.",
    run,
    table,
)
