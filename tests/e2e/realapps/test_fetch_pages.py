"""Link pagination without rendering on real apps: Roundup's index (after its login form) and
Flask-Admin's list are read by fetching and parsing each next page in the page agent, and give exactly
the rows the rendered walk gave; the tab stays on page 1."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.fixtures.realapps import tasks
from tests.support.mcp_client import call

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("task", "pages", "reason"),
    [(tasks.ROUNDUP, 3, "no_next"), (tasks.ADMIN_ALL, 12, "next_disabled")],
    ids=["roundup", "flask-admin"],
)
async def test_linked_pages_are_fetched_not_rendered(
    request: pytest.FixtureRequest,
    client: Client,
    task: tasks.Task,
    pages: int,
    reason: str,
) -> None:
    url = request.getfixturevalue(f"{task.app}_url")
    out = await tasks.run(task, url, tasks.with_account(lambda tool, args: call(client, tool, **args)))
    tab = await call(client, "observe", what="tabs")
    assert out["status"] == "complete", out
    assert task.answer(out) == task.expected()
    meta = out["metadata"]
    assert meta["pagination_mode"] == "fetch", meta
    assert meta["pages_scraped"] == pages
    assert (meta["pagination_stopped"]["reason"], meta["pagination_stopped"]["page"]) == (reason, pages)
    # The tab was never taken through the pages: it shows page 1, as the result says.
    active = [t for t in tab["tabs"] if t.get("active")]
    assert active and active[0]["url"] == meta["url"], (tab, meta["url"])
