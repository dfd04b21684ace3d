"""Recorded workflows read and written straight from TabPilot's data directory.

They are plain files that the person at the terminal owns, so listing, exporting, importing and
deleting them needs no running browser (the host reads the same folder on every use).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import paths
from ..engine import workflows
from ..engine.files import read_import, write_export
from ..engine.store import WorkflowStore, decode_doc, encode_doc


def store() -> WorkflowStore:
    """The store every host of this user reads."""
    return WorkflowStore(paths.data_dir())


def summaries(found: WorkflowStore) -> list[dict[str, Any]]:
    """One line of facts per workflow, most recently used first (as `observe workflows` lists them)."""
    return workflows.listing(found)


def export(found: WorkflowStore, workflow_id: str, path: Path) -> Path:
    """Write one workflow to `path` (owner-only); the path written."""
    doc = found.get(workflow_id, touch=False)
    return write_export(path, encode_doc(doc).decode())


def import_file(found: WorkflowStore, path: Path) -> str:
    """Store the workflow in `path` after the same checks a host makes; its id."""
    doc = decode_doc(read_import(path))
    workflows.validate(doc)
    return found.save(doc)
