"""configure import_workflow reads only a regular file, and no more than its size bound: a FIFO, a
device, a folder or a huge file is refused at once with invalid_params and a stable `reason`, and the
bridge serves other calls meanwhile."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest

from tabpilot.engine.files import MAX_IMPORT_BYTES, read_import
from tabpilot.wire.errors import ErrorCode, TabPilotError

from .test_tools import WAIT_S, FakePool, client, payload

pytestmark = pytest.mark.anyio

DOCUMENT = json.dumps({"format": "tabpilot.workflow/1", "id": "wf-a-20260101"})


def _pool() -> FakePool:
    def workflow_op(command: Any) -> Any:
        return {"workflows": []} if command.op == "list" else {"workflow_id": "wf-a-20260101"}

    return FakePool(answers={"workflow_op": workflow_op, "ping": {"pong": True}})


def _fifo(tmp_path: Path) -> Path:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    return fifo


def _big(tmp_path: Path) -> Path:
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (MAX_IMPORT_BYTES + 1))
    return big


def _not_text(tmp_path: Path) -> Path:
    latin = tmp_path / "latin.json"
    latin.write_bytes(b'{"name": "caf\xe9"}')
    return latin


CASES = [
    ("fifo", _fifo, "not_a_file"),
    ("dev zero", lambda _: Path("/dev/zero"), "not_a_file"),
    ("dev random", lambda _: Path("/dev/urandom"), "not_a_file"),
    ("folder", lambda tmp: tmp, "not_a_file"),
    ("over the bound", _big, "too_large"),
    ("missing", lambda tmp: tmp / "missing.json", "unreadable"),
    ("not UTF-8", _not_text, "not_text"),
]


@pytest.mark.parametrize(("name", "make", "reason"), CASES, ids=[c[0] for c in CASES])
async def test_import_refuses_what_is_no_bounded_regular_file(
    tmp_path: Path, name: str, make: Any, reason: str
) -> None:
    path: Path = make(tmp_path)
    with anyio.fail_after(WAIT_S):
        async with client(_pool()) as c:
            result = await c.call_tool("configure", {"action": "import_workflow", "path": str(path)})
    out = payload(result)
    assert result.is_error and out["error"] == ErrorCode.INVALID_PARAMS, name
    assert out["data"]["reason"] == reason and out["data"]["path"] == str(path)


async def test_a_fifo_never_stalls_other_calls(tmp_path: Path) -> None:
    fifo = _fifo(tmp_path)
    with anyio.fail_after(WAIT_S):
        async with client(_pool()) as c, anyio.create_task_group() as tg:
            outcomes: list[Any] = []

            async def importing() -> None:
                args = {"action": "import_workflow", "path": str(fifo)}
                outcomes.append(payload(await c.call_tool("configure", args)))

            tg.start_soon(importing)
            assert (await c.list_tools()).tools
    assert outcomes[0]["data"]["reason"] == "not_a_file"


def test_a_regular_file_at_the_bound_is_read(tmp_path: Path) -> None:
    good = tmp_path / "wf.json"
    good.write_text(DOCUMENT + " " * (MAX_IMPORT_BYTES - len(DOCUMENT)))
    assert read_import(good).strip() == DOCUMENT
    link = tmp_path / "link.json"
    link.symlink_to(good)
    assert read_import(link).strip() == DOCUMENT
    with pytest.raises(TabPilotError) as fifo:  # the CLI's `tabpilot workflow import` reads here too
        read_import(_fifo(tmp_path))
    assert fifo.value.code == ErrorCode.INVALID_PARAMS and fifo.value.data["reason"] == "not_a_file"


async def test_export_to_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    fifo = _fifo(tmp_path)
    pool = FakePool(answers={"workflow_op": {"workflow_id": "wf-a-20260101", "document": DOCUMENT}})
    with anyio.fail_after(WAIT_S):
        async with client(pool) as c:
            args = {"action": "export_workflow", "workflow_id": "wf-a-20260101", "path": str(fifo)}
            result = await c.call_tool("configure", args)
    assert result.is_error and payload(result)["error"] == ErrorCode.INVALID_PARAMS
