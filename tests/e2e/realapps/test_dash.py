"""Dash DataTable, a single-page app: every row across the table's in-place pages in one extract call,
and a filter + sort + every row in one workflow, written from the table's own markup."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.fixtures.realapps import tasks
from tests.support.mcp_client import call

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("task", "pages"), [(tasks.DASH_ALL, 10), (tasks.DASH_FILTERED, 2)], ids=["all", "filtered"]
)
async def test_every_row_across_in_place_pages(
    client: Client, dash_url: str, task: tasks.Task, pages: int
) -> None:
    out = await tasks.run(task, dash_url, tasks.with_account(lambda tool, args: call(client, tool, **args)))
    assert out["status"] == "complete", out
    assert task.answer(out) == task.expected()
    assert out["metadata"]["pages_scraped"] == pages
