"""Script extractor benchmark: `python -m bench.script [--calls N] [--rows N] [--json]`.

An agent-written extractor (`interact {action: "scrape", operation: "extract", script}`) against a
plain extract (selector + schema) of the same rows x 5 fields, through MCP in a dedicated headless
profile, pages on 127.0.0.1: the script on a plain page (executeScript + new Function), on a page with
a password field (every returned string is scrubbed), and on a strict-CSP page (chrome.debugger's
Runtime.evaluate). Interleaved call by call so that load on the machine hits all alike.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
from pathlib import Path
from typing import Any

from mcp import Client

from . import pilot
from .cache import interleaved
from .client import call_ok, progress, spawn, text_of
from .scrape import CHROMIUM, ROW_SELECTOR, SITE
from .scrape_pages import SCHEMA
from .stats import Timings, jsonable, machine_facts

SCRIPT = """return [...root.querySelectorAll('tbody tr')].map((tr) => ({
  id: Number(tr.querySelector('.id').textContent),
  name: tr.querySelector('.name').textContent,
  email: tr.querySelector('.email').textContent,
  amount: Number(tr.querySelector('.amount').textContent.replace(/[$,]/g, '')),
  link: tr.querySelector('a').href,
}));"""
PASSWORD = '<input type="password" value="bench-secret-123">'


def add_variants(site: Path) -> None:
    """rows-secret.html (a password field) and rows-csp.html (script-src 'self', its script moved out)."""
    page = (site / "rows.html").read_text()
    (site / "rows-secret.html").write_text(page.replace("<body>", f"<body>{PASSWORD}", 1))
    found = re.search(r"<script>(.*?)</script>", page, re.S)
    assert found, "rows.html builds its rows in an inline script"
    (site / "rows.js").write_text(found.group(1))
    csp = '<meta http-equiv="Content-Security-Policy" content="script-src \'self\'">'
    strict = page.replace(found.group(0), '<script src="rows.js"></script>').replace(
        "<head>", f"<head>{csp}", 1
    )
    (site / "rows-csp.html").write_text(strict.replace("<body>", f"<body>{PASSWORD}", 1))


async def series(client: Client, base: str, rows: int, runs: int) -> dict[str, Any]:
    """Plain extract and the script on the three pages, each in a tab of its own."""
    tabs: dict[str, int] = {}
    for name in ("rows", "rows-secret", "rows-csp"):
        opened = await call_ok(
            client, "interact", {"action": "new_tab", "url": f"{base}/{name}.html?n={rows}"}
        )
        tabs[name] = json.loads(text_of(opened))["tab_id"]

    def scrape(tab: str, **request: Any) -> Any:
        args = {"action": "scrape", "operation": "extract", "tab_id": tabs[tab], **request}
        return lambda: call_ok(client, "interact", args)

    calls = {
        "plain_extract": scrape("rows", selector=ROW_SELECTOR, schema=SCHEMA),
        "script": scrape("rows", script=SCRIPT),
        "script_scrubbed": scrape("rows-secret", script=SCRIPT),
        "script_strict_csp": scrape("rows-csp", script=SCRIPT),
    }
    for name, call in calls.items():
        got = json.loads(text_of(await call()))
        assert len(got["data"]) == rows, f"{name}: {len(got['data'])} rows"
    progress(
        f"MCP extract {rows} x 5: plain / script / script scrubbed / script strict CSP, {runs} calls each"
    )
    timings = await interleaved(calls, runs)
    return {
        **timings,
        "script_over_plain_p50": round(timings["script"].p50 / timings["plain_extract"].p50, 3),
    }


def table(results: dict[str, Any], rows: int) -> str:
    """The numbers as text, machine first."""
    lines = ["machine: " + ", ".join(f"{k}={v}" for k, v in results["machine"].items())]
    for key, value in results["mcp"].items():
        if isinstance(value, Timings):
            lines.append(
                f"mcp {rows} rows {key:18} p50 {value.p50:8.2f} ms  p90 {value.p90:8.2f}  n={value.n}"
            )
        else:
            lines.append(f"mcp {key:30} {value}")
    return "\n".join(lines)


async def _measure(env: dict[str, str], base: str, rows: int, runs: int, errlog: Any) -> dict[str, Any]:
    async with spawn(pilot._params(env), errlog) as client:  # pyright: ignore[reportPrivateUsage]
        return await series(client, base, rows, runs)


def main(argv: list[str] | None = None) -> int:
    """Entry point of `python -m bench.script`."""
    parser = argparse.ArgumentParser(prog="python -m bench.script", description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=30, help="measured calls per series")
    parser.add_argument("--rows", type=int, default=500, help="rows in the table")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    args = parser.parse_args(argv)
    results: dict[str, Any] = {"machine": machine_facts(CHROMIUM)}
    with pilot.site_session("script", SITE, add_variants) as (base, errlog, env, _):
        results["mcp"] = asyncio.run(_measure(env, base, args.rows, args.calls, errlog))
    print(json.dumps(jsonable(results), indent=2) if args.json else table(results, args.rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
