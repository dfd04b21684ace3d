"""Scripts cannot carry secrets out, in real Chromium through the real MCP client: on a page holding
secrets the agent did not type (a password the page filled in, a token in a cell a script marks
sensitive, one in a field a script turns into a password), execute_js and script extractors are refused
with secrets_on_page, however the script would transform the value; a secret the agent typed itself
does not count; the person's "Allow the agent's scripts" in the popup, per site, lets them run, and
nothing but the popup can give that consent."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from selenium import webdriver

from tabpilot import paths
from tests.support import browser
from tests.support.logged import Logged, serve_logged
from tests.support.mcp_client import call, call_error
from tests.support.popup import by_id, opened

pytestmark = pytest.mark.anyio

SECRETS_ON_PAGE = "secrets_on_page"
TOKEN = "sk-live-QWERTY12345"

PAGES = {
    "/prefilled": f'<!doctype html><title>Prefilled</title><input type="password" id="pw" value="{TOKEN}">',
    "/late-sensitive": f"""<!doctype html><title>Late</title><table><tr><td id="t">{TOKEN}</td></tr></table>
        <script>const t = document.getElementById('t');
        setTimeout(() => t.setAttribute('data-sensitive', ''), 0)</script>""",
    "/made-password": f"""<!doctype html><title>Made</title><input id="k" value="{TOKEN}">
        <script>document.getElementById('k').type = 'password'</script>""",
    "/empty": '<!doctype html><title>Empty</title><input type="password" id="pw"><p id="p">plain</p>',
    "/plain": "<!doctype html><title>Plain</title><p id='p'>nothing secret</p>",
}

SCRIPTS = ["document.getElementById('p') ? 1 : 2", "btoa(document.querySelector('input,td').value || '')"]


@pytest.fixture(scope="module")
def pages() -> Iterator[Logged]:
    with serve_logged(PAGES) as served:
        yield served


def _allow_scripts(driver: webdriver.Chrome, allowed: bool) -> None:
    """Tick or untick "Allow the agent's scripts" in the popup, for the site of the test's tab."""
    with opened(driver):
        box = by_id(driver, "scripts-allow")
        if box.is_selected() != allowed:
            box.click()
        browser.wait_until(
            lambda: by_id(driver, "scripts-allow").is_selected() == allowed or None, what="consent"
        )


async def _refused(client: Any, tab: int) -> None:
    for script in SCRIPTS:
        err = await call_error(client, "interact", action="execute_js", script=script, tab_id=tab)
        assert err["error"] == SECRETS_ON_PAGE, err
        assert TOKEN not in str(err) and "popup" in err["message"]
    err = await call_error(
        client, "interact", action="scrape", operation="extract", script="return [{v: root.innerHTML}]"
    )
    assert err["error"] == SECRETS_ON_PAGE, err


@pytest.mark.parametrize("page", ["/prefilled", "/late-sensitive", "/made-password"])
async def test_scripts_are_refused_on_a_page_holding_secrets(client: Any, pages: Logged, page: str) -> None:
    nav = await call(client, "interact", action="navigate", url=f"{pages.url}{page}")
    if page == "/late-sensitive":
        await call(client, "interact", action="wait_for", selector="#t[data-sensitive]")
    await _refused(client, nav["tab_id"])


async def test_a_secret_the_agent_typed_and_a_plain_page_do_not_count(client: Any, pages: Logged) -> None:
    nav = await call(client, "interact", action="navigate", url=f"{pages.url}/empty")
    assert (await call(client, "interact", action="execute_js", script="1 + 1"))["result"] == 2
    await call(client, "interact", action="fill", selector="#pw", value="typed-by-agent")
    assert (await call(client, "interact", action="execute_js", script="1 + 2"))["result"] == 3
    # The page changing the typed value makes it the page's own.
    script = "document.getElementById('pw').value = 'page-changed'; 0"
    await call(client, "interact", action="execute_js", script=script, tab_id=nav["tab_id"])
    err = await call_error(client, "interact", action="execute_js", script="1", tab_id=nav["tab_id"])
    assert err["error"] == SECRETS_ON_PAGE
    await call(client, "interact", action="navigate", url=f"{pages.url}/plain")
    out = await call(client, "interact", action="scrape", operation="extract", script="return [{v: 1}]")
    assert out["data"] == [{"v": 1}]


async def test_the_popup_allows_scripts_per_site_and_nothing_else_can(
    driver: webdriver.Chrome, client: Any, pages: Logged
) -> None:
    nav = await call(client, "interact", action="navigate", url=f"{pages.url}/prefilled")
    await _refused(client, nav["tab_id"])
    _allow_scripts(driver, True)
    try:
        got = await call(client, "interact", action="execute_js", script="document.title")
        assert got["result"] == "Prefilled"
        # Another site (the same server under another name) is not covered by that consent.
        other = pages.url.replace("127.0.0.1", "localhost")
        nav2 = await call(client, "interact", action="navigate", url=f"{other}/prefilled")
        await _refused(client, nav2["tab_id"])
    finally:
        await call(client, "interact", action="navigate", url=f"{pages.url}/plain")
        _allow_scripts(driver, False)
    await call(client, "interact", action="navigate", url=f"{pages.url}/prefilled")
    await _refused(client, nav["tab_id"])

    # Another extension page and a page's content script cannot give consent.
    site = urlsplit(pages.url).netloc
    original = driver.current_window_handle
    driver.switch_to.new_window("tab")
    try:
        driver.get(f"{paths.EXTENSION_ORIGIN}popup.css")
        answer = driver.execute_async_script(
            """
            const done = arguments[arguments.length - 1];
            chrome.runtime.sendMessage({ type: 'set_script_consent', site: arguments[0], allowed: true })
              .then(done, (e) => done({ ok: false, error: String(e) }));
            """,
            site,
        )
    finally:
        driver.close()
        driver.switch_to.window(original)
    assert answer["ok"] is False
    await _refused(client, nav["tab_id"])
