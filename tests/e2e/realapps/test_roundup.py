"""Roundup, the issue tracker: log in through its form, then read every issue of its index across the
index's own pages, in one workflow call."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.fixtures.realapps import tasks
from tests.support.mcp_client import call

pytestmark = pytest.mark.anyio


async def test_log_in_and_read_every_issue(client: Client, roundup_url: str) -> None:
    task = tasks.ROUNDUP
    out = await tasks.run(
        task, roundup_url, tasks.with_account(lambda tool, args: call(client, tool, **args))
    )
    assert out["status"] == "complete", out
    assert task.answer(out) == task.expected()
    assert out["metadata"]["pages_scraped"] == 3
