"""configure export_workflow / import_workflow / delete_workflow: recorded workflows in and out of files.

Files are read and written here, by the bridge, in the caller's directory (engine/files.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import anyio.to_thread
from pydantic import Field
from typing_extensions import TypedDict  # pydantic needs this one on Python < 3.12

from ....wire.errors import ErrorCode, TabPilotError
from ....wire.messages import WorkflowOp
from ..base import Call

WorkflowId = Annotated[str, Field(description="A recorded workflow, e.g. wf-daily_metrics-20260128.")]
FilePath = Annotated[str, Field(description="A JSON file path on this machine.")]


class WorkflowFileResult(TypedDict):
    workflow_id: str
    path: str


class DeletedResult(TypedDict):
    deleted: str


async def export_workflow(call: Call, workflow_id: WorkflowId, path: FilePath) -> WorkflowFileResult:
    """write a recorded workflow to a JSON file (to share it, or import it elsewhere)."""
    from ....engine.files import write_export  # the engine's: not loaded by a bridge that never asks

    value = await call.send(WorkflowOp(id=0, op="get", workflow_id=workflow_id))
    target = await anyio.to_thread.run_sync(
        write_export, Path(path), value["document"], abandon_on_cancel=True
    )
    return {"workflow_id": workflow_id, "path": str(target)}


async def import_workflow(call: Call, path: FilePath) -> WorkflowFileResult:
    """store a workflow from a JSON file written by export_workflow (checked like any request)."""
    from ....engine.files import read_import

    try:
        # In a thread: a file on a slow or hung mount must not stall the bridge's other calls.
        document = await anyio.to_thread.run_sync(read_import, Path(path), abandon_on_cancel=True)
    except TabPilotError as unreadable:
        # While the pilot is off, say so rather than whether the file exists or is readable.
        try:
            await call.send(WorkflowOp(id=0, op="list"))
        except TabPilotError as exc:
            if exc.code == ErrorCode.AI_WEB_PILOT_DISABLED:
                raise
        raise unreadable from None
    value = await call.send(WorkflowOp(id=0, op="import", document=document))
    return {"workflow_id": value["workflow_id"], "path": str(Path(path).expanduser())}


async def delete_workflow(call: Call, workflow_id: WorkflowId) -> DeletedResult:
    """remove a recorded workflow."""
    return await call.send(WorkflowOp(id=0, op="delete", workflow_id=workflow_id))
