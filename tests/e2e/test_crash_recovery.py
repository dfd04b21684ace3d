"""A crashed extension process (the renderer that runs the service worker, killed as a crash or the
OOM killer would) comes back by itself: the worker restarts, reconnects to a new host, and the
agent's next calls succeed with nobody reloading anything."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import anyio
import pytest
from selenium import webdriver

from tests.support import browser
from tests.support.host import host_pool
from tests.support.mcp_client import call, mcp_client

pytestmark = pytest.mark.anyio


def _extension_processes(chromium: browser.Chromium) -> list[int]:
    """Pids of this browser's extension renderer processes (`--extension-process` on the command line)."""
    children: dict[int, list[tuple[int, bytes]]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append((int(entry.name), cmdline))
    found: list[int] = []
    stack = [chromium.browser_pid()]
    while stack:
        for pid, cmdline in children.get(stack.pop(), []):
            stack.append(pid)
            # Chromium rewrites its processes' titles: one space-separated line, not NUL-separated.
            if b" --extension-process" in cmdline:
                found.append(pid)
    return found


async def test_a_killed_extension_process_comes_back(
    chromium: browser.Chromium, driver: webdriver.Chrome, env: dict[str, str], site: str
) -> None:
    browser.set_pilot(driver, True)
    async with mcp_client(env) as client:
        await call(client, "interact", action="navigate", url=f"{site}/index.html")
        assert (await call(client, "interact", action="execute_js", script="40 + 2"))["result"] == 42
        async with host_pool(env) as pool:
            before = (await pool.browsers())[0]
        [renderer] = _extension_processes(chromium)
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
        assert _extension_processes(chromium) not in ([], [renderer])
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
