"""The agent can add redaction selectors through configure, never remove the user's; the list is in
force as of each document's start: what a page script changed before the list reached the page is
judged as it was (snapshot, extract, execute_js and OCR of the screenshot)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mcp import Client
from selenium import webdriver

from tabpilot import paths
from tabpilot.wire.errors import ErrorCode
from tests.e2e.test_secrets_pixels import shot
from tests.e2e.test_secrets_screenshot import norm
from tests.support import browser
from tests.support.mcp_client import call, call_error, payload
from tests.support.snap import snapshot

pytestmark = pytest.mark.anyio


EARLY_SECRETS = (
    "KILOFIRST4821",  # its element's class removed, its text replaced
    "LIMAVAULT7734",  # an ancestor's class removed (`.vault b`)
    "OSCARGONE5190",  # its element removed
    "PAPATEXT6602",  # its text node rewritten
    "QUEBECATTR3318",  # a value attribute changed
    "ROMEOCHILD2291",  # a field inside a marked element, its value changed
    "SIERRAMOVE8812",  # moved out of `.vault`
    "UNIFORMFRAME4410",  # in a frame, its element removed
)


@pytest.fixture(autouse=True)
def _list_reset(driver: webdriver.Chrome) -> Iterator[None]:  # pyright: ignore[reportUnusedFunction]
    """The agent's additions are removed after the test (only the person can, in the popup; here the
    test does it from an extension page), so later modules meet the defaults again."""
    yield
    here = driver.current_window_handle
    driver.switch_to.new_window("tab")
    try:
        driver.get(f"{paths.EXTENSION_ORIGIN}popup.css")
        driver.execute_async_script(
            "chrome.storage.local.remove('redactExtra').then(() => arguments[0](true));"
        )
    finally:
        driver.close()
        driver.switch_to.window(here)


async def test_added_selectors_are_redacted_everywhere(
    driver: webdriver.Chrome, client: Client, site: str
) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/private-note.html")
    assert "topsecret-note-42" in (await snapshot(client))["text"]

    out = await call(client, "configure", action="add_redaction", selectors=[".secret-x"])
    assert out["added"] == [".secret-x"]
    # The user's defaults stay in force: adding never replaces them.
    assert {"input[type=password]", "[data-sensitive]", ".secret-x"} <= set(out["selectors"])
    again = await call(client, "configure", action="add_redaction", selectors=[".secret-x"])
    assert again["added"] == []

    text = (await snapshot(client))["text"]
    assert "topsecret-note-42" not in text and "[REDACTED]" in text and "public text" in text
    rows = await call(
        client,
        "interact",
        action="scrape",
        operation="extract",
        selector="body",
        schema={"all": ":scope", "html": ":scope | html"},
    )
    assert "topsecret-note-42" not in str(rows) and "public text" in rows["data"][0]["all"]

    bad = await call_error(client, "configure", action="add_redaction", selectors=[])
    assert bad["error"] == ErrorCode.INVALID_PARAMS

    browser.set_pilot(driver, False)
    off = await call_error(client, "configure", action="add_redaction", selectors=[".x"])
    assert off["error"] == ErrorCode.AI_WEB_PILOT_DISABLED


async def _nothing_of_the_keys(client: Client, tab: int) -> None:
    """No channel shows a key the page copied before the list reached it."""
    text = (await snapshot(client, tab_id=tab))["text"]
    assert "VICTOR PUBLIC" in text and "one [REDACTED]" in text and "YANKEE FRAME" in text, text
    rows = await call(
        client,
        "interact",
        action="scrape",
        operation="extract",
        selector="main",
        tab_id=tab,
        schema={"text": ":scope", "html": ":scope | html"},
    )
    ran = await client.call_tool(
        "interact", {"action": "execute_js", "script": "document.body.innerText", "tab_id": tab}
    )
    seen, meta = await shot(client, tab)
    assert seen is not None, meta
    assert norm("WHISKEY VAULT") in seen, seen
    for secret in EARLY_SECRETS:
        assert secret not in text, (secret, text)
        assert secret not in str(rows), (secret, rows)
        assert secret not in str(payload(ran)), (secret, payload(ran))
        assert norm(secret[:8]) not in seen, (secret, seen)


async def test_the_list_is_decided_as_of_the_documents_start(
    client: Client, driver: webdriver.Chrome, site: str
) -> None:
    url = f"{site}/secrets/early_list.html"
    # Without the selectors the page's own script shows every key in plain paragraphs (the checks
    # below can fail).
    await call(client, "interact", action="navigate", url=url)
    plain = (await snapshot(client))["text"]
    assert all(s in plain for s in EARLY_SECRETS), plain
    # A default marker's copy in a frame is known to the top document's agent, which reads the frame.
    assert "XRAYDEFAULT7781" not in plain and "default [REDACTED]" in plain, plain

    await call(client, "configure", action="add_redaction", selectors=[".early-key", ".vault b"])
    # A page the person opens: no command of the agent is near it, only the guard from its start.
    here = driver.current_window_handle
    driver.switch_to.new_window("tab")
    try:
        driver.get(url)
        tabs = (await call(client, "observe", what="tabs"))["tabs"]
        [tab] = [t["id"] for t in tabs if t["url"] == url and t.get("active")]
        await _nothing_of_the_keys(client, tab)
    finally:
        driver.close()
        driver.switch_to.window(here)


SHADOW_SECRETS = (
    "KILOSHADOW1",  # in an open root the script attached: its class removed
    "LIMASHADOW2",  # in a closed root: an ancestor's class changed (`.vault b`)
    "TANGODECLARED3",  # in a root the markup declared: removed
    "MIKELOOSE4",  # in the root of a host not yet in the document: its class removed
    "NOVEMBERPW5",  # a password field in a root, shown as text (the defaults)
    "OSCARFRAME6",  # in a root attached by a fresh frame's attachShadow
)


async def test_changes_inside_shadow_roots_before_the_list_arrives_are_judged(
    client: Client, driver: webdriver.Chrome, site: str
) -> None:
    url = f"{site}/secrets/early_shadow.html"
    await call(client, "configure", action="add_redaction", selectors=[".early-key", ".vault b"])
    here = driver.current_window_handle
    driver.switch_to.new_window("tab")
    try:
        # A first load and a reload: the list reaches the page before or after its script ran (the
        # page agent judges the changes as they come, or as they were once it arrives).
        for _ in range(2):
            driver.get(url)
            await _nothing_in_the_shadows(client, url)
    finally:
        driver.close()
        driver.switch_to.window(here)


async def _nothing_in_the_shadows(client: Client, url: str) -> None:
    """No channel shows a key the page copied out of a shadow root before the list reached it."""
    tabs = (await call(client, "observe", what="tabs"))["tabs"]
    [tab] = [t["id"] for t in tabs if t["url"] == url and t.get("active")]
    text = (await snapshot(client, tab_id=tab))["text"]
    assert "VICTOR PUBLIC" in text and "one [REDACTED]" in text and "five [REDACTED]" in text, text
    rows = await call(
        client, "interact", action="scrape", operation="extract", selector="main", tab_id=tab,
        schema={"text": ":scope", "html": ":scope | html"},
    )  # fmt: skip
    ran = await client.call_tool(
        "interact", {"action": "execute_js", "script": "document.body.innerText", "tab_id": tab}
    )
    for secret in SHADOW_SECRETS:
        assert secret not in text, (secret, text)
        assert secret not in str(rows), (secret, rows)
        assert secret not in str(payload(ran)), (secret, payload(ran))
