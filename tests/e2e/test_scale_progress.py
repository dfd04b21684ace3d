"""Long runs watched while they run, through the real MCP client, host and Chromium, on the generated
scale catalogue: progress notifications (the client's progressToken) count pages out of the total the
numbered pager tells, with rows and an ETA; a second call follows the same run (command_result with
its own progressToken) and a third cancels it, both while the first still waits; every row read is kept."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import anyio
import anyio.to_thread
import pytest
from mcp import Client

from tests.e2e.test_scale_journal import read_all
from tests.fixtures.scale import grid
from tests.fixtures.scale import site as scale
from tests.support.mcp_client import call, payload

pytestmark = pytest.mark.anyio

PAGES, PER_PAGE = 50, 100


@pytest.fixture(scope="module")
def numbered() -> Iterator[scale.Catalogue]:
    with scale.serve(PAGES, PER_PAGE, delay_ms=5, numbered=True) as running:
        yield running


def request() -> dict[str, Any]:
    return {
        "operation": "extract",
        "selector": scale.SELECTOR,
        "schema": scale.SCHEMA,
        "options": {"paginate": {"next_selector": scale.NEXT, "max_pages": PAGES + 10}},
    }


class Notes:
    """The progress notifications one call received."""

    def __init__(self) -> None:
        self.seen: list[tuple[float, float | None, str | None]] = []

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.seen.append((progress, total, message))

    def reached(self, pages: int) -> bool:
        return any(p >= pages for p, _, _ in self.seen)


async def until(probe: Any, what: str, timeout_s: float = 60) -> None:
    with anyio.fail_after(timeout_s):
        while not probe():
            await anyio.sleep(0.02)
    assert probe(), what


async def test_progress_follow_and_cancel_from_other_calls(client: Client, numbered: scale.Catalogue) -> None:
    await call(client, "interact", action="navigate", url=numbered.first())
    first, follower = Notes(), Notes()
    answers: dict[str, Any] = {}

    async def scrape() -> None:
        args = {"action": "scrape", "wait_ms": 120_000, **request()}
        answers["scrape"] = payload(await client.call_tool("interact", args, progress_callback=first))

    async def follow(cid: str) -> None:
        args = {"what": "command_result", "correlation_id": cid, "wait_ms": 120_000}
        answers["follow"] = payload(await client.call_tool("observe", args, progress_callback=follower))

    numbered.hold(6)
    async with anyio.create_task_group() as tg:
        try:
            tg.start_soon(scrape)
            assert await anyio.to_thread.run_sync(numbered.wait_held, 60)
            await until(lambda: first.reached(5), "the first call told of page 5")
            running = await call(client, "observe", what="command_result", correlation_id=_cid(first))
            cid = running["correlation_id"]
            tg.start_soon(follow, cid)
            await until(lambda: follower.seen, "the follower heard at once where the run is")
            # On to page 12: the follower hears the pages go by.
            numbered.release()
            numbered.hold(12)
            assert await anyio.to_thread.run_sync(numbered.wait_held, 60)
            await until(lambda: follower.reached(11), "the follower heard page 11")
            seen = await call(client, "observe", what="command_result", correlation_id=cid)
            cancelled = await call(client, "interact", action="cancel", correlation_id=cid)
        finally:
            numbered.release()

    moved = seen["progress"]
    assert seen["status"] == "running"
    assert moved["pages"] == 11 and moved["rows"] == 11 * PER_PAGE
    assert moved["pages_total"] == PAGES and moved["total_from"] == "last_numbered_page"
    assert moved["eta_s"] > 0
    for notes in (first, follower):
        values = [p for p, _, _ in notes.seen]
        assert values == sorted(set(values)), "each notification counts more pages than the one before"
        # Out of max_pages until two pages' numbered pagers told the same last page.
        assert {t for p, t, _ in notes.seen if p >= 3} == {float(PAGES)}, notes.seen
        assert {t for _, t, _ in notes.seen} <= {None, float(PAGES), float(PAGES + 10)}
        assert any(m and f"{11 * PER_PAGE:,} rows" in m for _, _, m in notes.seen), notes.seen
    assert [p for p, _, _ in follower.seen][-1] == 11
    expected = numbered.expected()[: 11 * PER_PAGE]
    for answer in (cancelled, answers["scrape"], answers["follow"]):
        assert answer["status"] == "cancelled" and answer["correlation_id"] == cid, answer
        assert answer["data"] == expected


async def test_a_run_stops_when_the_client_cancels_the_call_that_started_it(
    client: Client, numbered: scale.Catalogue
) -> None:
    await call(client, "interact", action="navigate", url=numbered.first())
    notes = Notes()

    async def scrape() -> None:
        args = {"action": "scrape", "wait_ms": 120_000, **request()}
        await client.call_tool("interact", args, progress_callback=notes)

    numbered.hold(4)
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(scrape)
            assert await anyio.to_thread.run_sync(numbered.wait_held, 60)
            await until(lambda: notes.reached(3), "the call told of page 3")
            tg.cancel_scope.cancel()  # the client abandons the call: notifications/cancelled
        # Page 4 is let go once the run has stopped: answered before the cancel reached the host, it
        # would rightly be read.
        out = await call(client, "observe", what="command_result", correlation_id=_cid(notes), wait_ms=20_000)
    finally:
        numbered.release()
    assert out["status"] == "cancelled", out
    assert out["data"] == numbered.expected()[: 3 * PER_PAGE]


async def test_the_corpus_virtualised_grid_is_read_exact(client: Client, numbered: scale.Catalogue) -> None:
    # The grid reads about a row a millisecond: 4,000 of its rows here, all 20,000 in `python -m bench
    # scale`.
    rows = 4_000
    await call(client, "interact", action="navigate", url=numbered.grid(rows, view_px=600))
    args = {"action": "scrape", "operation": "extract", "selector": grid.SELECTOR, "schema": grid.SCHEMA}
    out = await call(client, "interact", wait_ms=120_000, **args)
    assert out["status"] == "complete", out
    assert out["metadata"]["complete_because"] == "grid_row_count", out["metadata"]
    assert out["metadata"]["virtual"]["declared"] == rows
    read = out["data"] if "result" not in out else await read_all(client, out["result"]["uri"])
    assert read == grid.expected(rows)


def _cid(notes: Notes) -> str:
    """The run's correlation id while its call still waits: its progress notifications name it."""
    found = {
        m.group(0) for _, _, text in notes.seen if text and (m := re.search(r"corr-[0-9a-f]{6,32}", text))
    }
    assert len(found) == 1, notes.seen
    return found.pop()
