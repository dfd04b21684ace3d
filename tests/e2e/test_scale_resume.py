"""A host killed mid-run on the scale catalogue (40 linked pages × 100 rows, read by fetching along the
next links, pages read ahead), at the moment the site is asked for page 21; the same call with `resume`
ends with every row once, and the site's own log shows at most one page asked for twice: the resumed
walk goes on from the tab's page, where the page agent kept what it had read ahead for the dead host."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from mcp import Client

from tests.e2e.test_scale_journal import read_all
from tests.fixtures.scale import site as scale
from tests.support.host import host_pool
from tests.support.mcp_client import call, payload

pytestmark = pytest.mark.anyio

PAGES, PER_PAGE, KILL_AT = 40, 100, 21


@pytest.fixture
def catalogue() -> Iterator[scale.Catalogue]:
    with scale.serve(PAGES, PER_PAGE, delay_ms=5) as running:
        yield running


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"  # exited, not yet reaped by the browser
    except OSError:
        return True


async def test_a_host_killed_mid_walk_is_resumed_with_at_most_one_page_asked_for_twice(
    client: Client, env: dict[str, str], catalogue: scale.Catalogue
) -> None:
    request: dict[str, Any] = {
        "action": "scrape",
        "operation": "extract",
        "selector": scale.SELECTOR,
        "schema": scale.SCHEMA,
        "options": {"paginate": {"next_selector": scale.NEXT, "max_pages": PAGES + 10}},
    }
    await call(client, "interact", action="navigate", url=catalogue.first())
    async with host_pool(env) as pool:
        host = (await pool.browsers())[0].pid
    mark = catalogue.mark()
    catalogue.when_asked(KILL_AT, lambda: os.kill(host, signal.SIGKILL))
    started = await call(client, "interact", wait_ms=0, **request)
    cid = started["correlation_id"]
    with anyio.fail_after(60):
        while not _gone(host):
            await anyio.sleep(0.05)
    # The next host answers with what the dead one journaled (the first call may learn it went).
    with anyio.fail_after(30):
        while True:
            seen = payload(
                await client.call_tool("observe", {"what": "command_result", "correlation_id": cid})
            )
            if seen.get("status") == "partial":
                break
            assert seen.get("error") in (None, "extension_disconnected"), seen
            await anyio.sleep(0.1)
    journaled = seen["result"]["rows"] if "result" in seen else len(seen["data"])
    assert 0 < journaled < KILL_AT * PER_PAGE

    done = await call(client, "interact", resume=cid, **request)
    assert done["status"] == "complete" and done.get("correlation_id") == (
        cid if "result" in done else None
    ), done
    assert done["metadata"]["resumed"]["from_page"] == journaled // PER_PAGE + 1
    rows = done["data"] if "result" not in done else await read_all(client, done["result"]["uri"])
    assert len(rows) == PAGES * PER_PAGE
    assert len({r["id"] for r in rows}) == len(rows), "no row twice"
    assert rows == catalogue.expected(), "every row once, in order"
    # From the site's own log: every page asked for, and at most one of them twice over both runs.
    asked = [page for page, _, _ in catalogue.log[mark:]]
    assert set(asked) == set(range(1, PAGES + 1))
    assert len(catalogue.twice(mark)) <= 1, catalogue.twice(mark)
