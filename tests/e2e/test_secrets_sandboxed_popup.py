"""A page its server sandboxes (`Content-Security-Policy: sandbox allow-same-origin`) runs no script of
its own, so no page-world hook either, yet the same-origin page that opened it in a window reaches
into it: that page's script copies the window's secrets out and unmarks them (a password shown as
text, a password in a closed root attached by the window's own attachShadow shown as text). The
opened tab's snapshot shows neither. Real Chromium, the real MCP client, the person's click opening
the window through WebDriver."""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import pytest
from mcp import Client
from selenium import webdriver
from selenium.webdriver.common.by import By

from tests.support import browser
from tests.support.logged import Logged, serve_logged
from tests.support.mcp_client import call

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("pilot_on")]

SECRETS = ("OSCARBOXED1", "PAPABOXEDROOT2")

OPENER = """<!doctype html><title>Opener</title><button id="pop">open</button><script>
  // Once the window shows its page, its secrets are copied out and unmarked from here.
  const act = (d) => {
    const $ = (id) => d.getElementById(id);
    $('c1').textContent = `one ${$('pw').value}`;
    $('pw').type = 'text';
    const root = $('h').attachShadow({ mode: 'closed' });
    root.innerHTML = '<input type="password" value="PAPABOXEDROOT2">';
    $('c2').textContent = `two ${root.firstChild.value}`;
    root.firstChild.type = 'text';
    $('done').textContent = 'SIERRA DONE';
  };
  document.getElementById('pop').onclick = () => {
    const w = window.open('/boxed', 'boxed');
    const wait = setInterval(() => {
      const d = w.document;
      if (d.readyState === 'complete' && d.getElementById('pw')) {
        clearInterval(wait);
        act(d);
      }
    }, 10);
  };
</script>"""
BOXED = """<!doctype html><title>Boxed</title><p>TANGO BOXED</p>
<input type="password" id="pw" value="OSCARBOXED1"><p id="c1"></p><p id="c2"></p><div id="h"></div>
<p id="done"></p>"""


@pytest.fixture
def site() -> Iterator[Logged]:
    with serve_logged({"/opener": OPENER, "/boxed": BOXED}) as s:
        yield s


async def test_a_sandboxed_window_its_opener_reaches_keeps_its_secrets(
    client: Client, driver: webdriver.Chrome, site: Logged
) -> None:
    await call(client, "interact", action="navigate", url=f"{site.url}/opener")
    # From now on the server sandboxes what it serves: the window's page, not the opener's.
    site.headers["Content-Security-Policy"] = "sandbox allow-same-origin"
    here = driver.current_window_handle
    try:
        browser.wait_until(lambda: _show(driver, f"{site.url}/opener"), what="the opener's window")
        driver.find_element(By.ID, "pop").click()  # the person opens the window
    finally:
        driver.switch_to.window(here)
    tab = None
    with anyio.fail_after(10):
        while tab is None:
            tabs = (await call(client, "observe", what="tabs"))["tabs"]
            tab = next((t["id"] for t in tabs if t["url"] == f"{site.url}/boxed"), None)
            if tab is None:
                await anyio.sleep(0.05)  # polling a condition, bounded above
    await call(client, "interact", action="wait_for", text="SIERRA DONE", tab_id=tab, timeout_ms=5000)
    text = (await call(client, "observe", what="page", tab_id=tab))["text"]
    for shown in ("TANGO BOXED", "one [REDACTED]", "two [REDACTED]"):
        assert shown in text, (shown, text)
    for secret in SECRETS:
        assert secret not in text, (secret, text)
    # The window the person opened is theirs to close.
    _show(driver, f"{site.url}/boxed")
    driver.close()
    driver.switch_to.window(here)


def _show(driver: webdriver.Chrome, url: str) -> bool | None:
    for handle in driver.window_handles:
        driver.switch_to.window(handle)
        if driver.current_url == url:
            return True
    return None
