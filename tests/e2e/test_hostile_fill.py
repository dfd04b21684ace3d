"""A huge value to fill or type (an agent's paste, or a hostile prompt's) goes in as one insertion past
a few thousand characters: typed key by key, 900 KB froze the tab for minutes and every later call on
it timed out."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.support.mcp_client import call

pytestmark = pytest.mark.anyio

HUGE = 300_000


async def test_a_huge_fill_answers_and_leaves_the_tab_usable(client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/form.html")
    await call(client, "interact", action="fill", selector="textarea", value="x" * HUGE, snapshot="none")
    await call(client, "interact", action="type", selector="textarea", text="y" * HUGE, snapshot="none")
    out = await call(
        client, "interact", action="scrape", operation="extract", selector="textarea", schema={"v": ":scope"}
    )
    assert out["data"] == [{"v": "x" * HUGE + "y" * HUGE}]
    page = await call(client, "observe", what="page", max_chars=400)
    assert 'textarea "Bio" = xxx' in page["text"], page
