"""Where a task's time goes: `python -m bench.overhead [--runs N] [--task TEXT] [--json]`.

Runs real-app corpus tasks (tests/fixtures/realapps/tasks.py) through TabPilot's MCP with the per-command
trace on (TABPILOT_TRACE, docs/trace.md) and splits each call's wall time into the extension's own time
per command (worker receive → reply: page work and the site's own time), the host ⇄ extension pipe and
host side of each command (host ms − extension ms), and the rest (bridge, socket, engine between
commands). Prints the fastest run of each task with its command list. TabPilot only: the side-by-side
with Playwright MCP is `python -m bench.sidebyside`.
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
from typing import Any, TextIO

from mcp import StdioServerParameters
from tests.fixtures.realapps import tasks

from tabpilot.engine.trace import ENV_TRACE

from . import harness, pilot
from .client import call_ok, progress, spawn
from .sitetime import union_length
from .stats import machine_facts

CHROMIUM = "/usr/bin/chromium"


def _lines(path: Path, start: int) -> tuple[list[dict[str, Any]], int]:
    """The trace lines written since byte offset `start`, and the new offset."""
    if not path.exists():
        return [], start
    data = path.read_bytes()
    return [json.loads(x) for x in data[start:].splitlines() if x.strip()], len(data)


def breakdown(wall_ms: float, lines: list[dict[str, Any]]) -> dict[str, Any]:
    """One call's time split: the extension's, the pipe + host's per command, and the rest (bridge,
    socket, engine). Commands that overlap (parallel fetches) count by their union in time."""
    busy = union_length((x["at"], x["at"] + x["ms"]) for x in lines)
    ext = sum(x.get("ext_ms", 0.0) for x in lines)
    host = sum(x["ms"] for x in lines)
    return {
        "wall_ms": round(wall_ms, 1),
        "commands": len(lines),
        "extension_ms": round(ext, 1),
        "pipe_and_host_ms": round(host - ext, 1),
        "outside_commands_ms": round(wall_ms - busy, 1),
        "trace": lines,
    }


async def _series(
    env: dict[str, str], urls: dict[str, str], chosen: list[tasks.Task], runs: int, path: Path, errlog: TextIO
) -> list[dict[str, Any]]:
    params = StdioServerParameters(command=pilot.TABPILOT, args=["mcp"], env=env)
    out: list[dict[str, Any]] = []
    offset = 0
    async with spawn(params, errlog) as client:
        for task in chosen:
            progress(f"{task.name}: {runs} runs")
            url = urls[task.app]
            best: dict[str, Any] | None = None
            for _ in range(runs):
                for tool, arguments in task.setup(url):
                    await call_ok(client, tool, arguments)
                _, offset = _lines(path, offset)
                tool, arguments = task.call(url)
                started = time.perf_counter()
                result = await call_ok(client, tool, arguments)
                wall = (time.perf_counter() - started) * 1000
                if task.answer(result.structured_content or {}) != task.expected():
                    raise RuntimeError(f"{task.name}: the answer differs from the ground truth")
                lines, offset = _lines(path, offset)
                row = breakdown(wall, lines)
                if best is None or row["wall_ms"] < best["wall_ms"]:
                    best = row
            assert best is not None
            out.append({"task": task.name, **best})
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Start the apps and a dedicated headless profile with the trace on; run the tasks."""
    chosen = harness.choose(tasks.PASSING, args.task)
    results: dict[str, Any] = {"machine": machine_facts(CHROMIUM), "runs": args.runs}
    with contextlib.ExitStack() as stack:
        urls = harness.start_apps(stack, chosen)
        root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tabpilot-overhead-bench-")))
        trace = root / "trace.jsonl"
        errlog = stack.enter_context(open(root / "servers.log", "w"))
        env = stack.enter_context(pilot.private_dirs(root / "tp"))
        with harness.environ(ENV_TRACE, str(trace)):  # the browser, hence its native host, inherits it
            progress("starting a dedicated headless TabPilot profile")
            stack.enter_context(pilot.dedicated_browser(next(iter(urls.values()))))
        results["tasks"] = asyncio.run(_series(env, urls, chosen, args.runs, trace, errlog))
    return results


def _table(results: dict[str, Any]) -> str:
    out: list[str] = []
    for r in results["tasks"]:
        out.append(
            f"{r['task']}\n  wall {r['wall_ms']:.0f} ms, {r['commands']} commands: extension "
            f"{r['extension_ms']:.0f} ms, pipe + host {r['pipe_and_host_ms']:.0f} ms, outside commands "
            f"(bridge, socket, engine) {r['outside_commands_ms']:.0f} ms"
        )
        for x in r["trace"]:
            ext = f"{x['ext_ms']:7.1f}" if "ext_ms" in x else "      -"
            out.append(f"    {x['at']:8.1f} {x['ms']:7.1f} ext {ext}  {x['cmd']} {x.get('error', '')}")
    out.append(f"best of {results['runs']} runs per task; machine: {json.dumps(results['machine'])}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Entry point of `python -m bench.overhead`."""
    parser = harness.arguments(
        "python -m bench.overhead", __doc__, what="runs of each task (the fastest is shown)"
    )
    parser.add_argument("--task", help="only the tasks whose name contains this text")
    args = harness.parse(parser, argv)
    return harness.report(run(args), args, _table)


if __name__ == "__main__":
    sys.exit(main())
