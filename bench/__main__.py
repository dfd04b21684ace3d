"""Run benchmark scenarios: `python -m bench [SCENARIO...] [--runs N] [--smoke] [--skip-playwright]
[--out DIR] [--docs] [--list]`.

Each scenario's results go, with the machine they ran on (CPU, cores, load average before and after,
Chromium, Playwright MCP, commit), into one JSON file per run in bench/results/ (or --out);
`python -m bench.docs` (or --docs) rewrites docs/performance.md's tables from the newest results.
Everything started lives in a private temporary directory and is stopped on the way out, also on
Ctrl-C/SIGTERM. Pages come from 127.0.0.1; nothing else is contacted.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import signal
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from . import docs, playwright_mcp
from .client import progress
from .scenarios import SCENARIOS
from .session import CHROMIUM, Options, session
from .stats import machine_facts

RESULTS = Path(__file__).resolve().parent / "results"


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=(__doc__ or "").splitlines()[0])
    parser.add_argument("scenarios", nargs="*", metavar="SCENARIO", help="default: every scenario")
    parser.add_argument("--runs", type=int, default=3, help="repetitions (each scenario's own unit)")
    parser.add_argument("--smoke", action="store_true", help="one pass of each at its smallest size")
    parser.add_argument("--skip-playwright", action="store_true", help="measure TabPilot only")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where the results file goes")
    parser.add_argument("--docs", action="store_true", help="then regenerate docs/performance.md")
    parser.add_argument("--list", action="store_true", help="list the scenarios and exit")
    args = parser.parse_args(argv)
    unknown = [s for s in args.scenarios if s not in SCENARIOS]
    if unknown:
        parser.error(f"unknown scenario {', '.join(unknown)}; known: {', '.join(SCENARIOS)}")
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    return args


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def run(names: list[str], options: Options) -> dict[str, Any]:
    """Run the scenarios in one session; the results document (a failing scenario records its error)."""
    with_playwright = options.playwright and playwright_mcp.version() is not None
    if options.playwright and not with_playwright:
        progress(f"Playwright MCP is not installed ({playwright_mcp.INSTALL_HINT}): TabPilot only")
    options = Options(runs=options.runs, smoke=options.smoke, playwright=with_playwright)
    out: dict[str, Any] = {
        "machine": {**machine_facts(CHROMIUM), "playwright_mcp": playwright_mcp.version()},
        "options": {"runs": options.runs, "smoke": options.smoke, "playwright": with_playwright},
        "scenarios": {},
    }
    with session() as shared:
        shared.browser()
        for name in names:
            progress(f"scenario {name}")
            entry: dict[str, Any] = {"load_avg_start": _load()}
            started = time.monotonic()
            try:
                entry["result"] = SCENARIOS[name].run(shared, options)
            except Exception as exc:  # the other scenarios still run; the file says what failed
                entry["error"] = f"{type(exc).__name__}: {exc}"
                progress(f"{name} failed:\n{traceback.format_exc()}")
            entry["seconds"] = round(time.monotonic() - started, 1)
            entry["load_avg_end"] = _load()
            out["scenarios"][name] = entry
    out["machine"]["load_avg_end"] = _load()
    return out


def write(results: dict[str, Any], folder: Path) -> Path:
    """One file per run, named by its time and commit, so the newest sorts last."""
    folder.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%SZ")
    kind = "-smoke" if results["options"]["smoke"] else ""
    path = folder / f"{stamp}-{results['machine']['commit'] or 'nocommit'}{kind}.json"
    path.write_text(json.dumps(results, indent=1) + "\n")
    return path


def _terminate_as_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    """Entry point of `python -m bench`."""
    args = _parse(argv)
    if args.list:
        for s in SCENARIOS.values():
            print(f"{s.name:<12} {s.about}")
        return 0
    signal.signal(signal.SIGTERM, _terminate_as_interrupt)
    names = args.scenarios or list(SCENARIOS)
    options = Options(runs=args.runs, smoke=args.smoke, playwright=not args.skip_playwright)
    try:
        results = run(names, options)
    except KeyboardInterrupt:
        progress("interrupted; everything started was stopped")
        return 130
    path = write(results, args.out)
    for name, entry in results["scenarios"].items():
        print(f"\n## {SCENARIOS[name].title}\n")
        print(entry.get("error") or SCENARIOS[name].table(entry["result"]))
    print(f"\nresults: {path}")
    if args.docs:
        print(f"rewrote {docs.write(args.out)}")
    return 1 if any("error" in e for e in results["scenarios"].values()) else 0


if __name__ == "__main__":
    sys.exit(main())
