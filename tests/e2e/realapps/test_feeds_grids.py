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
