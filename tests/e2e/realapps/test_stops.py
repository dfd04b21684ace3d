"""Every paginated result says why it stopped (`metadata.pagination_stopped: {reason, page, detail}`):
Roundup's index has no Next link on its last page, Flask-Admin's and Dash's Next are disabled there; each
is the evidence that the list ended (`metadata.complete_because`)."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.fixtures.realapps import tasks
from tests.support.mcp_client import call

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("task", "reason", "page", "evidence"),
    [
        (tasks.ROUNDUP, "no_next", 3, "last_numbered_page"),  # its pager links pages by offset
        (tasks.ADMIN_ALL, "next_disabled", 12, "next_disabled"),
        (tasks.DASH_ALL, "next_disabled", 10, "next_disabled"),
    ],
    ids=["roundup", "flask-admin", "dash"],
)
async def test_why_pagination_stopped(
    request: pytest.FixtureRequest,
    client: Client,
    task: tasks.Task,
    reason: str,
    page: int,
    evidence: str,
) -> None:
    url = request.getfixturevalue(f"{task.app}_url")
    out = await tasks.run(task, url, tasks.with_account(lambda tool, args: call(client, tool, **args)))
    assert task.answer(out) == task.expected()
    stopped = out["metadata"]["pagination_stopped"]
    assert (stopped["reason"], stopped["page"]) == (reason, page), stopped
    assert not out["metadata"].get("warnings"), out["metadata"]
    assert (out["status"], out["metadata"].get("complete_because")) == ("complete", evidence), out["metadata"]
