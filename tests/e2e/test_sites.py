"""The sites the person allows, in real Chromium through the real MCP client: a call that would act on
or load a site outside them stops with site_not_allowed (a scrape keeps its rows), the popup shows the
request and its Allow button lets the retry through, patterns with wildcards and ports, nothing but
the popup changes the scope, and `browser launch --pilot --sites` sets it for a dedicated profile."""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

import anyio
import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By

from tabpilot import paths
from tabpilot.wire import messages as m
from tabpilot.wire.errors import ErrorCode
from tests.support import browser, procnet
from tests.support.host import call_error as host_call_error
from tests.support.host import host_pool
from tests.support.mcp_client import call, call_error, mcp_client, scrape_error
from tests.support.popup import allow_scripts_on, by_id, opened, set_sites, shown, sites

pytestmark = pytest.mark.anyio

SITE_NOT_ALLOWED = ErrorCode.SITE_NOT_ALLOWED


@pytest.fixture(scope="module", autouse=True)
def _scripts_allowed(chromium: browser.Chromium, site: Any) -> None:  # pyright: ignore[reportUnusedFunction]
    """The fixture pages hold a password field the page filled in; the agent's scripts on them run
    with the person's consent (given in the popup), as this module tests the scope, not that consent."""
    allow_scripts_on(chromium, site)


def _other(url: str) -> str:
    """The same test server under another name: another site."""
    return url.replace("127.0.0.1", "localhost")


def _netloc(url: str) -> str:
    return urlsplit(url).netloc


@pytest.fixture
def only_here(driver: webdriver.Chrome, site: str) -> Iterator[str]:
    """The pilot on for the test server's site only, set in the popup; every site again after."""
    browser.set_pilot(driver, True)
    set_sites(driver, only=[_netloc(site)])
    try:
        yield _netloc(site)
    finally:
        set_sites(driver, only=None)


@contextmanager
def redirect_to(target: str) -> Iterator[str]:
    """A server on 127.0.0.1 (another port) whose every page redirects (302) to `target`."""

    class Redirect(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(302)
            self.send_header("Location", target)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Redirect)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


async def _tab_urls(client: Any) -> list[str]:
    return [t["url"] for t in (await call(client, "observe", what="tabs"))["tabs"]]


async def _no_tab_on(client: Any, netloc: str) -> list[str]:
    """Wait (bounded) until no tab shows `netloc`: a stopped navigation is taken back after the refusal."""
    with anyio.fail_after(10):
        urls = await _tab_urls(client)
        while any(netloc in u for u in urls):
            await anyio.sleep(0.05)  # polling a condition, bounded above
            urls = await _tab_urls(client)
    return urls


async def test_navigating_outside_is_refused_and_allow_in_the_popup_lets_the_retry_through(
    driver: webdriver.Chrome, env: dict[str, str], site: str, only_here: str
) -> None:
    other = _other(site)
    async with mcp_client(env) as client:
        landed = await call(client, "interact", action="navigate", url=f"{site}/index.html")
        err = await call_error(client, "interact", action="navigate", url=f"{other}/second.html")
        assert err["error"] == SITE_NOT_ALLOWED and err["data"]["site"] == _netloc(other)
        assert _netloc(other) in err["message"] and '"Allow"' in err["message"]
        # Refused before loading: the tab still shows the allowed page.
        assert not any(_netloc(other) in u for u in await _tab_urls(client))

        with opened(driver):
            browser.wait_until(lambda: shown(driver, "site-request") or None, what="the request")
            assert by_id(driver, "site-request-name").text == _netloc(other)
            by_id(driver, "site-request-allow").click()
            browser.wait_until(lambda: _netloc(other) in sites(driver) or None, what="the site allowed")
            browser.wait_until(lambda: not shown(driver, "site-request") or None, what="the request gone")
            assert sites(driver) == [only_here, _netloc(other)]

        again = await call(
            client, "interact", action="navigate", url=f"{other}/second.html", tab_id=landed["tab_id"]
        )
        assert again["title"] == "Second fixture page"


