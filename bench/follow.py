"""Detail pages benchmark: `python -m bench.follow [--runs N] [--skip-playwright] [--skip-one-by-one]`.

Roundup, after its login form: the index's first 50 issues, each read on its own page
(tests/fixtures/realapps/follow_tasks.py), three ways, alternating, `--runs` times, each answer checked
against the ground truth:
- TabPilot, one `interact scrape` call with `follow` (the detail pages in background tabs);
- Playwright MCP, one `browser_run_code_unsafe` call with an expert's script that logs in, reads the
  index and fetches the 50 pages in parallel (fetch + DOMParser);
- an agent going one call at a time through TabPilot: a navigate and an extract per issue (the tool
  time only: a model's own time between the calls comes on top of it).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp import StdioServerParameters
from tests.fixtures.realapps import corpus, data, follow_tasks

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


async def _one_by_one(series: Series, call: Caller, url: str, expected: Any) -> None:
    """An agent's way without follow: log in and read the index in one workflow, then per issue a
    navigate and an extract (the whole sequence timed)."""
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


async def _series(
    env: dict[str, str], url: str, args: argparse.Namespace, peer: StdioServerParameters | None
) -> dict[str, Any]:
    ours = StdioServerParameters(command=pilot.TABPILOT, args=["mcp"], env=env)
    expected = TASK.expected()
    mine, theirs, single = Series(), Series(), Series()
    with open(Path(env["TABPILOT_STATE_DIR"]).parent / "servers.log", "w") as errlog:
        async with contextlib.AsyncExitStack() as stack:
            tabpilot = _caller(await stack.enter_async_context(spawn(ours, errlog)))
            other = None if peer is None else _caller(await stack.enter_async_context(spawn(peer, errlog)))
            peer_call = ("browser_run_code_unsafe", {"code": _playwright_script(url)})
            for n in range(args.runs):
                progress(f"run {n + 1}/{args.runs}")
                await _once(mine, tabpilot, TASK.setup(url), TASK.call(url), TASK.answer, expected)
                if other is not None:
                    await _once(theirs, other, pw.setup(TASK, url), peer_call, pw.result, expected)
                if not args.skip_one_by_one and n == 0:  # slow, and steady: once is enough
                    await _one_by_one(single, tabpilot, url, expected)
    return {"tabpilot": mine.to_dict(), "playwright_mcp": theirs.to_dict(), "one_by_one": single.to_dict()}


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Start Roundup and the browsers, run the three ways; plain JSON-able results."""
    results: dict[str, Any] = {"machine": machine_facts(CHROMIUM), "runs": args.runs, "task": TASK.name}
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
    lines = [r["task"], f"{'way':<44} {'exact':>5} {'best ms':>9} {'median':>9}"]
    names = {
        "tabpilot": "TabPilot, one call with follow",
        "playwright_mcp": "Playwright MCP, expert script (parallel fetch)",
        "one_by_one": "TabPilot, one call at a time (tool time)",
    }
    for key, label in names.items():
        s = r[key]
        best = "-" if s["best_ms"] is None else f"{s['best_ms']:.0f}"
        median = "-" if s["median_ms"] is None else f"{s['median_ms']:.0f}"
        exact = "-" if not s["runs"] and not s["problem"] else ("yes" if s["exact"] else "NO")
        lines.append(f"{label:<44} {exact:>5} {best:>9} {median:>9}")
        if s["problem"]:
            lines.append(f"    {s['problem']}")
    ours = r["tabpilot"]["best_ms"]
    for key in ("playwright_mcp", "one_by_one"):
        theirs = r[key]["best_ms"]
        if ours and theirs:
            lines.append(f"ratio TabPilot / {names[key]}: {ours / theirs:.2f}x")
    lines.append(f"{r['runs']} runs, alternating; Playwright MCP {r['playwright_mcp_version'] or 'not run'}")
    lines.append(f"machine: {json.dumps(r['machine'])}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Entry point of `python -m bench.follow`."""
    parser = argparse.ArgumentParser(prog="python -m bench.follow", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs of each way")
    parser.add_argument("--skip-playwright", action="store_true", help="no Playwright MCP")
    parser.add_argument("--skip-one-by-one", action="store_true", help="no one-call-at-a-time run")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    results = run(args)
    print(json.dumps(results, indent=2) if args.json else _table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
