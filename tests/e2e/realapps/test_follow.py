"""Detail pages in the same call on real apps: Roundup's issues each read on their own page after the
login, and Flask-Admin's customers across the list's pages, each from its edit form."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.fixtures.realapps import follow_tasks, tasks
from tests.support.mcp_client import call

pytestmark = pytest.mark.anyio


async def test_roundup_issues_each_read_on_its_page(client: Client, roundup_url: str) -> None:
    task = follow_tasks.ROUNDUP_FOLLOW
    out = await tasks.run(task, roundup_url, lambda tool, args: call(client, tool, **args))
    assert out["status"] == "complete", out
    assert task.answer(out) == task.expected()
    total = follow_tasks.DETAILS
    assert out["metadata"]["follow"] == {"mode": "fetch", "done": total, "total": total}


async def test_flask_admin_rows_across_pages_each_from_its_edit_form(
    client: Client, flask_admin_url: str
) -> None:
    task = follow_tasks.ADMIN_FOLLOW
    out = await tasks.run(
        task, flask_admin_url, tasks.with_account(lambda tool, args: call(client, tool, **args))
    )
    # options.limit stops the walk on page 2 of 12: the rows asked for, and partial, since the list goes on.
    assert out["status"] == "partial" and out["metadata"]["partial_because"]["reason"] == "limit", out
    assert task.answer(out) == task.expected()
    assert out["metadata"]["pages_scraped"] == 2
    assert out["metadata"]["follow"]["mode"] == "fetch"
