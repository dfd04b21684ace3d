"""Element actions end to end on a form with every input kind: what each changes in the page and which
events the page sees, through the real MCP client in real Chromium."""

from __future__ import annotations

import json

import pytest
from mcp import Client
from selenium import webdriver

from tests.support import browser
from tests.support.mcp_client import call, mcp_client
from tests.support.snap import js, ref, snapshot

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def _pilot_on(driver: webdriver.Chrome) -> None:
    browser.set_pilot(driver, True)


async def _form(client: Client, site: str) -> str:
    await call(client, "interact", action="navigate", url=f"{site}/form.html")
    return (await snapshot(client))["text"]


async def _input_events(client: Client) -> dict[str, int]:
    raw = await js(client, "document.getElementById('events').dataset.counts || '{}'")
    return json.loads(raw)


async def test_fill_every_kind_of_field(env: dict[str, str], site: str) -> None:
    async with mcp_client(env) as client:
        text = await _form(client, site)
        fills = {
            ("textbox", "Full name"): "Ada Lovelace",
            ("email", "Email"): "ada@example.org",
            ("number", "Age"): "36",
            ("date", "Birthday"): "1815-12-10",
            ("textarea", "Bio"): "Wrote the first\nprogram",
            ("editable", "Notes"): "Analytical engine",
        }
        for (kind, name), value in fills.items():
            assert await call(client, "interact", action="fill", ref=ref(text, kind, name), value=value) == {
                "tab_id": (await snapshot(client, max_chars=200))["tab_id"]
            }
        values = await js(
            client,
            "['name','email','age','birthday','bio'].map((id) => document.getElementById(id).value)"
            ".concat([document.getElementById('notes').textContent])",
        )
        assert values == [
            "Ada Lovelace",
            "ada@example.org",
            "36",
            "1815-12-10",
            "Wrote the first\nprogram",
            "Analytical engine",
        ]
        # Typed text fires one input event per character, as typing does (the old value's deletion one more).
        events = await _input_events(client)
        assert events["name"] == len("Ada Lovelace") + 1
        assert events["email"] == len("ada@example.org")
        assert events["birthday"] == 1
        changed = await js(
            client,
            "['name','email','age','birthday','bio']"
            ".map((id) => document.getElementById(id).dataset.changed)",
        )
        assert changed == ["1"] * 5

        # fill replaces, type appends.
        name = ref(text, "textbox", "Full name")
        await call(client, "interact", action="fill", ref=name, value="Ada")
        await call(client, "interact", action="type", ref=name, text=" King")
        assert await js(client, "document.getElementById('name').value") == "Ada King"
        await call(client, "interact", action="fill", ref=name, value="")
        assert await js(client, "document.getElementById('name').value") == ""

        after = (await snapshot(client))["text"].splitlines()
        assert '@e4 number "Age" = "36"' in after
        assert '@e12 editable "Notes" = "Analytical engine"' in after


async def test_click_and_wait_for(env: dict[str, str], site: str) -> None:
    async with mcp_client(env) as client:
        text = await _form(client, site)
        clicked = await call(
            client, "interact", action="click", ref=ref(text, "button", "Load more"), snapshot="none"
        )
        assert "navigated" not in clicked
        waited = await call(client, "interact", action="wait_for", selector="#arrived")
        assert waited["selector"] == "#arrived" and waited["state"] == "visible"
        assert (await call(client, "interact", action="wait_for", text="Arrived late"))[
            "text"
        ] == "Arrived late"
        # The dialog's button closes it: the default diff shows what went.
        accept = await call(client, "interact", action="click", ref=ref(text, "button", "Accept"))
        assert accept["snapshot"]["mode"] == "diff"
        assert "- ## Cookies?" in accept["snapshot"]["text"].splitlines()
        assert (await call(client, "interact", action="wait_for", selector="dialog", state="hidden"))[
            "state"
        ] == "hidden"
        link = await call(
            client, "interact", action="click", ref=ref(text, "link", "read the help"), snapshot="none"
        )
        assert link["url"] == f"{site}/form.html#help" and "navigated" not in link

        nav = await call(client, "interact", action="click", selector="a[href='#help']", snapshot="none")
        assert nav["url"].endswith("#help")
        await call(
            client,
            "interact",
            action="execute_js",
            script="setTimeout(() => { location.href = 'second.html'; }, 100); 1",
        )
        waited_url = await call(client, "interact", action="wait_for", url="*/second.html", selector="h1")
        assert waited_url["url"] == f"{site}/second.html" and waited_url["selector"] == "h1"
