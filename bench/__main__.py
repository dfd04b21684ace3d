"""Run the benchmark: `python -m bench [--calls N] [--skip-playwright] [--json]`.

Everything it starts lives in a private temporary directory (TabPilot's runtime, state and data
directories, Playwright's throw-away profile) and is stopped on the way out, also on Ctrl-C/SIGTERM.
Pages come from 127.0.0.1; nothing else is contacted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any, TextIO

from tabpilot.demo.server import serve

from . import pilot, playwright_mcp, report
from .client import progress
from .stats import machine_facts

PAGE_DIR = Path(__file__).resolve().parent / "page"
CHROMIUM = "/usr/bin/chromium"
WARMUP = 50
# Playwright MCP waits 500 ms after every action by default; a few dozen calls show that well enough.
DEFAULT_SETTLE_CALLS = 30


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000, help="measured calls per latency series")
    parser.add_argument("--starts", type=int, default=10, help="fresh bridge processes per start mode")
    parser.add_argument("--idle", type=float, default=5.0, help="seconds idle before reading memory")
    parser.add_argument("--skip-playwright", action="store_true", help="measure TabPilot only")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    args = parser.parse_args(argv)
    if args.calls < 1 or args.starts < 1:
        parser.error("--calls and --starts must be at least 1")
    return args


def _playwright(args: argparse.Namespace, work: Path, url: str, errlog: TextIO) -> dict[str, Any]:
    if playwright_mcp.version() is None:
        return {"skipped": f"@playwright/mcp not installed; run: {playwright_mcp.INSTALL_HINT}"}
    out: dict[str, Any] = {"version": playwright_mcp.version()}
    runs = {"tuned": (0, args.calls), "default": (None, min(args.calls, DEFAULT_SETTLE_CALLS))}
    for name, (settle_ms, calls) in runs.items():
        try:
            out[name] = asyncio.run(
                playwright_mcp.measure(
                    work / name,
                    url,
                    CHROMIUM,
                    calls=calls,
                    warmup=min(WARMUP, calls),
                    settle_ms=settle_ms,
                    errlog=errlog,
                )
            )
        except Exception as exc:  # keep TabPilot's numbers whatever Playwright does
            out[name] = {"error": f"{type(exc).__name__}: {exc}"}
            progress(f"Playwright MCP ({name}) failed: {exc}")
        finally:
            if killed := playwright_mcp.kill_leftovers(work / name):
                progress(f"killed leftover Playwright processes {killed}")
    return out


def _ratios(results: dict[str, Any]) -> dict[str, float]:
    ours = results["tabpilot"]["execute_js"].p50
    out: dict[str, float] = {}
    for name, key in (("tuned", "playwright_over_tabpilot"), ("default", "playwright_default_over_tabpilot")):
        theirs = report.lookup(results, f"playwright.{name}.evaluate")
        if theirs is not None:
            out[key] = theirs.p50 / ours
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Measure everything; return the results (Timings objects inside)."""
    results: dict[str, Any] = {
        "machine": {**machine_facts(CHROMIUM), "playwright_mcp": playwright_mcp.version()},
        "config": {"calls": args.calls, "warmup": WARMUP, "starts": args.starts, "idle_s": args.idle},
    }
    with (
        tempfile.TemporaryDirectory(prefix="tabpilot-bench-", ignore_cleanup_errors=True) as tmp,
        serve(PAGE_DIR) as base,
    ):
        root = Path(tmp)
        url = f"{base}/index.html"
        log = root / "servers.log"
        with open(log, "w") as errlog:
            try:
                with pilot.private_dirs(root / "tabpilot") as env:
                    progress("starting a dedicated headless TabPilot profile")
                    with pilot.dedicated_browser(url) as launched:
                        results["tabpilot"] = asyncio.run(
                            pilot.measure(
                                env,
                                url,
                                launched,
                                calls=args.calls,
                                warmup=WARMUP,
                                starts=args.starts,
                                idle_s=args.idle,
                                errlog=errlog,
                            )
                        )
                if args.skip_playwright:
                    results["playwright"] = {"skipped": "--skip-playwright"}
                else:
                    results["playwright"] = _playwright(args, root / "playwright", url, errlog)
            except Exception:
                errlog.flush()
                tail = log.read_text(errors="replace").strip().splitlines()[-20:]
                if tail:
                    progress("last lines the servers wrote to stderr:\n" + "\n".join(tail))
                raise
    results["ratio"] = _ratios(results)
    results["targets"] = report.check_targets(results)
    return results


def _terminate_as_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    """Entry point of `python -m bench`."""
    args = _parse(argv)
    signal.signal(signal.SIGTERM, _terminate_as_interrupt)
    try:
        results = run(args)
    except KeyboardInterrupt:
        progress("interrupted; everything started was stopped")
        return 130
    if args.json:
        print(json.dumps(report.to_json(results), indent=2))
    else:
        print(report.table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
