"""A password field shown in clear ("show password") before the agent's first command stays a secret:
the page flips it on load, the person flips it with a click before the agent reads the page, or the page
flips it while its document is still parsing (then its name, id or autocomplete say password). Read
through every text channel and a screenshot (OCR), in real Chromium through the real MCP client."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from mcp import Client
from mcp.types import ImageContent
from selenium import webdriver
from selenium.webdriver.common.by import By

from tests.e2e.test_secrets_screenshot import norm, ocr
from tests.support import browser
from tests.support.mcp_client import call, mcp_client, scrape
from tests.support.popup import allow_scripts_on

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("pilot_on")]


@pytest.fixture(scope="module", autouse=True)
def _scripts_allowed(chromium: browser.Chromium, site: Any) -> None:  # pyright: ignore[reportUnusedFunction]
    """Pages here hold secrets on purpose; the agent's scripts on them run with the person's consent
    (given in the popup), so what is tested is what those scripts can still see."""
    allow_scripts_on(chromium, site)


@contextmanager
def own_tab(driver: webdriver.Chrome) -> Iterator[None]:
    """A fresh tab in front for the block (the one the agent's commands without tab_id go to)."""
    original = driver.current_window_handle
    driver.switch_to.new_window("tab")
    try:
        yield
    finally:
        driver.close()
        driver.switch_to.window(original)


async def read_everything(
    client: Client, tab_id: int, secrets: tuple[str, ...], *, script: bool = False
) -> dict[str, Any]:
    """The page through snapshot, markdown, extract and suggest (and with `script`, an execute_js that
    reads the fields: its scrub knows password fields by their name, id or autocomplete, not by what the
    page agent saw); none may hold a secret."""
    outs: dict[str, Any] = {
        "snapshot": await call(client, "observe", what="page", tab_id=tab_id),
        "markdown": await call(client, "observe", what="page", format="markdown", tab_id=tab_id),
        "extract": await scrape(
            client,
            operation="extract",
            selector="form",
            schema={"fields": "input | all", "html": ":scope | html", "value": "input | attr:value"},
            tab_id=tab_id,
        ),
        "suggest": await call(client, "interact", action="scrape", operation="suggest", tab_id=tab_id),
    }
    if script:
        outs["execute_js"] = await call(
            client,
            "interact",
            action="execute_js",
            script="return [...document.querySelectorAll('input')].map((i) => [i.type, i.value])",
            tab_id=tab_id,
        )
    for what, out in outs.items():
        for secret in secrets:
            assert secret not in str(out), f"{secret} leaked through {what}:\n{out}"
    return outs


async def test_a_field_the_page_shows_on_load_stays_secret(
    driver: webdriver.Chrome, client: Client, site: str
) -> None:
    page = await call(client, "interact", action="navigate", url=f"{site}/secrets/flip_load.html")
    tab = page["tab_id"]
    kind = await call(
        client,
        "interact",
        action="execute_js",
        script="return document.getElementById('pin').type",
        tab_id=tab,
    )
    assert kind["result"] == "text"  # the page has shown it: nothing says "password" any more
    outs = await read_everything(client, tab, ("SECRETFLIPLOAD1aaaa",))
    assert 'textbox "PIN" = [REDACTED]' in outs["snapshot"]["text"]
    assert "the vault opens at nine" in outs["snapshot"]["text"]


async def test_a_field_the_person_shows_before_the_first_command_stays_secret(
    driver: webdriver.Chrome, env: dict[str, str], site: str
) -> None:
    url = f"{site}/secrets/flip_click.html"
    with own_tab(driver):
        async with mcp_client(env) as client:
            page = await call(client, "interact", action="navigate", url=url)
            assert driver.current_url == url  # the agent's tab is the one in front
            # The person presses the eye button before the agent has read anything.
            driver.find_element(By.ID, "show").click()
            assert driver.execute_script("return document.getElementById('code').type") == "text"
            outs = await read_everything(client, page["tab_id"], ("KILO LIMA MIKE", "KILO", "MIKE"))
            assert 'textbox "Code" = [REDACTED]' in outs["snapshot"]["text"]

            result = await client.call_tool(
                "interact",
                {"action": "screenshot", "format": "png", "max_width": 1920, "tab_id": page["tab_id"]},
            )
            assert not result.is_error
            [image] = [c for c in result.content if isinstance(c, ImageContent)]
            text = ocr(base64.b64decode(image.data))
            assert norm("NOVEMBER OSCAR") in text, f"OCR did not read the heading:\n{text}"
            for secret in ("KILO", "LIMA", "MIKE"):
                assert norm(secret) not in text, f"{secret} readable in the screenshot:\n{text}"


async def test_a_field_shown_before_the_agent_arrives_is_known_by_its_name(
    driver: webdriver.Chrome, env: dict[str, str], site: str
) -> None:
    url = f"{site}/secrets/flip_early.html"
    secrets = ("SECRETEARLYA1aaaa", "SECRETEARLYB2bbbb", "SECRETEARLYC3cccc")
    with own_tab(driver):
        # The person opened this page: the agent arrives with its first command, after the flip.
        driver.get(url)
        async with mcp_client(env) as client:
            tabs = await call(client, "observe", what="tabs")
            [tab] = [t["id"] for t in tabs["tabs"] if t["url"] == url]
            outs = await read_everything(client, tab, secrets, script=True)
            text = outs["snapshot"]["text"]
            for label in ("Password", "Old", "New"):
                assert f'textbox "{label}" = [REDACTED]' in text, text
            assert "PUBLICPASSPORT77" in text  # a name that merely starts like one is no password
