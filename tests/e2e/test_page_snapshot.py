"""Page snapshots end to end: what they show and hide, refs, budget and cursor, scope, diff, shadow DOM
and frames, through the real MCP client in real Chromium."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from tabpilot.bridge.tools.interact.elements import AFTER_NAVIGATION
from tabpilot.wire.errors import ErrorCode
from tests.support import browser
from tests.support.mcp_client import call, call_error
from tests.support.popup import allow_scripts_on
from tests.support.snap import js, ref, snapshot

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("pilot_on")]


@pytest.fixture(scope="module", autouse=True)
def _scripts_allowed(chromium: browser.Chromium, site: Any) -> None:  # pyright: ignore[reportUnusedFunction]
    """The fixture pages hold a password field the page filled in; the agent's scripts on them run
    with the person's consent (given in the popup), as this module does not test that consent."""
    allow_scripts_on(chromium, site)


async def test_form_page_shows_what_a_person_sees(client: Client, site: str) -> None:
    nav = await call(client, "interact", action="navigate", url=f"{site}/form.html", snapshot="full")
    snap = await snapshot(client)
    text = snap["text"]
    assert nav["snapshot"]["text"] == text
    lines = text.splitlines()
    assert lines[0] == "# Every input"
    assert snap["title"] == "Every input" and snap["url"] == f"{site}/form.html"
    assert snap["truncated"] is False and snap["cursor_next"] is None and snap["mode"] == "full"
    expected = [
        'Fill in the form and @e1 link "read the help" #help first.',
        '@e2 textbox "Full name" = Grace',
        '@e3 email "Email"',
        '@e7 select "Size" = Medium {Small,Medium,Large}',
        '@e8 listbox "Toppings" {Ham,Olives,Egg}',
        '@e9 checkbox "Remember me"',
        '@e10 radio "Free" [x]',
        '@e12 editable "Notes"',
        '@e13 textbox "Locked" = no [disabled]',
        '@e14 textbox "Fixed" = as is [readonly]',
        "| Item | Price",
        "| Tea | 3 EUR",
        "[dialog]",
        '@e19 button "Accept"',
        "[/dialog]",
    ]
    for line in expected:
        assert line in lines, f"{line!r} missing from:\n{text}"
    # Every visible interactive element has a ref; nothing hidden shows.
    assert snap["refs"] == 19
    for hidden in (
        "Ghost button",
        "Not for readers",
        "Parked button",
        "Template button",
        "Gone",
        "hidden-token-value",
        "1234-5678",
    ):
        assert hidden not in text
    assert "[REDACTED]" in lines
    # Same document, same elements: the same refs.
    assert (await snapshot(client))["text"] == text


