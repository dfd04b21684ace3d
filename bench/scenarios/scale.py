"""100,000 rows in one call: the generated scale catalogue (tests/fixtures/scale: linked pages of 100 rows,
each answered after ~5 ms) read by one `interact scrape extract` with `options.paginate`, against the
plain-HTTP time of the same requests one after another, with the peak resident memory of the host and
the bridge sampled through the run; every row read back (resources/read) and compared. Then the host
killed at the middle page and the run resumed, and the corpus's 20,000-row virtualised grid
(scale_faults.py)."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import threading
import time
from typing import Any
from urllib.parse import urlsplit

from mcp import Client
from tests.fixtures.scale import grid
from tests.fixtures.scale import site as scale

from tabpilot.link.client import BrowserConnection
from tabpilot.wire import scrape as wire_scrape

from ..client import call_ok, progress, spawn, text_of
from ..session import TABPILOT, Options, Session
from ..stats import children_of, rss_mb
from . import Scenario, scale_faults

ROWS = 100_000
# Which parts run (all by default): the big run, the host killed then resumed, the virtualised grid.
PARTS = os.environ.get("TABPILOT_SCALE_PARTS", "run,kill,grid").split(",")


def _shape(smoke: bool) -> tuple[int, int]:
    """(pages, rows a page): 1,000 × 100, or as few pages as paginate.max_pages allows."""
    if smoke:
        return 20, 100
    pages = min(
        1_000, getattr(wire_scrape, "MAX_PAGES", 1_000)
    )  # paginate.max_pages' cap, where there is one
    return pages, ROWS // pages


def plain_http(base: str, pages: int) -> float:
    """Seconds to GET every page in series on one keep-alive connection (what a script would do)."""
    parts = urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=30)
    started = time.perf_counter()
    for n in range(1, pages + 1):
        conn.request("GET", f"/list?page={n}")
        body = conn.getresponse().read()
        if b"<tbody>" not in body:
            raise RuntimeError(f"page {n} has no table")
    elapsed = time.perf_counter() - started
    conn.close()
    return elapsed


def _idle(gaps: list[float]) -> dict[str, float]:
    """The server's idle time between requests: in all, and its median and 90th percentile (ms)."""
    if not gaps:
        return {}
    ordered = sorted(gaps)
    at = lambda share: round(ordered[min(len(ordered) - 1, int(share * len(ordered)))], 2)  # noqa: E731
    return {"total": round(sum(gaps), 1), "median": at(0.5), "p90": at(0.9)}


class Peaks:
    """The most resident memory each process had while sampling (every 50 ms), in MiB."""

    def __init__(self, pids: dict[str, int]) -> None:
        self.pids = pids
        self.peak = {k: rss_mb(p) or 0.0 for k, p in pids.items()}
        self.start = dict(self.peak)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(0.05):
            for k, p in self.pids.items():
                self.peak[k] = max(self.peak[k], rss_mb(p) or 0.0)

    def __enter__(self) -> Peaks:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


async def read_all(client: Client, uri: str) -> list[Any]:
    rows: list[Any] = []
    at: str | None = uri
    while at is not None:
        [content] = (await client.read_resource(at)).contents
        page = json.loads(getattr(content, "text", "{}"))
        rows += page["rows"]
        at = page["next"]
    return rows


