"""Recorded workflows and recent results, on disk in the per-user data directory.

Files are 0600 in 0700 directories and written atomically (a private temp file, fsync, rename), so a
crash leaves the old file or the new one, never half of one. Workflows are capped (least recently
used goes first); only the last few results are kept. Everything survives a host restart.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
import time
from pathlib import Path
from typing import Any

import msgspec

from ..wire.errors import ErrorCode, TabPilotError

FORMAT = "tabpilot.workflow/1"
MAX_WORKFLOWS = 20
RESULTS_KEPT = 10
WORKFLOW_ID = re.compile(r"^wf-[A-Za-z0-9_-]{1,64}-\d{8}$")
CORRELATION_ID = re.compile(r"^corr-[0-9a-f]{6,32}$")


class WorkflowDoc(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """A recorded workflow as stored, exported and imported."""

    format: str
    id: str
    name: str
    workflow: dict[str, Any]  # steps, error_recovery, options: checked by plan.build_plan on use
    created: str = ""
    last_used: float = 0.0
    domains: list[str] = []
    params: dict[str, Any] = {}
    required_params: list[str] = []


_decoder = msgspec.json.Decoder(WorkflowDoc)
_encoder = msgspec.json.Encoder()


def write_private(path: Path, data: bytes) -> None:
    """Atomically replace `path` with `data`, readable by its owner only."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise


def _private_dir(path: Path) -> Path:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(path, 0o700)
    return path


def not_found(workflow_id: str) -> TabPilotError:
    """The error for a workflow id that is not stored."""
    return TabPilotError(
        ErrorCode.WORKFLOW_NOT_FOUND,
        f'no recorded workflow {workflow_id!r}; observe {{what: "workflows"}} lists them',
    )


class WorkflowStore:
    """Recorded workflows (`wf-<name>-<YYYYMMDD>.json`) and the last results (`corr-*.json`)."""

    def __init__(self, root: Path, *, cap: int = MAX_WORKFLOWS, results_kept: int = RESULTS_KEPT) -> None:
        self.root = root
        self.cap = cap
        self.results_kept = results_kept
        self._results_lock = threading.Lock()

    @property
    def _workflows(self) -> Path:
        return _private_dir(self.root / "workflows")

    @property
    def _results(self) -> Path:
        return _private_dir(self.root / "results")

    def _path(self, workflow_id: str) -> Path:
        if not WORKFLOW_ID.match(workflow_id):
            raise not_found(workflow_id)
        return self._workflows / f"{workflow_id}.json"

    # --- workflows ---

    def save(self, doc: WorkflowDoc) -> str:
        """Store (or replace) a workflow, evicting the least recently used beyond the cap."""
        path = self._path(doc.id)
        doc.last_used = time.time()
        write_private(path, _encoder.encode(doc))
        docs = sorted(self.all(), key=lambda d: d.last_used)
        for old in docs[: max(0, len(docs) - self.cap)]:
            with contextlib.suppress(FileNotFoundError):
                self._path(old.id).unlink()
        return doc.id

    def get(self, workflow_id: str, *, touch: bool = True) -> WorkflowDoc:
        """A stored workflow; using it makes it the most recently used."""
        path = self._path(workflow_id)
        try:
            doc = _decoder.decode(path.read_bytes())
        except FileNotFoundError:
            raise not_found(workflow_id) from None
        except msgspec.DecodeError as exc:
            raise TabPilotError(ErrorCode.INVALID_PARAMS, f"{path} is damaged: {exc}; delete it") from None
        if touch:
            doc.last_used = time.time()
            write_private(path, _encoder.encode(doc))
        return doc

    def all(self) -> list[WorkflowDoc]:
        """Every readable stored workflow (damaged files are skipped)."""
        docs: list[WorkflowDoc] = []
        for path in self._workflows.glob("wf-*.json"):
            with contextlib.suppress(OSError, msgspec.DecodeError):
                docs.append(_decoder.decode(path.read_bytes()))
        return docs

    def delete(self, workflow_id: str) -> None:
        """Remove a workflow."""
        try:
            self._path(workflow_id).unlink()
        except FileNotFoundError:
            raise not_found(workflow_id) from None

    # --- results ---

    def save_result(self, correlation_id: str, value: dict[str, Any]) -> None:
        """Keep a finished result; only the newest `results_kept` stay."""
        if not CORRELATION_ID.match(correlation_id):
            return
        data = _encoder.encode(value)
        # Results are written from worker threads: one at a time, or two evictions race.
        with self._results_lock:
            write_private(self._results / f"{correlation_id}.json", data)
            aged: list[tuple[int, Path]] = []
            for path in self._results.glob("corr-*.json"):
                with contextlib.suppress(FileNotFoundError):
                    aged.append((path.stat().st_mtime_ns, path))
            aged.sort()
            for _, old in aged[: max(0, len(aged) - self.results_kept)]:
                with contextlib.suppress(FileNotFoundError):
                    old.unlink()

    def get_result(self, correlation_id: str) -> Any | None:
        """A kept result, or None."""
        if not CORRELATION_ID.match(correlation_id):
            return None
        try:
            return msgspec.json.decode((self._results / f"{correlation_id}.json").read_bytes())
        except (FileNotFoundError, msgspec.DecodeError):
            return None


def decode_doc(data: bytes | str) -> WorkflowDoc:
    """A workflow document from exported JSON; invalid_params says what is wrong."""
    try:
        doc = _decoder.decode(data)
    except msgspec.DecodeError as exc:
        raise TabPilotError(ErrorCode.INVALID_PARAMS, f"not a TabPilot workflow file: {exc}") from None
    if doc.format != FORMAT:
        raise TabPilotError(
            ErrorCode.INVALID_PARAMS, f"unknown workflow format {doc.format!r}; expected {FORMAT}"
        )
    if not WORKFLOW_ID.match(doc.id):
        raise TabPilotError(ErrorCode.INVALID_PARAMS, f"workflow id {doc.id!r} is not wf-<name>-<YYYYMMDD>")
    return doc


def encode_doc(doc: WorkflowDoc) -> bytes:
    """The JSON a workflow is exported as."""
    return msgspec.json.format(_encoder.encode(doc), indent=2)
