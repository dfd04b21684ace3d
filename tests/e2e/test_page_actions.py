"""Element actions end to end on a form with every input kind: what each changes in the page and which
events the page sees, and every error they answer with (asserted by code), through the real MCP client
in real Chromium."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client
from selenium import webdriver

from tabpilot.wire.errors import ErrorCode
from tests.support import browser
from tests.support.mcp_client import call, call_error
from tests.support.popup import allow_scripts_on
from tests.support.snap import js, ref, snapshot

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("pilot_on")]


@pytest.fixture(scope="module", autouse=True)
def _scripts_allowed(chromium: browser.Chromium, site: Any) -> None:  # pyright: ignore[reportUnusedFunction]
    """Some pages here hold a password field the page filled in; the agent's scripts on them run with
    the person's consent (given in the popup), as this module tests actions, not that consent."""
    allow_scripts_on(chromium, site)


async def _form(client: Client, site: str) -> str:
    await call(client, "interact", action="navigate", url=f"{site}/form.html")
    return (await snapshot(client))["text"]


async def _input_events(client: Client) -> dict[str, int]:
    raw = await js(client, "document.getElementById('events').dataset.counts || '{}'")
    return json.loads(raw)


async def test_fill_every_kind_of_field(client: Client, site: str) -> None:
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
        "['name','email','age','birthday','bio'].map((id) => document.getElementById(id).dataset.changed)",
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
    assert '@e4 number "Age" = 36' in after
    assert '@e12 editable "Notes" = Analytical engine' in after


async def test_click_and_wait_for(client: Client, site: str) -> None:
    text = await _form(client, site)
    clicked = await call(
        client, "interact", action="click", ref=ref(text, "button", "Load more"), snapshot="none"
    )
    assert "navigated" not in clicked
    waited = await call(client, "interact", action="wait_for", selector="#arrived")
    assert waited["selector"] == "#arrived" and waited["state"] == "visible"
    assert (await call(client, "interact", action="wait_for", text="Arrived late"))["text"] == "Arrived late"
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


async def test_select_and_check(client: Client, site: str) -> None:
    text = await _form(client, site)
    size = ref(text, "select", "Size")
    assert (await call(client, "interact", action="select", ref=size, values=["Large"]))["selected"] == ["l"]
    toppings = ref(text, "listbox", "Toppings")
    picked = await call(client, "interact", action="select", ref=toppings, values=["ham", "Egg"])
    assert picked["selected"] == ["ham", "egg"]
    assert await js(client, "document.getElementById('size').dataset.changed") == "1"

    remember = ref(text, "checkbox", "Remember me")
    assert await call(client, "interact", action="check", ref=remember) == {
        "checked": True,
        "changed": True,
        "tab_id": picked["tab_id"],
    }
    assert (await call(client, "interact", action="check", ref=remember))["changed"] is False
    assert (await call(client, "interact", action="uncheck", ref=remember))["checked"] is False
    pro = ref(text, "radio", "Pro")
    assert (await call(client, "interact", action="check", ref=pro))["checked"] is True
    assert (await call_error(client, "interact", action="uncheck", ref=pro))["error"] == "invalid_params"

    lines = (await snapshot(client))["text"].splitlines()
    assert f'{size} select "Size" = Large {{Small,Medium,Large}}' in lines
    assert f'{toppings} listbox "Toppings" = Ham,Egg {{Ham,Olives,Egg}}' in lines
    assert f'{remember} checkbox "Remember me"' in lines
    assert f'{pro} radio "Pro" [x]' in lines and '@e10 radio "Free"' in lines


async def test_keys_do_what_a_person_expects(client: Client, site: str) -> None:
    text = await _form(client, site)
    name = ref(text, "textbox", "Full name")
    # Control+a then Backspace clears; Tab moves the focus to the next field.
    await call(client, "interact", action="press", ref=name, key="Control+a", snapshot="none")
    await call(client, "interact", action="press", key="Backspace", snapshot="none")
    assert await js(client, "document.getElementById('name').value") == ""
    await call(client, "interact", action="type", text="Bo")
    await call(client, "interact", action="press", key="Tab", snapshot="none")
    assert await js(client, "document.activeElement.id") == "email"
    await call(client, "interact", action="press", key="Shift+Tab", snapshot="none")
    assert await js(client, "document.activeElement.id") == "name"
    # Space toggles a checkbox; Escape closes the open dialog.
    await call(client, "interact", action="press", ref=ref(text, "checkbox", "Remember me"), key="Space")
    assert await js(client, "document.getElementById('remember').checked") is True
    closed = await call(client, "interact", action="press", key="Escape")
    assert "- [dialog]" in closed["snapshot"]["text"].splitlines()
    # Enter in a form field submits through the submit button, so the browser validates first: the
    # required email is empty, so the form stays and the focus goes to it, as for a person.
    refused = await call(client, "interact", action="press", ref=name, key="Enter", snapshot="none")
    assert "navigated" not in refused
    assert await js(client, "document.activeElement.id") == "email"
    await call(client, "interact", action="type", text="bo@example.org")
    submitted = await call(client, "interact", action="press", key="Enter")
    assert "navigated" not in submitted
    assert (
        "+ submitted name=Bo&email=bo%40example.org&age=&birthday=&bio=&size=m&remember=on&plan=free"
        in submitted["snapshot"]["text"].splitlines()
    )


