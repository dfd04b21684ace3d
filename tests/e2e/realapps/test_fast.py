"""The fast data browser (fast_app.py: pages in 10–20 ms): every record across its linked pages, the
members' orders after the login form, and 50 orders each read on its own page, each answer checked
against the ground truth."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mcp import Client

from tests.fixtures.realapps import corpus, fast_tasks, tasks
from tests.support.mcp_client import call

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def fast_url() -> Iterator[str]:
    with corpus.fast() as url:
        yield url


@pytest.mark.parametrize("task", fast_tasks.TASKS, ids=["linked", "login", "details"])
async def test_every_answer_of_the_fast_app(client: Client, fast_url: str, task: tasks.Task) -> None:
    out = await tasks.run(task, fast_url, lambda tool, args: call(client, tool, **args))
    assert out["status"] == "complete", out.get("metadata")
    assert task.answer(out) == task.expected()
    if task is fast_tasks.DETAILS_TASK:
        assert out["metadata"]["follow"]["done"] == fast_tasks.DETAILS
    else:
        assert out["metadata"]["complete_because"] == "last_numbered_page", out["metadata"]
