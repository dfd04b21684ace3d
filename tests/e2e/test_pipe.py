"""The pipe, end to end: MCP stdio client -> `tabpilot mcp` -> Unix socket -> native host -> extension
-> page, in real Chromium with the real extension and the host registered by the real installer; and
what comes back by itself when the browser, its host or the extension's process goes."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from selenium import webdriver

from tabpilot import paths
from tabpilot.link.client import BrowserPool
from tabpilot.wire.errors import ErrorCode
from tabpilot.wire.messages import HOST_TO_CHROME_MAX
from tests.support import browser, procnet
from tests.support.host import host_pool
from tests.support.mcp_client import call, call_error
from tests.support.popup import allow_scripts_on

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module", autouse=True)
def _scripts_allowed(chromium: browser.Chromium, site: Any) -> None:  # pyright: ignore[reportUnusedFunction]
    """The fixture pages hold a password field the page filled in; the agent's scripts on them run
    with the person's consent (given in the popup), as this module does not test that consent."""
    allow_scripts_on(chromium, site)


async def _host_info(env: dict[str, str]):  # -> BrowserInfo
    pool = BrowserPool(Path(env["TABPILOT_RUNTIME_DIR"]), connect_wait_s=10)
    try:
        for _ in range(200):
            infos = await pool.browsers()
            if infos:
                return infos[0]
            await asyncio.sleep(0.05)
        raise AssertionError("no host connected")
    finally:
        await pool.aclose()


async def test_status_tabs_navigate_execute_js(client: Client, site: str) -> None:
    status = await call(client, "configure", action="status")
    assert status["connected"] is True
    assert status["pilot_enabled"] is True
    [info] = status["browsers"]
    assert info["browser_name"] and info["browser_version"].startswith("1")
    assert status["versions"]["protocol"] == 1

    nav = await call(client, "interact", action="navigate", url=f"{site}/index.html")
    assert nav["url"] == f"{site}/index.html"
    assert nav["title"] == "TabPilot fixture"

    tabs = (await call(client, "observe", what="tabs"))["tabs"]
    active = [t for t in tabs if t["active"]]
    assert any(t["url"] == f"{site}/index.html" and t["title"] == "TabPilot fixture" for t in active)

    assert await call(client, "interact", action="execute_js", script="1 + 1") == {
        "success": True,
        "result": 2,
    }
    title = await call(client, "interact", action="execute_js", script="return document.title")
    assert title == {"success": True, "result": "TabPilot fixture"}
    thrown = await call(client, "interact", action="execute_js", script="throw new Error('boom')")
    assert thrown["success"] is False and "boom" in thrown["error"] and thrown["stack"]

    second = await call(
        client, "interact", action="navigate", url=f"{site}/second.html", tab_id=nav["tab_id"]
    )
    assert second["title"] == "Second fixture page"

    bad = await call_error(client, "interact", action="teleport")
    assert bad["error"] == ErrorCode.UNKNOWN_ACTION and "navigate" in bad["message"]


async def test_pilot_off_refuses_every_action(
    driver: webdriver.Chrome, module_client: Client, site: str
) -> None:
    client = module_client  # the module's bridge: this test needs no new one
    browser.set_pilot(driver, False)
    try:
        status = await call(client, "configure", action="status")
        assert status["connected"] is True and status["pilot_enabled"] is False
        for tool, args in [
            ("interact", {"action": "execute_js", "script": "1"}),
            ("interact", {"action": "navigate", "url": f"{site}/index.html"}),
            ("observe", {"what": "tabs"}),
        ]:
            err = await call_error(client, tool, **args)
            assert err["error"] == "ai_web_pilot_disabled"
            assert err["message"] == "Enable 'AI Web Pilot' in extension popup to use this tool"
    finally:
        browser.set_pilot(driver, True)


async def test_only_the_popup_can_switch_the_pilot_on(
    driver: webdriver.Chrome, module_client: Client
) -> None:
    client = module_client  # the module's bridge: this test needs no new one
    browser.set_pilot(driver, False)
    original = driver.current_window_handle
    driver.switch_to.new_window("tab")
    try:
        # Another document of the extension itself (not the popup) asks the worker to turn the pilot
        # on: any file of the extension opened in a tab is a document with the extension's powers.
        driver.get(f"{paths.EXTENSION_ORIGIN}popup.css")
        answer = driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "chrome.runtime.sendMessage({type: 'set_pilot', enabled: true}).then(done, e => done(String(e)));"
        )
    finally:
        driver.close()
        driver.switch_to.window(original)
    assert answer["ok"] is False
    try:
        assert (await call(client, "configure", action="status"))["pilot_enabled"] is False
        err = await call_error(client, "interact", action="execute_js", script="1")
        assert err["error"] == ErrorCode.AI_WEB_PILOT_DISABLED
    finally:
        browser.set_pilot(driver, True)


