"""The results as a compact text table, and as JSON."""

from __future__ import annotations

from typing import Any

from .stats import Timings

# Targets from the design brief: (result key, statistic, limit, unit).
TARGETS = [
    ("tabpilot.execute_js", "p50", 3.0, "ms"),
    ("tabpilot.ping", "p50", 1.0, "ms"),
    ("tabpilot.tools_list_initialize", "p50", 300.0, "ms"),
    ("tabpilot.host_rss_mb", None, 50.0, "MB"),
    ("ratio.playwright_over_tabpilot", None, 5.0, "x"),
    ("ratio.playwright_default_over_tabpilot", None, 5.0, "x"),
]


ROWS = [
    ("MCP interact execute_js '1' (full path)", "tabpilot.execute_js"),
    ("  below MCP: host execute_js on the socket", "tabpilot.host_execute_js"),
    ("  MCP ping, client <-> bridge only", "tabpilot.mcp_ping"),
    ("ping socket>host>extension>host>socket", "tabpilot.ping"),
    ("bridge spawn -> tools/list, initialize", "tabpilot.tools_list_initialize"),
    ("bridge spawn -> tools/list, discover", "tabpilot.tools_list_discover"),
    ("bridge spawn -> 1st execute_js", "tabpilot.first_call_initialize"),
    ("Playwright MCP evaluate, settle 0", "playwright.tuned.evaluate"),
    ("Playwright MCP evaluate, default settle", "playwright.default.evaluate"),
]

CPU_ROWS = [
    ("MCP execute_js", "tabpilot.cpu_ms_per_call.execute_js"),
    ("host execute_js", "tabpilot.cpu_ms_per_call.host_execute_js"),
    ("host ping", "tabpilot.cpu_ms_per_call.ping"),
    ("MCP ping", "tabpilot.cpu_ms_per_call.mcp_ping"),
    ("Playwright, settle 0", "playwright.tuned.cpu_ms_per_call"),
]


def lookup(results: dict[str, Any], key: str) -> Any:
    """A dotted path into the results, or None."""
    value: Any = results
    for part in key.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def check_targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Each target with the measured value and whether it was met (None: not measured)."""
    out: list[dict[str, Any]] = []
    for key, stat, limit, unit in TARGETS:
        value = lookup(results, key)
        if isinstance(value, Timings):
            value = getattr(value, stat or "p50")
        met = None if value is None else (value >= limit if unit == "x" else value <= limit)
        op = ">=" if unit == "x" else "<="
        name = f"{key} {stat}" if stat else key
        out.append({"target": f"{name} {op} {limit:g} {unit}", "value": value, "met": met})
    return out


def _fmt(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def table(results: dict[str, Any]) -> str:
    """The human-readable report."""
    m = results["machine"]
    lines = [
        f"TabPilot bench  {m['date']}  commit {m['commit'] or '?'}",
        f"machine: {m['cpu']}, {m['cores']} cores, {m['ram_gb']} GB RAM, {m['os']}, "
        f"load {m['load_avg_1m']:.2f} at start",
        f"browser: {m['chromium']}; Python {m['python']}; node {m['node'] or '-'}; "
        f"@playwright/mcp {m['playwright_mcp'] or 'not installed'}",
        "",
        f"{'latency (ms)':<44}{'n':>6}{'p50':>9}{'p90':>9}{'p99':>9}{'mean':>9}{'max':>9}",
    ]
    for label, key in ROWS:
        t = lookup(results, key)
        if isinstance(t, Timings):
            lines.append(
                f"{label:<44}{t.n:>6}{t.p50:>9.2f}{t.p90:>9.2f}{t.p99:>9.2f}{t.mean:>9.2f}{t.max:>9.2f}"
            )
    ours = results["tabpilot"]
    lines += [
        "ping: one socket hop (bridge side) included, so an upper bound of host <-> extension",
        f"idle RSS: host {_fmt(ours.get('host_rss_mb'), 1)} MB, "
        f"bridge {_fmt(ours.get('bridge_rss_mb'), 1)} MB (after {results['config']['idle_s']:g} s idle)",
        f"bridge starts: tool-list cache warm {ours.get('cache_warm')}; 'discover' = the mcp SDK's "
        "default handshake (server/discover probe) with the fast start on",
    ]
    lines += ["", "CPU ms per call (client: this process)"]
    for label, key in CPU_ROWS:
        if cpu := lookup(results, key):
            lines.append(f"  {label:<26}" + ", ".join(f"{k} {v:.2f}" for k, v in cpu.items()))
    ratio = results.get("ratio", {})
    if ratio:
        lines.append(
            f"p50 ratio Playwright MCP / TabPilot: {_fmt(ratio.get('playwright_over_tabpilot'), 1)}x "
            f"(settle 0), {_fmt(ratio.get('playwright_default_over_tabpilot'), 1)}x (default settle)"
        )
    pw = results.get("playwright", {})
    if "skipped" in pw:
        lines.append(f"Playwright MCP: skipped ({pw['skipped']})")
    for name in ("tuned", "default"):
        if error := lookup(pw, f"{name}.error"):
            lines.append(f"Playwright MCP ({name}) failed: {error}")
    if spawn_ms := lookup(pw, "tuned.spawn_to_tools_list_ms"):
        lines.append(f"Playwright MCP spawn -> tools/list: {spawn_ms:.0f} ms (one start)")
    lines += ["", "targets:"]
    for t in results["targets"]:
        mark = {True: "ok  ", False: "MISS", None: "n/a "}[t["met"]]
        shown = _fmt(t["value"]) if isinstance(t["value"], float | int) else "-"
        lines.append(f"  {mark} {t['target']:<52} measured {shown}")
    return "\n".join(lines)


def to_json(results: dict[str, Any]) -> Any:
    """Timings become plain dicts; everything else is already JSON."""
    if isinstance(results, Timings):
        return results.to_dict()
    if isinstance(results, dict):
        return {k: to_json(v) for k, v in results.items()}
    if isinstance(results, list):
        return [to_json(v) for v in results]
    return results
