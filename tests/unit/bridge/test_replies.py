"""The bridge checks the extension's replies against their structs instead of casting them: a reply of
the wrong shape is malformed_reply; a good one reaches the agent as the extension sent it."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from tabpilot.wire.errors import ErrorCode
from tests.unit.bridge.test_tools import WAIT_S, FakePool, client, payload

pytestmark = pytest.mark.anyio


async def _call(pool: FakePool, tool: str, **args: Any) -> Any:
    with anyio.fail_after(WAIT_S):
        async with client(pool) as c:
            return await c.call_tool(tool, args)


@pytest.mark.parametrize(
    ("tool", "args", "tag", "answer"),
    [
        ("interact", {"action": "click", "selector": "a"}, "click", ["clicked"]),
        ("interact", {"action": "click", "selector": "a"}, "click", {"tab_id": "seven"}),
        (
            "interact",
            {"action": "fill_form", "fields": [{"ref": "@e1", "value": "x"}]},
            "fill_form",
            {"filled": "1"},
        ),
        ("observe", {"what": "errors"}, "telemetry", {"items": "none", "cursor": 0}),
        ("observe", {"what": "network"}, "telemetry", {"items": [], "cursor": "later"}),
    ],
)
async def test_a_reply_of_the_wrong_shape_is_malformed_reply(
    tool: str, args: dict[str, Any], tag: str, answer: Any
) -> None:
    result = await _call(FakePool(answers={tag: answer}), tool, **args)
    assert result.is_error and payload(result)["error"] == ErrorCode.MALFORMED_REPLY


async def test_a_good_reply_reaches_the_agent_as_sent() -> None:
    # A field this host does not know yet (a newer extension's) is kept, not dropped by the check.
    answer = {"tab_id": 3, "url": "https://a.test/", "navigated": False, "frame": "main"}
    result = await _call(
        FakePool(answers={"click": answer}), "interact", action="click", selector="a", snapshot="none"
    )
    assert not result.is_error and payload(result) == answer
