"""A tool call that fails inside the demo's MCP client is told as the tool's own error: the client's
task groups wrap it (sometimes twice), and the demo takes it out of them."""

from __future__ import annotations

from tabpilot.demo import _leaf  # pyright: ignore[reportPrivateUsage]
from tabpilot.wire.errors import ErrorCode, TabPilotError


def test_the_calls_own_error_comes_out_of_nested_task_groups() -> None:
    failed = TabPilotError(ErrorCode.EXTENSION_NOT_CONNECTED, "No browser … Fix: run tabpilot browser launch")
    wrapped = BaseExceptionGroup("outer", [ExceptionGroup("inner", [failed])])
    found = wrapped.subgroup(TabPilotError)
    assert found is not None and _leaf(found) is failed
    assert _leaf(failed) is failed