async def test_a_scrape_that_pages_onto_another_site_stops_and_keeps_its_rows(
    driver: webdriver.Chrome, env: dict[str, str], site: str, only_here: str
) -> None:
    async with mcp_client(env) as client:
        await call(client, "interact", action="navigate", url=f"{site}/sites/list.html")
        out = await scrape_error(
            client,
            operation="extract",
            selector="table.orders tr",
            schema={"n": ".n"},
            options={"paginate": {"next_selector": "#next", "max_pages": 5, "delay_ms": 0}},
        )
        assert out["error"] == SITE_NOT_ALLOWED, out
        assert [r["n"] for r in out["data"]] == ["A-1", "A-2"]
        assert _netloc(_other(site)) in out["message"]


async def test_clicks_new_tabs_redirects_and_tabs_outside_are_stopped(
    driver: webdriver.Chrome, env: dict[str, str], site: str, only_here: str
) -> None:
    other = _other(site)
    async with mcp_client(env) as client:
        page = await call(client, "interact", action="navigate", url=f"{site}/sites/list.html")
        tab = page["tab_id"]
        for link in ("#away", "#newtab"):
            err = await call_error(client, "interact", action="click", selector=link, tab_id=tab)
            assert err["error"] == SITE_NOT_ALLOWED and err["data"]["site"] == _netloc(other), (link, err)
            # The tab stays on (or is taken back to) the allowed page; a tab opened elsewhere is closed.
            assert f"{site}/sites/list.html" in await _no_tab_on(client, _netloc(other))

        # A server redirect shows the other site only once the navigation commits.
        with redirect_to(f"{other}/second.html") as hop:
            set_sites(driver, only=[only_here, _netloc(hop)])
            err = await call_error(client, "interact", action="navigate", url=f"{hop}/go", tab_id=tab)
            assert err["error"] == SITE_NOT_ALLOWED and err["data"]["site"] == _netloc(other)
            await _no_tab_on(client, _netloc(other))

        # A tab the person opened on a site outside: nothing reads it or acts on it.
        original = driver.current_window_handle
        # Not Selenium's new_window: that tab's opener is the piloted tab, which makes it piloted too.
        target = driver.execute_cdp_cmd("Target.createTarget", {"url": f"{other}/index.html"})
        driver.switch_to.window(target["targetId"])
        try:
            browser.wait_until(lambda: driver.title == "TabPilot fixture" or None, what="the page")
            listed = (await call(client, "observe", what="tabs"))["tabs"]
            [seen] = [t for t in listed if _netloc(other) in t["url"]]
            # Listed by its site alone: its path and title belong to a site the pilot may not read.
            assert seen["url"] == f"{other}/" and seen["title"] == ""
            outside = seen["id"]
            for tool, args in [
                ("interact", {"action": "execute_js", "script": "document.title"}),
                ("observe", {"what": "page"}),
                ("interact", {"action": "screenshot"}),
                ("interact", {"action": "click", "selector": "a"}),
                ("interact", {"action": "close_tab"}),
            ]:
                err = await call_error(client, tool, tab_id=outside, **args)
                assert err["error"] == SITE_NOT_ALLOWED, (args, err)
            assert outside in [t["id"] for t in (await call(client, "observe", what="tabs"))["tabs"]]
        finally:
            driver.close()
            driver.switch_to.window(original)


