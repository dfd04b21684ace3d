"""Recorded workflows: observe workflows, configure export_workflow | import_workflow | delete_workflow.

Files are read and written here, by the bridge, in the caller's directory: the host (started by the
browser, with the browser's working directory) never touches a path it is sent.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field
from typing_extensions import TypedDict  # pydantic needs this one on Python < 3.12

from ...wire.errors import ErrorCode, TabPilotError
from ...wire.messages import WorkflowOp
from .base import Call
from .configure import CONFIGURE
from .observe import OBSERVE

MAX_IMPORT_BYTES = 1024 * 1024

WorkflowId = Annotated[str, Field(description="A recorded workflow, e.g. wf-daily_metrics-20260128.")]
FilePath = Annotated[str, Field(description="A JSON file path on this machine.")]


class WorkflowsResult(TypedDict):
    workflows: list[dict[str, Any]]


class WorkflowFileResult(TypedDict):
    workflow_id: str
    path: str


class DeletedResult(TypedDict):
    deleted: str


def write_export(path: Path, document: str) -> Path:
    """Write an exported workflow, readable by its owner only (it may name internal URLs)."""
    target = path.expanduser().resolve()
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(document)
    return target


def read_import(path: Path) -> str:
    """The text of a workflow file to import (size-capped; the host validates the content)."""
    source = path.expanduser()
    try:
        if source.stat().st_size > MAX_IMPORT_BYTES:
            raise TabPilotError(ErrorCode.INVALID_PARAMS, f"{source} is over {MAX_IMPORT_BYTES:,} bytes")
        return source.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise TabPilotError(ErrorCode.INVALID_PARAMS, f"cannot read {source}: {exc}") from None


@OBSERVE.action
async def workflows(call: Call) -> WorkflowsResult:
    """the recorded workflows: workflow_id, name, domains, steps, required_params (newest use first)."""
    return await call.send(WorkflowOp(id=0, op="list"))


@CONFIGURE.action
async def export_workflow(call: Call, workflow_id: WorkflowId, path: FilePath) -> WorkflowFileResult:
    """write a recorded workflow to a JSON file (to share it, or import it elsewhere)."""
    value = await call.send(WorkflowOp(id=0, op="get", workflow_id=workflow_id))
    try:
        target = write_export(Path(path), value["document"])
    except OSError as exc:
        raise TabPilotError(ErrorCode.INVALID_PARAMS, f"cannot write {path}: {exc}") from None
    return {"workflow_id": workflow_id, "path": str(target)}


@CONFIGURE.action
async def import_workflow(call: Call, path: FilePath) -> WorkflowFileResult:
    """store a workflow from a JSON file written by export_workflow (checked like any request)."""
    value = await call.send(WorkflowOp(id=0, op="import", document=read_import(Path(path))))
    return {"workflow_id": value["workflow_id"], "path": str(Path(path).expanduser())}


@CONFIGURE.action
async def delete_workflow(call: Call, workflow_id: WorkflowId) -> DeletedResult:
    """remove a recorded workflow."""
    return await call.send(WorkflowOp(id=0, op="delete", workflow_id=workflow_id))
