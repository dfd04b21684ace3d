"""AG Grid Community: a virtualised grid (the DOM holds only the rows in view) of 2,000 rows, read in
one extract call written from the grid's markup (rows `.ag-row`, cells `[col-id=…]`).

Pending (not collected: the name does not start with test_). On main at e03e482 the call answers
2,000 rows, but in some runs (2 of 4 at 5c0ef69, 1 of 4 at e03e482, load 10-15) a few have every field
null: a row AG Grid had drawn before its cells (it draws the cells a few frames later) was kept as it
was. Which rows varies (rows 1-2, 197, 649 seen). Rename to test_aggrid.py once a row is read only
when its cells are there. (At 291fbfa it answered 32 rows of 2,000.)"""

from __future__ import annotations

import pytest
from selenium import webdriver

from tests.fixtures.realapps import tasks
from tests.support import browser
from tests.support.mcp_client import call, mcp_client

pytestmark = pytest.mark.anyio


async def test_every_row_of_a_virtualised_grid(
    driver: webdriver.Chrome, env: dict[str, str], aggrid_url: str
) -> None:
    browser.set_pilot(driver, True)
    task = tasks.AGGRID
    async with mcp_client(env) as client:
        out = await tasks.run(task, aggrid_url, lambda tool, args: call(client, tool, **args))
    got, expected = task.answer(out), task.expected()
    assert (len(got), got[:2], got[-2:]) == (len(expected), expected[:2], expected[-2:])
    assert got == expected
