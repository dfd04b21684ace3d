"""Screenshot and execute_js-fallback benchmark: `python -m bench.shots [--calls N] [--json]`.

Through MCP in a dedicated headless profile (1280x800 window): a viewport screenshot (default JPEG q70),
the same of a background tab, an element, a full page; the bytes, pixels and image tokens (w*h/750) of
each; execute_js "1" on a plain page (the fast path) and on a page whose CSP forbids eval (the debugger
fallback). Screenshot calls are spaced 600 ms apart: Chrome allows ~2 captures a second, and a burst
measures that quota rather than TabPilot.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp import StdioServerParameters
from mcp.types import ImageContent

from tabpilot.demo.server import serve

from . import pilot
from .client import call_ok, progress, spawn, timed, tool_call
from .stats import Timings, machine_facts

CHROMIUM = "/usr/bin/chromium"
QUOTA_GAP_S = 0.6

PAGES = {
    "page.html": "<!doctype html><title>shots</title><style>body{font:16px sans-serif}</style>"
    + "".join(f"<h2>Section {i}</h2><p>{'Some text to render. ' * 30}</p>" for i in range(40))
    + "<div id='card' style='width:400px;height:200px;background:#c33'>card</div>",
    "csp.html": "<!doctype html><meta http-equiv='Content-Security-Policy' content=\"script-src 'self'\">"
    "<title>csp</title><p>strict</p>",
}


async def _shots(client: Any, args: dict[str, Any], calls: int) -> dict[str, Any]:
    sizes: list[tuple[int, int, int]] = []
    durations: list[float] = []
    for _ in range(calls):
        started = time.perf_counter()
        result = await call_ok(client, "interact", {"action": "screenshot", **args})
        durations.append(time.perf_counter() - started)
        [image] = [c for c in result.content if isinstance(c, ImageContent)]
        meta = result.structured_content or {}
        sizes.append((len(base64.b64decode(image.data)), meta["width"], meta["height"]))
        await asyncio.sleep(QUOTA_GAP_S)
    size, width, height = sizes[-1]
    return {
        "ms": Timings.of(durations).to_dict(),
        "bytes": size,
        "width": width,
        "height": height,
        "tokens": round(width * height / 750),
    }


async def series(env: dict[str, str], base: str, calls: int, shot_calls: int, errlog: Any) -> dict[str, Any]:
    """Every measured series, through one MCP client."""
    out: dict[str, Any] = {}
    params = StdioServerParameters(command=pilot.TABPILOT, args=["mcp"], env=env)
    async with spawn(params, errlog) as client:
        await call_ok(client, "interact", {"action": "navigate", "url": f"{base}/page.html"})
        progress("execute_js fast path")
        out["execute_js_plain"] = (
            await timed(tool_call(client, "interact", {"action": "execute_js", "script": "1"}), calls, 20)
        ).to_dict()
        back = await call_ok(
            client, "interact", {"action": "new_tab", "url": f"{base}/csp.html", "active": False}
        )
        csp_tab = (back.structured_content or {})["tab_id"]
        progress("execute_js under a strict CSP (debugger)")
        csp_call = {"action": "execute_js", "script": "1", "tab_id": csp_tab}
        out["execute_js_csp"] = (await timed(tool_call(client, "interact", csp_call), calls, 20)).to_dict()
        progress("screenshots")
        out["viewport"] = await _shots(client, {}, shot_calls)
        out["background_tab"] = await _shots(client, {"tab_id": csp_tab}, shot_calls)
        out["element"] = await _shots(client, {"selector": "#card"}, shot_calls)
        out["full_page"] = await _shots(client, {"full_page": True}, shot_calls)
        out["viewport_png"] = await _shots(client, {"format": "png"}, shot_calls)
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Measure; plain JSON-able results."""
    results: dict[str, Any] = {"machine": machine_facts(CHROMIUM)}
    with tempfile.TemporaryDirectory(prefix="tabpilot-bench-shots-", ignore_cleanup_errors=True) as tmp:
        root = Path(tmp)
        site = root / "site"
        site.mkdir()
        for name, html in PAGES.items():
            (site / name).write_text(html)
        with (
            serve(site) as base,
            open(root / "servers.log", "w") as errlog,
            pilot.private_dirs(root / "tabpilot") as env,
        ):
            progress("starting a dedicated headless TabPilot profile")
            with pilot.dedicated_browser(f"{base}/page.html"):
                results.update(asyncio.run(series(env, base, args.calls, args.shots, errlog)))
    return results


def _table(results: dict[str, Any]) -> str:
    lines = ["| what | p50 ms | p99 ms | bytes | pixels | image tokens |", "|---|---|---|---|---|---|"]
    for key in ("execute_js_plain", "execute_js_csp"):
        t = results[key]
        lines.append(f"| {key} | {t['p50']:.2f} | {t['p99']:.2f} | | | |")
    for key in ("viewport", "background_tab", "element", "full_page", "viewport_png"):
        r = results[key]
        lines.append(
            f"| screenshot {key} | {r['ms']['p50']:.1f} | {r['ms']['p99']:.1f} | {r['bytes']:,} | "
            f"{r['width']}x{r['height']} | {r['tokens']} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Entry point of `python -m bench.shots`."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.shots", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument("--calls", type=int, default=300, help="execute_js calls per series")
    parser.add_argument("--shots", type=int, default=15, help="screenshots per series")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    args = parser.parse_args(argv)
    results = run(args)
    print(json.dumps(results, indent=2) if args.json else _table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
