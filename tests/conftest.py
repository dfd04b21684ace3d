"""Shared fixtures: private temporary TabPilot directories, so no test touches the real ones."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Unit tests first: a failing one shows in a minute or two, not after the browser tests."""
    items.sort(key=lambda item: "tests/e2e/" in str(item.path))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def tp_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """TABPILOT_* directories under a short temp path (Unix socket paths are limited to ~107 bytes)."""
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="tp", dir="/tmp"))
    env = {
        "TABPILOT_RUNTIME_DIR": str(base / "run"),
        "TABPILOT_STATE_DIR": str(base / "state"),
        "TABPILOT_DATA_DIR": str(base / "data"),
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    yield env
    import shutil

    shutil.rmtree(base, ignore_errors=True)
