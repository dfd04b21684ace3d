"""A 200,000-element page: the default snapshot answers within its budget, truncated and saying so,
the tab survives (no discard, no reload), and the next call is answered at once."""

from __future__ import annotations

import time
from typing import Any

import pytest
from mcp import Client

from tests.support import browser
from tests.support.mcp_client import call
from tests.support.popup import allow_scripts_on

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module", autouse=True)
def _scripts_allowed(chromium: browser.Chromium, site: Any) -> None:  # pyright: ignore[reportUnusedFunction]
    """Pages here hold secrets on purpose; the agent's scripts on them run with the person's consent
    (given in the popup), so what is tested is what those scripts can still see."""
    allow_scripts_on(chromium, site)


ELEMENTS = 200_000

# 50,000 blocks of 4 elements; a marker on window shows whether the page was reloaded meanwhile.
BUILD = f"""
const parts = [];
for (let i = 0; i < {ELEMENTS // 4}; i++) {{
  const cells = '<span>item ' + i + '</span><b>' + (i * 7) + '</b><a href="#r' + i + '">open</a>';
  parts.push('<div class="row">' + cells + '</div>');
}}
document.body.innerHTML = parts.join('');
window.__marker = 'still here';
document.body.offsetHeight; // style and layout now: the page's own cost, not the snapshot's
return document.getElementsByTagName('*').length;
"""


async def test_the_default_snapshot_of_a_huge_page_is_truncated_and_the_tab_survives(
    client: Client, site: str
) -> None:
    tab = (await call(client, "interact", action="new_tab", url=f"{site}/index.html"))["tab_id"]
    built = await call(client, "interact", action="execute_js", script=BUILD, tab_id=tab, timeout_ms=30_000)
    assert built["result"] >= ELEMENTS
    # Let the page paint once: that is the page's own cost, paid by whatever call comes next.
    frame = "await new Promise((done) => requestAnimationFrame(() => setTimeout(done))); return 1"
    await call(client, "interact", action="execute_js", script=frame, tab_id=tab, timeout_ms=30_000)

    t0 = time.perf_counter()
    snap = await call(client, "observe", what="page", tab_id=tab)
    took = time.perf_counter() - t0
    assert snap["truncated"] is True and snap["cursor_next"] is not None
    assert 0 < len(snap["text"]) <= 6_000 and "item 0" in snap["text"]
    print(f"\ndefault snapshot of a {built['result']:,}-element page: {took * 1000:.0f} ms")

    more = await call(client, "observe", what="page", tab_id=tab, cursor=snap["cursor_next"])
    assert more["text"] and more["text"] != snap["text"], "the cursor continues where the first stopped"

    t0 = time.perf_counter()
    after = await call(client, "interact", action="execute_js", script="window.__marker", tab_id=tab)
    print(f"next call: {(time.perf_counter() - t0) * 1000:.0f} ms")
    assert after["result"] == "still here", "the tab was neither discarded nor reloaded"
    await call(client, "interact", action="close_tab", tab_id=tab)


async def test_a_huge_page_with_nothing_to_show_answers_in_time_and_says_why_it_stopped(
    client: Client, site: str
) -> None:
    tab = (await call(client, "interact", action="new_tab", url=f"{site}/index.html"))["tab_id"]
    # 400,000 elements and no text: the walk never fills its window, only the clock can stop it.
    build = (
        "document.body.innerHTML = '<div><i></i><b></b><u></u></div>'.repeat(100000);"
        "await new Promise((done) => requestAnimationFrame(() => setTimeout(done)));"
        "window.__marker = 'still here'; return document.getElementsByTagName('*').length"
    )
    built = await call(client, "interact", action="execute_js", script=build, tab_id=tab, timeout_ms=30_000)
    assert built["result"] > 400_000

    t0 = time.perf_counter()
    snap = await call(client, "observe", what="page", tab_id=tab)
    print(f"\nsnapshot of {built['result']:,} empty elements: {(time.perf_counter() - t0) * 1000:.0f} ms")
    assert snap["text"] == ""
    if snap["truncated"]:  # cut by the clock (a fast machine may walk it all): it says so
        assert "too large" in snap["note"] and snap["cursor_next"] is None
    else:
        assert "note" not in snap
    after = await call(client, "interact", action="execute_js", script="window.__marker", tab_id=tab)
    assert after["result"] == "still here"
    await call(client, "interact", action="close_tab", tab_id=tab)