async def test_budget_cursor_and_scope(client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/form.html")
    full = (await snapshot(client))["text"]
    parts: list[str] = []
    cursor = 0
    while True:
        part = await snapshot(client, max_chars=200, cursor=cursor)
        assert len(part["text"]) <= 200
        parts.append(part["text"])
        if part["cursor_next"] is None:
            assert part["truncated"] is False
            break
        assert part["truncated"] is True and part["cursor_next"] > cursor
        cursor = part["cursor_next"]
    assert len(parts) > 3
    assert "\n".join(parts) == full

    form = (await snapshot(client, scope="#f"))["text"]
    assert form.splitlines()[0] == '@e2 textbox "Full name" = Grace'
    assert "Every input" not in form and "Accept" not in form
    bad = await call_error(client, "observe", what="page", scope="#f[")
    assert bad["error"] == ErrorCode.INVALID_SELECTOR
    missing = await call_error(client, "observe", what="page", scope="#nope")
    assert missing["error"] == ErrorCode.ELEMENT_NOT_FOUND


async def test_diff_returns_only_changed_lines(client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/form.html")
    text = (await snapshot(client))["text"]
    unchanged = await snapshot(client, mode="diff")
    assert unchanged["mode"] == "diff" and unchanged["text"] == ""
    assert (unchanged["added"], unchanged["removed"]) == (0, 0)
    await call(client, "interact", action="fill", ref=ref(text, "textbox", "Full name"), value="Ada")
    await call(client, "interact", action="click", ref=ref(text, "button", "Accept"), snapshot="none")
    diff = await snapshot(client, mode="diff")
    assert diff["text"].splitlines() == [
        '- @e2 textbox "Full name" = Grace',
        "- [dialog]",
        "- ## Cookies?",
        '- @e19 button "Accept"',
        "- [/dialog]",
        '+ @e2 textbox "Full name" = Ada',
    ]


async def test_shadow_dom_and_same_origin_frame_are_addressable(client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/shadow.html")
    text = (await snapshot(client))["text"]
    assert text.splitlines() == [
        "# Components",
        '@e1 textbox "Query"',
        '@e2 button "Search"',
        "Slotted hint",
        "nothing yet",
        '[frame "Inner"]',
        "Inside the frame",
        '@e3 textbox "Coupon"',
        '@e4 button "Apply"',
        "not applied",
        "[/frame]",
    ]
    await call(client, "interact", action="fill", ref="@e1", value="green tea")
    await call(client, "interact", action="click", ref="@e2", snapshot="none")
    await call(client, "interact", action="fill", ref="@e3", value="SAVE10")
    clicked = await call(client, "interact", action="click", ref="@e4", snapshot="diff")
    lines = clicked["snapshot"]["text"].splitlines()
    assert "+ searched green tea" in lines and "+ applied SAVE10" in lines
    assert await js(client, "document.getElementById('out').textContent") == "searched green tea"


async def test_refs_go_stale_when_their_element_or_page_goes(client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/form.html")
    text = (await snapshot(client))["text"]
    accept = ref(text, "button", "Accept")
    await js(client, "document.querySelector('dialog').remove()")
    gone = await call_error(client, "interact", action="click", ref=accept)
    assert gone["error"] == ErrorCode.STALE_REF and "snapshot" in gone["message"]
    unknown = await call_error(client, "interact", action="click", ref="@e999")
    assert unknown["error"] == ErrorCode.STALE_REF
    await call(client, "interact", action="navigate", url=f"{site}/form.html")
    reloaded = await call_error(client, "interact", action="click", ref="@e2")
    assert reloaded["error"] == ErrorCode.STALE_REF


# After a click that loads a new page, the snapshot the click answers with shows that page's main
# content first, within its budget, and the rest (masthead, navigation, footer) after it: a page whose
# navigation alone fills the old 1,200 characters still shows its whole table.
MAIN_ROWS = [f"| O-{i} | @e" for i in range(1, 31)]


def _rows_in(text: str) -> int:
    lines = text.splitlines()
    return sum(any(line.startswith(row) for line in lines) for row in MAIN_ROWS)


@pytest.mark.parametrize("page", ["orders", "plain"])  # with a <main>, and with only its chrome marked
async def test_a_navigating_click_shows_the_new_page_s_main_content(
    client: Client, site: str, page: str
) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/mainfirst/start.html")
    start = (await snapshot(client))["text"]
    label = "Orders" if page == "orders" else "Orders (plain)"
    out = await call(client, "interact", action="click", ref=ref(start, "link", label))
    assert out["navigated"] is True and out["url"].endswith(f"/mainfirst/{page}.html")
    shot = out["snapshot"]
    text = shot["text"]
    assert shot["mode"] == "main" and len(text) <= AFTER_NAVIGATION
    # Unmarked page text around the chrome ("Shop masthead" in a plain div) keeps its place.
    assert text.startswith("# Orders" if page == "orders" else "Shop masthead\n# Orders"), text[:200]
    assert _rows_in(text) == 30, text
    # The rest of the page follows the main content, and reading on continues in the same order.
    rest = text.index("[rest of the page]")
    assert rest > text.index("| O-30 |") and '"Section number 1 of the site"' in text[rest:]
    assert shot["truncated"] is True and shot["cursor_next"] is not None
    more = await snapshot(client, mode="main", cursor=shot["cursor_next"])
    assert "Footer line 10" in more["text"] or more["truncated"]
    # In document order the navigation comes first and the table does not fit the old budget.
    whole = await snapshot(client, max_chars=1_200)
    assert whole["text"].startswith("Shop masthead") and _rows_in(whole["text"]) == 0
    # The refs of the main content act on the page.
    row = await call(client, "interact", action="click", ref=ref(text, "link", "Customer 7"), snapshot="none")
    assert row["url"].endswith("start.html#order-7")
