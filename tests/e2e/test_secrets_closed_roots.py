"""Closed shadow roots are read as open ones are: the agent gets the text and controls a page shows in
them (snapshot, extract), redacted where secret, and can act on them by ref; a password the person
typed into a field in a closed root counts as a secret the page holds (scripts need the person's
consent), though the page keeps a reference to the root where a script could find it. Real Chromium,
the real MCP client."""

from __future__ import annotations

import pytest
from mcp import Client
from selenium import webdriver
from selenium.webdriver.common.action_chains import ActionChains

from tabpilot.wire.errors import ErrorCode
from tests.support.mcp_client import call, call_error, scrape
from tests.support.snap import ref

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("pilot_on")]


async def test_closed_roots_are_read_redacted_and_acted_on(client: Client, site: str) -> None:
    tab = (await call(client, "interact", action="navigate", url=f"{site}/secrets/closed_roots.html"))[
        "tab_id"
    ]
    text = (await call(client, "observe", what="page", tab_id=tab))["text"]
    assert "GOLF CARD" in text and "closed text JULIETPLAIN" in text and "key [REDACTED]" in text, text
    assert "Lima two" in text and "VICTOR PUBLIC" in text, text
    assert "HOTELSECRET7" not in text and "MIKEPRIVATE" not in text, text
    await call(client, "interact", action="click", ref=ref(text, "button", "More"), tab_id=tab)
    assert "KILOCLICKED" in (await call(client, "observe", what="page", tab_id=tab))["text"]
    rows = await scrape(
        client, operation="extract", selector="div.item", tab_id=tab,
        schema={"name": ".name", "code": ".code", "html": ".code | html"},
    )  # fmt: skip
    assert [r["name"] for r in rows["data"]] == ["Lima one", "Lima two", "Lima three"], rows
    assert "MIKEPRIVATE" not in str(rows) and all(r["code"] == "[REDACTED]" for r in rows["data"]), rows


async def test_a_password_typed_in_a_closed_root_needs_consent_for_scripts(
    client: Client, driver: webdriver.Chrome, site: str
) -> None:
    url = f"{site}/secrets/closed_login.html"
    tab = (await call(client, "interact", action="navigate", url=url))["tab_id"]
    assert await call(client, "interact", action="execute_js", script="1 + 1", tab_id=tab) is not None
    # The person types their password into the field in the closed root.
    driver.switch_to.window(next(h for h in driver.window_handles if _shows(driver, h, url)))
    driver.execute_script("window.roots.login.getElementById('pw').focus()")
    ActionChains(driver).send_keys("NOVEMBERTYPED9").perform()
    out = await call_error(
        client, "interact", action="execute_js", tab_id=tab,
        script="[...window.roots.login.getElementById('pw').value].reverse().join('')",
    )  # fmt: skip
    assert out["error"] == ErrorCode.SECRETS_ON_PAGE, out
    assert "9DEPYTREBMEVON" not in str(out), out
    text = (await call(client, "observe", what="page", tab_id=tab))["text"]
    assert "NOVEMBERTYPED9" not in text and "password" in text, text


def _shows(driver: webdriver.Chrome, handle: str, url: str) -> bool:
    driver.switch_to.window(handle)
    return driver.current_url == url


async def test_a_closed_root_declared_on_any_kind_of_host_is_read_redacted(client: Client, site: str) -> None:
    """Only some elements can host a shadow root; the page agent looks for roots on those alone, and
    misses none of them (declared in the markup: no page script tells of them)."""
    url = f"{site}/secrets/declared_hosts.html"
    tab = (await call(client, "interact", action="navigate", url=url))["tab_id"]
    text = (await call(client, "observe", what="page", tab_id=tab))["text"]
    hosts = ["article", "aside", "blockquote", "div", "footer", *[f"h{k}" for k in range(1, 7)], "header"]
    hosts += ["main", "nav", "p", "section", "span", "x-card"]
    for host in hosts:
        assert f"SHOWN {host.upper()}" in text, (host, text)
    assert "ZULUKEY" not in text and text.count("[REDACTED]") == len(hosts), text
