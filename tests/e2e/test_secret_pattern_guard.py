"""The agent's secret patterns meet the guard output_schema patterns meet, in real Chromium through the
real MCP client: a pattern that backtracks (`(a+)+$`) or that RE2 cannot run (a backreference) is
refused with invalid_params and never stored, so a page of "a"s still reads at once; the agent lists
the patterns it added and removes them, never the user's own."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from tests.support.logged import Logged, serve_logged
from tests.support.mcp_client import call, call_error

pytestmark = pytest.mark.anyio

PAGE = "<!doctype html><title>As</title><p id='p'>" + "a" * 31 + "!</p><p>code ZZ-1234-QQ</p>"


@pytest.fixture(scope="module")
def pages() -> Iterator[Logged]:
    with serve_logged({"/as": PAGE}) as served:
        yield served


async def test_backtracking_patterns_are_refused_and_the_agent_can_list_and_remove_its_own(
    client: Any, pages: Logged
) -> None:
    for bad in ["(a+)+$", "(a|a)*$", "(\\w+\\s?)*!", r"(a)\1", "(?=a)a"]:
        err = await call_error(client, "configure", action="add_secret_pattern", patterns=[bad])
        assert err["error"] == "invalid_params", (bad, err)
    assert (await call(client, "configure", action="list_secret_patterns"))["patterns"] == []

    await call(client, "interact", action="navigate", url=f"{pages.url}/as")
    with anyio.fail_after(10):
        snap = await call(client, "observe", what="page")
    assert "a" * 31 in str(snap)

    added = await call(client, "configure", action="add_secret_pattern", patterns=["ZZ-[0-9]{4}-QQ"])
    assert added["added"] == ["ZZ-[0-9]{4}-QQ"]
    assert "ZZ-1234-QQ" not in str(await call(client, "observe", what="page"))
    assert (await call(client, "configure", action="list_secret_patterns"))["patterns"] == ["ZZ-[0-9]{4}-QQ"]

    # Only its own: a default pattern of the user's is not the agent's to remove.
    err = await call_error(client, "configure", action="remove_secret_pattern", patterns=[r"\bsk-ant-"])
    assert err["error"] == "invalid_params"
    removed = await call(client, "configure", action="remove_secret_pattern", patterns=["ZZ-[0-9]{4}-QQ"])
    assert removed == {"patterns": [], "removed": ["ZZ-[0-9]{4}-QQ"]}
    assert "ZZ-1234-QQ" in str(await call(client, "observe", what="page"))
