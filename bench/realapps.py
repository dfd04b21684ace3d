"""Real-apps benchmark: `python -m bench.realapps [--runs N] [--json]`.

Each task of the real-apps corpus (tests/fixtures/realapps/tasks.py: Roundup, Flask-Admin, Dash
DataTable, AG Grid, Sphinx with furo, seeded and started on 127.0.0.1 from the apps' own virtualenv
that `./dev test` installs) run through TabPilot's MCP as one call, `--runs` times: the time of the call
(the scene set before it, untimed) and whether its answer matched the ground truth exactly. A dedicated
headless profile in private directories.
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
from pathlib import Path
from typing import Any

from mcp import StdioServerParameters
from tests.fixtures.realapps import corpus, tasks

from . import pilot
from .client import progress, spawn, text_of
from .stats import machine_facts

CHROMIUM = "/usr/bin/chromium"


async def _payload(client: Any, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    out = result.structured_content or json.loads(text_of(result))
    if result.is_error:
        raise RuntimeError(f"{out.get('error')}: {str(out.get('message'))[:200]}")
    return out


async def _series(
    env: dict[str, str], urls: dict[str, str], chosen: list[tasks.Task], runs: int, errlog: Any
):
    params = StdioServerParameters(command=pilot.TABPILOT, args=["mcp"], env=env)
    rows: list[dict[str, Any]] = []
    async with spawn(params, errlog) as client:

        async def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
            return await _payload(client, tool, arguments)

        for task in chosen:
            progress(f"{task.name}: {runs} runs")
            url = urls[task.app]
            durations: list[float] = []
            exact, problem, got_rows = True, None, None
            for _ in range(runs):
                for tool, arguments in task.setup(url):
                    await call(tool, arguments)
                tool, arguments = task.call(url)
                started = time.perf_counter()
                try:
                    out = await call(tool, arguments)
                except RuntimeError as e:
                    exact, problem = False, str(e)
                    break
                durations.append(time.perf_counter() - started)
                answer, expected = task.answer(out), task.expected()
                if isinstance(answer, list):
                    got_rows = len(answer)
                if answer != expected:
                    exact = False
                    problem = f"answer differs from the ground truth ({got_rows} rows got)"
            rows.append(
                {
                    "task": task.name,
                    "exact": exact,
                    "rows": got_rows,
                    "problem": problem,
                    "best_ms": round(min(durations) * 1000, 1) if durations else None,
                    "median_ms": round(statistics.median(durations) * 1000, 1) if durations else None,
                    "runs": len(durations),
                }
            )
    return rows


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Start the apps and a dedicated profile, run the tasks; plain JSON-able results."""
    chosen = tasks.ALL if args.pending else tasks.PASSING
    results: dict[str, Any] = {"machine": machine_facts(CHROMIUM), "runs": args.runs}
    with contextlib.ExitStack() as stack:
        urls: dict[str, str] = {}
        for app in dict.fromkeys(t.app for t in chosen):
            progress(f"starting {app}")
            urls[app] = stack.enter_context(getattr(corpus, app)())
        root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tabpilot-realapps-bench-")))
        errlog = stack.enter_context(open(root / "servers.log", "w"))
        env = stack.enter_context(pilot.private_dirs(root / "tp"))
        progress("starting a dedicated headless TabPilot profile")
        stack.enter_context(pilot.dedicated_browser(next(iter(urls.values()))))
        results["tasks"] = asyncio.run(_series(env, urls, chosen, args.runs, errlog))
    return results


def _table(results: dict[str, Any]) -> str:
    lines = [
        f"{'task':<70} {'exact':>5} {'rows':>5} {'best ms':>8} {'median':>8}",
    ]
    for r in results["tasks"]:
        best = "-" if r["best_ms"] is None else f"{r['best_ms']:.0f}"
        median = "-" if r["median_ms"] is None else f"{r['median_ms']:.0f}"
        rows = "-" if r["rows"] is None else str(r["rows"])
        lines.append(f"{r['task']:<70} {'yes' if r['exact'] else 'NO':>5} {rows:>5} {best:>8} {median:>8}")
        if r["problem"]:
            lines.append(f"    {r['problem']}")
    lines.append(f"{results['runs']} runs per task; machine: {json.dumps(results['machine'])}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Entry point of `python -m bench.realapps`."""
    parser = argparse.ArgumentParser(prog="python -m bench.realapps", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs of each task")
    parser.add_argument("--pending", action="store_true", help="also the tasks TabPilot cannot do yet")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    results = run(args)
    print(json.dumps(results, indent=2) if args.json else _table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
