"""Big runs through the real MCP client, host and Chromium, on the generated scale catalogue (50 linked
pages × 100 rows here): a result over the inline budget is a resource the client reads a page at a
time, nothing cut; a cancel keeps every row read; a host killed mid-run loses only the page in flight,
`command_result` answers the rows journaled, and the same call with `resume` ends with every row once;
so does a browser killed mid-run and started again, and a replayed workflow replayed again with
`resume`."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest
from mcp import Client
from mcp_types import ResourceLink, TextResourceContents

from tabpilot.engine import journal
from tests.fixtures.scale import site as scale
from tests.support import browser
from tests.support.host import host_pool
from tests.support.mcp_client import call, payload

pytestmark = pytest.mark.anyio

PAGES, PER_PAGE = 50, 100


@pytest.fixture(scope="module")
def catalogue() -> Iterator[scale.Catalogue]:
    with scale.serve(PAGES, PER_PAGE, delay_ms=5) as running:
        yield running


def request(**kw: Any) -> dict[str, Any]:
    return {
        "operation": "extract",
        "selector": scale.SELECTOR,
        "schema": scale.SCHEMA,
        "options": {"paginate": {"next_selector": scale.NEXT, "max_pages": PAGES + 10}},
    } | kw


async def read_all(client: Client, uri: str) -> list[Any]:
    """Every row behind a result URI, following each page's `next`."""
    rows: list[Any] = []
    at: str | None = uri
    while at is not None:
        read = await client.read_resource(at)
        [content] = read.contents
        assert isinstance(content, TextResourceContents) and content.mime_type == "application/json"
        page = json.loads(content.text)
        assert page["offset"] == len(rows)
        rows += page["rows"]
        at = page["next"]
    return rows


async def progressed(client: Client, cid: str, pages: int) -> dict[str, Any]:
    """command_result until the run has read `pages` pages (the site holds the next one)."""
    with anyio.fail_after(60):
        while True:
            seen = await call(client, "observe", what="command_result", correlation_id=cid, wait_ms=200)
            if seen["status"] != "running" or seen["progress"]["pages"] >= pages:
                return seen


async def test_a_big_result_is_a_resource_read_in_pages(client: Client, catalogue: scale.Catalogue) -> None:
    await call(client, "interact", action="navigate", url=catalogue.first())
    result = await client.call_tool("interact", {"action": "scrape", **request()})
    out = payload(result)
    assert not result.is_error and out["status"] == "complete", out
    assert out["metadata"]["complete_because"] in ("next_absent", "last_numbered_page")
    assert "truncated" not in out["metadata"]
    handle = out["result"]
    assert handle["rows"] == PAGES * PER_PAGE and handle["pages"] == PAGES
    assert handle["schema"] == {"id": "integer", "name": "string", "price": "number", "link": "string"}
    links = [c for c in result.content if isinstance(c, ResourceLink)]
    assert [str(link.uri) for link in links] == [handle["uri"]]
    expected = catalogue.expected()
    assert out["data"] == expected[: len(out["data"])] and 0 < len(out["data"]) <= journal.HEAD_ROWS
    assert await read_all(client, handle["uri"]) == expected


async def test_cancel_keeps_every_row_read(client: Client, catalogue: scale.Catalogue) -> None:
    await call(client, "interact", action="navigate", url=catalogue.first())
    catalogue.hold(12)
    try:
        started = await call(client, "interact", action="scrape", wait_ms=0, **request())
        cid = started["correlation_id"]
        assert await anyio.to_thread.run_sync(catalogue.wait_held, 60)
        await progressed(client, cid, 11)
        cancelled = await call(client, "interact", action="cancel", correlation_id=cid)
    finally:
        catalogue.release()
    assert cancelled["status"] == "cancelled"
    assert cancelled["data"] == catalogue.expected()[: 11 * PER_PAGE]


