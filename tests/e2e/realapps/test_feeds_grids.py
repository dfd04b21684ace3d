"""Feeds and virtualised grids nobody tuned for (feeds_app.py, grids_app.py): metafizzy infinite-scroll
on scroll and with its "View more" button, an htmx table loading rows when revealed, Tabulator and
Clusterize.js grids whose rows carry no index. Each asked in the one natural call: every row, exactly,
and `complete` only with the evidence that proves it."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from tests.fixtures.realapps import feedgrid_tasks, tasks
from tests.support.mcp_client import call

pytestmark = pytest.mark.anyio


async def _run(walked: feedgrid_tasks.Walked, client: Client, url: str) -> dict[str, Any]:
    return await tasks.run(walked.task, url, lambda tool, args: call(client, tool, **args))


def _check(walked: feedgrid_tasks.Walked, out: dict[str, Any]) -> None:
    got, expected = walked.task.answer(out), walked.task.expected()
    assert (len(got), got[:2], got[-2:]) == (len(expected), expected[:2], expected[-2:]), out.get("metadata")
    assert got == expected
    assert out["status"] == "complete", out.get("metadata")
    assert out["metadata"].get("complete_because") == walked.because, out.get("metadata")


@pytest.mark.parametrize(
    "walked", feedgrid_tasks.FEEDS, ids=lambda w: w.task.name.split(" ")[0] + w.task.setup("")[0][1]["url"]
)
async def test_every_post_of_a_feed(walked: feedgrid_tasks.Walked, client: Client, feeds_url: str) -> None:
    _check(walked, await _run(walked, client, feeds_url))


@pytest.mark.parametrize("walked", feedgrid_tasks.GRIDS, ids=lambda w: w.task.name.split(":")[0])
async def test_every_row_of_a_grid_without_row_indexes(
    walked: feedgrid_tasks.Walked, client: Client, grids_url: str
) -> None:
    out = await _run(walked, client, grids_url)
    _check(walked, out)
    # Rows without an index are told apart by the key the call names, else by their whole values.
    named = "key_fields" in walked.task.call(grids_url)[1]
    assert out["metadata"]["virtual"]["keyed_by"] == ("key_fields" if named else "values")


async def test_a_feed_read_by_its_hidden_next_link_is_partial_and_its_hint_reads_every_post(
    client: Client, feeds_url: str
) -> None:
    # infinite-scroll hides the pager whose next link it follows: that link is no end of the list.
    feed = feedgrid_tasks.INFINITE_SCROLL.task
    for tool, args in feed.setup(feeds_url):
        await call(client, tool, **args)

    async def posts(options: dict[str, Any]) -> dict[str, Any]:
        schema = feedgrid_tasks.POST_SCHEMA
        return await call(
            client,
            "interact",
            action="scrape",
            operation="extract",
            selector=".feed .post",
            schema=schema,
            options=options,
        )

    out = await posts({"paginate": {"next_selector": ".pagination__next", "max_pages": 20}})
    assert out["status"] == "partial" and "complete_because" not in out["metadata"], out["metadata"]
    partial = out["metadata"]["partial_because"]
    assert (partial["reason"], partial["hint"]["option"]) == ("no_next", "options.scroll"), partial
    # The hint, as the agent would pass it, reads the feed to its end.
    _check(feedgrid_tasks.INFINITE_SCROLL, await posts({"scroll": partial["hint"]["value"]}))
