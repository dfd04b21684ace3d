"""Workflow files on the user's side: exported JSON written owner-only, imported JSON read size-capped.

The bridge and the CLI call these in the caller's own directory; the host never touches a path it is
sent (it runs with the browser's working directory)."""

from __future__ import annotations

import os
import stat
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
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0)
        fd = os.open(target, flags, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(document)
    except OSError as exc:
        raise TabPilotError(ErrorCode.INVALID_PARAMS, f"cannot write {target}: {exc}") from None
    return target


def _is_export(path: Path) -> bool:
    if not path.is_file():  # opening a FIFO to look would wait for a writer
        return False
    try:
        with path.open("rb") as f:
            head = f.read(4096)
    except OSError:
        return False
    return FORMAT.encode() in head


def read_import(path: Path) -> str:
    """The text of a workflow file to import (the host validates the content).

    Only a regular file is read, and no more than MAX_IMPORT_BYTES of it: a FIFO would block the
    reader until someone writes to it, and /dev/zero never ends. It is opened without blocking, so
    a FIFO is refused at once rather than waited on."""
    source = path.expanduser()
    where = {"path": str(source)}
    try:
        fd = os.open(source, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise _unreadable(source, exc.strerror or str(exc), "unreadable") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise TabPilotError(
                ErrorCode.INVALID_PARAMS,
                f"{source} is not a regular file (a pipe, a device or a folder); give a .json file",
                data={**where, "reason": "not_a_file"},
            )
        if info.st_size > MAX_IMPORT_BYTES:
            raise _too_large(source)
        data = _read_at_most(fd, MAX_IMPORT_BYTES + 1)  # a file growing as it is read stops here too
    except OSError as exc:
        raise _unreadable(source, exc.strerror or str(exc), "unreadable") from None
    finally:
        os.close(fd)
    if len(data) > MAX_IMPORT_BYTES:
        raise _too_large(source)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise _unreadable(source, "not UTF-8 text", "not_text") from None


def _read_at_most(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    while limit > 0 and (chunk := os.read(fd, min(limit, 1 << 16))):
        chunks.append(chunk)
        limit -= len(chunk)
    return b"".join(chunks)


def _too_large(source: Path) -> TabPilotError:
    return TabPilotError(
        ErrorCode.INVALID_PARAMS,
        f"{source} is over {MAX_IMPORT_BYTES:,} bytes, more than any exported workflow",
        data={"path": str(source), "reason": "too_large", "limit": MAX_IMPORT_BYTES},
    )


def _unreadable(source: Path, why: str, reason: str) -> TabPilotError:
    return TabPilotError(
        ErrorCode.INVALID_PARAMS, f"cannot read {source}: {why}", data={"path": str(source), "reason": reason}
    )
