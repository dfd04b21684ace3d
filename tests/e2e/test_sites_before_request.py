"""Scope before the request, in real Chromium through the real MCP client: with "only these sites", a
link the agent clicks, a form post, a server redirect, a script's location.href and a link opening a
new tab, each to a site outside, stop with site_not_allowed naming that site, and the site outside
never gets a request (so no cookie and no page script of it ran)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import anyio
import pytest
from selenium import webdriver

from tests.support.logged import Logged, serve_logged
from tests.support.mcp_client import call, mcp_client, payload
from tests.support.popup import only_site_of

pytestmark = pytest.mark.anyio

SITE_NOT_ALLOWED = "site_not_allowed"


@pytest.fixture(scope="module")
def outside() -> Iterator[Logged]:
    """Another site (another port): every request it gets is logged."""
    with serve_logged(
        {"/landed": "<!doctype html><title>Outside</title><script>document.cookie='ran=1'</script>"}
    ) as s:
        yield s


@pytest.fixture(scope="module")
def inside(outside: Logged) -> Iterator[Logged]:
    """The allowed site: a page whose every control leads outside, and a path that redirects there."""
    away = f"{outside.url}/landed"
    start = f"""<!doctype html><title>Start</title>
      <a id="away" href="{away}?via=link">away</a>
      <a id="newtab" href="{away}?via=newtab" target="_blank">new tab</a>
      <form id="f" method="post" action="{away}?via=form">
        <input name="q" value="1"><button id="go">go</button></form>
      <a id="hop" href="/hop">hop</a>"""
    with serve_logged({"/start": start}, {"/hop": f"{away}?via=redirect"}) as s:
        yield s


@pytest.fixture
def only_inside(driver: webdriver.Chrome, inside: Logged) -> Iterator[None]:
    with only_site_of(driver, inside.url):
        yield


async def _back_inside(client: Any, tab: int, inside: Logged) -> None:
    """Wait (bounded) until the tab shows the allowed site again (a stopped load is taken back)."""
    with anyio.fail_after(10):
        while True:
            tabs = (await call(client, "observe", what="tabs"))["tabs"]
            [shown] = [t["url"] for t in tabs if t["id"] == tab]
            if shown.startswith(inside.url):
                return
            await anyio.sleep(0.05)  # polling a condition, bounded above


@pytest.mark.parametrize(
    ("how", "args"),
    [
        ("link", {"action": "click", "selector": "#away"}),
        ("form", {"action": "click", "selector": "#go"}),
        ("redirect", {"action": "click", "selector": "#hop"}),
        ("newtab", {"action": "click", "selector": "#newtab"}),
        (
            "script",
            {"action": "execute_js", "script": "location.href = document.querySelector('#away').href"},
        ),
    ],
)
async def test_a_load_outside_is_stopped_before_its_request(
    env: dict[str, str],
    only_inside: None,
    inside: Logged,
    outside: Logged,
    how: str,
    args: dict[str, Any],
) -> None:
    async with mcp_client(env) as client:
        tab = (await call(client, "interact", action="navigate", url=f"{inside.url}/start"))["tab_id"]
        before = len(outside.seen())
        result = await client.call_tool("interact", {**args, "tab_id": tab})
        data = payload(result)
        # A script's location.href may start loading only after the script has answered; then the
        # load is still blocked, and the refusal shows in the popup and on the tab's next command.
        if how != "script" or result.is_error:
            assert result.is_error, (how, data)
            assert data["error"] == SITE_NOT_ALLOWED, (how, data)
            assert data["data"]["site"] == urlsplit(outside.url).netloc, (how, data)
        await _back_inside(client, tab, inside)
        # The refused load never reached the other site: no request, no cookie, no script of it. (Chrome
        # may still show its "blocked" page under the other site's address in the tab for a moment after
        # the tab was taken back; what matters is that nothing of the site was loaded.)
        assert outside.seen()[before:] == [], how
        tabs = (await call(client, "observe", what="tabs"))["tabs"]
        assert not any(t["title"] == "Outside" for t in tabs), (tab, tabs)
