"""Detail pages benchmark: `python -m bench.follow [--runs N] [--concurrency N] [--turn-ms MS]
[--skip-playwright] [--skip-one-by-one] [--json]`.

Roundup, after its login form: the index's first 50 issues, each read on its own page
(tests/fixtures/realapps/follow_tasks.py), alternating, `--runs` times, each answer checked against the
ground truth:
- TabPilot, one `interact scrape` call with `follow` at `--concurrency` (default: follow's own default);
- Playwright MCP, one `browser_run_code_unsafe` call with an expert's script that logs in, reads the
  index and fetches the 50 pages in parallel (fetch + DOMParser);
- the site's floor: the login form's POST, then the same 50+1 requests (the index, then the 50 issues
  at `--concurrency` at once, on kept-alive connections) made by plain Python threads with the login's
  cookie, each page checked for its issue's title: the least time the site itself needs;
- an agent going one call at a time through TabPilot: a navigate and an extract per issue (the tool
  time only: a model's own time between the calls comes on top of it; `--turn-ms` adds an ASSUMED
  time per call for it, printed as such).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import html
import http.client
import json
import re
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urljoin, urlsplit

from mcp import StdioServerParameters
from tests.fixtures.realapps import corpus, data, follow_tasks

from tabpilot.wire.scrape import DEFAULT_CONCURRENCY, MAX_CONCURRENCY

from . import pilot, playwright_mcp
from . import realapps_playwright as pw
from .client import progress, spawn
from .realapps import CHROMIUM, Caller, Series, _caller, _once  # pyright: ignore[reportPrivateUsage]
from .stats import machine_facts

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


def _playwright_script(url: str) -> str:
    body = _DETAILS.replace("LIMIT", str(follow_tasks.DETAILS))
    return f"""async (page) => {{
  await page.goto({json.dumps(url + follow_tasks.ROUNDUP_INDEX)});
  await page.fill("input[name=__login_name]", {json.dumps(data.USER)});
  await page.fill("input[name=__login_password]", {json.dumps(data.PASSWORD)});
  await Promise.all([page.waitForNavigation(), page.click("input[type=submit][value=Login]")]);
  return await page.evaluate(async () => {{{body}}});
}}"""


def _task_call(url: str, concurrency: int) -> tuple[str, dict[str, Any]]:
    """The task's one call, its follow at `concurrency`."""
    name, args = TASK.call(url)
    steps = [dict(s) for s in args["steps"]]
    steps[-1]["follow"] = steps[-1]["follow"] | {"concurrency": concurrency}
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


def _floor(url: str, concurrency: int) -> tuple[float, float, str | None]:
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
    issues = data.issues()[: follow_tasks.DETAILS]
    try:
        with ThreadPoolExecutor(concurrency) as pool:
            started = time.perf_counter()
            status, text, _ = site.request("GET", index)
            links = list(dict.fromkeys(re.findall(r'href="(issue\d+)"', text)))[: follow_tasks.DETAILS]
            pages = list(pool.map(lambda link: site.request("GET", urljoin(url, link))[:2], links))
            details = time.perf_counter() - started
    finally:
        site.close()
    wrong = [
        f"issue{i.id} (HTTP {code})"
        for i, (code, page) in zip(issues, pages, strict=False)
        if code != 200 or f'value="{html.escape(i.title)}"' not in page
    ]
    if status != 200 or len(pages) != len(issues) or wrong:
        return login, details, f"index HTTP {status}, {len(pages)} pages; wrong: {', '.join(wrong[:5])}"
    return login, details, None


async def _one_by_one(series: Series, call: Caller, url: str, expected: Any) -> int:
    """An agent's way without follow: log in and read the index in one workflow, then per issue a
    navigate and an extract (the whole sequence timed); how many calls it made."""
    for tool, arguments in TASK.setup(url):
        await call(tool, arguments)
    name, args = TASK.call(url)
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


