"""AG Grid Community: a virtualised grid (the DOM holds only the rows in view) of 2,000 rows, read in
one extract call written from the grid's markup (rows `.ag-row`, cells `[col-id=…]`)."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.fixtures.realapps import tasks
from tests.support.mcp_client import call

pytestmark = pytest.mark.anyio


async def test_every_row_of_a_virtualised_grid(client: Client, aggrid_url: str) -> None:
    task = tasks.AGGRID
    out = await tasks.run(task, aggrid_url, lambda tool, args: call(client, tool, **args))
    got, expected = task.answer(out), task.expected()
    assert (len(got), got[:2], got[-2:]) == (len(expected), expected[:2], expected[-2:])
    assert got == expected
