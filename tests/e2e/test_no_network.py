"""No network from TabPilot: the browser's own NetLog (every URL request and TCP connect the browser
makes, the extension's included) shows no traffic but the test pages the agent asked for.

This browser is started by TabPilot's own dedicated-profile launcher (pilot opted in by the launch
config), through a wrapper that adds --log-net-log: chromedriver drops that flag."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tabpilot.browser.launch import LaunchedBrowser, launch_profile
from tabpilot.paths import EXTENSION_ORIGIN
from tests.support import browser
from tests.support.mcp_client import call, mcp_client

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def netlog(env: dict[str, str]) -> Path:
    return Path(env["TABPILOT_TEST_BASE"]) / "netlog.json"


@pytest.fixture(scope="module")
def launched(
    env: dict[str, str], netlog: Path, monkeypatch_module: pytest.MonkeyPatch
) -> Iterator[LaunchedBrowser]:
    for key, value in env.items():
        monkeypatch_module.setenv(key, value)
    wrapper = netlog.with_name("chromium-netlog")
    wrapper.write_text(
        f'#!/bin/sh\nexec {browser.CHROMIUM} --log-net-log={netlog} --net-log-capture-mode=Default "$@"\n'
    )
    wrapper.chmod(0o755)
    handle = launch_profile("netcheck", headless=True, pilot=True, browser_binary=str(wrapper))
    try:
        yield handle
    finally:
        handle.stop()


@pytest.fixture(scope="module")
def monkeypatch_module() -> Iterator[pytest.MonkeyPatch]:
    with pytest.MonkeyPatch.context() as mp:
        yield mp


def _load(netlog: Path) -> dict[str, Any]:
    text = netlog.read_text()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        # A browser ended by a signal leaves the events array open, as Chromium's viewer tolerates.
        return json.loads(text.rstrip().rstrip(",") + "]}")


def _requests(netlog: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """URL requests (url, initiator, type) and addresses connected to, from a NetLog file."""
    log = _load(netlog)
    types = {v: k for k, v in log["constants"]["logEventTypes"].items()}
    requests: list[dict[str, Any]] = []
    connects: list[str] = []
    for event in log["events"]:
        kind = types.get(event["type"])
        params = event.get("params", {})
        if kind == "URL_REQUEST_START_JOB" and "url" in params:
            requests.append(params)
        # UDP "connects" are left out: the resolver connects a UDP socket to each address it sorts
        # (RFC 6724 source selection), which sends nothing.
        elif kind == "TCP_CONNECT_ATTEMPT":
            connects.append(params.get("address", ""))
    return requests, connects


def _loopback(netloc: str) -> bool:
    host = netloc.rsplit(":", 1)[0].strip("[]")
    return host == "localhost" or host.startswith("127.") or host == "::1"


async def test_extension_makes_no_network_request(
    launched: LaunchedBrowser, env: dict[str, str], site: str, netlog: Path
) -> None:
    # A page holding no secret: a script runs there without the person's consent, which this
    # browser (TabPilot's own launcher, no test driver) has no popup click to give.
    page = f"{site}/second.html"
    async with mcp_client(env) as client:
        status = await call(client, "configure", action="status")
        assert status["pilot_enabled"] is True
        await call(client, "interact", action="navigate", url=page)
        await call(client, "observe", what="tabs")
        assert (await call(client, "interact", action="execute_js", script="1 + 1"))["result"] == 2
    launched.stop()  # the NetLog is complete once the browser has exited

    requests, connects = _requests(netlog)
    ours = [r for r in requests if r.get("initiator", "").startswith(EXTENSION_ORIGIN.rstrip("/"))]
    # The extension's only request is the page load the agent asked for: no polling, no fetch.
    assert [(r["url"], r["request_type"]) for r in ours] == [(page, "main frame")]
    site_netloc = urlsplit(site).netloc
    loopback_urls = {r["url"] for r in requests if _loopback(urlsplit(r["url"]).netloc)}
    assert loopback_urls <= {page, f"{site}/favicon.ico"}, loopback_urls
    loopback_connects = {c for c in connects if _loopback(c)}
    assert loopback_connects <= {site_netloc}, loopback_connects