async def _series(
    env: dict[str, str], url: str, args: argparse.Namespace, peer: StdioServerParameters | None
) -> dict[str, Any]:
    ours = StdioServerParameters(command=pilot.TABPILOT, args=["mcp"], env=env)
    expected = TASK.expected()
    mine, theirs, single, floor = Series(), Series(), Series(), Series()
    split: list[tuple[float, float]] = []  # the floor's (login, 50+1 requests), run by run
    calls = None  # made one at a time
    with open(Path(env["TABPILOT_STATE_DIR"]).parent / "servers.log", "w") as errlog:
        async with contextlib.AsyncExitStack() as stack:
            tabpilot = _caller(await stack.enter_async_context(spawn(ours, errlog)))
            other = None if peer is None else _caller(await stack.enter_async_context(spawn(peer, errlog)))
            peer_call = ("browser_run_code_unsafe", {"code": _playwright_script(url)})
            failed: list[Any] = []  # the detail pages a run could not read, and why

            def answer(out: dict[str, Any]) -> Any:
                failed.extend(out["metadata"].get("follow_errors", []))
                return TASK.answer(out)

            for n in range(args.runs):
                progress(f"run {n + 1}/{args.runs}")
                timed = _task_call(url, args.concurrency)
                failed.clear()
                await _once(mine, tabpilot, TASK.setup(url), timed, answer, expected)
                if failed and mine.problem:
                    mine.problem += "; follow_errors: " + json.dumps(failed)[:300]
                if other is not None:
                    await _once(theirs, other, pw.setup(TASK, url), peer_call, pw.result, expected)
                login, details, problem = await asyncio.to_thread(_floor, url, args.concurrency)
                if problem is None:
                    floor.durations.append(login + details)
                    split.append((login, details))
                else:
                    floor.exact, floor.problem = False, problem
                if not args.skip_one_by_one and n == 0:  # slow, and steady: once is enough
                    calls = await _one_by_one(single, tabpilot, url, expected)
    best = min(split, key=sum, default=None)
    return {
        "tabpilot": mine.to_dict(),
        "playwright_mcp": theirs.to_dict(),
        "site_floor": floor.to_dict()
        | ({"login_ms": round(best[0] * 1000, 1), "requests_ms": round(best[1] * 1000, 1)} if best else {}),
        "one_by_one": single.to_dict() | {"calls": calls},
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Start Roundup and the browsers, run the three ways; plain JSON-able results."""
    results: dict[str, Any] = {"machine": machine_facts(CHROMIUM), "runs": args.runs, "task": TASK.name}
    results |= {"concurrency": args.concurrency, "turn_ms": args.turn_ms}
    use_playwright = not args.skip_playwright and playwright_mcp.version() is not None
    results["playwright_mcp_version"] = playwright_mcp.version() if use_playwright else None
    with contextlib.ExitStack() as stack:
        progress("starting roundup")
        url = stack.enter_context(corpus.roundup())
        root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tabpilot-follow-bench-")))
        env = stack.enter_context(pilot.private_dirs(root / "tp"))
        progress("starting a dedicated headless TabPilot profile")
        stack.enter_context(pilot.dedicated_browser(url))
        peer = playwright_mcp.server_params(root / "playwright", CHROMIUM) if use_playwright else None
        try:
            results |= asyncio.run(_series(env, url, args, peer))
        finally:
            if use_playwright:
                playwright_mcp.kill_leftovers(root / "playwright")
    return results


def _table(r: dict[str, Any]) -> str:
    c = r["concurrency"]
    lines = [r["task"], f"{'way':<60} {'exact':>5} {'best ms':>9} {'median':>9}"]
    names = {
        "tabpilot": f"TabPilot, one call with follow (concurrency {c})",
        "playwright_mcp": "Playwright MCP, expert script (parallel fetch)",
        "site_floor": f"site floor: login + the 50+1 requests, Python ({c} at once)",
        "one_by_one": "TabPilot, one call at a time (tool time)",
    }
    for key, label in names.items():
        s = r[key]
        best = "-" if s["best_ms"] is None else f"{s['best_ms']:.0f}"
        median = "-" if s["median_ms"] is None else f"{s['median_ms']:.0f}"
        exact = "-" if not s["runs"] and not s["problem"] else ("yes" if s["exact"] else "NO")
        lines.append(f"{label:<60} {exact:>5} {best:>9} {median:>9}")
        if s["problem"]:
            lines.append(f"    {s['problem']}")
        if key == "site_floor" and "login_ms" in s:
            lines.append(
                f"    of which the login POST {s['login_ms']:.0f}, the 50+1 requests {s['requests_ms']:.0f}"
            )
    single, turn = r["one_by_one"], r["turn_ms"]
    assumed = None
    if turn is not None and single["best_ms"] is not None:
        assumed = single["best_ms"] + single["calls"] * turn
        label = f"  + ASSUMED model time: {single['calls']} calls x {turn} ms"
        lines.append(f"{label:<60} {'':>5} {assumed:>9.0f}")
    ours = r["tabpilot"]["best_ms"]
    for key in ("playwright_mcp", "site_floor", "one_by_one"):
        theirs = r[key]["best_ms"]
        if ours and theirs:
            lines.append(f"ratio TabPilot / {names[key]}: {ours / theirs:.2f}x")
    floor, peer = r["site_floor"]["best_ms"], r["playwright_mcp"]["best_ms"]
    if floor and peer:
        lines.append(
            f"ratio site floor / Playwright MCP: {floor / peer:.2f}x (the least any tool could reach)"
        )
    if ours and assumed:
        lines.append(
            f"ratio TabPilot / one call at a time with the ASSUMED model time: {ours / assumed:.3f}x"
        )
    lines.append(f"{r['runs']} runs, alternating; Playwright MCP {r['playwright_mcp_version'] or 'not run'}")
    lines.append(f"machine: {json.dumps(r['machine'])}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Entry point of `python -m bench.follow`."""
    parser = argparse.ArgumentParser(prog="python -m bench.follow", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs of each way")
    parser.add_argument(
        "--concurrency",
        type=int,
        default=DEFAULT_CONCURRENCY,
        help=f"follow.concurrency, and the site floor's (default {DEFAULT_CONCURRENCY}, follow's own)",
    )
    parser.add_argument(
        "--turn-ms",
        type=int,
        default=None,
        help="an ASSUMED model time per call, added to the one-call-at-a-time run in a line of its own",
    )
    parser.add_argument("--skip-playwright", action="store_true", help="no Playwright MCP")
    parser.add_argument("--skip-one-by-one", action="store_true", help="no one-call-at-a-time run")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if not 1 <= args.concurrency <= MAX_CONCURRENCY:
        parser.error(f"--concurrency must be 1-{MAX_CONCURRENCY}")
    if args.turn_ms is not None and args.turn_ms < 0:
        parser.error("--turn-ms must be 0 or more")
    results = run(args)
    print(json.dumps(results, indent=2) if args.json else _table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
