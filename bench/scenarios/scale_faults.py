"""The scale scenario's fault and grid parts: the host killed at the middle page of the big run, then
the same call with `resume` (rows exact, no duplicates, the pages requested twice counted from the
server's own request log), and the corpus's 20,000-row virtualised grid read in one call (rows exact)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import time
from typing import Any

from mcp import Client
from tests.fixtures.scale import grid
from tests.fixtures.scale import site as scale

from ..client import progress, text_of

# A call that reads 100,000 rows outlasts the client's default read timeout on a loaded machine.
CALL_S = 1_200.0
_LEFT = re.compile(r"about (?:(\d+) h )?(?:(\d+) min )?(?:(\d+) s)? ?left")


class Heard:
    """The progress notifications of one call: how many, and how well their ETA foretold the end."""

    def __init__(self, started: float) -> None:
        self.started = started
        self.notes: list[tuple[float, float, float | None, str]] = []

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.notes.append((time.perf_counter() - self.started, progress, total, message or ""))

    def summary(self, took: float) -> dict[str, Any]:
        """Count, the last words, and at 10 %, 50 % and 90 % of the pages the ETA said vs the time left."""
        out: dict[str, Any] = {"notifications": len(self.notes)}
        if not self.notes:
            return out
        out["last"] = self.notes[-1][3]
        for share in (0.1, 0.5, 0.9):
            for at, done, total, words in self.notes:
                found = _LEFT.search(words)
                if total and found and done >= share * total:
                    h, m, s = (int(g or 0) for g in found.groups())
                    out[f"eta_at_{int(share * 100)}pct"] = {
                        "said_s": h * 3600 + m * 60 + s,
                        "was_s": round(took - at, 1),
                    }
                    break
        return out


async def _answer(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments, read_timeout_seconds=CALL_S)
    value: dict[str, Any] = json.loads(text_of(result))
    return value


async def _rows(client: Client, answer: dict[str, Any], read_all: Any) -> list[Any]:
    handle = answer.get("result")
    return answer["data"] if handle is None else await read_all(client, handle["uri"])


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


async def host_killed(
    client: Client, catalogue: scale.Catalogue, request: dict[str, Any], host: int, read_all: Any
) -> dict[str, Any]:
    """Kill the host (SIGKILL) the moment the page after the middle one is asked for (the pages before
    it read, some of them perhaps still on their way to the host or read ahead of it), then resume."""
    pages, per_page = catalogue.pages, catalogue.per_page
    middle = pages // 2
    await _answer(client, "interact", {"action": "navigate", "url": catalogue.first()})
    mark = catalogue.mark()
    catalogue.when_asked(middle + 1, lambda: os.kill(host, signal.SIGKILL))
    started = await _answer(client, "interact", {**request, "wait_ms": 0})
    cid = started["correlation_id"]
    progress(f"host kill: run {cid} dies when page {middle + 1} is asked for")
    deadline = time.monotonic() + CALL_S
    while not _gone(host) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    # A new host comes up with the extension's reconnect; the first call may learn the old one went.
    after: dict[str, Any] = {}
    for _ in range(20):
        after = await _answer(client, "observe", {"what": "command_result", "correlation_id": cid})
        if after.get("status") == "partial":
            break
        await asyncio.sleep(0.25)
    journaled = after.get("result", {}).get("rows", len(after.get("data", [])))
    progress(f"host kill: {journaled:,} rows journaled; resuming")
    took = time.perf_counter()
    done = await _answer(client, "interact", {**request, "resume": cid})
    took = time.perf_counter() - took
    rows = await _rows(client, done, read_all)
    ids = [r.get("id") for r in rows]
    return {
        "killed_at_page": middle,
        "pages_lost": middle - journaled // per_page,
        "after_kill": after.get("status"),
        "journaled_rows": journaled,
        "resume_s": round(took, 2),
        "status": done.get("status"),
        "resumed": done.get("metadata", {}).get("resumed"),
        "rows": len(rows),
        "exact": rows == catalogue.expected(),
        "duplicates": len(ids) - len(set(ids)),
        # Every page the site was asked for more than once by the two runs, from its own log (page 1's
        # load in the tab before the first run is not counted; its fetch in the first run is).
        "requested_twice": catalogue.twice(mark),
        "expected_rows": pages * per_page,
    }


async def grid_read(client: Client, catalogue: scale.Catalogue, rows: int, read_all: Any) -> dict[str, Any]:
    """The virtualised grid of `rows` rows (600 px tall, 30 rows in view) in one extract call."""
    await _answer(client, "interact", {"action": "navigate", "url": catalogue.grid(rows, view_px=600)})
    request = {
        "action": "scrape",
        "operation": "extract",
        "selector": grid.SELECTOR,
        "schema": grid.SCHEMA,
        "wait_ms": 600_000,
    }
    progress(f"grid: {rows:,} rows in one virtualised grid")
    started = time.perf_counter()
    answer = await _answer(client, "interact", request)
    took = time.perf_counter() - started
    read = await _rows(client, answer, read_all) if answer.get("status") != "error" else []
    meta = answer.get("metadata", {})
    return {
        "rows_asked": rows,
        "s": round(took, 2),
        "status": answer.get("status"),
        "because": meta.get("complete_because") or meta.get("partial_because", {}).get("reason"),
        "rows": len(read),
        "exact": read == grid.expected(rows),
        "virtual": meta.get("virtual"),
        "error": answer.get("error"),
    }


def table(faults: dict[str, Any] | None, read: dict[str, Any] | None) -> list[str]:
    """Markdown lines for both parts."""
    lines: list[str] = []
    if faults:
        f = faults
        lines += [
            "",
            f"Host killed (SIGKILL) at page {f['killed_at_page']:,}, then the same call with `resume`: "
            f"command_result answered {f['after_kill']} with {f['journaled_rows']:,} rows journaled "
            f"({f.get('pages_lost', '?')} of the pages read not yet journaled); the "
            f"resume took {f['resume_s']} s and ended {f['status']} with {f['rows']:,} of "
            f"{f['expected_rows']:,} rows (exact: {f['exact']}, duplicates: {f['duplicates']}); pages the "
            f"site was asked for twice (its own log, both runs): {f['requested_twice'] or 'none'} "
            f"({f['resumed']}).",
        ]
    if read:
        lines += [
            "",
            f"Virtualised grid of {read['rows_asked']:,} rows (600 px, 30 rows in view), one call: "
            f"{read['s']} s, {read['status']} ({read['because']}), {read['rows']:,} rows, exact: "
            f"{read['exact']}; the read: {read['virtual']}.",
        ]
    return lines