async def test_hover_scroll_and_highlight(client: Client, site: str) -> None:
    text = await _form(client, site)
    await js(
        client,
        "window.hovered = 0; document.getElementById('later')"
        ".addEventListener('mouseover', () => { window.hovered += 1; }); 1",
    )
    await call(client, "interact", action="hover", ref=ref(text, "button", "Load more"))
    assert await js(client, "window.hovered") == 1

    bottom = await call(client, "interact", action="scroll", to="bottom")
    assert bottom["scroll_y"] == bottom["max_y"] > 0
    top = await call(client, "interact", action="scroll", to="top")
    assert top["scroll_y"] == 0
    moved = await call(client, "interact", action="scroll", dy=50)
    assert moved["scroll_y"] == 50
    await call(client, "interact", action="scroll", selector="#help")
    assert await js(client, "document.getElementById('help').getBoundingClientRect().top < innerHeight")

    shown = await call(client, "interact", action="highlight", selector="#save", duration_ms=600_000)
    rect = await js(
        client,
        "(() => { const r = document.getElementById('save').getBoundingClientRect();"
        " return [r.x, r.y, r.width, r.height].map(Math.round); })()",
    )
    assert shown["success"] is True
    assert [shown["bounds"][k] for k in ("x", "y", "width", "height")] == rect
    overlay = await js(
        client,
        "(() => { const s = document.getElementById('tabpilot-highlighter').style;"
        " return [s.position, s.border, s.zIndex, s.pointerEvents]; })()",
    )
    assert overlay == ["fixed", "4px solid red", "2147483647", "none"]
    # The next highlight replaces the overlay, and it goes after its duration (long enough that a busy
    # machine's next call still finds it).
    await call(client, "interact", action="highlight", ref=ref(text, "button", "Load more"), duration_ms=2000)
    assert await js(client, "document.querySelectorAll('#tabpilot-highlighter').length") == 1
    gone = await call(
        client, "interact", action="wait_for", selector="#tabpilot-highlighter", state="detached"
    )
    assert gone["state"] == "detached"


async def test_a_link_to_a_new_tab_says_which_tab(client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/links.html")
    text = (await snapshot(client))["text"]
    clicked = await call(
        client,
        "interact",
        action="click",
        ref=ref(text, "link", "Open second in a new tab"),
        snapshot="none",
    )
    opened = clicked["opened_tab"]
    assert opened["url"] == f"{site}/second.html" and opened["tab_id"] != clicked["tab_id"]
    assert "navigated" not in clicked
    tabs = (await call(client, "observe", what="tabs"))["tabs"]
    assert opened["tab_id"] in {t["id"] for t in tabs}
    await call(client, "interact", action="close_tab", tab_id=opened["tab_id"])


# Every error of the element actions, provoked and asserted by code.
async def test_each_error_code(client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/form.html")

    async def fails(code: ErrorCode, **args: object) -> dict[str, object]:
        err = await call_error(client, "interact", **args)
        assert err["error"] == code, err
        return err

    await fails(ErrorCode.ELEMENT_NOT_FOUND, action="click", selector="#nope")
    await fails(ErrorCode.INVALID_SELECTOR, action="click", selector="#f[")
    await fails(ErrorCode.INVALID_SELECTOR, action="wait_for", selector="a[", timeout_ms=500)
    await fails(ErrorCode.INVALID_PARAMS, action="click")
    await fails(ErrorCode.INVALID_PARAMS, action="press", key="Hyper+x")
    await fails(ErrorCode.INVALID_PARAMS, action="select", selector="#name", values=["x"])
    await fails(ErrorCode.INVALID_PARAMS, action="fill", selector="#birthday", value="yesterday")
    missing = await fails(ErrorCode.ELEMENT_NOT_FOUND, action="select", selector="#size", values=["XXL"])
    assert "Small" in str(missing["message"])
    for args, reason in (
        ({"action": "click", "selector": "#ghost"}, "hidden"),
        ({"action": "click", "selector": "#locked"}, "disabled"),
        ({"action": "fill", "selector": "#locked", "value": "x"}, "disabled"),
        ({"action": "fill", "selector": "#fixed", "value": "x"}, "readonly"),
        ({"action": "click", "selector": "#under"}, "covered"),
        ({"action": "hover", "selector": "#under"}, "covered"),
    ):
        err = await fails(ErrorCode.NOT_INTERACTABLE, **args)
        assert err["data"]["reason"] == reason, err  # type: ignore[index]
        if reason == "covered":
            assert "<span#cover>" in str(err["message"])
    assert await call(
        client, "interact", action="execute_js", script="document.getElementById('result').textContent"
    ) == {
        "success": True,
        "result": "",
    }, "a refused click did not click"

    timed = await fails(ErrorCode.TIMEOUT, action="wait_for", selector="#never", timeout_ms=300)
    assert "0 element(s) match" in str(timed["message"])
    await fails(ErrorCode.TIMEOUT, action="wait_for", text="no such words", timeout_ms=300)
    await fails(ErrorCode.TIMEOUT, action="wait_for", url="*/never.html", timeout_ms=300)
    await fails(ErrorCode.TAB_NOT_FOUND, action="click", selector="a", tab_id=2**31 - 2)


async def test_a_tab_closed_during_a_wait(driver: webdriver.Chrome, client: Client, site: str) -> None:
    # A tab the page may close itself: opened with a single history entry.
    url = f"{site}/form.html?closing"
    driver.execute_cdp_cmd("Target.createTarget", {"url": url})
    tabs = (await call(client, "observe", what="tabs"))["tabs"]
    [tab] = [t for t in tabs if t["url"] == url]
    await call(
        client,
        "interact",
        action="execute_js",
        tab_id=tab["id"],
        script="setTimeout(() => window.close(), 1000); 1",
    )
    err = await call_error(
        client, "interact", action="wait_for", tab_id=tab["id"], selector="#never", timeout_ms=20_000
    )
    assert err["error"] == ErrorCode.TAB_CLOSED, err
