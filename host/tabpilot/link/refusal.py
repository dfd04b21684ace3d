"""Why a host is not listening, told to the command that waits for it.

A native host refuses to open its socket when the runtime directory is unsafe (or binding fails). It
has no one to tell but its log, while the launcher or the bridge that waits for the socket would only
see a timeout. So the host writes its refusal to `<state dir>/refusals/<instance id>.json` (removed
once it listens), and whoever waits reads it and reports the cause and its fix at once.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any, cast

from .. import paths
from ..wire.errors import ErrorCode, TabPilotError

FOLDER = "refusals"


def _path(instance_id: str) -> Path | None:
    # The id names a file: only the characters an instance id has (16 hex from the extension).
    if not instance_id or not all(c.isalnum() or c in "-_" for c in instance_id):
        return None
    return paths.state_dir() / FOLDER / f"{instance_id}.json"


def write(instance_id: str, error: TabPilotError) -> None:
    """Note that this host, for this browser instance, refused to listen, and why."""
    path = _path(instance_id)
    if path is None:
        return
    record = {"code": str(error.code), "message": error.message, "pid": os.getpid(), "at": time.time()}
    with contextlib.suppress(OSError):  # a host that cannot even write this still logs its refusal
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(record, f)
        os.replace(tmp, path)


def clear(instance_id: str) -> None:
    """The host listens now: no refusal stands for this instance."""
    path = _path(instance_id)
    if path is not None:
        with contextlib.suppress(OSError):
            path.unlink()


def _alive(pid: Any) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _load(path: Path) -> dict[str, Any] | None:
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return cast(dict[str, Any], data) if isinstance(data, dict) else None


def _error(record: dict[str, Any]) -> TabPilotError:
    message = f"the browser's TabPilot host refused to listen: {record.get('message', '')}"
    code = str(record.get("code") or ErrorCode.LAUNCH_FAILED)
    return TabPilotError(code, message, data={"host_pid": record.get("pid")})


def read(instance_id: str, since: float = 0.0) -> TabPilotError | None:
    """The refusal of this instance's host written at or after `since` (a time.time()), if any."""
    path = _path(instance_id)
    record = _load(path) if path is not None else None
    if record is None or not isinstance(record.get("at"), int | float) or record["at"] < since:
        return None
    return _error(record)


def standing() -> list[TabPilotError]:
    """The refusals of hosts still running (a browser whose extension is there, but unreachable)."""
    folder = paths.state_dir() / FOLDER
    found: list[TabPilotError] = []
    with contextlib.suppress(OSError):
        for path in sorted(folder.glob("*.json")):
            record = _load(path)
            if record is not None and _alive(record.get("pid")):
                found.append(_error(record))
    return found
