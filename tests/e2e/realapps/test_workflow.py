"""Roundup's login-then-every-issue as a user writes and replays it:
- the extract step with the same `options` shape as the extract operation;
- recorded with its login steps under `if: {exists: <the login field>}`, replayed while still logged in
  (the login steps skip, so no password is asked for), then after the session ended (they run)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from mcp import Client

from tests.fixtures.realapps import data, tasks
from tests.support.mcp_client import call, scrape

pytestmark = pytest.mark.anyio

LOGIN = {"exists": "input[name=__login_name]"}


def _workflow(url: str) -> dict[str, Any]:
    return copy.deepcopy(tasks.ROUNDUP.call(url)[1])


async def test_extract_step_takes_options(client: Client, roundup_url: str) -> None:
    request = _workflow(roundup_url)
    extract = request["steps"][-1]
    extract["options"] = {"paginate": extract.pop("paginate")}
    await call(client, "interact", action="navigate", url=roundup_url + "?@action=logout")
    out = await scrape(client, **{k: v for k, v in request.items() if k != "action"})
    assert out["data"] == tasks.ROUNDUP.expected()


async def test_replay_logged_in_then_after_the_session_ended(client: Client, roundup_url: str) -> None:
    request = _workflow(roundup_url)
    for step in request["steps"][1:4]:
        step["if"] = LOGIN
    expected = tasks.ROUNDUP.expected()
    await call(client, "interact", action="navigate", url=roundup_url + "?@action=logout")
    args = {k: v for k, v in request.items() if k != "action"}
    recorded = await scrape(client, **args, record=True, name="roundup-issues")
    assert recorded["data"] == expected
    workflow_id = recorded["workflow_id"]
    # Still logged in: the login steps skip, and no password is needed.
    again = await scrape(client, operation="replay", workflow_id=workflow_id)
    assert again["data"] == expected
    # The session ends; the login steps run again with the password given.
    await call(client, "interact", action="navigate", url=roundup_url + "?@action=logout")
    bounced = await scrape(
        client, operation="replay", workflow_id=workflow_id, params={"password": data.PASSWORD}
    )
    assert bounced["data"] == expected