async def test_wildcards_and_ports(driver: webdriver.Chrome, env: dict[str, str], site: str) -> None:
    port = urlsplit(site).port
    assert port is not None
    browser.set_pilot(driver, True)
    try:
        async with mcp_client(env) as client:
            # Chromium sends every *.localhost name to the loopback address: real subdomains, no DNS.
            set_sites(driver, only=["*.localhost"])
            for url in (f"http://a.localhost:{port}/index.html", f"http://localhost:{port}/second.html"):
                assert (await call(client, "interact", action="navigate", url=url))["url"] == url
            err = await call_error(client, "interact", action="navigate", url=f"{site}/index.html")
            assert err["error"] == SITE_NOT_ALLOWED and err["data"]["site"] == _netloc(site)

            set_sites(driver, only=[f"127.0.0.1:{port + 1 if port < 65535 else port - 1}"])
            err = await call_error(client, "interact", action="navigate", url=f"{site}/index.html")
            assert err["error"] == SITE_NOT_ALLOWED
            set_sites(driver, only=["127.0.0.1"])  # no port: any port
            assert (await call(client, "interact", action="navigate", url=f"{site}/index.html"))["title"]
    finally:
        set_sites(driver, only=None)


class SetSites(m.Command, tag="set_sites"):
    """What the popup asks the worker; sent here over the native port instead."""

    all: bool = True


async def test_the_agent_the_host_and_pages_cannot_change_the_scope(
    driver: webdriver.Chrome, env: dict[str, str], site: str, only_here: str
) -> None:
    other = f"{_other(site)}/index.html"
    driver.get(f"{site}/index.html")
    original = driver.current_window_handle
    driver.switch_to.new_window("tab")
    try:
        # Another page of the extension (not the popup), and a content script in a web page.
        driver.get(f"{paths.EXTENSION_ORIGIN}popup.css")
        answers = driver.execute_async_script(
            """
            const done = arguments[arguments.length - 1];
            const ask = (msg) => chrome.runtime.sendMessage(msg)
              .catch((e) => ({ ok: false, error: String(e) }));
            (async () => {
              const page = await ask({ type: 'set_sites', all: true });
              const pilot = await ask({ type: 'set_pilot', enabled: true, scope: { all: true } });
              const [tab] = (await chrome.tabs.query({})).filter((t) => (t.url || '').startsWith('http'));
              const [fromScript] = await chrome.scripting.executeScript({
                target: { tabId: tab.id },
                func: async () => {
                  const asked = await chrome.runtime.sendMessage({ type: 'set_sites', all: true })
                    .catch((e) => ({ ok: false, error: String(e) }));
                  let stored;
                  try {
                    await chrome.storage.local.set({ sites: { all: true, sites: [] } });
                    stored = 'written';
                  } catch (e) {
                    stored = String(e);
                  }
                  return { asked, stored };
                },
              });
              done({ page, pilot, script: fromScript.result });
            })();
            """
        )
    finally:
        driver.close()
        driver.switch_to.window(original)
    assert answers["page"]["ok"] is False and answers["pilot"]["ok"] is False
    assert answers["script"]["asked"]["ok"] is False and answers["script"]["stored"] != "written"

    async with host_pool(env) as pool:
        refused = await host_call_error(pool, SetSites(id=0))
        assert refused.code == ErrorCode.UNKNOWN_COMMAND
    async with mcp_client(env) as client:
        unknown = await call_error(client, "configure", action="set_sites")
        assert unknown["error"] == ErrorCode.UNKNOWN_ACTION
        # The page's own scripts cannot reach the worker at all.
        reach = await call(
            client,
            "interact",
            action="execute_js",
            script="typeof chrome === 'undefined' || typeof chrome.runtime?.sendMessage",
        )
        assert reach["result"] in (True, "undefined"), reach
        err = await call_error(client, "interact", action="navigate", url=other)
        assert err["error"] == SITE_NOT_ALLOWED
    with opened(driver):
        assert sites(driver) == [only_here]
        assert driver.find_element(By.TAG_NAME, "body").get_attribute("data-scope") == "only"


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tabpilot.cli", *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=90,
    )