async def measure(s: Session, catalogue: scale.Catalogue, runs: int, grid_rows: int) -> dict[str, Any]:
    launched = s.browser()
    conn = await BrowserConnection.open(launched.socket)
    try:
        assert conn.info is not None
        host = conn.info.pid
    finally:
        await conn.aclose()
    pages = catalogue.pages
    request = {
        "action": "scrape",
        "operation": "extract",
        "selector": scale.SELECTOR,
        "schema": scale.SCHEMA,
        "options": {"paginate": {"next_selector": scale.NEXT, "max_pages": pages}},
        "wait_ms": 600_000,
    }
    out: dict[str, Any] = {"pages": pages, "rows": pages * catalogue.per_page, "runs": []}
    async with spawn(s.params(), s.errlog) as client:
        [bridge] = children_of(os.getpid(), TABPILOT, "mcp")
        expected = catalogue.expected()
        for n in range(runs if "run" in PARTS else 0):
            http_s = plain_http(catalogue.url, pages)
            await call_ok(client, "interact", {"action": "navigate", "url": catalogue.first()})
            progress(f"run {n + 1}/{runs}: {pages} pages x {catalogue.per_page} rows in one call")
            mark = catalogue.mark()
            with Peaks({"host": host, "bridge": bridge}) as peaks:
                started = time.perf_counter()
                heard = scale_faults.Heard(started)
                result = await client.call_tool(
                    "interact", request, read_timeout_seconds=scale_faults.CALL_S, progress_callback=heard
                )
                took = time.perf_counter() - started
            if result.is_error:
                raise RuntimeError(f"the run failed: {text_of(result)[:500]}")
            answer = json.loads(text_of(result))
            rows = (
                answer["data"] if "result" not in answer else await read_all(client, answer["result"]["uri"])
            )
            out["runs"].append(
                {
                    "s": round(took, 2),
                    "http_s": round(http_s, 2),
                    "ratio": round(took / http_s, 2),
                    "status": answer["status"],
                    "because": answer["metadata"].get("complete_because"),
                    "rows": len(rows),
                    "exact": rows == expected,
                    "answer_bytes": len(text_of(result).encode()),
                    "rss_start_mb": {k: round(v, 1) for k, v in peaks.start.items()},
                    "rss_peak_mb": {k: round(v, 1) for k, v in peaks.peak.items()},
                    "progress": heard.summary(took),
                    "site_idle_ms": _idle(catalogue.idle_ms(mark)),
                    "requested_twice": catalogue.twice(mark),
                }
            )
            progress(f"  {out['runs'][-1]}")
        if "kill" in PARTS:
            out["host_killed"] = await scale_faults.host_killed(client, catalogue, request, host, read_all)
            progress(f"  {out['host_killed']}")
        if "grid" in PARTS:
            out["grid"] = await scale_faults.grid_read(client, catalogue, grid_rows, read_all)
            progress(f"  {out['grid']}")
    return out


def run(s: Session, o: Options) -> dict[str, Any]:
    """The catalogue on its own loopback server; `runs` one-call reads of it."""
    pages, per_page = _shape(o.smoke)
    with scale.serve(pages, per_page, delay_ms=5) as catalogue:
        return asyncio.run(measure(s, catalogue, 1 if o.smoke else o.runs, 2_000 if o.smoke else grid.ROWS))


def table(r: dict[str, Any]) -> str:
    """Markdown: one line per run."""
    lines = [
        f"{r['rows']:,} rows over {r['pages']:,} linked pages, one `interact scrape extract` call:",
        "",
        "| run | one call s | plain HTTP in series s | ratio | site idle s (median ms between requests) "
        "| rows, exact | answer bytes | host RSS start → peak MB | bridge RSS start → peak MB |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for n, v in enumerate(r["runs"], 1):
        st, pk = v["rss_start_mb"], v["rss_peak_mb"]
        idle = v.get("site_idle_ms") or {}
        lines.append(
            f"| {n} | {v['s']} | {v['http_s']} | {v['ratio']} | "
            f"{round(idle.get('total', 0) / 1000, 2)} ({idle.get('median', '–')}) | "
            f"{v['rows']:,}, {v['exact']} | "
            f"{v['answer_bytes']:,} | {st['host']} → {pk['host']} | {st['bridge']} → {pk['bridge']} |"
        )
    return "\n".join(lines + scale_faults.table(r.get("host_killed"), r.get("grid")))


SCENARIO = Scenario(
    "scale",
    "100,000 rows in one call",
    "The generated scale catalogue (1,000 linked pages × 100 rows, or as many pages as paginate.max_pages "
    "allows, ~5 ms a page on the server) in one extract call, against plain HTTP GETs of the same pages in "
    "series; host and bridge resident memory sampled every 50 ms; every row read back and compared. Then "
    "the host killed (SIGKILL) at the middle page and the same call resumed, and a 20,000-row virtualised "
    "grid read in one call.",
    run,
    table,
)
