"""In-place pages and infinite feeds at the site's own pace, through the real MCP client in real
Chromium: a Next that never changes the rows, a feed that ends on its own end notice (no
until_selector, no waiting for quiet_ms), a feed with one slow batch, and a feed with no notice at all."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mcp import Client

from tabpilot.demo.server import Site, serve_site
from tests.support import pages
from tests.support.mcp_client import call, scrape

pytestmark = pytest.mark.anyio

POSTS = [f"P-{n:04d}" for n in range(1, 201)]
FEED = {"selector": ".posts .post", "schema": {"id": ".post-id"}}


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    with serve_site(pages.PAGES) as running:
        yield running


async def test_a_next_that_never_redraws_keeps_the_rows_and_says_unchanged(
    client: Client, site: Site
) -> None:
    await call(client, "interact", action="navigate", url=f"{site.url}/scrape/frozen.html")
    out = await call(
        client,
        "interact",
        action="scrape",
        operation="extract",
        selector="table.grid tbody tr",
        schema={"v": ".v"},
        options={
            "paginate": {"next_selector": "#next", "max_pages": 5},
            "timeout_ms": 1_500,
            "telemetry": True,
        },
    )
    assert [r["v"] for r in out["data"]] == ["f1", "f2", "f3"]
    stop = out["metadata"]["pagination_stopped"]
    assert (stop["reason"], stop["page"]) == ("unchanged", 1)
    # A Next that changes nothing proves no end: the rows are partial, and the hint names the option.
    assert out["status"] == "partial" and out["metadata"]["partial_because"]["reason"] == "unchanged"
    assert out["metadata"]["partial_because"]["hint"]["option"] == "options.paginate.next_selector"
    assert out["metadata"]["pages_scraped"] == 1


async def test_a_feed_ends_on_its_own_end_notice_without_waiting_for_quiet(
    client: Client, site: Site
) -> None:
    await call(client, "interact", action="navigate", url=f"{site.url}/realfix/feed.html")
    # A quiet window longer than the timeout: only the notice can end this feed as "end_marker".
    out = await scrape(
        client,
        operation="extract",
        **FEED,
        options={
            "scroll": {"max_scrolls": 30, "quiet_ms": 60_000},
            "timeout_ms": 8_000,
            "telemetry": True,
        },
    )
    assert [r["id"] for r in out["data"]] == POSTS
    stop = out["metadata"]["pagination_stopped"]
    # The notice showed at scroll 9; one more scroll, bringing no rows with nothing in flight, confirms it.
    assert (stop["reason"], stop["page"]) == ("end_marker", 10), stop
    assert out["metadata"]["complete_because"] == "end_marker_confirmed"


async def test_a_slow_batch_is_waited_for(client: Client, site: Site) -> None:
    await call(
        client,
        "interact",
        action="navigate",
        url=f"{site.url}/realfix/feed.html?slow_batch=4&slow_ms=1500",
    )
    out = await scrape(
        client, operation="extract", **FEED, options={"scroll": {"max_scrolls": 30}, "telemetry": True}
    )
    assert [r["id"] for r in out["data"]] == POSTS
    assert out["metadata"]["pagination_stopped"]["reason"] == "end_marker"


async def test_a_feed_without_an_end_notice_ends_on_the_loaders_quiet(client: Client, site: Site) -> None:
    await call(client, "interact", action="navigate", url=f"{site.url}/realfix/feed.html?no_end=1")
    out = await scrape(
        client, operation="extract", **FEED, options={"scroll": {"max_scrolls": 30}, "telemetry": True}
    )
    assert [r["id"] for r in out["data"]] == POSTS
    stop = out["metadata"]["pagination_stopped"]
    assert (stop["reason"], stop["page"]) == ("unchanged", 10), stop
    assert out["metadata"]["complete_because"] == "feed_stopped_growing"


async def test_a_feed_that_pauses_longer_than_usual_mid_way_is_read_to_its_end(
    client: Client, site: Site
) -> None:
    # Read twice: the first read shows the feed's pace; in the second, batch 5's request starts 700 ms
    # after its scroll, far past that pace. Nothing of the feed's own said it ended (no notice, no
    # loader gone), so that scroll waits all of quiet_ms, not the pace the feed showed.
    url = f"{site.url}/realfix/feed.html?pause_batch=5&pause_ms=700&pause_load=2"
    for _ in range(2):
        await call(client, "interact", action="navigate", url=url)
        out = await scrape(
            client,
            operation="extract",
            **FEED,
            options={"scroll": {"max_scrolls": 30, "quiet_ms": 2_000}, "telemetry": True},
        )
        assert [r["id"] for r in out["data"]] == POSTS
        stop = out["metadata"]["pagination_stopped"]
        assert (stop["reason"], stop["page"]) == ("end_marker", 10), stop
        assert out["metadata"]["complete_because"] == "end_marker_confirmed"


async def test_an_end_notice_shown_while_rows_still_come_is_not_the_end(client: Client, site: Site) -> None:
    # "End of content" shows after batch 5 as well, and the next scroll still brings rows.
    await call(client, "interact", action="navigate", url=f"{site.url}/realfix/feed.html?early_end=5")
    out = await scrape(
        client, operation="extract", **FEED, options={"scroll": {"max_scrolls": 30}, "telemetry": True}
    )
    assert [r["id"] for r in out["data"]] == POSTS
    stop = out["metadata"]["pagination_stopped"]
    assert (stop["reason"], stop["page"]) == ("end_marker", 10), stop
    assert out["metadata"]["complete_because"] == "end_marker_confirmed"


async def test_an_end_notice_beside_a_load_more_control_that_still_loads_is_not_the_end(
    client: Client, site: Site
) -> None:
    # Batches load on a "Load more" button. "End of content" shows after batch 5 while the button is
    # still there, and the press that follows starts its request 350 ms late, far past how soon this
    # feed's presses started one before: a control still there to press says the feed goes on, so
    # that press waits all of quiet_ms.
    url = f"{site.url}/realfix/feed.html?button=1&early_end=5&pause_batch=6&pause_ms=350"
    await call(client, "interact", action="navigate", url=url)
    out = await scrape(
        client, operation="extract", **FEED, options={"scroll": {"max_scrolls": 30}, "telemetry": True}
    )
    assert [r["id"] for r in out["data"]] == POSTS
    stop = out["metadata"]["pagination_stopped"]
    assert (stop["reason"], stop["page"]) == ("end_marker", 10), stop
    assert out["metadata"]["complete_because"] == "end_marker_confirmed"
