"""Where the sockets live when the MCP client starts `tabpilot mcp` with a scrubbed environment: the
same folder the host (started by Chrome with the login session's environment) uses."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tabpilot import paths


@pytest.fixture
def no_session_vars(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in (paths.ENV_RUNTIME, "XDG_RUNTIME_DIR"):
        monkeypatch.delenv(name, raising=False)
    root = tmp_path / "run-user"
    root.mkdir()
    monkeypatch.setattr(paths, "SESSION_RUNTIME_ROOT", root)
    return root


def test_without_xdg_runtime_dir_the_login_sessions_folder_is_used(
    no_session_vars: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = no_session_vars / str(os.getuid())
    session.mkdir(mode=0o700)
    assert paths.runtime_dir() == session / paths.APP
    # What the host sees with the session's variable set: the same folder.
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(session))
    assert paths.runtime_dir() == session / paths.APP


def test_without_a_session_folder_a_private_one_in_tmp(no_session_vars: Path) -> None:
    assert paths.runtime_dir().name == f"{paths.APP}-{os.getuid()}"
