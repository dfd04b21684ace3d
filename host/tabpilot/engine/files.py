"""Workflow files on the user's side: exported JSON written owner-only, imported JSON read size-capped.

The bridge and the CLI call these in the caller's own directory; the host never touches a path it is
sent (it runs with the browser's working directory)."""

from __future__ import annotations

import os
from pathlib import Path

from ..wire.errors import ErrorCode, TabPilotError
from .store import FORMAT

MAX_IMPORT_BYTES = 1024 * 1024


def write_export(path: Path, document: str) -> Path:
    """Write an exported workflow, readable by its owner only (it may name internal URLs).

    The path comes from the agent: only a `.json` file, and only a new one or an earlier export, so
    an export can never overwrite another file of the user's."""
    target = path.expanduser().resolve()
    if target.suffix.lower() != ".json":
        raise TabPilotError(ErrorCode.INVALID_PARAMS, f"{target}: an exported workflow is a .json file")
    if target.exists() and not _is_export(target):
        raise TabPilotError(
            ErrorCode.INVALID_PARAMS, f"{target} exists and is not an exported workflow; choose a new file"
        )
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(document)
    except OSError as exc:
        raise TabPilotError(ErrorCode.INVALID_PARAMS, f"cannot write {target}: {exc}") from None
    return target


def _is_export(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            head = f.read(4096)
    except OSError:
        return False
    return FORMAT.encode() in head


def read_import(path: Path) -> str:
    """The text of a workflow file to import (the host validates the content)."""
    source = path.expanduser()
    try:
        if source.stat().st_size > MAX_IMPORT_BYTES:
            raise TabPilotError(ErrorCode.INVALID_PARAMS, f"{source} is over {MAX_IMPORT_BYTES:,} bytes")
        return source.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise TabPilotError(ErrorCode.INVALID_PARAMS, f"cannot read {source}: {exc}") from None
