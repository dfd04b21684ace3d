"""Flask-Admin: every row of a model list across its pages, and a filtered list, each in one extract
call written from what the admin shows (its column classes and its pager's Next arrow)."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.fixtures.realapps import tasks
from tests.support.mcp_client import call

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("task", "pages"),
    [(tasks.ADMIN_ALL, 12), (tasks.ADMIN_FILTERED, 3), (tasks.ADMIN_FILTER_UI, 3)],
    ids=["all", "norway", "filter-form"],
)
async def test_every_row_of_a_model_list(
    client: Client, flask_admin_url: str, task: tasks.Task, pages: int
) -> None:
    out = await tasks.run(
        task, flask_admin_url, tasks.with_account(lambda tool, args: call(client, tool, **args))
    )
    assert out["status"] == "complete", out
    assert task.answer(out) == task.expected()
    assert out["metadata"]["pages_scraped"] == pages
