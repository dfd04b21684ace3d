"""After a click that loads a new page, the snapshot the click answers with shows that page's main
content first, within its budget, and the rest (masthead, navigation, footer) after it: a page whose
navigation alone fills the old 1,200 characters still shows its whole table."""

from __future__ import annotations

import pytest
from mcp import Client

from tabpilot.bridge.tools.interact.elements import AFTER_NAVIGATION
from tests.support.mcp_client import call
from tests.support.snap import ref, snapshot

pytestmark = pytest.mark.anyio

ROWS = [f"| O-{i} | @e" for i in range(1, 31)]


def _rows_in(text: str) -> int:
    lines = text.splitlines()
    return sum(any(line.startswith(row) for line in lines) for row in ROWS)


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