async def test_launch_with_sites_sets_the_scope_and_a_relaunch_with_no_pilot_turns_it_off(
    env: dict[str, str], site: str
) -> None:
    bad = _cli(env, "browser", "launch", "--profile", "scoped", "--headless", "--pilot", "--sites", "a b")
    assert bad.returncode != 0 and f"[{ErrorCode.INVALID_PARAMS}]" in bad.stderr

    launch = ["browser", "launch", "--profile", "scoped", "--headless", "--detach"]
    try:
        started = _cli(env, *launch, "--pilot", "--sites", _netloc(site))
        assert started.returncode == 0, started.stderr
        instance = json.loads(started.stdout)["instance_id"]
        async with mcp_client(env) as client:
            status = await call(client, "configure", action="status", browser=instance)
            assert status["pilot_enabled"] is True
            url = f"{site}/index.html"
            assert (await call(client, "interact", action="navigate", url=url, browser=instance))[
                "url"
            ] == url
            err = await call_error(
                client, "interact", action="navigate", url=f"{_other(site)}/index.html", browser=instance
            )
            assert err["error"] == SITE_NOT_ALLOWED
        async with host_pool(env) as pool:
            # The extension's status names the sites (null: every site), for `tabpilot status`.
            assert (await pool.call(m.GetStatus(id=0), browser=instance))["sites"] == [_netloc(site)]
        shown = _cli(env, "status", "--json")
        assert shown.returncode == 0, shown.stderr
        (listed,) = [b for b in json.loads(shown.stdout)["browsers"] if b["instance_id"] == instance]
        assert listed["pilot"] is True and listed["sites"] == [_netloc(site)]
        assert f"sites: {_netloc(site)}" in _cli(env, "status").stdout
        assert _cli(env, "browser", "stop", "--profile", "scoped").returncode == 0

        # A plain relaunch keeps the person's last choice; --no-pilot is how they take it back.
        again = _cli(env, *launch, "--no-pilot")
        assert again.returncode == 0, again.stderr
        async with mcp_client(env) as client:
            status = await call(client, "configure", action="status", browser=instance)
            assert status["pilot_enabled"] is False
            err = await call_error(client, "interact", action="navigate", url=url, browser=instance)
            assert err["error"] == ErrorCode.AI_WEB_PILOT_DISABLED
    finally:
        _cli(env, "browser", "stop", "--profile", "scoped")
    assert not procnet.pids_with_cmdline(f"{env['TABPILOT_DATA_DIR']}/profiles/scoped", "--user-data-dir")


async def test_narrowing_the_sites_stops_a_command_at_work_on_a_site_left_out(
    driver: webdriver.Chrome, env: dict[str, str], site: str, only_here: str
) -> None:
    other = _netloc(_other(site))
    async with mcp_client(env) as client:
        page = await call(client, "interact", action="navigate", url=f"{site}/index.html")
        outcome: dict[str, Any] = {}
        async with anyio.create_task_group() as tg:

            async def slow() -> None:
                outcome.update(
                    await call_error(
                        client,
                        "interact",
                        action="execute_js",
                        script="await new Promise((r) => setTimeout(r, 20000)); return 1",
                        tab_id=page["tab_id"],
                        timeout_ms=25000,
                    )
                )

            tg.start_soon(slow)

            def badge() -> str:
                return driver.execute_async_script(
                    "const done = arguments[arguments.length - 1]; chrome.action.getBadgeText({}).then(done);"
                )

            with opened(driver):
                # The badge says the command is at work; then the person leaves only another site.
                await anyio.to_thread.run_sync(
                    lambda: browser.wait_until(lambda: badge() == "AI" or None, what="the command at work")
                )
            with anyio.fail_after(15):  # well before the script's own 20 s
                await anyio.to_thread.run_sync(lambda: set_sites(driver, only=[other]))
                while not outcome:
                    await anyio.sleep(0.05)  # polling the task's result, bounded above
        assert outcome["error"] == SITE_NOT_ALLOWED and outcome["data"]["site"] == only_here