@pytest.mark.parametrize("size", [1024 * 1024 + 17, 9 * 1024 * 1024])
async def test_big_results_arrive_intact(client: Client, site: str, size: int) -> None:
    script = f"const s = 'abcdefghij'.repeat({size // 10 + 1}).slice(0, {size - 2}) + 'é😀'; return s"
    expected = ("abcdefghij" * (size // 10 + 1))[: size - 2] + "é😀"
    await call(client, "interact", action="navigate", url=f"{site}/index.html")
    result = await call(
        client, "interact", action="execute_js", script=script, max_result_bytes=32 * 1024 * 1024
    )
    assert result["success"] is True
    assert len(result["result"]) == len(expected)
    assert result["result"] == expected
    capped = await call_error(client, "interact", action="execute_js", script=script)
    assert capped["error"] == ErrorCode.RESULT_TOO_LARGE


async def test_killed_service_worker_comes_back(
    driver: webdriver.Chrome, client: Client, env: dict[str, str], site: str
) -> None:
    assert (await call(client, "interact", action="execute_js", script="40 + 2"))["result"] == 42
    before = await _host_info(env)
    browser.kill_service_worker(driver)
    # The next call, with no help from the test, reaches a revived worker and a new host.
    assert (await call(client, "interact", action="execute_js", script="40 + 3"))["result"] == 43
    after = await _host_info(env)
    assert after.instance_id == before.instance_id


async def test_no_tabpilot_process_holds_a_port(client: Client, env: dict[str, str], site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/index.html")
    await call(client, "interact", action="execute_js", script="1")
    host = await _host_info(env)
    bridges = procnet.pids_with_cmdline("tabpilot", "mcp")
    hosts = procnet.pids_with_cmdline("tabpilot", "native")
    assert host.pid in hosts
    assert bridges, "the bridge process is running"
    for pid in {*bridges, *hosts}:
        assert procnet.inet_sockets_of(pid) == [], f"TabPilot process {pid} holds an internet socket"


def test_socket_refuses_another_uid(driver: webdriver.Chrome, env: dict[str, str]) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to become another uid")
    run = Path(env["TABPILOT_RUNTIME_DIR"])
    [sock] = list(run.glob("*.sock"))
    assert run.stat().st_mode & 0o777 == 0o700 and sock.stat().st_mode & 0o777 == 0o600
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.setgid(65534)
            os.setuid(65534)
            s = socket.socket(socket.AF_UNIX)
            try:
                s.connect(str(sock))
                code = 2
            except PermissionError:
                code = 0
        finally:
            os.write(wfd, bytes([code]))
            os._exit(0)
    os.close(wfd)
    outcome = os.read(rfd, 1)
    os.close(rfd)
    os.waitpid(pid, 0)
    assert outcome == b"\0", "a process of another uid must be refused at connect (EACCES)"


async def test_browser_restart_and_crash_host_exits_and_bridge_reconnects(
    chromium: browser.Chromium, module_client: Client, env: dict[str, str], site: str
) -> None:
    client = module_client  # the module's bridge: this test needs no new one
    assert chromium.driver is not None
    browser.set_pilot(chromium.driver, True)
    await call(client, "interact", action="navigate", url=f"{site}/index.html")
    host = await _host_info(env)
    chromium.quit()
    browser.wait_until(lambda: not procnet.alive(host.pid), timeout_s=10, what="the host to exit")
    err = await call_error(client, "interact", action="execute_js", script="1")
    assert err["error"] == ErrorCode.EXTENSION_NOT_CONNECTED and "tabpilot" in err["message"]

    chromium.start()
    # Same MCP client, same bridge process: the next call finds the new host by itself.
    nav = await call(client, "interact", action="navigate", url=f"{site}/second.html")
    assert nav["title"] == "Second fixture page"
    assert (await call(client, "interact", action="execute_js", script="6 * 7"))["result"] == 42
    status = await call(client, "configure", action="status")
    assert status["connected"] is True and status["pilot_enabled"] is True
    second_host = await _host_info(env)
    assert second_host.pid != host.pid

    # A crash leaves nobody to kill the host: it must see EOF and exit by itself.
    chromium.crash()
    browser.wait_until(lambda: not procnet.alive(second_host.pid), timeout_s=10, what="the host to exit")
    chromium.start()
    assert (await call(client, "interact", action="navigate", url=f"{site}/index.html"))["title"]


@pytest.mark.parametrize("size", [HOST_TO_CHROME_MAX - 300, HOST_TO_CHROME_MAX + 300, 3 * HOST_TO_CHROME_MAX])
async def test_big_scripts_reach_the_page(client: Client, site: str, size: int) -> None:
    # Around the 1 MiB host -> Chrome limit: one frame below it, base64 chunks above it.
    filler = "é" * (size // 4) + "x" * (size - 2 * (size // 4))
    script = f"const s = '{filler}'; return [s.length, s.charCodeAt(0), s.endsWith('x')]"
    await call(client, "interact", action="navigate", url=f"{site}/index.html")
    result = await call(client, "interact", action="execute_js", script=script)
    assert result == {"success": True, "result": [len(filler), ord("é"), True]}


# A crashed extension process (the renderer that runs the service worker, killed as a crash or the
# OOM killer would) comes back by itself: the worker restarts, reconnects to a new host, and the
# agent's next calls succeed with nobody reloading anything.
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
