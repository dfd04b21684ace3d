"""observe what=workflows: the recorded workflows (kept by the host)."""

from __future__ import annotations

from typing import Any

from typing_extensions import TypedDict  # pydantic needs this one on Python < 3.12

from ....wire.messages import WorkflowOp
from ..base import Call


class WorkflowsResult(TypedDict):
    workflows: list[dict[str, Any]]


async def workflows(call: Call) -> WorkflowsResult:
    """the recorded workflows: workflow_id, name, domains, steps, required_params (newest use first)."""
    return await call.send(WorkflowOp(id=0, op="list"))