async def test_a_host_killed_mid_run_loses_only_the_page_in_flight_and_resume_ends_it(
    client: Client, env: dict[str, str], catalogue: scale.Catalogue
) -> None:
    held = 20
    await call(client, "interact", action="navigate", url=catalogue.first())
    before = dict(catalogue.served)
    catalogue.hold(held)
    try:
        started = await call(client, "interact", action="scrape", wait_ms=0, **request())
        cid = started["correlation_id"]
        assert await anyio.to_thread.run_sync(catalogue.wait_held, 60)
        await progressed(client, cid, held - 1)
        async with host_pool(env) as pool:
            dying = (await pool.browsers())[0].pid
        os.kill(dying, signal.SIGKILL)
        path = journal.path_of(Path(env["TABPILOT_DATA_DIR"]), cid)
        assert path is not None and path.stat().st_mode & 0o777 == 0o600

        # The old host is gone; the bridge waits for the extension's next one, which answers with what
        # the old one journaled: every row of the pages it had read.
        with anyio.fail_after(10):
            while _alive(dying):
                await anyio.sleep(0.05)
        seen = await _after_the_host_went(client, cid)
    finally:
        catalogue.release()  # the held page's request, made before the host died, is answered now
    assert seen["status"] == "partial", seen
    assert seen["metadata"]["partial_because"]["reason"] == "interrupted"
    assert seen["metadata"]["partial_because"]["hint"]["value"] == cid
    journaled = seen["result"]["rows"] if "result" in seen else len(seen["data"])
    assert journaled >= (held - 1) * PER_PAGE and journaled % PER_PAGE == 0
    expected = catalogue.expected()
    kept = seen["data"] if "result" not in seen else await read_all(client, seen["result"]["uri"])
    assert kept == expected[:journaled]

    done = await call(client, "interact", action="scrape", resume=cid, **request())
    assert done["status"] == "complete" and done.get("correlation_id") == (cid if "result" in done else None)
    # The resumed run starts at the page the last one journaled links to: none journaled is read again.
    assert done["metadata"]["resumed"] == {"from_page": journaled // PER_PAGE + 1, "pages_read_again": 0}
    rows = done["data"] if "result" not in done else await read_all(client, done["result"]["uri"])
    assert rows == expected, "every row once, in order"
    for page in range(2, journaled // PER_PAGE + 1):
        assert catalogue.served[page] - before.get(page, 0) == 1, page
    # The dead host's walk read nothing ahead past the held page: those the resumed run read once.
    assert all(catalogue.served[p] - before.get(p, 0) == 1 for p in range(held + 1, PAGES + 1))


async def _after_the_host_went(client: Client, cid: str) -> Any:
    """command_result of the run. The bridge may learn that the host went only as it sends this call
    (the dead host's socket ends after the request is written): that answer is the documented
    `extension_disconnected` with `retryable`, and the agent calls again, as the message says."""
    arguments = {"what": "command_result", "correlation_id": cid}
    first = payload(await client.call_tool("observe", arguments))
    if first.get("error") == "extension_disconnected" and first.get("retryable") is True:
        return await call(client, "observe", **arguments)
    assert "error" not in first, first
    return first


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie has exited: its parent (the browser) has not reaped it yet
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


async def test_a_browser_killed_mid_run_is_resumed_once_it_is_back(
    client: Client, chromium: browser.Chromium, catalogue: scale.Catalogue
) -> None:
    held = 15
    await call(client, "interact", action="navigate", url=catalogue.first())
    before = dict(catalogue.served)
    catalogue.hold(held)
    try:
        started = await call(client, "interact", action="scrape", wait_ms=0, **request())
        cid = started["correlation_id"]
        assert await anyio.to_thread.run_sync(catalogue.wait_held, 60)
        await progressed(client, cid, held - 1)
        chromium.crash()
    finally:
        catalogue.release()
    chromium.start()
    assert chromium.driver is not None
    browser.ensure_pilot_on(chromium.driver)

    # The run's rows are the journal's: the same call with resume goes on in the relaunched browser.
    done = await call(client, "interact", action="scrape", resume=cid, **request())
    assert done["status"] == "complete" and done.get("correlation_id") == (
        cid if "result" in done else None
    ), done
    assert done["metadata"]["resumed"] == {"from_page": held, "pages_read_again": 0}
    rows = done["data"] if "result" not in done else await read_all(client, done["result"]["uri"])
    assert rows == catalogue.expected(), "every row once, in order"
    for page in range(2, held):  # none of the pages journaled read again
        assert catalogue.served[page] - before.get(page, 0) == 1, page


async def test_a_replayed_workflow_is_resumed_by_replaying_it_with_resume(
    client: Client, catalogue: scale.Catalogue
) -> None:
    steps = [
        {"type": "navigate", "url": catalogue.first()},
        {"type": "extract", "selector": scale.SELECTOR, "schema": scale.SCHEMA, **_paging(2)},
    ]
    recorded = await call(
        client, "interact", action="scrape", operation="workflow", name="catalogue", record=True, steps=steps
    )
    workflow = recorded["workflow_id"]
    # Recorded on two pages (quick), replayed on them all.
    replay = {
        "operation": "replay",
        "workflow_id": workflow,
        "override_params": {"steps[1].paginate.max_pages": PAGES + 10},
    }
    held = 9
    before = dict(catalogue.served)
    catalogue.hold(held)
    try:
        started = await call(client, "interact", action="scrape", wait_ms=0, **replay)
        cid = started["correlation_id"]
        assert await anyio.to_thread.run_sync(catalogue.wait_held, 60)
        await progressed(client, cid, held - 1)
        stopped = await call(client, "interact", action="cancel", correlation_id=cid)
    finally:
        catalogue.release()
    assert stopped["status"] == "cancelled"

    done = await call(client, "interact", action="scrape", resume=cid, **replay)
    assert done["status"] == "complete" and done.get("correlation_id") == (
        cid if "result" in done else None
    ), done
    assert done["metadata"]["resumed"] == {"from_page": held, "pages_read_again": 0}
    rows = done["data"] if "result" not in done else await read_all(client, done["result"]["uri"])
    assert rows == catalogue.expected(), "every row once, in order"
    # Of the pages the run had read: page 1 again for the workflow's navigate step; no other. (The held
    # page was asked for by the cancelled run too, and the page after it, which a walk whose next links
    # count by a steady step asks for with it; none after those.)
    served = {p: catalogue.served.get(p, 0) - before.get(p, 0) for p in range(1, PAGES + 1)}
    assert {p for p in range(1, held) if served[p] != 1} == {1}, served
    assert all(served[p] == 1 for p in range(held + 2, PAGES + 1)), str(served)


def _paging(pages: int) -> dict[str, Any]:
    return {"paginate": {"next_selector": scale.NEXT, "max_pages": pages}}
