"""Strategy cache benchmark: `python -m bench.cache [--calls N] [--json]`.

A plain extract (selector + schema) against a rerun of its cached strategy (`extraction_id`), 500
rows x 5 fields, through MCP (`interact {action: "scrape"}`) in a dedicated headless profile, pages on
127.0.0.1. The two are interleaved call by call so that load on the machine hits both alike. The
`use_cache` series (one probe of the tab's URL, then the extract) shows what one extra page round
trip would cost. Prints p50/p90 of each and the rerun's p50 over the plain one.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from mcp import Client

from . import pilot
from .client import call_ok, progress, spawn, text_of
from .scrape import CHROMIUM, ROW_SELECTOR, SITE
from .scrape_pages import SCHEMA
from .stats import Timings, jsonable, machine_facts

ROWS = 500
# Target from the smart-extraction issue: a rerun by id costs what a plain extract costs.
TARGET_RATIO = 1.10

Call = Callable[[], Awaitable[Any]]


async def interleaved(calls: dict[str, Call], runs: int, warmup: int = 3) -> dict[str, Timings]:
    """Each call `runs` times, taking turns, after `warmup` unmeasured rounds."""
    for _ in range(warmup):
        for fn in calls.values():
            await fn()
    gc.collect()
    spent: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(runs):
        for name, fn in calls.items():
            started = time.perf_counter()
            await fn()
            spent[name].append(time.perf_counter() - started)
    return {name: Timings.of(seconds) for name, seconds in spent.items()}


async def series(client: Client, base: str, runs: int) -> dict[str, Any]:
    """Plain extract, rerun by extraction_id, and use_cache, on the same 500-row page."""
    await call_ok(client, "interact", {"action": "navigate", "url": f"{base}/rows.html?n={ROWS}"})
    plain_args = {"action": "scrape", "operation": "extract", "selector": ROW_SELECTOR, "schema": SCHEMA}
    first = json.loads(text_of(await call_ok(client, "interact", plain_args)))
    ex = first.get("extraction_id")
    if not ex:
        return {"skipped": "this build returns no extraction_id"}
    by_id = {"action": "scrape", "operation": "extract", "extraction_id": ex}
    by_url = {"action": "scrape", "operation": "extract", "use_cache": True}
    rerun = json.loads(text_of(await call_ok(client, "interact", by_id)))
    assert rerun["data"] == first["data"], "the rerun reads what the plain extract read"
    progress(f"MCP extract {ROWS} x 5: plain / extraction_id / use_cache, {runs} calls each, interleaved")
    timings = await interleaved(
        {
            "plain": lambda: call_ok(client, "interact", plain_args),
            "extraction_id": lambda: call_ok(client, "interact", by_id),
            "use_cache": lambda: call_ok(client, "interact", by_url),
        },
        runs,
    )
    return {
        **timings,
        "rerun_over_plain_p50": round(timings["extraction_id"].p50 / timings["plain"].p50, 3),
        "use_cache_over_plain_p50": round(timings["use_cache"].p50 / timings["plain"].p50, 3),
    }


def table(results: dict[str, Any]) -> str:
    """The numbers as text, machine first."""
    lines = ["machine: " + ", ".join(f"{k}={v}" for k, v in results["machine"].items())]
    for key, value in results["mcp"].items():
        if isinstance(value, Timings):
            lines.append(
                f"mcp extract_{ROWS} {key:14} p50 {value.p50:8.2f} ms  p90 {value.p90:8.2f}  n={value.n}"
            )
        else:
            lines.append(f"mcp {key:30} {value}")
    ratio = results["mcp"].get("rerun_over_plain_p50")
    verdict = "not measured" if ratio is None else ("met" if ratio <= TARGET_RATIO else "MISSED")
    lines.append(f"target rerun_over_plain_p50 <= {TARGET_RATIO}: {ratio} ({verdict})")
    return "\n".join(lines)


async def _measure(env: dict[str, str], base: str, runs: int, errlog: Any) -> dict[str, Any]:
    async with spawn(pilot._params(env), errlog) as client:  # pyright: ignore[reportPrivateUsage]
        return await series(client, base, runs)


def main(argv: list[str] | None = None) -> int:
    """Entry point of `python -m bench.cache`."""
    parser = argparse.ArgumentParser(prog="python -m bench.cache", description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=50, help="measured calls per series")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    args = parser.parse_args(argv)
    results: dict[str, Any] = {"machine": machine_facts(CHROMIUM)}
    with pilot.site_session("cache", SITE) as (base, errlog, env, _):
        results["mcp"] = asyncio.run(_measure(env, base, args.calls, errlog))
    print(json.dumps(jsonable(results), indent=2) if args.json else table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
