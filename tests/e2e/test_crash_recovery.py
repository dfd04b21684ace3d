"""A crashed extension process (the renderer that runs the service worker, killed as a crash or the
OOM killer would) comes back by itself: the worker restarts, reconnects to a new host, and the
agent's next calls succeed with nobody reloading anything."""

from __future__ import annotations

import os
import signal
from typing import Any

import anyio
import pytest
from mcp import Client

from tests.support import browser, procnet
from tests.support.host import host_pool
from tests.support.mcp_client import call
from tests.support.popup import allow_scripts_on

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module", autouse=True)
def _scripts_allowed(chromium: browser.Chromium, site: Any) -> None:  # pyright: ignore[reportUnusedFunction]
    """The fixture pages hold a password field the page filled in; the agent's scripts on them run
    with the person's consent (given in the popup), as this module does not test that consent."""
    allow_scripts_on(chromium, site)


async def test_a_killed_extension_process_comes_back(
    chromium: browser.Chromium, client: Client, env: dict[str, str], site: str
) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/index.html")
    assert (await call(client, "interact", action="execute_js", script="40 + 2"))["result"] == 42
    async with host_pool(env) as pool:
        before = (await pool.browsers())[0]
    [renderer] = procnet.extension_processes(chromium.browser_pid())
    os.kill(renderer, signal.SIGKILL)
    # The old host sees EOF and exits; wait for that, so the next call cannot reach it.
    with anyio.fail_after(10):
        while _alive(before.pid):
            await anyio.sleep(0.05)
    # No retry: the bridge gives a host that just went a few seconds to come back.
    assert (await call(client, "interact", action="execute_js", script="40 + 3"))["result"] == 43
    async with host_pool(env) as pool:
        after = (await pool.browsers())[0]
    assert after.instance_id == before.instance_id and after.pid != before.pid
    assert after.pilot is True, "the toggle survives: it lives in the extension's storage"
    assert procnet.extension_processes(chromium.browser_pid()) not in ([], [renderer])
    # The host's engine answers again too, not only the extension's commands.
    scraped = await call(
        client, "interact", action="scrape", operation="extract", selector="body", schema={"t": ":scope"}
    )
    assert scraped["status"] == "complete" and len(scraped["data"]) == 1


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie has exited: its parent (the browser) has not reaped it yet.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
